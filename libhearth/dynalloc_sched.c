/*  dynalloc_sched.c - dynamic allocation's target and removals as pure
    logic; see dynalloc_sched.h for the rules. */
#include "config.h"

#include <stdio.h>

#include "libhearth/dynalloc_sched.h"

int
dynalloc_opts_check (const dynalloc_opts_t *o, char *buf, size_t size)
{
    if (o->min_executors < 0 || o->max_executors < 1)
        snprintf (buf, size,
                  "--min-executors must be 0 or more and "
                  "--max-executors 1 or more");
    else if (o->min_executors > o->max_executors)
        snprintf (buf, size,
                  "--min-executors %d is more than --max-executors %d",
                  o->min_executors, o->max_executors);
    else if (o->initial_executors < o->min_executors
             || o->initial_executors > o->max_executors)
        snprintf (buf, size,
                  "--initial-executors %d is outside --min-executors %d .. "
                  "--max-executors %d",
                  o->initial_executors, o->min_executors, o->max_executors);
    else if (o->backlog_timeout_ms < 1 || o->sustained_timeout_ms < 1
             || o->idle_timeout_ms < 1)
        snprintf (buf, size,
                  "the dynamic allocation timeouts must be at "
                  "least 1 ms");
    else
        return 0;
    return -1;
}

void
dynalloc_sched_init (dynalloc_sched_t *self, const dynalloc_opts_t *opts)
{
    *self = (dynalloc_sched_t){*opts, opts->initial_executors, 1, -1, true};
}

static int
s_clamp (const dynalloc_sched_t *self, int64_t n)
{
    if (n > self->opts.max_executors)
        n = self->opts.max_executors;
    if (n < self->opts.min_executors)
        n = self->opts.min_executors;
    return (int) n;
}

int
dynalloc_sched_needed (const dynalloc_sched_t *self,
                       const dynalloc_load_t *load)
{
    int64_t cpe = load->cores_per_executor > 0 ? load->cores_per_executor : 1;
    uint64_t need = (load->unfinished + (uint64_t) cpe - 1) / (uint64_t) cpe;
    return s_clamp (self, need > INT32_MAX ? INT32_MAX : (int64_t) need);
}

/* Spark's addExecutors: raise by to_add up to what is needed; the step
   doubles while that raised the target, else starts again at 1. */
static void
s_raise (dynalloc_sched_t *self, int needed, int64_t now_ms)
{
    int64_t want = (int64_t) self->target + self->to_add;
    int before = self->target;
    if (want > needed)
        want = needed;
    self->target = s_clamp (self, want > before ? want : before);
    self->to_add = self->target > before && self->to_add < (1 << 20)
                       ? self->to_add * 2
                       : 1;
    self->add_ms = now_ms + self->opts.sustained_timeout_ms;
}

int
dynalloc_sched_update (dynalloc_sched_t *self, const dynalloc_load_t *load,
                       int64_t now_ms)
{
    int needed = dynalloc_sched_needed (self, load);
    if (load->unfinished > 0)
        self->initializing = false;
    if (load->waiting == 0) { /* Spark's onSchedulerQueueEmpty */
        self->add_ms = -1;
        self->to_add = 1;
    }
    else if (self->add_ms < 0) /* onSchedulerBacklogged */
        self->add_ms = now_ms + self->opts.backlog_timeout_ms;
    if (self->initializing)
        return self->target;
    if (self->target > needed) {
        self->target = needed; /* kills nothing: idle ones go later */
        self->to_add = 1;
    }
    else if (self->add_ms >= 0 && now_ms >= self->add_ms)
        s_raise (self, needed, now_ms);
    return self->target;
}

size_t
dynalloc_sched_removable (const dynalloc_sched_t *self,
                          const dynalloc_load_t *load, size_t nidle)
{
    int keep = self->target > self->opts.min_executors
                   ? self->target
                   : self->opts.min_executors;
    if (load->cores_held > 0 && load->waiting >= (uint64_t) load->cores_held)
        return 0; /* tasks still queue for every core held */
    if (load->executors <= keep)
        return 0;
    size_t room = (size_t) (load->executors - keep);
    return nidle < room ? nidle : room;
}

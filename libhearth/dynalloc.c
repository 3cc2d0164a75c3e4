/*  dynalloc.c - dynamic allocation in the driver: the schedule's inputs
    from the task set and the executor set, its target to the master, and
    the release of idle executors; see dynalloc.h. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/intkeys.h"
#include "libcore/log.h"
#include "libhearth/dynalloc.h"

/* An executor given back and still known this long: ask again (the
   message may have gone to a master that was away). */
static const int64_t s_release_retry_ms = 10000;
/* Executors given back per KILL_EXECUTORS at most (the rest next tick). */
#define S_RELEASE_BATCH 256
/* Places a request names at most (REQUEST_EXECUTORS places). */
#define S_PLACES_MAX 32

/* What it knows of one executor. */
typedef struct {
    int64_t idle_since_ms; /* monotonic: idle since, or -1: busy */
    int64_t released_ms;   /* monotonic: given back at, or -1 */
    bool seen;             /* still known at this tick */
} s_exec_t;

struct dynalloc {
    dynalloc_sched_t sched; /* the decisions */
    dynalloc_cbs_t cbs;     /* the owner's callbacks */
    int cores_per_executor; /* executor-cores, or 0: unset (learnt) */
    int sent_target;        /* last target sent, or -1: to send */
    uint64_t sent_places;   /* a hash of the place names last sent */
    zhashx_t *execs;        /* exec id -> s_exec_t (owned) */
};

/* One tick's look at the executors. */
typedef struct {
    dynalloc_t *self;            /* the manager */
    hearth_taskset_t *ts;        /* the task set (borrowed) */
    int64_t now_ms;              /* monotonic */
    dynalloc_load_t load;        /* filled in */
    int64_t cores_all;           /* cores of every known executor */
    int idle[S_RELEASE_BATCH];   /* executors idle past the timeout */
    size_t nidle;                /* entries in idle */
    int resend[S_RELEASE_BATCH]; /* given back long ago, still known */
    size_t nresend;              /* entries in resend */
} s_look_t;

static void
s_exec_free (void **item)
{
    free (*item);
    *item = NULL;
}

dynalloc_t *
dynalloc_new (const hearth_conf_t *conf, const dynalloc_cbs_t *cbs,
              hearth_error_t *err)
{
    dynalloc_opts_t opts;
    if (dynalloc_opts_from_conf (conf, &opts, err) < 0)
        return NULL;
    dynalloc_t *self = calloc (1, sizeof *self);
    if (!self || !(self->execs = zhashx_new ())) {
        free (self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    hearth_intkeys_setup (self->execs);
    zhashx_set_destructor (self->execs, s_exec_free);
    dynalloc_sched_init (&self->sched, &opts);
    self->cbs = *cbs;
    self->cores_per_executor =
        hearth_conf_isset (conf, "executor-cores")
            ? (int) hearth_conf_int (conf, "executor-cores")
            : 0;
    self->sent_target = -1;
    return self;
}

void
dynalloc_destroy (dynalloc_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    zhashx_destroy (&(*self_p)->execs);
    free (*self_p);
    *self_p = NULL;
}

void
dynalloc_registered (dynalloc_t *self)
{
    self->sent_target = -1;
}

int
dynalloc_target (const dynalloc_t *self)
{
    return self->sched.target;
}

/* Note one executor: its idle time, and whether it may go. */
static void
s_look_exec (void *arg, int exec_id, int cores, bool registered)
{
    s_look_t *l = arg;
    dynalloc_t *self = l->self;
    s_exec_t *x = zhashx_lookup (self->execs, hearth_intkey (exec_id));
    if (!x) {
        if (!(x = calloc (1, sizeof *x)))
            return;
        *x = (s_exec_t){-1, -1, false};
        zhashx_insert (self->execs, hearth_intkey (exec_id), x);
    }
    x->seen = true;
    if (x->released_ms >= 0) { /* going: it counts no more */
        if (l->now_ms - x->released_ms >= s_release_retry_ms
            && l->nresend < S_RELEASE_BATCH) {
            l->resend[l->nresend++] = exec_id;
            x->released_ms = l->now_ms;
        }
        return;
    }
    l->load.executors++;
    l->cores_all += cores;
    if (registered)
        l->load.cores_held += cores;
    int64_t attempts =
        registered ? hearth_taskset_executor_attempts (l->ts, exec_id) : -1;
    if (attempts != 0) {
        x->idle_since_ms = -1;
        return;
    }
    if (x->idle_since_ms < 0)
        x->idle_since_ms = l->now_ms;
    if (l->now_ms - x->idle_since_ms >= self->sched.opts.idle_timeout_ms
        && l->nidle < S_RELEASE_BATCH)
        l->idle[l->nidle++] = exec_id;
}

/* Forget executors no longer known (ended: released or lost). */
static void
s_forget_gone (dynalloc_t *self)
{
    zlistx_t *gone = zlistx_new ();
    for (s_exec_t *x = zhashx_first (self->execs); gone && x;
         x = zhashx_next (self->execs)) {
        if (!x->seen)
            zlistx_add_end (gone, (void *) zhashx_cursor (self->execs));
        x->seen = false;
    }
    for (void *k = gone ? zlistx_first (gone) : NULL; k; k = zlistx_next (gone))
        zhashx_delete (self->execs, k);
    zlistx_destroy (&gone);
}

/* Retire the removable idle executors in the task set, then give them
   back: no offer can reach one between the two. */
static void
s_release (dynalloc_t *self, s_look_t *l)
{
    size_t n = dynalloc_sched_removable (&self->sched, &l->load, l->nidle);
    for (size_t i = 0; i < n; i++) {
        hearth_taskset_retire_executor (l->ts, l->idle[i]);
        s_exec_t *x = zhashx_lookup (self->execs, hearth_intkey (l->idle[i]));
        x->released_ms = l->now_ms;
        log_info ("dynamic allocation: executor %d idle for %lld ms: giving "
                  "it back",
                  l->idle[i], (long long) (l->now_ms - x->idle_since_ms));
    }
    if (n)
        self->cbs.release (self->cbs.arg, l->idle, n);
    if (l->nresend)
        self->cbs.release (self->cbs.arg, l->resend, l->nresend);
}

/* FNV-1a of the place names, in order: a request goes again when the
   places its tasks want change, not at each change of their counts. */
static uint64_t
s_places_hash (const char *const *places, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        for (const char *c = places[i];; c++) {
            h = (h ^ (unsigned char) *c) * 0x100000001b3ULL;
            if (!*c)
                break;
        }
    return h;
}

void
dynalloc_tick (dynalloc_t *self, hearth_taskset_t *ts, const execs_t *execs,
               int64_t now_ms)
{
    s_look_t *l = calloc (1, sizeof *l);
    if (!l)
        return;
    l->self = self;
    l->ts = ts;
    l->now_ms = now_ms;
    execs_each (execs, s_look_exec, l);
    s_forget_gone (self);
    hearth_taskset_demand (ts, &l->load.waiting, &l->load.unfinished);
    /* executor-cores, else what the executors granted have on average */
    l->load.cores_per_executor =
        self->cores_per_executor ? self->cores_per_executor
        : l->load.executors      ? (int) (l->cores_all / l->load.executors)
                                 : 1;
    int target = dynalloc_sched_update (&self->sched, &l->load, now_ms);
    const char *places[S_PLACES_MAX];
    uint64_t counts[S_PLACES_MAX];
    size_t nplaces =
        hearth_taskset_place_demand (ts, places, counts, S_PLACES_MAX);
    uint64_t hash = s_places_hash (places, nplaces);
    if (target != self->sent_target || hash != self->sent_places) {
        log_info ("dynamic allocation: target %d executors (%d held, %llu "
                  "tasks waiting, %llu unfinished)",
                  target, l->load.executors,
                  (unsigned long long) l->load.waiting,
                  (unsigned long long) l->load.unfinished);
        self->cbs.request (self->cbs.arg, target, places, counts, nplaces);
        self->sent_target = target;
        self->sent_places = hash;
    }
    s_release (self, l);
    free (l);
}

/*  taskset_offer.c - what the task set offers an executor: how many
    attempts it may hold (its slots, with prefetch), and which tasks fill
    them, in FIFO order or FAIR by pool (see taskset.h).

    Within a stage a task comes from the retry queue first (one that did
    not last fail on this executor, when there is another, nor on this
    executor's host, when an executor runs on another), then the tasks
    never launched (in order, or by locality when they prefer places:
    taskset_place.c), then the stragglers to copy.  This runs per task: keep
    it free of calls into the other parts (the helpers it needs are inline
    in taskset_int.h).
*/
#include "config.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "libcore/taskset_int.h"

/* Prefetch for tasks this long or longer: none (a round trip is nothing
   beside them). */
static const int64_t s_no_prefetch_us = 1000000;

size_t
hearth_taskset_slots (const hearth_taskset_t *self, int cores)
{
    int64_t mean = self->mean_run_us;
    int64_t extra = 1; /* no run time known yet: one ahead per core */
    if (mean > 0) {
        extra = (self->opts.prefetch_target_us + mean - 1) / mean;
        if (extra < 1)
            extra = 1;
        if (mean >= s_no_prefetch_us)
            extra = 0; /* long tasks: no tail imbalance for one round trip */
    }
    if (extra > self->opts.prefetch_max)
        extra = self->opts.prefetch_max; /* --task-prefetch 0: none, ever */
    return (size_t) cores * (size_t) (1 + extra);
}

size_t
hearth_taskset_free_slots (const hearth_taskset_t *self, int exec_id)
{
    ts_exec_t *e = ts_exec (self, exec_id);
    if (!e || e->retired)
        return 0;
    size_t slots = hearth_taskset_slots (self, e->cores);
    return e->inflight < slots ? slots - e->inflight : 0;
}

int
hearth_taskset_retire_executor (hearth_taskset_t *self, int exec_id)
{
    ts_exec_t *e = ts_exec (self, exec_id);
    if (!e) {
        errno = ENOENT;
        return -1;
    }
    e->retired = true;
    return 0;
}

int64_t
hearth_taskset_executor_attempts (const hearth_taskset_t *self, int exec_id)
{
    const ts_exec_t *e = ts_exec (self, exec_id);
    return e ? (int64_t) e->inflight : -1;
}

static bool
s_alone (const hearth_taskset_t *self)
{
    return zhashx_size (self->execs) <= 1;
}

/* A task to run again from st's retry queue for e.  An entry whose task
   is no longer pending is dropped: a resubmitted task (its output lost)
   that an attempt being killed finished after all, or a second entry of
   a task resubmitted twice. */
static bool
s_take_retry (hearth_taskset_t *self, ts_stage_t *st, ts_exec_t *e,
              uint64_t *index)
{
    while (ts_queue_take (&st->retry, e->id, s_alone (self), e->host,
                          ts_elsewhere (self, e->host), index))
        if (st->tasks[*index].state == TASK_PENDING)
            return true;
    return false;
}

/* Whether st has tasks never launched. */
static bool
s_fresh_left (const ts_stage_t *st)
{
    if (st->prefs)
        return !st->prefs->built || st->prefs->fresh_left > 0;
    return st->next_fresh < st->ntasks;
}

/* The next task of st for exec e at now_us.  Returns true and fills
 *out. */
static bool
s_pick_task (hearth_taskset_t *self, ts_stage_t *st, ts_exec_t *e,
             int64_t now_us, hearth_assign_t *out)
{
    uint64_t index;
    bool speculative = false;
    uint8_t level = HEARTH_LOC_NO_PREF;
    st->offered = true;
    if (st->need.n && !ts_res_fits (e, st))
        return false; /* its resources are not free there */
    if (st->nrequire && !ts_place_meets (e, st))
        return false; /* not a worker it may run on */
    if (ts_queue_size (&st->retry) && s_take_retry (self, st, e, &index))
        ;
    else if (st->prefs && ts_place_pick (self, st, e, now_us, &index, &level))
        ;
    else if (st->prefs && s_fresh_left (st))
        return false; /* its fresh tasks wait for their places */
    else if (!st->prefs && st->next_fresh < st->ntasks)
        index = st->next_fresh++;
    else {
        for (;;) {
            if (!ts_queue_take (&st->spec, e->id, false, -1, false, &index))
                return false;
            /* a copy is of a running straggler: one done needs none, one
               pending (its attempt failed) is in the retry queue */
            if (st->tasks[index].state == TASK_RUNNING)
                break;
        }
        speculative = true;
    }
    if (level == HEARTH_LOC_NO_PREF && st->prefs) /* a retry, or a copy */
        level = ts_place_level (self, st, e, index);
    ts_task_t *t = &st->tasks[index];
    out->stage = st->id;
    out->index = index;
    out->attempt = t->next_attempt++;
    out->speculative = speculative;
    out->locality = level;
    return true;
}

/* Put attempt a of st at the head of its executor's list: executing
   when a core is free (then none waits), else queued. */
static void
s_link (ts_exec_t *e, ts_stage_t *st, ts_attempt_t *a)
{
    a->prev = NULL;
    a->next = e->head;
    if (e->head)
        e->head->prev = a;
    e->head = a;
    e->inflight++;
    if (e->executing < e->cores) {
        a->executing = true;
        e->executing++;
        e->edge = a;
        st->executing++;
    }
}

/* Record the assignment as an attempt in flight on e from now_us. */
static void
s_launch (hearth_taskset_t *self, ts_stage_t *st, ts_exec_t *e,
          const hearth_assign_t *as, int64_t now_us)
{
    ts_attempt_t *a = calloc (1, sizeof *a);
    if (!a)
        return;
    a->key = (ts_akey_t){as->stage, as->attempt, as->index};
    a->exec_id = e->id;
    a->start_us = now_us;
    a->speculative = as->speculative;
    a->locality = as->locality;
    zhashx_insert (self->attempts, &a->key, a);
    s_link (e, st, a);
    if (st->need.n)
        ts_res_hold (e, st, a);
    ts_task_t *t = &st->tasks[as->index];
    t->state = TASK_RUNNING;
    t->running++;
    st->running++;
}

static bool
s_has_work (const ts_stage_t *st)
{
    return ts_stage_runnable (st)
           && (ts_queue_size (&st->retry) || s_fresh_left (st)
               || ts_queue_size (&st->spec));
}

/* FAIR: pool_running[i] is the number of attempts running in stage i's
   pool.  Pick the stage with work whose pool has the fewest running
   attempts per unit of weight (ties: the earlier stage).  Returns its
   position in stages, or -1. */
static ssize_t
s_fair_pick (const hearth_taskset_t *self, const uint64_t *pool_running,
             const bool *tried)
{
    ssize_t best = -1;
    double best_share = 0;
    for (size_t i = 0; i < self->nstages; i++) {
        const ts_stage_t *st = self->stages[i];
        if (tried[i] || !s_has_work (st))
            continue;
        double share = (double) pool_running[i] / st->weight;
        if (best < 0 || share < best_share) {
            best = (ssize_t) i;
            best_share = share;
        }
    }
    return best;
}

/* Count, for each stage, the attempts running in its pool. */
static void
s_pool_counts (const hearth_taskset_t *self, uint64_t *pool_running)
{
    for (size_t i = 0; i < self->nstages; i++) {
        pool_running[i] = 0;
        for (size_t j = 0; j < self->nstages; j++)
            if (strcmp (self->stages[j]->pool, self->stages[i]->pool) == 0)
                pool_running[i] += self->stages[j]->running;
    }
}

static size_t
s_offer_fair (hearth_taskset_t *self, ts_exec_t *e, int64_t now_us,
              hearth_assign_t *out, size_t want)
{
    size_t n = 0, count = self->nstages ? self->nstages : 1;
    bool *tried = calloc (count, sizeof *tried);
    uint64_t *pool_running = calloc (count, sizeof *pool_running);
    if (tried && pool_running)
        s_pool_counts (self, pool_running);
    while (tried && pool_running && n < want) {
        ssize_t i = s_fair_pick (self, pool_running, tried);
        if (i < 0)
            break;
        ts_stage_t *st = self->stages[i];
        if (!s_pick_task (self, st, e, now_us, &out[n])) {
            tried[i] = true; /* nothing there for this executor */
            continue;
        }
        s_launch (self, st, e, &out[n++], now_us);
        for (size_t j = 0; j < self->nstages; j++)
            if (strcmp (self->stages[j]->pool, st->pool) == 0)
                pool_running[j]++;
    }
    free (tried);
    free (pool_running);
    return n;
}

static size_t
s_offer_fifo (hearth_taskset_t *self, ts_exec_t *e, int64_t now_us,
              hearth_assign_t *out, size_t want)
{
    size_t n = 0;
    for (size_t i = 0; i < self->nstages && n < want; i++) {
        ts_stage_t *st = self->stages[i];
        while (n < want && s_has_work (st)
               && s_pick_task (self, st, e, now_us, &out[n]))
            s_launch (self, st, e, &out[n++], now_us);
    }
    return n;
}

size_t
hearth_taskset_offer (hearth_taskset_t *self, int exec_id, int64_t now_us,
                      hearth_assign_t *out, size_t max)
{
    ts_exec_t *e = ts_exec (self, exec_id);
    if (!e)
        return 0;
    size_t want = hearth_taskset_free_slots (self, exec_id);
    if (want > max)
        want = max;
    if (want == 0)
        return 0;
    return self->opts.fair ? s_offer_fair (self, e, now_us, out, want)
                           : s_offer_fifo (self, e, now_us, out, want);
}

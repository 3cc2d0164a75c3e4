/*  taskset_lost.c - lost map outputs and fetch failures (issue 21); see
    taskset.h.

    A shuffle's reduce tasks read the outputs that the map tasks of a
    parent stage left on their workers.  When a worker goes, the outputs
    it held are lost although their tasks finished: the driver resubmits
    those tasks, which makes the map stage not done again, so that the
    stages reading it are held back (their parents_left grows again, and
    a stage with parents left is never offered: the offer path needs no
    test of its own).  A reduce attempt that could not fetch ends
    FETCH_FAILED: it goes back to the retry queue without counting as a
    failure, and is offered again once its stage's parents are all done.
    One that would wait on a worker the driver knows is gone is killed
    and goes back the same way at once (hearth_taskset_refetch).

    Per stage, fetch_rounds counts the rounds of fetch failures since one
    of its tasks last finished, a round being the FETCH_FAILEDs between
    two re-dones of a parent (taskset.c closes a round in s_stage_done,
    and resets the count in s_finished), so that the driver can abandon a
    stage that keeps losing its input.  None of this runs per task.
*/
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "libcore/taskset_int.h"

/* A task run again because of a lost output or a failed fetch avoids no
   executor nor host: neither was at fault. */
static const ts_avoid_t s_avoid_none = {-1, -1};

/* A fetch failure of st: a round opens unless one is open. */
static void
s_open_round (ts_stage_t *st)
{
    if (!st->fetch_round_open) {
        st->fetch_rounds++;
        st->fetch_round_open = true;
    }
}

hearth_ts_outcome_t
ts_fetch_failed (hearth_taskset_t *self, ts_stage_t *st, uint64_t index,
                 bool killing)
{
    (void) self;
    s_open_round (st);
    ts_task_t *t = &st->tasks[index];
    if (killing || t->state == TASK_DONE)
        return HEARTH_TS_RELEASED;
    if (t->running == 0) { /* else a copy runs on: leave it alone */
        t->state = TASK_PENDING;
        ts_queue_push (&st->retry, index, s_avoid_none);
    }
    return HEARTH_TS_FETCH_WAIT;
}

/* Whether every stage of job is done (its JOB_DONE has fired). */
static bool
s_job_done (const hearth_taskset_t *self, uint64_t job)
{
    for (size_t i = 0; i < self->nstages; i++)
        if (self->stages[i]->job == job && !self->stages[i]->done)
            return false;
    return true;
}

/* st, done, is not any more: hold back the stages that read it, as
   s_stage_done (taskset.c) released them. */
static void
s_stage_undone (hearth_taskset_t *self, ts_stage_t *st)
{
    st->done = false;
    for (size_t i = 0; i < self->nstages; i++) {
        ts_stage_t *other = self->stages[i];
        if (other->job != st->job)
            continue;
        for (size_t p = 0; p < other->nparents; p++)
            if (other->parents[p] == st->id)
                other->parents_left++;
    }
}

int
hearth_taskset_resubmit (hearth_taskset_t *self, uint32_t stage, uint64_t index)
{
    ts_stage_t *st = ts_stage (self, stage);
    if (!st || index >= st->ntasks)
        return errno = EINVAL, -1;
    if (st->failed)
        return errno = ECANCELED, -1;
    ts_task_t *t = &st->tasks[index];
    if (t->state != TASK_DONE)
        return 0; /* pending or running: it will make a new output */
    if (st->done && s_job_done (self, st->job))
        return errno = EALREADY, -1;
    if (ts_queue_push (&st->retry, index, s_avoid_none) < 0)
        return errno = ENOMEM, -1;
    t->state = TASK_PENDING;
    st->finished--; /* and the last run time noted goes (speculation) */
    if (st->done)
        s_stage_undone (self, st);
    return 0;
}

int
hearth_taskset_refetch (hearth_taskset_t *self, uint32_t stage,
                        hearth_ts_needs_fn *needs, void *arg)
{
    ts_stage_t *st = ts_stage (self, stage);
    if (!st)
        return errno = EINVAL, -1;
    int killed = 0;
    /* the attempts in flight, bounded by the executors' slots */
    for (ts_attempt_t *a =
             st->running && !st->failed ? zhashx_first (self->attempts) : NULL;
         a; a = zhashx_next (self->attempts))
        if (a->key.stage == stage && !a->killing && needs (arg, a->key.index)) {
            ts_kill_requeue (self, st, a, s_avoid_none);
            killed++;
        }
    if (killed)
        s_open_round (st); /* they would have failed to fetch */
    return killed;
}

int
hearth_taskset_fetch_failures (const hearth_taskset_t *self, uint32_t stage)
{
    const ts_stage_t *st = ts_stage (self, stage);
    if (!st)
        return errno = EINVAL, -1;
    return (int) st->fetch_rounds;
}

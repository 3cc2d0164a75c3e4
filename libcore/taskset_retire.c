/*  taskset_retire.c - the queued attempts of a retired executor go back
    to their stages; see taskset_retire.h.  Its executing attempts finish
    where they are (a decommission waits for them); the queued ones would
    wait there behind them for nothing while other executors have room. */
#include "config.h"

#include <errno.h>

#include "libcore/taskset_int.h"
#include "libcore/taskset_retire.h"

/* Attempt a, queued on e, is asked to be killed and its task re-queued
   (when nothing else runs it): a move, counted nowhere. */
static void
s_move (hearth_taskset_t *self, ts_exec_t *e, ts_attempt_t *a)
{
    ts_stage_t *st = ts_stage (self, a->key.stage);
    if (!st)
        return;
    ts_task_t *t = &st->tasks[a->key.index];
    a->killing = true; /* its end, when heard, is released */
    t->running--;
    hearth_ts_event_t ev = {.type = HEARTH_TS_EV_KILL,
                            .job = st->job,
                            .stage = a->key.stage,
                            .index = a->key.index,
                            .attempt = a->key.attempt,
                            .exec_id = e->id};
    ts_event_push (self, &ev);
    if (t->state == TASK_DONE || st->failed || t->running > 0)
        return;                     /* done, or a copy runs elsewhere */
    ts_avoid_t avoid = {e->id, -1}; /* a move says nothing of the host */
    t->state = TASK_PENDING;
    ts_queue_push (&st->retry, a->key.index, avoid);
}

int
hearth_taskset_move_queued (hearth_taskset_t *self, int exec_id)
{
    ts_exec_t *e = ts_exec (self, exec_id);
    if (!e) {
        errno = ENOENT;
        return -1;
    }
    int moved = 0;
    /* the list runs from the newest: queued ones up to the executing */
    for (ts_attempt_t *a = e->head; a && !a->executing; a = a->next)
        if (!a->killing) {
            s_move (self, e, a);
            moved++;
        }
    return moved;
}

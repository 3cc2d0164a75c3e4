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
    if (st) /* a move says nothing of the host */
        ts_kill_requeue (self, st, a, (ts_avoid_t){e->id, -1});
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

/*  taskset_spec.c - speculation: copies of a stage's stragglers.

    Once spec_quantile of a stage's tasks have finished, an attempt that
    has run longer than spec_multiplier x the median run time of those
    (and at least spec_min_us) is a straggler: its task goes to the
    stage's spec queue once, and offers then send a copy to another
    executor (taskset_offer.c).  The first attempt to finish wins and the
    other is killed (taskset.c).  The engine calls this on a timer, not
    per task.
*/
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "libcore/taskset_int.h"

/* The k-th smallest of v[0..n) (reorders v). */
static int64_t
s_select (int64_t *v, ssize_t n, ssize_t k)
{
    ssize_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t pivot = v[lo + (hi - lo) / 2];
        ssize_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                int64_t tmp = v[i];
                v[i++] = v[j];
                v[j--] = tmp;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

/* The run time past which an attempt of st is a straggler, or 0. */
static int64_t
s_threshold (const hearth_taskset_t *self, const ts_stage_t *st)
{
    if (!ts_stage_runnable (st) || st->finished == 0 || !st->durations
        || (double) st->finished < self->opts.spec_quantile * st->ntasks)
        return 0;
    int64_t *copy = malloc (st->finished * sizeof *copy);
    if (!copy)
        return 0;
    memcpy (copy, st->durations, st->finished * sizeof *copy);
    int64_t median =
        s_select (copy, (ssize_t) st->finished, (ssize_t) st->finished / 2);
    free (copy);
    int64_t threshold = (int64_t) (self->opts.spec_multiplier * median);
    return threshold > self->opts.spec_min_us ? threshold
                                              : self->opts.spec_min_us;
}

size_t
hearth_taskset_speculate (hearth_taskset_t *self, int64_t now_us)
{
    if (!self->opts.speculation || self->nstages == 0)
        return 0;
    int64_t *threshold = calloc (self->nstages, sizeof *threshold);
    if (!threshold)
        return 0;
    bool any = false;
    for (size_t i = 0; i < self->nstages; i++)
        any |= (threshold[i] = s_threshold (self, self->stages[i])) > 0;
    size_t found = 0;
    for (ts_attempt_t *a = any ? zhashx_first (self->attempts) : NULL; a;
         a = zhashx_next (self->attempts)) {
        ts_stage_t *st = ts_stage (self, a->key.stage);
        size_t pos = 0;
        while (pos < self->nstages && self->stages[pos] != st)
            pos++;
        if (!st || threshold[pos] == 0 || a->speculative || a->killing)
            continue;
        ts_task_t *t = &st->tasks[a->key.index];
        if (t->speculated || t->running != 1 || t->state == TASK_DONE
            || now_us - a->start_us <= threshold[pos])
            continue;
        t->speculated = 1;
        ts_queue_push (&st->spec, a->key.index, (ts_avoid_t){a->exec_id, -1});
        found++;
    }
    free (threshold);
    return found;
}

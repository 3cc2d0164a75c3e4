/*  taskset_demand.c - what the task set's runnable stages still want of
    executors, for dynamic allocation (libhearth/dynalloc.c); see
    hearth_taskset_demand in taskset.h. */
#include "config.h"

#include <stdlib.h>

#include "libcore/taskset_int.h"

void
hearth_taskset_demand (const hearth_taskset_t *self, uint64_t *waiting,
                       uint64_t *unfinished)
{
    uint64_t left = 0, executing = 0;
    for (size_t i = 0; i < self->nstages; i++) {
        const ts_stage_t *st = self->stages[i];
        if (!st || st->done || st->failed || st->parents_left > 0)
            continue; /* nothing to run there now */
        left += st->ntasks - st->finished;
        executing += st->executing;
    }
    *unfinished = left;
    *waiting = left > executing ? left - executing : 0;
}

/* Whether task t of st was never launched. */
static bool
s_fresh (const ts_stage_t *st, uint64_t t)
{
    return st->tasks[t].state == TASK_PENDING && st->tasks[t].next_attempt == 0;
}

/* Add to per[place] the fresh tasks of st preferring it: from the pairs
   as given before the stage's first offer, from its lists after. */
static void
s_stage_places (const ts_stage_t *st, uint64_t *per, size_t nplaces)
{
    const ts_prefs_t *p = st->prefs;
    if (!p->built) {
        for (size_t k = 0; k < p->ngiven; k++)
            if ((size_t) p->given[k].place < nplaces
                && s_fresh (st, p->given[k].index))
                per[p->given[k].place]++;
        return;
    }
    for (size_t l = 0; l < p->nlists && l < nplaces; l++)
        for (size_t i = p->lists[l].head; i < p->lists[l].n; i++)
            per[l] += s_fresh (st, p->lists[l].index[i]);
}

/* Put (name, count) among the max most wanted of names/counts (n of
   them, most first). */
static void
s_keep_top (const char **names, uint64_t *counts, size_t *n, size_t max,
            const char *name, uint64_t count)
{
    size_t at = *n;
    while (at > 0 && counts[at - 1] < count)
        at--;
    if (at >= max)
        return;
    size_t last = *n < max ? *n : max - 1;
    for (size_t i = last; i > at; i--) {
        names[i] = names[i - 1];
        counts[i] = counts[i - 1];
    }
    names[at] = name;
    counts[at] = count;
    if (*n < max)
        (*n)++;
}

size_t
hearth_taskset_place_demand (const hearth_taskset_t *self, const char **names,
                             uint64_t *counts, size_t max)
{
    uint64_t *per = calloc (self->nplaces + 1, sizeof *per);
    if (!per || max == 0) {
        free (per);
        return 0;
    }
    for (size_t i = 0; i < self->nstages; i++) {
        const ts_stage_t *st = self->stages[i];
        if (st && st->prefs && !st->done && !st->failed
            && st->parents_left == 0)
            s_stage_places (st, per, self->nplaces);
    }
    size_t n = 0;
    for (size_t l = 0; l < self->nplaces; l++)
        if (per[l])
            s_keep_top (names, counts, &n, max, self->places[l], per[l]);
    free (per);
    return n;
}

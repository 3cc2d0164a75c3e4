/*  timeline_lanes.c - the timeline's lanes: each attempt on a free core
    lane of its executor, greedy by start; see timeline.h. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "libcore/timeline.h"

static int
s_cmp_exec (const void *key, const void *elem)
{
    int64_t id = *(const int64_t *) key;
    const hearth_tl_exec_t *x = elem;
    return id < x->id ? -1 : id > x->id;
}

/* The index of executor id in tl->execs, or -1. */
long
hearth_timeline_exec (const hearth_tl_t *tl, int64_t id)
{
    const hearth_tl_exec_t *x =
        tl->nexecs ? bsearch (&id, tl->execs, tl->nexecs, sizeof *x, s_cmp_exec)
                   : NULL;
    return x ? x - tl->execs : -1;
}

int64_t
hearth_timeline_end (const hearth_tl_task_t *t)
{
    return t->end_us > t->start_us ? t->end_us : t->start_us;
}

/* Tasks by start, end, place (qsort's context through a file-local
   pointer is not reentrant: the order is an array of pairs instead). */
typedef struct {
    int64_t start, end; /* the task's */
    size_t i;           /* its place */
} s_ord_t;

static int
s_cmp_ord (const void *a, const void *b)
{
    const s_ord_t *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int
s_lanes_of (int64_t cores)
{
    return cores < 1                     ? 1
           : cores > HEARTH_TL_MAX_LANES ? HEARTH_TL_MAX_LANES
                                         : (int) cores;
}

/* The lane of one task on an executor whose lanes end at
   free_at[0..*n): the first free at start, else the first free within
   slack of it (its drawn start, *from, is then that lane's end), else a
   new one (up to the bound, -1 beyond; -2: no memory). */
static int
s_take_lane (int64_t **free_at, int *n, int64_t start, int64_t end,
             int64_t slack, int64_t *from)
{
    int l = 0;
    while (l < *n && (*free_at)[l] > start)
        l++;
    if (l == *n && *n > 0) { /* the lane freed first, if within slack */
        int m = 0;
        for (int k = 1; k < *n; k++)
            m = (*free_at)[k] < (*free_at)[m] ? k : m;
        l = (*free_at)[m] <= start + slack ? m : *n;
    }
    if (l == *n) {
        if (*n >= HEARTH_TL_MAX_LANES)
            return -1;
        int64_t *p = realloc (*free_at, (size_t) (*n + 1) * sizeof *p);
        if (!p)
            return -2;
        *free_at = p;
        (*n)++;
        p[l] = INT64_MIN;
    }
    *from = (*free_at)[l] > start ? (*free_at)[l] : start;
    (*free_at)[l] = end > *from ? end : *from;
    return l;
}

int
hearth_timeline_lanes (const hearth_tl_t *tl, int *lane, int *lanes_out,
                       int64_t *from_out)
{
    size_t first =
        tl->ntasks > HEARTH_TL_MAX_TASKS ? tl->ntasks - HEARTH_TL_MAX_TASKS : 0;
    size_t n = tl->ntasks - first;
    s_ord_t *ord = calloc (n ? n : 1, sizeof *ord);
    int64_t **free_at = calloc (tl->nexecs ? tl->nexecs : 1, sizeof *free_at);
    int *nfree = calloc (tl->nexecs ? tl->nexecs : 1, sizeof *nfree);
    int rc = ord && free_at && nfree ? 0 : -1;
    for (size_t i = 0; i < tl->ntasks; i++) {
        lane[i] = -1;
        if (from_out)
            from_out[i] = tl->tasks[i].start_us;
    }
    int64_t slack = tl->slack_us > 0 ? tl->slack_us : 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        ord[i] = (s_ord_t){.start = tl->tasks[first + i].start_us,
                           .end = hearth_timeline_end (&tl->tasks[first + i]),
                           .i = first + i};
    if (rc == 0 && n > 1)
        qsort (ord, n, sizeof *ord, s_cmp_ord);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        long x = hearth_timeline_exec (tl, tl->tasks[ord[k].i].exec_id);
        if (x < 0)
            continue;
        if (!free_at[x]) {
            nfree[x] = s_lanes_of (tl->execs[x].cores);
            free_at[x] = calloc ((size_t) nfree[x], sizeof (int64_t));
            if (!free_at[x]) {
                rc = -1;
                break;
            }
            for (int l = 0; l < nfree[x]; l++)
                free_at[x][l] = INT64_MIN;
        }
        int64_t from;
        int l = s_take_lane (&free_at[x], &nfree[x], ord[k].start, ord[k].end,
                             slack, &from);
        if (l == -2)
            rc = -1;
        lane[ord[k].i] = l < 0 ? -1 : l;
        if (from_out && l >= 0)
            from_out[ord[k].i] = from;
    }
    for (size_t x = 0; x < tl->nexecs; x++) {
        if (lanes_out && rc == 0)
            lanes_out[x] =
                free_at[x] ? nfree[x] : s_lanes_of (tl->execs[x].cores);
        if (free_at)
            free (free_at[x]);
    }
    free (free_at);
    free (nfree);
    free (ord);
    return rc;
}

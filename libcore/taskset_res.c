/*  taskset_res.c - custom resources in the task set (issue 15; see
    taskset.h): the amounts each executor has, the amounts each task of a
    stage needs, and the amounts held by the attempts in flight.

    Counts only: which addresses an attempt gets is its executor's choice
    (executor/resalloc.c).  An attempt holds its stage's amounts from its
    offer until the task set forgets it (its end heard, its executor
    lost, its job forgotten), so that the driver never sends an executor
    more such attempts than it has addresses free.
*/
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/taskset_int.h"

/* The position of name among e's resources, or -1. */
static int
s_index (const ts_exec_t *e, const char *name)
{
    for (size_t i = 0; i < e->have.n; i++)
        if (strcmp (e->have.v[i].name, name) == 0)
            return (int) i;
    return -1;
}

bool
ts_res_fits (const ts_exec_t *e, const ts_stage_t *st)
{
    if (st->need.n == 0)
        return true;
    for (size_t k = 0; k < st->need.n; k++) {
        int i = s_index (e, st->need.v[k].name);
        if (i < 0 || e->have.v[i].amount - e->used[i] < st->need.v[k].amount)
            return false;
    }
    return true;
}

void
ts_res_hold (ts_exec_t *e, const ts_stage_t *st, ts_attempt_t *a)
{
    for (size_t k = 0; k < st->need.n; k++) {
        int i = s_index (e, st->need.v[k].name);
        if (i >= 0) /* ts_res_fits said so */
            e->used[i] += st->need.v[k].amount;
    }
    a->holds = true;
}

void
ts_res_release (ts_exec_t *e, const ts_stage_t *st, ts_attempt_t *a)
{
    for (size_t k = 0; k < st->need.n; k++) {
        int i = s_index (e, st->need.v[k].name);
        if (i >= 0)
            e->used[i] -= st->need.v[k].amount;
    }
    a->holds = false;
}

void
ts_res_exec_free (ts_exec_t *e)
{
    hearth_resource_amounts_clear (&e->have);
    free (e->used);
    e->used = NULL;
}

void
ts_res_stage_free (ts_stage_t *st)
{
    hearth_resource_amounts_clear (&st->need);
}

int
hearth_taskset_set_executor_resources (hearth_taskset_t *self, int exec_id,
                                       const hearth_resource_amounts_t *have)
{
    ts_exec_t *e = ts_exec (self, exec_id);
    if (!e)
        return errno = ENOENT, -1;
    hearth_resource_amounts_t copy = {0};
    int *used = have->n ? calloc (have->n, sizeof *used) : NULL;
    if ((have->n && !used) || hearth_resource_amounts_copy (&copy, have) < 0) {
        free (used);
        return errno = ENOMEM, -1;
    }
    /* attempts in flight hold nothing yet: offers before this one were
       made without it (the caller sets it first) */
    ts_res_exec_free (e);
    e->have = copy;
    e->used = used;
    return 0;
}

int
hearth_taskset_set_stage_resources (hearth_taskset_t *self, uint32_t stage,
                                    const hearth_resource_amounts_t *need)
{
    ts_stage_t *st = ts_stage (self, stage);
    if (!st)
        return errno = EINVAL, -1;
    hearth_resource_amounts_t copy = {0};
    if (hearth_resource_amounts_copy (&copy, need) < 0)
        return errno = ENOMEM, -1;
    ts_res_stage_free (st);
    st->need = copy;
    return 0;
}

int
hearth_taskset_resource_free (const hearth_taskset_t *self, int exec_id,
                              const char *name)
{
    const ts_exec_t *e = ts_exec (self, exec_id);
    if (!e)
        return -1;
    int i = s_index (e, name);
    return i < 0 ? 0 : e->have.v[i].amount - e->used[i];
}

/*  tasklog.c - the last attempts with their times; see tasklog.h. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "history/tasklog.h"

struct hist_tasklog {
    hearth_tl_task_t *ring;   /* the last attempts (HEARTH_TL_MAX_TASKS) */
    size_t head;              /* the next slot written */
    size_t total;             /* attempts ended in all */
    hearth_tl_task_t *linear; /* the ring in order (hist_tasklog_tasks) */
};

hist_tasklog_t *
hist_tasklog_new (void)
{
    hist_tasklog_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->ring = calloc (HEARTH_TL_MAX_TASKS, sizeof *self->ring);
    if (!self->ring)
        hist_tasklog_destroy (&self);
    return self;
}

void
hist_tasklog_destroy (hist_tasklog_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    hist_tasklog_t *self = *self_p;
    free (self->ring);
    free (self->linear);
    free (self);
    *self_p = NULL;
}

static hearth_tl_outcome_t
s_outcome (const char *state, const char *outcome)
{
    if (strcmp (state, "FAILED") == 0)
        return strcmp (outcome, "fetch_wait") == 0 ? HEARTH_TL_UNUSED
                                                   : HEARTH_TL_FAILED;
    if (strcmp (state, "KILLED") == 0)
        return HEARTH_TL_KILLED;
    if (strcmp (state, "LOST") == 0)
        return HEARTH_TL_LOST;
    return strcmp (outcome, "accepted") == 0 ? HEARTH_TL_OK : HEARTH_TL_UNUSED;
}

int
hist_tasklog_end (hist_tasklog_t *self, const hist_line_t *l, const char *state,
                  const char *outcome)
{
    if (l->time_ms < 0 || l->time_ms > INT64_MAX / 1000)
        return 0; /* no time, or none a µs count holds */
    int64_t end_us = l->time_ms * 1000;
    int64_t run_us = hist_line_int_or (l, "run_us", 0);
    if (run_us > end_us)
        run_us = end_us;
    hearth_tl_task_t t = {
        .exec_id = hist_line_int_or (l, "executor", -1),
        .start_us = end_us - (run_us > 0 ? run_us : 0),
        .end_us = end_us,
        .stage = hist_line_int_or (l, "stage", -1),
        .index = hist_line_int_or (l, "index", -1),
        .attempt = hist_line_int_or (l, "attempt", -1),
        .outcome = s_outcome (state, outcome),
    };
    self->ring[self->head] = t;
    self->head = (self->head + 1) % HEARTH_TL_MAX_TASKS;
    self->total++;
    return 0;
}

const hearth_tl_task_t *
hist_tasklog_tasks (hist_tasklog_t *self, size_t *n, size_t *cut)
{
    size_t kept =
        self->total < HEARTH_TL_MAX_TASKS ? self->total : HEARTH_TL_MAX_TASKS;
    *n = 0;
    *cut = self->total - kept;
    if (!self->linear
        && !(self->linear = calloc (HEARTH_TL_MAX_TASKS, sizeof *self->linear)))
        return NULL;
    size_t from = kept < HEARTH_TL_MAX_TASKS ? 0 : self->head;
    for (size_t i = 0; i < kept; i++)
        self->linear[i] = self->ring[(from + i) % HEARTH_TL_MAX_TASKS];
    *n = kept;
    return self->linear;
}

/*  tasklog.h - the last attempts of one application with their times,
    for its timeline (libcore/timeline.h; docs/history.md, "Timeline").

    Fed the task_end events of a log as detail.c reads them: each
    becomes an attempt of the timeline, the last HEARTH_TL_MAX_TASKS of
    them kept in a ring.  An attempt is drawn while it ran on its core:
    from its end (time_ms) less its run_us, to its end.  Its task_start's
    time is when the driver sent it, which may be well before it ran
    (the driver sends an executor more attempts than it has cores, so
    that the next is there when one ends): not a core's time.
*/
#ifndef HEARTH_HISTORY_TASKLOG_H
#define HEARTH_HISTORY_TASKLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "history/evline.h"
#include "libcore/timeline.h"

typedef struct hist_tasklog hist_tasklog_t;

/* A new, empty log.  NULL: no memory. */
hist_tasklog_t *hist_tasklog_new (void);

/* Destroy; accepts NULL; nulls the pointer. */
void hist_tasklog_destroy (hist_tasklog_t **self_p);

/* A task_end (l, with its state and outcome as detail.c reads them).
   -1 only when out of memory (never, as it is: the ring is allocated
   whole). */
int hist_tasklog_end (hist_tasklog_t *self, const hist_line_t *l,
                      const char *state, const char *outcome);

/* The attempts kept, in order of their end (borrowed, valid until the
   next feed); *cut: how many ended before them. */
const hearth_tl_task_t *hist_tasklog_tasks (hist_tasklog_t *self, size_t *n,
                                            size_t *cut);

#endif

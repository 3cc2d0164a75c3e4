/*  resalloc.h - the executor's custom resource addresses (--resource
    gpu=0,1,2,3) and which running attempt holds each.

    An attempt that needs resources (LAUNCH_TASKS task `resources`, amounts
    by name) takes that many free addresses of each name before it starts
    and gives them back when it ends, so that no address is held by two
    running attempts at once (docs/resources.md).  The driver sends no
    more such attempts than there are free addresses; one that arrives
    anyway waits in the task table's queue (resalloc_take says "not now").

    Bookkeeping on the loop thread: no I/O, no locks.  The table
    borrows the executor's address set, which must outlive it.
*/
#ifndef HEARTH_EXECUTOR_RESALLOC_H
#define HEARTH_EXECUTOR_RESALLOC_H

#include <stdbool.h>

#include "executor/executor.h"
#include "libcore/error.h"
#include "libcore/resources.h"

typedef struct resalloc resalloc_t;

/* A table over have (borrowed), every address free.  NULL on no
   memory. */
resalloc_t *resalloc_new (const hearth_resources_t *have);
/* Free the table.  Accepts NULL and a NULL *self_p; nulls the pointer. */
void resalloc_destroy (resalloc_t **self_p);

/* Whether want can ever be met here (every name known, no amount above
   the executor's); if not, -1 with err naming the name and both
   numbers. */
int resalloc_check (const resalloc_t *self,
                    const hearth_resource_amounts_t *want, hearth_error_t *err);
/* Take want's amounts of free addresses into an empty got (the caller's,
   to give back), the lowest free ones first.  Returns 0, 1 when not
   enough are free now (got stays empty), -1 on no memory. */
int resalloc_take (resalloc_t *self, const hearth_resource_amounts_t *want,
                   hearth_resources_t *got);
/* Give got's addresses back and clear got.  Accepts an empty set. */
void resalloc_give (resalloc_t *self, hearth_resources_t *got);
/* Give task t (queued, not started) what its need asks for: the
   addresses into t->held, and their view: "HEARTH_RESOURCE_GPU=0,1" (and
   "CUDA_VISIBLE_DEVICES=0,1" for gpu) added to a command's env, the
   fn_resources of a function.  Returns 0, 1 when not enough are free now
   (nothing taken: it waits), or -1 with err when it cannot run here (a
   need beyond what the executor holds) or on no memory (nothing
   taken). */
int resalloc_acquire (resalloc_t *self, task_t *t, hearth_error_t *err);
/* Addresses of name free now (0 for an unknown name). */
size_t resalloc_free (const resalloc_t *self, const char *name);

#endif

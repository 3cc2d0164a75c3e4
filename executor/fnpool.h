/*  fnpool.h - tasks on a fixed pool of threads.

    The loop hands tasks to the pool (fnpool_submit); a thread calls the
    task's function, or runs its command (cmdrun.h), and puts it on the
    done list, then wakes the loop through an eventfd.  On the loop, the
    pool hands the whole done list to the callback it was given at its
    creation.  Threads touch only the task they run.
*/
#ifndef HEARTH_EXECUTOR_FNPOOL_H
#define HEARTH_EXECUTOR_FNPOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "executor/executor.h"
#include "libcore/error.h"

typedef struct fnpool fnpool_t;

/* On the loop: the tasks that ran (the callee takes them off done, which
   it borrows). */
typedef void (fnpool_done_fn) (void *arg, tlist_t *done);

/* threads threads, on ex's loop (ex borrowed: it must outlive the pool);
   pin: "auto" (NULL), "yes" or "no": see fnpool.c (sets ex->pinned and
   ex->cpus).  done(arg, ...) hears of the tasks that ran.  NULL with
   err. */
fnpool_t *fnpool_new (executor_t *ex, int threads, const char *pin,
                      fnpool_done_fn *done, void *arg, hearth_error_t *err);

/* Stop the threads.  Returns 0, or -1 if a thread was still busy after a
   grace period (its task must then not be freed). */
int fnpool_stop (fnpool_t *self);

/* Stop the threads (if fnpool_stop has not) and free the pool; the tasks
   on its lists stay the caller's.  Accepts NULL and a NULL *self_p;
   nulls the pointer; keeps errno. */
void fnpool_destroy (fnpool_t **self_p);

/* Hand n tasks (borrowed until they come back through done) to the
   threads at once (one lock, one wake-up). */
void fnpool_submit (fnpool_t *self, task_t **tasks, size_t n);

/* Take t back if no thread has started it.  Returns true if taken. */
bool fnpool_cancel (fnpool_t *self, task_t *t);

#endif

/*  tasks.h - the executor's task table: the tasks it holds, queued in
    FIFO order or running, and their start, end and kill.

    Tasks arrive in LAUNCH_TASKS batches (the driver may send more than
    there are cores, so that a core never waits for a round trip); they
    wait here and go to the pool of threads (fnpool.h) in order.  A task
    that ends, whatever the reason, is reported exactly once through the
    update callback the table was given at its creation: the table knows
    nothing of the link to the driver.
*/
#ifndef HEARTH_EXECUTOR_TASKS_H
#define HEARTH_EXECUTOR_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "executor/executor.h"
#include "libcore/error.h"
#include "libcore/packed.h"

/* Queue an update of task t (borrowed for the call) for the driver:
   state, error (or NULL) and its result (borrowed, or NULL). */
typedef void (tasks_update_fn) (void *arg, const task_t *t, const char *state,
                                const char *error, const void *result,
                                size_t len);
/* Send the queued updates (now, or soon: see link.c). */
typedef void (tasks_flush_fn) (void *arg);
/* Ask the driver whether t (borrowed for the call) may commit its
   output (ASK_COMMIT); its answer comes to tasks_commit_answer. */
typedef void (tasks_ask_fn) (void *arg, const task_t *t);

/* What the table tells its owner (copied by tasks_new). */
typedef struct {
    tasks_update_fn *update;    /* one update, queued */
    tasks_flush_fn *flush;      /* send them now (a time limit passed) */
    tasks_flush_fn *flush_soon; /* tasks ended: send now or very soon */
    tasks_ask_fn *ask_commit;   /* an output to commit */
    void *arg;                  /* passed to all four */
} tasks_events_t;

/* A new, empty table for ex (borrowed: it must outlive the table; its
   loop must exist), with a pool of ex->cores threads.  NULL with err. */
tasks_t *tasks_new (executor_t *ex, const tasks_events_t *events,
                    hearth_error_t *err);

/* Kill every task, stop the pool's threads, report the tasks still held
   as KILLED (through the update callback), free them (unless a thread
   still runs one: then it is left to the process's exit) and the table.
   Accepts NULL and a NULL *self_p; nulls the pointer; keeps errno. */
void tasks_destroy (tasks_t **self_p);

/* Queue t (the table takes it). */
void tasks_enqueue (tasks_t *self, task_t *t);

/* Hand every queued task to the pool (whose cores threads bound them). */
void tasks_dispatch (tasks_t *self);

/* Kill one attempt: a queued one at once, a running one as soon as it
   can be, one waiting to commit its output at once (its output
   removed).  Returns -1 when the table does not hold it. */
int tasks_kill (tasks_t *self, uint64_t tid, int attempt);

/* The driver's answer to attempt's ASK_COMMIT: allowed, its output is
   renamed to its final name and the attempt reported FINISHED (FAILED
   when that fails); denied, the output is removed and the attempt
   reported KILLED.  Returns -1 when no such attempt waits (ignored). */
int tasks_commit_answer (tasks_t *self, uint64_t tid, int attempt,
                         bool allowed);

/* Report RUNNING for the tasks that have run ex->running_report_ms. */
void tasks_report_running (tasks_t *self, int64_t now_us);

/* Tasks running (handed to the pool, not finished). */
size_t tasks_running (const tasks_t *self);

/* Tasks held: queued and running. */
size_t tasks_held (const tasks_t *self);

/* A new task from a LAUNCH_TASKS entry, referencing sf (borrowed; the
   task takes a reference when it uses a frame of it).  NULL on no
   memory. */
task_t *task_from_json (const cJSON *json, shared_frames_t *sf);

/* The same from a packed record (checked by the decoder). */
task_t *task_from_packed (const hearth_packed_task_t *p, shared_frames_t *sf);

/* Free a task that is on no list.  Accepts NULL and a NULL *task_p;
   nulls the pointer; keeps errno. */
void task_destroy (task_t **task_p);

/* Drop one reference to sf; the last one frees its frames.  Accepts
   NULL and a NULL *sf_p; nulls the pointer; keeps errno. */
void shared_frames_release (shared_frames_t **sf_p);

#endif

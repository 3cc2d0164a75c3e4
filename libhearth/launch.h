/*  launch.h - tasks to and from executors: the task set's assignments
    packed into LAUNCH_TASKS, and STATUS_UPDATE applied back to the task
    set, the stages' results and their jobs' progress.

    The hot path of the driver: one LAUNCH_TASKS carries up to a batch of
    tasks (each stage's input frame once), one STATUS_UPDATE many
    updates; nothing is allocated per task but a task's result.  The
    executor set (execs.c) sends and receives the messages, and keeps
    each executor's batches (batches.h) until it has handled them.
*/
#ifndef HEARTH_LIBHEARTH_LAUNCH_H
#define HEARTH_LIBHEARTH_LAUNCH_H

#include <stdbool.h>

#include "libcore/proto.h"
#include "libhearth/batches.h"
#include "libhearth/work.h"

typedef struct launch launch_t;

/* A launcher for work's tasks (borrowed: it outlives the launcher).
   NULL on no memory. */
launch_t *launch_new (work_t *work);
/* Accepts NULL. */
void launch_destroy (launch_t **self_p);

/* A LAUNCH_TASKS of an offer to exec_id, numbered batch, for the caller
   to send (it takes *msg_p; one that cannot be sent: launch_unsent). */
typedef void (launch_send_fn) (void *arg, int exec_id, hearth_msg_t **msg_p,
                               uint64_t batch);

/* Offer exec_id's free slots: the tasks the task set assigns it now go
   in LAUNCH_TASKS of at most about 16 MiB of tasks each (a bigger task
   alone), each numbered, remembered (batches.h) until exec_id says it
   handled it, and handed to send with arg.  Nothing is offered that
   cannot be remembered (no memory).  Returns whether the task set
   assigned a full round: more may be waiting. */
bool launch_offer (launch_t *self, int exec_id, launch_send_fn *send,
                   void *arg);

/* Batch of exec_id could not be sent, for why (copied): its attempts end
   at the next launch_tick (not now: an offer is going on), LOST when
   lost says the way failed (a full queue, a peer not connected, the
   driver's memory: run again, counted toward max-lost, as with a lost
   executor), else FAILED (the message itself was refused: counted toward
   max-failures). */
void launch_unsent (launch_t *self, int exec_id, uint64_t batch, bool lost,
                    const char *why);
/* exec_id's STATUS_UPDATE or HEARTBEAT (msg borrowed) says, in its
   "launched", that it handled every batch up to that one: forgotten. */
void launch_handled (launch_t *self, int exec_id, const hearth_msg_t *msg);

/* What launch_error made of an ERROR. */
typedef enum {
    LAUNCH_ERROR_OTHER,   /* not about a LAUNCH_TASKS */
    LAUNCH_ERROR_HANDLED, /* its batch failed, or none in flight was it */
    LAUNCH_ERROR_UNKNOWN, /* it names no batch, and several of those in
                             flight may be the one: the executor cannot
                             be told what it runs (drop it) */
} launch_error_t;

/* An ERROR from exec_id (msg borrowed) about a LAUNCH_TASKS: the batch it
   refused fails, each attempt FAILED with the executor's words as a
   status update saying so would (retried up to max-failures, its job
   failed past them), so that none waits for ever.  That batch is the one
   the ERROR names; naming none, the one the executor read after the last
   it handled (the ERROR's "launched"), or without that the only one in
   flight.  Batches the executor may have started are never failed: they
   would run twice (protocol.md "Batches"). */
launch_error_t launch_error (launch_t *self, int exec_id,
                             const hearth_msg_t *msg);
/* The attempts of the batches that could not be sent end, LOST or
   FAILED as launch_unsent said.  Returns how many. */
size_t launch_tick (launch_t *self);
/* exec_id is gone (its attempts re-queued with it): forget its batches. */
void launch_forget (launch_t *self, int exec_id);

/* Apply a STATUS_UPDATE from exec_id, whose node's block server is server
   (shuffle.h; msg borrowed): results kept, map outputs registered, task
   set updated, progress published, the batches it says it handled
   forgotten (launch_handled); a task that failed too often fails its
   job. */
void launch_status (launch_t *self, int exec_id, uint32_t server,
                    const char *host, hearth_msg_t *msg);

#endif

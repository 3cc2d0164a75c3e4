/*  launch.h - tasks to and from executors: the task set's assignments
    packed into LAUNCH_TASKS, and STATUS_UPDATE applied back to the task
    set, the stages' results and their jobs' progress.

    The hot path of the driver: one LAUNCH_TASKS carries up to a batch of
    tasks (each stage's input frame once), one STATUS_UPDATE many
    updates; nothing is allocated per task but a task's result.  The
    executor set (execs.c) sends and receives the messages.
*/
#ifndef HEARTH_DRIVER_LAUNCH_H
#define HEARTH_DRIVER_LAUNCH_H

#include <stdbool.h>

#include "driver/work.h"
#include "libcore/proto.h"

typedef struct launch launch_t;

/* A launcher for work's tasks (borrowed: it outlives the launcher).
   NULL on no memory. */
launch_t *launch_new (work_t *work);
/* Accepts NULL. */
void launch_destroy (launch_t **self_p);

/* One LAUNCH_TASKS of the tasks the task set assigns to exec_id now, or
   NULL when it assigns none (or on no memory, logged).  *full says the
   batch was full: more may be waiting.  The caller sends the message
   (which destroys it). */
hearth_msg_t *launch_offer (launch_t *self, int exec_id, bool *full);
/* Apply a STATUS_UPDATE from exec_id, whose node's block server is server
   (shuffle.h; msg borrowed): results kept, map outputs registered, task
   set updated, progress published; a task that failed too often fails
   its job. */
void launch_status (launch_t *self, int exec_id, uint32_t server,
                    hearth_msg_t *msg);

#endif

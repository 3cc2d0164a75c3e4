/*  link.h - the executor's connection to its driver, and the owner of
    its task table.

    A DEALER socket to the driver's ROUTER.  In: REGISTERED_EXECUTOR
    (naming the application's shipped libraries and files), LAUNCH_TASKS,
    FILE_CHUNK, KILL_TASK, STOP_EXECUTOR, ERROR and HEARTBEAT, each
    handled by its row of one handler table.  Out: REGISTER_EXECUTOR once,
    FETCH_FILE (the shipped files it lacks: shipfetch.h), STATUS_UPDATE in
    batches (the updates the task table reports through its callbacks),
    and HEARTBEAT only when nothing else was sent for an interval.
    The link owns the shipped files' fetch, and holds the tasks back
    until it is done.
*/
#ifndef HEARTH_EXECUTOR_LINK_H
#define HEARTH_EXECUTOR_LINK_H

#include "executor/executor.h"
#include "libcore/error.h"

/* Create the task table (and its threads), connect to ex->driver_url
   and send REGISTER_EXECUTOR.  ex is borrowed: it must outlive the link;
   its loop must exist.  NULL with err. */
link_t *link_new (executor_t *ex, hearth_error_t *err);

/* Stop the tasks (those left are reported KILLED), send what is pending,
   close the socket and free the link.  Accepts NULL and a NULL *self_p;
   nulls the pointer; keeps errno. */
void link_destroy (link_t **self_p);

/* Periodic work: notice a silent driver, report long-running tasks,
   heartbeat.  Returns -1 when the executor should exit. */
int link_on_tick (link_t *self);

#endif

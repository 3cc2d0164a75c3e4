/*  execs_send.c - what the driver sends its executors: every message
    goes through execs_send; the offers of free slots (LAUNCH_TASKS, whose
    batches launch.c keeps), kills and stops.  The records are
    execs_int.h's; what executors send, the heartbeats and the losses,
    execs.c handles.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libhearth/evexec.h"
#include "libhearth/execs.h"
#include "libhearth/execs_int.h"
#include "libhearth/launch.h"
#include "libhearth/tlfeed.h"

/* ---- sending ------------------------------------------------------------ */

int
execs_send (execs_t *self, exec_t *x, hearth_msg_t **msg_p, hearth_error_t *err)
{
    hearth_error_t local;
    err = err ? err : &local;
    if (!x->rid || !self->router) {
        hearth_msg_destroy (msg_p);
        return hearth_errcode (err, "not_connected", "not connected");
    }
    int rc = hearth_msg_send (msg_p, self->router, x->rid, err);
    int saved = errno;
    hearth_loop_sent (self->loop, self->router); /* after every send */
    if (rc < 0) {
        /* a peer gone (execsock.h: the ROUTER says so) is found out by
           its silence or its worker: a line per message would repeat it */
        bool gone = saved == EHOSTUNREACH && streq (err->code, "send_failed");
        hearth_log (gone ? HEARTH_LOG_DEBUG : HEARTH_LOG_WARN,
                    "executor %d: %s", x->exec_id, err->text);
        if (gone && !x->unreachable)
            log_info ("executor %d is not connected: no tasks go to it until "
                      "it is again, or is lost",
                      x->exec_id);
        if (gone) {
            /* Offered nothing more: each offer would lose its tasks again
               at every tick, and max-lost would fail their job before the
               executor's silence tells it is gone (one that exited while
               the driver was stopped, whose last updates were read).  The
               tick's heartbeat, once an interval, finds it back. */
            x->unreachable = true;
            x->last_send_ms = hearth_mono_ms ();
        }
        return -1;
    }
    if (x->unreachable)
        log_info ("executor %d is connected again", x->exec_id);
    x->unreachable = false;
    x->last_send_ms = hearth_mono_ms ();
    return 0;
}

void
execs_send_simple (execs_t *self, exec_t *x, hearth_cmd_t cmd,
                   const char *reason)
{
    hearth_msg_t *msg = hearth_msg_new (cmd);
    if (!msg)
        return;
    if (reason)
        cJSON_AddStringToObject (msg->body, "reason", reason);
    execs_send (self, x, &msg, NULL);
}

/* ---- offers, kills, stops ----------------------------------------------- */

/* Refill an executor once half of its slots are free, or sooner when it
   holds fewer attempts than it has cores: one LAUNCH_TASKS per several
   finished tasks rather than one per task (for 0.5 ms commands, a message
   each way per task cost the executor and the driver about as much CPU
   as the commands' own start-up; docs/performance.md). */
static bool
s_worth_offering (execs_t *self, exec_t *x)
{
    size_t slots = hearth_taskset_slots (self->ts, x->cores);
    size_t free = hearth_taskset_free_slots (self->ts, x->exec_id);
    return free > 0 && (free * 2 >= slots || slots - free < (size_t) x->cores);
}

/* Whether a send failed on the way (the peer's queue full, the peer not
   connected, no memory), not for what the message holds: the codec's
   refusal would come again. */
static bool
s_way_failed (const hearth_error_t *err)
{
    return err->code
           && (streq (err->code, "send_failed")
               || streq (err->code, "not_connected")
               || streq (err->code, "no_memory"));
}

/* launch_offer's sender: a LAUNCH_TASKS that cannot be sent ends its
   tasks at the next tick, LOST when the way failed, else FAILED. */
static void
s_send_launch (void *arg, int exec_id, hearth_msg_t **msg_p, uint64_t batch)
{
    execs_t *self = arg;
    exec_t *x = execs_find (self, exec_id);
    hearth_error_t err;
    if (!x)
        hearth_msg_destroy (msg_p);
    else if (execs_send (self, x, msg_p, &err) < 0)
        launch_unsent (self->launch, exec_id, batch, s_way_failed (&err),
                       err.text);
}

/* The LAUNCH_TASKS of one offer to x.  Returns whether it was a full
   round. */
static bool
s_offer (execs_t *self, exec_t *x)
{
    return launch_offer (self->launch, x->exec_id, s_send_launch, self);
}

void
execs_offer_all (execs_t *self)
{
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id))
        if (x->registered && !x->unreachable && s_worth_offering (self, x))
            while (s_offer (self, x) && !x->unreachable)
                ;
}

void
execs_broadcast_news (execs_t *self)
{
    hearth_msg_t *news = hearth_msg_new (HEARTH_CMD_BROADCAST);
    if (!news || ship_broadcast_news (self->ship, news) == 0) {
        hearth_msg_destroy (&news);
        return;
    }
    const cJSON *list =
        cJSON_GetObjectItemCaseSensitive (news->body, "broadcast");
    log_info ("broadcast files added: told to the executors registered");
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id))
        if (x->registered) {
            hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_BROADCAST);
            cJSON *copy = msg ? cJSON_Duplicate (list, true) : NULL;
            if (copy)
                cJSON_AddItemToObject (msg->body, "broadcast", copy);
            else
                hearth_msg_destroy (&msg);
            if (msg)
                execs_send (self, x, &msg, NULL);
        }
    hearth_msg_destroy (&news);
}

ship_t *
execs_ship (execs_t *self)
{
    return self->ship;
}

void
execs_send_kill (execs_t *self, int exec_id, uint64_t tid, int attempt)
{
    exec_t *x = execs_find (self, exec_id);
    if (!x || !x->registered)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_TASK);
    if (!msg)
        return;
    cJSON_AddNumberToObject (msg->body, "tid", (double) tid);
    cJSON_AddNumberToObject (msg->body, "attempt", attempt);
    execs_send (self, x, &msg, NULL);
}

void
execs_answer_commit (execs_t *self, int exec_id, uint64_t tid, int attempt)
{
    exec_t *x = execs_find (self, exec_id);
    if (!x || !x->registered)
        return;
    bool allowed = hearth_taskset_may_commit (work_taskset (self->work),
                                              exec_id, DRIVER_TID_STAGE (tid),
                                              DRIVER_TID_INDEX (tid), attempt);
    if (!allowed)
        log_info ("task %u.%llu attempt %d may not commit its output: "
                  "another attempt does, or the task is done",
                  DRIVER_TID_STAGE (tid),
                  (unsigned long long) DRIVER_TID_INDEX (tid), attempt);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_COMMIT_ANSWER);
    if (!msg)
        return;
    cJSON_AddNumberToObject (msg->body, "tid", (double) tid);
    cJSON_AddNumberToObject (msg->body, "attempt", attempt);
    cJSON_AddBoolToObject (msg->body, "allowed", allowed);
    execs_send (self, x, &msg, NULL);
}

void
execs_stop_all (execs_t *self, const char *reason)
{
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id))
        if (x->registered) {
            evexec_t info = execs_ev_info (x);
            eventlog_t *el = work_eventlog (self->work);
            evexec_removed (el, &info, reason, 0);
            tlfeed_exec (work_tlfeed (self->work), &info, reason,
                         eventlog_time_ms (el));
            execs_send_simple (self, x, HEARTH_CMD_STOP_EXECUTOR, reason);
        }
}

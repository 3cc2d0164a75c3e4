/*  execs.h - the driver's executor set: the ROUTER executors connect to,
    their registration, heartbeats and losses, and the traffic of tasks
    (launch.c) to and from them.

    Executors come to be known from the master (EXECUTOR_ADDED), from a
    local mode's own processes, or when they register; each registered
    executor's slots are in the task set.  The set tells its owner, by the
    callbacks given at creation, when the task set has changed (something
    to process) and when an executor is gone.
*/
#ifndef HEARTH_LIBHEARTH_EXECS_H
#define HEARTH_LIBHEARTH_EXECS_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/loop.h"
#include "libhearth/work.h"

typedef struct execs execs_t;

/* What the set tells its owner. */
typedef struct {
    /* Executor exec_id is forgotten (its tasks are back in the task set,
       a registered one was told to stop). */
    void (*lost) (void *arg, int exec_id);
    /* Executor exec_id has been silent too long: it is lost next. */
    void (*silent) (void *arg, int exec_id, const char *reason);
    /* The task set changed (registration, status, loss): process it. */
    void (*changed) (void *arg);
    void *arg; /* given to every callback */
} execs_cbs_t;

typedef struct {
    hearth_conf_t *conf;    /* borrowed: lib, max-result-bytes, driver-host */
    work_t *work;           /* borrowed: outlives the set */
    const char *token;      /* executors must present it (copied) */
    int64_t hb_interval_ms; /* heartbeat interval, until set again */
    int64_t hb_liveness;    /* missed intervals before an executor is lost */
} execs_opts_t;

/* A set with no executor and no socket yet; the libraries of opts->conf
   are read now.  cbs is copied.  NULL with err set on failure. */
execs_t *execs_new (const execs_opts_t *opts, const execs_cbs_t *cbs,
                    hearth_error_t *err);
/* Free the set (closing its socket if execs_close was not called; the
   loop is not touched).  Accepts NULL; keeps errno. */
void execs_destroy (execs_t **self_p);

/* Bind the ROUTER on driver-host (default: the address that faces the
   master at towards, a tcp:// URL, or loopback for NULL) and serve it on
   loop (borrowed).  secure: CURVE with keys made for this application.
   Returns 0, or -1 with err set. */
int execs_open (execs_t *self, hearth_loop_t *loop, const char *towards,
                bool secure, hearth_error_t *err);
/* Stop serving and close the ROUTER (before the loop is destroyed). */
void execs_close (execs_t *self);
/* tcp://HOST:PORT of the ROUTER (borrowed), once open. */
const char *execs_url (const execs_t *self);
/* The ROUTER's CURVE public key, Z85 (borrowed), or NULL when not
   secure. */
const char *execs_public_key (const execs_t *self);

/* The application's token is token (copied): a resumed application's,
   which the master gives its executors (resume.h).  Before any executor
   registers. */
void execs_set_token (execs_t *self, const char *token);

/* The application executors must belong to (copied). */
void execs_set_app (execs_t *self, const char *app_id);
/* New heartbeat settings (the master's), for executors from now on. */
void execs_set_heartbeat (execs_t *self, int64_t interval_ms, int64_t liveness);

/* Note an executor the master announced or we started (nothing if it is
   known): its worker's id (NULL in local modes) and memory (0: not told)
   for the event log.  Strings are copied.  Returns 0, or -1 on no
   memory. */
int execs_add (execs_t *self, int exec_id, int cores, const char *host,
               const char *worker_id, int64_t memory_mb, const cJSON *labels);
/* The peak memory (bytes, -1: unknown) of executor exec_id as its
   worker measured it when it reaped it: set before execs_lost, so that
   its executor_removed event can say it (execs_peak_rss).  The largest
   figure is kept: the executor's own reports (HEARTBEAT, STATUS_UPDATE)
   count too. */
void execs_set_peak_rss (execs_t *self, int exec_id, int64_t peak_rss_bytes);
/* That figure, or -1 when unknown or no such executor. */
int64_t execs_peak_rss (const execs_t *self, int exec_id);
/* An executor is gone: re-queue its tasks and forget it. */
void execs_lost (execs_t *self, int exec_id, const char *reason);
/* Executor exec_id is gone with its worker (the master's worker_lost;
   worker_id its worker's id as the master says it, borrowed; NULL: the
   one the executor was granted on): every executor of that worker is
   lost (execs_lost, reason borrowed), not only exec_id, and nothing is
   offered to them meanwhile; before that, the map outputs of the
   worker's block server are dropped in every job, their map tasks
   resubmitted, and the reduce attempts reading them killed to run once
   they are back (work_server_lost).  (execs_worker.c) */
void execs_worker_lost (execs_t *self, int exec_id, const char *worker_id,
                        const char *reason);
/* Whether any executor has registered. */
bool execs_any_registered (const execs_t *self);
/* Append {app_id, exec_id, cores} of every registered executor to list
   (borrowed), for registering the application again. */
void execs_list (const execs_t *self, cJSON *list);

/* Call fn for every executor known (announced or registered): its id,
   cores and whether it has registered (its slots are in the task set).
   fn must not add or forget executors. */
typedef void (execs_each_fn) (void *arg, int exec_id, int cores,
                              bool registered);
void execs_each (const execs_t *self, execs_each_fn *fn, void *arg);

/* Offer free slots to every registered executor worth a LAUNCH_TASKS. */
void execs_offer_all (execs_t *self);
/* Ask an executor to kill an attempt of task tid. */
/* Tell the registered executors of the broadcast files added since the
   last call (ship.h, BROADCAST); nothing when none was. */
void execs_broadcast_news (execs_t *self);
/* What the executors are shipped (borrowed; its broadcast files may be
   added from any thread, ship_broadcast_add). */
struct ship *execs_ship (execs_t *self);

void execs_send_kill (execs_t *self, int exec_id, uint64_t tid, int attempt);

/* Answer an ASK_COMMIT of executor exec_id: whether attempt of task tid
   may commit its output (hearth_taskset_may_commit: one attempt a task).
   COMMIT_ANSWER goes back at once. */
void execs_answer_commit (execs_t *self, int exec_id, uint64_t tid,
                          int attempt);
/* Tell every registered executor to stop. */
void execs_stop_all (execs_t *self, const char *reason);
/* The application has ended (the master removed it): the executors lost
   from now on go with it, which is said as such, not as a loss. */
void execs_app_ended (execs_t *self);

/* Tell the live timeline's feed (work_tlfeed) of every registered
   executor again: a master that registered the application again (a
   restart, a failover) has no timeline of it. */
void execs_tlfeed_again (execs_t *self);
/* Heartbeats to executors, losses of silent ones. */
void execs_tick (execs_t *self);

/* Add to body (an APPLICATION_PROGRESS) "persisted": the bytes of
   reduce inputs of persisted stages each executor keeps in memory (as
   it last said), and their total; nothing when none keeps any.  0, or
   -1 on no memory (body unchanged).  execs_cached.c. */
int execs_add_persisted (execs_t *self, cJSON *body);

/* Their total (what execs_add_persisted says), 0 when none. */
int64_t execs_persisted_total (execs_t *self);

#endif

/*  master.h - the driver's link to the master (cluster and local-cluster
    modes): registering the application, heartbeats, registering again
    when the link was lost, and the executors the master grants or loses.

    The link tells its owner what the master says through the callbacks
    given at creation; it calls nothing else of the driver.
*/
#ifndef HEARTH_LIBHEARTH_MASTER_H
#define HEARTH_LIBHEARTH_MASTER_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/loop.h"
#include "libcore/proto.h"

typedef struct master_link master_link_t;
struct resume;

/* What the link tells its owner. */
typedef struct {
    /* REGISTERED_APPLICATION (the first time or again): the application's
       id (borrowed) and the master's heartbeat settings. */
    void (*registered) (void *arg, const char *app_id, int64_t hb_interval_ms,
                        int64_t hb_liveness);
    /* The master refused to register the application, or did not answer
       in time: start-up failed, for error (borrowed). */
    void (*failed) (void *arg, const char *error);
    /* The master granted an executor on worker_id at host, with
       memory_mb, its worker's labels {KEY: VALUE} or NULL (all
       borrowed). */
    void (*executor_added) (void *arg, int exec_id, int cores, const char *host,
                            const char *worker_id, int64_t memory_mb,
                            const cJSON *labels);
    /* An executor ended on its worker (reason borrowed), its peak memory
       in bytes as its worker measured it, or -1 when unknown. */
    void (*executor_lost) (void *arg, int exec_id, const char *reason,
                           int64_t peak_rss_bytes);
    /* The same for an executor lost with its worker, worker_id (NULL:
       not told), which is gone, its map outputs with it (strings
       borrowed).  NULL: such a loss goes to executor_lost. */
    void (*worker_lost) (void *arg, int exec_id, const char *worker_id,
                         const char *reason, int64_t peak_rss_bytes);
    /* Executor exec_id's worker is leaving (EXECUTOR_DECOMMISSIONING;
       reason borrowed): move its work off it and stop it once idle. */
    void (*executor_decommissioning) (void *arg, int exec_id,
                                      const char *reason);
    /* The master ended the application (reason borrowed). */
    void (*app_dead) (void *arg, const char *reason);
    /* The master is ending the application: the executor losses it tells
       next are its end's (APPLICATION_ENDED), its reason follows
       (app_dead).  NULL: nothing to do. */
    void (*app_ending) (void *arg);
    /* The application was resumed (issue 39): the outputs its earlier
       drivers recorded (*table taken) and its token, which its executors
       and the workers holding its files know (borrowed).  Before
       registered. */
    void (*resumed) (void *arg, struct resume **table, const char *token);
    /* Append the executors still running to list (borrowed), to register
       again with them. */
    void (*list_executors) (void *arg, cJSON *list);
    void *arg; /* given to every callback */
} master_link_cbs_t;

typedef struct {
    hearth_conf_t *conf;    /* borrowed: register-timeout, executor-*,
                               driver-id, the CURVE keys */
    hearth_loop_t *loop;    /* serves the link (borrowed) */
    const char *url;        /* the master, or the masters' list
                               (libcore/masters.h; copied) */
    bool curve;             /* a tcp:// master: CURVE if conf has keys */
    int64_t hb_interval_ms; /* until the master says otherwise */
    int64_t hb_liveness;    /* missed intervals before the link is down */
} master_link_opts_t;

/* What REGISTER_APPLICATION says of the application (all copied). */
typedef struct {
    const char *name;       /* the application's name */
    const char *driver_url; /* where executors connect */
    const char *token;      /* executors must present it */
    const char *driver_key; /* the executors' link's public key, or NULL */
    int64_t memory_mb;      /* per executor */
} master_link_app_t;

/* A link not yet connected; with opts->curve, the CURVE keys are read
   now.  cbs is copied.  NULL with err set on failure. */
master_link_t *master_link_new (const master_link_opts_t *opts,
                                const master_link_cbs_t *cbs,
                                hearth_error_t *err);
/* Free the link (closing its socket if master_link_close was not called;
   the loop is not touched).  Accepts NULL; keeps errno. */
void master_link_destroy (master_link_t **self_p);
/* The master the link talks to now (borrowed: valid until the next
   call of the link): the first of the list until it moves. */
const char *master_link_url (const master_link_t *self);
/* Whether the link is encrypted (and so should the executors' be). */
bool master_link_secure (const master_link_t *self);
/* Why the master last said the application waits (APPLICATION_WAITING),
   "REASON (CODE)", borrowed until the link's next message; NULL when it
   said none, or no longer waits. */
const char *master_link_waiting (const master_link_t *self);

/* Connect and register the application.  Returns 0, or -1 with err. */
int master_link_open (master_link_t *self, const master_link_app_t *app,
                      hearth_error_t *err);
/* Liveness, heartbeats, registering again; the registration deadline. */
void master_link_tick (master_link_t *self);
/* Ask the master to kill an executor the driver gave up on (silent: hung
   or cut off), so that its cores go to a replacement. */
void master_link_release_executor (master_link_t *self, int exec_id,
                                   const char *reason);
/* Dynamic allocation (dynalloc.h): the executors the application wants
   in all (REQUEST_EXECUTORS), and idle ones it gives back, already
   retired in the task set (KILL_EXECUTORS; exec_ids borrowed).  Dropped
   while the link is down (the target goes again after the next
   registration, the release after a while). */
void master_link_request_executors (master_link_t *self, int total,
                                    const char *const *places,
                                    const uint64_t *counts, size_t n);
void master_link_kill_executors (master_link_t *self, const int *exec_ids,
                                 size_t n);
/* Which driver of the application this is, as the master said (1, then
   one more at each resume), or 0 (not told: an older master). */
int64_t master_link_driver_epoch (const master_link_t *self);
struct record;
/* Tell the master the outputs recorded (record.h) while the application
   is registered on a working link: OUTPUTS_RECORDED, in batches. */
void master_link_send_outputs (master_link_t *self, struct record *record);
/* Send a progress summary (APPLICATION_PROGRESS, taken: *msg_p is
   nulled) while the application is registered on a working link and not
   finishing.  Returns 0 when it went, -1 when it was dropped. */
int master_link_send_progress (master_link_t *self, hearth_msg_t **msg_p);
/* Unregister the application (if registered), ending in state
   ("FINISHED", "FAILED" or "KILLED") for reason (both copied), and wait,
   up to wait_ms, for the master to confirm it: registering again first,
   if the master was lost (it logs that it waits, and whether the master
   confirmed).  Then close the socket (before the loop is destroyed: the
   loop is not run meanwhile). */
void master_link_close (master_link_t *self, const char *state,
                        const char *reason, int64_t wait_ms);

#endif

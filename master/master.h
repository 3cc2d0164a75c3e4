/*  master.h - hearth-master's context, shared by its source files:

        main.c      options, start-up, the event loop, signals, the tick
        handlers.c  one handler per command arriving on the ROUTER
        cluster.c   scheduling, launching, heartbeats, events, state JSON
        drivers.c   cluster-mode drivers: submission, launches, status,
                    kills, supervision, the relay of their logs
        recover.c   the journal (--journal DIR) and RECOVERING after a
                    restart

    All state about the cluster lives in the registry (registry.h); this
    struct holds the sockets and settings around it.
*/
#ifndef HEARTH_MASTER_MASTER_H
#define HEARTH_MASTER_MASTER_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/curve.h"
#include "libcore/pidfile.h"
#include "libcore/proto.h"
#include "master/journal.h"
#include "master/registry.h"

/* What a recovery found, for its log line and its `master` event. */
typedef struct {
    size_t workers;       /* workers restored UNKNOWN */
    size_t workers_back;  /* of those, registered again */
    size_t apps;          /* active applications restored */
    size_t apps_back;     /* of those, whose driver registered again */
    size_t execs;         /* executors restored */
    size_t execs_adopted; /* of those, reported running by their worker */
    size_t execs_lost;    /* of those, not reported: LOST */
} master_recovery_t;

typedef struct master {
    hearth_conf_t *conf;       /* settings (owned) */
    zsock_t *router;           /* every peer talks to us here */
    zsock_t *pub;              /* events */
    zloop_t *loop;             /* the reactor */
    int sigfd;                 /* SIGTERM, SIGINT, SIGHUP */
    registry_t *reg;           /* workers, apps, executors (owned) */
    char url[300];             /* tcp://HOST:PORT of the ROUTER */
    char events_url[300];      /* tcp://HOST:PORT of the PUB */
    bool spread_out;           /* allocation policy */
    int64_t interval_ms;       /* heartbeat interval */
    int64_t liveness;          /* missed intervals before death */
    int max_executor_retries;  /* failures in a row before FAILED */
    int64_t next_heartbeat_ms; /* monotonic time of the next broadcast */
    bool dirty;                /* resources changed: schedule soon */
    bool held;                 /* an app waits for its hold to pass */
    zhashx_t *log_limit;       /* peer key -> last error log time */
    uint64_t rand_state;       /* shuffle source for the allocator */
    int64_t started_ms;        /* wall clock at start */
    journal_t *journal;        /* --journal DIR, or NULL */
    bool recovering;           /* RECOVERING: not every restored peer back */
    int64_t rec_start_ms;      /* monotonic time recovery began */
    int64_t rec_deadline_ms;   /* monotonic: give up on the rest then */
    master_recovery_t rec;     /* what recovery found */
    int64_t max_submit_bytes;  /* largest files of one SUBMIT_DRIVER */
    int64_t relaunch_delay_ms; /* first back-off of a supervised driver */
    int64_t relaunch_max_ms;   /* its cap */
    zhashx_t *log_requests;    /* DRIVER_LOG relayed to workers, by our
                                  request id (drivers.c) */
    uint64_t next_log_request; /* our next request id */
    zlistx_t *orphan_apps;     /* applications whose driver ended, to end
                                  on the next turn (drivers.c) */
    hearth_pidfile_t *pidfile; /* --pid-file, or NULL */
    hearth_curve_t curve;      /* keys and admitted clients, if secure */
} master_t;

/* Handle one message from the ROUTER (borrowed; the handler may not keep
   it).  Never fails: errors are answered or logged. */
void master_dispatch (master_t *m, zframe_t *rid, hearth_msg_t *msg);

/* Answer a malformed message: ERROR to the peer, logged once per peer per
   minute. */
void master_reject (master_t *m, zframe_t *rid, const char *code,
                    const char *text, const char *command);

/* Send msg (consumed) to a peer; failures are logged. */
void master_send (master_t *m, zframe_t *rid, hearth_msg_t *msg);

/* Run the allocator over the registry and launch what it decides. */
void master_schedule (master_t *m);

/* Send KILL_EXECUTOR for exec to its worker (registry_app_end's kill_fn). */
void master_kill_executor (void *arg, reg_exec_t *exec);

/* Publish an event (consumed) on topic. */
void master_publish (master_t *m, const char *topic, cJSON *event);

/* Send HEARTBEAT to every live worker and driver. */
void master_broadcast_heartbeat (master_t *m);

/* The registry observer: publishes events and tells drivers. */
void master_on_change (void *arg, registry_change_t *change);

/* "ALIVE" or "RECOVERING". */
const char *master_status (const master_t *m);

/* Open the journal (--journal), rebuild the registry from it and, when it
   held live workers or applications, enter RECOVERING.  0 or -1 with err. */
int master_journal_open (master_t *m, hearth_error_t *err);

/* Tick work of the journal: fsync, compaction when due, and the end of
   RECOVERING (everyone back, or the deadline passed). */
void master_journal_tick (master_t *m, int64_t now);

/* Sync and close the journal. */
void master_journal_close (master_t *m);

/* Publish a `master` event (what: started, recovering, recovered,
   stopping) with the master's status. */
void master_publish_master (master_t *m, const char *what, const char *reason);

/* Send KILL_EXECUTOR {app_id, exec_id, reason} to worker w (for an
   executor of an ended application that a worker reports, or one its
   driver gave up on). */
void master_send_kill (master_t *m, reg_worker_t *w, const char *app_id,
                       int exec_id, const char *reason);

/* The body of MASTER_STATE_RESPONSE (a new tree). */
cJSON *master_state_json (master_t *m);

/* drivers.c: cluster-mode drivers. */
int master_drivers_init (master_t *m);
void master_drivers_fini (master_t *m);
/* Handlers of SUBMIT_DRIVER, DRIVER_STATUS, KILL_DRIVER and DRIVER_LOG
   (from hearth-submit), DRIVER_STATE_CHANGED and DRIVER_LOG_RESPONSE
   (from workers). */
void master_submit_driver (master_t *m, zframe_t *rid, hearth_msg_t *msg);
void master_driver_status (master_t *m, zframe_t *rid, hearth_msg_t *msg);
void master_kill_driver (master_t *m, zframe_t *rid, hearth_msg_t *msg);
void master_driver_log (master_t *m, zframe_t *rid, hearth_msg_t *msg);
void master_driver_log_response (master_t *m, zframe_t *rid, hearth_msg_t *msg);

/* The active cluster-mode driver whose application this is, or NULL. */
reg_driver_t *master_driver_of_app (master_t *m, const char *app_id);

/* Kill a driver that has not ended: it is not relaunched, its application
   ends KILLED, its worker stops it.  text says what was done. */
void master_driver_kill (master_t *m, reg_driver_t *d, char *text, size_t size);
void master_driver_state_changed (master_t *m, zframe_t *rid,
                                  hearth_msg_t *msg);
/* Send LAUNCH_DRIVER for d, just placed on d->worker. */
void master_launch_driver (master_t *m, reg_driver_t *d);
/* A worker registered listing drivers (running, or ended while it was
   away): apply their ends, kill what it should not run, and end what the
   master placed there that it no longer runs. */
void master_drivers_reconcile (master_t *m, reg_worker_t *w,
                               const cJSON *drivers);
/* Add to cores and memory what the running drivers w lists use that the
   master did not place there. */
void master_drivers_foreign (master_t *m, reg_worker_t *w, const cJSON *drivers,
                             int *cores, int64_t *memory);
/* REGISTER_APPLICATION named driver_id (may be NULL): link them. */
void master_driver_app_registered (master_t *m, reg_app_t *app,
                                   const char *driver_id);
/* The observer's part: d changed. */
void master_driver_changed (master_t *m, reg_driver_t *d);
/* End the applications of drivers that ended (deferred from the
   observer, so that no record changes inside another's change). */
void master_drivers_settle (master_t *m);
/* Periodic: time out relayed log requests, settle. */
void master_drivers_tick (master_t *m, int64_t now);

#endif

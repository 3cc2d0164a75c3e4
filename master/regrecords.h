/*  regrecords.h - the registry's records (registry.h): their states and
    their fields, and the read-only views of them that the rest of the
    master gets.

    reg_worker_t, reg_app_t, reg_exec_t and reg_driver_t are const
    structs: outside the registry a record is read, field by field, and
    never written, since a write anywhere else would miss the journal and
    the event stream (issue 36: a reconciled executor's pid came back
    from the journal as it was before).  Every change goes through
    registry.h's functions, which journal it and tell the observer.  The
    registry's own files (master/local.mk's libregistry: registry.c,
    reg*.c, records.c, restore.c) write through `struct reg_worker *`
    and its kind, got from a view with registry_int.h's
    registry__worker_rw() and the like; tests/style/test-registry-writes.sh
    checks that no other file spells them.
*/
#ifndef HEARTH_MASTER_REGRECORDS_H
#define HEARTH_MASTER_REGRECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/ids.h"
#include "libcore/liveness.h"
#include "libcore/resources.h"
#include "libcore/timeline_live.h"
#include "master/outputs.h"

/* Indices into hearth_worker_states[], hearth_app_states[] and
   hearth_executor_states[] (proto.h). */
typedef enum { WORKER_ALIVE, WORKER_DEAD, WORKER_UNKNOWN } worker_state_t;
typedef enum {
    APP_WAITING,
    APP_RUNNING,
    APP_FINISHED,
    APP_FAILED,
    APP_KILLED,
    APP_RELAUNCHING /* its driver lost, kept for a driver to resume it
                       (--resume-window): neither active nor final */
} app_state_t;
typedef enum {
    EXEC_LAUNCHING,
    EXEC_RUNNING,
    EXEC_EXITED,
    EXEC_KILLED,
    EXEC_FAILED,
    EXEC_LOST
} exec_state_t;

/* Indices into hearth_driver_states[] (proto.h). */
typedef enum {
    DRIVER_SUBMITTED,
    DRIVER_RUNNING,
    DRIVER_FINISHED,
    DRIVER_FAILED,
    DRIVER_KILLED,
    DRIVER_ERROR,
    DRIVER_RELAUNCHING
} driver_state_t;

/* The read-only views (above); only the registry writes the records. */
typedef const struct reg_worker reg_worker_t;
typedef const struct reg_app reg_app_t;
typedef const struct reg_exec reg_exec_t;
typedef const struct reg_driver reg_driver_t;

struct reg_worker {
    char id[HEARTH_ID_MAX + 1];   /* worker-... */
    char *host;                   /* address it advertises */
    char *version;                /* its Hearth version */
    char *work_dir;               /* its work dir, or NULL */
    char *work_dir_id;            /* what tells its work dir apart, or NULL */
    char curve_key[64];           /* the CURVE public key (Z85) it registered
                                     with, which its id belongs to
                                     (journaled: registry_worker_key), or
                                     "" (no keys, or an older journal) */
    int cores;                    /* cores it offers */
    int64_t memory_mb;            /* memory it offers, MiB */
    hearth_resources_t resources; /* custom resources' addresses it offers
                                     (its REGISTER_WORKER; owned) */
    cJSON *labels;                /* its labels {KEY: VALUE} (its
                                     REGISTER_WORKER; owned), or NULL */
    hearth_resources_t resources_foreign; /* addresses its executors beyond
                                             the master's books hold, as it
                                             reports them (owned) */
    int cores_used;            /* cores of executors placed here, and of
                                  those still stopping */
    int64_t memory_used_mb;    /* memory of the same */
    int cores_foreign;         /* cores of executors it reports that the
                                  master's books lack (after a restart) */
    int64_t memory_foreign_mb; /* their memory */
    worker_state_t state;      /* ALIVE, DEAD or UNKNOWN */
    bool draining;             /* drained by an operator: nothing new is
                                  placed here (journaled) */
    char *drain_reason;        /* why, or NULL */
    bool decommissioning;      /* leaving (issue 18): nothing new is placed
                                  here, its drivers were told; shown as
                                  DECOMMISSIONING while ALIVE (journaled;
                                  cleared when it is DEAD) */
    char *decom_reason;        /* why it leaves, or NULL */
    int64_t decom_deadline_ms; /* wall clock it leaves by at the latest, or
                                  0 when not told */
    char *dead_reason;         /* why it is DEAD (shown while retained),
                                  or NULL */
    zframe_t *routing_id;      /* its DEALER's routing id (owned) */
    int64_t registered_ms;     /* wall clock at registration */
    int64_t last_heartbeat_ms; /* wall clock of its last sign of life */
    uint64_t persisted_bytes;  /* of them, persisted stages' */
    uint64_t shuffle_bytes;    /* map outputs its block server holds on
                                  disk (its last HEARTBEAT) */
    char *web_url;             /* http://HOST:PORT of its pages (its
                                  REGISTER_WORKER; owned), or NULL: a
                                  pointer, not 256 bytes in each of
                                  50,000 records */
    int64_t dead_ms;           /* monotonic time it died, or 0 */
    int launch_failures;       /* executor launches failed in a row here */
    int64_t launch_hold_ms;    /* monotonic: nothing placed before, or 0 */
    char *unhealthy;           /* why every launch fails here, or NULL */
    zlistx_t *executors;       /* reg_exec_t * living here (borrowed) */
    zlistx_t *drivers;         /* reg_driver_t * placed here (borrowed) */
    zhashx_t *stopping;        /* "APP/EXEC" of executors the master ended
                                  whose end this worker has not reported
                                  (regstopping.c; owned; NULL: none) */
    hearth_peer_t *peer;       /* liveness handle while ALIVE */
    void *order_handle;        /* handle in the registry's worker order */
    void *dead_handle;         /* handle in the dead list while DEAD */
};

struct reg_app {
    char id[HEARTH_ID_MAX + 1];     /* app-... */
    char *name;                     /* as the driver named it */
    char *driver_url;               /* where its executors connect */
    char *token;                    /* passed to executors, or NULL */
    char *driver_key;               /* passed to executors, or NULL */
    cJSON *conf;                    /* KEY=VALUE map for executors, or NULL */
    char *user;                     /* who submitted it, or NULL */
    char curve_key[64];             /* its driver's CURVE key, or "" */
    char owner[64];                 /* the CURVE key that submitted it (a
                                       cluster-mode driver's submitter), or
                                       "" without CURVE (authz.h) */
    char *waiting;                  /* why it waits (waiting.h), or NULL;
                                       not journaled */
    const char *waiting_code;       /* its code (allocwhy.h; static) */
    int64_t unplaceable_ms;         /* monotonic: since when no live worker
                                       could ever hold it, or 0 */
    app_state_t state;              /* WAITING ... KILLED */
    int max_cores;                  /* 0: unset (all it can get) */
    int cores_per_executor;         /* 0: unset (one executor per worker) */
    int64_t memory_per_executor_mb; /* memory of each executor, MiB */
    hearth_resource_amounts_t executor_resources; /* custom resources each
                                                     executor needs (owned) */
    cJSON *executor_labels;    /* labels its executors' workers carry
                                  {KEY: VALUE} (owned; journaled), or NULL:
                                  any worker (--executor-label) */
    int executor_target;       /* executors its driver wants in all
                                  (REQUEST_EXECUTORS; journaled), or -1:
                                  none asked (no dynamic allocation) */
    cJSON *executor_places;    /* where its waiting tasks would run {PLACE:
                                  tasks} (REQUEST_EXECUTORS places; owned;
                                  not journaled: the driver sends it again
                                  after each registration), or NULL */
    int cores_granted;         /* cores of its live executors */
    int cores_peak;            /* the most it held at once (journaled):
                                  its cores once it has ended */
    int next_exec_id;          /* exec ids count from 0 */
    int retries;               /* executor failures in a row */
    zhashx_t *executors;       /* "exec_id" -> reg_exec_t * (owned) */
    zhashx_t *workers;         /* ids of workers it has used (a set) */
    zframe_t *routing_id;      /* its driver's DEALER routing id (owned) */
    int64_t submit_ms;         /* wall clock at registration */
    int64_t end_ms;            /* wall clock at its end, or 0 */
    int64_t last_heartbeat_ms; /* wall clock of the driver's last sign */
    char *end_reason;          /* why it ended, or NULL */
    char *event_log;           /* where its driver writes its event
                                  log (absolute), or NULL */
    cJSON *progress;           /* its driver's last progress summary
                                  (APPLICATION_PROGRESS, with time_ms),
                                  or NULL; not journaled */
    hearth_tllive_t *timeline; /* what its driver's progress summaries
                                  said of its attempts, executors and
                                  stages (owned), or NULL before the
                                  first; not journaled */
    cJSON *last_oom;           /* its last executor killed for memory:
                                  {exec_id, worker_id,
                                  memory_limit_bytes, peak_rss_bytes,
                                  message}, or NULL; not journaled */
    cJSON *ended;              /* its last REGISTRY_ENDED_EXECUTORS
                                  executors that ended, oldest first
                                  (registry_exec_json's object with
                                  how each ended; owned; NULL before
                                  the first); not journaled */
    int64_t hold_until_ms;     /* monotonic: not scheduled before, or 0 */
    bool recovering;           /* restored from the journal, its driver
                                  not back yet (no routing id) */
    int epoch;                 /* its driver's epoch: 1, one more for each
                                  driver that resumed it (journaled) */
    int64_t resume_by_ms;      /* wall clock: RELAUNCHING until then
                                  (journaled), or 0 */
    outputs_t *outputs;        /* what its driver would lose (OUTPUTS_
                                  RECORDED; owned; journaled), or NULL
                                  before the first; dropped at its end */
    bool outputs_full;         /* a batch was refused for the bound (said
                                  once) */
    hearth_peer_t *peer;       /* liveness handle while active */
    void *order_handle;        /* handle in the active or completed list */
};

struct reg_exec {
    reg_app_t *app;               /* the application it runs for */
    int exec_id;                  /* per application, from 0 */
    reg_worker_t *worker;         /* where it runs */
    int cores;                    /* cores it holds */
    int64_t memory_mb;            /* memory it holds, MiB */
    hearth_resources_t resources; /* addresses of its worker's it holds
                                     (owned; kept by the worker's stopping
                                     entry after a final state the master
                                     set, until the worker says it ended) */
    exec_state_t state;           /* LAUNCHING ... LOST */
    int pid;                      /* as the worker reported, or 0 */
    void *worker_handle;          /* handle in worker->executors */
    int64_t peak_rss_bytes;       /* its peak memory once its worker reaped it
                                     (EXECUTOR_STATE_CHANGED), or 0 */
    const char *exit_reason;      /* "OOM_KILLED", "RELEASED",
                                     "USER_REFUSED", "APPLICATION_ENDED"
                                     (static), or NULL */
    int64_t memory_limit_bytes;   /* its cgroup's limit as its worker said, or
                                     0 */
    int signal;                   /* the signal that ended it, as its worker
                                     said (EXECUTOR_STATE_CHANGED), or 0 */
};

/* A cluster-mode driver (SUBMIT_DRIVER).  It keeps what it needs to be
   launched again (supervised, or its worker died): the submitted body's
   args, files, env and conf, and the files' bytes. */
struct reg_driver {
    char id[HEARTH_ID_MAX + 1];        /* driver-... */
    char *name;                        /* application name, or NULL */
    char *app;                         /* the file to run, one of files */
    bool binary;                       /* kind binary (else job) */
    cJSON *spec;                       /* {args, files, env, conf} (owned) */
    zframe_t **frames;                 /* file contents (owned) */
    size_t nframes;                    /* entries in frames */
    size_t bytes;                      /* their total size */
    int cores;                         /* cores it holds while placed */
    int64_t memory_mb;                 /* memory it holds, MiB */
    bool supervise;                    /* relaunch when it fails */
    driver_state_t state;              /* SUBMITTED ... RELAUNCHING */
    reg_worker_t *worker;              /* where it is placed, or NULL */
    void *worker_handle;               /* handle in worker->drivers */
    char worker_id[HEARTH_ID_MAX + 1]; /* last worker, "" before any */
    char *worker_host;                 /* that worker's host, or NULL */
    char *worker_dir;                  /* its directory there, or NULL */
    char app_id[HEARTH_ID_MAX + 1];    /* its application, or "" */
    char *error;                       /* what went wrong last, or NULL */
    int exit_status;                   /* of the last run, or -1 */
    int pid;                           /* as its worker reported, or 0 */
    int launches;                      /* times placed on a worker */
    int failures;                      /* failed runs in a row */
    bool kill_requested;               /* KILL_DRIVER arrived */
    char owner[64];                    /* the CURVE key that submitted it,
                                          or "" without CURVE */
    char key[64];                      /* the CURVE public key (Z85) the
                                          master made for its last launch,
                                          admitted while it is placed
                                          (drvkeys.h), or "" (no CURVE,
                                          never launched) */
    char *waiting;                     /* why it waits unplaced, or NULL */
    const char *waiting_code;          /* its code (allocwhy.h; static) */
    int64_t unplaceable_ms;            /* as an application's */
    int64_t submit_ms;                 /* wall clock at submission */
    int64_t end_ms;                    /* wall clock at its end, or 0 */
    int64_t launched_ms;               /* monotonic time of the last launch */
    int64_t relaunch_ms;               /* monotonic: not placed before */
    void *order_handle;                /* handle in the active or completed
                                          list */
};

#endif

/*  engine.h - the driver's engine: the state its modules share.

    Everything here belongs to the engine thread.  See internal.h for the
    module map and for what is shared with the user's thread.
*/
#ifndef HEARTH_DRIVER_ENGINE_H
#define HEARTH_DRIVER_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <czmq.h>

#include "driver/internal.h"
#include "libcore/curve.h"
#include "libcore/proto.h"
#include "libcore/taskset.h"

/* One executor of the application. */
typedef struct {
    int exec_id;          /* its id (from the master, or local) */
    int cores;            /* task slots */
    char host[256];       /* where it runs */
    char *key;            /* hex of its routing id once registered */
    zframe_t *rid;        /* its routing id once registered */
    bool registered;      /* REGISTER_EXECUTOR accepted: in the task set */
    int64_t last_recv_ms; /* last message from it (monotonic) */
    int64_t last_send_ms; /* last message to it (monotonic) */
    bool local;           /* local mode: a process we started */
    pid_t local_pid;      /* its pid until reaped, then 0 */
    int64_t started_ms;   /* local mode: when we started it (monotonic) */
} exec_t;

/* A library shipped to every executor. */
typedef struct {
    char *name;     /* file name, e.g. "libpi.so" */
    char hash[64];  /* SHA-1, hex */
    zchunk_t *data; /* its bytes */
} shipped_lib_t;

typedef enum {
    MODE_LOCAL,         /* local[N]: one executor process of ours */
    MODE_LOCAL_CLUSTER, /* local-cluster[W,C,M]: our own master + workers */
    MODE_CLUSTER,       /* tcp://: a real master */
} engine_mode_t;

struct engine {
    hearth_ctx_t *ctx;    /* the API side (for its conf) */
    hearth_conf_t *conf;  /* settings (borrowed from ctx) */
    zsock_t *pipe;        /* to the API thread */
    zloop_t *loop;        /* the engine's loop */
    zsock_t *router;      /* executors connect here */
    char driver_url[300]; /* tcp://HOST:PORT of router */
    char app_id[160];     /* from the master, or made locally */
    char app_name[256];   /* as registered */
    engine_mode_t mode;   /* how executors come to be */
    /* settings */
    int64_t hb_interval_ms;   /* heartbeat interval */
    int64_t hb_liveness;      /* missed intervals before a peer is gone */
    int64_t max_result_bytes; /* per task */
    /* security */
    char token[64];       /* executors must present it (Z85) */
    zcert_t *app_cert;    /* our ROUTER's CURVE keys, when the master
                             link is secure */
    hearth_curve_t curve; /* keys for the master link (cluster mode) */
    /* the master (cluster and local-cluster modes) */
    zsock_t *master;                /* DEALER */
    char master_url[512];           /* where it is */
    bool registered;                /* REGISTERED_APPLICATION received */
    int64_t register_deadline;      /* give up registering after this (mono) */
    int64_t master_recv_ms;         /* last message from the master */
    int64_t master_send_ms;         /* last message to the master */
    bool master_linked;             /* the current socket is registered */
    int64_t master_lost_ms;         /* when the link went down (mono) */
    int64_t master_backoff_ms;      /* wait before the next attempt after */
    int64_t master_next_attempt_ms; /* next registration attempt (mono) */
    /* local modes */
    int local_cores;          /* local[N]: N */
    int lc_workers, lc_cores; /* local-cluster[W,C,M] */
    int64_t lc_memory_mb;
    pid_t lc_master_pid;      /* our master */
    pid_t *lc_worker_pids;    /* our workers */
    char *scratch_dir;        /* our temporary directory, or NULL */
    bool scratch_owned;       /* we made it: remove it at the end */
    int next_local_exec;      /* next local executor id */
    int local_failures;       /* local executors that died in a row */
    int64_t local_respawn_ms; /* do not respawn before (mono) */
    /* executors */
    zhashx_t *execs; /* exec id -> exec_t */
    zhash_t *by_key; /* routing id hex -> exec_t (borrowed) */
    /* refused executors, logged once a minute per address (execs.c) */
    hearth_refusals_t *refusals;
    /* work */
    hearth_taskset_t *ts;    /* what runs where */
    hearth_stage_t **stages; /* by uid; NULL once its job ended */
    size_t stages_alloc;
    uint32_t next_uid;   /* next stage uid (from 1) */
    uint64_t next_job;   /* next job id (from 1) */
    zlistx_t *jobs;      /* hearth_job_t running */
    shipped_lib_t *libs; /* the application's libraries */
    size_t nlibs;
    hearth_packer_t packer; /* scratch for packing LAUNCH_TASKS */
    /* life */
    bool signaled;             /* the API was told start-up is over */
    bool app_dead;             /* the master ended the application */
    char app_dead_reason[512]; /* why */
    bool stopping;             /* shutting down */
    int64_t last_spec_ms;      /* last look for stragglers */
    int64_t starved_since_ms;  /* jobs wait with no executor since, or 0 */
    bool starved_logged;       /* "no executor yet" said for this wait */
    char error[512];           /* start-up failure */
};

/* Start-up is over (error NULL) or failed (error set): tell the API. */
void engine_signal_ready (engine_t *e, const char *error);
/* Handle the task set's events, then offer free slots to executors. */
void engine_process (engine_t *e);
/* End a running job as failed with a reason. */
void engine_fail_job (engine_t *e, hearth_job_t *job, const char *error);
/* The application is over (master said so): fail every job. */
void engine_app_dead (engine_t *e, const char *reason);

/* execs.c */
/* Bind the executors' ROUTER on driver-host (default: loopback for the
   local modes, else the address that faces the master). */
int execs_open (engine_t *e, hearth_error_t *err);
void execs_close (engine_t *e);
exec_t *execs_find (engine_t *e, int exec_id);
/* Note an executor the master announced or we started. */
exec_t *execs_add (engine_t *e, int exec_id, int cores, const char *host);
/* An executor is gone: re-queue its tasks and forget it. */
void execs_lost (engine_t *e, int exec_id, const char *reason);
void execs_offer_all (engine_t *e);
void execs_send_kill (engine_t *e, int exec_id, uint64_t tid, int attempt);
void execs_stop_all (engine_t *e, const char *reason);
void execs_tick (engine_t *e);

/* master.c */
int master_open (engine_t *e, const char *url, hearth_error_t *err);
void master_close (engine_t *e);
void master_tick (engine_t *e);
/* Ask the master to kill an executor the driver gave up on (silent: hung
   or cut off), so that its cores go to a replacement. */
void master_release_executor (engine_t *e, int exec_id, const char *reason);

/* local.c */
/* Parse the master setting into the engine's mode.  Returns 0 or -1. */
int local_parse_master (engine_t *e, const char *master, hearth_error_t *err);
/* Start what the mode needs: a local executor, our own master and
   workers, or the link to a real master. */
int local_start (engine_t *e, hearth_error_t *err);
void local_tick (engine_t *e);
void local_stop (engine_t *e);
/* A local executor died or was lost: start another. */
void local_executor_gone (engine_t *e, exec_t *x);

#endif

/*  local.h - the driver's embedded modes, and the choice of mode.

    local[N] runs one executor process of ours with N cores (another when
    it dies), local-cluster[W,C,M] a real master and W real workers on
    loopback for the application's lifetime, both in a scratch directory.
    The part tells its owner of the executors it starts and of the ones
    that exit through the callbacks given at creation, called from the
    owner's loop, which watches every process started here.
*/
#ifndef HEARTH_LIBHEARTH_LOCAL_H
#define HEARTH_LIBHEARTH_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/loop.h"
#include "libcore/masters.h"

typedef enum {
    MODE_LOCAL,         /* local[N]: one executor process of ours */
    MODE_LOCAL_CLUSTER, /* local-cluster[W,C,M]: our own master + workers */
    MODE_CLUSTER,       /* tcp://: a real master */
} engine_mode_t;

/* The "master" setting, parsed. */
typedef struct {
    engine_mode_t mode;       /* how executors come to be */
    int cores;                /* local[N]: N */
    int workers;              /* local-cluster[W,C,M]: W */
    int worker_cores;         /* C */
    int64_t worker_memory_mb; /* M */
    char master_url[HEARTH_MASTERS_MAX * (HEARTH_MASTER_URL_MAX + 1)];
    /* tcp://: where the master is, or the masters' list (masters.h) */
} local_setup_t;

/* Parse master (NULL: "local") into *setup.  Returns 0, or -1 with err
   set. */
int local_parse_master (const char *master, local_setup_t *setup,
                        hearth_error_t *err);

typedef struct local local_t;

/* What the part tells its owner. */
typedef struct {
    /* We started executor exec_id, with cores, on this machine. */
    void (*executor_started) (void *arg, int exec_id, int cores);
    /* Executor exec_id's process exited; its peak memory in bytes
       (wait4's ru_maxrss), or -1 when unknown. */
    void (*executor_exited) (void *arg, int exec_id, int64_t peak_rss_bytes);
    /* The application cannot go on (reason borrowed): our executor keeps
       failing, or our master exited. */
    void (*app_dead) (void *arg, const char *reason);
    void *arg; /* given to every callback */
} local_cbs_t;

typedef struct {
    hearth_loop_t *loop;        /* borrowed: watches what we start, and
                                   calls the callbacks as they exit */
    hearth_conf_t *conf;        /* borrowed: work-dir, log-level */
    const local_setup_t *setup; /* copied: a local mode */
    const char *token;          /* our executors present it (copied) */
    int64_t hb_interval_ms;     /* for our executors and daemons */
    int64_t hb_liveness;        /* for our executors */
} local_opts_t;

/* A part that has started nothing yet.  cbs is copied.  NULL on no
   memory. */
local_t *local_new (const local_opts_t *opts, const local_cbs_t *cbs);
/* Free the part (stop it first).  Accepts NULL; keeps errno. */
void local_destroy (local_t **self_p);

/* Make the scratch directory, then start a local cluster, or (local[N])
   our executor, for the application app_id whose executors connect to
   driver_url (both copied).  Returns 0, or -1 with err set. */
int local_start (local_t *self, const char *driver_url, const char *app_id,
                 hearth_error_t *err);
/* local-cluster: our master's URL (borrowed), once started. */
const char *local_master_url (const local_t *self);
/* local-cluster: whether our master runs (not reaped yet). */
bool local_master_running (const local_t *self);
/* Executor exec_id is gone: if it is ours, make sure its process is,
   and start another. */
void local_executor_gone (local_t *self, int exec_id);
/* Stop everything we started and remove the scratch directory if we
   made it. */
void local_stop (local_t *self);

#endif

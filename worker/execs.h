/*  execs.h - the executors a worker runs: their command line and
    environment, started in WORK_DIR/APP/EXEC; an application's directory
    removed a retention period after the application; the work dir's
    lock; and what an earlier worker's executors left (orphans.h).

    The processes are children of the worker's children table
    (children.h), of the kind execs_kind: it starts, stops (SIGTERM to the
    process group, SIGKILL after a grace period) and reaps them, and
    lists them (children_json with execs_kind gives {app_id, exec_id,
    state, cores, memory_mb, pid, resources} objects; resources only when
    it holds some).  Every state change (RUNNING
    after a start, EXITED, FAILED or KILLED after an exit) is reported
    through one callback, so that the worker can tell the master.
    Nothing here reads a clock: times come in as arguments (monotonic
    ms).
*/
#ifndef HEARTH_WORKER_EXECS_H
#define HEARTH_WORKER_EXECS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "libcore/resources.h"
#include "worker/apps.h"
#include "worker/children.h"
#include "worker/runas.h"

typedef struct execs execs_t;

/* A state change of one executor, reported to the callback (borrowed for
   the duration of the call). */
typedef struct {
    const char *app_id;     /* its application */
    int exec_id;            /* its id within the application */
    const char *state;      /* RUNNING, EXITED, FAILED or KILLED */
    const char *message;    /* why, or NULL */
    int exit_status;        /* exit code, or -1 */
    int signal;             /* signal that ended it, or 0 */
    pid_t pid;              /* its pid */
    int64_t peak_rss_bytes; /* once reaped: its cgroup's peak memory; without
                               one, its largest resident set or that of any
                               process it reaped; or -1 */
    const char *reason;     /* "OOM_KILLED" (its cgroup hit its memory
                               limit), or NULL */
    int64_t memory_limit_bytes; /* its cgroup's memory limit, or <= 0 */
} execs_report_t;

typedef void (execs_report_fn) (void *arg, const execs_report_t *report);

/* What the worker needs to start an executor (all borrowed). */
typedef struct {
    const char *app_id;      /* valid app id */
    int exec_id;             /* >= 0 */
    int cores;               /* cores it may use */
    int64_t memory_mb;       /* memory it may use */
    const char *driver_url;  /* where it connects */
    const char *token;       /* or NULL */
    const char *driver_key;  /* or NULL */
    const cJSON *conf;       /* KEY=VALUE map, or NULL */
    const char *shuffle_url; /* the node's block server (shuffle.h), or
                                NULL */
    const char *shuffle_key; /* its CURVE public key, or NULL */
    const hearth_resources_t *resources; /* the custom resources' addresses
                                            it holds, or NULL */
    runas_owner_t owner; /* its application's submitter: whom it runs
                            as (runas.h) */
} execs_launch_t;

/* The kind of the executors in the children table. */
extern const children_kind_t execs_kind;

/* Where and how executors run (borrowed by execs_new, which copies). */
typedef struct {
    children_t *children;    /* the worker's table, rooted at work_dir
                                (borrowed: must outlive the set) */
    const char *work_dir;    /* executors run in WORK_DIR/APP/EXEC */
    const char *program;     /* hearth-executor's path */
    const char *host;        /* the address the worker advertises */
    int64_t retention_ms;    /* removed app to removed directory */
    runas_t *runas;          /* whom they run as (borrowed: must outlive
                                the set) */
    apps_t *apps;            /* their applications' tokens and owners
                                (borrowed: must outlive the set) */
    execs_report_fn *report; /* told of every state change */
    void *report_arg;        /* passed to report */
} execs_config_t;

/* A new set.  It creates the work dir and locks it
   (WORK_DIR/.worker.lock): one worker per work dir.  NULL with err (no
   memory, or another worker holds the lock). */
execs_t *execs_new (const execs_config_t *config, hearth_error_t *err);

/* At start-up: kill what an earlier worker on the same work dir left
   running (orphans.h), and schedule its application directories for
   removal after the retention. */
void execs_clean_start (execs_t *self, int64_t now_ms);

/* Free the set, unlock the work dir.  The executors, and what they left
   behind, go with the children table, destroyed first.  Accepts NULL and
   a NULL *self_p; nulls the pointer; keeps errno. */
void execs_destroy (execs_t **self_p);

/* Start an executor, as the user its owner maps to (runas.h), its
   application's directories under the work dir and under the shuffle
   directory (WORK_DIR/shuffle/APP) that user's.  Reports RUNNING, or
   FAILED when it cannot start (a user that cannot be looked up
   included), or FAILED with the reason USER_REFUSED when it must not
   (runas_resolve's refusal: RUNAS_REFUSED), or FAILED when its token is
   not the one its application came with first here (apps_launch's
   refusal).  A duplicate (same app and exec id) is refused with -1. */
int execs_launch (execs_t *self, const execs_launch_t *launch, int64_t now_ms);

/* Stop one executor (SIGTERM now, SIGKILL after the grace period).
   Returns -1 when it is unknown. */
int execs_kill (execs_t *self, const char *app_id, int exec_id);

/* Stop all executors of an application and schedule its directory for
   removal. */
void execs_app_removed (execs_t *self, const char *app_id, int64_t now_ms);

/* Periodic work: say how many lines of executors that could not start
   were held back (one is logged per minute). */
void execs_tick (execs_t *self, int64_t now_ms);

/* What tells this work dir from any other in the cluster: this boot of
   this machine (its boot id), and the device and inode of the lock file
   the worker holds.  Fills buf and returns 0, or -1 when unknown. */
int execs_work_dir_id (const execs_t *self, char *buf, size_t size);

#endif

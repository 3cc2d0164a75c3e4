/*  execs.h - the executors a worker runs: start them in their work dirs,
    stop them (SIGTERM to the process group, SIGKILL after a grace
    period), reap them, and remove finished applications' directories
    after a retention period.

    The table owns its records.  Every state change (RUNNING after a
    start, EXITED, FAILED or KILLED after an exit) is reported through one
    callback, so that the worker can tell the master.  Nothing here reads
    a clock: times come in as arguments (monotonic ms).
*/
#ifndef HEARTH_WORKER_EXECS_H
#define HEARTH_WORKER_EXECS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"

typedef struct execs execs_t;

/* A state change of one executor, reported to the callback (borrowed for
   the duration of the call). */
typedef struct {
    const char *app_id;  /* its application */
    int exec_id;         /* its id within the application */
    const char *state;   /* RUNNING, EXITED, FAILED or KILLED */
    const char *message; /* why, or NULL */
    int exit_status;     /* exit code, or -1 */
    int signal;          /* signal that ended it, or 0 */
    pid_t pid;           /* its pid */
} execs_report_t;

typedef void (execs_report_fn) (void *arg, const execs_report_t *report);

/* What the worker needs to start an executor (all borrowed). */
typedef struct {
    const char *app_id;     /* valid app id */
    int exec_id;            /* >= 0 */
    int cores;              /* cores it may use */
    int64_t memory_mb;      /* memory it may use */
    const char *driver_url; /* where it connects */
    const char *token;      /* or NULL */
    const char *driver_key; /* or NULL */
    const cJSON *conf;      /* KEY=VALUE map, or NULL */
} execs_launch_t;

/* A new table: executors run program (a path) in work_dir/APP/EXEC,
   advertising host; a killed executor gets SIGKILL kill_grace_ms after
   SIGTERM; a removed application's directory goes retention_ms later.
   It locks work_dir (WORK_DIR/.worker.lock): one worker per work dir.
   NULL with err (no memory, or another worker holds the lock). */
execs_t *execs_new (const char *work_dir, const char *program, const char *host,
                    int64_t kill_grace_ms, int64_t retention_ms,
                    execs_report_fn *report, void *arg, hearth_error_t *err);

/* At start-up: kill what an earlier worker on the same work dir left
   running (orphans.h), and schedule its application directories for
   removal after the retention. */
void execs_clean_start (execs_t *self, int64_t now_ms);

/* SIGKILL every executor still running and whatever they left (orphans.h),
   reap them, free the table, unlock the work dir. */
void execs_destroy (execs_t **self_p);

/* Start an executor.  Reports RUNNING, or FAILED when it cannot start.
   A duplicate (same app and exec id) is refused with -1. */
int execs_launch (execs_t *self, const execs_launch_t *launch, int64_t now_ms);

/* Stop one executor (SIGTERM now, SIGKILL after the grace period).
   Returns -1 when it is unknown. */
int execs_kill (execs_t *self, const char *app_id, int exec_id, int64_t now_ms);

/* Stop all executors of an application and schedule its directory for
   removal. */
void execs_app_removed (execs_t *self, const char *app_id, int64_t now_ms);

/* Stop every executor (worker shutdown). */
void execs_kill_all (execs_t *self, int64_t now_ms);

/* A child exited (waitpid status): if it is one of the executors, report
   it and return true. */
bool execs_exited (execs_t *self, pid_t pid, int status);

/* Periodic work: kill what executors reaped since the last tick left
   running (orphans.h), SIGKILL after grace periods, remove due
   directories. */
void execs_tick (execs_t *self, int64_t now_ms);

/* Executors alive (started, not yet reaped). */
size_t execs_count (const execs_t *self);

/* What tells this work dir from any other in the cluster: this boot of
   this machine (its boot id), and the device and inode of the lock file
   the worker holds.  Fills buf and returns 0, or -1 when unknown. */
int execs_work_dir_id (const execs_t *self, char *buf, size_t size);

/* Cores and memory held by live executors. */
void execs_usage (const execs_t *self, int *cores, int64_t *memory_mb);

/* The live executors as an array of {app_id, exec_id, cores, memory_mb,
   state, pid} objects (a new tree, caller deletes). */
cJSON *execs_json (const execs_t *self);

#endif

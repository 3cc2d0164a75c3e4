/*  drivers.h - the cluster-mode drivers a worker runs: write their files
    into WORK_DIR/DRIVER_ID/ and start them there with their command line
    and environment, serve their output files, and remove the
    directories of drivers that ended after a retention period.

    The processes are children of the worker's children table
    (children.h), of the kind drivers_kind: it starts, stops (SIGTERM to
    the process group, SIGKILL after a grace period) and reaps them, and
    lists them (children_json with drivers_kind gives {driver_id, launch,
    cores, memory_mb, pid} objects).  Every state change (RUNNING after a
    start, ERROR when it cannot start, FINISHED, FAILED or KILLED after an
    exit) goes through one callback, so that the worker can tell the
    master.  Nothing here reads a clock: times come in as arguments
    (monotonic ms).
*/
#ifndef HEARTH_WORKER_DRIVERS_H
#define HEARTH_WORKER_DRIVERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/error.h"
#include "worker/children.h"
#include "worker/runas.h"

typedef struct drivers drivers_t;

/* A state change of one driver, reported to the callback (borrowed for
   the duration of the call). */
typedef struct {
    const char *driver_id; /* which */
    int launch;            /* the launch that started it */
    const char *state;     /* RUNNING, FINISHED, FAILED, KILLED or ERROR */
    const char *error;     /* why, or NULL */
    int exit_status;       /* exit code, or -1 */
    int signal;            /* signal that ended it, or 0 */
    pid_t pid;             /* its pid, or 0 */
} drivers_report_t;

typedef void (drivers_report_fn) (void *arg, const drivers_report_t *report);

/* What the worker needs to start a driver: LAUNCH_DRIVER's fields
   (borrowed). */
typedef struct {
    const char *driver_id;    /* valid driver id */
    int launch;               /* LAUNCH_DRIVER's launch, or 0 */
    int cores;                /* cores it may use */
    int64_t memory_mb;        /* memory it may use */
    const char *app;          /* the file to run */
    bool binary;              /* run app itself (else hearth-driver app) */
    const cJSON *args;        /* array of strings, or NULL */
    const cJSON *files;       /* array of {name, frame, mode} */
    zframe_t *const *frames;  /* the message's binary frames */
    size_t nframes;           /* entries in frames */
    const cJSON *env;         /* map of strings, or NULL */
    const cJSON *conf;        /* map of strings, or NULL */
    runas_owner_t owner;      /* its submitter: whom it runs as (runas.h) */
    const char *curve_secret; /* the secret key the master made for this
                                 launch (Z85), or NULL without CURVE */
} drivers_launch_t;

/* Where and how drivers run (borrowed by drivers_new, which copies). */
typedef struct {
    children_t *children;      /* the worker's children: drivers run in
                                  ROOT/DRIVER_ID (borrowed: it must
                                  outlive the set) */
    const char *program;       /* hearth-driver's path, for job files */
    const char *master_url;    /* what drivers register with */
    const char *master_key;    /* the master's public key file, or NULL:
                                  the worker has no keys */
    runas_t *runas;            /* whom drivers run as (borrowed: it must
                                  outlive the set) */
    int64_t retention_ms;      /* end to removed directory (0: never) */
    drivers_report_fn *report; /* told of every state change */
    void *report_arg;          /* passed to report */
} drivers_config_t;

/* The kind of the drivers in the children table. */
extern const children_kind_t drivers_kind;

/* A new set.  With keys, each launch of a driver gets the key pair the
   master made for it (LAUNCH_DRIVER's curve_secret), written into its
   directory as .driver.key_secret (mode 0600, its user's) and named in
   HEARTH_CURVE_SECRET, and the master's public key in HEARTH_MASTER_KEY
   (an absolute path; for a driver run as another user than the worker's,
   runas.h, a copy in its directory, .master.key): it reaches the master
   as itself, never with the worker's key, which no driver gets.  NULL
   with err. */
drivers_t *drivers_new (const drivers_config_t *config, hearth_error_t *err);

/* Free the set.  The drivers themselves go with the children table.
   Accepts NULL and a NULL *self_p; nulls the pointer; keeps errno. */
void drivers_destroy (drivers_t **self_p);

/* Start a driver, as the user its owner maps to (runas.h).  Reports
   RUNNING, or ERROR when it cannot start (or must not: runas_resolve's
   reason; with keys, a launch that carries no key of its own).
   While an older launch of that driver runs here (the master took it for
   gone), the older one is stopped and this one is kept (a copy) and
   started once the older one has been reaped (relaunch.h).  The same
   launch, or an older one, of a driver running here is refused with -1
   (nothing reported). */
int drivers_launch (drivers_t *self, const drivers_launch_t *launch);

/* Stop one driver (SIGTERM to its group now, SIGKILL after the grace
   period); a launch of it waiting for an older one is reported KILLED
   and dropped.  Returns -1 when nothing of it runs or waits here. */
int drivers_kill (drivers_t *self, const char *driver_id);

/* The worker is stopping: every launch that waits is reported KILLED and
   dropped (what runs is stopped with the rest of the children). */
void drivers_stop_waiting (drivers_t *self);

/* Read up to max_bytes of a driver's output (stream "stdout" or
   "stderr") from offset into a new frame (*data, caller destroys).  *eof
   is set when the driver does not run here and nothing lies past what
   was read.  Returns 0, or -1 with err (no such output here). */
int drivers_read_log (drivers_t *self, const char *driver_id,
                      const char *stream, uint64_t offset, size_t max_bytes,
                      zframe_t **data, bool *eof, hearth_error_t *err);

#endif

/*  webstate.h - what the worker's web pages show of its executors and
    drivers beyond the live children table: when each started, how each
    that ended ended (the newest 100 of each kind, while their
    directories exist), and the exits counted by reason for /metrics.

    main.c feeds it from the execs' and drivers' report callbacks (before
    the link tells the master); web.c reads it.  It owns its records;
    times are wall-clock ms since the epoch. */
#ifndef HEARTH_WORKER_WEBSTATE_H
#define HEARTH_WORKER_WEBSTATE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "worker/children.h"
#include "worker/drivers.h"
#include "worker/execs.h"

typedef struct webstate webstate_t;

/* Ended executors (and drivers) kept for the pages. */
#define WEBSTATE_ENDED_MAX 100

/* Executor exits counted by reason (EXITED, FAILED, KILLED). */
typedef struct {
    uint64_t exited; /* ended with status 0 */
    uint64_t failed; /* ended otherwise, or failed to start */
    uint64_t killed; /* stopped by the worker */
} webstate_exits_t;

/* A new history for the children of children (borrowed, must outlive
   it), whose directories are under work_dir.  NULL on no memory. */
webstate_t *webstate_new (children_t *children, const char *work_dir);

/* Free it.  Accepts NULL and a NULL *self_p; nulls *self_p. */
void webstate_destroy (webstate_t **self_p);

/* An executor's report (borrowed): RUNNING starts its record, an end
   closes it. */
void webstate_exec (webstate_t *self, const execs_report_t *r);

/* A driver's report (borrowed), likewise. */
void webstate_driver (webstate_t *self, const drivers_report_t *r);

/* The application the running driver driver_id registered
   (DRIVER_APPLICATION), shown beside it; a driver not running here is
   ignored. */
void webstate_driver_app (webstate_t *self, const char *driver_id,
                          const char *app_id);

/* The document's "executors" (execs) or "drivers" (drivers) array:
   the live ones from the children table, then the ended ones, newest
   first, each with its stdout_bytes and stderr_bytes.  A new tree, or
   NULL on no memory. */
cJSON *webstate_json (webstate_t *self, bool drivers);

/* The executors' exits so far. */
webstate_exits_t webstate_exits (const webstate_t *self);

#endif

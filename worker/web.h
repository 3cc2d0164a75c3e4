/*  web.h - the worker's web server (libcore/web.h): its state document
    (/api/v1/state), Spark's /json (webjson.h), its metrics (/metrics,
   webmetrics.c) and the logs of its executors and drivers (/log, weblog.h),
   with their history (webstate.h).  Handlers read the worker's records on the
   loop's thread. */
#ifndef HEARTH_WORKER_WEB_H
#define HEARTH_WORKER_WEB_H

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "worker/worker.h"

/* Start the worker's web server per its options (--web-port, --web-host,
   --web-token-file, --insecure) into w->web; NULL when --web-port is 0 or
   the default ports are all taken (logged).  -1 with err on a refusal or
   a failure the operator asked for.  w->webstate must exist. */
int worker_web_open (worker_t *w, hearth_error_t *err);

/* Stop it (before the loop is destroyed).  Accepts w->web NULL. */
void worker_web_close (worker_t *w);

/* The /metrics text (Prometheus format, malloc'ed: the caller's) and
   its length into *len; NULL on no memory.  w->web and w->children must
   be set. */
char *worker_web_metrics (worker_t *w, size_t *len);

/* The worker's state document (web-wire §2): a new tree, or NULL. */
cJSON *worker_web_state (worker_t *w);

#endif

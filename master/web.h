/*  web.h - the master's web server: its routes (web.c) and Spark's
    /json document (webjson.c), on libcore/web.h's server.

    Routes (docs/operations.md, "Web pages and metrics"):
        /api/v1/state  hearth-tail --state --json's document
        /json          Spark's master fields under Spark's names
        /metrics       Prometheus text format (webmetrics.c)
        /favicon.ico   204
    The server reads the registry on the loop's thread (no lock), from
    the state document master_state_json builds. */
#ifndef HEARTH_MASTER_WEB_H
#define HEARTH_MASTER_WEB_H

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "master/master.h"

/* Start the master's web server per its options (--web-port, --web-host,
   --web-token-file, --insecure) into m->web; m->web stays NULL when
   --web-port is 0, or when the default ports are all taken (logged).
   -1 with err on a refusal or a failure the operator asked for. */
int master_web_open (master_t *m, hearth_error_t *err);

/* Stop it (before the loop is destroyed).  Accepts m->web NULL. */
void master_web_close (master_t *m);

/* The /metrics text (Prometheus format, malloc'ed: the caller's) and
   its length into *len; NULL on no memory.  m->web must be set. */
char *master_web_metrics (master_t *m, size_t *len);

/* Spark's /json document, as text (malloc'ed: the caller's) and its
   length into *len; NULL on no memory. */
char *master_web_spark_json (master_t *m, size_t *len);

#endif

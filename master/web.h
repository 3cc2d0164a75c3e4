/*  web.h - the master's web server: its routes (web.c), Spark's /json
    document (webjson.c) and the kill action of its pages (webkill.c), on
    libcore/web.h's server.

    Routes (docs/operations.md, "Web pages and metrics"):
        /, /app/ID     the HTML pages (libcore/webpage.h's renderers)
        /app/ID/confirm-kill, /driver/ID/confirm-kill
                       GET: the page that confirms a kill, whose form
                       POSTs to
        /app/ID/kill, /driver/ID/kill
                       POST only: the kill (webkill.c)
        /api/v1/state  hearth-tail --state --json's document
        /json          Spark's master fields under Spark's names
        /metrics       Prometheus text format (webmetrics.c)
        /favicon.ico   204
    The server reads the registry on the loop's thread (no lock). */
#ifndef HEARTH_MASTER_WEB_H
#define HEARTH_MASTER_WEB_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "libcore/web.h"
#include "libcore/webpage.h"
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

/* Whether the pages offer kill: not --web-read-only, and not a standby
   (which kills nothing: its pages show the leader's journal). */
bool master_web_kill_on (master_t *m);

/* A request under /app/ or /driver/ that names more than an id: rest is
   the path after that prefix, "ID/confirm-kill" (GET: the confirmation
   page) or "ID/kill" (POST: the kill, as KILL_APPLICATION or
   KILL_DRIVER); anything else 404.  req and rep borrowed, as a route's
   handler's. */
void master_web_kill (master_t *m, const hearth_web_request_t *req,
                      hearth_web_reply_t *rep, hearth_page_kind_t kind,
                      const char *rest);

#endif

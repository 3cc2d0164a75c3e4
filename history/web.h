/*  web.h - `hearth-history --web-port N`: the listing and the summaries
    as pages and as the --json documents, served by the web module of the
    daemons (libcore/web.h: its token rule, its messages) until SIGINT or
    SIGTERM (docs/history.md, "Pages").

    Every request reads the directory again, as one CLI run does (the
    listing through the index, a summary from the whole log), so new and
    running applications appear.  The server borrows conf. */
#ifndef HEARTH_HISTORY_WEB_H
#define HEARTH_HISTORY_WEB_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/conf.h"

/* What the requests read: the CLI's settings. */
typedef struct {
    const char *dir;  /* the event-log directory */
    int top;          /* --top: the slowest attempts a summary shows */
    int64_t stale_ms; /* --stale (live.h) */
    bool no_index;    /* --no-index */
} hist_web_opts_t;

/* Serve per conf's web-port, web-host, web-token-file and insecure until
   a SIGINT or SIGTERM; prints the server's URL on stdout once it is
   bound.  Returns the exit status: 0 after a signal, 1 when the server
   cannot start (said on stderr). */
int hist_web_serve (const hearth_conf_t *conf, const hist_web_opts_t *o);

#endif

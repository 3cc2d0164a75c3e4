/*  webpage.h - the HTML pages of the master and the workers: pure
    renderers from a JSON state document to one HTML document.

    `state` is the master's /api/v1/state document (MASTER_STATE's body,
    workers with `web_url` when they serve pages), `wstate` a worker's
    /api/v1/state document (docs/operations.md, "The pages").  The pages
    carry their own CSS and script (no external asset); read without
    JavaScript they are plain tables, and with it they poll
    /api/v1/state (a URL relative to the server that served the page)
    once a second and rebuild their tables in place.

    Every value taken from a document is HTML-escaped, every link made of
    one is URL-encoded, and a web_url that is not http:// or https:// is
    shown as text, never made a link.

    Everything here borrows what it is given.  Each function returns a new
    NUL-terminated HTML document that the caller frees with free(), or
    NULL when out of memory; *status is set to 200, or to 404 when the
    thing asked for is not in the document (the page then says so).
*/
#ifndef HEARTH_LIBCORE_WEBPAGE_H
#define HEARTH_LIBCORE_WEBPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The master's page: its status, URL and uptime; the workers; running
   and completed applications; cluster-mode drivers.  With kill, a
   "kill" link beside each application and driver that has not ended, to
   its confirmation page (hearth_page_kill_confirm), and body's
   data-kill="1" so that the script keeps them. */
char *hearth_page_master (const cJSON *state, bool kill, int *status);

/* An application's page: its details, its timeline (the SVG of
   libcore/timeline.h, written as it is; NULL: its driver has sent
   none), its stages and executors (with their workers and log links);
   with kill, while it has not ended, a Kill button to its confirmation
   page.  404 when app_id is not in state. */
char *hearth_page_app (const cJSON *state, const char *app_id,
                       const char *timeline, bool kill, int *status);

/* What can be killed from the pages: an application ("app", in state's
   apps) or a cluster-mode driver ("driver", in its drivers). */
typedef enum {
    HEARTH_PAGE_APP,    /* /app/ID/kill */
    HEARTH_PAGE_DRIVER, /* /driver/ID/kill */
} hearth_page_kind_t;

/* The path a kill of kind id POSTs to, "/app/ID/kill", into buf (ids are
   written as they are: the caller gives only valid ids).  Returns buf. */
char *hearth_page_kill_path (hearth_page_kind_t kind, const char *id, char *buf,
                             size_t size);

/* The page that asks to confirm the kill of kind id: what it is (name,
   state, user or worker, cores), what a kill does, and a form that POSTs
   to its kill path with value, the anti-forgery value, in the field
   field (no script: a button); a Cancel link back.  One that has
   ended: a page saying so, with no form (200).  404 when id is not in
   state. */
char *hearth_page_kill_confirm (const cJSON *state, hearth_page_kind_t kind,
                                const char *id, const char *field,
                                const char *value, int *status);

/* The page that says how a kill of kind id went: message (a sentence),
   and links back to the thing's page (an application's) and the
   master's. */
char *hearth_page_kill_result (hearth_page_kind_t kind, const char *id,
                               const char *message);

/* A worker's page: its resources, executors and drivers (ended ones too)
   with links to their stdout and stderr. */
char *hearth_page_worker (const cJSON *wstate, int *status);

/* A log's page: len bytes of text (any bytes; NUL allowed) that start at
   offset of a file of total bytes, in a <pre>, with links to the
   previous, next and last part.  what names the log's owner ("app-…
   executor 3"), stream is stdout or stderr, query the log's query string
   without offset and length (app=…&exec=…&stream=…), to which the links
   add theirs.  text NULL: no such log (404).  wstate may be NULL. */
char *hearth_page_log (const cJSON *wstate, const char *what,
                       const char *stream, const char *text, size_t len,
                       int64_t offset, int64_t total, const char *query,
                       int *status);

/* hearth-history's pages (docs/history.md, "Pages"), from the documents
   `hearth-history --json` prints (history/list.c's, history/appview.c's).

   The listing: doc is the listing's document ({"dir", "time_ms",
   "applications": [...]}), newest first as given, each id a link to
   app/ID; a form of the filters holding state, since and name (the
   request's, each NULL when not given); warnings (NULL or "") the
   reader's complaints about files of the directory, shown as text.
   Always 200. */
char *hearth_page_history_list (const cJSON *doc, const char *state,
                                const char *since, const char *name,
                                const char *warnings, int *status);

/* One application's summary: its state and reason, its timeline (the
   SVG of libcore/timeline.h, written as it is; NULL: none), tasks,
   accounting, jobs, stages, the slowest attempts, failures, executors
   and settings.  404 when doc has no id. */
char *hearth_page_history_app (const cJSON *doc, const char *timeline,
                               int *status);

#endif

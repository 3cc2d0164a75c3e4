/*  web.c - hearth-history's server: a loop (libcore/loop.h) with the web
    module's server and a signalfd, and the routes; see web.h.

    Routes: / (the listing page, filters as query arguments), /app/ID
    (one application's page), /api/v1/apps and /api/v1/apps/ID (the
    documents --json prints, byte for byte but their clock), /favicon.ico
    (204).  Bad filters answer 400, an unknown application 404, each with
    a short text; a directory that cannot be read 500.  The pages are
    libcore/webpage_history.c's renderers of those same documents. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "history/appview.h"
#include "history/list.h"
#include "history/web.h"
#include "libcore/log.h"
#include "libcore/loop.h"
#include "libcore/sock.h"
#include "libcore/spawn.h"
#include "libcore/web.h"
#include "libcore/webpage.h"

static const char *const s_json_type = "application/json";

/* The shown states a state filter takes (main.c's --state). */
static const char *const s_states[] = {"RUNNING", "FINISHED", "FAILED",
                                       "KILLED"};

/* Most states one filter may list. */
#define S_MAX_STATES 16

/* A request's filters, parsed from its query arguments. */
typedef struct {
    char buf[256];                    /* the state argument, split */
    const char *states[S_MAX_STATES]; /* the states kept */
    size_t nstates;                   /* entries of states (0: all) */
    int64_t since_ms;                 /* -1: all */
    const char *state, *since, *name; /* the arguments as given, or NULL */
} s_filter_t;

static int64_t
s_now_ms (void)
{
    struct timeval tv;
    gettimeofday (&tv, NULL);
    return (int64_t) tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The argument, NULL when absent or empty (a form's "any"). */
static const char *
s_arg (const hearth_web_request_t *req, const char *name)
{
    const char *v = hearth_web_arg (req, name);
    return v && *v ? v : NULL;
}

/* Parse req's state, since and name into f: 0, or -1 with err's text. */
static int
s_filter (const hearth_web_request_t *req, s_filter_t *f, hearth_error_t *err)
{
    *f = (s_filter_t){.since_ms = -1};
    f->state = s_arg (req, "state");
    f->since = s_arg (req, "since");
    f->name = s_arg (req, "name");
    if (f->state && strlen (f->state) >= sizeof f->buf)
        return hearth_errprintf (err, "bad state: too long");
    char *save = NULL;
    snprintf (f->buf, sizeof f->buf, "%s", f->state ? f->state : "");
    for (char *s = strtok_r (f->buf, ",", &save); s;
         s = strtok_r (NULL, ",", &save)) {
        bool known = false;
        for (size_t k = 0; k < sizeof s_states / sizeof s_states[0]; k++)
            known |= strcasecmp (s, s_states[k]) == 0;
        if (!known || f->nstates == S_MAX_STATES)
            return hearth_errprintf (err,
                                     "bad state '%.64s' (RUNNING, FINISHED, "
                                     "FAILED or KILLED)",
                                     s);
        f->states[f->nstates++] = s;
    }
    if (f->since
        && hist_parse_since (f->since, s_now_ms (), &f->since_ms, err) < 0)
        return -1;
    return 0;
}

/* The listing's document for f (new), its warnings into *warn (new
   text, or NULL); NULL with the reason in *warn when nothing can be
   listed. */
static cJSON *
s_listing (const hist_web_opts_t *o, const s_filter_t *f, char **warn)
{
    size_t len = 0;
    FILE *mem = open_memstream (warn, &len);
    if (!mem) {
        *warn = NULL;
        return NULL;
    }
    hist_list_opts_t lo = {.dir = o->dir,
                           .states = f->states,
                           .nstates = f->nstates,
                           .since_ms = f->since_ms,
                           .name_glob = f->name,
                           .stale_ms = o->stale_ms,
                           .no_index = o->no_index};
    int status;
    cJSON *doc = hist_list_json (&lo, mem, &status);
    if (fclose (mem) != 0 || len == 0) {
        free (*warn);
        *warn = NULL;
    }
    return doc;
}

/* Answer rep with doc as --json prints it (doc deleted). */
static void
s_reply_json (hearth_web_reply_t *rep, cJSON *doc)
{
    char *text = cJSON_PrintUnformatted (doc);
    cJSON_Delete (doc);
    size_t len = text ? strlen (text) : 0;
    char *body = text ? realloc (text, len + 2) : NULL;
    if (!body) {
        free (text);
        hearth_web_reply_text (rep, 500, "500 out of memory\n");
        return;
    }
    memcpy (body + len, "\n", 2);
    hearth_web_reply (rep, 200, s_json_type, body, len + 1);
}

/* / and /api/v1/apps. */
static void
s_list (const hist_web_opts_t *o, const hearth_web_request_t *req,
        hearth_web_reply_t *rep, bool json)
{
    s_filter_t f;
    hearth_error_t err;
    if (s_filter (req, &f, &err) < 0) {
        hearth_web_reply_text (rep, 400, "400 %s\n", err.text);
        return;
    }
    char *warn = NULL;
    cJSON *doc = s_listing (o, &f, &warn);
    int status;
    if (!doc)
        hearth_web_reply_text (rep, 500, "500 %s",
                               warn ? warn : "out of memory\n");
    else if (json)
        s_reply_json (rep, doc);
    else {
        char *page = hearth_page_history_list (doc, f.state, f.since, f.name,
                                               warn, &status);
        hearth_web_reply_html (rep, page, status);
        cJSON_Delete (doc);
    }
    free (warn);
}

/* /app/ID and /api/v1/apps/ID.  An id is looked up among the logs of
   the directory (scan.c), never opened as a path; one with a '/' (the
   path decoded) is no id. */
static void
s_app (const hist_web_opts_t *o, const char *id, hearth_web_reply_t *rep,
       bool json)
{
    hearth_error_t err;
    bool missing;
    if (!*id || strchr (id, '/')) {
        hearth_web_reply_text (rep, 404, "404 no such application\n");
        return;
    }
    char *svg = NULL;
    cJSON *doc = hist_appview_doc (o->dir, id, o->top, o->stale_ms,
                                   json ? NULL : &svg, &missing, &err);
    int status;
    if (!doc)
        hearth_web_reply_text (rep, missing ? 404 : 500, "%d %s\n",
                               missing ? 404 : 500, err.text);
    else if (json)
        s_reply_json (rep, doc);
    else {
        char *page = hearth_page_history_app (doc, svg, &status);
        hearth_web_reply_html (rep, page, status);
        cJSON_Delete (doc);
    }
    free (svg);
}

static void
s_on_page (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    s_list (arg, req, rep, false);
}

static void
s_on_api_list (void *arg, const hearth_web_request_t *req,
               hearth_web_reply_t *rep)
{
    s_list (arg, req, rep, true);
}

static void
s_on_app_page (void *arg, const hearth_web_request_t *req,
               hearth_web_reply_t *rep)
{
    s_app (arg, hearth_web_path (req) + strlen ("/app/"), rep, false);
}

static void
s_on_api_app (void *arg, const hearth_web_request_t *req,
              hearth_web_reply_t *rep)
{
    s_app (arg, hearth_web_path (req) + strlen ("/api/v1/apps/"), rep, true);
}

static const hearth_web_route_t s_routes[] = {
    {"/", false, s_on_page},
    {"/app/", true, s_on_app_page},
    {"/api/v1/apps", false, s_on_api_list},
    {"/api/v1/apps/", true, s_on_api_app},
    {"/favicon.ico", false, hearth_web_no_content},
    {NULL, false, NULL},
};

static int
s_on_signal (hearth_loop_t *loop, int fd, void *arg)
{
    (void) loop;
    (void) arg;
    int sig = hearth_signalfd_read (fd);
    if (sig <= 0)
        return 0;
    log_info ("%s: stopping", strsignal (sig));
    return -1;
}

int
hist_web_serve (const hearth_conf_t *conf, const hist_web_opts_t *o)
{
    static const int sigs[] = {SIGTERM, SIGINT, 0};
    hearth_error_t err;
    hearth_web_t *web = NULL;
    int rc = 1;
    int sigfd = hearth_signalfd_open (sigs);
    if (sigfd < 0) {
        fprintf (stderr, "hearth-history: signalfd: %s\n", strerror (errno));
        return 1;
    }
    hearth_log_open ("hearth-history", "info", NULL, NULL);
    hearth_zsys_init ();
    hearth_loop_t *loop = hearth_loop_new ();
    if (!loop || hearth_loop_fd (loop, sigfd, s_on_signal, NULL) < 0)
        fprintf (stderr, "hearth-history: cannot set up the event loop\n");
    else if (hearth_web_start (loop, conf, "history", NULL, s_routes,
                               (void *) o, &web, &err)
             < 0)
        fprintf (stderr, "hearth-history: %s\n", err.text);
    else if (web) {
        printf ("%s\n", hearth_web_url (web));
        fflush (stdout);
        hearth_loop_start (loop);
        rc = 0;
    }
    hearth_web_destroy (&web); /* its descriptor and timer are the loop's */
    hearth_loop_destroy (&loop);
    close (sigfd);
    return rc;
}

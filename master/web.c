/*  web.c - the master's web server: its options and routes; see web.h.
    Every route answers from the registry as it is when the request is
    answered, on the loop's thread: the pages and /api/v1/state from
    master_state_json's document, /json and /metrics written straight
    from the records (webjson.c, webmetrics.c). */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/log.h"
#include "libcore/sock.h"
#include "libcore/web.h"
#include "libcore/webpage.h"
#include "master/registry.h"
#include "master/state.h"
#include "master/web.h"

static const char *const s_json_type = "application/json";

/* Answer rep with doc printed (doc is deleted). */
static void
s_reply_json (hearth_web_reply_t *rep, cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted (doc) : NULL;
    cJSON_Delete (doc);
    if (!text) {
        hearth_web_reply_text (rep, 500, "500 out of memory\n");
        return;
    }
    hearth_web_reply (rep, 200, s_json_type, text, strlen (text));
    /* as MASTER_STATE's answer does (state.c): the tree's pages back */
    malloc_trim (0);
}

static void
s_state (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    (void) req;
    s_reply_json (rep, master_state_json (arg));
}

static void
s_spark (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    (void) req;
    size_t len;
    char *text = master_web_spark_json (arg, &len);
    if (!text)
        hearth_web_reply_text (rep, 500, "500 out of memory\n");
    else
        hearth_web_reply (rep, 200, s_json_type, text, len);
}

static void
s_metrics (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    (void) req;
    size_t len;
    char *text = master_web_metrics (arg, &len);
    if (!text)
        hearth_web_reply_text (rep, 500, "500 out of memory\n");
    else
        hearth_web_reply (rep, 200, "text/plain; version=0.0.4; charset=utf-8",
                          text, len);
}

/* The SVG of app_id's timeline, or NULL (no such application, no
   timeline from its driver, no memory: the page says there is none).
   Its axis runs on past the driver's last report by the time since it
   arrived, to now or to the application's end. */
static char *
s_timeline (master_t *m, const char *app_id)
{
    reg_app_t *app = registry_app (m->reg, app_id);
    if (!app || !app->timeline)
        return NULL;
    int64_t arrived = hearth_json_int (app->progress, "time_ms", 0);
    int64_t until =
        app->state <= APP_RUNNING ? registry_wall_ms () : app->end_ms;
    return hearth_tllive_svg (
        app->timeline, arrived > 0 && until > arrived ? until - arrived : 0);
}

/* / and /app/ID: the pages (/app/ID/...: a kill, webkill.c). */
static void
s_page (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    master_t *m = arg;
    const char *path = hearth_web_path (req);
    bool app = strncmp (path, "/app/", 5) == 0;
    if (app && strchr (path + 5, '/')) {
        master_web_kill (m, req, rep, HEARTH_PAGE_APP, path + 5);
        return;
    }
    if (strcmp (hearth_web_method (req), "POST") == 0) { /* a POST route */
        hearth_web_reply_header (rep, "Allow", "GET, HEAD");
        hearth_web_reply_text (rep, 405, "405 method not allowed: POST\n");
        return;
    }
    cJSON *state = master_state_json (m);
    int status = 500;
    char *page = NULL;
    bool kill = master_web_kill_on (m);
    if (state && app) {
        char *timeline = s_timeline (m, path + 5);
        page = hearth_page_app (state, path + 5, timeline, kill, &status);
        free (timeline);
    }
    else if (state)
        page = hearth_page_master (state, kill, &status);
    cJSON_Delete (state);
    hearth_web_reply_html (rep, page, status);
}

/* /driver/ID/...: a kill of a cluster-mode driver (webkill.c). */
static void
s_driver (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    master_web_kill (arg, req, rep, HEARTH_PAGE_DRIVER,
                     hearth_web_path (req) + strlen ("/driver/"));
}

static const hearth_web_route_t s_routes[] = {
    {"/", false, s_page},
    {"/app/", true, s_page, .post = true},
    {"/driver/", true, s_driver, .post = true},
    {"/api/v1/state", false, s_state},
    {"/json", false, s_spark},
    {"/json/", false, s_spark},
    {"/metrics", false, s_metrics},
    {"/favicon.ico", false, hearth_web_no_content},
    {NULL, false, NULL},
};

int
master_web_open (master_t *m, hearth_error_t *err)
{
    char host[256];
    int router_port;
    if (hearth_url_split (m->url, host, sizeof host, &router_port, NULL) < 0)
        snprintf (host, sizeof host, "127.0.0.1");
    return hearth_web_start (m->loop, m->conf, "master", host, s_routes, m,
                             &m->web, err);
}

void
master_web_close (master_t *m)
{
    hearth_web_destroy (&m->web);
    zhashx_destroy (&m->metrics.tasks_seen);
}

/*  web.c - the worker's web server: options, routes and its state
    document; see web.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcore/log.h"
#include "libcore/proto.h"
#include "libcore/web.h"
#include "libcore/webpage.h"
#include "worker/web.h"
#include "worker/webjson.h"
#include "worker/weblog.h"
#include "worker/webstate.h"

static int64_t
s_wall_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *
s_state_name (const worker_t *w)
{
    return w->stopping         ? "STOPPING"
           : worker_linked (w) ? "REGISTERED"
                               : "CONNECTING";
}

/* The addresses the worker offers, and which of its executors holds
   each: the master's worker view's resources and resources_held. */
static void
s_add_resources (worker_t *w, cJSON *o)
{
    if (!w->resources.n)
        return;
    cJSON_AddItemToObject (o, "resources",
                           hearth_resources_to_json (&w->resources));
    cJSON *held = cJSON_AddObjectToObject (o, "resources_held");
    cJSON *execs = children_json (w->children, &execs_kind), *e, *r, *a;
    cJSON_ArrayForEach (e, execs)
    {
        char who[HEARTH_ID_MAX + 32];
        snprintf (who, sizeof who, "%s/%d", hearth_json_str (e, "app_id"),
                  (int) hearth_json_int (e, "exec_id", 0));
        cJSON_ArrayForEach (r, cJSON_GetObjectItem (e, "resources"))
        {
            cJSON *by = cJSON_GetObjectItem (held, r->string);
            if (!by)
                by = cJSON_AddObjectToObject (held, r->string);
            cJSON_ArrayForEach (a, r)
            {
                if (cJSON_IsString (a) && by)
                    cJSON_AddStringToObject (by, a->valuestring, who);
            }
        }
    }
    cJSON_Delete (execs);
}

cJSON *
worker_web_state (worker_t *w)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    int cores;
    int64_t memory;
    children_usage (w->children, &cores, &memory);
    cJSON_AddStringToObject (o, "id", w->id);
    cJSON_AddStringToObject (o, "host", w->host);
    cJSON_AddStringToObject (o, "state", s_state_name (w));
    cJSON_AddStringToObject (o, "master", worker_master_url (w));
    if (w->web)
        cJSON_AddStringToObject (o, "web_url", hearth_web_url (w->web));
    if (w->master_web_url[0])
        cJSON_AddStringToObject (o, "master_web_url", w->master_web_url);
    cJSON_AddNumberToObject (o, "started_ms", (double) w->started_ms);
    cJSON_AddNumberToObject (o, "time_ms", (double) s_wall_ms ());
    cJSON_AddNumberToObject (o, "cores", w->cores);
    cJSON_AddNumberToObject (o, "cores_used", cores);
    cJSON_AddNumberToObject (o, "memory_mb", (double) w->memory_mb);
    cJSON_AddNumberToObject (o, "memory_used_mb", (double) memory);
    cJSON_AddNumberToObject (
        o, "persisted_bytes",
        w->shuffle ? (double) shuffle_persisted_bytes (w->shuffle) : 0);
    cJSON_AddNumberToObject (o, "shuffle_bytes",
                             w->shuffle ? (double) shuffle_bytes (w->shuffle)
                                        : 0);
    s_add_resources (w, o);
    cJSON_AddItemToObject (o, "executors", webstate_json (w->webstate, false));
    cJSON_AddItemToObject (o, "drivers", webstate_json (w->webstate, true));
    return o;
}

/* The document make builds, as the reply; a 503 while the worker stops
   (it killed its children: about to exit), a 500 on no memory. */
static void
s_reply_json (worker_t *w, cJSON *(*make) (worker_t *), hearth_web_reply_t *rep)
{
    if (!w->children) {
        hearth_web_reply_text (rep, 503, "503 the worker is stopping\n");
        return;
    }
    cJSON *doc = make (w);
    char *text = doc ? cJSON_PrintUnformatted (doc) : NULL;
    cJSON_Delete (doc);
    if (!text)
        hearth_web_reply_text (rep, 500, "500 out of memory\n");
    else
        hearth_web_reply (rep, 200, "application/json", text, strlen (text));
}

static void
s_state (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    (void) req;
    s_reply_json (arg, worker_web_state, rep);
}

/* Spark's worker document, from the state document. */
static cJSON *
s_spark_doc (worker_t *w)
{
    cJSON *state = worker_web_state (w);
    cJSON *doc = state ? webjson_spark (state) : NULL;
    cJSON_Delete (state);
    return doc;
}

/* /json: Spark's worker document. */
static void
s_spark (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    (void) req;
    s_reply_json (arg, s_spark_doc, rep);
}

/* The arguments of /log and /logpage. */
static weblog_args_t
s_log_args (const hearth_web_request_t *req)
{
    return (weblog_args_t){
        hearth_web_arg (req, "app"),    hearth_web_arg (req, "exec"),
        hearth_web_arg (req, "driver"), hearth_web_arg (req, "stream"),
        hearth_web_arg (req, "offset"), hearth_web_arg (req, "length")};
}

static void
s_log (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    worker_t *w = arg;
    weblog_args_t a = s_log_args (req);
    weblog_t log;
    if (weblog_read (w->work_dir, &a, &log) != 200) {
        hearth_web_reply_text (rep, log.status, "%d %s\n", log.status,
                               log.error);
        return;
    }
    char num[32];
    snprintf (num, sizeof num, "%lld", (long long) log.offset);
    hearth_web_reply_header (rep, "X-Hearth-Offset", num);
    snprintf (num, sizeof num, "%lld", (long long) log.total);
    hearth_web_reply_header (rep, "X-Hearth-Total", num);
    w->log_bytes_served += log.len;
    hearth_web_reply (rep, 200, "text/plain; charset=utf-8", log.data, log.len);
}

static void
s_metrics (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    (void) req;
    worker_t *w = arg;
    size_t len;
    char *text = w->children ? worker_web_metrics (w, &len) : NULL;
    if (!text)
        hearth_web_reply_text (rep, 503, "503 no metrics now\n");
    else
        hearth_web_reply (rep, 200, "text/plain; version=0.0.4; charset=utf-8",
                          text, len);
}

static void
s_page (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    (void) req;
    worker_t *w = arg;
    if (!w->children) { /* as s_state */
        hearth_web_reply_text (rep, 503, "503 the worker is stopping\n");
        return;
    }
    cJSON *doc = worker_web_state (w);
    int status = 500;
    char *page = doc ? hearth_page_worker (doc, &status) : NULL;
    cJSON_Delete (doc);
    hearth_web_reply_html (rep, page, status);
}

/* /logpage: /log's bytes (same arguments) as HTML; a bad request is
   answered as /log answers it, a missing log by a page saying so. */
static void
s_logpage (void *arg, const hearth_web_request_t *req, hearth_web_reply_t *rep)
{
    worker_t *w = arg;
    weblog_args_t a = s_log_args (req);
    weblog_t log;
    if (!w->children) { /* as s_state */
        hearth_web_reply_text (rep, 503, "503 the worker is stopping\n");
        return;
    }
    int rc = weblog_read (w->work_dir, &a, &log);
    if (rc != 200 && rc != 404) {
        hearth_web_reply_text (rep, log.status, "%d %s\n", log.status,
                               log.error);
        return;
    }
    /* the arguments read are valid ids: the links need no encoding */
    char query[512];
    if (a.driver)
        snprintf (query, sizeof query, "driver=%s&stream=%s", a.driver,
                  a.stream);
    else
        snprintf (query, sizeof query, "app=%s&exec=%s&stream=%s", a.app,
                  a.exec, a.stream);
    cJSON *doc = worker_web_state (w);
    int status = 500;
    char *page = hearth_page_log (
        doc, log.what, a.stream, rc == 200 ? (log.data ? log.data : "") : NULL,
        log.len, log.offset, log.total, query, &status);
    cJSON_Delete (doc);
    w->log_bytes_served += log.len;
    free (log.data);
    hearth_web_reply_html (rep, page, status);
}

static const hearth_web_route_t s_routes[] = {
    {"/", false, s_page},
    {"/logpage", false, s_logpage},
    {"/api/v1/state", false, s_state},
    {"/json", false, s_spark},
    {"/json/", false, s_spark},
    {"/log", false, s_log},
    {"/metrics", false, s_metrics},
    {"/favicon.ico", false, hearth_web_no_content},
    {NULL, false, NULL},
};

int
worker_web_open (worker_t *w, hearth_error_t *err)
{
    return hearth_web_start (w->loop, w->conf, "worker", w->host, s_routes, w,
                             &w->web, err);
}

void
worker_web_close (worker_t *w)
{
    hearth_web_destroy (&w->web);
}

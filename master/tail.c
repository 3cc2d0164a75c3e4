/*  tail.c - hearth-tail: follow a master's events like `tail -f`, or print
    the cluster's state once.

        hearth-tail --master tcp://HOST:PORT [--topic T]... [--json] [--count N]
        hearth-tail --master tcp://HOST:PORT --state [--json]

    The events URL comes from the master's MASTER_STATE answer (unless
    --events gives it), so --master is all a user needs to know.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "libcore/conf.h"
#include "libcore/curve.h"
#include "libcore/log.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "libcore/start.h"

#define OPT(n, t, d, mv, h)                                                    \
    {                                                                          \
        .name = n, .type = t, .dflt = d, .metavar = mv, .help = h              \
    }

static const hearth_opt_t s_opts[] = {
    OPT ("master", HEARTH_OPT_STR, NULL, "URL",
         "the master's ROUTER URL, tcp://HOST:PORT"),
    OPT ("events", HEARTH_OPT_STR, NULL, "URL",
         "the master's events URL (default: asked from the master)"),
    OPT ("topic", HEARTH_OPT_LIST, NULL, "TOPIC",
         "only these topics: heartbeat, worker, app, executor, driver, "
         "master (repeatable)"),
    OPT ("json", HEARTH_OPT_BOOL, NULL, NULL, "print raw JSON"),
    {.name = "count",
     .type = HEARTH_OPT_INT,
     .metavar = "N",
     .help = "exit after N events",
     .min = 0,
     .max = 1000000000},
    OPT ("state", HEARTH_OPT_BOOL, NULL, NULL,
         "print the cluster's state once and exit"),
    OPT ("timeout", HEARTH_OPT_DURATION, "5s", NULL,
         "how long to wait for the master's answer"),
    HEARTH_CURVE_CLIENT_OPTIONS,
    OPT ("log-level", HEARTH_OPT_STR, "warn", "LEVEL",
         "error, warn, info or debug"),
    {.name = NULL},
};

/* The program's context. */
typedef struct {
    hearth_conf_t *conf;  /* settings (owned) */
    zsock_t *dealer;      /* to the master, for MASTER_STATE */
    zsock_t *sub;         /* the master's events */
    hearth_curve_t curve; /* keys, when the cluster has them */
} tail_t;

/* --- MASTER_STATE ------------------------------------------------------ */

/* Ask the master for its state.  Returns the body (caller deletes), or
   NULL with err. */
static cJSON *
s_master_state (tail_t *t, hearth_error_t *err)
{
    const char *url = hearth_conf_str (t->conf, "master");
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&t->curve, &opts);
    if (!t->dealer
        && (!(t->dealer = hearth_sock_new (&opts, err))
            || hearth_sock_connect (t->dealer, url, err) < 0))
        return NULL;
    hearth_msg_t *req = hearth_msg_new (HEARTH_CMD_MASTER_STATE);
    if (!req || hearth_msg_send (&req, t->dealer, NULL, err) < 0)
        return NULL;
    zpoller_t *poller = zpoller_new (t->dealer, NULL);
    int64_t timeout = hearth_conf_ms (t->conf, "timeout");
    void *ready = zpoller_wait (poller, (int) timeout);
    zpoller_destroy (&poller);
    if (!ready) {
        hearth_errprintf (err, "no answer from the master at %s within %lld ms",
                          url, (long long) timeout);
        return NULL;
    }
    hearth_msg_t *reply = hearth_msg_recv (t->dealer, NULL, err);
    if (!reply)
        return NULL;
    if (reply->cmd != HEARTH_CMD_MASTER_STATE_RESPONSE) {
        hearth_errprintf (err, "the master answered %s: %s",
                          hearth_cmd_name (reply->cmd),
                          hearth_json_str (reply->body, "message")
                              ? hearth_json_str (reply->body, "message")
                              : "");
        hearth_msg_destroy (&reply);
        return NULL;
    }
    cJSON *body = reply->body;
    reply->body = NULL;
    hearth_msg_destroy (&reply);
    return body;
}

static double
s_num (const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsNumber (v) ? v->valuedouble : 0;
}

static const char *
s_str (const cJSON *o, const char *name)
{
    const char *s = hearth_json_str (o, name);
    return s ? s : "-";
}

static void
s_print_workers (const cJSON *state)
{
    const cJSON *w;
    printf ("WORKERS\n%-44s %-16s %-7s %-11s %-17s %s\n", "ID", "HOST", "STATE",
            "CORES", "MEMORY (MiB)", "LAST HEARTBEAT");
    cJSON_ArrayForEach (w, cJSON_GetObjectItem (state, "workers"))
    {
        char cores[32], mem[48];
        snprintf (cores, sizeof cores, "%.0f/%.0f", s_num (w, "cores_used"),
                  s_num (w, "cores"));
        snprintf (mem, sizeof mem, "%.0f/%.0f", s_num (w, "memory_used_mb"),
                  s_num (w, "memory_mb"));
        printf ("%-44s %-16s %-7s %-11s %-17s %.0f ms ago\n", s_str (w, "id"),
                s_str (w, "host"), s_str (w, "state"), cores, mem,
                s_num (w, "heartbeat_age_ms"));
    }
}

static void
s_print_apps (const cJSON *state)
{
    const cJSON *a, *e;
    printf ("\nAPPLICATIONS\n%-26s %-20s %-9s %-7s %s\n", "ID", "NAME", "STATE",
            "CORES", "MAX");
    cJSON_ArrayForEach (a, cJSON_GetObjectItem (state, "apps"))
    {
        const cJSON *max = cJSON_GetObjectItem (a, "max_cores");
        char maxtext[16];
        snprintf (maxtext, sizeof maxtext, "%.0f", s_num (a, "max_cores"));
        printf ("%-26s %-20s %-9s %-7.0f %s\n", s_str (a, "id"),
                s_str (a, "name"), s_str (a, "state"),
                s_num (a, "cores_granted"),
                cJSON_IsNumber (max) ? maxtext : "-");
        if (hearth_json_str (a, "waiting")) /* its key's core limit */
            printf ("  waiting: %s\n", s_str (a, "waiting"));
    }
    printf ("\nEXECUTORS\n%-26s %-5s %-44s %-6s %-8s %s\n", "APP", "EXEC",
            "WORKER", "CORES", "MEMORY", "STATE");
    cJSON_ArrayForEach (a, cJSON_GetObjectItem (state, "apps"))
    {
        cJSON_ArrayForEach (e, cJSON_GetObjectItem (a, "executors"))
        {
            printf ("%-26s %-5.0f %-44s %-6.0f %-8.0f %s\n", s_str (a, "id"),
                    s_num (e, "exec_id"), s_str (e, "worker_id"),
                    s_num (e, "cores"), s_num (e, "memory_mb"),
                    s_str (e, "state"));
        }
    }
}

static void
s_print_drivers (const cJSON *state)
{
    const cJSON *d;
    printf ("\nDRIVERS\n%-28s %-11s %-44s %-5s %-8s %-8s %s\n", "ID", "STATE",
            "WORKER", "CORES", "MEMORY", "LAUNCHES", "APP");
    cJSON_ArrayForEach (d, cJSON_GetObjectItem (state, "drivers"))
    {
        char launches[32];
        snprintf (launches, sizeof launches, "%.0f%s", s_num (d, "launches"),
                  cJSON_IsTrue (cJSON_GetObjectItem (d, "supervise")) ? " (s)"
                                                                      : "");
        printf ("%-28s %-11s %-44s %-5.0f %-8.0f %-8s %s\n", s_str (d, "id"),
                s_str (d, "state"), s_str (d, "worker_id"), s_num (d, "cores"),
                s_num (d, "memory_mb"), launches, s_str (d, "app_id"));
    }
}

static int
s_state (tail_t *t)
{
    hearth_error_t err;
    cJSON *state = s_master_state (t, &err);
    if (!state) {
        fprintf (stderr, "hearth-tail: %s\n", err.text);
        return 1;
    }
    if (hearth_conf_bool (t->conf, "json")) {
        char *text = cJSON_PrintUnformatted (state);
        printf ("%s\n", text ? text : "{}");
        free (text);
    }
    else {
        printf ("MASTER %s  %s  %s\n\n", s_str (state, "url"),
                s_str (state, "status"), s_str (state, "policy"));
        s_print_workers (state);
        s_print_apps (state);
        s_print_drivers (state);
    }
    cJSON_Delete (state);
    return 0;
}

/* --- following events -------------------------------------------------- */

static void
s_stamp (double ms, char *buf, size_t size)
{
    time_t sec = (time_t) (ms / 1000);
    struct tm tm;
    if (ms <= 0) {
        struct timeval tv;
        gettimeofday (&tv, NULL);
        sec = tv.tv_sec;
        ms = (double) tv.tv_sec * 1000 + tv.tv_usec / 1000;
    }
    gmtime_r (&sec, &tm);
    snprintf (buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
              tm.tm_min, tm.tm_sec, (int) ((int64_t) ms % 1000));
}

/* One readable line describing the event. */
static void
s_describe (const char *topic, const cJSON *e, char *buf, size_t size)
{
    const cJSON *w = cJSON_GetObjectItem (e, "worker");
    const cJSON *a = cJSON_GetObjectItem (e, "app");
    const cJSON *x = cJSON_GetObjectItem (e, "executor");
    const cJSON *d = cJSON_GetObjectItem (e, "driver");
    const char *what = s_str (e, "event");
    if (strcmp (topic, "heartbeat") == 0 && w)
        snprintf (buf, size,
                  "worker %s %s cores %.0f/%.0f used, memory %.0f/%.0f MiB, "
                  "heartbeat age %.0f ms",
                  s_str (w, "id"), s_str (w, "host"), s_num (w, "cores_used"),
                  s_num (w, "cores"), s_num (w, "memory_used_mb"),
                  s_num (w, "memory_mb"), s_num (w, "heartbeat_age_ms"));
    else if (strcmp (topic, "heartbeat") == 0)
        snprintf (buf, size, "driver of %s", s_str (e, "app_id"));
    else if (w)
        snprintf (buf, size, "%s %s %s %s cores %.0f/%.0f%s%s", what,
                  s_str (w, "id"), s_str (w, "host"), s_str (w, "state"),
                  s_num (w, "cores_used"), s_num (w, "cores"),
                  hearth_json_str (e, "reason") ? ": " : "",
                  hearth_json_str (e, "reason") ? s_str (e, "reason") : "");
    else if (a) {
        const char *why = hearth_json_str (a, "reason")
                              ? hearth_json_str (a, "reason")
                              : hearth_json_str (a, "waiting");
        snprintf (buf, size, "%s %s (%s) %s cores %.0f%s%s", what,
                  s_str (a, "id"), s_str (a, "name"), s_str (a, "state"),
                  s_num (a, "cores_granted"), why ? ": " : "", why ? why : "");
    }
    else if (x)
        snprintf (buf, size, "%s %s/%.0f on %s: %s, %.0f cores%s%s", what,
                  s_str (x, "app_id"), s_num (x, "exec_id"),
                  s_str (x, "worker_id"), s_str (x, "state"),
                  s_num (x, "cores"),
                  hearth_json_str (e, "message") ? ", " : "",
                  hearth_json_str (e, "message") ? s_str (e, "message") : "");
    else if (d)
        snprintf (buf, size, "%s %s %s on %s, launch %.0f%s%s", what,
                  s_str (d, "id"), s_str (d, "state"), s_str (d, "worker_id"),
                  s_num (d, "launches"),
                  hearth_json_str (d, "error") ? ": " : "",
                  hearth_json_str (d, "error") ? s_str (d, "error") : "");
    else if (strcmp (topic, "master") == 0)
        snprintf (buf, size, "%s %s %s%s%s", what, s_str (e, "url"),
                  s_str (e, "status"),
                  hearth_json_str (e, "reason") ? ": " : "",
                  hearth_json_str (e, "reason") ? s_str (e, "reason") : "");
    else
        snprintf (buf, size, "%s %s", what, s_str (e, "url"));
}

static void
s_print_event (tail_t *t, const char *topic, const char *text)
{
    if (hearth_conf_bool (t->conf, "json")) {
        printf ("%s\n", text);
        fflush (stdout);
        return;
    }
    cJSON *e = cJSON_Parse (text);
    char stamp[96], line[1024];
    s_stamp (s_num (e, "time_ms"), stamp, sizeof stamp);
    if (e)
        s_describe (topic, e, line, sizeof line);
    else
        snprintf (line, sizeof line, "%s", text);
    printf ("%s %-9s %s\n", stamp, topic, line);
    fflush (stdout);
    cJSON_Delete (e);
}

static int
s_subscribe (tail_t *t, hearth_error_t *err)
{
    char url[600];
    const char *events = hearth_conf_str (t->conf, "events");
    if (!events) {
        cJSON *state = s_master_state (t, err);
        if (!state)
            return -1;
        snprintf (url, sizeof url, "%s", s_str (state, "events_url"));
        cJSON_Delete (state);
        events = url;
    }
    hearth_sock_opts_t opts = {.type = ZMQ_SUB};
    hearth_curve_client_opts (&t->curve, &opts);
    if (!(t->sub = hearth_sock_new (&opts, err))
        || hearth_sock_connect (t->sub, events, err) < 0)
        return -1;
    const char *const *topics;
    size_t n = hearth_conf_list (t->conf, "topic", &topics);
    for (size_t i = 0; i < n; i++)
        zsock_set_subscribe (t->sub, topics[i]);
    if (n == 0)
        zsock_set_subscribe (t->sub, "");
    return 0;
}

/* True when the frame is exactly one of the wanted topics (SUB filters
   by prefix only). */
static bool
s_wanted (tail_t *t, const char *topic)
{
    const char *const *topics;
    size_t n = hearth_conf_list (t->conf, "topic", &topics);
    for (size_t i = 0; i < n; i++)
        if (strcmp (topics[i], topic) == 0)
            return true;
    return n == 0;
}

static int
s_follow (tail_t *t)
{
    hearth_error_t err;
    if (s_subscribe (t, &err) < 0) {
        fprintf (stderr, "hearth-tail: %s\n", err.text);
        return 1;
    }
    int64_t count = hearth_conf_isset (t->conf, "count")
                        ? hearth_conf_int (t->conf, "count")
                        : -1;
    int64_t seen = 0;
    while (count < 0 || seen < count) {
        zmsg_t *msg = zmsg_recv (t->sub);
        if (!msg)
            break;
        char *topic = zmsg_popstr (msg);
        char *text = zmsg_popstr (msg);
        if (topic && text && s_wanted (t, topic)) {
            s_print_event (t, topic, text);
            seen++;
        }
        free (topic);
        free (text);
        zmsg_destroy (&msg);
    }
    return 0;
}

static int
s_parse (tail_t *t, int argc, char **argv)
{
    int rc = hearth_start (t->conf, argc, argv,
                           "--master URL [--topic T]... [--json] [--count N]\n"
                           "       hearth-tail --master URL --state [--json]",
                           "Follow a Hearth master's events, or print the "
                           "cluster's state once.");
    if (rc == 1 && !hearth_conf_str (t->conf, "master")) {
        fprintf (stderr, "hearth-tail: --master URL is required (or "
                         "HEARTH_MASTER)\n");
        return -1;
    }
    return rc;
}

int
main (int argc, char **argv)
{
    tail_t t = {0};
    if (!(t.conf = hearth_conf_new ("hearth-tail", s_opts)))
        return 1;
    int rc = s_parse (&t, argc, argv);
    hearth_error_t err;
    if (rc > 0
        && hearth_curve_client_setup (&t.curve, t.conf,
                                      hearth_conf_str (t.conf, "master"), &err)
               < 0) {
        fprintf (stderr, "hearth-tail: %s\n", err.text);
        rc = -1;
    }
    if (rc > 0) {
        hearth_zsys_init ();
        rc = hearth_conf_bool (t.conf, "state") ? s_state (&t) : s_follow (&t);
    }
    else
        rc = rc == 0 ? 0 : 2;
    hearth_sock_destroy (&t.dealer);
    hearth_sock_destroy (&t.sub);
    hearth_curve_cleanup (&t.curve);
    hearth_conf_destroy (&t.conf);
    return rc;
}

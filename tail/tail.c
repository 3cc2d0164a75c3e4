/*  tail.c - hearth-tail: follow a master's events like `tail -f`, or print
    the cluster's state once.

        hearth-tail --master tcp://HOST:PORT [--topic T]... [--json] [--count N]
        hearth-tail --master tcp://HOST:PORT --state [--json]

    The events URL comes from the master's MASTER_STATE answer (unless
    --events gives it), so --master is all a user needs to know.  Every
    topic but heartbeat is shown unless --topic says which; workers are
    shown by their short names (wnames.h) unless --full-ids; when the
    master goes away and comes back, a line says so (taillink.c).  The
    files: tail.c (options, --state, the loop) → taillink.c (the sockets),
    tailev.c (an event's line).
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/conf.h"
#include "libcore/ctlchars.h"
#include "libcore/curve.h"
#include "libcore/log.h"
#include "libcore/masters.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "libcore/start.h"
#include "libcore/stateview.h"
#include "libcore/wnames.h"
#include "tail/tailev.h"
#include "tail/taillink.h"

#define OPT(n, t, d, mv, h)                                                    \
    {                                                                          \
        .name = n, .type = t, .dflt = d, .metavar = mv, .help = h              \
    }

/* The topics the master publishes (protocol.md §8), and those shown when
   --topic does not say: all but heartbeat, one event per worker and per
   interval. */
static const char *const s_topics[] = {"heartbeat", "worker", "app",
                                       "executor",  "driver", "master"};
static const char *const s_default_topics[] = {"worker", "app", "executor",
                                               "driver", "master"};

static const hearth_opt_t s_opts[] = {
    OPT ("master", HEARTH_OPT_STR, NULL, "URL",
         "the master's ROUTER URL, tcp://HOST:PORT, or the masters' "
         "comma-separated list of them"),
    OPT ("events", HEARTH_OPT_STR, NULL, "URL",
         "the master's events URL (default: asked from the master)"),
    OPT ("topic", HEARTH_OPT_LIST, NULL, "TOPIC",
         "only these topics: heartbeat, worker, app, executor, driver, "
         "master (repeatable; default: all but heartbeat)"),
    OPT ("json", HEARTH_OPT_BOOL, NULL, NULL,
         "print each event's JSON, with its topic added"),
    {.name = "count",
     .type = HEARTH_OPT_INT,
     .metavar = "N",
     .help = "exit after N events",
     .min = 0,
     .max = 1000000000},
    OPT ("state", HEARTH_OPT_BOOL, NULL, NULL,
         "print the cluster's state once and exit"),
    OPT ("full-ids", HEARTH_OPT_BOOL, NULL, NULL,
         "show workers by their ids, not their short names"),
    OPT ("timeout", HEARTH_OPT_DURATION, "10s", NULL,
         "how long to wait for the master's answer (as hearth-admin and "
         "hearth-submit)"),
    HEARTH_CURVE_CLIENT_OPTIONS,
    OPT ("log-level", HEARTH_OPT_STR, "warn", "LEVEL",
         "error, warn, info or debug"),
    {.name = NULL},
};

/* The program's context. */
typedef struct {
    hearth_conf_t *conf;       /* settings (owned) */
    tail_link_t *link;         /* to the master (owned) */
    hearth_curve_t curve;      /* keys, when the cluster has them */
    hearth_wnames_t *names;    /* short worker names (owned), or NULL */
    const char *const *topics; /* shown (the conf's, or s_default_topics) */
    size_t ntopics;            /* entries in topics */
} tail_t;

/* --- --state ----------------------------------------------------------- */

/* The progress its driver reports of each running application: tasks
   done/total, then its active stages (APPLICATION_PROGRESS). */
static void
s_print_progress (const cJSON *state)
{
    const cJSON *a;
    printf ("PROGRESS (running applications, as their drivers report it)\n");
    cJSON_ArrayForEach (a, cJSON_GetObjectItemCaseSensitive (state, "apps"))
    {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive (a, "progress");
        if (!p || !streq (hearth_view_text (a, "state"), "RUNNING"))
            continue;
        printf ("%s  tasks %.0f/%.0f  running %.0f  failed %.0f  jobs %.0f\n",
                hearth_view_text (a, "id"),
                hearth_view_num (p, "tasks_finished"),
                hearth_view_num (p, "tasks_total"),
                hearth_view_num (p, "tasks_running"),
                hearth_view_num (p, "tasks_failed"),
                hearth_view_num (p, "jobs_active"));
        const cJSON *kept = cJSON_GetObjectItemCaseSensitive (p, "persisted");
        if (kept) {
            printf ("  persisted in memory: %.0f bytes (",
                    hearth_view_num (kept, "memory_bytes"));
            const cJSON *x;
            const char *sep = "";
            cJSON_ArrayForEach (
                x, cJSON_GetObjectItemCaseSensitive (kept, "executors"))
            {
                printf ("%sexecutor %.0f: %.0f", sep,
                        hearth_view_num (x, "executor"),
                        hearth_view_num (x, "memory_bytes"));
                sep = ", ";
            }
            printf (")\n");
        }
        const cJSON *st;
        cJSON_ArrayForEach (st, cJSON_GetObjectItemCaseSensitive (p, "stages"))
            printf (
                "  job %.0f stage %.0f %s: %.0f/%.0f  running %.0f  failed "
                "%.0f\n",
                hearth_view_num (st, "job"), hearth_view_num (st, "stage"),
                hearth_view_text (st, "name"), hearth_view_num (st, "finished"),
                hearth_view_num (st, "tasks"), hearth_view_num (st, "running"),
                hearth_view_num (st, "failed"));
    }
}

/* Where each completed application's driver wrote its event log. */
static void
s_print_event_logs (const cJSON *state)
{
    const cJSON *a;
    printf ("EVENT LOGS (completed applications)\n");
    cJSON_ArrayForEach (a, cJSON_GetObjectItemCaseSensitive (state, "apps"))
    {
        const char *where = hearth_json_str (a, "event_log");
        const char *st = hearth_view_text (a, "state");
        if (where && !streq (st, "RUNNING") && !streq (st, "WAITING"))
            printf ("%s  %-8s  %s\n", hearth_view_text (a, "id"), st, where);
    }
}

/* With a list of masters: a line per URL, what it is, before the
   leader's state (and a "masters" array in --json). */
static cJSON *
s_roles (tail_t *t)
{
    size_t n = tail_link_masters (t->link);
    cJSON *list = n > 1 ? cJSON_CreateArray () : NULL;
    if (list && !hearth_conf_bool (t->conf, "json"))
        printf ("MASTERS\n");
    for (size_t i = 0; list && i < n; i++) {
        char role[HEARTH_ERROR_TEXT_MAX + 64];
        const char *url = tail_link_master_url (t->link, i);
        tail_link_role (t->link, i, role, sizeof role);
        cJSON *o = cJSON_CreateObject ();
        cJSON_AddStringToObject (o, "url", url);
        cJSON_AddStringToObject (o, "role", role);
        cJSON_AddItemToArray (list, o);
        if (!hearth_conf_bool (t->conf, "json"))
            hearth_ctl_fprintf (stdout, "%s  %s\n", url, role);
    }
    if (list && !hearth_conf_bool (t->conf, "json"))
        printf ("\n");
    return list;
}

static int
s_state (tail_t *t)
{
    hearth_error_t err;
    cJSON *roles = s_roles (t);
    cJSON *state = tail_link_state (t->link, &err);
    if (state && roles)
        cJSON_AddItemToObject (state, "masters", roles);
    else
        cJSON_Delete (roles);
    if (!state) {
        hearth_ctl_fprintf (stderr, "hearth-tail: %s\n", err.text);
        return 1;
    }
    if (hearth_conf_bool (t->conf, "json")) {
        char *text = cJSON_PrintUnformatted (state);
        printf ("%s\n", text ? text : "{}");
        free (text);
        cJSON_Delete (state);
        return 0;
    }
    /* text for a terminal: every string of the state, the peers' names
       and reasons, escaped once here (ctlchars.h) */
    if (hearth_ctl_escape_json (state) < 0) {
        fprintf (stderr, "hearth-tail: out of memory\n");
        cJSON_Delete (state);
        return 1;
    }
    if (t->names)
        hearth_view_learn (t->names, state);
    hearth_view_t v = {.names = t->names,
                       .now_ms = hearth_json_int (state, "time_ms", 0),
                       .web = true};
    const char *s = hearth_json_str (state, "url");
    const char *status = hearth_json_str (state, "status");
    const char *policy = hearth_json_str (state, "policy");
    const char *web = hearth_json_str (state, "web_url");
    printf ("MASTER %s  %s  %s%s%s\n\n", s ? s : "-", status ? status : "-",
            policy ? policy : "-", web ? "  web " : "", web ? web : "");
    hearth_view_workers (stdout, state, &v);
    printf ("\n");
    hearth_view_apps (stdout, state, &v);
    printf ("\n");
    s_print_progress (state);
    printf ("\n");
    s_print_event_logs (state);
    printf ("\n");
    hearth_view_executors (stdout, state, &v);
    printf ("\n");
    hearth_view_drivers (stdout, state, &v);
    cJSON_Delete (state);
    return 0;
}

/* --- following events -------------------------------------------------- */

/* Print one line: an event of the master's, or the tail's own word about
   the master (e NULL, what: "gone" or "back", text: why). */
static void
s_print (tail_t *t, const char *topic, cJSON *e, const char *what,
         const char *text)
{
    if (hearth_conf_bool (t->conf, "json")) {
        cJSON *own = e ? NULL : cJSON_CreateObject ();
        if (own) {
            cJSON_AddStringToObject (own, "event", what);
            cJSON_AddStringToObject (own, "from", "hearth-tail");
            cJSON_AddStringToObject (own, "message", text ? text : "");
            cJSON_AddNumberToObject (own, "time_ms", (double) (zclock_time ()));
        }
        cJSON *o = e ? e : own;
        if (cJSON_IsObject (o)
            && !cJSON_GetObjectItemCaseSensitive (o, "topic"))
            cJSON_AddStringToObject (o, "topic", topic);
        char *json = o ? cJSON_PrintUnformatted (o) : NULL;
        printf ("%s\n", json ? json : text ? text : "{}");
        free (json);
        cJSON_Delete (own);
    }
    else {
        char stamp[96], line[1024];
        const cJSON *ms =
            e ? cJSON_GetObjectItemCaseSensitive (e, "time_ms") : NULL;
        hearth_view_stamp (cJSON_IsNumber (ms) ? ms->valuedouble : 0, stamp,
                           sizeof stamp);
        if (e)
            tail_event_describe (topic, e, t->names, line, sizeof line);
        else
            snprintf (line, sizeof line, "%s: %s", what, text ? text : "");
        /* one line, whatever the event's text held */
        hearth_ctl_fprintf (stdout, "%s %-9s %s\n", stamp, topic, line);
    }
    fflush (stdout);
}

static void
s_print_event (tail_t *t, const char *topic, const char *text)
{
    cJSON *e = cJSON_Parse (text);
    if (e && t->names)
        tail_event_learn (t->names, e);
    if (e)
        s_print (t, topic, e, NULL, NULL);
    else if (hearth_conf_bool (t->conf, "json"))
        hearth_ctl_fprintf (stdout, "%s\n", text); /* not JSON: escaped */
    else
        s_print (t, topic, NULL, "unreadable event", text);
    cJSON_Delete (e);
}

/* True when the frame is exactly one of the shown topics (SUB filters
   by prefix only). */
static bool
s_wanted (tail_t *t, const char *topic)
{
    for (size_t i = 0; i < t->ntopics; i++)
        if (strcmp (t->topics[i], topic) == 0)
            return true;
    return false;
}

static int
s_follow (tail_t *t)
{
    hearth_error_t err;
    /* --events spares the question to the master. */
    bool ask = !hearth_conf_str (t->conf, "events");
    cJSON *state = ask ? tail_link_state (t->link, &err) : NULL;
    if (state && t->names)
        hearth_view_learn (t->names, state);
    if ((ask && !state)
        || tail_link_subscribe (t->link, state, t->topics, t->ntopics, &err)
               < 0) {
        cJSON_Delete (state);
        hearth_ctl_fprintf (stderr, "hearth-tail: %s\n", err.text);
        return 1;
    }
    cJSON_Delete (state);
    int64_t count = hearth_conf_isset (t->conf, "count")
                        ? hearth_conf_int (t->conf, "count")
                        : -1;
    int64_t seen = 0;
    while (count < 0 || seen < count) {
        char *topic, *text;
        tail_link_news_t news = tail_link_next (t->link, &topic, &text);
        if (news == TAIL_LINK_END)
            break;
        if (news == TAIL_LINK_EVENT && s_wanted (t, topic)) {
            s_print_event (t, topic, text);
            seen++;
        }
        else if (news != TAIL_LINK_EVENT)
            s_print (t, "master", NULL,
                     news == TAIL_LINK_GONE ? "gone" : "back", text);
        free (topic);
        free (text);
    }
    return 0;
}

/* --- the command line -------------------------------------------------- */

/* The topics to show: --topic's, each one the master publishes, or all
   but heartbeat.  0 or -1 after saying why. */
static int
s_topics_of (tail_t *t)
{
    t->ntopics = hearth_conf_list (t->conf, "topic", &t->topics);
    if (t->ntopics == 0) {
        t->topics = s_default_topics;
        t->ntopics = sizeof s_default_topics / sizeof s_default_topics[0];
    }
    for (size_t i = 0; i < t->ntopics; i++) {
        bool known = false;
        for (size_t k = 0; k < sizeof s_topics / sizeof s_topics[0]; k++)
            known |= strcmp (t->topics[i], s_topics[k]) == 0;
        if (!known) {
            fprintf (stderr,
                     "hearth-tail: unknown topic '%s' (heartbeat, worker, app, "
                     "executor, driver or master)\n",
                     t->topics[i]);
            return -1;
        }
    }
    return 0;
}

/* --master must be tcp://HOST:PORT or a list of them, --events
   tcp://HOST:PORT.  0 or -1. */
static int
s_check_urls (tail_t *t)
{
    hearth_error_t merr;
    if (hearth_masters_check (hearth_conf_str (t->conf, "master"), &merr) < 0) {
        fprintf (stderr, "hearth-tail: bad --master: %s\n", merr.text);
        return -1;
    }
    static const char *const urls[] = {"events", NULL};
    for (int i = 0; urls[i]; i++) {
        const char *url = hearth_conf_str (t->conf, urls[i]);
        char host[256];
        int port;
        hearth_error_t err;
        if (url && hearth_url_split (url, host, sizeof host, &port, &err) < 0) {
            fprintf (stderr, "hearth-tail: bad --%s: %s\n", urls[i], err.text);
            return -1;
        }
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
    if (rc == 1 && (s_check_urls (t) < 0 || s_topics_of (t) < 0))
        return -1;
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
    /* the first master's URL says whether the link leaves this machine */
    hearth_masters_t *m =
        rc > 0 ? hearth_masters_parse (hearth_conf_str (t.conf, "master"), NULL)
               : NULL;
    if (rc > 0
        && hearth_curve_client_setup (
               &t.curve, t.conf, m ? hearth_masters_url (m, 0) : NULL, &err)
               < 0) {
        hearth_ctl_fprintf (stderr, "hearth-tail: %s\n", err.text);
        rc = -1;
    }
    if (rc > 0
        && (!(t.link = tail_link_new (t.conf, &t.curve))
            || (!hearth_conf_bool (t.conf, "full-ids")
                && !(t.names = hearth_wnames_new ())))) {
        fprintf (stderr, "hearth-tail: out of memory\n");
        rc = -1;
    }
    if (rc > 0) {
        hearth_zsys_init ();
        rc = hearth_conf_bool (t.conf, "state") ? s_state (&t) : s_follow (&t);
    }
    else
        rc = rc == 0 ? 0 : 2;
    hearth_masters_destroy (&m);
    tail_link_destroy (&t.link);
    hearth_wnames_destroy (&t.names);
    hearth_curve_cleanup (&t.curve);
    hearth_conf_destroy (&t.conf);
    return rc;
}

/*  main.c - hearth-history: what the applications of an event-log
    directory did (docs/history.md).

        hearth-history --dir DIR [--state S]... [--since T] [--name GLOB]
                       [--json]
        hearth-history --dir DIR APP_ID [--json] [--top N]
        hearth-history --dir DIR --web-port N [--web-host ADDR]
                       [--web-token-file FILE] [--insecure]

    The files: main.c (options) → list.c (the listing: scan.c the
    directory, index.c the cache, appsum.c a summary, live.c in progress
    or failed) and appview.c (one application: detail.c its figures);
    evline.c reads a line for all of them; web.c serves both as pages
    and JSON.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "history/appview.h"
#include "history/list.h"
#include "history/web.h"
#include "libcore/conf.h"
#include "libcore/log.h"
#include "libcore/web.h"

#define OPT(n, t, d, mv, h)                                                    \
    {                                                                          \
        .name = n, .type = t, .dflt = d, .metavar = mv, .help = h,             \
        .flag_only = true                                                      \
    }

static const char s_synopsis[] =
    "--dir DIR [--state S]... [--since T] [--name GLOB] [--json]\n"
    "       hearth-history --dir DIR APP_ID [--json] [--top N]\n"
    "       hearth-history --dir DIR --web-port N [--web-host ADDR] "
    "[--web-token-file FILE] [--insecure]";
static const char s_description[] =
    "List the applications of an event-log directory, newest first, or "
    "summarize one of them; with --web-port, serve both as pages and JSON "
    "until SIGINT or SIGTERM.";

/* The shown states --state takes. */
static const char *const s_states[] = {"RUNNING", "FINISHED", "FAILED",
                                       "KILLED"};

static const hearth_opt_t s_opts[] = {
    OPT ("dir", HEARTH_OPT_STR, NULL, "DIR",
         "the event-log directory (default: $HEARTH_EVENT_LOG_DIR)"),
    OPT ("state", HEARTH_OPT_LIST, NULL, "S",
         "only applications in state S: RUNNING, FINISHED, FAILED, KILLED "
         "(repeatable, or a comma list)"),
    OPT ("since", HEARTH_OPT_STR, NULL, "T",
         "only applications active since T: 24h, 7d, 90m... back from now, "
         "or a UTC date-time 2026-12-01[T09:30[:00]]"),
    OPT ("name", HEARTH_OPT_STR, NULL, "GLOB",
         "only applications whose name matches GLOB (fnmatch, e.g. 'etl-*')"),
    OPT ("json", HEARTH_OPT_BOOL, NULL, NULL, "print JSON (docs/history.md)"),
    {.name = "top",
     .type = HEARTH_OPT_INT,
     .dflt = "10",
     .metavar = "N",
     .help = "the N slowest attempts in a summary",
     .min = 0,
     .max = 10000,
     .flag_only = true},
    OPT ("stale", HEARTH_OPT_DURATION, "1h", NULL,
         "a log without app_end whose driver is on another host has failed "
         "when unchanged this long"),
    OPT ("no-index", HEARTH_OPT_BOOL, NULL, NULL,
         "neither read nor write DIR/.hearth-history (read every log)"),
    /* The daemons' web options (libcore/web.h), but --web-port is a flag
       only: a HEARTH_WEB_PORT exported for a daemon must not turn every
       listing into a server. */
    {.name = "web-port",
     .type = HEARTH_OPT_INT,
     .dflt = "0",
     .metavar = "N",
     .help = "serve the listing and the summaries as pages and JSON on port "
             "N (0: off; taken: the next free one, up to 16 tries)",
     .min = 0,
     .max = 65535,
     .flag_only = true},
    {"web-host", HEARTH_OPT_STR, "127.0.0.1", "ADDR",
     "address the web server binds (beyond loopback it needs "
     "--web-token-file or --insecure)"},
    {"web-token-file", HEARTH_OPT_STR, NULL, "FILE",
     "file holding the token every web request must carry (first line; "
     "default on loopback: this user's, from its local cookie)"},
    HEARTH_WEB_LIMIT_OPTIONS,
    {"insecure", HEARTH_OPT_BOOL, "false", "",
     "allow web pages beyond loopback without --web-token-file"},
    {.name = NULL},
};

/* The --state values, split at commas and checked, into list (at most
   cap); -1 after saying why. */
static int
s_states_of (hearth_conf_t *conf, char *buf, size_t bufsize, const char **list,
             size_t cap, size_t *n)
{
    const char *const *items;
    size_t nitems = hearth_conf_list (conf, "state", &items), used = 0;
    *n = 0;
    for (size_t i = 0; i < nitems; i++) {
        size_t len = strlen (items[i]);
        if (used + len + 1 > bufsize)
            return fprintf (stderr, "hearth-history: too many --state\n"), -1;
        char *copy = memcpy (buf + used, items[i], len + 1), *save = NULL;
        used += len + 1;
        for (char *s = strtok_r (copy, ",", &save); s;
             s = strtok_r (NULL, ",", &save)) {
            bool known = false;
            for (size_t k = 0; k < sizeof s_states / sizeof s_states[0]; k++)
                known |= strcasecmp (s, s_states[k]) == 0;
            if (!known || *n == cap) {
                fprintf (stderr,
                         "hearth-history: bad --state '%s' (RUNNING, FINISHED, "
                         "FAILED or KILLED)\n",
                         s);
                return -1;
            }
            list[(*n)++] = s;
        }
    }
    return 0;
}

static int64_t
s_now_ms (void)
{
    struct timeval tv;
    gettimeofday (&tv, NULL);
    return (int64_t) tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* Options before and after the one APP_ID.  Returns 1 to go on (*app_id
   set or NULL), 0 after --help or --version, -1 after an error. */
static int
s_parse (hearth_conf_t *conf, int argc, char **argv, const char **app_id)
{
    hearth_error_t err;
    int first = hearth_conf_parse (conf, argc, argv, &err);
    *app_id = NULL;
    if (first >= 0 && first < argc && !hearth_conf_wants_help (conf)
        && !hearth_conf_wants_version (conf)) {
        *app_id = argv[first];
        first = hearth_conf_parse_more (conf, argc, argv, first + 1, &err);
        if (first >= 0 && first < argc) {
            fprintf (stderr, "hearth-history: unexpected argument '%s'\n",
                     argv[first]);
            return -1;
        }
    }
    if (first < 0) {
        fprintf (stderr, "hearth-history: %s\n", err.text);
        return -1;
    }
    if (hearth_conf_wants_help (conf)) {
        hearth_conf_usage (conf, stdout, s_synopsis, s_description);
        return 0;
    }
    if (hearth_conf_wants_version (conf)) {
        printf ("hearth-history %s\n", PACKAGE_VERSION);
        return 0;
    }
    return 1;
}

/* --web-port: the filters and APP_ID are the pages' (query arguments,
   paths), not the command line's. */
static int
s_serve (hearth_conf_t *conf, const hist_list_opts_t *lo, const char *app_id)
{
    static const char *const cli_only[] = {"state", "since", "name", "json"};
    if (app_id) {
        fprintf (stderr, "hearth-history: --web-port serves every "
                         "application: no APP_ID (its page is /app/APP_ID)\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof cli_only / sizeof cli_only[0]; i++)
        if (hearth_conf_isset (conf, cli_only[i])) {
            fprintf (stderr,
                     "hearth-history: --%s is not for --web-port (the pages "
                     "take ?state=, ?since=, ?name=; /api/v1/apps is the "
                     "JSON)\n",
                     cli_only[i]);
            return 2;
        }
    hist_web_opts_t o = {.dir = lo->dir,
                         .top = (int) hearth_conf_int (conf, "top"),
                         .stale_ms = lo->stale_ms,
                         .no_index = lo->no_index};
    return hist_web_serve (conf, &o);
}

static int
s_run (hearth_conf_t *conf, const char *app_id)
{
    char buf[4096];
    const char *states[64];
    hist_list_opts_t o = {.since_ms = -1};
    o.dir = hearth_conf_str (conf, "dir");
    if (!o.dir)
        o.dir = getenv ("HEARTH_EVENT_LOG_DIR");
    if (!o.dir || !*o.dir) {
        fprintf (stderr, "hearth-history: --dir DIR is required (or "
                         "HEARTH_EVENT_LOG_DIR)\n");
        return 2;
    }
    o.json = hearth_conf_bool (conf, "json");
    o.no_index = hearth_conf_bool (conf, "no-index");
    o.stale_ms = hearth_conf_ms (conf, "stale");
    if (hearth_conf_int (conf, "web-port") > 0)
        return s_serve (conf, &o, app_id);
    if (app_id)
        return hist_appview (o.dir, app_id, o.json,
                             (int) hearth_conf_int (conf, "top"), o.stale_ms,
                             stdout, stderr);
    if (s_states_of (conf, buf, sizeof buf, states, 64, &o.nstates) < 0)
        return 2;
    o.states = states;
    o.name_glob = hearth_conf_str (conf, "name");
    const char *since = hearth_conf_str (conf, "since");
    hearth_error_t err;
    if (since && hist_parse_since (since, s_now_ms (), &o.since_ms, &err) < 0) {
        fprintf (stderr, "hearth-history: %s\n", err.text);
        return 2;
    }
    return hist_list (&o, stdout, stderr);
}

int
main (int argc, char **argv)
{
    hearth_conf_t *conf = hearth_conf_new ("hearth-history", s_opts);
    if (!conf) {
        fprintf (stderr, "hearth-history: out of memory\n");
        return 1;
    }
    const char *app_id;
    int rc = s_parse (conf, argc, argv, &app_id);
    rc = rc > 0 ? s_run (conf, app_id) : rc == 0 ? 0 : 2;
    hearth_conf_destroy (&conf);
    return rc;
}

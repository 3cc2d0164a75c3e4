/*  hearth-admin - an operator's everyday commands, as Slurm's scontrol and
    scancel: list applications, drivers and workers; kill applications and
    drivers by id, name or state; drain a worker and resume it.

        hearth-admin [OPTIONS] apps|drivers|workers [--state S] [--name GLOB]
        hearth-admin [OPTIONS] kill [--state S] [--name GLOB] [ID...]
        hearth-admin [OPTIONS] drain [--reason TEXT] WORKER...
        hearth-admin [OPTIONS] resume WORKER...
        hearth-admin [OPTIONS] decommission [--reason TEXT]
                     [--decommission-timeout T] WORKER...
        hearth-admin [OPTIONS] web-url [WORKER|URL...]
        hearth-admin [OPTIONS] web-token

    It talks to the master as hearth-submit does (submit_request.c: the
    same --master, --timeout and keys, from flags, HEARTH_* variables or
    the defaults file), lists from one MASTER_STATE, kills with
    hearth-submit's own kills (submit_admin.c), drains with DRAIN_WORKER
    and RESUME_WORKER, and decommissions with DECOMMISSION_WORKER; web-url
    prints the address of the master's pages (or a worker's) with this
    user's web token, web-token the token alone (admin_web.c).  A worker is
   named by its id or its short name (wnames.h).  Exit status: 0; 1 when the
   master refused or did not answer, or nothing matched; 2 for a usage mistake.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "libcore/conf.h"
#include "libcore/ctlchars.h"
#include "libcore/curve.h"
#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/proto.h"
#include "libcore/stateview.h"
#include "libcore/wnames.h"
#include "submit/admin_web.h"
#include "submit/submit_admin.h"
#include "submit/submit_request.h"

#define OPT(n, t, d, mv, h, f)                                                 \
    {                                                                          \
        .name = n, .type = t, .dflt = d, .metavar = mv, .help = h,             \
        .flag_only = f                                                         \
    }

static const hearth_opt_t s_opts[] = {
    OPT ("master", HEARTH_OPT_STR, NULL, "URL",
         "the master's ROUTER URL, tcp://HOST:PORT, or the masters' "
         "comma-separated list of them",
         false),
    OPT ("timeout", HEARTH_OPT_DURATION, "10s", NULL,
         "how long to wait for each answer of the master", false),
    HEARTH_CURVE_CLIENT_OPTIONS,
    OPT ("state", HEARTH_OPT_STR, NULL, "STATE",
         "apps, drivers, workers, kill: only those in STATE (RUNNING, "
         "FINISHED, DRAINING...)",
         true),
    OPT ("name", HEARTH_OPT_STR, NULL, "GLOB",
         "apps, drivers, workers, kill: only those whose name (a worker's id "
         "or short name) matches GLOB",
         true),
    OPT ("reason", HEARTH_OPT_STR, NULL, "TEXT",
         "drain, decommission: why, shown with the worker", true),
    OPT ("decommission-timeout", HEARTH_OPT_DURATION, NULL, NULL,
         "decommission: how long the worker's running tasks and served map "
         "outputs may keep it (default: the worker's "
         "--decommission-timeout; 0: it stops at once)",
         true),
    OPT ("json", HEARTH_OPT_BOOL, "false", "",
         "apps, drivers, workers: one JSON object a line, as the master has "
         "it",
         true),
    OPT ("full-ids", HEARTH_OPT_BOOL, "false", "",
         "show workers by their ids, not their short names", true),
    OPT ("web-token-file", HEARTH_OPT_STR, NULL, "FILE",
         "web-url, web-token: the pages' token file, as the daemons' "
         "(default: this user's token, from its local cookie)",
         false),
    OPT ("log-level", HEARTH_OPT_STR, "warn", "LEVEL",
         "error, warn, info or debug", false),
    {.name = NULL},
};

/* One run: the settings, the positional arguments after the command,
   and the master's state once asked for. */
typedef struct {
    hearth_conf_t *conf;    /* settings (owned) */
    const char **args;      /* positional arguments (borrowed from argv) */
    size_t nargs;           /* entries in args */
    cJSON *state;           /* MASTER_STATE_RESPONSE body, or NULL */
    hearth_wnames_t *names; /* short worker names (owned) */
    hearth_view_t view;     /* the rows asked for */
} admin_t;

typedef int (s_command_fn) (admin_t *a);

/* --- talking to the master -------------------------------------------- */

/* The master's state into a->state (and its workers into a->names).
   0, or the exit status after saying why. */
static int
s_state (admin_t *a)
{
    hearth_error_t err;
    int rc;
    submit_link_t *link = submit_link_new (a->conf, &rc);
    if (!link)
        return rc;
    hearth_msg_t *req = hearth_msg_new (HEARTH_CMD_MASTER_STATE), *r = NULL;
    if (!req)
        rc = submit_fail (1, "out of memory");
    else if (!(r = submit_link_request (
                   link, &req, HEARTH_CMD_MASTER_STATE_RESPONSE, &err)))
        rc = submit_fail (1, "%s", err.text);
    else {
        a->state = r->body;
        r->body = NULL;
        if (hearth_view_learn (a->names, a->state) < 0)
            rc = submit_fail (1, "out of memory");
        a->view.now_ms = hearth_json_int (a->state, "time_ms", 0);
    }
    hearth_msg_destroy (&r);
    submit_link_destroy (&link);
    return rc;
}

/* DRAIN_WORKER (draining) or RESUME_WORKER for worker_id, saying what
   happened.  0 or 1. */
static int
s_drain (admin_t *a, submit_link_t *link, const char *worker_id, bool draining)
{
    hearth_error_t err;
    hearth_msg_t *req = hearth_msg_new (draining ? HEARTH_CMD_DRAIN_WORKER
                                                 : HEARTH_CMD_RESUME_WORKER);
    if (!req)
        return submit_fail (1, "out of memory");
    cJSON_AddStringToObject (req->body, "worker_id", worker_id);
    const char *reason = hearth_conf_str (a->conf, "reason");
    if (draining && reason)
        cJSON_AddStringToObject (req->body, "reason", reason);
    hearth_msg_t *r =
        submit_link_request (link, &req,
                             draining ? HEARTH_CMD_DRAIN_WORKER_RESPONSE
                                      : HEARTH_CMD_RESUME_WORKER_RESPONSE,
                             &err);
    int rc = 0;
    const char *name = hearth_wnames_short (a->names, worker_id);
    const char *message = r ? hearth_json_str (r->body, "message") : NULL;
    if (!r)
        rc = submit_fail (1, "%s", err.text);
    else if (!hearth_json_bool (r->body, "ok", false))
        rc = submit_fail (1, "worker %s: %s", worker_id,
                          message ? message : "refused");
    else if (strcmp (name, worker_id) != 0) /* the master's text, escaped */
        hearth_ctl_fprintf (stdout, "worker %s (%s) %s\n", name, worker_id,
                            message ? message : "");
    else
        hearth_ctl_fprintf (stdout, "worker %s %s\n", worker_id,
                            message ? message : "");
    hearth_msg_destroy (&r);
    return rc;
}

/* --- the commands ------------------------------------------------------ */

/* apps, drivers, workers: the rows of one list of the state. */
static int
s_list (admin_t *a, const char *list,
        size_t (*table) (FILE *, const cJSON *, const hearth_view_t *))
{
    if (a->nargs)
        return submit_fail (2, "unexpected argument '%s' (see --help)",
                            a->args[0]);
    int rc = s_state (a);
    if (rc)
        return rc;
    if (!hearth_conf_bool (a->conf, "json")) {
        /* a table for a terminal: the names and reasons peers gave,
           escaped (ctlchars.h); --json prints them as JSON strings */
        if (hearth_ctl_escape_json (a->state) < 0)
            return submit_fail (1, "out of memory");
        table (stdout, a->state, &a->view);
        return 0;
    }
    const cJSON *row;
    cJSON_ArrayForEach (row, cJSON_GetObjectItemCaseSensitive (a->state, list))
    {
        if (!hearth_view_match (&a->view, row))
            continue;
        char *text = cJSON_PrintUnformatted (row);
        if (!text)
            return submit_fail (1, "out of memory");
        printf ("%s\n", text);
        free (text);
    }
    return 0;
}

static int
s_apps (admin_t *a)
{
    return s_list (a, "apps", hearth_view_apps);
}

static int
s_drivers (admin_t *a)
{
    return s_list (a, "drivers", hearth_view_drivers);
}

static int
s_workers (admin_t *a)
{
    return s_list (a, "workers", hearth_view_workers);
}

/* Whether a state name is one an application or a driver can be killed
   in (it has not ended). */
static bool
s_active_state (const char *state)
{
    static const char *const active[] = {"WAITING", "RUNNING", "SUBMITTED",
                                         "RELAUNCHING", NULL};
    for (int i = 0; active[i]; i++)
        if (strcasecmp (state, active[i]) == 0)
            return true;
    return false;
}

/* Whether row (an application or a driver of the state) is to be killed:
   not ended, selected by the filters, and, with ids given, one of them. */
static bool
s_kill_selected (admin_t *a, const cJSON *row)
{
    const char *id = hearth_json_str (row, "id");
    if (!id || !s_active_state (hearth_json_str (row, "state") ?: "")
        || !hearth_view_match (&a->view, row))
        return false;
    for (size_t i = 0; i < a->nargs; i++)
        if (strcmp (a->args[i], id) == 0)
            return true;
    return a->nargs == 0;
}

/* Whether the application app_id is the application of a driver that is
   killed too (its driver takes it along). */
static bool
s_app_of_killed_driver (admin_t *a, const char *app_id)
{
    const cJSON *d;
    cJSON_ArrayForEach (d,
                        cJSON_GetObjectItemCaseSensitive (a->state, "drivers"))
    {
        const char *of = hearth_json_str (d, "app_id");
        if (of && strcmp (of, app_id) == 0 && s_kill_selected (a, d))
            return true;
    }
    return false;
}

/* kill with --state or --name: what the state selects. */
static int
s_kill_selected_rows (admin_t *a)
{
    int rc = s_state (a), failed = 0, killed = 0;
    if (rc)
        return rc;
    const cJSON *row;
    cJSON_ArrayForEach (row,
                        cJSON_GetObjectItemCaseSensitive (a->state, "drivers"))
    {
        if (s_kill_selected (a, row) && ++killed)
            failed |= submit_kill (a->conf, hearth_json_str (row, "id"));
    }
    cJSON_ArrayForEach (row,
                        cJSON_GetObjectItemCaseSensitive (a->state, "apps"))
    {
        const char *id = hearth_json_str (row, "id");
        if (s_kill_selected (a, row) && !s_app_of_killed_driver (a, id)
            && ++killed)
            failed |= submit_kill_app (a->conf, id);
    }
    if (killed == 0)
        return submit_fail (1, "no application or driver that has not ended "
                               "matches");
    return failed ? 1 : 0;
}

static int
s_kill (admin_t *a)
{
    const char *state = a->view.state;
    if (!a->nargs && !state && !a->view.name)
        return submit_fail (2, "kill needs ids, --name or --state (it never "
                               "kills everything unasked)");
    if (state && !s_active_state (state))
        return submit_fail (2,
                            "kill --state %s: only what has not ended can be "
                            "killed (WAITING, RUNNING, SUBMITTED, "
                            "RELAUNCHING)",
                            state);
    for (size_t i = 0; i < a->nargs; i++)
        if (!hearth_id_valid (HEARTH_ID_APP, a->args[i])
            && !hearth_id_valid (HEARTH_ID_DRIVER, a->args[i]))
            return submit_fail (2,
                                "'%s' is not an application or driver id "
                                "(app-... or driver-..., as hearth-admin apps "
                                "and drivers show)",
                                a->args[i]);
    if (state || a->view.name)
        return s_kill_selected_rows (a);
    int failed = 0;
    for (size_t i = 0; i < a->nargs; i++)
        failed |= hearth_id_valid (HEARTH_ID_APP, a->args[i])
                      ? submit_kill_app (a->conf, a->args[i])
                      : submit_kill (a->conf, a->args[i]);
    return failed ? 1 : 0;
}

/* DECOMMISSION_WORKER for worker_id, saying what happened.  0 or 1. */
static int
s_decommission (admin_t *a, submit_link_t *link, const char *worker_id)
{
    hearth_error_t err;
    hearth_msg_t *req = hearth_msg_new (HEARTH_CMD_DECOMMISSION_WORKER);
    if (!req)
        return submit_fail (1, "out of memory");
    cJSON_AddStringToObject (req->body, "worker_id", worker_id);
    const char *reason = hearth_conf_str (a->conf, "reason");
    if (reason)
        cJSON_AddStringToObject (req->body, "reason", reason);
    if (hearth_conf_isset (a->conf, "decommission-timeout"))
        cJSON_AddNumberToObject (
            req->body, "timeout_ms",
            (double) hearth_conf_ms (a->conf, "decommission-timeout"));
    hearth_msg_t *r = submit_link_request (
        link, &req, HEARTH_CMD_DECOMMISSION_WORKER_RESPONSE, &err);
    const char *message = r ? hearth_json_str (r->body, "message") : NULL;
    int rc = 0;
    if (!r)
        rc = submit_fail (1, "%s", err.text);
    else if (!hearth_json_bool (r->body, "ok", false))
        rc = submit_fail (1, "worker %s: %s", worker_id,
                          message ? message : "refused");
    else /* the master's text, escaped */
        hearth_ctl_fprintf (stdout, "worker %s %s\n", worker_id,
                            message ? message : "");
    hearth_msg_destroy (&r);
    return rc;
}

/* drain, resume and decommission (decom): each worker named, by id or
   short name. */
static int
s_set_drain (admin_t *a, bool draining, bool decom)
{
    if (!a->nargs)
        return submit_fail (2,
                            "%s needs a worker (its id or its name, as "
                            "hearth-admin workers shows)",
                            decom      ? "decommission"
                            : draining ? "drain"
                                       : "resume");
    int rc = s_state (a), failed = 0;
    if (rc)
        return rc;
    submit_link_t *link = submit_link_new (a->conf, &rc);
    for (size_t i = 0; link && i < a->nargs; i++) {
        const char *id = hearth_wnames_resolve (a->names, a->args[i]);
        if (!id && hearth_id_valid (HEARTH_ID_WORKER, a->args[i]))
            id = a->args[i]; /* the master says whether it knows it */
        if (!id)
            failed |= submit_fail (1,
                                   "no worker '%s' (hearth-admin workers "
                                   "lists them)",
                                   a->args[i]);
        else if (decom)
            failed |= s_decommission (a, link, id);
        else
            failed |= s_drain (a, link, id, draining);
    }
    submit_link_destroy (&link);
    return rc ? rc : failed;
}

static int
s_drain_cmd (admin_t *a)
{
    return s_set_drain (a, true, false);
}

static int
s_resume_cmd (admin_t *a)
{
    return s_set_drain (a, false, false);
}

static int
s_decommission_cmd (admin_t *a)
{
    return s_set_drain (a, false, true);
}

/* The web_url of the worker of the state whose id is id, or NULL. */
static const char *
s_worker_web (const admin_t *a, const char *id)
{
    const cJSON *w;
    cJSON_ArrayForEach (w,
                        cJSON_GetObjectItemCaseSensitive (a->state, "workers"))
    {
        const char *wid = hearth_json_str (w, "id");
        if (wid && strcmp (wid, id) == 0)
            return hearth_json_str (w, "web_url");
    }
    return NULL;
}

/* web-url [WORKER|URL...]: the addresses of the master's pages (none
   named), of the workers named, or the URLs given, with this user's
   token (admin_web.h). */
static int
s_web_url (admin_t *a)
{
    int rc = 0;
    bool need_state = a->nargs == 0;
    for (size_t i = 0; i < a->nargs; i++)
        need_state |= !admin_web_is_url (a->args[i]);
    if (need_state && (rc = s_state (a)))
        return rc;
    const char **urls = calloc (a->nargs + 1, sizeof *urls);
    if (!urls)
        return submit_fail (1, "out of memory");
    size_t n = 0;
    if (a->nargs == 0 && !(urls[n++] = hearth_json_str (a->state, "web_url")))
        rc = submit_fail (1, "the master serves no web pages (--web-port 0, "
                             "or its ports were taken: see its log)");
    for (size_t i = 0; rc == 0 && i < a->nargs; i++) {
        const char *id = admin_web_is_url (a->args[i])
                             ? NULL
                             : hearth_wnames_resolve (a->names, a->args[i]);
        if (admin_web_is_url (a->args[i]))
            urls[n++] = a->args[i];
        else if (!id)
            rc = submit_fail (1,
                              "no worker '%s' (hearth-admin workers lists "
                              "them), nor an address (http://...)",
                              a->args[i]);
        else if (!(urls[n++] = s_worker_web (a, id)))
            rc = submit_fail (1, "worker %s serves no web pages", a->args[i]);
    }
    if (rc == 0)
        rc = admin_web_urls (a->conf, urls, n);
    free (urls);
    return rc;
}

static int
s_web_token (admin_t *a)
{
    if (a->nargs)
        return submit_fail (2, "unexpected argument '%s' (see --help)",
                            a->args[0]);
    return admin_web_token (a->conf);
}

static const struct {
    const char *name;  /* as typed */
    s_command_fn *run; /* what it does */
} s_commands[] = {
    {"apps", s_apps},
    {"drivers", s_drivers},
    {"workers", s_workers},
    {"kill", s_kill},
    {"drain", s_drain_cmd},
    {"resume", s_resume_cmd},
    {"decommission", s_decommission_cmd},
    {"web-url", s_web_url},
    {"web-token", s_web_token},
};

/* --- the command line -------------------------------------------------- */

static const char s_synopsis[] =
    "[OPTIONS] COMMAND [ARGS...]\n"
    "       hearth-admin apps|drivers|workers [--state S] [--name GLOB] "
    "[--json]\n"
    "       hearth-admin kill [--state S] [--name GLOB] [APP_ID|DRIVER_ID...]\n"
    "       hearth-admin drain [--reason TEXT] WORKER...\n"
    "       hearth-admin resume WORKER...\n"
    "       hearth-admin decommission [--reason TEXT] "
    "[--decommission-timeout T] WORKER...\n"
    "       hearth-admin web-url [WORKER|URL...]\n"
    "       hearth-admin web-token";
static const char s_description[] =
    "An operator's commands on a Hearth cluster (docs/operations.md):\n"
    "  apps          list applications, active and finished\n"
    "  drivers       list cluster-mode drivers\n"
    "  workers       list workers (DRAINING: drained)\n"
    "  kill          kill applications and drivers: those given, or those\n"
    "                of --state and --name that have not ended\n"
    "  drain         place nothing new on WORKER (its id or short name);\n"
    "                what runs there keeps running\n"
    "  resume        let WORKER take work again\n"
    "  decommission  WORKER leaves: nothing new is placed there, its\n"
    "                queued tasks move, its running ones finish (up to the\n"
    "                timeout), then it stops\n"
    "  web-url       the address of the master's pages with this user's\n"
    "                web token, to open in a browser; of WORKER's pages,\n"
    "                or of the URL given (hearth-history's), when named\n"
    "  web-token     this user's web token alone (curl -H\n"
    "                'Authorization: Bearer ...', Prometheus'\n"
    "                credentials_file)\n"
    "\n"
    "The master is --master, HEARTH_MASTER or the defaults file's.\n"
    "The pages on loopback take the token of their daemon's user's local\n"
    "cookie: run web-url as that user (or with --web-token-file).";

/* The positional arguments after argv[from], flags anywhere among them
   (after "--", none). */
static int
s_args (admin_t *a, int argc, char **argv, int from)
{
    hearth_error_t err;
    a->args = calloc ((size_t) argc, sizeof *a->args);
    if (!a->args)
        return submit_fail (1, "out of memory");
    bool flags = true;
    for (int i = from; i < argc;) {
        int next =
            flags ? hearth_conf_parse_more (a->conf, argc, argv, i, &err) : i;
        if (next < 0)
            return submit_fail (2, "%s", err.text);
        if (next > i && strcmp (argv[next - 1], "--") == 0)
            flags = false;
        if (next < argc)
            a->args[a->nargs++] = argv[next];
        i = next + 1;
    }
    return 0;
}

/* The command argv names, or -1 after saying why. */
static int
s_command (int argc, char **argv, int first)
{
    if (first >= argc)
        return submit_fail (-1, "no command given (see --help)");
    for (size_t i = 0; i < sizeof s_commands / sizeof s_commands[0]; i++)
        if (strcmp (argv[first], s_commands[i].name) == 0)
            return (int) i;
    return submit_fail (-1,
                        "unknown command '%s' (apps, drivers, workers, kill, "
                        "drain, resume, decommission, web-url or web-token; "
                        "see --help)",
                        argv[first]);
}

/* Whether state (any case) is one of states. */
static bool
s_state_in (const char *state, const char *const *states)
{
    for (size_t i = 0; states[i]; i++)
        if (strcasecmp (state, states[i]) == 0)
            return true;
    return false;
}

/* --state names a state of what the command lists (a worker's also
   DRAINING; kill's, an application's or a driver's): otherwise a usage
   mistake (2), saying which there are, rather than an empty list. */
static int
s_check_state (const admin_t *a, const char *cmd)
{
    static const char *const draining[] = {"DRAINING", NULL};
    const char *state = hearth_conf_str (a->conf, "state");
    bool workers = strcmp (cmd, "workers") == 0;
    bool drivers = strcmp (cmd, "drivers") == 0;
    bool apps = strcmp (cmd, "apps") == 0, kill = strcmp (cmd, "kill") == 0;
    if (!state || !(workers || drivers || apps || kill))
        return 0;
    if ((workers
         && (s_state_in (state, hearth_worker_states)
             || s_state_in (state, draining)))
        || ((apps || kill) && s_state_in (state, hearth_app_states))
        || ((drivers || kill) && s_state_in (state, hearth_driver_states)))
        return 0;
    char known[300] = "";
    size_t used = 0;
    const char *const *lists[] = {
        workers ? hearth_worker_states : NULL, workers ? draining : NULL,
        apps || kill ? hearth_app_states : NULL,
        drivers || kill ? hearth_driver_states : NULL};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (size_t i = 0; lists[l] && lists[l][i]; i++)
            if (!strstr (known, lists[l][i]) && used < sizeof known)
                used +=
                    (size_t) snprintf (known + used, sizeof known - used,
                                       "%s%s", used ? ", " : "", lists[l][i]);
    return submit_fail (2, "--state %s: not a state of %s (%s)", state,
                        workers   ? "a worker"
                        : drivers ? "a driver"
                        : apps    ? "an application"
                                  : "an application or a driver",
                        known);
}

static int
s_run (admin_t *a, int argc, char **argv)
{
    hearth_error_t err;
    int first = hearth_conf_parse (a->conf, argc, argv, &err);
    if (first < 0)
        return submit_fail (2, "%s", err.text);
    int cmd =
        hearth_conf_wants_help (a->conf) || hearth_conf_wants_version (a->conf)
            ? 0
            : s_command (argc, argv, first);
    int rc = cmd < 0 ? 2 : s_args (a, argc, argv, first + 1);
    if (rc == 0 && cmd >= 0 && !hearth_conf_wants_help (a->conf)
        && !hearth_conf_wants_version (a->conf))
        rc = s_check_state (a, s_commands[cmd].name);
    if (rc == 0 && hearth_conf_wants_help (a->conf))
        hearth_conf_usage (a->conf, stdout, s_synopsis, s_description);
    else if (rc == 0 && hearth_conf_wants_version (a->conf))
        printf ("hearth-admin %s\n", PACKAGE_VERSION);
    else if (rc == 0
             && hearth_log_open ("hearth-admin",
                                 hearth_conf_str (a->conf, "log-level"), NULL,
                                 &err)
                    < 0)
        rc = submit_fail (2, "%s", err.text);
    else if (rc == 0) {
        a->view.state = hearth_conf_str (a->conf, "state");
        a->view.name = hearth_conf_str (a->conf, "name");
        a->view.names =
            hearth_conf_bool (a->conf, "full-ids") ? NULL : a->names;
        rc = s_commands[cmd].run (a);
    }
    return rc;
}

int
main (int argc, char **argv)
{
    admin_t a = {0};
    a.conf = hearth_conf_new ("hearth-admin", s_opts);
    a.names = hearth_wnames_new ();
    int rc = !a.conf || !a.names
                     || hearth_conf_use_defaults (a.conf, NULL, false) < 0
                 ? submit_fail (1, "out of memory")
                 : s_run (&a, argc, argv);
    cJSON_Delete (a.state);
    free (a.args);
    hearth_wnames_destroy (&a.names);
    hearth_conf_destroy (&a.conf);
    hearth_log_close ();
    return rc;
}

/*  hearth-submit - runs an application: a JSON job file (through
    hearth-driver) or a driver program linked with libhearth.

    hearth-submit [--master URL] [OPTIONS] APP [ARGS...]
    hearth-submit --master tcp://HOST:PORT --deploy-mode cluster
                  [--driver-cores N] [--driver-memory SIZE] [--supervise]
                  [--no-wait] APP [ARGS...]
    hearth-submit --master tcp://HOST:PORT --status|--kill|--logs DRIVER_ID
    hearth-submit --master tcp://HOST:PORT --kill APP_ID

    Client mode: the driver runs here.  Every driver setting given on the
    command line (a flag, --conf KEY=VALUE or a --conf FILE) is handed to
    the driver as a HEARTH_* environment variable; the driver reads the
    environment and the defaults file itself.  A job file runs in this
    process (jobrun.h: what hearth-driver runs, without a second program
    load), a driver program replaces it; either way signals and the exit
    status are the driver's own, and a job file's messages give this
    program's name.  The master defaults to $HEARTH_MASTER, else
    the defaults file's, else local[*].

    Cluster mode (submit_driver.c): the application and its libraries go
    to the master, which runs the driver on a worker; the same settings
    travel with it.  --status, --kill and --logs are submit_admin.c; both
    talk to the master through submit_request.c.  This file is the root:
    it calls them, they never call it.
*/
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfile/jobrun.h"
#include "libcore/conf.h"
#include "libcore/ids.h"
#include "libcore/spawn.h"
#include "libhearth/internal.h"
#include "libhearth/ship.h"
#include "submit/submit_admin.h"
#include "submit/submit_driver.h"
#include "submit/submit_request.h"

/* submit's own options, then every driver option. */
static const hearth_opt_t s_own[] = {
    {"deploy-mode", HEARTH_OPT_STR, "client", "MODE",
     "client: the driver runs here; cluster: the master runs it on a worker "
     "(needs --master tcp://HOST:PORT)"},
    {"driver-cores", HEARTH_OPT_INT, NULL, "N",
     "cluster mode: cores the driver holds on its worker (default 1)", 1,
     65536},
    {"driver-memory", HEARTH_OPT_MEMORY, "1G", "SIZE",
     "cluster mode: memory the driver holds on its worker"},
    {"supervise", HEARTH_OPT_BOOL, "false", "",
     "cluster mode: relaunch the driver, with back-off, when it fails"},
    {"no-wait", HEARTH_OPT_BOOL, "false", "",
     "cluster mode: print the driver id and return, instead of following "
     "the driver to its end"},
    {"max-submit-size", HEARTH_OPT_SIZE, "64M", "SIZE",
     "cluster mode: largest application (with its libraries) to send"},
    {"status", HEARTH_OPT_STR, NULL, "DRIVER_ID",
     "print a cluster-mode driver's state, worker and error"},
    {"kill", HEARTH_OPT_STR, NULL, "ID",
     "kill a cluster-mode driver (and its relaunches; wait until KILLED), "
     "or an application of any deploy mode by its APP_ID"},
    {"logs", HEARTH_OPT_STR, NULL, "DRIVER_ID",
     "print a cluster-mode driver's output: its stdout on its worker"},
    {"log-stream", HEARTH_OPT_STR, "stdout", "STREAM",
     "with --logs: stdout or stderr"},
    {"timeout", HEARTH_OPT_DURATION, "10s", NULL,
     "cluster mode: how long to wait for each answer of the master"},
    {NULL},
};

/* Options that only mean something in cluster mode. */
static const char *const s_cluster_only[] = {"driver-cores", "driver-memory",
                                             "supervise", "no-wait", NULL};

static hearth_opt_t *
s_table (void)
{
    size_t nown = 0, ndriver = 0;
    const hearth_opt_t *driver = driver_options ();
    while (s_own[nown].name)
        nown++;
    while (driver[ndriver].name)
        ndriver++;
    hearth_opt_t *table = calloc (nown + ndriver + 1, sizeof *table);
    if (!table)
        return NULL;
    memcpy (table, s_own, nown * sizeof *table);
    memcpy (table + nown, driver, ndriver * sizeof *table);
    return table;
}

/* An absolute path for a file given relative to here. */
static char *
s_absolute (const char *path)
{
    char *abs = realpath (path, NULL);
    return abs ? abs : strdup (path);
}

/* Put n paths, comma-separated and absolute, in the variable env. */
static int
s_export_paths (const char *env, const char *const *paths, size_t n)
{
    char *joined = calloc (1, 1);
    for (size_t i = 0; joined && i < n; i++) {
        char *abs = s_absolute (paths[i]), *next = NULL;
        if (!abs || asprintf (&next, "%s%s%s", joined, i ? "," : "", abs) < 0)
            next = NULL;
        free (abs);
        free (joined);
        joined = next;
    }
    int rc = joined ? setenv (env, joined, 1) : -1;
    free (joined);
    return rc;
}

/* The libraries given on the command line, checked, for the driver. */
static int
s_export_libs (hearth_conf_t *conf)
{
    const char *const *libs;
    size_t n = hearth_conf_list (conf, "lib", &libs);
    if (n == 0 || !driver_setting_given (conf, "lib"))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (access (libs[i], R_OK) != 0)
            return submit_fail (-1, "--lib %s: %s", libs[i], strerror (errno));
    return s_export_paths ("HEARTH_LIB", libs, n) < 0
               ? submit_fail (-1, "out of memory")
               : 0;
}

/* The files given on the command line, checked as the driver will
   (before anything runs), for the driver. */
static int
s_export_files (hearth_conf_t *conf)
{
    size_t n = 0;
    hearth_error_t err;
    if (!driver_setting_given (conf, "files"))
        return 0;
    char **files = ship_file_paths (conf, &n);
    int rc =
        !files ? submit_fail (-1, "out of memory")
        : ship_check_files ((const char *const *) files, n, NULL, &err) < 0
            ? submit_fail (-1, "--files: %s", err.text)
        : s_export_paths ("HEARTH_FILES", (const char *const *) files, n) < 0
            ? submit_fail (-1, "out of memory")
            : 0;
    ship_paths_destroy (&files);
    return rc;
}

/* The --param values, for the driver (in HEARTH_PARAM, encoded). */
static int
s_export_params (hearth_conf_t *conf)
{
    if (!driver_setting_given (conf, "param"))
        return 0;
    char *text = driver_params_encode (conf);
    int rc = text ? setenv ("HEARTH_PARAM", text, 1) : -1;
    free (text);
    return rc < 0 ? submit_fail (-1, "out of memory") : 0;
}

/* The --executor-label values, checked, for the driver (comma-separated
   in HEARTH_EXECUTOR_LABEL: a label has no comma, libcore/labels.h). */
static int
s_export_labels (hearth_conf_t *conf)
{
    hearth_error_t err;
    if (driver_executor_labels (conf, NULL, &err) < 0)
        return submit_fail (-1, "%s", err.text);
    if (!driver_setting_given (conf, "executor-label"))
        return 0;
    char *text = driver_list_join (conf, "executor-label");
    int rc = text ? setenv ("HEARTH_EXECUTOR_LABEL", text, 1) : -1;
    free (text);
    return rc < 0 ? submit_fail (-1, "out of memory") : 0;
}

/* The --executor-resource and local-cluster --worker-resource(-discovery)
   values, checked, for the driver (comma-separated in
   HEARTH_EXECUTOR_RESOURCE...: the driver joins an address list split
   there back, driver_worker_resources). */
static int
s_export_resources (hearth_conf_t *conf)
{
    static const char *const names[] = {"executor-resource", "worker-resource",
                                        "worker-resource-discovery"};
    hearth_error_t err;
    if (driver_check_executor_resources (conf, &err) < 0)
        return submit_fail (-1, "%s", err.text);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char env[64];
        size_t n;
        if (!driver_setting_given (conf, names[i]))
            continue;
        char **items =
            i ? driver_worker_resources (conf, names[i], &n, &err) : NULL;
        if (i && !items)
            return submit_fail (-1, "%s", err.text);
        driver_params_destroy (&items);
        char *text = driver_list_join (conf, names[i]);
        hearth_conf_env_name (names[i], env, sizeof env);
        int rc = text ? setenv (env, text, 1) : -1;
        free (text);
        if (rc < 0)
            return submit_fail (-1, "out of memory");
    }
    return 0;
}

/* Hand every driver setting given on the command line to the driver. */
static int
s_export (hearth_conf_t *conf)
{
    char env[160];
    for (const hearth_opt_t *o = driver_options (); o->name; o++) {
        if (o->type == HEARTH_OPT_LIST || !driver_setting_given (conf, o->name))
            continue;
        hearth_conf_env_name (o->name, env, sizeof env);
        if (setenv (env, hearth_conf_str (conf, o->name), 1) < 0)
            return submit_fail (-1, "cannot prepare the driver's environment");
    }
    if (s_export_libs (conf) < 0 || s_export_files (conf) < 0
        || s_export_params (conf) < 0 || s_export_resources (conf) < 0
        || s_export_labels (conf) < 0)
        return -1;
    /* Our programs find each other beside this one. */
    char dir[PATH_MAX];
    if (!getenv ("HEARTH_BIN_DIR")
        && hearth_program_path ("", dir, sizeof dir)[0]) {
        size_t len = strlen (dir);
        if (len && dir[len - 1] == '/')
            dir[len - 1] = '\0';
        setenv ("HEARTH_BIN_DIR", dir, 1);
    }
    return 0;
}

/* Become the driver: exec the user's program (argv is NULL-terminated
   after it), or run a job file here as hearth-driver would, under the
   name "hearth-submit". */
static int
s_become_driver (int argc, char **argv, int first)
{
    const char *app = argv[first];
    if (!submit_is_job_file (app)) {
        execvp (app, argv + first);
        fprintf (stderr, "hearth-submit: cannot run %s: %s\n", app,
                 strerror (errno));
        return 1;
    }
    char **args = calloc (argc - first + 2, sizeof *args);
    if (!args)
        return submit_fail (1, "out of memory");
    size_t n = 0;
    args[n++] = "hearth-submit";
    for (int i = first; i < argc; i++)
        args[n++] = argv[i];
    int rc = jobrun_main ((int) n, args);
    free (args);
    return rc;
}

/* The --status, --kill or --logs asked for on the command line (the
   environment never asks for them), or NULL. */
static const char *
s_request (hearth_conf_t *conf, const char **which)
{
    static const char *const requests[] = {"status", "kill", "logs", NULL};
    for (int i = 0; requests[i]; i++)
        if (hearth_conf_source (conf, requests[i]) == HEARTH_SRC_FLAG) {
            *which = requests[i];
            return hearth_conf_str (conf, requests[i]);
        }
    return NULL;
}

static int
s_run (hearth_conf_t *conf, int argc, char **argv, int first)
{
    const char *which = NULL;
    const char *id = s_request (conf, &which);
    const char *mode = hearth_conf_str (conf, "deploy-mode");
    hearth_error_t err;
    if (driver_check_master (conf, &err) < 0
        || driver_check_limits (conf, &err) < 0)
        return submit_fail (2, "%s", err.text);
    if (id && strcmp (which, "status") == 0)
        return submit_status (conf, id);
    if (id && strcmp (which, "kill") == 0)
        return hearth_id_valid (HEARTH_ID_APP, id) ? submit_kill_app (conf, id)
                                                   : submit_kill (conf, id);
    if (id)
        return submit_logs (conf, id);
    if (first >= argc)
        return submit_fail (2, "no application given (see --help)");
    /* Tasks see where we run as HEARTH_SUBMIT_DIR, whichever the mode. */
    char dir[PATH_MAX];
    if (driver_submit_dir (conf, dir, sizeof dir, &err) < 0
        || hearth_conf_set (conf, "submit-dir", dir, HEARTH_SRC_FLAG, &err) < 0)
        return submit_fail (2, "%s", err.text);
    if (strcmp (mode, "cluster") == 0)
        return submit_cluster (conf, argc, argv, first);
    if (strcmp (mode, "client") != 0)
        return submit_fail (2, "--deploy-mode: client or cluster");
    for (int i = 0; s_cluster_only[i]; i++)
        if (hearth_conf_source (conf, s_cluster_only[i]) == HEARTH_SRC_FLAG) {
            fprintf (stderr,
                     "hearth-submit: --%s needs --deploy-mode cluster\n",
                     s_cluster_only[i]);
            return 2;
        }
    if (s_export (conf) < 0)
        return 1; /* said why */
    return s_become_driver (argc, argv, first);
}

int
main (int argc, char **argv)
{
    hearth_error_t err;
    hearth_opt_t *table = s_table ();
    hearth_conf_t *conf =
        table ? hearth_conf_new ("hearth-submit", table) : NULL;
    /* Strict: hearth-submit knows every key of the defaults file, and
       every setting --conf may give it. */
    if (conf)
        hearth_conf_strict (conf);
    if (!conf || hearth_conf_use_defaults (conf, NULL, true) < 0) {
        hearth_conf_destroy (&conf);
        free (table);
        return submit_fail (1, "out of memory");
    }
    int first = hearth_conf_parse (conf, argc, argv, &err);
    int rc = 0;
    if (first < 0)
        rc = submit_fail (2, "%s", err.text);
    else if (hearth_conf_wants_help (conf))
        hearth_conf_usage (
            conf, stdout,
            "[OPTIONS] APP [ARGS...]\n"
            "       hearth-submit --master tcp://HOST:PORT --deploy-mode "
            "cluster [OPTIONS] APP [ARGS...]\n"
            "       hearth-submit --master tcp://HOST:PORT --status|--kill|"
            "--logs DRIVER_ID\n"
            "       hearth-submit --master tcp://HOST:PORT --kill APP_ID",
            "Runs APP, a JSON job file or a driver program, as a Hearth "
            "application.\nMASTER is local[N], local[*] (the default), "
            "local[N,F], local[*,F],\nlocal-cluster[W,C,M] or tcp://HOST:PORT "
            "(or a list of masters).\nIn cluster mode the "
            "master runs the driver on a worker: see docs/operations.md.");
    else if (hearth_conf_wants_version (conf))
        printf ("hearth-submit %s\n", PACKAGE_VERSION);
    else
        rc = s_run (conf, argc, argv, first);
    hearth_conf_destroy (&conf);
    free (table);
    return rc;
}

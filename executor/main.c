/*  hearth-executor - runs the tasks of one application on one node.

    Started by a worker (or by a driver in local mode) with the driver's
    address; connects back to it, registers, runs up to --cores tasks at
    once and streams their status.  It exits by itself when the driver
    says STOP_EXECUTOR, when the driver has been silent for
    liveness x interval, or when the process that started it is gone.
*/
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "executor/executor.h"
#include "executor/libs.h"
#include "executor/link.h"
#include "executor/partcache.h"
#include "executor/shuffletask.h"
#include "libcore/ids.h"
#include "libcore/keys.h"
#include "libcore/liveness.h"
#include "libcore/log.h"
#include "libcore/shuffleopts.h"
#include "libcore/sock.h"
#include "libcore/spawn.h"
#include "libcore/start.h"

static const hearth_opt_t s_opts[] = {
    {"driver-url", HEARTH_OPT_STR, NULL, "URL",
     "the driver's executor endpoint, tcp://HOST:PORT (required)"},
    {"app-id", HEARTH_OPT_STR, NULL, "ID", "the application (required)"},
    {"exec-id", HEARTH_OPT_INT, "0", "N", "this executor's id in the app", 0,
     2147483647},
    {"cores", HEARTH_OPT_INT, "1", "N", "tasks run at once", 1, 65536},
    {"resource", HEARTH_OPT_LIST, NULL, "NAME=ADDRS",
     "custom resource addresses this executor holds, gpu=0,2 (repeatable, "
     "one per name): its tasks get them (docs/resources.md)"},
    {"memory-mb", HEARTH_OPT_INT, "1024", "N", "memory granted, in MiB", 1,
     INT64_MAX},
    {"host", HEARTH_OPT_STR, NULL, "NAME",
     "host name reported to the driver (default: this host's name)"},
    {"token", HEARTH_OPT_STR, NULL, "TEXT",
     "the application's secret, presented at registration (pass it as "
     "HEARTH_TOKEN: the environment is private, the command line is not)"},
    {"driver-key", HEARTH_OPT_STR, NULL, "KEY",
     "the driver's CURVE public key (Z85): encrypt the link"},
    {"work-dir", HEARTH_OPT_STR, ".", "DIR",
     "where shipped files are put and scratch files go"},
    {"ship-dir", HEARTH_OPT_STR, NULL, "DIR",
     "the node's cache of shipped files and libraries, shared by the "
     "application's executors there (the worker's WORK_DIR/APP_ID/.ship; "
     "default: WORK_DIR/.files, this executor's own)"},
    {"heartbeat-interval", HEARTH_OPT_DURATION, "1s", "TIME",
     "heartbeat interval (the driver's value wins once registered)"},
    {"heartbeat-liveness", HEARTH_OPT_INT, "5", "N",
     "missed intervals before the driver counts as gone", 1, 1000},
    {"max-result-bytes", HEARTH_OPT_SIZE, "64M", "SIZE",
     "largest result (stdout) a task may return; more fails the task"},
    {"shuffle-dir", HEARTH_OPT_STR, NULL, "DIR",
     "where map tasks write their outputs (under DIR/APP_ID): the worker's "
     "WORK_DIR/shuffle; without it, map tasks fail"},
    {"shuffle-url", HEARTH_OPT_STR, NULL, "URL",
     "this node's block server, tcp://HOST:PORT (none in local[N])"},
    {"shuffle-key", HEARTH_OPT_STR, NULL, "KEY",
     "that server's CURVE public key (Z85), in a keyed cluster"},
    HEARTH_SHUFFLE_BOUND_OPTS,
    {"running-report", HEARTH_OPT_DURATION, "50ms", "TIME",
     "report RUNNING for tasks that have run this long"},
    {"pin-threads", HEARTH_OPT_STR, "auto", "MODE",
     "pin task threads one per CPU: yes, no, or auto (when there are as "
     "many threads as CPUs)"},
    {"log-level", HEARTH_OPT_STR, "info", "LEVEL", "error, warn, info, debug"},
    {"log-file", HEARTH_OPT_STR, NULL, "FILE", "log here instead of stderr"},
    {NULL},
};

static int
s_usage_error (const char *text)
{
    fprintf (stderr, "hearth-executor: %s\n", text);
    return 2;
}

/* The shuffle's settings: a copy of each string given (empty: none). */
static int
s_configure_shuffle (executor_t *ex, hearth_error_t *err)
{
    const char *names[] = {"shuffle-dir", "shuffle-url", "shuffle-key"};
    char **fields[] = {&ex->shuffle_dir, &ex->shuffle_url, &ex->shuffle_key};
    for (size_t i = 0; i < 3; i++) {
        const char *v = hearth_conf_str (ex->conf, names[i]);
        if (v && *v && !(*fields[i] = strdup (v)))
            return hearth_errprintf (err, "out of memory");
    }
    if (ex->shuffle_url && strncmp (ex->shuffle_url, "tcp://", 6) != 0)
        return hearth_errprintf (err,
                                 "--shuffle-url: expected tcp://HOST:PORT, "
                                 "got '%s'",
                                 ex->shuffle_url);
    if (ex->shuffle_key && strlen (ex->shuffle_key) != HEARTH_KEY_TXT_LEN)
        return hearth_errprintf (err,
                                 "--shuffle-key: expected a Z85 key of "
                                 "%d characters",
                                 HEARTH_KEY_TXT_LEN);
    if (ex->shuffle_memory < 1 || ex->fetch_in_flight < 1
        || ex->max_input_bytes < 1)
        return hearth_errprintf (err, "shuffle-memory, fetch-max-in-flight and "
                                      "max-input-bytes must be at least 1 "
                                      "byte");
    return 0;
}

/* Copy the settings into the context and check them. */
static int
s_configure (executor_t *ex, hearth_error_t *err)
{
    hearth_conf_t *c = ex->conf;
    const char *app = hearth_conf_str (c, "app-id");
    const char *url = hearth_conf_str (c, "driver-url");
    if (!url)
        return hearth_errprintf (err, "--driver-url is required");
    if (!app || !hearth_id_valid (HEARTH_ID_APP, app))
        return hearth_errprintf (err,
                                 "--app-id: '%s' is not an application "
                                 "id",
                                 app ? app : "");
    char host[256];
    if (gethostname (host, sizeof host) < 0)
        snprintf (host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    const char *h = hearth_conf_str (c, "host");
    const char *token = hearth_conf_str (c, "token");
    if (token && !*token)
        token = NULL; /* HEARTH_TOKEN= means none */
    ex->app_id = strdup (app);
    ex->driver_url = strdup (url);
    ex->host = strdup (h ? h : host);
    ex->token = token ? strdup (token) : NULL;
    unsetenv ("HEARTH_TOKEN"); /* tasks have no use for it */
    ex->work_dir = strdup (hearth_conf_str (c, "work-dir"));
    const char *ship = hearth_conf_str (c, "ship-dir");
    ex->ship_dir = ship && *ship ? strdup (ship) : NULL;
    ex->exec_id = hearth_conf_int (c, "exec-id");
    ex->cores = (int) hearth_conf_int (c, "cores");
    ex->hb_interval_ms = hearth_conf_ms (c, "heartbeat-interval");
    ex->hb_liveness = hearth_conf_int (c, "heartbeat-liveness");
    ex->max_result_bytes = (int64_t) hearth_conf_bytes (c, "max-result-bytes");
    ex->running_report_ms = hearth_conf_ms (c, "running-report");
    ex->shuffle_memory = hearth_conf_bytes (c, "shuffle-memory");
    ex->fetch_in_flight = hearth_conf_bytes (c, "fetch-max-in-flight");
    ex->max_input_bytes = hearth_conf_bytes (c, "max-input-bytes");
    ex->memory_granted = (size_t) hearth_conf_int (c, "memory-mb") << 20;
    ex->cache_memory =
        executor_cache_budget (ex, hearth_conf_bytes (c, "cache-memory"));
    if (s_configure_shuffle (ex, err) < 0)
        return -1;
    if (ex->hb_interval_ms < 1)
        return hearth_errprintf (err, "--heartbeat-interval must be > 0");
    const char *pin = hearth_conf_str (c, "pin-threads");
    if (strcmp (pin, "auto") != 0 && strcmp (pin, "yes") != 0
        && strcmp (pin, "no") != 0)
        return hearth_errprintf (err,
                                 "--pin-threads: expected yes, no or "
                                 "auto, got '%s'",
                                 pin);
    return 0;
}

/* The --resource addresses.  A task sees HEARTH_RESOURCE_<NAME> only
   for the addresses it was given (and CUDA_VISIBLE_DEVICES only when it
   was given gpus, on an executor that holds some): what this process
   inherited of those variables is dropped. */
static int
s_configure_resources (executor_t *ex, hearth_error_t *err)
{
    const char *const *specs;
    size_t n = hearth_conf_list (ex->conf, "resource", &specs);
    for (size_t i = 0; i < n; i++) {
        hearth_error_t e;
        if (hearth_resources_add_spec (&ex->resources, specs[i], &e) < 0)
            return hearth_errprintf (err, "--resource %s: %s", specs[i],
                                     e.text);
    }
    if (hearth_resources_find (&ex->resources, "gpu"))
        unsetenv ("CUDA_VISIBLE_DEVICES");
    extern char **environ;
    static const char prefix[] = "HEARTH_RESOURCE_";
    for (size_t i = 0; environ && environ[i];) {
        const char *eq = strchr (environ[i], '=');
        if (strncmp (environ[i], prefix, sizeof prefix - 1) != 0 || !eq) {
            i++;
            continue;
        }
        char name[256];
        size_t len = (size_t) (eq - environ[i]);
        if (len >= sizeof name) { /* none of ours is that long */
            i++;
            continue;
        }
        snprintf (name, sizeof name, "%.*s", (int) len, environ[i]);
        if (unsetenv (name) < 0)
            i++;
        /* else environ shifted: look at i again */
    }
    return 0;
}

static int
s_on_signal (hearth_loop_t *loop, int fd, void *arg)
{
    (void) loop;
    (void) fd;
    executor_t *ex = arg;
    int sig;
    while ((sig = hearth_signalfd_read (ex->sigfd)) > 0) {
        if (sig == SIGCHLD)
            continue; /* each command's thread waits for its own child */
        else if (sig == SIGHUP)
            hearth_log_reopen ();
        else {
            log_info ("signal %d: stopping", sig);
            ex->stopping = true;
        }
    }
    return ex->stopping ? -1 : 0;
}

static int
s_on_tick (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    executor_t *ex = arg;
    if (getppid () != ex->parent) {
        log_warn ("the process that started this executor is gone: exiting");
        ex->stopping = true;
        return -1;
    }
    return link_on_tick (ex->link);
}

static int
s_setup (executor_t *ex, hearth_error_t *err)
{
    static const int sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, 0};
    signal (SIGPIPE, SIG_IGN);
    if ((ex->sigfd = hearth_signalfd_open (sigs)) < 0)
        return hearth_errprintf (err, "signalfd: %s", strerror (errno));
    hearth_zsys_init_unbounded ();
    ex->parent = getppid ();
    pthread_mutex_init (&ex->cmd_lock, NULL);
    pthread_mutex_init (&ex->outdirs_lock, NULL);
    ex->loop = hearth_loop_new ();
    if (!ex->loop)
        return hearth_errprintf (err, "out of memory");
    if (!(ex->partcache = partcache_new (ex->cache_memory)))
        return hearth_errprintf (err, "out of memory");
    if (!(ex->libs = libs_new ()))
        return hearth_errprintf (err, "out of memory");
    int64_t tick = hearth_liveness_tick_ms (ex->hb_interval_ms);
    if (hearth_loop_fd (ex->loop, ex->sigfd, s_on_signal, ex) < 0
        || hearth_loop_child_shared (ex->loop) < 0 /* command tasks' */
        || hearth_loop_timer (ex->loop, (size_t) tick, 0, s_on_tick, ex) < 0)
        return hearth_errprintf (err, "out of memory");
    ex->link = link_new (ex, err);
    return ex->link ? 0 : -1;
}

static void
s_teardown (executor_t *ex)
{
    link_destroy (&ex->link);        /* the tasks first, then the socket */
    shuffletask_remove_outdirs (ex); /* no task writes any more */
    libs_destroy (&ex->libs);
    partcache_destroy (&ex->partcache); /* no task reads it any more */
    hearth_loop_destroy (&ex->loop);
    pthread_mutex_destroy (&ex->cmd_lock);
    pthread_mutex_destroy (&ex->outdirs_lock);
    if (ex->sigfd >= 0)
        close (ex->sigfd);
    free (ex->app_id);
    free (ex->driver_url);
    free (ex->host);
    free (ex->token);
    free (ex->work_dir);
    free (ex->ship_dir);
    for (size_t i = 0; ex->broadcast && ex->broadcast[i]; i++)
        free (ex->broadcast[i]);
    free (ex->broadcast);
    free (ex->ship_error);
    free (ex->shuffle_dir);
    free (ex->shuffle_url);
    free (ex->shuffle_key);
    hearth_resources_clear (&ex->resources);
    hearth_conf_destroy (&ex->conf);
}

/* Keep up to 8 MiB of freed heap instead of glibc's 128 KiB: with two
   or more cores, a batch's tasks and messages took the heap's top past
   128 KiB and gave it back as they ended, and each give-back (brk) flushed
   the TLB of every CPU running one of our threads, each regrowth faulted
   the pages in again: 37 % of the loop's thread, local[2]'s no-op rate
   halved (docs/performance.md, "The executor's heap").  Fixing the trim
   threshold fixes glibc's mmap threshold too (it stops adapting): 1 MiB,
   so that the usual blocks stay on the heap. */
static void
s_steady_heap (void)
{
    mallopt (M_MMAP_THRESHOLD, 1 << 20);
    mallopt (M_TRIM_THRESHOLD, 8 << 20);
}

int
main (int argc, char **argv)
{
    executor_t ex = {.sigfd = -1};
    hearth_error_t err;
    s_steady_heap ();
    ex.conf = hearth_conf_new ("hearth-executor", s_opts);
    if (!ex.conf)
        return s_usage_error ("out of memory");
    int rc = hearth_start (ex.conf, argc, argv,
                           "--driver-url URL --app-id ID [OPTIONS]",
                           "Runs the tasks of one application; started by "
                           "hearth-worker.");
    if (rc <= 0) {
        hearth_conf_destroy (&ex.conf);
        return rc == 0 ? 0 : 2;
    }
    if (s_configure (&ex, &err) < 0) {
        s_teardown (&ex);
        return s_usage_error (err.text);
    }
    if (s_configure_resources (&ex, &err) < 0) {
        fprintf (stderr, "hearth-executor: %s\n", err.text);
        s_teardown (&ex);
        return 1;
    }
    if (s_setup (&ex, &err) < 0) {
        log_error ("%s", err.text);
        s_teardown (&ex);
        return 1;
    }
    log_info ("executor %lld of %s: %d cores, driver %s",
              (long long) ex.exec_id, ex.app_id, ex.cores, ex.driver_url);
    for (size_t i = 0; i < ex.resources.n; i++) {
        char *spec = hearth_resource_spec (&ex.resources.v[i]);
        log_info ("resource %s", spec ? spec : ex.resources.v[i].name);
        free (spec);
    }
    hearth_loop_start (ex.loop);
    s_teardown (&ex);
    log_info ("exiting with status %d", ex.exit_code);
    hearth_log_close ();
    return ex.exit_code;
}

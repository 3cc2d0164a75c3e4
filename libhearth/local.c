/*  local.c - the embedded modes: local[N] runs one executor process of
    ours with N cores, local-cluster[W,C,M] starts a real master and W real
    workers on loopback for the application's lifetime; and the choice of
    mode from the "master" setting.

    Every process started here leads a process group of its own: a
    terminal's Ctrl-C (SIGINT to its foreground group) then reaches the
    driver alone, which stops its executors and daemons in order, as
    against a cluster.  (In the driver's group they took the signal too,
    died under it, and the driver saw a lost executor, re-ran its tasks
    on a new one and waited for that one to stop.)  They still go when
    the driver dies: they get SIGTERM when the thread that started them
    ends.

    The owner's loop watches every process started here
    (hearth_loop_child): their exits come to the handlers below, which
    tell the owner; a stop waits for them with hearth_loop_child_end. */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/readyfile.h"
#include "libcore/spawn.h"
#include "libhearth/internal.h"
#include "libhearth/local.h"

/* How long our daemons may take to start, and to stop. */
static const int64_t s_start_timeout_ms = 10000;
static const int64_t s_stop_timeout_ms = 5000;
/* A local executor that lived this long resets the failure count. */
static const int64_t s_healthy_ms = 10000;
/* Local executors that may die in a row before the application fails. */
static const int s_max_local_failures = 10;

/* Our executor process (local[N]): one at a time, the next one started
   once the executor set has let go of the last. */
typedef struct {
    int exec_id;        /* its id, or -1: none */
    pid_t pid;          /* its pid until reaped, then 0 */
    int64_t started_ms; /* when we started it (monotonic) */
} s_proc_t;

struct local {
    hearth_loop_t *loop;       /* watches our processes (borrowed) */
    hearth_conf_t *conf;       /* settings (borrowed) */
    local_setup_t setup;       /* which mode, how big */
    char token[64];            /* our executors present it */
    int64_t hb_interval_ms;    /* heartbeat interval */
    int64_t hb_liveness;       /* for our executors */
    char driver_url[300];      /* where our executors connect */
    char app_id[160];          /* the application they belong to */
    char *scratch_dir;         /* our temporary directory, or NULL */
    bool scratch_owned;        /* we made it: remove it at the end */
    s_proc_t exec;             /* our executor process */
    int next_exec;             /* next local executor id */
    int failures;              /* local executors that died in a row */
    pid_t master_pid;          /* local-cluster: our master, or 0 */
    pid_t *worker_pids;        /* local-cluster: our workers (0: ended) */
    char last_worker_end[200]; /* local-cluster: how the last one ended */
    bool workers_gone;         /* local-cluster: none left, the app told */
    char master_url[512];      /* local-cluster: where our master listens */
    bool stopping;             /* local_stop began: start nothing more */
    local_cbs_t cbs;           /* the owner's callbacks */
};

local_t *
local_new (const local_opts_t *opts, const local_cbs_t *cbs)
{
    local_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->loop = opts->loop;
    self->conf = opts->conf;
    self->setup = *opts->setup;
    snprintf (self->token, sizeof self->token, "%s", opts->token);
    self->hb_interval_ms = opts->hb_interval_ms;
    self->hb_liveness = opts->hb_liveness;
    self->cbs = *cbs;
    self->exec.exec_id = -1;
    return self;
}

void
local_destroy (local_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    local_t *self = *self_p;
    free (self->worker_pids);
    free (self->scratch_dir);
    free (self);
    *self_p = NULL;
    errno = saved;
}

const char *
local_master_url (const local_t *self)
{
    return self->master_url;
}

bool
local_master_running (const local_t *self)
{
    return self->master_pid > 0;
}

static int
s_make_scratch (local_t *self, hearth_error_t *err)
{
    const char *dir = hearth_conf_str (self->conf, "work-dir");
    if (dir) {
        if (mkdir (dir, 0700) < 0 && errno != EEXIST)
            return hearth_errprintf (err, "cannot create %s: %s", dir,
                                     strerror (errno));
        /* absolute: our executors run in directories below it */
        if (!(self->scratch_dir = realpath (dir, NULL)))
            return hearth_errprintf (err, "cannot use %s: %s", dir,
                                     strerror (errno));
        return 0;
    }
    const char *tmp = getenv ("TMPDIR");
    char path[4096];
    snprintf (path, sizeof path, "%s/hearth-XXXXXX",
              tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp (path))
        return hearth_errprintf (err, "cannot create a directory in %s: %s",
                                 tmp && *tmp ? tmp : "/tmp", strerror (errno));
    self->scratch_owned = true;
    if (!(self->scratch_dir = realpath (path, NULL)))
        self->scratch_dir = strdup (path); /* removed at the end all the same */
    return self->scratch_dir ? 0 : hearth_errprintf (err, "out of memory");
}

static void
s_ms_text (char *buf, size_t size, int64_t ms)
{
    snprintf (buf, size, "%lldms", (long long) ms);
}

/* How a process of ours ended, for a message. */
static char *
s_end_text (const hearth_loop_exit_t *exit, char *buf, size_t size)
{
    if (exit->status < 0)
        snprintf (buf, size, "ended (its status unknown)");
    else
        hearth_wait_status_text (exit->status, buf, size);
    return buf;
}

/* ---- local[N] ----------------------------------------------------------- */

/* Our executor's process exited (reaped): the slot is free once the
   executor set lets go (local_executor_gone). */
static int
s_on_executor_exit (hearth_loop_t *loop, const hearth_loop_exit_t *exit,
                    void *arg)
{
    (void) loop;
    local_t *self = arg;
    s_proc_t *p = &self->exec;
    if (p->pid != exit->pid)
        return 0; /* not the current one: told already */
    char text[128];
    log_warn ("local executor %d %s", p->exec_id,
              s_end_text (exit, text, sizeof text));
    p->pid = 0;
    self->cbs.executor_exited (
        self->cbs.arg, p->exec_id,
        exit->ru.ru_maxrss > 0 ? (int64_t) exit->ru.ru_maxrss * 1024 : -1);
    return 0;
}

static int
s_spawn_executor (local_t *self, hearth_error_t *err)
{
    int id = self->next_exec++;
    int ncores = self->setup.cores;
    char dir[4200], exec_id[16], cores[16], hb[32], live[16], path[4096];
    char shuffle[4200]; /* our map outputs: no block server, all local */
    char ship[4200];    /* the shipped files' cache (executor/shipcache.h) */
    snprintf (dir, sizeof dir, "%s/exec-%d", self->scratch_dir, id);
    snprintf (shuffle, sizeof shuffle, "%s/shuffle", self->scratch_dir);
    snprintf (ship, sizeof ship, "%s/.ship", self->scratch_dir);
    if (mkdir (dir, 0700) < 0 && errno != EEXIST)
        return hearth_errprintf (err, "cannot create %s: %s", dir,
                                 strerror (errno));
    snprintf (exec_id, sizeof exec_id, "%d", id);
    snprintf (cores, sizeof cores, "%d", ncores);
    s_ms_text (hb, sizeof hb, self->hb_interval_ms);
    snprintf (live, sizeof live, "%lld", (long long) self->hb_liveness);
    const char *argv[] = {
        hearth_program_path ("hearth-executor", path, sizeof path),
        "--driver-url",
        self->driver_url,
        "--app-id",
        self->app_id,
        "--exec-id",
        exec_id,
        "--cores",
        cores,
        "--work-dir",
        dir,
        "--heartbeat-interval",
        hb,
        "--heartbeat-liveness",
        live,
        "--log-level",
        hearth_conf_str (self->conf, "log-level"),
        "--shuffle-dir",
        shuffle,
        "--ship-dir",
        ship,
        NULL};
    char token[128];
    snprintf (token, sizeof token, "HEARTH_TOKEN=%s", self->token);
    const char *extra[] = {token, NULL};
    const char **envp = hearth_env_merge (NULL, extra);
    /* In its work dir, as a worker's executor is: command tasks read the
       shipped files there by name. */
    hearth_spawn_opts_t opts = {.argv = argv,
                                .envp = envp,
                                .cwd = dir,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stdout_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_INHERIT,
                                .new_pgroup = true,
                                .die_with_parent = true};
    pid_t pid = envp ? hearth_loop_spawn (self->loop, &opts, false,
                                          s_on_executor_exit, self, err)
                     : hearth_errprintf (err, "out of memory");
    free (envp);
    if (pid < 0)
        return -1;
    self->exec =
        (s_proc_t){.exec_id = id, .pid = pid, .started_ms = hearth_mono_ms ()};
    self->cbs.executor_started (self->cbs.arg, id, ncores);
    return 0;
}

void
local_executor_gone (local_t *self, int exec_id)
{
    s_proc_t *p = &self->exec;
    if (exec_id < 0 || p->exec_id != exec_id)
        return;     /* not ours */
    if (p->pid > 0) /* hung, or its exit not told yet: it goes, now */
        hearth_loop_child_end (self->loop, p->pid, 0, NULL);
    int64_t started_ms = p->started_ms;
    *p = (s_proc_t){.exec_id = -1};
    if (self->stopping)
        return;
    if (hearth_mono_ms () - started_ms > s_healthy_ms)
        self->failures = 0;
    if (++self->failures > s_max_local_failures) {
        self->cbs.app_dead (self->cbs.arg,
                            "the local executor keeps failing (see its "
                            "messages above)");
        return;
    }
    hearth_error_t err;
    if (s_spawn_executor (self, &err) < 0)
        self->cbs.app_dead (self->cbs.arg, err.text);
}

/* A worker that ended (one that could not start says why above) leaves
   the cluster smaller, as a worker lost does a real one; with none left
   the application could only wait for ever. */
static int
s_on_worker_exit (hearth_loop_t *loop, const hearth_loop_exit_t *exit,
                  void *arg)
{
    (void) loop;
    local_t *self = arg;
    int left = 0;
    for (int i = 0; self->worker_pids && i < self->setup.workers; i++) {
        if (self->worker_pids[i] == exit->pid) {
            char text[128];
            self->worker_pids[i] = 0;
            log_warn ("local-cluster worker %d %s", i,
                      s_end_text (exit, text, sizeof text));
            snprintf (self->last_worker_end, sizeof self->last_worker_end,
                      "worker %d %s", i, text);
        }
        left += self->worker_pids[i] > 0;
    }
    if (left == 0 && !self->stopping && !self->workers_gone) {
        char why[256];
        self->workers_gone = true;
        snprintf (why, sizeof why, "every local-cluster worker exited (%s)",
                  self->last_worker_end);
        self->cbs.app_dead (self->cbs.arg, why);
    }
    return 0;
}

static int
s_on_master_exit (hearth_loop_t *loop, const hearth_loop_exit_t *exit,
                  void *arg)
{
    (void) loop;
    (void) exit;
    local_t *self = arg;
    self->master_pid = 0;
    if (!self->stopping)
        self->cbs.app_dead (self->cbs.arg, "the local-cluster master exited");
    return 0;
}

/* ---- local-cluster[W,C,M] ----------------------------------------------- */

/* Our daemons get SIGTERM should this thread end without stopping them
   (the driver killed): a local cluster never outlives its driver.  Like
   our executors, they lead process groups of their own (see the top of
   this file). */
static pid_t
s_spawn_daemon (local_t *self, const char *const *argv,
                hearth_loop_child_fn *on_exit, hearth_error_t *err)
{
    hearth_spawn_opts_t opts = {.argv = argv,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stdout_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_INHERIT,
                                .new_pgroup = true,
                                .die_with_parent = true};
    return hearth_loop_spawn (self->loop, &opts, false, on_exit, self, err);
}

/* Between two looks at the master's ready file while it starts: short at
   first, doubling to 0.5 ms.  (An inotify watch woken by the file's
   rename, with a look each 20 ms, made local-cluster's one-task job
   38 ms where the looks take 27, medians of 20 paired runs on 2 idle
   cores (farm-bench); instrumented, the driver found the file 5 to 25
   ms after it was written, and a look each 1 ms did not help: why the
   wake-up came late was not found, the looks were measured.) */
static const useconds_t s_first_look_us = 100, s_look_max_us = 500;

/* One look: 0 (ready: the URL read), 1 (not yet), or -1 with err (the
   master exited: it is reaped). */
static int
s_ready_look (local_t *self, const char *path, hearth_error_t *err)
{
    if (hearth_ready_file_read (path, self->master_url,
                                sizeof self->master_url))
        return 0;
    if (!hearth_loop_child_exited (self->loop, self->master_pid))
        return 1;
    hearth_loop_exit_t exit;
    char text[128];
    hearth_loop_child_end (self->loop, self->master_pid, -1, &exit);
    self->master_pid = 0;
    return hearth_errprintf (err, "hearth-master %s",
                             s_end_text (&exit, text, sizeof text));
}

/* Wait for the master's ready file; read its URL from the first line. */
static int
s_wait_ready (local_t *self, const char *path, hearth_error_t *err)
{
    int64_t deadline = hearth_mono_ms () + s_start_timeout_ms;
    useconds_t pause = s_first_look_us;
    int rc;
    while ((rc = s_ready_look (self, path, err)) > 0
           && hearth_mono_ms () < deadline)
        hearth_backoff_sleep (&pause, s_look_max_us);
    if (rc <= 0)
        return rc;
    return hearth_errprintf (err,
                             "hearth-master did not start within %lld "
                             "ms",
                             (long long) s_start_timeout_ms);
}

/* A local worker's command line: the fixed part, then each
   --worker-resource as --resource and each --worker-resource-discovery
   as --resource-discovery. */
typedef struct {
    const char **argv; /* NULL-terminated (owned array) */
    char **res;        /* the --resource values (owned) */
    char **disc;       /* the --resource-discovery values (owned) */
} s_wargv_t;

static void
s_wargv_free (s_wargv_t *w)
{
    free (w->argv);
    driver_params_destroy (&w->res);
    driver_params_destroy (&w->disc);
}

/* 0, or -1 with err (a bad value, no memory): w freed then. */
static int
s_wargv (hearth_conf_t *conf, const char *const *fixed, s_wargv_t *w,
         hearth_error_t *err)
{
    size_t nfixed = 0, nres = 0, ndisc = 0, k = 0;
    memset (w, 0, sizeof *w);
    while (fixed[nfixed])
        nfixed++;
    if (!(w->res =
              driver_worker_resources (conf, "worker-resource", &nres, err))
        || !(w->disc = driver_worker_resources (
                 conf, "worker-resource-discovery", &ndisc, err))) {
        s_wargv_free (w);
        return -1;
    }
    if (!(w->argv =
              calloc (nfixed + 2 * (nres + ndisc) + 1, sizeof *w->argv))) {
        s_wargv_free (w);
        return hearth_errprintf (err, "out of memory");
    }
    for (size_t i = 0; i < nfixed; i++)
        w->argv[k++] = fixed[i];
    for (size_t i = 0; i < nres; i++) {
        w->argv[k++] = "--resource";
        w->argv[k++] = w->res[i];
    }
    for (size_t i = 0; i < ndisc; i++) {
        w->argv[k++] = "--resource-discovery";
        w->argv[k++] = w->disc[i];
    }
    return 0;
}

/* Stop the workers: SIGTERM to all, then each waited for (SIGKILL after
   s_stop_timeout_ms). */
static void
s_stop_workers (local_t *self)
{
    for (int i = 0; self->worker_pids && i < self->setup.workers; i++)
        if (self->worker_pids[i] > 0)
            hearth_loop_child_signal (self->loop, self->worker_pids[i],
                                      SIGTERM);
    for (int i = 0; self->worker_pids && i < self->setup.workers; i++)
        if (self->worker_pids[i] > 0) {
            hearth_loop_child_end (self->loop, self->worker_pids[i],
                                   s_stop_timeout_ms, NULL);
            self->worker_pids[i] = 0;
        }
}

/* A local cluster's daemons serve no pages unless HEARTH_WEB_PORT asks
   for them: they would take the ports of the machine's real master and
   worker (8080, 8081 and the next ones), and loading the web server costs
   each about 3 ms at its start (libcore/mhdlib.h). */
static const char *
s_web_port (void)
{
    const char *port = getenv ("HEARTH_WEB_PORT");
    return port && *port ? port : "0";
}

/* Start the workers, each told to wait for the master's ready file. */
static int
s_start_workers (local_t *self, const char *ready, const char *hb,
                 hearth_error_t *err)
{
    char path[4096];
    const local_setup_t *setup = &self->setup;
    self->worker_pids = calloc (setup->workers, sizeof (pid_t));
    if (!self->worker_pids)
        return hearth_errprintf (err, "out of memory");
    for (int i = 0; i < setup->workers; i++) {
        char dir[4200], cores[16], memory[32];
        snprintf (dir, sizeof dir, "%s/worker-%d", self->scratch_dir, i);
        snprintf (cores, sizeof cores, "%d", setup->worker_cores);
        snprintf (memory, sizeof memory, "%lldM",
                  (long long) setup->worker_memory_mb);
        const char *fixed[] = {
            hearth_program_path ("hearth-worker", path, sizeof path),
            "--master-file",
            ready,
            "--cores",
            cores,
            "--memory",
            memory,
            "--work-dir",
            dir,
            "--host",
            "127.0.0.1",
            "--heartbeat-interval",
            hb,
            "--log-level",
            "error",
            "--web-port",
            s_web_port (),
            NULL};
        s_wargv_t w;
        if (s_wargv (self->conf, fixed, &w, err) < 0)
            return -1;
        pid_t pid = s_spawn_daemon (self, w.argv, s_on_worker_exit, err);
        s_wargv_free (&w);
        if (pid < 0)
            return -1;
        self->worker_pids[i] = pid;
    }
    return 0;
}

static int
s_start_cluster (local_t *self, hearth_error_t *err)
{
    char path[4096], ready[4200], hb[32];
    s_ms_text (hb, sizeof hb, self->hb_interval_ms);
    snprintf (ready, sizeof ready, "%s/master.ready", self->scratch_dir);
    const char *margv[] = {
        hearth_program_path ("hearth-master", path, sizeof path),
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--events-port",
        "0",
        "--ready-file",
        ready,
        "--heartbeat-interval",
        hb,
        "--log-level",
        "error",
        "--web-port",
        s_web_port (),
        NULL};
    if ((self->master_pid = s_spawn_daemon (self, margv, s_on_master_exit, err))
        < 0) {
        self->master_pid = 0;
        return -1;
    }
    /* the workers load and set up while the master does, and read its
       URL from its ready file (--master-file) */
    if (s_start_workers (self, ready, hb, err) < 0
        || s_wait_ready (self, ready, err) < 0) {
        s_stop_workers (self);
        return -1;
    }
    return 0;
}

int
local_start (local_t *self, const char *driver_url, const char *app_id,
             hearth_error_t *err)
{
    snprintf (self->driver_url, sizeof self->driver_url, "%s", driver_url);
    snprintf (self->app_id, sizeof self->app_id, "%s", app_id);
    if (s_make_scratch (self, err) < 0)
        return -1;
    if (self->setup.mode == MODE_LOCAL_CLUSTER)
        return s_start_cluster (self, err);
    return s_spawn_executor (self, err);
}

/* ---- stopping ----------------------------------------------------------- */

static int
s_remove_entry (const char *path, const struct stat *st, int flag,
                struct FTW *ftw)
{
    (void) st;
    (void) flag;
    (void) ftw;
    remove (path); /* best effort: what cannot go stays */
    return 0;
}

void
local_stop (local_t *self)
{
    self->stopping = true;
    if (self->exec.pid > 0) { /* told to stop by the executor set */
        hearth_loop_child_end (self->loop, self->exec.pid, s_stop_timeout_ms,
                               NULL);
        self->exec.pid = 0;
    }
    s_stop_workers (self);
    if (self->master_pid > 0) {
        hearth_loop_child_signal (self->loop, self->master_pid, SIGTERM);
        hearth_loop_child_end (self->loop, self->master_pid, s_stop_timeout_ms,
                               NULL);
        self->master_pid = 0;
    }
    if (self->scratch_owned && self->scratch_dir)
        nftw (self->scratch_dir, s_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else if (self->scratch_dir) {
        /* a --work-dir of the user's, which other applications may share:
           this one's map outputs go, and the shuffle directory if empty */
        char shuffle[4200], app[4400];
        snprintf (shuffle, sizeof shuffle, "%s/shuffle", self->scratch_dir);
        snprintf (app, sizeof app, "%s/%s", shuffle, self->app_id);
        nftw (app, s_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        rmdir (shuffle);
    }
}

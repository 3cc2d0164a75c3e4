/*  local.c - the embedded modes: local[N] runs one executor process of
    ours with N cores, local-cluster[W,C,M] starts a real master and W real
    workers on loopback for the application's lifetime; and the choice of
    mode from the "master" setting. */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "driver/engine.h"
#include "libcore/clock.h"
#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/spawn.h"

/* How long our daemons may take to start, and to stop. */
static const int64_t s_start_timeout_ms = 10000;
static const int64_t s_stop_timeout_ms = 5000;
/* A local executor that lived this long resets the failure count. */
static const int64_t s_healthy_ms = 10000;
/* Local executors that may die in a row before the application fails. */
static const int s_max_local_failures = 10;

int
local_parse_master (engine_t *e, const char *master, hearth_error_t *err)
{
    int a, b, c, n = 0;
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    if (!master || strcmp (master, "local") == 0) {
        e->mode = MODE_LOCAL;
        e->local_cores = 1;
    }
    else if (strcmp (master, "local[*]") == 0) {
        e->mode = MODE_LOCAL;
        e->local_cores = cpus > 0 ? (int) cpus : 1;
    }
    else if (sscanf (master, "local[%d]%n", &a, &n) == 1 && master[n] == '\0'
             && a >= 1 && a <= 65536) {
        e->mode = MODE_LOCAL;
        e->local_cores = a;
    }
    else if (sscanf (master, "local-cluster[%d,%d,%d]%n", &a, &b, &c, &n) == 3
             && master[n] == '\0' && a >= 1 && a <= 64 && b >= 1 && c >= 1) {
        e->mode = MODE_LOCAL_CLUSTER;
        e->lc_workers = a;
        e->lc_cores = b;
        e->lc_memory_mb = c;
    }
    else if (strncmp (master, "tcp://", 6) == 0) {
        e->mode = MODE_CLUSTER;
        snprintf (e->master_url, sizeof e->master_url, "%s", master);
    }
    else
        return hearth_errprintf (err,
                                 "unknown master '%s' (expected "
                                 "local[N], local[*], "
                                 "local-cluster[W,C,M] or "
                                 "tcp://HOST:PORT)",
                                 master);
    return 0;
}

static int
s_make_scratch (engine_t *e, hearth_error_t *err)
{
    const char *dir = hearth_conf_str (e->conf, "work-dir");
    if (dir) {
        if (mkdir (dir, 0700) < 0 && errno != EEXIST)
            return hearth_errprintf (err, "cannot create %s: %s", dir,
                                     strerror (errno));
        e->scratch_dir = strdup (dir);
        return 0;
    }
    const char *tmp = getenv ("TMPDIR");
    char path[4096];
    snprintf (path, sizeof path, "%s/hearth-XXXXXX",
              tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp (path))
        return hearth_errprintf (err, "cannot create a directory in %s: %s",
                                 tmp && *tmp ? tmp : "/tmp", strerror (errno));
    e->scratch_dir = strdup (path);
    e->scratch_owned = true;
    return 0;
}

static void
s_ms_text (char *buf, size_t size, int64_t ms)
{
    snprintf (buf, size, "%lldms", (long long) ms);
}

/* ---- local[N] ----------------------------------------------------------- */

static int
s_spawn_executor (engine_t *e, hearth_error_t *err)
{
    int id = e->next_local_exec++;
    char dir[4200], exec_id[16], cores[16], hb[32], live[16], path[4096];
    snprintf (dir, sizeof dir, "%s/exec-%d", e->scratch_dir, id);
    if (mkdir (dir, 0700) < 0 && errno != EEXIST)
        return hearth_errprintf (err, "cannot create %s: %s", dir,
                                 strerror (errno));
    snprintf (exec_id, sizeof exec_id, "%d", id);
    snprintf (cores, sizeof cores, "%d", e->local_cores);
    s_ms_text (hb, sizeof hb, e->hb_interval_ms);
    snprintf (live, sizeof live, "%lld", (long long) e->hb_liveness);
    const char *argv[] = {
        hearth_program_path ("hearth-executor", path, sizeof path),
        "--driver-url",
        e->driver_url,
        "--app-id",
        e->app_id,
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
        hearth_conf_str (e->conf, "log-level"),
        NULL};
    char token[128];
    snprintf (token, sizeof token, "HEARTH_TOKEN=%s", e->token);
    const char *extra[] = {token, NULL};
    const char **envp = hearth_env_merge (NULL, extra);
    hearth_spawn_opts_t opts = {.argv = argv,
                                .envp = envp,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stdout_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_INHERIT,
                                .die_with_parent = true};
    pid_t pid = envp ? hearth_spawn (&opts, err)
                     : hearth_errprintf (err, "out of memory");
    free (envp);
    if (pid < 0)
        return -1;
    exec_t *x = execs_add (e, id, e->local_cores, "localhost");
    if (x) {
        x->local = true;
        x->local_pid = pid;
        x->started_ms = hearth_mono_ms ();
    }
    return 0;
}

void
local_executor_gone (engine_t *e, exec_t *x)
{
    int status;
    if (x->local_pid > 0 && waitpid (x->local_pid, &status, WNOHANG) == 0) {
        kill (x->local_pid, SIGKILL); /* hung: it goes */
        waitpid (x->local_pid, &status, 0);
    }
    x->local_pid = 0;
    if (e->stopping)
        return;
    if (hearth_mono_ms () - x->started_ms > s_healthy_ms)
        e->local_failures = 0;
    if (++e->local_failures > s_max_local_failures) {
        engine_app_dead (e, "the local executor keeps failing (see its "
                            "messages above)");
        return;
    }
    hearth_error_t err;
    if (s_spawn_executor (e, &err) < 0)
        engine_app_dead (e, err.text);
}

void
local_tick (engine_t *e)
{
    int dead[16];
    size_t ndead = 0;
    for (exec_t *x = zhashx_first (e->execs); x; x = zhashx_next (e->execs)) {
        int status;
        if (x->local_pid && ndead < 16
            && waitpid (x->local_pid, &status, WNOHANG) == x->local_pid) {
            char text[128];
            log_warn ("local executor %d %s", x->exec_id,
                      hearth_wait_status_text (status, text, sizeof text));
            x->local_pid = 0; /* reaped */
            dead[ndead++] = x->exec_id;
        }
    }
    for (size_t i = 0; i < ndead; i++)
        execs_lost (e, dead[i], "process exited");
    if (e->mode == MODE_LOCAL_CLUSTER && e->lc_master_pid > 0) {
        int status;
        if (waitpid (e->lc_master_pid, &status, WNOHANG) == e->lc_master_pid) {
            e->lc_master_pid = 0;
            engine_app_dead (e, "the local-cluster master exited");
        }
    }
}

/* ---- local-cluster[W,C,M] ----------------------------------------------- */

/* Our daemons get SIGTERM should this thread end without stopping them
   (the driver killed): a local cluster never outlives its driver. */
static pid_t
s_spawn_daemon (const char *const *argv, hearth_error_t *err)
{
    hearth_spawn_opts_t opts = {.argv = argv,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stdout_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_INHERIT,
                                .die_with_parent = true};
    return hearth_spawn (&opts, err);
}

/* Wait for the master's ready file; read its URL from the first line. */
static int
s_wait_ready (engine_t *e, const char *path, char *url, size_t size,
              hearth_error_t *err)
{
    int64_t deadline = hearth_mono_ms () + s_start_timeout_ms;
    while (hearth_mono_ms () < deadline) {
        FILE *f = fopen (path, "r");
        if (f) {
            bool ok = fgets (url, (int) size, f) != NULL;
            fclose (f);
            url[strcspn (url, "\r\n")] = '\0';
            if (ok && *url)
                return 0;
        }
        int status;
        if (waitpid (e->lc_master_pid, &status, WNOHANG) == e->lc_master_pid) {
            char text[128];
            e->lc_master_pid = 0;
            return hearth_errprintf (
                err, "hearth-master %s",
                hearth_wait_status_text (status, text, sizeof text));
        }
        usleep (2000);
    }
    return hearth_errprintf (err,
                             "hearth-master did not start within %lld "
                             "ms",
                             (long long) s_start_timeout_ms);
}

static int
s_start_cluster (engine_t *e, hearth_error_t *err)
{
    char path[4096], ready[4200], hb[32], url[512];
    s_ms_text (hb, sizeof hb, e->hb_interval_ms);
    snprintf (ready, sizeof ready, "%s/master.ready", e->scratch_dir);
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
        NULL};
    if ((e->lc_master_pid = s_spawn_daemon (margv, err)) < 0) {
        e->lc_master_pid = 0;
        return -1;
    }
    if (s_wait_ready (e, ready, url, sizeof url, err) < 0)
        return -1;
    e->lc_worker_pids = calloc (e->lc_workers, sizeof (pid_t));
    if (!e->lc_worker_pids)
        return hearth_errprintf (err, "out of memory");
    for (int i = 0; i < e->lc_workers; i++) {
        char dir[4200], cores[16], memory[32];
        snprintf (dir, sizeof dir, "%s/worker-%d", e->scratch_dir, i);
        snprintf (cores, sizeof cores, "%d", e->lc_cores);
        snprintf (memory, sizeof memory, "%lldM", (long long) e->lc_memory_mb);
        const char *wargv[] = {
            hearth_program_path ("hearth-worker", path, sizeof path),
            "--master",
            url,
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
            NULL};
        pid_t pid = s_spawn_daemon (wargv, err);
        if (pid < 0)
            return -1;
        e->lc_worker_pids[i] = pid;
    }
    return master_open (e, url, err);
}

int
local_start (engine_t *e, hearth_error_t *err)
{
    if (e->mode == MODE_CLUSTER)
        return master_open (e, e->master_url, err);
    if (s_make_scratch (e, err) < 0)
        return -1;
    if (e->mode == MODE_LOCAL_CLUSTER)
        return s_start_cluster (e, err);
    hearth_id_format (e->app_id, sizeof e->app_id, HEARTH_ID_APP, time (NULL),
                      (unsigned) getpid ());
    return s_spawn_executor (e, err);
}

/* ---- stopping ----------------------------------------------------------- */

/* Wait for pid to exit, then SIGKILL it after timeout_ms. */
static void
s_reap (pid_t pid, int64_t timeout_ms)
{
    int64_t deadline = hearth_mono_ms () + timeout_ms;
    int status;
    while (hearth_mono_ms () < deadline)
        if (waitpid (pid, &status, WNOHANG) != 0)
            return;
        else
            usleep (2000);
    kill (pid, SIGKILL);
    waitpid (pid, &status, 0);
}

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
local_stop (engine_t *e)
{
    for (exec_t *x = zhashx_first (e->execs); x; x = zhashx_next (e->execs))
        if (x->local_pid > 0) {
            s_reap (x->local_pid, s_stop_timeout_ms);
            x->local_pid = 0;
        }
    for (int i = 0; e->lc_worker_pids && i < e->lc_workers; i++)
        if (e->lc_worker_pids[i] > 0)
            kill (e->lc_worker_pids[i], SIGTERM);
    for (int i = 0; e->lc_worker_pids && i < e->lc_workers; i++)
        if (e->lc_worker_pids[i] > 0) {
            s_reap (e->lc_worker_pids[i], s_stop_timeout_ms);
            e->lc_worker_pids[i] = 0;
        }
    if (e->lc_master_pid > 0) {
        kill (e->lc_master_pid, SIGTERM);
        s_reap (e->lc_master_pid, s_stop_timeout_ms);
        e->lc_master_pid = 0;
    }
    if (e->scratch_owned && e->scratch_dir)
        nftw (e->scratch_dir, s_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

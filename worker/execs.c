/*  execs.c - starting, stopping and reaping a worker's executors; see
    execs.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/pidfile.h"
#include "libcore/spawn.h"
#include "worker/cleanups.h"
#include "worker/execs.h"
#include "worker/orphans.h"

/* Arguments of the executor's command line, at most. */
#define MAX_ARGS 64

/* Executor directories and their parents: private to the worker's user. */
static const mode_t s_dir_mode = 0700;
/* In the work dir: flock()ed by the worker that uses it. */
static const char s_lock_name[] = ".worker.lock";

/* One executor process. */
typedef struct {
    char app_id[HEARTH_ID_MAX + 1]; /* its application */
    int exec_id;                    /* its id within the application */
    int cores;                      /* cores it may use */
    int64_t memory_mb;              /* memory it may use */
    pid_t pid;                      /* leads its own process group */
    bool killing;                   /* we asked it to stop */
    int64_t kill_deadline_ms;       /* SIGKILL at this time, or 0 */
} s_exec_t;

struct execs {
    char *work_dir;          /* root of the executor directories */
    char *program;           /* hearth-executor's path */
    char *host;              /* address the worker advertises */
    int64_t kill_grace_ms;   /* SIGTERM to SIGKILL */
    int64_t retention_ms;    /* removed app to removed directory */
    zhashx_t *table;         /* "APP/EXEC" -> s_exec_t * (owned) */
    cleanups_t *cleanups;    /* ended applications' directories */
    execs_report_fn *report; /* told of every state change */
    void *report_arg;        /* passed to report */
    int lock_fd;             /* the work dir's lock, held */
    zhashx_t *exited;        /* "APP/EXEC" of executors reaped since the
                                last sweep for their leftovers (a set) */
};

static void
s_free_item (void **item)
{
    free (*item);
    *item = NULL;
}

static int
s_mkdir (const char *path, mode_t mode, hearth_error_t *err)
{
    if (mkdir (path, mode) < 0 && errno != EEXIST)
        return hearth_errprintf (err, "cannot create %s: %s", path,
                                 strerror (errno));
    return 0;
}

/* One worker per work dir: what it finds there is an earlier worker's. */
static int
s_lock (execs_t *self, hearth_error_t *err)
{
    char path[4200];
    bool held;
    snprintf (path, sizeof path, "%s/%s", self->work_dir, s_lock_name);
    self->lock_fd = hearth_pid_lock (path, "", 0600, &held, err);
    if (self->lock_fd < 0 && held)
        return hearth_errprintf (err,
                                 "work dir %s is in use by another worker "
                                 "(pid %d)",
                                 self->work_dir,
                                 (int) hearth_pidfile_read (path));
    return self->lock_fd < 0 ? -1 : 0;
}

execs_t *
execs_new (const char *work_dir, const char *program, const char *host,
           int64_t kill_grace_ms, int64_t retention_ms, execs_report_fn *report,
           void *arg, hearth_error_t *err)
{
    if (s_mkdir (work_dir, 0755, err) < 0)
        return NULL;
    execs_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->work_dir = strdup (work_dir);
    self->program = strdup (program);
    self->host = strdup (host);
    self->table = zhashx_new ();
    self->cleanups = cleanups_new (work_dir);
    self->exited = zhashx_new ();
    self->lock_fd = -1;
    if (!self->work_dir || !self->program || !self->host || !self->table
        || !self->cleanups || !self->exited) {
        execs_destroy (&self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    if (s_lock (self, err) < 0) {
        execs_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->table, s_free_item);
    self->kill_grace_ms = kill_grace_ms;
    self->retention_ms = retention_ms;
    self->report = report;
    self->report_arg = arg;
    return self;
}

void
execs_destroy (execs_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    execs_t *self = *self_p;
    for (s_exec_t *e = self->table ? zhashx_first (self->table) : NULL; e;
         e = zhashx_next (self->table)) {
        kill (-e->pid, SIGKILL);
        waitpid (e->pid, NULL, 0);
    }
    /* Whatever executors left: nothing of them outlives the worker. */
    if (self->lock_fd >= 0 && self->work_dir) {
        size_t n = orphans_kill (self->work_dir, NULL);
        if (n)
            log_warn ("killed %zu processes left by executors", n);
        while (waitpid (-1, NULL, WNOHANG) > 0)
            ;
    }
    zhashx_destroy (&self->table);
    zhashx_destroy (&self->exited);
    cleanups_destroy (&self->cleanups);
    if (self->lock_fd >= 0)
        close (self->lock_fd);
    free (self->work_dir);
    free (self->program);
    free (self->host);
    free (self);
    *self_p = NULL;
}

static void
s_report (execs_t *self, const s_exec_t *e, const char *state,
          const char *message, int exit_status, int sig)
{
    execs_report_t r = {e->app_id,   e->exec_id, state, message,
                        exit_status, sig,        e->pid};
    if (self->report)
        self->report (self->report_arg, &r);
}

/* --- launching --------------------------------------------------------- */

/* The executor's argv into args (strings in buf).  Returns argc. */
typedef struct {
    const char *argv[MAX_ARGS + 1]; /* NULL-terminated */
    char numbers[3][24];            /* exec id, cores, memory */
    char *conf[MAX_ARGS];           /* KEY=VALUE strings (owned) */
    int argc;                       /* used */
    int nconf;                      /* used in conf */
} s_argv_t;

static void
s_arg (s_argv_t *a, const char *arg)
{
    if (a->argc < MAX_ARGS)
        a->argv[a->argc++] = arg;
}

static void
s_argv_build (execs_t *self, const execs_launch_t *l, s_argv_t *a)
{
    memset (a, 0, sizeof *a);
    snprintf (a->numbers[0], sizeof a->numbers[0], "%d", l->exec_id);
    snprintf (a->numbers[1], sizeof a->numbers[1], "%d", l->cores);
    snprintf (a->numbers[2], sizeof a->numbers[2], "%lld",
              (long long) l->memory_mb);
    const char *fixed[] = {self->program, "--driver-url", l->driver_url,
                           "--app-id",    l->app_id,      "--exec-id",
                           a->numbers[0], "--cores",      a->numbers[1],
                           "--memory-mb", a->numbers[2],  "--host",
                           self->host};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        s_arg (a, fixed[i]);
    const cJSON *kv;
    cJSON_ArrayForEach (kv, l->conf)
    {
        if (a->argc + 2 > MAX_ARGS || !cJSON_IsString (kv)
            || asprintf (&a->conf[a->nconf], "%s=%s", kv->string,
                         kv->valuestring)
                   < 0)
            break;
        s_arg (a, "--conf");
        s_arg (a, a->conf[a->nconf++]);
    }
}

static void
s_argv_free (s_argv_t *a)
{
    for (int i = 0; i < a->nconf; i++)
        free (a->conf[i]);
}

static int
s_open_log (const char *dir, const char *name, hearth_error_t *err)
{
    char path[4096];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    int fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        hearth_errprintf (err, "cannot open %s: %s", path, strerror (errno));
    return fd;
}

/* Create WORK_DIR/APP/EXEC and spawn there.  Returns the pid or -1. */
static pid_t
s_spawn (execs_t *self, const execs_launch_t *l, hearth_error_t *err)
{
    char dir[4096];
    snprintf (dir, sizeof dir, "%s/%s", self->work_dir, l->app_id);
    if (s_mkdir (dir, s_dir_mode, err) < 0)
        return -1;
    snprintf (dir, sizeof dir, "%s/%s/%d", self->work_dir, l->app_id,
              l->exec_id);
    if (s_mkdir (dir, s_dir_mode, err) < 0)
        return -1;
    int out = s_open_log (dir, "stdout", err);
    int errfd = out < 0 ? -1 : s_open_log (dir, "stderr", err);
    pid_t pid = -1;
    if (out >= 0 && errfd >= 0) {
        s_argv_t a;
        s_argv_build (self, l, &a);
        /* The application's secrets go in the environment, which only the
           executor's user can read, not on its command line. */
        char token[256] = "", key[256] = "", mark_dir[4200], mark_exec[200];
        const char *extra[5] = {mark_dir, mark_exec};
        int nextra = 2;
        snprintf (mark_dir, sizeof mark_dir, "%s=%s", ORPHANS_ENV_DIR,
                  self->work_dir);
        snprintf (mark_exec, sizeof mark_exec, "%s=%s/%d", ORPHANS_ENV_EXEC,
                  l->app_id, l->exec_id);
        if (l->token
            && snprintf (token, sizeof token, "HEARTH_TOKEN=%s", l->token)
                   < (int) sizeof token)
            extra[nextra++] = token;
        if (l->driver_key
            && snprintf (key, sizeof key, "HEARTH_DRIVER_KEY=%s", l->driver_key)
                   < (int) sizeof key)
            extra[nextra++] = key;
        const char **envp = hearth_env_merge (NULL, extra);
        hearth_spawn_opts_t opts = {.argv = a.argv,
                                    .envp = envp,
                                    .cwd = dir,
                                    .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                    .stdout_fd = out,
                                    .stderr_fd = errfd,
                                    .new_pgroup = true};
        pid = envp ? hearth_spawn (&opts, err)
                   : hearth_errprintf (err, "out of memory");
        free (envp);
        s_argv_free (&a);
    }
    if (out >= 0)
        close (out);
    if (errfd >= 0)
        close (errfd);
    return pid;
}

static void
s_key (const char *app_id, int exec_id, char *buf, size_t size)
{
    snprintf (buf, size, "%s/%d", app_id, exec_id);
}

int
execs_launch (execs_t *self, const execs_launch_t *l, int64_t now_ms)
{
    (void) now_ms;
    char key[HEARTH_ID_MAX + 32];
    hearth_error_t err;
    s_key (l->app_id, l->exec_id, key, sizeof key);
    if (zhashx_lookup (self->table, key))
        return -1;
    s_exec_t *e = calloc (1, sizeof *e);
    if (!e)
        return -1;
    snprintf (e->app_id, sizeof e->app_id, "%s", l->app_id);
    e->exec_id = l->exec_id;
    e->cores = l->cores;
    e->memory_mb = l->memory_mb;
    e->pid = s_spawn (self, l, &err);
    if (e->pid < 0) {
        log_warn ("executor %s could not start: %s", key, err.text);
        s_report (self, e, "FAILED", err.text, -1, 0);
        free (e);
        return 0;
    }
    zhashx_insert (self->table, key, e);
    log_info ("executor %s started: pid %d, %d cores", key, (int) e->pid,
              e->cores);
    s_report (self, e, "RUNNING", NULL, -1, 0);
    return 0;
}

/* --- stopping ---------------------------------------------------------- */

static void
s_stop (execs_t *self, s_exec_t *e, int64_t now_ms)
{
    if (e->killing)
        return;
    e->killing = true;
    e->kill_deadline_ms = now_ms + self->kill_grace_ms;
    if (kill (-e->pid, SIGTERM) < 0 && errno != ESRCH)
        log_warn ("cannot signal executor %s/%d (pid %d): %s", e->app_id,
                  e->exec_id, (int) e->pid, strerror (errno));
}

int
execs_kill (execs_t *self, const char *app_id, int exec_id, int64_t now_ms)
{
    char key[HEARTH_ID_MAX + 32];
    s_key (app_id, exec_id, key, sizeof key);
    s_exec_t *e = zhashx_lookup (self->table, key);
    if (!e)
        return -1;
    log_info ("stopping executor %s (pid %d)", key, (int) e->pid);
    s_stop (self, e, now_ms);
    return 0;
}

void
execs_kill_all (execs_t *self, int64_t now_ms)
{
    for (s_exec_t *e = zhashx_first (self->table); e;
         e = zhashx_next (self->table))
        s_stop (self, e, now_ms);
}

/* Remove WORK_DIR/APP_ID after the retention, once none of its
   executors runs (execs_tick). */
static void
s_schedule_cleanup (execs_t *self, const char *app_id, int64_t now_ms)
{
    cleanups_add (self->cleanups, app_id, now_ms + self->retention_ms);
}

void
execs_app_removed (execs_t *self, const char *app_id, int64_t now_ms)
{
    for (s_exec_t *e = zhashx_first (self->table); e;
         e = zhashx_next (self->table))
        if (strcmp (e->app_id, app_id) == 0)
            s_stop (self, e, now_ms);
    s_schedule_cleanup (self, app_id, now_ms);
}

void
execs_clean_start (execs_t *self, int64_t now_ms)
{
    size_t n = orphans_kill (self->work_dir, NULL);
    if (n)
        log_warn ("killed %zu processes left in %s by an earlier worker", n,
                  self->work_dir);
    DIR *d = opendir (self->work_dir);
    struct dirent *ent;
    size_t dirs = 0;
    while (d && (ent = readdir (d)))
        if (hearth_id_valid (HEARTH_ID_APP, ent->d_name)) {
            s_schedule_cleanup (self, ent->d_name, now_ms);
            dirs++;
        }
    if (d)
        closedir (d);
    if (dirs)
        log_info ("%zu application directories of an earlier worker in %s "
                  "go after the retention",
                  dirs, self->work_dir);
}

/* --- reaping ----------------------------------------------------------- */

static s_exec_t *
s_find_pid (execs_t *self, pid_t pid, char *key, size_t size)
{
    for (s_exec_t *e = zhashx_first (self->table); e;
         e = zhashx_next (self->table))
        if (e->pid == pid) {
            s_key (e->app_id, e->exec_id, key, size);
            return e;
        }
    return NULL;
}

static void
s_exited (execs_t *self, s_exec_t *e, int status)
{
    char text[128];
    hearth_wait_status_text (status, text, sizeof text);
    int code = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
    int sig = WIFSIGNALED (status) ? WTERMSIG (status) : 0;
    const char *state = e->killing ? "KILLED" : code == 0 ? "EXITED" : "FAILED";
    log_info ("executor %s/%d (pid %d) %s: %s", e->app_id, e->exec_id,
              (int) e->pid, state, text);
    s_report (self, e, state, text, code, sig);
}

bool
execs_exited (execs_t *self, pid_t pid, int status)
{
    char key[HEARTH_ID_MAX + 32];
    s_exec_t *e = s_find_pid (self, pid, key, sizeof key);
    if (!e)
        return false;
    /* The group may hold the executor's own children: end them, and the
       next tick ends those in groups of their own (orphans.h). */
    kill (-pid, SIGKILL);
    s_exited (self, e, status);
    zhashx_update (self->exited, key, (void *) "");
    zhashx_delete (self->table, key);
    return true;
}

static bool
s_app_running (execs_t *self, const char *app_id)
{
    for (s_exec_t *e = zhashx_first (self->table); e;
         e = zhashx_next (self->table))
        if (strcmp (e->app_id, app_id) == 0)
            return true;
    return false;
}

/* Kill what the executors reaped since the last tick left running. */
static void
s_sweep (execs_t *self)
{
    if (zhashx_size (self->exited) == 0)
        return;
    size_t n = orphans_kill (self->work_dir, self->exited);
    if (n)
        log_warn ("killed %zu processes left by %zu exited executors", n,
                  zhashx_size (self->exited));
    zhashx_purge (self->exited);
}

void
execs_tick (execs_t *self, int64_t now_ms)
{
    s_sweep (self);
    for (s_exec_t *e = zhashx_first (self->table); e;
         e = zhashx_next (self->table))
        if (e->killing && e->kill_deadline_ms
            && now_ms >= e->kill_deadline_ms) {
            log_warn ("executor %s/%d did not stop within %lld ms of "
                      "SIGTERM: SIGKILL",
                      e->app_id, e->exec_id, (long long) self->kill_grace_ms);
            kill (-e->pid, SIGKILL);
            e->kill_deadline_ms = 0;
        }
    const char *app_id = cleanups_due (self->cleanups, now_ms);
    if (app_id && !s_app_running (self, app_id))
        cleanups_remove_first (self->cleanups);
}

/* --- views ------------------------------------------------------------- */

int
execs_work_dir_id (const execs_t *self, char *buf, size_t size)
{
    struct stat st;
    char boot[64] = "";
    FILE *f = fopen ("/proc/sys/kernel/random/boot_id", "re");
    if (f) {
        if (!fgets (boot, sizeof boot, f))
            boot[0] = '\0';
        fclose (f);
    }
    boot[strcspn (boot, "\n")] = '\0';
    if (!boot[0] || self->lock_fd < 0 || fstat (self->lock_fd, &st) < 0)
        return -1;
    int n = snprintf (buf, size, "%s:%llx:%llx", boot,
                      (unsigned long long) st.st_dev,
                      (unsigned long long) st.st_ino);
    return n > 0 && (size_t) n < size ? 0 : -1;
}

size_t
execs_count (const execs_t *self)
{
    return zhashx_size (self->table);
}

void
execs_usage (const execs_t *self, int *cores, int64_t *memory_mb)
{
    *cores = 0;
    *memory_mb = 0;
    for (s_exec_t *e = zhashx_first (self->table); e;
         e = zhashx_next (self->table)) {
        *cores += e->cores;
        *memory_mb += e->memory_mb;
    }
}

cJSON *
execs_json (const execs_t *self)
{
    cJSON *list = cJSON_CreateArray ();
    for (s_exec_t *e = zhashx_first (self->table); list && e;
         e = zhashx_next (self->table)) {
        cJSON *o = cJSON_CreateObject ();
        cJSON_AddStringToObject (o, "app_id", e->app_id);
        cJSON_AddNumberToObject (o, "exec_id", e->exec_id);
        cJSON_AddNumberToObject (o, "cores", e->cores);
        cJSON_AddNumberToObject (o, "memory_mb", (double) e->memory_mb);
        cJSON_AddStringToObject (o, "state", "RUNNING");
        cJSON_AddNumberToObject (o, "pid", (int) e->pid);
        cJSON_AddItemToArray (list, o);
    }
    return list;
}

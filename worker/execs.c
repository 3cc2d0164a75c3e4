/*  execs.c - a worker's executors: their command line and environment,
    their reports, the work dir's lock, and what they leave behind; the
    processes themselves are the worker's children table's (children.h).
    See execs.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/loglimit.h"
#include "libcore/pidfile.h"
#include "libcore/spawn.h"
#include "worker/childenv.h"
#include "worker/children.h"
#include "worker/execs.h"
#include "worker/orphans.h"
#include "worker/userfs.h"

/* Arguments of the executor's command line, at most. */
#define MAX_ARGS 64
/* An executor's addresses as JSON text, at most (a few devices each). */
#define EXEC_RESOURCES_MAX 1024
/* Custom resource names on one executor's command line, at most. */
#define MAX_RESOURCE_ARGS 8

/* The work dir itself (its executor directories are private). */
static const mode_t s_work_dir_mode = 0755;
/* An application's map outputs, made for the executor's user
   (WORK_DIR/shuffle/APP). */
static const mode_t s_shuffle_app_mode = 0700;
/* In the work dir: flock()ed by the worker that uses it. */
static const char s_lock_name[] = ".worker.lock";
/* Executors that cannot start are logged once per this period (then
   counted): a full disk fails every launch alike. */
static const int64_t s_log_period_ms = 60000;

/* What the table keeps of an executor beside its process (the children
   table's data block). */
typedef struct {
    char app_id[HEARTH_ID_MAX + 1];     /* its application */
    int exec_id;                        /* its id within the application */
    char resources[EXEC_RESOURCES_MAX]; /* the addresses it holds, as the
                                           wire's JSON object, or "" */
} s_exec_t;

struct execs {
    char *work_dir;               /* root of the executor directories */
    char *program;                /* hearth-executor's path */
    char *host;                   /* address the worker advertises */
    children_t *children;         /* the worker's children (borrowed) */
    int64_t retention_ms;         /* removed app to removed directory */
    runas_t *runas;               /* whom they run as (borrowed) */
    apps_t *apps;                 /* applications' tokens (borrowed) */
    execs_report_fn *report;      /* told of every state change */
    void *report_arg;             /* passed to report */
    int lock_fd;                  /* the work dir's lock, held */
    hearth_loglimit_t *log_limit; /* lines of executors that cannot start */
};

static void s_on_exit (void *arg, const children_exit_t *e);
static void s_json_fields (void *arg, const char *name, const void *data,
                           cJSON *o);

const children_kind_t execs_kind = {
    .what = "executor", .exit = s_on_exit, .json = s_json_fields};

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
execs_new (const execs_config_t *c, hearth_error_t *err)
{
    if (mkdir (c->work_dir, s_work_dir_mode) < 0 && errno != EEXIST) {
        hearth_errprintf (err, "cannot create %s: %s", c->work_dir,
                          strerror (errno));
        return NULL;
    }
    execs_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->work_dir = strdup (c->work_dir);
    self->program = strdup (c->program);
    self->host = strdup (c->host);
    self->children = c->children;
    self->retention_ms = c->retention_ms;
    self->runas = c->runas;
    self->apps = c->apps;
    self->log_limit = hearth_loglimit_new (s_log_period_ms, 1);
    self->lock_fd = -1;
    self->report = c->report;
    self->report_arg = c->report_arg;
    if (!self->work_dir || !self->program || !self->host || !self->log_limit) {
        execs_destroy (&self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    if (s_lock (self, err) < 0) {
        execs_destroy (&self);
        return NULL;
    }
    return self;
}

void
execs_destroy (execs_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    execs_t *self = *self_p;
    hearth_loglimit_destroy (&self->log_limit);
    if (self->lock_fd >= 0)
        close (self->lock_fd);
    free (self->work_dir);
    free (self->program);
    free (self->host);
    free (self);
    *self_p = NULL;
    errno = saved;
}

static void
s_report (execs_t *self, const s_exec_t *e, const char *state,
          const char *message, int exit_status, int sig, pid_t pid)
{
    execs_report_t r = {e->app_id,   e->exec_id, state, message,
                        exit_status, sig,        pid,   -1};
    if (self->report)
        self->report (self->report_arg, &r);
}

/* A launch refused for whom it is (USER_REFUSED): its submitter's
   doing, not the worker's, which the master does not count against the
   worker's health and answers by ending the application. */
static void
s_refuse (execs_t *self, const s_exec_t *e, const char *key, const char *why)
{
    log_warn ("executor %s refused: %s", key, why);
    execs_report_t r = {e->app_id, e->exec_id, "FAILED", why,           -1,
                        0,         -1,         -1,       "USER_REFUSED"};
    if (self->report)
        self->report (self->report_arg, &r);
}

/* --- launching --------------------------------------------------------- */

/* The executor's argv (strings in the struct and in conf). */
typedef struct {
    const char *argv[MAX_ARGS + 1]; /* NULL-terminated */
    char numbers[3][24];            /* exec id, cores, memory */
    char shuffle_dir[4200];         /* WORK_DIR/shuffle */
    char ship_dir[4400];            /* WORK_DIR/APP_ID/.ship */
    char *conf[MAX_ARGS];           /* KEY=VALUE strings (owned) */
    char *res[MAX_RESOURCE_ARGS];   /* NAME=ADDRS strings (owned) */
    int argc;                       /* used */
    int nconf;                      /* used in conf */
    int nres;                       /* used in res */
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
    /* Its map outputs go where the block server serves them from, so that
       they outlive it (shuffle.h). */
    snprintf (a->shuffle_dir, sizeof a->shuffle_dir, "%s/shuffle",
              self->work_dir);
    s_arg (a, "--shuffle-dir");
    s_arg (a, a->shuffle_dir);
    /* The node's cache of the application's shipped files, which its
       executors here share, beside their directories and removed with
       them (executor/shipcache.h). */
    snprintf (a->ship_dir, sizeof a->ship_dir, "%s/%s/.ship", self->work_dir,
              l->app_id);
    s_arg (a, "--ship-dir");
    s_arg (a, a->ship_dir);
    if (l->shuffle_url) {
        s_arg (a, "--shuffle-url");
        s_arg (a, l->shuffle_url);
    }
    if (l->shuffle_key) {
        s_arg (a, "--shuffle-key");
        s_arg (a, l->shuffle_key);
    }
    /* The addresses it holds, one --resource gpu=0,2 per name (checked
       against MAX_RESOURCE_ARGS at launch). */
    for (size_t i = 0;
         l->resources && i < l->resources->n && a->nres < MAX_RESOURCE_ARGS;
         i++) {
        if (!(a->res[a->nres] = hearth_resource_spec (&l->resources->v[i])))
            break;
        s_arg (a, "--resource");
        s_arg (a, a->res[a->nres++]);
    }
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
    for (int i = 0; i < a->nres; i++)
        free (a->res[i]);
}

/* What the executor's environment adds to what it inherits of the
   worker's (childenv.h): the markers of orphans.h, the application's
   secrets (which only the executor's user can read there, unlike its
   command line), and the user it runs as when that is not the
   worker's. */
typedef struct {
    char dir[4200];         /* ORPHANS_ENV_DIR=... */
    char exec[200];         /* ORPHANS_ENV_EXEC=... */
    char token[256];        /* HEARTH_TOKEN=..., if any */
    char key[256];          /* HEARTH_DRIVER_KEY=..., if any */
    char user[3][1100];     /* USER=, LOGNAME=, HOME=, if switched */
    const char *entries[8]; /* those set, NULL-terminated */
} s_env_extra_t;

/* The executor's environment: a new array (caller frees) of what it
   inherits of environ's strings and x's, or NULL on no memory. */
static const char **
s_env_build (execs_t *self, const execs_launch_t *l, const runas_user_t *u,
             s_env_extra_t *x)
{
    int n = 0;
    memset (x->entries, 0, sizeof x->entries);
    if (u->switched) {
        snprintf (x->user[0], sizeof x->user[0], "USER=%s", u->name);
        snprintf (x->user[1], sizeof x->user[1], "LOGNAME=%s", u->name);
        snprintf (x->user[2], sizeof x->user[2], "HOME=%s", u->home);
        for (int i = 0; i < 3; i++)
            x->entries[n++] = x->user[i];
    }
    snprintf (x->dir, sizeof x->dir, "%s=%s", ORPHANS_ENV_DIR, self->work_dir);
    x->entries[n++] = x->dir;
    snprintf (x->exec, sizeof x->exec, "%s=%s/%d", ORPHANS_ENV_EXEC, l->app_id,
              l->exec_id);
    x->entries[n++] = x->exec;
    if (l->token
        && snprintf (x->token, sizeof x->token, "HEARTH_TOKEN=%s", l->token)
               < (int) sizeof x->token)
        x->entries[n++] = x->token;
    if (l->driver_key
        && snprintf (x->key, sizeof x->key, "HEARTH_DRIVER_KEY=%s",
                     l->driver_key)
               < (int) sizeof x->key)
        x->entries[n++] = x->key;
    const char **inherited = childenv_inherited (NULL, u->switched);
    const char **env =
        inherited ? hearth_env_merge (inherited, x->entries) : NULL;
    free (inherited);
    return env;
}

/* The application's directory of map outputs, WORK_DIR/shuffle/APP,
   made for u when it is not the worker (the worker's own executors make
   it themselves). */
static int
s_shuffle_dir (execs_t *self, const char *app_id, const runas_user_t *u,
               hearth_error_t *err)
{
    char root[4200];
    if (!u->switched)
        return 0;
    snprintf (root, sizeof root, "%s/shuffle", self->work_dir);
    userfs_owner_t o = {u->ids.uid, u->ids.gid};
    int fd = userfs_mkdirs (root, app_id, s_shuffle_app_mode, &o, err);
    if (fd < 0)
        return -1;
    close (fd);
    return 0;
}

/* Spawn the executor in WORK_DIR/APP/EXEC, as u.  Returns its pid or
   -1. */
static pid_t
s_spawn (execs_t *self, const execs_launch_t *l, const runas_user_t *u,
         const char *key, const s_exec_t *e, hearth_error_t *err)
{
    s_argv_t a;
    s_env_extra_t extra;
    if (s_shuffle_dir (self, l->app_id, u, err) < 0)
        return -1;
    s_argv_build (self, l, &a);
    const char **envp = s_env_build (self, l, u, &extra);
    char group[HEARTH_ID_MAX + 32];
    snprintf (group, sizeof group, "%s-exec-%d", l->app_id, l->exec_id);
    children_spawn_t spawn = {.kind = &execs_kind,
                              .group = group,
                              .arg = self,
                              .name = key,
                              .dir = key,
                              .argv = a.argv,
                              .envp = envp,
                              .cores = l->cores,
                              .memory_mb = l->memory_mb,
                              .data = e,
                              .data_size = sizeof *e,
                              .ids = u->switched ? &u->ids : NULL};
    pid_t pid = !envp ? hearth_errprintf (err, "out of memory")
                : l->resources && a.nres < (int) l->resources->n
                    ? hearth_errprintf (err, "too many resources")
                    : children_spawn (self->children, &spawn, err);
    free (envp);
    s_argv_free (&a);
    return pid;
}

/* The addresses it holds, kept as text in its data block. */
static int
s_resources_text (const execs_launch_t *l, s_exec_t *e, hearth_error_t *err)
{
    if (!l->resources || l->resources->n == 0)
        return 0;
    cJSON *json = hearth_resources_to_json (l->resources);
    char *text = json ? cJSON_PrintUnformatted (json) : NULL;
    cJSON_Delete (json);
    int rc = !text ? hearth_errprintf (err, "out of memory")
             : strlen (text) >= sizeof e->resources
                 ? hearth_errprintf (err, "too many resource addresses")
                 : 0;
    if (rc == 0)
        snprintf (e->resources, sizeof e->resources, "%s", text);
    cJSON_free (text);
    return rc;
}

static void
s_key (const char *app_id, int exec_id, char *buf, size_t size)
{
    snprintf (buf, size, "%s/%d", app_id, exec_id);
}

int
execs_launch (execs_t *self, const execs_launch_t *l, int64_t now_ms)
{
    char key[HEARTH_ID_MAX + 32];
    hearth_error_t err;
    s_key (l->app_id, l->exec_id, key, sizeof key);
    if (children_has (self->children, key))
        return -1;
    s_exec_t e = {.exec_id = l->exec_id};
    snprintf (e.app_id, sizeof e.app_id, "%s", l->app_id);
    /* not its application's driver (another token): no executor under
       its id, no data of it (the block server serves that token only) */
    int known =
        apps_launch (self->apps, l->app_id, l->token, l->owner.owner, &err);
    if (known < 0 && strcmp (err.code, APPS_REFUSED) == 0) {
        s_refuse (self, &e, key, err.text);
        return 0;
    }
    runas_user_t u;
    memset (&u, 0, sizeof u);
    int who = known < 0 ? -1 : runas_resolve (self->runas, &l->owner, &u, &err);
    if (who < 0 && err.code && strcmp (err.code, RUNAS_REFUSED) == 0) {
        s_refuse (self, &e, key, err.text); /* no one to run it as */
        return 0;
    }
    /* a user that could not be looked up fails this launch as a spawn
       that fails does: the master may try again */
    pid_t pid = who < 0 || s_resources_text (l, &e, &err) < 0
                    ? -1
                    : s_spawn (self, l, &u, key, &e, &err);
    if (pid < 0) {
        runas_user_clear (&u);
        hearth_log_limited (self->log_limit, HEARTH_LOG_WARN,
                            "executor could not start", now_ms,
                            "executor %s could not start: %s", key, err.text);
        s_report (self, &e, "FAILED", err.text, -1, 0, -1);
        return 0;
    }
    log_info ("executor %s started: pid %d, %d cores%s%s, as %s", key,
              (int) pid, l->cores, e.resources[0] ? ", resources " : "",
              e.resources, u.name);
    runas_user_clear (&u);
    s_report (self, &e, "RUNNING", NULL, -1, 0, pid);
    return 0;
}

/* --- stopping ---------------------------------------------------------- */

int
execs_kill (execs_t *self, const char *app_id, int exec_id)
{
    char key[HEARTH_ID_MAX + 32];
    s_key (app_id, exec_id, key, sizeof key);
    return children_stop (self->children, &execs_kind, key);
}

void
execs_app_removed (execs_t *self, const char *app_id, int64_t now_ms)
{
    children_stop_under (self->children, app_id);
    /* removed once none of its executors runs (children_tick) */
    children_remove_later (self->children, app_id, now_ms + self->retention_ms);
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
            children_remove_later (self->children, ent->d_name,
                                   now_ms + self->retention_ms);
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

/* The children table reaped an executor: report how it ended. */
static void
s_on_exit (void *arg, const children_exit_t *x)
{
    execs_t *self = arg;
    const s_exec_t *e = x->data;
    /* its cgroup hit its limit: that is why it ended, even when it was
       being stopped meanwhile */
    bool oom = x->oom_killed;
    const char *state = oom                   ? "FAILED"
                        : x->stopped          ? "KILLED"
                        : x->exit_status == 0 ? "EXITED"
                                              : "FAILED";
    char oom_text[128];
    const char *text =
        oom ? children_oom_text (x, oom_text, sizeof oom_text) : x->text;
    if (oom)
        log_warn ("executor %s (pid %d) %s: %s (%s)", x->name, (int) x->pid,
                  state, text, x->text);
    else
        log_info ("executor %s (pid %d) %s: %s", x->name, (int) x->pid, state,
                  text);
    execs_report_t r = {e->app_id,
                        e->exec_id,
                        state,
                        text,
                        x->exit_status,
                        x->signal,
                        x->pid,
                        x->peak_rss_bytes,
                        oom ? "OOM_KILLED" : NULL,
                        x->memory_limit_bytes};
    if (self->report)
        self->report (self->report_arg, &r);
    /* what it left behind goes at a tick (children_tick) */
}

void
execs_tick (execs_t *self, int64_t now_ms)
{
    hearth_loglimit_flush (self->log_limit, HEARTH_LOG_WARN, now_ms);
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

/* An executor's own fields in the children table's JSON view. */
static void
s_json_fields (void *arg, const char *name, const void *data, cJSON *o)
{
    (void) arg;
    (void) name;
    const s_exec_t *e = data;
    cJSON_AddStringToObject (o, "app_id", e->app_id);
    cJSON_AddNumberToObject (o, "exec_id", e->exec_id);
    cJSON_AddStringToObject (o, "state", "RUNNING");
    cJSON *res = e->resources[0] ? cJSON_Parse (e->resources) : NULL;
    if (res)
        cJSON_AddItemToObject (o, "resources", res);
}

/*  drivers.c - a worker's cluster-mode drivers: their command line and
    environment, their reports, and their output read back; the files
    and keys written into their directories are drvdir.c's, the
    processes themselves a children table's (children.h).  See
    drivers.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/spawn.h"
#include "worker/childenv.h"
#include "worker/children.h"
#include "worker/drivers.h"
#include "worker/drvdir.h"
#include "worker/relaunch.h"
#include "worker/userfs.h"

extern char **environ;

/* How much of the end of stderr is searched for its last line. */
static const size_t s_stderr_tail_bytes = 4096;
/* The longest piece of stderr quoted in an error. */
#define STDERR_QUOTE_MAX 512

/* What the table keeps of a driver beside its process (the children
   table's data block). */
typedef struct {
    int launch; /* the launch that started it */
} s_driver_t;

/* A NULL-terminated array of "NAME=value" strings (owned). */
typedef struct {
    char **items; /* owned strings */
    size_t count; /* used */
    size_t alloc; /* allocated */
} s_env_t;

struct drivers {
    children_t *children;      /* the worker's children (borrowed) */
    s_env_t own_env;           /* every driver's first variables: its
                                  master and the master's public key
                                  (absolute) */
    char *program;             /* hearth-driver's path */
    int64_t retention_ms;      /* end to removed directory; 0: keep */
    drivers_report_fn *report; /* told of every state change */
    void *report_arg;          /* passed to report */
    relaunches_t *waiting;     /* newer launches of drivers still stopping
                                  (owned) */
    runas_t *runas;            /* whom drivers run as (borrowed) */
    char *master_key;          /* the master's public key file (absolute),
                                  or NULL: the worker has no keys */
};

static int s_env_add (s_env_t *env, const char *name, size_t len,
                      const char *value);
static void s_env_free (s_env_t *env);

static void s_on_exit (void *arg, const children_exit_t *e);
static void s_json_fields (void *arg, const char *name, const void *data,
                           cJSON *o);

const children_kind_t drivers_kind = {
    .what = "driver", .exit = s_on_exit, .json = s_json_fields};

/* name=(the absolute path of a key file, kept in *abs) into env; -1
   with err when it cannot be resolved. */
static int
s_key_env (s_env_t *env, const char *name, const char *path, char **abs,
           hearth_error_t *err)
{
    if (!(*abs = realpath (path, NULL)))
        return hearth_errprintf (err, "%s: %s", path, strerror (errno));
    int rc = s_env_add (env, name, strlen (name), *abs);
    return rc < 0 ? hearth_errprintf (err, "out of memory") : 0;
}

drivers_t *
drivers_new (const drivers_config_t *c, hearth_error_t *err)
{
    drivers_t *self = calloc (1, sizeof *self);
    if (!self || !(self->program = strdup (c->program))
        || !(self->waiting = relaunches_new ())
        || s_env_add (&self->own_env, "HEARTH_MASTER", 13, c->master_url) < 0) {
        drivers_destroy (&self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->children = c->children;
    self->runas = c->runas;
    self->retention_ms = c->retention_ms;
    self->report = c->report;
    self->report_arg = c->report_arg;
    /* a secure master: its public key, for the drivers too (their secret
       keys are their own: s_write_key) */
    if (c->master_key
        && s_key_env (&self->own_env, "HEARTH_MASTER_KEY", c->master_key,
                      &self->master_key, err)
               < 0)
        drivers_destroy (&self);
    return self;
}

void
drivers_destroy (drivers_t **self_p)
{
    drivers_t *self = self_p ? *self_p : NULL;
    int saved = errno;
    if (self) {
        s_env_free (&self->own_env);
        relaunches_destroy (&self->waiting);
        free (self->master_key);
        free (self->program);
        free (self);
        *self_p = NULL;
    }
    errno = saved;
}

static void
s_report (drivers_t *self, const char *id, int launch, const char *state,
          const char *error, int exit_status, int sig, pid_t pid)
{
    drivers_report_t r = {id, launch, state, error, exit_status, sig, pid};
    if (self->report)
        self->report (self->report_arg, &r);
}

/* --- the directory ----------------------------------------------------- */

/* buf = dir/name; -1 when it does not fit. */
static int
s_join (char *buf, size_t size, const char *dir, const char *name)
{
    int n = snprintf (buf, size, "%s/%s", dir, name);
    return n < 0 || (size_t) n >= size ? -1 : 0;
}

/* --- the environment --------------------------------------------------- */

static void
s_env_free (s_env_t *env)
{
    for (size_t i = 0; i < env->count; i++)
        free (env->items[i]);
    free (env->items);
}

static bool
s_env_has (const s_env_t *env, const char *name, size_t len)
{
    for (size_t i = 0; i < env->count; i++)
        if (strncmp (env->items[i], name, len) == 0
            && env->items[i][len] == '=')
            return true;
    return false;
}

/* Add name=value unless name is set already (the first one wins). */
static int
s_env_add (s_env_t *env, const char *name, size_t len, const char *value)
{
    if (len == 0 || s_env_has (env, name, len))
        return 0;
    if (env->count + 2 > env->alloc) {
        size_t n = env->alloc ? env->alloc * 2 : 64;
        char **items = realloc (env->items, n * sizeof *items);
        if (!items)
            return -1;
        env->items = items;
        env->alloc = n;
    }
    if (asprintf (&env->items[env->count], "%.*s=%s", (int) len, name, value)
        < 0)
        return -1;
    env->items[++env->count] = NULL;
    return 0;
}

/* HEARTH_NAME for a setting name ("executor-cores"), or -1 when the name
   has characters an environment variable cannot. */
static int
s_setting_env (const char *key, char *buf, size_t size)
{
    size_t n = (size_t) snprintf (buf, size, "HEARTH_");
    if (!*key)
        return -1;
    for (; *key && n + 1 < size; key++) {
        if (!isalnum ((unsigned char) *key) && *key != '-' && *key != '_')
            return -1;
        buf[n++] = *key == '-' ? '_' : (char) toupper ((unsigned char) *key);
    }
    buf[n] = '\0';
    return *key ? -1 : 0;
}

/* Add "NAME=value" entries (first wins). */
static int
s_env_add_all (s_env_t *env, char *const *entries)
{
    for (char *const *e = entries; e && *e; e++) {
        const char *eq = strchr (*e, '=');
        if (eq && s_env_add (env, *e, (size_t) (eq - *e), eq + 1) < 0)
            return -1;
    }
    return 0;
}

/* What a driver in directory dir adds first: with keys, its own key
   pair there (and run as another user u, the copy of the master's key
   there); run as u, its user's name and home. */
static int
s_env_first (const drivers_t *self, const runas_user_t *u, const char *dir,
             s_env_t *env)
{
    char path[4200];
    snprintf (path, sizeof path, "%s/%s", dir, drvdir_key_file);
    if (self->master_key
        && s_env_add (env, "HEARTH_CURVE_SECRET", 19, path) < 0)
        return -1;
    if (!u->switched)
        return 0;
    snprintf (path, sizeof path, "%s/%s", dir, drvdir_master_copy);
    if (self->master_key && s_env_add (env, "HEARTH_MASTER_KEY", 17, path) < 0)
        return -1;
    return s_env_add (env, "USER", 4, u->name) < 0
                   || s_env_add (env, "LOGNAME", 7, u->name) < 0
                   || s_env_add (env, "HOME", 4, u->home) < 0
               ? -1
               : 0;
}

/* Where libhearth is, seen from this worker: the lib directory beside
   the worker's bin directory (an install moved with `make install
   prefix=...`, as the programs find each other by their own place,
   spawn.h), then the one configure named; into buf. */
static void
s_libdirs (char *buf, size_t size)
{
    char self[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
    char *slash = NULL;
    if (n > 0) {
        self[n] = '\0';
        slash = strrchr (self, '/');
    }
    if (slash) { /* the same directory twice at most: harmless */
        *slash = '\0';
        snprintf (buf, size, "%s/../lib:%s", self, HEARTH_LIBDIR);
    }
    else
        snprintf (buf, size, "%s", HEARTH_LIBDIR);
}

/* LD_LIBRARY_PATH for a driver: the one it was given (its env), else the
   worker's when it inherits it, then where libhearth is installed with
   this worker: a C driver linked with libhearth under a prefix the
   dynamic linker does not search (./configure --prefix=$HOME/hearth)
   loads it with no set-up (issue 42 item 9; docs/driver.md). */
static int
s_env_libpath (s_env_t *env, const drivers_launch_t *l, const runas_user_t *u)
{
    static const char name[] = "LD_LIBRARY_PATH";
    const cJSON *given = cJSON_GetObjectItemCaseSensitive (l->env, name);
    const char *had = cJSON_IsString (given) ? given->valuestring : NULL;
    for (char **e = environ; !had && e && *e; e++)
        if (strncmp (*e, "LD_LIBRARY_PATH=", 16) == 0
            && childenv_inherits (*e, u->switched))
            had = *e + 16;
    char dirs[2 * PATH_MAX + 16], *value = NULL;
    s_libdirs (dirs, sizeof dirs);
    if (asprintf (&value, "%s%s%s", had ? had : "", had && *had ? ":" : "",
                  dirs)
        < 0)
        return -1;
    int rc = s_env_add (env, name, sizeof name - 1, value);
    free (value);
    return rc;
}

/* The driver's environment: its own key, for a driver run as another
   user its user's, then its master, the master's key and its id, its
   library path, then its settings (conf), the variables it was given
   (env), and what it inherits of the worker's own environment
   (childenv.h). */
static int
s_env_build (drivers_t *self, const drivers_launch_t *l, const runas_user_t *u,
             const char *dir, s_env_t *env)
{
    char name[300];
    const cJSON *kv;
    memset (env, 0, sizeof *env);
    if (s_env_first (self, u, dir, env) < 0
        || s_env_add_all (env, self->own_env.items) < 0
        || s_env_add (env, "HEARTH_DRIVER_ID", 16, l->driver_id) < 0
        || s_env_libpath (env, l, u) < 0)
        return -1;
    cJSON_ArrayForEach (kv, l->conf)
    {
        if (!cJSON_IsString (kv)
            || s_setting_env (kv->string, name, sizeof name) < 0) {
            log_warn ("driver %s: setting '%s' ignored", l->driver_id,
                      kv->string);
            continue;
        }
        if (s_env_add (env, name, strlen (name), kv->valuestring) < 0)
            return -1;
    }
    cJSON_ArrayForEach (kv, l->env)
    {
        if (cJSON_IsString (kv) && !strchr (kv->string, '=')
            && s_env_add (env, kv->string, strlen (kv->string), kv->valuestring)
                   < 0)
            return -1;
    }
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr (*e, '=');
        if (!eq || !childenv_inherits (*e, u->switched))
            continue;
        if (s_env_add (env, *e, (size_t) (eq - *e), eq + 1) < 0)
            return -1;
    }
    return 0;
}

/* --- launching --------------------------------------------------------- */

/* Spawn the driver in dir, as u.  Returns its pid or -1. */
static pid_t
s_spawn (drivers_t *self, const drivers_launch_t *l, const runas_user_t *u,
         const char *dir, hearth_error_t *err)
{
    size_t nargs = (size_t) cJSON_GetArraySize (l->args);
    const char **argv = calloc (nargs + 3, sizeof *argv);
    char program[4096];
    s_env_t env;
    if (!argv || s_env_build (self, l, u, dir, &env) < 0) {
        free (argv);
        return hearth_errprintf (err, "out of memory");
    }
    size_t n = 0;
    if (s_join (program, sizeof program, dir, l->app) < 0) {
        s_env_free (&env);
        free (argv);
        return hearth_errprintf (err, "path too long: %s/%s", dir, l->app);
    }
    if (l->binary)
        argv[n++] = program;
    else {
        argv[n++] = self->program;
        argv[n++] = l->app;
    }
    const cJSON *a;
    cJSON_ArrayForEach (a, l->args)
    {
        if (cJSON_IsString (a))
            argv[n++] = a->valuestring;
    }
    s_driver_t d = {.launch = l->launch};
    children_spawn_t spawn = {.kind = &drivers_kind,
                              .arg = self,
                              .name = l->driver_id,
                              .dir = l->driver_id,
                              .argv = argv,
                              .envp = (const char *const *) env.items,
                              .cores = l->cores,
                              .memory_mb = l->memory_mb,
                              .data = &d,
                              .data_size = sizeof d,
                              .ids = u->switched ? &u->ids : NULL};
    pid_t pid = children_spawn (self->children, &spawn, err);
    s_env_free (&env);
    free (argv);
    return pid;
}

/* A newer launch of a driver whose older launch still runs here (the
   master took that one for gone): the older one is stopped, the newer
   starts once it has been reaped (s_on_exit).  An older or the same
   launch is a duplicate: -1. */
static int
s_launch_later (drivers_t *self, const drivers_launch_t *l, int running)
{
    if (l->launch <= running)
        return -1;
    if (relaunches_put (self->waiting, l) < 0) {
        log_error ("driver %s (launch %d): out of memory keeping it for "
                   "later",
                   l->driver_id, l->launch);
        s_report (self, l->driver_id, l->launch, "ERROR", "out of memory", -1,
                  0, 0);
        return 0;
    }
    log_info ("LAUNCH_DRIVER %s (launch %d): launch %d is still stopping; "
              "launch %d starts once it has ended",
              l->driver_id, l->launch, running, l->launch);
    children_stop (self->children, &drivers_kind, l->driver_id);
    return 0;
}

int
drivers_launch (drivers_t *self, const drivers_launch_t *l)
{
    char dir[4096];
    hearth_error_t err;
    pid_t pid;
    const s_driver_t *running =
        children_data (self->children, &drivers_kind, l->driver_id);
    if (running)
        return s_launch_later (self, l, running->launch);
    if (children_has (self->children, l->driver_id))
        return -1;
    children_keep (self->children, l->driver_id);
    runas_user_t u;
    if (runas_resolve (self->runas, &l->owner, &u, &err) < 0
        || drvdir_prepare (self->children, l, &u, self->master_key, dir,
                           sizeof dir, &err)
               < 0
        || (pid = s_spawn (self, l, &u, dir, &err)) < 0) {
        runas_user_clear (&u);
        log_warn ("driver %s could not start: %s", l->driver_id, err.text);
        s_report (self, l->driver_id, l->launch, "ERROR", err.text, -1, 0, 0);
        return 0;
    }
    log_info ("driver %s (launch %d) started: pid %d, %s %s in %s, as %s",
              l->driver_id, l->launch, (int) pid,
              l->binary ? "program" : "job file", l->app, dir, u.name);
    runas_user_clear (&u);
    s_report (self, l->driver_id, l->launch, "RUNNING", NULL, -1, 0, pid);
    return 0;
}

/* --- stopping and reaping ---------------------------------------------- */

/* A launch that waited and will not run: KILLED, and forgotten. */
static void
s_drop_waiting (drivers_t *self, const drivers_launch_t *l, const char *why)
{
    char id[HEARTH_ID_MAX + 1];
    snprintf (id, sizeof id, "%s", l->driver_id);
    log_info ("driver %s (launch %d) will not start: %s", id, l->launch, why);
    s_report (self, id, l->launch, "KILLED", why, -1, 0, 0);
    relaunches_drop (self->waiting, id);
}

int
drivers_kill (drivers_t *self, const char *driver_id)
{
    const drivers_launch_t *waiting = relaunches_get (self->waiting, driver_id);
    int rc = children_stop (self->children, &drivers_kind, driver_id);
    if (waiting)
        s_drop_waiting (self, waiting, "killed before it started");
    return waiting ? 0 : rc;
}

void
drivers_stop_waiting (drivers_t *self)
{
    const drivers_launch_t *l;
    while ((l = relaunches_first (self->waiting)))
        s_drop_waiting (self, l, "the worker is stopping");
}

/* A line of Hearth's log ("2026-12-07T01:44:17.619Z hearth-driver[42]
   ERROR the job failed: ...") kept as its message alone: the time and
   the process are the worker's to say, and they hid the reason. */
static void
s_strip_log_prefix (char *line)
{
    static const char *const levels[] = {"ERROR ", "WARN ", "INFO ", "DEBUG "};
    const char *p = strchr (line, ' ');
    if (!p || p - line < 20 || line[4] != '-' || p[-1] != 'Z'
        || !(p = strchr (p + 1, ' ')) || p[-1] != ']')
        return;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strncmp (p + 1, levels[i], strlen (levels[i])) == 0) {
            const char *msg = p + 1 + strlen (levels[i]);
            memmove (line, msg, strlen (msg) + 1);
            return;
        }
}

/* The last non-empty line of the driver's stderr, into buf ("" if
   none; its directory is its user's: no link followed, userfs.h), a line
   of Hearth's log as its message. */
static void
s_last_error_line (const char *dir, char *buf, size_t size)
{
    char tail[4097];
    buf[0] = '\0';
    int fd = userfs_open_read (dir, "stderr", NULL);
    if (fd < 0)
        return;
    off_t end = lseek (fd, 0, SEEK_END);
    off_t from = end > (off_t) s_stderr_tail_bytes
                     ? end - (off_t) s_stderr_tail_bytes
                     : 0;
    ssize_t n = pread (fd, tail, s_stderr_tail_bytes, from);
    close (fd);
    if (n <= 0)
        return;
    tail[n] = '\0';
    while (n > 0 && isspace ((unsigned char) tail[n - 1]))
        tail[--n] = '\0';
    char *line = strrchr (tail, '\n');
    line = line ? line + 1 : tail;
    size_t len = strlen (line) < size - 1 ? strlen (line) : size - 1;
    memcpy (buf, line, len);
    buf[len] = '\0';
    for (char *p = buf; *p; p++)
        if ((unsigned char) *p < ' ')
            *p = ' ';
    s_strip_log_prefix (buf);
}

/* The children table reaped a driver: report how it ended, with the
   last line of its stderr when it failed, and remove its directory
   after the retention. */
static void
s_on_exit (void *arg, const children_exit_t *x)
{
    drivers_t *self = arg;
    const s_driver_t *d = x->data;
    int code = x->exit_status;
    char last[STDERR_QUOTE_MAX], error[800];
    const char *state = x->stopped  ? "KILLED"
                        : code == 0 ? "FINISHED"
                                    : "FAILED";
    s_last_error_line (x->path, last, sizeof last);
    char oom[128];
    if (x->oom_killed && !x->stopped) {
        /* its group hit its memory limit: that is why, not the signal */
        state = "FAILED";
        code = code == 0 ? -1 : code;
        snprintf (error, sizeof error, "%s (%s)",
                  children_oom_text (x, oom, sizeof oom), x->text);
    }
    else if (x->stopped) /* its stderr says what it did when told to stop */
        snprintf (error, sizeof error, "killed on request (%s)", x->text);
    else
        snprintf (error, sizeof error, "%s%s%s", x->text,
                  last[0] && code != 0 ? ": " : "", code != 0 ? last : "");
    log_info ("driver %s (pid %d) %s: %s", x->name, (int) x->pid, state, error);
    s_report (self, x->name, d->launch, state, code == 0 ? NULL : error, code,
              x->signal, x->pid);
    if (self->retention_ms > 0)
        children_remove_later (self->children, x->name,
                               x->now_ms + self->retention_ms);
    /* A newer launch waited for this one to end (s_launch_later). */
    const drivers_launch_t *next = relaunches_get (self->waiting, x->name);
    if (next) {
        drivers_launch (self, next);
        relaunches_drop (self->waiting, x->name);
    }
}

/* --- views ------------------------------------------------------------- */

/* A driver's own fields in the children table's JSON view. */
static void
s_json_fields (void *arg, const char *name, const void *data, cJSON *o)
{
    (void) arg;
    const s_driver_t *d = data;
    cJSON_AddStringToObject (o, "driver_id", name);
    if (d->launch > 0)
        cJSON_AddNumberToObject (o, "launch", d->launch);
}

int
drivers_read_log (drivers_t *self, const char *driver_id, const char *stream,
                  uint64_t offset, size_t max_bytes, zframe_t **data, bool *eof,
                  hearth_error_t *err)
{
    char dir[4096], path[4200];
    hearth_error_t why;
    *data = NULL;
    if (children_path (self->children, driver_id, dir, sizeof dir, err) < 0)
        return -1;
    snprintf (path, sizeof path, "%s/%s", dir, stream);
    /* the driver's user's directory: no link followed (userfs.h) */
    int fd = userfs_open_read (dir, stream, &why);
    struct stat st;
    if (fd < 0 || fstat (fd, &st) < 0) {
        int e = errno;
        if (fd >= 0)
            close (fd);
        return hearth_errprintf (
            err, "no %s of driver %s on this worker: %s", stream, driver_id,
            e == ELOOP || e == ENOTDIR || e == EINVAL ? why.text
                                                      : strerror (e));
    }
    uint64_t size = (uint64_t) st.st_size;
    size_t want = offset >= size              ? 0
                  : size - offset < max_bytes ? (size_t) (size - offset)
                                              : max_bytes;
    *data = zframe_new (NULL, want);
    ssize_t n = *data && want
                    ? pread (fd, zframe_data (*data), want, (off_t) offset)
                    : 0;
    close (fd);
    if (!*data || n < 0) {
        zframe_destroy (data);
        return hearth_errprintf (err, "cannot read %s", path);
    }
    if ((size_t) n < want) {
        zframe_t *shorter = zframe_new (zframe_data (*data), (size_t) n);
        zframe_destroy (data);
        *data = shorter;
    }
    *eof = !children_has (self->children, driver_id)
           && offset + (uint64_t) n >= size;
    return *data ? 0 : hearth_errprintf (err, "out of memory");
}

/*  drivers.c - starting, stopping, reaping and reading the output of a
    worker's cluster-mode drivers; see drivers.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/spawn.h"
#include "worker/cleanups.h"
#include "worker/drivers.h"

extern char **environ;

/* Driver directories: private to the worker's user. */
static const mode_t s_dir_mode = 0700;
/* Shipped files without a mode, and the program of a binary driver. */
static const mode_t s_file_mode = 0600, s_program_mode = 0700;
/* How much of the end of stderr is searched for its last line. */
static const size_t s_stderr_tail_bytes = 4096;
/* The longest piece of stderr quoted in an error. */
#define STDERR_QUOTE_MAX 512
/* Names the worker writes itself in a driver's directory. */
static const char *const s_reserved[] = {"stdout", "stderr", NULL};

/* One driver process. */
typedef struct {
    char id[HEARTH_ID_MAX + 1]; /* driver-... */
    int launch;                 /* the launch that started it */
    int cores;                  /* cores it may use */
    int64_t memory_mb;          /* memory it may use */
    pid_t pid;                  /* leads its own process group */
    bool killing;               /* we asked it to stop */
    int64_t kill_deadline_ms;   /* SIGKILL at this time, or 0 */
} s_driver_t;

struct drivers {
    char *work_dir;            /* root of the driver directories */
    char *program;             /* hearth-driver's path */
    char *master_url;          /* what drivers register with */
    char *curve_secret;        /* absolute path of the worker's key, or NULL */
    char *master_key;          /* absolute path of the master's, or NULL */
    int64_t kill_grace_ms;     /* SIGTERM to SIGKILL */
    int64_t retention_ms;      /* end to removed directory; 0: keep */
    zhashx_t *table;           /* id -> s_driver_t * (owned) */
    cleanups_t *cleanups;      /* ended drivers' directories */
    drivers_report_fn *report; /* told of every state change */
    void *report_arg;          /* passed to report */
};

static void
s_free_item (void **item)
{
    free (*item);
    *item = NULL;
}

/* An absolute copy of a key file's path (NULL stays NULL); -1 when it
   cannot be resolved. */
static int
s_key_path (const char *path, char **copy, hearth_error_t *err)
{
    *copy = NULL;
    if (path && !(*copy = realpath (path, NULL)))
        return hearth_errprintf (err, "%s: %s", path, strerror (errno));
    return 0;
}

drivers_t *
drivers_new (const drivers_config_t *c, hearth_error_t *err)
{
    drivers_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->work_dir = strdup (c->work_dir);
    self->program = strdup (c->program);
    self->master_url = strdup (c->master_url);
    self->table = zhashx_new ();
    self->cleanups = cleanups_new (c->work_dir);
    if (!self->work_dir || !self->program || !self->master_url || !self->table
        || !self->cleanups) {
        drivers_destroy (&self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    if (s_key_path (c->curve_secret, &self->curve_secret, err) < 0
        || s_key_path (c->master_key, &self->master_key, err) < 0) {
        drivers_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->table, s_free_item);
    self->kill_grace_ms = c->kill_grace_ms;
    self->retention_ms = c->retention_ms;
    self->report = c->report;
    self->report_arg = c->report_arg;
    return self;
}

void
drivers_destroy (drivers_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    drivers_t *self = *self_p;
    for (s_driver_t *d = self->table ? zhashx_first (self->table) : NULL; d;
         d = zhashx_next (self->table)) {
        kill (-d->pid, SIGKILL);
        waitpid (d->pid, NULL, 0);
    }
    zhashx_destroy (&self->table);
    cleanups_destroy (&self->cleanups);
    free (self->work_dir);
    free (self->program);
    free (self->master_url);
    free (self->curve_secret);
    free (self->master_key);
    free (self);
    *self_p = NULL;
}

static void
s_report (drivers_t *self, const char *id, int launch, const char *state,
          const char *error, int exit_status, int sig, pid_t pid)
{
    drivers_report_t r = {id, launch, state, error, exit_status, sig, pid};
    if (self->report)
        self->report (self->report_arg, &r);
}

/* --- the directory and its files --------------------------------------- */

/* buf = dir/name; -1 when it does not fit. */
static int
s_join (char *buf, size_t size, const char *dir, const char *name)
{
    int n = snprintf (buf, size, "%s/%s", dir, name);
    return n < 0 || (size_t) n >= size ? -1 : 0;
}

static void
s_dir (const drivers_t *self, const char *id, char *buf, size_t size)
{
    if (s_join (buf, size, self->work_dir, id) < 0)
        buf[0] = '\0'; /* an over-long path fails at its first use */
}

static int
s_write_file (const char *path, zframe_t *data, mode_t mode,
              hearth_error_t *err)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                   mode);
    if (fd < 0)
        return hearth_errprintf (err, "cannot write %s: %s", path,
                                 strerror (errno));
    const unsigned char *p = zframe_data (data);
    size_t left = zframe_size (data);
    while (left > 0) {
        ssize_t n = write (fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close (fd);
            return hearth_errprintf (err, "cannot write %s: %s", path,
                                     strerror (e));
        }
        p += n;
        left -= (size_t) n;
    }
    /* O_CREAT's mode passes the umask and leaves an old file's mode. */
    if (fchmod (fd, mode) < 0 || close (fd) < 0)
        return hearth_errprintf (err, "cannot write %s: %s", path,
                                 strerror (errno));
    return 0;
}

static bool
s_reserved_name (const char *name)
{
    for (int i = 0; s_reserved[i]; i++)
        if (strcmp (s_reserved[i], name) == 0)
            return true;
    return false;
}

/* Create the directory and write the shipped files into it. */
static int
s_prepare (drivers_t *self, const drivers_launch_t *l, const char *dir,
           hearth_error_t *err)
{
    if (mkdir (dir, s_dir_mode) < 0 && errno != EEXIST)
        return hearth_errprintf (err, "cannot create %s: %s", dir,
                                 strerror (errno));
    (void) self;
    const cJSON *f;
    cJSON_ArrayForEach (f, l->files)
    {
        const cJSON *name = cJSON_GetObjectItem (f, "name");
        const cJSON *frame = cJSON_GetObjectItem (f, "frame");
        const cJSON *mode = cJSON_GetObjectItem (f, "mode");
        if (!cJSON_IsString (name) || !cJSON_IsNumber (frame)
            || frame->valuedouble < 0 || frame->valuedouble >= l->nframes)
            return hearth_errprintf (err, "bad file in LAUNCH_DRIVER");
        if (s_reserved_name (name->valuestring))
            return hearth_errprintf (err, "the file name '%s' is reserved",
                                     name->valuestring);
        mode_t m = cJSON_IsNumber (mode) ? (mode_t) mode->valueint
                   : l->binary && strcmp (name->valuestring, l->app) == 0
                       ? s_program_mode
                       : s_file_mode;
        char path[4096];
        if (s_join (path, sizeof path, dir, name->valuestring) < 0)
            return hearth_errprintf (err, "path too long: %s/%s", dir,
                                     name->valuestring);
        if (s_write_file (path, l->frames[(size_t) frame->valuedouble],
                          m & 07777, err)
            < 0)
            return -1;
    }
    return 0;
}

/* --- the environment --------------------------------------------------- */

/* A NULL-terminated array of "NAME=value" strings (owned). */
typedef struct {
    char **items; /* owned strings */
    size_t count; /* used */
    size_t alloc; /* allocated */
} s_env_t;

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

/* The driver's environment: its id, its master and the worker's keys
   for it first, then its settings (conf), the variables it was given
   (env), and the worker's own environment without the worker's HEARTH_
   settings. */
static int
s_env_build (drivers_t *self, const drivers_launch_t *l, s_env_t *env)
{
    char name[300];
    const cJSON *kv;
    memset (env, 0, sizeof *env);
    if (s_env_add (env, "HEARTH_MASTER", 13, self->master_url) < 0
        || s_env_add (env, "HEARTH_DRIVER_ID", 16, l->driver_id) < 0)
        return -1;
    if (self->curve_secret
        && (s_env_add (env, "HEARTH_CURVE_SECRET", 19, self->curve_secret) < 0
            || s_env_add (env, "HEARTH_MASTER_KEY", 17, self->master_key) < 0))
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
        if (!eq
            || (strncmp (*e, "HEARTH_", 7) == 0
                && strncmp (*e, "HEARTH_BIN_DIR=", 15) != 0))
            continue;
        if (s_env_add (env, *e, (size_t) (eq - *e), eq + 1) < 0)
            return -1;
    }
    return 0;
}

/* --- launching --------------------------------------------------------- */

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

/* Spawn the driver in dir.  Returns its pid or -1. */
static pid_t
s_spawn (drivers_t *self, const drivers_launch_t *l, const char *dir,
         hearth_error_t *err)
{
    size_t nargs = (size_t) cJSON_GetArraySize (l->args);
    const char **argv = calloc (nargs + 3, sizeof *argv);
    char program[4096];
    s_env_t env;
    pid_t pid = -1;
    int out = -1, errfd = -1;
    if (!argv || s_env_build (self, l, &env) < 0) {
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
    if ((out = s_open_log (dir, "stdout", err)) >= 0
        && (errfd = s_open_log (dir, "stderr", err)) >= 0) {
        hearth_spawn_opts_t opts = {.argv = argv,
                                    .envp = (const char *const *) env.items,
                                    .cwd = dir,
                                    .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                    .stdout_fd = out,
                                    .stderr_fd = errfd,
                                    .new_pgroup = true};
        pid = hearth_spawn (&opts, err);
    }
    if (out >= 0)
        close (out);
    if (errfd >= 0)
        close (errfd);
    s_env_free (&env);
    free (argv);
    return pid;
}

int
drivers_launch (drivers_t *self, const drivers_launch_t *l, int64_t now_ms)
{
    (void) now_ms;
    char dir[4096];
    hearth_error_t err;
    if (zhashx_lookup (self->table, l->driver_id))
        return -1;
    s_driver_t *d = calloc (1, sizeof *d);
    if (!d) {
        s_report (self, l->driver_id, l->launch, "ERROR",
                  "worker out of memory", -1, 0, 0);
        return 0;
    }
    snprintf (d->id, sizeof d->id, "%s", l->driver_id);
    d->launch = l->launch;
    d->cores = l->cores;
    d->memory_mb = l->memory_mb;
    s_dir (self, d->id, dir, sizeof dir);
    cleanups_cancel (self->cleanups, d->id);
    if (s_prepare (self, l, dir, &err) < 0
        || (d->pid = s_spawn (self, l, dir, &err)) < 0) {
        log_warn ("driver %s could not start: %s", d->id, err.text);
        s_report (self, d->id, d->launch, "ERROR", err.text, -1, 0, 0);
        free (d);
        return 0;
    }
    zhashx_insert (self->table, d->id, d);
    log_info ("driver %s (launch %d) started: pid %d, %s %s in %s", d->id,
              d->launch, (int) d->pid, l->binary ? "program" : "job file",
              l->app, dir);
    s_report (self, d->id, d->launch, "RUNNING", NULL, -1, 0, d->pid);
    return 0;
}

/* --- stopping and reaping ---------------------------------------------- */

static void
s_stop (drivers_t *self, s_driver_t *d, int64_t now_ms)
{
    if (d->killing)
        return;
    d->killing = true;
    d->kill_deadline_ms = now_ms + self->kill_grace_ms;
    if (kill (-d->pid, SIGTERM) < 0 && errno != ESRCH)
        log_warn ("cannot signal driver %s (pid %d): %s", d->id, (int) d->pid,
                  strerror (errno));
}

int
drivers_kill (drivers_t *self, const char *driver_id, int64_t now_ms)
{
    s_driver_t *d = zhashx_lookup (self->table, driver_id);
    if (!d)
        return -1;
    log_info ("stopping driver %s (pid %d)", d->id, (int) d->pid);
    s_stop (self, d, now_ms);
    return 0;
}

void
drivers_kill_all (drivers_t *self, int64_t now_ms)
{
    for (s_driver_t *d = zhashx_first (self->table); d;
         d = zhashx_next (self->table))
        s_stop (self, d, now_ms);
}

/* The last non-empty line of the driver's stderr, into buf ("" if
   none). */
static void
s_last_error_line (const char *dir, char *buf, size_t size)
{
    char path[4096], tail[4097];
    buf[0] = '\0';
    int fd = s_join (path, sizeof path, dir, "stderr") < 0
                 ? -1
                 : open (path, O_RDONLY | O_CLOEXEC);
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
}

bool
drivers_exited (drivers_t *self, pid_t pid, int status, int64_t now_ms)
{
    s_driver_t *d = NULL;
    for (d = zhashx_first (self->table); d && d->pid != pid;
         d = zhashx_next (self->table))
        ;
    if (!d)
        return false;
    /* The group may hold the driver's own children: end them. */
    kill (-pid, SIGKILL);
    char text[128], dir[4096], last[STDERR_QUOTE_MAX], error[800];
    hearth_wait_status_text (status, text, sizeof text);
    int code = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
    int sig = WIFSIGNALED (status) ? WTERMSIG (status) : 0;
    const char *state = d->killing  ? "KILLED"
                        : code == 0 ? "FINISHED"
                                    : "FAILED";
    s_dir (self, d->id, dir, sizeof dir);
    s_last_error_line (dir, last, sizeof last);
    snprintf (error, sizeof error, "%s%s%s", text,
              last[0] && code != 0 ? ": " : "", code != 0 ? last : "");
    log_info ("driver %s (pid %d) %s: %s", d->id, (int) pid, state, error);
    s_report (self, d->id, d->launch, state, code == 0 ? NULL : error, code,
              sig, pid);
    if (self->retention_ms > 0)
        cleanups_add (self->cleanups, d->id, now_ms + self->retention_ms);
    zhashx_delete (self->table, d->id);
    return true;
}

void
drivers_tick (drivers_t *self, int64_t now_ms)
{
    for (s_driver_t *d = zhashx_first (self->table); d;
         d = zhashx_next (self->table))
        if (d->killing && d->kill_deadline_ms
            && now_ms >= d->kill_deadline_ms) {
            log_warn ("driver %s ignored SIGTERM: SIGKILL", d->id);
            kill (-d->pid, SIGKILL);
            d->kill_deadline_ms = 0;
        }
    if (cleanups_due (self->cleanups, now_ms))
        cleanups_remove_first (self->cleanups);
}

/* --- views ------------------------------------------------------------- */

size_t
drivers_count (const drivers_t *self)
{
    return zhashx_size (self->table);
}

void
drivers_usage (const drivers_t *self, int *cores, int64_t *memory_mb)
{
    for (s_driver_t *d = zhashx_first (self->table); d;
         d = zhashx_next (self->table)) {
        *cores += d->cores;
        *memory_mb += d->memory_mb;
    }
}

cJSON *
drivers_json (const drivers_t *self)
{
    cJSON *list = cJSON_CreateArray ();
    for (s_driver_t *d = zhashx_first (self->table); list && d;
         d = zhashx_next (self->table)) {
        cJSON *o = cJSON_CreateObject ();
        cJSON_AddStringToObject (o, "driver_id", d->id);
        if (d->launch > 0)
            cJSON_AddNumberToObject (o, "launch", d->launch);
        cJSON_AddNumberToObject (o, "cores", d->cores);
        cJSON_AddNumberToObject (o, "memory_mb", (double) d->memory_mb);
        cJSON_AddNumberToObject (o, "pid", (int) d->pid);
        cJSON_AddItemToArray (list, o);
    }
    return list;
}

int
drivers_read_log (drivers_t *self, const char *driver_id, const char *stream,
                  uint64_t offset, size_t max_bytes, zframe_t **data, bool *eof,
                  hearth_error_t *err)
{
    char path[4096];
    *data = NULL;
    snprintf (path, sizeof path, "%s/%s/%s", self->work_dir, driver_id, stream);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat (fd, &st) < 0) {
        int e = errno;
        if (fd >= 0)
            close (fd);
        return hearth_errprintf (err, "no %s of driver %s on this worker: %s",
                                 stream, driver_id, strerror (e));
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
    *eof = !zhashx_lookup (self->table, driver_id)
           && offset + (uint64_t) n >= size;
    return *data ? 0 : hearth_errprintf (err, "out of memory");
}

/*  eventlog.c - the application's event log: events built on the engine
    thread into one buffer, written by a background thread.

    Two buffers: the engine fills `fill`; the writer owns `pending` while
    pending_len > 0.  A hand-over (a full fill, a tick after the flush
    interval, the end) swaps them when the writer is idle; when it is
    still busy the engine keeps filling (up to s_max_buffered, then events
    are counted as dropped and the count logged as an event).  The writer
    rolls to the next file between lines, never inside one.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver/eventlog.h"
#include "driver/internal.h"
#include "libcore/clock.h"
#include "libcore/fstree.h"
#include "libcore/log.h"

/* A fill this large goes to the writer at once. */
static const size_t s_handover_bytes = 256 * 1024;
/* Events wait at most this long in the fill before a tick hands them. */
static const int64_t s_flush_interval_ms = 500;
/* Past this much unwritten (a stuck disk), events are dropped. */
static const size_t s_max_buffered = 64 * 1024 * 1024;

typedef struct {
    char *data;   /* bytes, whole lines */
    size_t len;   /* used */
    size_t alloc; /* allocated */
} s_buf_t;

struct eventlog {
    char *dir;           /* the directory */
    char *app_id;        /* the files' stem */
    char path[4096];     /* the first file */
    uint64_t roll_bytes; /* roll past this many bytes, 0: never */
    /* engine side */
    s_buf_t fill;      /* events not yet handed over */
    size_t rec_start;  /* where the event being built starts */
    bool rec_fields;   /* it has a field after "event" */
    bool rec_bad;      /* no memory while building it: dropped */
    int64_t filled_ms; /* when fill got its first event, monotonic */
    uint64_t dropped;  /* events dropped since the last hand-over */
    /* shared, under lock */
    pthread_mutex_t lock; /* guards pending and stop */
    pthread_cond_t work;  /* pending filled, or stop */
    pthread_cond_t idle;  /* pending written */
    s_buf_t pending;      /* the writer's, while len > 0 */
    bool stop;            /* write what is pending, then end */
    pthread_t thread;     /* the writer */
    bool started;         /* thread running */
    /* writer side */
    int fd;              /* the current file, or -1 */
    unsigned file_no;    /* 0: APP.events, n: APP.events.n */
    uint64_t file_bytes; /* bytes in the current file */
    bool failed;         /* a write failed: said once */
};

/* ---- the writer --------------------------------------------------------- */

static void
s_file_path (const eventlog_t *self, unsigned n, char *buf, size_t size)
{
    if (n == 0)
        snprintf (buf, size, "%s/%s.events", self->dir, self->app_id);
    else
        snprintf (buf, size, "%s/%s.events.%u", self->dir, self->app_id, n);
}

static int
s_open_file (eventlog_t *self, unsigned n)
{
    char path[4096];
    s_file_path (self, n, path, sizeof path);
    self->fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    self->file_no = n;
    self->file_bytes = 0;
    return self->fd < 0 ? -1 : 0;
}

static void
s_write_failed (eventlog_t *self, const char *what)
{
    if (!self->failed)
        log_error ("event log %s: %s: %s; events are lost", self->path, what,
                   strerror (errno));
    self->failed = true;
}

/* The next file: the current one synced and closed first. */
static void
s_roll (eventlog_t *self)
{
    if (self->fd >= 0) {
        fdatasync (self->fd);
        close (self->fd);
    }
    if (s_open_file (self, self->file_no + 1) < 0)
        s_write_failed (self, "cannot open its next file");
}

/* Write whole lines, rolling between lines: a file never passes
   roll_bytes unless one line alone does. */
static void
s_write_lines (eventlog_t *self, const char *data, size_t len)
{
    while (len > 0 && self->fd >= 0) {
        size_t n = len;
        uint64_t room = self->roll_bytes - self->file_bytes;
        if (self->roll_bytes && self->file_bytes + len > self->roll_bytes) {
            /* the last newline that fits, else (an empty file) one line */
            const char *nl = room ? memrchr (data, '\n', room) : NULL;
            if (!nl && self->file_bytes > 0) {
                s_roll (self);
                continue;
            }
            if (!nl)
                nl = memchr (data, '\n', len);
            n = nl ? (size_t) (nl - data) + 1 : len;
        }
        if (hearth_write_all (self->fd, data, n) < 0) {
            s_write_failed (self, "cannot write");
            return;
        }
        self->file_bytes += n;
        data += n;
        len -= n;
        if (len > 0)
            s_roll (self);
    }
}

static void *
s_writer (void *arg)
{
    eventlog_t *self = arg;
    pthread_mutex_lock (&self->lock);
    for (;;) {
        while (!self->pending.len && !self->stop)
            pthread_cond_wait (&self->work, &self->lock);
        if (!self->pending.len)
            break; /* stop, and nothing left */
        s_buf_t b = self->pending;
        pthread_mutex_unlock (&self->lock);
        s_write_lines (self, b.data, b.len);
        pthread_mutex_lock (&self->lock);
        self->pending.len = 0;
        pthread_cond_signal (&self->idle);
    }
    pthread_mutex_unlock (&self->lock);
    return NULL;
}

/* ---- hand-over ---------------------------------------------------------- */

static void s_dropped_event (eventlog_t *self);

/* Give the fill to the writer if it is idle (wait: until it is). */
static void
s_handover (eventlog_t *self, bool wait)
{
    pthread_mutex_lock (&self->lock);
    while (wait && self->pending.len)
        pthread_cond_wait (&self->idle, &self->lock);
    bool swapped = false;
    if (!self->pending.len && self->fill.len) {
        s_buf_t t = self->pending;
        self->pending = self->fill;
        self->fill = t;
        self->fill.len = 0;
        swapped = true;
        pthread_cond_signal (&self->work);
    }
    pthread_mutex_unlock (&self->lock);
    if (swapped && self->dropped)
        s_dropped_event (self);
}

/* ---- building events ---------------------------------------------------- */

static bool
s_reserve (eventlog_t *self, size_t more)
{
    s_buf_t *b = &self->fill;
    if (self->rec_bad)
        return false;
    if (b->len + more <= b->alloc)
        return true;
    size_t n = b->alloc ? b->alloc : s_handover_bytes + 4096;
    while (n < b->len + more)
        n *= 2;
    char *data = realloc (b->data, n);
    if (!data) {
        self->rec_bad = true;
        return false;
    }
    b->data = data;
    b->alloc = n;
    return true;
}

static void
s_raw (eventlog_t *self, const char *text, size_t len)
{
    if (!s_reserve (self, len))
        return;
    memcpy (self->fill.data + self->fill.len, text, len);
    self->fill.len += len;
}

/* A JSON string: quotes, backslashes and control bytes escaped; other
   bytes as they are. */
static void
s_string (eventlog_t *self, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t len = strlen (s);
    if (!s_reserve (self, len * 6 + 2))
        return;
    char *o = self->fill.data + self->fill.len;
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char) *p;
        }
        else if (*p == '\n') {
            *o++ = '\\';
            *o++ = 'n';
        }
        else if (*p < 0x20 || *p == 0x7f) {
            memcpy (o, "\\u00", 4);
            o[4] = hex[*p >> 4];
            o[5] = hex[*p & 15];
            o += 6;
        }
        else
            *o++ = (char) *p;
    }
    *o++ = '"';
    self->fill.len = (size_t) (o - self->fill.data);
}

static void
s_key (eventlog_t *self, const char *key)
{
    s_raw (self, ",", 1);
    s_string (self, key);
    s_raw (self, ":", 1);
}

static int64_t
s_wall_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
eventlog_begin (eventlog_t *self, const char *event)
{
    if (!self)
        return;
    if (!self->fill.len)
        self->filled_ms = hearth_mono_ms ();
    self->rec_start = self->fill.len;
    self->rec_bad = false;
    s_raw (self, "{\"event\":", 9);
    s_string (self, event);
    eventlog_int (self, "time_ms", s_wall_ms ());
}

void
eventlog_str (eventlog_t *self, const char *key, const char *value)
{
    if (!self)
        return;
    s_key (self, key);
    if (value)
        s_string (self, value);
    else
        s_raw (self, "null", 4);
}

void
eventlog_int (eventlog_t *self, const char *key, int64_t value)
{
    if (!self)
        return;
    /* by hand, not snprintf: this runs several times per task */
    char text[24], *p = text + sizeof text;
    uint64_t u = value < 0 ? -(uint64_t) value : (uint64_t) value;
    do
        *--p = (char) ('0' + u % 10);
    while (u /= 10);
    if (value < 0)
        *--p = '-';
    s_key (self, key);
    s_raw (self, p, (size_t) (text + sizeof text - p));
}

void
eventlog_bool (eventlog_t *self, const char *key, bool value)
{
    if (!self)
        return;
    s_key (self, key);
    s_raw (self, value ? "true" : "false", value ? 4 : 5);
}

void
eventlog_json (eventlog_t *self, const char *key, const cJSON *value)
{
    if (!self)
        return;
    char *text = value ? cJSON_PrintUnformatted (value) : NULL;
    if (!text) {
        self->rec_bad = true;
        return;
    }
    s_key (self, key);
    s_raw (self, text, strlen (text));
    cJSON_free (text);
}

void
eventlog_end (eventlog_t *self)
{
    if (!self)
        return;
    s_raw (self, "}\n", 2);
    if (self->rec_bad || self->fill.len > s_max_buffered) {
        self->fill.len = self->rec_start; /* the whole event, or nothing */
        self->dropped++;
        self->rec_bad = false;
        return;
    }
    if (self->fill.len >= s_handover_bytes)
        s_handover (self, false);
}

/* Events were dropped (no memory, or the writer far behind): say how
   many, in the log itself. */
static void
s_dropped_event (eventlog_t *self)
{
    uint64_t n = self->dropped;
    self->dropped = 0;
    log_warn ("event log %s: %llu events dropped", self->path,
              (unsigned long long) n);
    eventlog_begin (self, "events_dropped");
    eventlog_int (self, "count", (int64_t) n);
    eventlog_end (self);
}

/* ---- the log ------------------------------------------------------------ */

eventlog_t *
eventlog_new (const char *dir, const char *app_id, uint64_t roll_bytes,
              hearth_error_t *err)
{
    eventlog_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->fd = -1;
    self->roll_bytes = roll_bytes;
    self->dir = strdup (dir);
    self->app_id = strdup (app_id);
    pthread_mutex_init (&self->lock, NULL);
    pthread_cond_init (&self->work, NULL);
    pthread_cond_init (&self->idle, NULL);
    if (!self->dir || !self->app_id) {
        hearth_errprintf (err, "out of memory");
        goto error;
    }
    s_file_path (self, 0, self->path, sizeof self->path);
    if (hearth_mkdir_p (dir, 0755, err) < 0)
        goto error;
    if (s_open_file (self, 0) < 0) {
        hearth_errprintf (err, "cannot create the event log %s: %s", self->path,
                          strerror (errno));
        goto error;
    }
    if (pthread_create (&self->thread, NULL, s_writer, self) != 0) {
        hearth_errprintf (err, "cannot start the event log's writer");
        goto error;
    }
    self->started = true;
    return self;
error:
    eventlog_destroy (&self);
    return NULL;
}

void
eventlog_destroy (eventlog_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    eventlog_t *self = *self_p;
    if (self->started) {
        s_handover (self, true);
        s_handover (self, true); /* the dropped count, if any */
        pthread_mutex_lock (&self->lock);
        self->stop = true;
        pthread_cond_signal (&self->work);
        pthread_mutex_unlock (&self->lock);
        pthread_join (self->thread, NULL);
    }
    if (self->fd >= 0) {
        fdatasync (self->fd);
        close (self->fd);
    }
    pthread_cond_destroy (&self->idle);
    pthread_cond_destroy (&self->work);
    pthread_mutex_destroy (&self->lock);
    free (self->fill.data);
    free (self->pending.data);
    free (self->dir);
    free (self->app_id);
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
eventlog_tick (eventlog_t *self)
{
    if (self && self->fill.len
        && hearth_mono_ms () - self->filled_ms >= s_flush_interval_ms)
        s_handover (self, false);
}

const char *
eventlog_path (const eventlog_t *self)
{
    return self->path;
}

/* ---- the application's log ---------------------------------------------- */

const char *
eventlog_dir (const hearth_conf_t *conf)
{
    const char *dir = hearth_conf_str (conf, "event-log");
    if (!dir || !*dir)
        dir = getenv ("HEARTH_EVENT_LOG_DIR");
    return dir && *dir ? dir : NULL;
}

int
eventlog_check_dir (const hearth_conf_t *conf, hearth_error_t *err)
{
    const char *dir = eventlog_dir (conf);
    if (!dir)
        return 0;
    hearth_error_t merr;
    if (hearth_mkdir_p (dir, 0755, &merr) < 0)
        return hearth_errprintf (err, "event-log %s: %s", dir, merr.text);
    if (access (dir, W_OK | X_OK) < 0)
        return hearth_errprintf (err, "event-log %s: cannot write there: %s",
                                 dir, strerror (errno));
    return 0;
}

/* Every setting that has a value, as its text (lists as arrays). */
static cJSON *
s_settings (const hearth_conf_t *conf)
{
    cJSON *o = cJSON_CreateObject ();
    for (const hearth_opt_t *opt = driver_options (); o && opt->name; opt++) {
        if (opt->type == HEARTH_OPT_ALIAS
            || !hearth_conf_isset (conf, opt->name))
            continue;
        if (opt->type == HEARTH_OPT_LIST) {
            const char *const *items;
            size_t n = hearth_conf_list (conf, opt->name, &items);
            cJSON *a = cJSON_AddArrayToObject (o, opt->name);
            for (size_t i = 0; a && i < n; i++)
                cJSON_AddItemToArray (a, cJSON_CreateString (items[i]));
        }
        else if (hearth_conf_str (conf, opt->name))
            cJSON_AddStringToObject (o, opt->name,
                                     hearth_conf_str (conf, opt->name));
    }
    return o;
}

static void
s_user (char *buf, size_t size)
{
    struct passwd pw, *found = NULL;
    char scratch[4096];
    if (getpwuid_r (getuid (), &pw, scratch, sizeof scratch, &found) == 0
        && found)
        snprintf (buf, size, "%s", found->pw_name);
    else
        snprintf (buf, size, "%u", (unsigned) getuid ());
}

int
eventlog_open_app (const hearth_conf_t *conf, const char *app_id,
                   eventlog_t **el_p, hearth_error_t *err)
{
    const char *dir = eventlog_dir (conf);
    *el_p = NULL;
    if (!dir)
        return 0;
    eventlog_t *el = eventlog_new (
        dir, app_id, hearth_conf_bytes (conf, "event-log-roll"), err);
    if (!el)
        return -1;
    const char *name = hearth_conf_str (conf, "name");
    char user[256];
    s_user (user, sizeof user);
    cJSON *settings = s_settings (conf);
    eventlog_begin (el, "log_start");
    eventlog_int (el, "format", EVENTLOG_FORMAT);
    eventlog_str (el, "app_id", app_id);
    eventlog_str (el, "name", name ? name : "hearth");
    eventlog_str (el, "user", user);
    eventlog_json (el, "settings", settings);
    eventlog_end (el);
    cJSON_Delete (settings);
    eventlog_begin (el, "app_start");
    eventlog_str (el, "app_id", app_id);
    eventlog_str (el, "master", hearth_conf_str (conf, "master"));
    eventlog_int (el, "pid", (int64_t) getpid ());
    eventlog_end (el);
    log_info ("event log: %s", el->path);
    *el_p = el;
    return 0;
}

void
eventlog_app_end (eventlog_t *self, const char *state, const char *reason)
{
    eventlog_begin (self, "app_end");
    eventlog_str (self, "state", state);
    eventlog_str (self, "reason", reason);
    eventlog_end (self);
}

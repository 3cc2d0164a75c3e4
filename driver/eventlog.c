/*  eventlog.c - the application's event log: events built on the engine
    thread into chunks, written by a background thread.

    The engine fills one chunk (256 KiB) at a time, in place; a chunk that
    is full, or whose first event has waited the flush interval, goes to
    the writer's queue (one lock a chunk, never one an event) and the
    engine goes on in a chunk the writer has given back, so nothing is
    copied or reallocated on the way (a single growing buffer used to be:
    its reallocations cost the engine as much as the formatting when the
    writer was slow to get a core).  Past s_max_buffered bytes queued (a
    stuck disk), events are counted as dropped and the count is logged as
    an event once there is room again.  The writer rolls to the next file
    between lines, never inside one.

    What is written about the application as a whole (its first lines,
    app_end with the totals) is evapp.c's; the task events, one pair per
    task and so the hot path, are formatted in place by evtask.c.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver/eventlog.h"
#include "libcore/clock.h"
#include "libcore/fstree.h"
#include "libcore/log.h"

/* The size of a chunk: what the writer gets at a time. */
static const size_t s_chunk_bytes = 256 * 1024;
/* Written chunks kept for reuse. */
static const size_t s_max_free = 4;
/* Events wait at most this long in a chunk before a tick hands it over. */
static const int64_t s_flush_interval_ms = 500;
/* Past this much unwritten (a stuck disk), events are dropped. */
static const size_t s_max_buffered = 64 * 1024 * 1024;

/* A piece of the log: whole lines. */
typedef struct s_chunk s_chunk_t;
struct s_chunk {
    s_chunk_t *next; /* in the queue or the free list */
    size_t len;      /* bytes used */
    size_t size;     /* bytes of data */
    char data[];     /* the lines */
};

struct eventlog {
    char *dir;           /* the directory */
    char *app_id;        /* the files' stem */
    char path[4096];     /* the first file */
    uint64_t roll_bytes; /* roll past this many bytes, 0: never */
    /* engine side */
    s_chunk_t *cur;           /* being filled, or NULL */
    size_t rec_start;         /* where the event being built starts in cur */
    bool rec_bad;             /* no room while building it: dropped */
    int64_t filled_ms;        /* when cur got its first event, monotonic */
    uint64_t dropped;         /* events dropped, not yet said */
    bool say_dropped;         /* there is room again: say how many */
    bool clock_held;          /* events take held_ms (one clock read) */
    int64_t held_ms;          /* the wall clock when it was held */
    char held_text[24];       /* held_ms in decimal */
    size_t held_len;          /* its length */
    eventlog_totals_t totals; /* what app_end sums up */
    /* shared, under lock */
    pthread_mutex_t lock; /* guards what follows up to the writer's side */
    pthread_cond_t work;  /* a chunk queued, or stop */
    s_chunk_t *head;      /* the writer's queue: first */
    s_chunk_t *tail;      /* and last */
    size_t queued;        /* bytes queued or being written */
    bool writing;         /* the writer holds a chunk */
    s_chunk_t *free;      /* written chunks to reuse */
    size_t nfree;         /* how many */
    bool stop;            /* write what is queued, then end */
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

/* A chunk no longer needed (the lock held): kept for reuse, or freed. */
static void
s_recycle_locked (eventlog_t *self, s_chunk_t *c)
{
    if (c->size == s_chunk_bytes && self->nfree < s_max_free) {
        c->next = self->free;
        self->free = c;
        self->nfree++;
    }
    else
        free (c);
}

static void *
s_writer (void *arg)
{
    eventlog_t *self = arg;
    pthread_mutex_lock (&self->lock);
    for (;;) {
        while (!self->head && !self->stop)
            pthread_cond_wait (&self->work, &self->lock);
        s_chunk_t *c = self->head;
        if (!c)
            break; /* stop, and nothing left */
        self->head = c->next;
        if (!self->head)
            self->tail = NULL;
        self->writing = true;
        pthread_mutex_unlock (&self->lock);
        s_write_lines (self, c->data, c->len);
        pthread_mutex_lock (&self->lock);
        self->queued -= c->len;
        self->writing = false;
        s_recycle_locked (self, c);
    }
    pthread_mutex_unlock (&self->lock);
    return NULL;
}

/* ---- hand-over ---------------------------------------------------------- */

/* Queue c for the writer (the lock held); an empty one is kept free. */
static void
s_queue_locked (eventlog_t *self, s_chunk_t *c)
{
    c->next = NULL;
    if (!c->len) {
        s_recycle_locked (self, c);
        return;
    }
    if (self->tail)
        self->tail->next = c;
    else
        self->head = c;
    self->tail = c;
    self->queued += c->len;
    pthread_cond_signal (&self->work);
}

/* Hand cur to the writer. */
static void
s_handover (eventlog_t *self)
{
    if (!self->cur)
        return;
    pthread_mutex_lock (&self->lock);
    s_queue_locked (self, self->cur);
    pthread_mutex_unlock (&self->lock);
    self->cur = NULL;
}

/* A chunk of at least size bytes, in place of cur, whose first keep
   bytes after rec_start (the event being built) move to it; cur goes to
   the writer.  -1 when the writer is too far behind or memory is out. */
static int
s_next_chunk (eventlog_t *self, size_t size, size_t keep)
{
    s_chunk_t *c = NULL;
    pthread_mutex_lock (&self->lock);
    bool room =
        self->queued + (self->cur ? self->cur->len : 0) <= s_max_buffered;
    if (room && size <= s_chunk_bytes && self->free) {
        c = self->free;
        self->free = c->next;
        self->nfree--;
    }
    pthread_mutex_unlock (&self->lock);
    if (!room)
        return -1;
    if (!c) {
        size_t n = size > s_chunk_bytes ? size : s_chunk_bytes;
        c = malloc (sizeof *c + n);
        if (!c)
            return -1;
        c->size = n;
    }
    c->len = 0;
    if (self->cur) {
        memcpy (c->data, self->cur->data + self->rec_start, keep);
        self->cur->len = self->rec_start;
        pthread_mutex_lock (&self->lock);
        s_queue_locked (self, self->cur);
        pthread_mutex_unlock (&self->lock);
    }
    c->len = keep;
    self->cur = c;
    self->rec_start = 0;
    if (self->dropped)
        self->say_dropped = true;
    return 0;
}

/* ---- building events ---------------------------------------------------- */

/* Room for more bytes of the event being built. */
static bool
s_reserve (eventlog_t *self, size_t more)
{
    if (self->rec_bad)
        return false;
    s_chunk_t *c = self->cur;
    if (c && c->len + more <= c->size)
        return true;
    size_t keep = c ? c->len - self->rec_start : 0;
    if (s_next_chunk (self, keep + more, keep) < 0) {
        self->rec_bad = true;
        return false;
    }
    return true;
}

static void
s_raw (eventlog_t *self, const char *text, size_t len)
{
    if (!s_reserve (self, len))
        return;
    memcpy (self->cur->data + self->cur->len, text, len);
    self->cur->len += len;
}

char *
eventlog_put_string (char *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
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
    return o;
}

char *
eventlog_put_int (char *o, int64_t value)
{
    /* by hand, two digits a step: this runs several times per task */
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324"
        "25262728293031323334353637383940414243444546474849"
        "50515253545556575859606162636465666768697071727374"
        "75767778798081828384858687888990919293949596979899";
    char text[24], *p = text + sizeof text;
    uint64_t u = value < 0 ? -(uint64_t) value : (uint64_t) value;
    while (u >= 100) {
        unsigned d = (unsigned) (u % 100) * 2;
        u /= 100;
        *--p = pairs[d + 1];
        *--p = pairs[d];
    }
    if (u >= 10) {
        *--p = pairs[u * 2 + 1];
        *--p = pairs[u * 2];
    }
    else
        *--p = (char) ('0' + u);
    if (value < 0)
        *--p = '-';
    size_t n = (size_t) (text + sizeof text - p);
    memcpy (o, p, n);
    return o + n;
}

static void
s_string (eventlog_t *self, const char *s)
{
    if (!s_reserve (self, EVENTLOG_STRING_MAX (strlen (s))))
        return;
    char *o = eventlog_put_string (self->cur->data + self->cur->len, s);
    self->cur->len = (size_t) (o - self->cur->data);
}

/* ,"key": -- keys are the program's own identifiers: nothing to escape. */
static void
s_key (eventlog_t *self, const char *key)
{
    size_t len = strlen (key);
    if (!s_reserve (self, len + 4))
        return;
    char *o = self->cur->data + self->cur->len;
    o[0] = ',';
    o[1] = '"';
    memcpy (o + 2, key, len);
    o[len + 2] = '"';
    o[len + 3] = ':';
    self->cur->len += len + 4;
}

static int64_t
s_wall_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
eventlog_time_ms (eventlog_t *self)
{
    return self && self->clock_held ? self->held_ms : s_wall_ms ();
}

char *
eventlog_put_time (eventlog_t *self, char *o)
{
    if (!self->clock_held)
        return eventlog_put_int (o, s_wall_ms ());
    memcpy (o, self->held_text, self->held_len);
    return o + self->held_len;
}

void
eventlog_hold_clock (eventlog_t *self)
{
    if (!self)
        return;
    self->held_ms = s_wall_ms ();
    self->held_len = (size_t) (eventlog_put_int (self->held_text, self->held_ms)
                               - self->held_text);
    self->clock_held = true;
}

void
eventlog_release_clock (eventlog_t *self)
{
    if (self)
        self->clock_held = false;
}

static void s_dropped_event (eventlog_t *self);

/* An event starts (a chunk's first dates it), after the count of those
   dropped when there is room again. */
static void
s_open_event (eventlog_t *self)
{
    if (self->say_dropped) {
        self->say_dropped = false;
        s_dropped_event (self);
    }
    if (!self->cur || !self->cur->len)
        self->filled_ms = hearth_mono_ms ();
    self->rec_start = self->cur ? self->cur->len : 0;
    self->rec_bad = false;
}

void
eventlog_begin (eventlog_t *self, const char *event)
{
    if (!self)
        return;
    s_open_event (self);
    s_raw (self, "{\"event\":", 9);
    s_string (self, event);
    eventlog_int (self, "time_ms", eventlog_time_ms (self));
}

char *
eventlog_line_open (eventlog_t *self, size_t max)
{
    s_open_event (self);
    if (!s_reserve (self, max)) {
        self->dropped++;
        self->rec_bad = false;
        return NULL;
    }
    return self->cur->data + self->cur->len;
}

void
eventlog_line_close (eventlog_t *self, char *end)
{
    self->cur->len = (size_t) (end - self->cur->data);
}

eventlog_totals_t *
eventlog_totals (eventlog_t *self)
{
    return self ? &self->totals : NULL;
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
    s_key (self, key);
    if (!s_reserve (self, 24))
        return;
    char *o = eventlog_put_int (self->cur->data + self->cur->len, value);
    self->cur->len = (size_t) (o - self->cur->data);
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
    if (self->rec_bad) { /* the whole event, or nothing */
        if (self->cur)
            self->cur->len = self->rec_start;
        self->dropped++;
        self->rec_bad = false;
    }
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
        if (self->dropped) /* said now, whatever the room */
            s_dropped_event (self);
        s_handover (self);
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
    pthread_cond_destroy (&self->work);
    pthread_mutex_destroy (&self->lock);
    free (self->cur);
    while (self->free) {
        s_chunk_t *c = self->free;
        self->free = c->next;
        free (c);
    }
    free (self->dir);
    free (self->app_id);
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
eventlog_tick (eventlog_t *self)
{
    if (self && self->cur && self->cur->len
        && hearth_mono_ms () - self->filled_ms >= s_flush_interval_ms)
        s_handover (self);
}

const char *
eventlog_path (const eventlog_t *self)
{
    return self->path;
}

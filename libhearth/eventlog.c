/*  eventlog.c - the application's event log: events stored on the engine
    thread into chunks, formatted and written by a background thread.

    The engine fills one chunk (256 KiB) at a time, in place: the rare
    events as their JSON lines, the task events as binary records
    (evrec.h) which the writer turns into lines, so that the engine's
    share of a task event is a copy of about 40 bytes.  A chunk that is
    full, or whose first event has waited the flush interval, goes to the
    writer's queue (one lock a chunk, never one an event) and the engine
    goes on in a chunk the writer has given back, so nothing is copied or
    reallocated on the way (a single growing buffer used to be: its
    reallocations cost the engine as much as the formatting when the
    writer was slow to get a core).  The writer hands each chunk to the
    files (evfile.c), which make its records into lines and write them a
    megabyte at a time, never a line.

    When the writer falls behind, past s_max_buffered bytes queued, the
    engine waits for it (the CPU it needs is the engine's own core, or
    the disk is slow): events are never dropped for being many.  Only a
    writer that has not taken a chunk for s_max_wait_ms (a stuck disk)
    makes the engine give up waiting: then events are counted as dropped
    and the count is logged as an event once there is room again.

    What is written about the application as a whole (its first lines,
    app_end with the totals) is evapp.c's; the task events, one pair per
    task and so the hot path, are stored as records by evtask.c.
*/
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcore/clock.h"
#include "libcore/fstree.h"
#include "libcore/log.h"
#include "libhearth/eventlog.h"
#include "libhearth/evfile.h"
#include "libhearth/evfmt.h"

/* The size of a chunk: what the writer gets at a time. */
static const size_t s_chunk_bytes = 256 * 1024;
/* Written chunks kept for reuse. */
static const size_t s_max_free = 4;
/* Events wait at most this long in a chunk before a tick hands it over. */
static const int64_t s_flush_interval_ms = 500;
/* Past this much unwritten, the engine waits for the writer. */
static const size_t s_max_buffered = 16 * 1024 * 1024;
/* It waits at most this long for the writer to take a chunk (a stuck
   disk); then events are dropped, and counted. */
static const int64_t s_max_wait_ms = 5000;

/* A piece of the log: whole lines. */
typedef struct s_chunk s_chunk_t;
struct s_chunk {
    s_chunk_t *next; /* in the queue or the free list */
    size_t len;      /* bytes used */
    size_t size;     /* bytes of data */
    char data[];     /* the lines */
};

struct eventlog {
    evfile_t *file; /* the files, the writer thread's (its path: any) */
    /* engine side */
    s_chunk_t *cur;           /* being filled, or NULL */
    size_t rec_start;         /* where the event being built starts in cur */
    bool rec_bad;             /* no room while building it: dropped */
    int64_t filled_ms;        /* when cur got its first event, monotonic */
    uint64_t dropped;         /* events dropped, not yet said */
    bool say_dropped;         /* there is room again: say how many */
    bool clock_held;          /* events take held_ms (one clock read) */
    int64_t held_ms;          /* the wall clock when it was held */
    eventlog_totals_t totals; /* what app_end sums up */
    /* shared, under lock */
    pthread_mutex_t lock; /* guards what follows up to the writer's side */
    pthread_cond_t work;  /* a chunk queued, or stop */
    pthread_cond_t taken; /* the writer has taken or written a chunk */
    s_chunk_t *head;      /* the writer's queue: first */
    s_chunk_t *tail;      /* and last */
    size_t queued;        /* bytes queued or being written */
    bool writing;         /* the writer holds a chunk */
    s_chunk_t *free;      /* written chunks to reuse */
    size_t nfree;         /* how many */
    bool stop;            /* write what is queued, then end */
    pthread_t thread;     /* the writer */
    bool started;         /* thread running */
};

/* ---- the writer --------------------------------------------------------- */

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
        pthread_cond_signal (&self->taken);
        pthread_mutex_unlock (&self->lock);
        evfile_write (self->file, c->data, c->len);
        pthread_mutex_lock (&self->lock);
        self->queued -= c->len;
        self->writing = false;
        s_recycle_locked (self, c);
        pthread_cond_signal (&self->taken);
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

/* s_max_wait_ms from now, as pthread_cond_timedwait takes it. */
static void
s_wait_deadline (struct timespec *until)
{
    clock_gettime (CLOCK_REALTIME, until);
    until->tv_sec += s_max_wait_ms / 1000;
    until->tv_nsec += (s_max_wait_ms % 1000) * 1000000;
    if (until->tv_nsec >= 1000000000) {
        until->tv_sec++;
        until->tv_nsec -= 1000000000;
    }
}

/* Whether there is room for cur in the writer's queue (the lock held),
   after waiting for the writer while it takes chunks: false once it has
   taken none for s_max_wait_ms. */
static bool
s_wait_room_locked (eventlog_t *self)
{
    size_t more = self->cur ? self->cur->len : 0;
    if (self->queued + more <= s_max_buffered)
        return true;
    struct timespec until;
    s_wait_deadline (&until);
    size_t before = self->queued;
    while (self->queued + more > s_max_buffered) {
        if (pthread_cond_timedwait (&self->taken, &self->lock, &until)
            == ETIMEDOUT)
            return self->queued + more <= s_max_buffered;
        if (self->queued < before) { /* progress: wait longer */
            before = self->queued;
            s_wait_deadline (&until);
        }
    }
    return true;
}

/* A chunk of at least size bytes, in place of cur, whose first keep
   bytes after rec_start (the event being built) move to it; cur goes to
   the writer, waited for when it is far behind.  -1 when it is stuck or
   memory is out. */
static int
s_next_chunk (eventlog_t *self, size_t size, size_t keep)
{
    s_chunk_t *c = NULL;
    pthread_mutex_lock (&self->lock);
    bool room = s_wait_room_locked (self);
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

static void
s_string (eventlog_t *self, const char *s)
{
    size_t len = strlen (s);
    if (!s_reserve (self, EVFMT_STRING_MAX (len)))
        return;
    char *o = evfmt_string (self->cur->data + self->cur->len, s, len);
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

void
eventlog_hold_clock (eventlog_t *self)
{
    if (!self)
        return;
    self->held_ms = s_wall_ms ();
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
eventlog_record_open (eventlog_t *self, size_t len)
{
    s_open_event (self);
    if (!s_reserve (self, len)) {
        self->dropped++;
        self->rec_bad = false;
        return NULL;
    }
    return self->cur->data + self->cur->len;
}

void
eventlog_record_close (eventlog_t *self, char *end)
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
    if (!s_reserve (self, EVFMT_INT_MAX))
        return;
    char *o = evfmt_int (self->cur->data + self->cur->len, value);
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
    log_warn ("event log %s: %llu events dropped", evfile_path (self->file),
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
    pthread_mutex_init (&self->lock, NULL);
    pthread_cond_init (&self->work, NULL);
    pthread_cond_init (&self->taken, NULL);
    if (hearth_mkdir_p (dir, 0755, err) < 0)
        goto error;
    self->file = evfile_new (dir, app_id, roll_bytes, err);
    if (!self->file)
        goto error;
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
    evfile_destroy (&self->file); /* synced */
    pthread_cond_destroy (&self->work);
    pthread_cond_destroy (&self->taken);
    pthread_mutex_destroy (&self->lock);
    free (self->cur);
    while (self->free) {
        s_chunk_t *c = self->free;
        self->free = c->next;
        free (c);
    }
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
    return evfile_path (self->file);
}

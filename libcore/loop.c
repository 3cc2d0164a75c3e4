/*  loop.c - the reactor of the task path; see loop.h.

    A turn: call the readers that may hold a message their descriptor
    did not tell of (the unsettled: new ones, those sent on, those whose
    handler stopped early), wait in poll(2) (not at all while one is
    still unsettled), then call the handlers of what fired and of the
    timers due.  Entries ended during a turn are only marked, and
    dropped at its end, so that indexes into the arrays stay valid while
    handlers run.
*/
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/loop.h"
#include "libcore/loop_int.h"

/* Entries an array has room for at first. */
static const size_t s_initial_room = 8;
/* Timer ids count up to this, then from 1 again (tests lower it). */
#ifndef HEARTH_LOOP_MAX_TIMER_ID
#define HEARTH_LOOP_MAX_TIMER_ID INT_MAX
#endif
static const int s_max_timer_id = HEARTH_LOOP_MAX_TIMER_ID;

typedef struct {
    zsock_t *sock;                  /* a reader's socket, or NULL */
    int fd;                         /* what poll(2) watches: ZMQ_FD for a
                                       socket */
    hearth_loop_reader_fn *on_sock; /* a reader's handler */
    hearth_loop_fd_fn *on_fd;       /* a descriptor's handler */
    void *arg;                      /* given to the handler */
    bool unsettled;                 /* a reader to call before waiting */
    bool gone;                      /* ended: dropped at the turn's end */
} s_item_t;

typedef struct {
    int id;                   /* > 0 */
    int64_t when_ms;          /* next call, hearth_mono_ms () */
    size_t delay_ms;          /* between calls */
    size_t times;             /* calls left, 0: for ever */
    hearth_loop_timer_fn *fn; /* its handler */
    void *arg;                /* given to it */
    bool gone;                /* ended: dropped at the turn's end */
} s_timer_t;

struct hearth_loop {
    s_item_t *items;          /* readers and descriptors, in poll order */
    size_t nitems;            /* entries used (gone ones included) */
    size_t items_room;        /* entries allocated */
    struct pollfd *pollset;   /* built from items each turn */
    size_t pollset_room;      /* entries allocated */
    s_timer_t *timers;        /* unordered: few, scanned each turn */
    size_t ntimers;           /* entries used (gone ones included) */
    size_t timers_room;       /* entries allocated */
    int last_timer_id;        /* ids count up from 1 */
    bool wrapped;             /* they went past s_max_timer_id once */
    bool dirty;               /* an entry is gone: compact at turn end */
    hearth_loop_kids_t *kids; /* the children's watch, or NULL */
    void (*kids_free) (hearth_loop_kids_t *kids); /* frees it */
};

hearth_loop_t *
hearth_loop_new (void)
{
    return calloc (1, sizeof (hearth_loop_t));
}

void
hearth_loop_destroy (hearth_loop_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_loop_t *self = *self_p;
    if (self->kids)
        self->kids_free (self->kids);
    free (self->items);
    free (self->pollset);
    free (self->timers);
    free (self);
    *self_p = NULL;
    errno = saved;
}

hearth_loop_kids_t *
hearth_loop_kids (const hearth_loop_t *self)
{
    return self->kids;
}

void
hearth_loop_kids_set (hearth_loop_t *self, hearth_loop_kids_t *kids,
                      void (*free_fn) (hearth_loop_kids_t *kids))
{
    self->kids = kids;
    self->kids_free = free_fn;
}

/* Room for one more of size bytes in *array (*room entries).  0 or -1. */
static int
s_grow (void **array, size_t used, size_t *room, size_t size)
{
    if (used < *room)
        return 0;
    size_t want = *room ? *room * 2 : s_initial_room;
    void *bigger = realloc (*array, want * size);
    if (!bigger)
        return -1;
    *array = bigger;
    *room = want;
    return 0;
}

static int
s_add_item (hearth_loop_t *self, const s_item_t *item)
{
    if (s_grow ((void **) &self->items, self->nitems, &self->items_room,
                sizeof *self->items)
        < 0)
        return -1;
    self->items[self->nitems++] = *item;
    return 0;
}

int
hearth_loop_reader (hearth_loop_t *self, zsock_t *sock,
                    hearth_loop_reader_fn *fn, void *arg)
{
    /* it may hold messages already */
    s_item_t item = {.sock = sock,
                     .fd = zsock_fd (sock),
                     .on_sock = fn,
                     .arg = arg,
                     .unsettled = true};
    return s_add_item (self, &item);
}

int
hearth_loop_fd (hearth_loop_t *self, int fd, hearth_loop_fd_fn *fn, void *arg)
{
    s_item_t item = {.fd = fd, .on_fd = fn, .arg = arg};
    return s_add_item (self, &item);
}

void
hearth_loop_reader_end (hearth_loop_t *self, zsock_t *sock)
{
    for (size_t i = 0; i < self->nitems; i++)
        if (!self->items[i].gone && self->items[i].sock == sock) {
            self->items[i].gone = true;
            self->dirty = true;
        }
}

void
hearth_loop_sent (hearth_loop_t *self, zsock_t *sock)
{
    for (size_t i = 0; i < self->nitems; i++)
        if (self->items[i].sock == sock)
            self->items[i].unsettled = true;
}

void
hearth_loop_fd_end (hearth_loop_t *self, int fd)
{
    for (size_t i = 0; i < self->nitems; i++)
        if (!self->items[i].gone && !self->items[i].sock
            && self->items[i].fd == fd) {
            self->items[i].gone = true;
            self->dirty = true;
        }
}

/* Whether a live timer has that id. */
static bool
s_timer_id_used (const hearth_loop_t *self, int id)
{
    for (size_t i = 0; i < self->ntimers; i++)
        if (!self->timers[i].gone && self->timers[i].id == id)
            return true;
    return false;
}

/* The next id, or -1 when every one is in use: counting up from 1; past
   s_max_timer_id from 1 again, skipping those still in use (a timer made
   at the start, the executor's tick, lives as long as the process). */
static int
s_next_timer_id (hearth_loop_t *self)
{
    for (int tries = 0; tries < s_max_timer_id; tries++) {
        int id =
            self->last_timer_id >= s_max_timer_id ? 1 : self->last_timer_id + 1;
        self->last_timer_id = id;
        if (id == s_max_timer_id)
            self->wrapped = true;
        if (!self->wrapped || !s_timer_id_used (self, id))
            return id;
    }
    return -1;
}

int
hearth_loop_timer (hearth_loop_t *self, size_t delay_ms, size_t times,
                   hearth_loop_timer_fn *fn, void *arg)
{
    if (s_grow ((void **) &self->timers, self->ntimers, &self->timers_room,
                sizeof *self->timers)
        < 0)
        return -1;
    int id = s_next_timer_id (self);
    if (id < 0)
        return -1;
    s_timer_t *t = &self->timers[self->ntimers++];
    *t = (s_timer_t){.id = id,
                     .when_ms = hearth_mono_ms () + (int64_t) delay_ms,
                     .delay_ms = delay_ms,
                     .times = times,
                     .fn = fn,
                     .arg = arg};
    return t->id;
}

void
hearth_loop_timer_end (hearth_loop_t *self, int timer_id)
{
    for (size_t i = 0; i < self->ntimers; i++)
        if (!self->timers[i].gone && self->timers[i].id == timer_id) {
            self->timers[i].gone = true;
            self->dirty = true;
            return;
        }
}

/* ---- a turn ------------------------------------------------------------ */

/* Drop the entries ended during the turn. */
static void
s_compact (hearth_loop_t *self)
{
    if (!self->dirty)
        return;
    size_t n = 0;
    for (size_t i = 0; i < self->nitems; i++)
        if (!self->items[i].gone)
            self->items[n++] = self->items[i];
    self->nitems = n;
    n = 0;
    for (size_t i = 0; i < self->ntimers; i++)
        if (!self->timers[i].gone)
            self->timers[n++] = self->timers[i];
    self->ntimers = n;
    self->dirty = false;
}

/* Call a reader's handler.  Returns -1 to end the loop, else 0. */
static int
s_call_reader (hearth_loop_t *self, size_t i)
{
    s_item_t *it = &self->items[i];
    it->unsettled = false;
    int rc = it->on_sock (self, it->sock, it->arg);
    if (rc < 0)
        return -1;
    if (rc > 0) /* stopped early: messages may wait (it may have moved) */
        self->items[i].unsettled = true;
    return 0;
}

/* The unsettled readers, once each.  Returns -1 to end the loop, else
   whether one is still unsettled (its handler stopped early, or a later
   one sent on it). */
static int
s_settle (hearth_loop_t *self)
{
    for (size_t i = 0; i < self->nitems; i++)
        if (!self->items[i].gone && self->items[i].unsettled
            && s_call_reader (self, i) < 0)
            return -1;
    for (size_t i = 0; i < self->nitems; i++)
        if (!self->items[i].gone && self->items[i].unsettled)
            return 1;
    return 0;
}

/* Milliseconds until the next timer is due (0 if one is), -1 if none. */
static int
s_timeout_ms (const hearth_loop_t *self, int64_t now)
{
    int64_t soonest = -1;
    for (size_t i = 0; i < self->ntimers; i++) {
        const s_timer_t *t = &self->timers[i];
        if (t->gone)
            continue;
        int64_t wait = t->when_ms > now ? t->when_ms - now : 0;
        if (soonest < 0 || wait < soonest)
            soonest = wait;
    }
    return soonest > INT32_MAX ? INT32_MAX : (int) soonest;
}

/* Wait up to timeout_ms for the items present now.  Returns how many
   items were polled (the pollset's entries), or -1 with errno. */
static int
s_wait (hearth_loop_t *self, int timeout_ms, size_t *polled)
{
    size_t n = self->nitems;
    if (n > self->pollset_room) {
        struct pollfd *bigger =
            realloc (self->pollset, n * sizeof *self->pollset);
        if (!bigger)
            return -1;
        self->pollset = bigger;
        self->pollset_room = n;
    }
    for (size_t i = 0; i < n; i++)
        self->pollset[i] =
            (struct pollfd){.fd = self->items[i].fd, .events = POLLIN};
    *polled = n;
    int rc = poll (self->pollset, (nfds_t) n, timeout_ms);
    if (rc < 0 && errno == EINTR)
        rc = 0;
    return rc;
}

/* One item whose descriptor fired.  Returns -1 to end the loop, else 0.
   A socket's handler is called without asking ZMQ_EVENTS first: its
   last receive, the one that finds nothing, takes the mailbox's
   commands in as ZMQ_EVENTS would, which quiets the descriptor. */
static int
s_fired (hearth_loop_t *self, size_t i, short revents)
{
    s_item_t *it = &self->items[i];
    if (it->gone)
        return 0;
    if (revents & POLLNVAL) {
        log_error ("loop: descriptor %d was closed while watched: dropped",
                   it->fd);
        it->gone = true;
        self->dirty = true;
        return 0;
    }
    if (it->sock)
        return s_call_reader (self, i);
    return it->on_fd (self, it->fd, it->arg) < 0 ? -1 : 0;
}

/* The timers due.  Returns -1 to end the loop, else 0. */
static int
s_timers (hearth_loop_t *self)
{
    int64_t now = hearth_mono_ms ();
    size_t n = self->ntimers; /* those added now wait for the next turn */
    for (size_t i = 0; i < n; i++) {
        s_timer_t *t = &self->timers[i];
        if (t->gone || t->when_ms > now)
            continue;
        if (t->times && --t->times == 0) {
            t->gone = true;
            self->dirty = true;
        }
        else
            t->when_ms = now + (int64_t) t->delay_ms;
        int id = t->id;
        hearth_loop_timer_fn *fn = t->fn;
        void *arg = t->arg;
        if (fn (self, id, arg) < 0) /* t may have moved: a timer added */
            return -1;
    }
    return 0;
}

int
hearth_loop_start (hearth_loop_t *self)
{
    for (;;) {
        int unsettled = s_settle (self);
        if (unsettled < 0)
            return -1;
        s_compact (self); /* what settling ended is not polled */
        int timeout = unsettled ? 0 : s_timeout_ms (self, hearth_mono_ms ());
        size_t polled = 0;
        int ready = s_wait (self, timeout, &polled);
        if (ready < 0) {
            log_error ("loop: poll: %s", strerror (errno));
            return -1;
        }
        for (size_t i = 0; ready > 0 && i < polled; i++) {
            if (!self->pollset[i].revents)
                continue;
            ready--;
            if (s_fired (self, i, self->pollset[i].revents) < 0)
                return -1;
        }
        if (s_timers (self) < 0)
            return -1;
        s_compact (self);
    }
}

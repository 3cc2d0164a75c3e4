/*  liveness.c - peers in order of last sign of life; see liveness.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "libcore/liveness.h"

struct hearth_peer {
    hearth_peer_t *prev; /* older peer, or NULL at the head */
    hearth_peer_t *next; /* younger peer, or NULL at the tail */
    void *item;          /* what the caller tracks (borrowed) */
    int64_t last_ms;     /* last sign of life */
};

struct hearth_liveness {
    hearth_peer_t *head; /* the peer silent the longest */
    hearth_peer_t *tail; /* the peer heard from last */
    size_t size;         /* peers in the list */
    int64_t timeout_ms;  /* silence after which a peer expires */
    int64_t latest_ms;   /* latest time seen, for clamping */
};

hearth_liveness_t *
hearth_liveness_new (int64_t timeout_ms)
{
    hearth_liveness_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->timeout_ms = timeout_ms;
    self->latest_ms = INT64_MIN;
    return self;
}

void
hearth_liveness_destroy (hearth_liveness_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_liveness_t *self = *self_p;
    hearth_peer_t *p = self->head;
    while (p) {
        hearth_peer_t *next = p->next;
        free (p);
        p = next;
    }
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
hearth_liveness_set_timeout (hearth_liveness_t *self, int64_t timeout_ms)
{
    self->timeout_ms = timeout_ms;
}

static int64_t
s_clamp (hearth_liveness_t *self, int64_t now_ms)
{
    if (now_ms < self->latest_ms)
        return self->latest_ms;
    self->latest_ms = now_ms;
    return now_ms;
}

static void
s_unlink (hearth_liveness_t *self, hearth_peer_t *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        self->head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        self->tail = p->prev;
    p->prev = p->next = NULL;
    self->size--;
}

static void
s_append (hearth_liveness_t *self, hearth_peer_t *p)
{
    p->prev = self->tail;
    p->next = NULL;
    if (self->tail)
        self->tail->next = p;
    else
        self->head = p;
    self->tail = p;
    self->size++;
}

hearth_peer_t *
hearth_liveness_add (hearth_liveness_t *self, void *item, int64_t now_ms)
{
    hearth_peer_t *p = calloc (1, sizeof *p);
    if (!p)
        return NULL;
    p->item = item;
    p->last_ms = s_clamp (self, now_ms);
    s_append (self, p);
    return p;
}

void
hearth_liveness_touch (hearth_liveness_t *self, hearth_peer_t *peer,
                       int64_t now_ms)
{
    peer->last_ms = s_clamp (self, now_ms);
    if (peer == self->tail)
        return;
    s_unlink (self, peer);
    s_append (self, peer);
}

void
hearth_liveness_remove (hearth_liveness_t *self, hearth_peer_t **peer_p)
{
    if (!peer_p || !*peer_p)
        return;
    s_unlink (self, *peer_p);
    free (*peer_p);
    *peer_p = NULL;
}

void *
hearth_liveness_expire (hearth_liveness_t *self, int64_t now_ms)
{
    hearth_peer_t *p = self->head;
    if (!p || now_ms - p->last_ms < self->timeout_ms)
        return NULL;
    void *item = p->item;
    s_unlink (self, p);
    free (p);
    return item;
}

void
hearth_liveness_pause (hearth_liveness_t *self, int64_t gap_ms)
{
    if (gap_ms <= 0 || self->latest_ms == INT64_MIN)
        return;
    for (hearth_peer_t *p = self->head; p; p = p->next)
        p->last_ms += gap_ms;
    self->latest_ms += gap_ms;
}

int64_t
hearth_liveness_gap (int64_t last_tick_ms, int64_t now_ms, int64_t tick_ms)
{
    if (last_tick_ms == INT64_MIN || now_ms <= last_tick_ms)
        return 0;
    int64_t elapsed = now_ms - last_tick_ms;
    return elapsed > 2 * tick_ms ? elapsed - tick_ms : 0;
}

int64_t
hearth_liveness_tick_ms (int64_t interval_ms)
{
    int64_t tick = interval_ms / 4;
    return tick < HEARTH_TICK_MIN_MS   ? HEARTH_TICK_MIN_MS
           : tick > HEARTH_TICK_MAX_MS ? HEARTH_TICK_MAX_MS
                                       : tick;
}

int64_t
hearth_liveness_next_deadline (const hearth_liveness_t *self)
{
    if (!self->head)
        return INT64_MAX;
    return self->head->last_ms + self->timeout_ms;
}

int64_t
hearth_liveness_last_seen (const hearth_peer_t *peer)
{
    return peer->last_ms;
}

void *
hearth_liveness_item (const hearth_peer_t *peer)
{
    return peer->item;
}

size_t
hearth_liveness_size (const hearth_liveness_t *self)
{
    return self->size;
}

bool
hearth_liveness_check (const hearth_liveness_t *self)
{
    size_t n = 0;
    const hearth_peer_t *prev = NULL;
    for (const hearth_peer_t *p = self->head; p; prev = p, p = p->next) {
        if (p->prev != prev || (prev && prev->last_ms > p->last_ms))
            return false;
        if (++n > self->size)
            return false;
    }
    return n == self->size && self->tail == prev;
}

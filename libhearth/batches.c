/*  batches.c - the LAUNCH_TASKS an executor has not said it handled; see
    batches.h.

    Two rings indexed by positions that only grow (a position's slot is
    its value modulo the ring's size, a power of two): the batches in the
    order they were numbered, which is the order the executor handles
    them in (one DEALER-ROUTER connection keeps it), and their attempts
    one after the other, a batch's from its `first` on.  A batch leaves
    the front once the executor has said it handled it, unless it was
    never sent; one taken out of the middle (refused, unsent) stays as a
    mark until then: its number still tells take_next where the executor
    is.  The rings grow by doubling and never shrink: the steady state of
    an offer a batch allocates nothing.
*/
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "libhearth/batches.h"

/* Attempts remembered at most (a power of two): an executor that never
   says it handled one (a build before "launched") costs no more than
   this many attempts and batches (24 and 32 bytes each); past it the
   oldest go.  One that says holds at most its slots (taskset.h): cores x
   (1 + task-prefetch), far below. */
static const size_t s_max_attempts = (size_t) 1 << 18;
/* The rings' first sizes. */
static const size_t s_min_batches = 16;
static const size_t s_min_attempts = 64;

/* What became of a batch remembered. */
typedef enum {
    S_SENT,   /* handed to the socket */
    S_UNSENT, /* it could not be: its attempts wait for take_unsent */
    S_TAKEN,  /* its attempts are taken out; its number stays */
} s_state_t;

/* One batch. */
typedef struct {
    uint64_t batch; /* its number */
    uint64_t first; /* the position of its first attempt */
    uint32_t n;     /* its attempts */
    uint8_t state;  /* an s_state_t */
    bool lost;      /* S_UNSENT for the way's fault */
    char *why;      /* S_UNSENT: why (malloc'ed), or NULL */
} s_rec_t;

struct batches {
    s_rec_t *recs;         /* the batch ring, recs_size slots */
    size_t recs_size;      /* a power of two, or 0 */
    uint64_t rhead, rtail; /* the oldest batch's position, the next one's */
    hearth_assign_t *atts; /* the attempt ring, atts_size slots */
    size_t atts_size;      /* a power of two, or 0 */
    uint64_t ahead, atail; /* the oldest attempt's position, the next one's */
    uint64_t last;         /* the last number given out */
    uint64_t acked;        /* the last batch the executor said it handled */
    size_t unsent;         /* batches S_UNSENT */
};

batches_t *
batches_new (void)
{
    return calloc (1, sizeof (batches_t));
}

static s_rec_t *
s_rec (const batches_t *self, uint64_t pos)
{
    return &self->recs[pos & (self->recs_size - 1)];
}

/* The n slots of the attempt ring from pos: the index of the first in
 *at; returns how many lie before the ring wraps (the rest from 0). */
static size_t
s_run (const batches_t *self, uint64_t pos, size_t n, size_t *at)
{
    *at = (size_t) (pos & (self->atts_size - 1));
    return n < self->atts_size - *at ? n : self->atts_size - *at;
}

/* Copy n attempts into the ring at pos. */
static void
s_put (batches_t *self, uint64_t pos, const hearth_assign_t *as, size_t n)
{
    size_t at, run = s_run (self, pos, n, &at);
    memcpy (self->atts + at, as, run * sizeof *as);
    memcpy (self->atts, as + run, (n - run) * sizeof *as);
}

/* Copy n attempts out of the ring from pos. */
static void
s_get (const batches_t *self, uint64_t pos, hearth_assign_t *as, size_t n)
{
    size_t at, run = s_run (self, pos, n, &at);
    memcpy (as, self->atts + at, run * sizeof *as);
    memcpy (as + run, self->atts, (n - run) * sizeof *as);
}

void
batches_destroy (batches_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    batches_t *self = *self_p;
    for (uint64_t p = self->rhead; p != self->rtail; p++)
        free (s_rec (self, p)->why);
    free (self->recs);
    free (self->atts);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* Drop the oldest batch. */
static void
s_pop (batches_t *self)
{
    s_rec_t *r = s_rec (self, self->rhead++);
    if (r->state == S_UNSENT)
        self->unsent--;
    free (r->why);
    r->why = NULL;
    self->ahead = self->rhead == self->rtail ? self->atail
                                             : s_rec (self, self->rhead)->first;
}

/* Drop the batches at the front that the executor has handled (or whose
   attempts are taken and that it has passed). */
static void
s_settle (batches_t *self)
{
    while (self->rhead != self->rtail) {
        const s_rec_t *r = s_rec (self, self->rhead);
        if (r->state == S_UNSENT || r->batch > self->acked)
            return;
        s_pop (self);
    }
}

/* Make a ring of *size slots of elem bytes, holding positions head to
   tail, want slots at least (a power of two).  0, or -1 on no memory. */
static int
s_grow (void **ring, size_t *size, size_t elem, uint64_t head, uint64_t tail,
        size_t want)
{
    if (want <= *size)
        return 0;
    size_t size2 = *size ? *size : 1;
    while (size2 < want)
        size2 *= 2;
    char *ring2 = malloc (size2 * elem);
    if (!ring2)
        return -1;
    for (uint64_t p = head; p != tail; p++)
        memcpy (ring2 + (p & (size2 - 1)) * elem,
                (char *) *ring + (p & (*size - 1)) * elem, elem);
    free (*ring);
    *ring = ring2;
    *size = size2;
    return 0;
}

size_t
batches_reserve (batches_t *self, size_t n)
{
    if (n > s_max_attempts)
        n = s_max_attempts;
    /* past the bound, the oldest are forgotten, unless never sent */
    while (self->atail - self->ahead + n > s_max_attempts
           && self->rhead != self->rtail
           && s_rec (self, self->rhead)->state != S_UNSENT)
        s_pop (self);
    size_t used = (size_t) (self->atail - self->ahead);
    size_t room = used + n <= s_max_attempts ? n : s_max_attempts - used;
    size_t want = used + room < s_min_attempts ? s_min_attempts : used + room;
    if (s_grow ((void **) &self->atts, &self->atts_size,
                sizeof (hearth_assign_t), self->ahead, self->atail, want)
        < 0)
        room = self->atts_size - used;
    size_t batches = (size_t) (self->rtail - self->rhead);
    want = batches + room < s_min_batches ? s_min_batches : batches + room;
    if (s_grow ((void **) &self->recs, &self->recs_size, sizeof (s_rec_t),
                self->rhead, self->rtail, want)
            < 0
        && self->recs_size - batches < room)
        room = self->recs_size - batches;
    return room;
}

uint64_t
batches_next (batches_t *self)
{
    return ++self->last;
}

int
batches_add (batches_t *self, uint64_t batch, const hearth_assign_t *as,
             size_t n)
{
    if (n == 0 || self->rtail - self->rhead >= self->recs_size
        || self->atail - self->ahead + n > self->atts_size)
        return -1;
    *s_rec (self, self->rtail++) =
        (s_rec_t){.batch = batch, .first = self->atail, .n = (uint32_t) n};
    s_put (self, self->atail, as, n);
    self->atail += n;
    return 0;
}

void
batches_ack (batches_t *self, uint64_t launched)
{
    if (launched <= self->acked)
        return;
    self->acked = launched;
    s_settle (self);
}

/* The position of batch among those remembered, or rtail. */
static uint64_t
s_find (const batches_t *self, uint64_t batch)
{
    for (uint64_t p = self->rtail; p != self->rhead; p--)
        if (s_rec (self, p - 1)->batch == batch)
            return p - 1;
    return self->rtail;
}

void
batches_unsent (batches_t *self, uint64_t batch, bool lost, const char *why)
{
    uint64_t p = s_find (self, batch);
    s_rec_t *r = p != self->rtail ? s_rec (self, p) : NULL;
    if (!r || r->state != S_SENT)
        return;
    r->state = S_UNSENT;
    r->lost = lost;
    r->why = strdup (why ? why : "");
    self->unsent++;
}

size_t
batches_unsent_count (const batches_t *self)
{
    return self->unsent;
}

void
batches_taken_free (batches_taken_t *taken)
{
    free (taken->as);
    free (taken->why);
    taken->as = NULL;
    taken->why = NULL;
}

/* Take out the batch at p into out.  0, or -1 on no memory. */
static int
s_take (batches_t *self, uint64_t p, batches_taken_t *out)
{
    s_rec_t *r = s_rec (self, p);
    *out = (batches_taken_t){.batch = r->batch,
                             .as = malloc (r->n * sizeof *out->as),
                             .n = r->n,
                             .lost = r->lost};
    if (!out->as)
        return errno = ENOMEM, -1;
    s_get (self, r->first, out->as, r->n);
    if (r->state == S_UNSENT)
        self->unsent--;
    out->why = r->why;
    r->why = NULL;
    r->state = S_TAKEN;
    s_settle (self);
    return 0;
}

int
batches_take (batches_t *self, uint64_t batch, batches_taken_t *out)
{
    uint64_t p = s_find (self, batch);
    if (p == self->rtail || s_rec (self, p)->state != S_SENT)
        return errno = ENOENT, -1;
    return s_take (self, p, out);
}

int
batches_take_next (batches_t *self, uint64_t launched, batches_taken_t *out)
{
    uint64_t expected = launched + 1;
    for (uint64_t p = self->rhead; p != self->rtail; p++) {
        const s_rec_t *r = s_rec (self, p);
        if (r->batch <= launched)
            continue;
        if (r->batch != expected)
            return errno = ENOTUNIQ, -1; /* forgotten: which one was it? */
        if (r->state == S_SENT)
            return s_take (self, p, out);
        expected++; /* never sent, or refused before: not read after */
    }
    return errno = ENOENT, -1;
}

int
batches_take_pending (batches_t *self, batches_taken_t *out)
{
    uint64_t found = self->rtail;
    for (uint64_t p = self->rhead; p != self->rtail; p++) {
        const s_rec_t *r = s_rec (self, p);
        if (r->state != S_SENT || r->batch <= self->acked)
            continue;
        if (found != self->rtail)
            return errno = ENOTUNIQ, -1; /* several: which one? */
        found = p;
    }
    return found != self->rtail ? s_take (self, found, out)
                                : (errno = ENOENT, -1);
}

int
batches_take_unsent (batches_t *self, batches_taken_t *out)
{
    for (uint64_t p = self->rhead; self->unsent && p != self->rtail; p++)
        if (s_rec (self, p)->state == S_UNSENT)
            return s_take (self, p, out);
    return errno = ENOENT, -1;
}

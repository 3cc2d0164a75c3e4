/*  batches.c - the LAUNCH_TASKS an executor has not said it handled; see
    batches.h.  A FIFO of records in the order they were sent, which is
    the order the executor handles them in (one DEALER-ROUTER connection
    keeps it): an acknowledgement pops from the front.  It holds the
    batches of one round trip, a few at a time.
*/
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/batches.h"

/* Batches remembered at most: an executor that never says it handled one
   (a build before "launched") costs no more; past it the oldest go. */
static const size_t s_max_batches = 4096;

/* One batch sent. */
typedef struct s_batch {
    struct s_batch *next; /* the one sent after it, or NULL */
    uint64_t batch;       /* its number */
    bool refused;         /* it could not be sent (why says why) */
    char why[256];        /* then why */
    size_t n;             /* attempts in as */
    hearth_assign_t as[]; /* its attempts */
} s_batch_t;

struct batches {
    s_batch_t *head; /* the oldest remembered, or NULL */
    s_batch_t *tail; /* the newest, or NULL */
    size_t count;    /* batches remembered */
    uint64_t last;   /* the last number given out */
};

batches_t *
batches_new (void)
{
    return calloc (1, sizeof (batches_t));
}

void
batches_destroy (batches_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    for (s_batch_t *b = (*self_p)->head, *next; b; b = next) {
        next = b->next;
        free (b);
    }
    free (*self_p);
    *self_p = NULL;
    errno = saved;
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
    s_batch_t *b = malloc (sizeof *b + n * sizeof *as);
    if (!b)
        return -1;
    *b = (s_batch_t){.batch = batch, .n = n};
    memcpy (b->as, as, n * sizeof *as);
    if (self->tail)
        self->tail->next = b;
    else
        self->head = b;
    self->tail = b;
    if (++self->count > s_max_batches)
        batches_ack (self, self->head->batch);
    return 0;
}

/* Unlink b, whose predecessor is prev (NULL: b is the head). */
static void
s_unlink (batches_t *self, s_batch_t *prev, s_batch_t *b)
{
    if (prev)
        prev->next = b->next;
    else
        self->head = b->next;
    if (self->tail == b)
        self->tail = prev;
    self->count--;
}

void
batches_ack (batches_t *self, uint64_t launched)
{
    while (self->head && self->head->batch <= launched) {
        s_batch_t *b = self->head;
        s_unlink (self, NULL, b);
        free (b);
    }
}

void
batches_refuse (batches_t *self, uint64_t batch, const char *why)
{
    for (s_batch_t *b = self->head; b; b = b->next)
        if (b->batch == batch) {
            b->refused = true;
            snprintf (b->why, sizeof b->why, "%s", why);
            return;
        }
}

bool
batches_any_refused (const batches_t *self)
{
    for (const s_batch_t *b = self->head; b; b = b->next)
        if (b->refused)
            return true;
    return false;
}

/* Whether s_take takes b: the first one refused (refused), batch, or
   every one (batch 0). */
static bool
s_matches (const s_batch_t *b, uint64_t batch, bool refused)
{
    return refused ? b->refused : !batch || b->batch == batch;
}

/* Move the records that match into out, oldest first.  Returns 0, or -1
   when none matches. */
static int
s_take (batches_t *self, uint64_t batch, bool refused, batches_taken_t *out)
{
    size_t n = 0;
    bool any = false, one = refused || batch;
    for (s_batch_t *b = self->head; b && !(one && any); b = b->next)
        if (s_matches (b, batch, refused)) {
            n += b->n;
            any = true;
        }
    if (!any)
        return -1;
    *out = (batches_taken_t){.as = malloc ((n ? n : 1) * sizeof *out->as)};
    if (!out->as)
        return -1;
    for (s_batch_t *b = self->head, *prev = NULL, *next; b; b = next) {
        next = b->next;
        if (!s_matches (b, batch, refused)) {
            prev = b;
            continue;
        }
        memcpy (out->as + out->n, b->as, b->n * sizeof *b->as);
        out->n += b->n;
        snprintf (out->why, sizeof out->why, "%s", b->why);
        s_unlink (self, prev, b);
        free (b);
        if (one)
            break;
    }
    return 0;
}

int
batches_take (batches_t *self, uint64_t batch, batches_taken_t *out)
{
    return s_take (self, batch, false, out);
}

int
batches_take_refused (batches_t *self, batches_taken_t *out)
{
    return s_take (self, 0, true, out);
}

/*  batches.h - the LAUNCH_TASKS sent to one executor that it has not said
    it handled yet: their numbers and the attempts each carried.

    A batch the executor refuses (ERROR naming it), or one that could not
    be sent at all, must fail its attempts: otherwise they would stay
    launched for ever, and their job with them.  The executor tells the
    last batch it handled in every STATUS_UPDATE and HEARTBEAT
    ("launched", protocol.md "Batches"): the batches up to it are
    forgotten, so that the set holds at most the attempts in flight on
    the executor (and at most 4096 batches, the oldest forgotten first,
    from an executor that never says: one of an older build).  Not
    thread-safe; owns its records.
*/
#ifndef HEARTH_DRIVER_BATCHES_H
#define HEARTH_DRIVER_BATCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/taskset.h"

typedef struct batches batches_t;

/* An empty set; NULL on no memory. */
batches_t *batches_new (void);
/* Free it.  Accepts NULL; nulls the pointer; keeps errno. */
void batches_destroy (batches_t **self_p);

/* The number of the next batch: 1, then 2, 3... (it counts on whether or
   not a batch is remembered). */
uint64_t batches_next (batches_t *self);

/* Remember batch (from batches_next, in order) and its n attempts
   (copied).  Returns 0, or -1 on no memory: it is not remembered. */
int batches_add (batches_t *self, uint64_t batch, const hearth_assign_t *as,
                 size_t n);

/* The executor has handled every batch up to launched: forget them. */
void batches_ack (batches_t *self, uint64_t launched);

/* Mark batch refused, for why (copied, cut at 255 bytes): it could not
   be sent.  Nothing if it is not remembered. */
void batches_refuse (batches_t *self, uint64_t batch, const char *why);

/* Whether a batch is marked refused. */
bool batches_any_refused (const batches_t *self);

/* One batch taken out of the set: its attempts (owned) and why. */
typedef struct {
    hearth_assign_t *as; /* its attempts, malloc'ed: free() them */
    size_t n;            /* how many */
    char why[256];       /* batches_refuse's why, or "" */
} batches_taken_t;

/* Take batch out (0: every batch remembered, their attempts one after
   the other).  Returns 0, or -1 when none is remembered (or on no
   memory: then they stay). */
int batches_take (batches_t *self, uint64_t batch, batches_taken_t *out);

/* Take the oldest batch marked refused.  Returns 0, or -1 when there is
   none. */
int batches_take_refused (batches_t *self, batches_taken_t *out);

#endif

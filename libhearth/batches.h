/*  batches.h - the LAUNCH_TASKS sent to one executor that it has not said
    it handled yet: their numbers and the attempts each carried.

    A batch the executor refuses (ERROR naming it), or one that could not
    be sent at all, must end its attempts: otherwise they would stay
    launched for ever, and their job with them.  The executor tells the
    last batch it handled in its STATUS_UPDATE and HEARTBEAT ("launched",
    protocol.md "Batches"): the batches up to it are forgotten, so that
    the set holds at most the attempts in flight on the executor.

    Two rings, reused for the executor's life: the batches in the order
    they were numbered, and their attempts one after the other.  They grow
    to the largest number of attempts ever in flight, then allocate
    nothing; a batch's reason is stored only when it was not sent.  At
    most 262,144 attempts are held: past them (an executor that never
    says "launched", one of an older build) the oldest batches are
    forgotten first.  Not thread-safe.
*/
#ifndef HEARTH_LIBHEARTH_BATCHES_H
#define HEARTH_LIBHEARTH_BATCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/taskset.h"

typedef struct batches batches_t;

/* An empty set; NULL on no memory. */
batches_t *batches_new (void);
/* Free it.  Accepts NULL; nulls the pointer; keeps errno. */
void batches_destroy (batches_t **self_p);

/* Room for n more attempts (in as many batches at most): the rings grow
   (up to the bound, past which the oldest batches sent are forgotten).
   Returns how many attempts batches_add may take now, up to n: fewer on
   no memory, or while unsent batches fill the bound (batches_take_unsent
   empties them). */
size_t batches_reserve (batches_t *self, size_t n);

/* The number of the next batch: 1, then 2, 3... */
uint64_t batches_next (batches_t *self);

/* Remember batch (from batches_next, in order) and its n attempts (n >=
   1, copied) as sent.  Returns 0, or -1 when batches_reserve did not make
   room for them: nothing is remembered. */
int batches_add (batches_t *self, uint64_t batch, const hearth_assign_t *as,
                 size_t n);

/* The executor has handled every batch up to launched: they are
   forgotten, except those marked unsent (it never had them). */
void batches_ack (batches_t *self, uint64_t launched);

/* Batch could not be sent, for why (copied): lost says it is the way's
   fault (a full queue, a peer not connected), not its tasks'.  Nothing
   if it is not remembered as sent. */
void batches_unsent (batches_t *self, uint64_t batch, bool lost,
                     const char *why);

/* Batches marked unsent and not yet taken. */
size_t batches_unsent_count (const batches_t *self);

/* One batch taken out of the set. */
typedef struct {
    uint64_t batch;      /* its number */
    hearth_assign_t *as; /* its attempts, malloc'ed (batches_taken_free) */
    size_t n;            /* how many */
    bool lost;           /* unsent for the way's fault (batches_unsent) */
    char *why;           /* batches_unsent's why (malloc'ed), or NULL */
} batches_taken_t;

/* Free what a take gave (as and why); accepts one never filled by a
   successful take only when zeroed. */
void batches_taken_free (batches_taken_t *taken);

/* The takes below return 0, or -1 with errno ENOENT (no such batch),
   ENOTUNIQ (the set cannot tell which) or ENOMEM (it stays). */

/* Take out batch, sent and not handled: the one an executor refused by
   its number. */
int batches_take (batches_t *self, uint64_t batch, batches_taken_t *out);

/* Take out the batch the executor read right after it handled launched
   (0: none): the first sent after launched, every number between being
   one it never read (not sent, or refused and taken before).  ENOTUNIQ
   when one after launched is forgotten (past the bound). */
int batches_take_next (batches_t *self, uint64_t launched,
                       batches_taken_t *out);

/* Take out the one batch sent that the executor has not said it handled
   (numbered after the last launched told to batches_ack), when there is
   only one: ENOTUNIQ when there are several. */
int batches_take_pending (batches_t *self, batches_taken_t *out);

/* Take out the oldest batch marked unsent. */
int batches_take_unsent (batches_t *self, batches_taken_t *out);

#endif

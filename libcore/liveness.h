/*  liveness.h - which peers have gone silent, with an injected clock.

    Every peer of a tracker has the same timeout (heartbeat liveness times
    the interval).  The tracker keeps its peers in one doubly-linked list
    ordered by last sign of life, oldest first: a touch moves a peer to the
    tail in O(1), so the list stays sorted, and expiry looks only at the
    head, stopping at the first peer that is still alive.  That order is
    the invariant everything rests on; hearth_liveness_check() verifies it
    (the unit tests call it after every step).

    Time is whatever the caller says it is (milliseconds, any monotonic
    origin): the tracker never reads a clock, so tests drive it by hand.  A
    clock that goes backwards is clamped to the latest time seen, which
    keeps the order intact.

    The tracker's owner may itself stop running (SIGSTOP, a VM stall, a
    handler that blocked): peers cannot be blamed for time the owner was
    not looking.  The owner's tick measures its own absence with
    hearth_liveness_gap() and credits it with hearth_liveness_pause(),
    which shifts every peer's last sign of life (so its deadline) by the
    gap: a peer is judged by what it missed while its owner ran.

    The tracker borrows the items it tracks (void *, never freed by it) and
    owns the handles it returns; a handle stays valid until it is removed
    or returned by hearth_liveness_expire(), or the tracker is destroyed.
*/
#ifndef HEARTH_LIVENESS_H
#define HEARTH_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hearth_liveness hearth_liveness_t;
typedef struct hearth_peer hearth_peer_t;

/* A new tracker whose peers expire timeout_ms after their last sign of
   life.  NULL with errno on failure. */
hearth_liveness_t *hearth_liveness_new (int64_t timeout_ms);

/* Destroy the tracker and every handle (not the items).  Accepts NULL;
   nulls *self_p; keeps errno. */
void hearth_liveness_destroy (hearth_liveness_t **self_p);

/* Change the timeout of every peer (the order does not change). */
void hearth_liveness_set_timeout (hearth_liveness_t *self, int64_t timeout_ms);

/* Track item, alive at now_ms.  Returns its handle, or NULL on no memory. */
hearth_peer_t *hearth_liveness_add (hearth_liveness_t *self, void *item,
                                    int64_t now_ms);

/* A sign of life from the peer at now_ms: O(1). */
void hearth_liveness_touch (hearth_liveness_t *self, hearth_peer_t *peer,
                            int64_t now_ms);

/* Stop tracking the peer; frees the handle and nulls *peer_p.  Accepts
   NULL. */
void hearth_liveness_remove (hearth_liveness_t *self, hearth_peer_t **peer_p);

/* The oldest peer silent for at least the timeout at now_ms: removes it
   and returns its item, or NULL when none has expired.  Call it in a loop,
   as many times per tick as the caller wants to work. */
void *hearth_liveness_expire (hearth_liveness_t *self, int64_t now_ms);

/* The owner was not running for gap_ms (from hearth_liveness_gap):
   every peer's last sign of life, and the latest time seen, move forward
   by it, so every deadline does.  O(n), for a rare event; the order is
   kept.  A gap <= 0 does nothing. */
void hearth_liveness_pause (hearth_liveness_t *self, int64_t gap_ms);

/* The rule of a periodic tick of period tick_ms that last ran at
   last_tick_ms and runs again at now_ms (same clock): when more than two
   periods have passed, the owner was not running for the time beyond one
   period, which it returns; otherwise 0 (a normal or slightly late tick,
   no previous tick, INT64_MIN, or a clock that went backwards). */
int64_t hearth_liveness_gap (int64_t last_tick_ms, int64_t now_ms,
                             int64_t tick_ms);

/* Bounds of a daemon's tick period (ms): at least this, so that a short
   heartbeat interval does not spin the loop; at most this, so that the
   tick's other work (expiry, retries, journal syncs) is never far off. */
#define HEARTH_TICK_MIN_MS 10
#define HEARTH_TICK_MAX_MS 250

/* The period of a daemon's tick, the one that judges its peers' liveness
   (the master's, the worker's, the driver's and the executor's): a
   quarter of the heartbeat interval interval_ms, so that a silent peer is
   judged at most a quarter of an interval late, within
   [HEARTH_TICK_MIN_MS, HEARTH_TICK_MAX_MS]. */
int64_t hearth_liveness_tick_ms (int64_t interval_ms);

/* When the oldest peer expires (ms, same clock), or INT64_MAX if none. */
int64_t hearth_liveness_next_deadline (const hearth_liveness_t *self);

/* Last sign of life of a peer. */
int64_t hearth_liveness_last_seen (const hearth_peer_t *peer);

/* The item a handle tracks (borrowed). */
void *hearth_liveness_item (const hearth_peer_t *peer);

/* Peers tracked. */
size_t hearth_liveness_size (const hearth_liveness_t *self);

/* Check the invariants (links consistent, count right, times in order).
   Returns true when they hold.  O(n): for tests. */
bool hearth_liveness_check (const hearth_liveness_t *self);

#endif

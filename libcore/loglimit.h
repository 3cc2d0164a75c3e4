/*  loglimit.h - at most one log line per key and period, and a count of
    the ones held back.

    A peer that sends garbage, or a worker that fails every launch, must
    not turn each event into a log line (issue 14: 19,500 lines for 20,000
    bad messages, 22 MB of master log in 5 s).  A limiter keys what it
    limits by a string of its caller's ("bad message", "launch failed
    WORKER"): the first line of a key goes out, the next ones within the
    period are counted instead; the first one after the period goes out
    with that count, and hearth_loglimit_expired() reports the counts of
    keys that fell silent, so that no count is lost.  This is the master's
    rule for malformed messages (one line per peer per minute), with the
    count it lacked.

    Nothing here reads a clock: times come in as arguments (monotonic ms).
    hearth_log_limited() and hearth_loglimit_flush() write the lines
    (log.h); the rest only counts, for callers that write their own.  The
    limiter copies the
    keys; it keeps at most max_keys of them, and forgets them all (counts
    included) when a new one would pass that, so that a flood of distinct
    keys costs bounded memory.
*/
#ifndef HEARTH_LOGLIMIT_H
#define HEARTH_LOGLIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/log.h"

typedef struct hearth_loglimit hearth_loglimit_t;

/* A limiter of one line per key per period_ms (> 0), keeping at most
   max_keys (> 0) keys.  NULL with errno on no memory. */
hearth_loglimit_t *hearth_loglimit_new (int64_t period_ms, size_t max_keys);

/* Free the limiter.  Accepts NULL and a NULL *self_p; nulls the pointer;
   keeps errno. */
void hearth_loglimit_destroy (hearth_loglimit_t **self_p);

/* A line under key (borrowed) at now_ms: true when it may be logged, with
   *held (when not NULL) the number of lines of that key held back since
   the last one logged; false when it is to be held back (counted). */
bool hearth_loglimit_allow (hearth_loglimit_t *self, const char *key,
                            int64_t now_ms, uint64_t *held);

/* Told, for a key whose period has ended, how many lines were held back
   in it (key borrowed for the call). */
typedef void (hearth_loglimit_fn) (void *arg, const char *key, uint64_t held);

/* Periodic work: for each key whose period ended by now_ms, call fn when
   lines were held back, and forget the key.  Returns how many keys were
   forgotten. */
size_t hearth_loglimit_expired (hearth_loglimit_t *self, int64_t now_ms,
                                hearth_loglimit_fn *fn, void *arg);

/* Log the line fmt... at level under key (the line's fixed part, in
   words: "bad message from the master"), unless it is held back.  The
   first line of a key says that the next ones are counted for the
   period; a later one says how many were held back before it.  self NULL:
   logged as it is. */
void hearth_log_limited (hearth_loglimit_t *self, hearth_log_level_t level,
                         const char *key, int64_t now_ms, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));

/* Periodic work: for each key whose period ended by now_ms with lines held
   back, log at level "N more lines of KEY were not logged in the last S
   s", and forget the keys whose period ended. */
void hearth_loglimit_flush (hearth_loglimit_t *self, hearth_log_level_t level,
                            int64_t now_ms);

/* Keys remembered now. */
size_t hearth_loglimit_size (const hearth_loglimit_t *self);

#endif

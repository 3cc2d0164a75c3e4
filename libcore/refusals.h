/*  refusals.h - a log of refused peers, one line per peer a minute.

    Code that refuses a peer (the ZAP handler, zap.h; the driver's
    executor socket) counts every refusal and logs it at WARN, but a peer
    that keeps knocking is logged once a minute, so that it cannot flood
    the log.  Peers are told apart by host (a URL's port is dropped) and
    an optional "about".  Up to 4096 are remembered, then the memory
    starts afresh.
*/
#ifndef HEARTH_REFUSALS_H
#define HEARTH_REFUSALS_H

#include <stddef.h>

typedef struct hearth_refusals hearth_refusals_t;

/* A log of refusals, rate-limited per peer, for the caller to destroy.
   NULL (errno) on failure. */
hearth_refusals_t *hearth_refusals_new (void);

/* Free the log.  Accepts NULL and a NULL *self_p; nulls *self_p; keeps
   errno. */
void hearth_refusals_destroy (hearth_refusals_t **self_p);

/* Count a refusal and log "refused HOST: WHY" (WARN), unless the same
   host and about were logged less than a minute ago.  peer is a host or
   a URL (tcp://HOST:PORT, logged as HOST); about (may be NULL) sets
   apart refusals of one host that each deserve a line, such as
   different keys that were once admitted (never anything a stranger
   can vary at will: that would flood the log). */
void hearth_refusals_log (hearth_refusals_t *self, const char *peer,
                          const char *about, const char *why);

/* Refusals counted (logged or not). */
size_t hearth_refusals_count (const hearth_refusals_t *self);

#endif

/*  tailev.h - hearth-tail's line for one event of the master's PUB
    socket (protocol.md §8): what happened, to which worker, application,
    executor or driver, in a few words.  Workers are named by their short
    names when a name set is given (wnames.h); a worker's state reads
    DRAINING while it is drained.  Borrows everything it is given. */
#ifndef HEARTH_TAIL_TAILEV_H
#define HEARTH_TAIL_TAILEV_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "libcore/wnames.h"

/* Make the worker ids event e names known to names.  0, or -1 when out
   of memory. */
int tail_event_learn (hearth_wnames_t *names, const cJSON *e);

/* The line for event e of topic into buf (names may be NULL: ids in
   full). */
void tail_event_describe (const char *topic, const cJSON *e,
                          hearth_wnames_t *names, char *buf, size_t size);

#endif

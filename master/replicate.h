/*  replicate.h - the leader's side of the journal stream to standby
    masters (issue 17; docs/high-availability.md).  A standby that sends
    FOLLOW_JOURNAL gets a stream: a snapshot of the whole state
    (registry_dump, in JOURNAL_DATA messages of at most 1,000 records),
    then every record the registry gives the journal, batched until the
    end of each turn of the loop.  Each FOLLOW_JOURNAL of a follower's
    stream is a keepalive, answered with an empty JOURNAL_DATA; a follower
    silent for the liveness timeout is forgotten.  The followers are the
    replicate_t's; the messages go out through send.c (with the epoch). */
#ifndef HEARTH_MASTER_REPLICATE_H
#define HEARTH_MASTER_REPLICATE_H

#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"

typedef struct replicate replicate_t;

/* No followers yet.  NULL on no memory. */
replicate_t *replicate_new (void);
/* Forget them all.  Accepts NULL; nulls the pointer. */
void replicate_destroy (replicate_t **self_p);

/* FOLLOW_JOURNAL's handler (handlers.c's table): a new stream (flushes
   what is pending to the others first, then the snapshot), or a
   keepalive answered. */
void master_follow_journal (void *arg, const hearth_from_t *from,
                            hearth_msg_t *msg);

/* A record (borrowed) the journal was given: queued for every follower. */
void master_replicate_record (master_t *m, const cJSON *record);

/* Send what is queued (end of a turn of the loop). */
void master_replicate_flush (master_t *m);

/* Forget followers silent since now - (liveness x interval), monotonic. */
void master_replicate_tick (master_t *m, int64_t now);

/* Followers now (for /metrics and the log). */
size_t master_replicate_followers (const master_t *m);

#endif

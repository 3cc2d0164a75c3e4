/*  follow.h - a standby master's side of the journal stream (issue 17;
    docs/high-availability.md): a DEALER to the leader the election named
    (m->leader_url, of epoch m->leader_epoch), FOLLOW_JOURNAL every
    heartbeat interval, and the JOURNAL_DATA it gets written into the
    standby's own --journal DIR with the journal module (journal.h): the
    snapshot as the journal's new snapshot, every later record appended.
    On taking over, the standby closes it (master_follow_close) and
    recovers from that DIR as a restarted master does (recover.c).  A gap,
    another stream or another epoch, or the leader silent for the liveness
    timeout: it starts again with a fresh socket and a new snapshot; so
    does a journal grown past the compaction size (the new snapshot
    compacts it: a standby has no registry to dump). */
#ifndef HEARTH_MASTER_FOLLOW_H
#define HEARTH_MASTER_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"
#include "master/master.h"

/* Open (and lock) the standby's journal DIR; its old contents stay until
   a leader's snapshot replaces them.  0, or -1 with err. */
int master_follow_open (master_t *m, hearth_error_t *err);

/* The leader changed (m->leader_url, m->leader_epoch; "" for none):
   follow that one from a new snapshot, or nobody. */
void master_follow_leader (master_t *m);

/* Keepalives, the leader's silence, fsync (now: monotonic ms). */
void master_follow_tick (master_t *m, int64_t now);

/* What the standby's journal holds, for a master being elected. */
typedef enum {
    FOLLOW_CURRENT, /* the last leader's state, as far as it was heard */
    FOLLOW_NONE,    /* no leader was followed on this run (a cluster's
                       first election, or every master restarted) */
    FOLLOW_BEHIND,  /* an older state or none: no snapshot of the last
                       leader followed, or records of it lost */
} master_follow_state_t;

/* Say which, with a sentence for people in text.  Call before
   master_follow_close. */
master_follow_state_t master_follow_state (const master_t *m, char *text,
                                           size_t size);

/* Stop following, sync and unlock the journal.  Accepts a master that
   never followed. */
void master_follow_close (master_t *m);

#endif

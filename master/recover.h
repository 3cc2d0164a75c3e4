/*  recover.h - hearth-master's journal (--journal DIR) and its recovery
    after a restart (RECOVERING until every restored worker and driver is
    back, or a deadline); recover.c says how it goes. */
#ifndef HEARTH_MASTER_RECOVER_H
#define HEARTH_MASTER_RECOVER_H

#include <stdint.h>

#include "libcore/error.h"
#include "master/master.h"

/* Open the journal (--journal; nothing without it), rebuild the registry
   from it and, when it held live workers or applications, enter
   RECOVERING.  0, or -1 with err. */
int master_journal_open (master_t *m, hearth_error_t *err);

/* Tick work of the journal: fsync, compaction when due, and the end of
   RECOVERING (everyone back, or the deadline passed).  now is
   monotonic. */
void master_journal_tick (master_t *m, int64_t now);

/* How long the master waits for its workers and drivers after it
   starts or is elected (--recovery-timeout; by default twice liveness x
   interval, at least 5 s: a peer's socket may wait 2 s between
   reconnects while the master is down), in ms: the RECOVERING deadline,
   and the time claims of forgotten application ids wait (claims.h). */
int64_t master_recovery_timeout (master_t *m);

/* Sync and close the journal (none: nothing). */
void master_journal_close (master_t *m);

/* Publish a `master` event: what (started, recovering, recovered,
   stopping), the master's status, reason (borrowed, or NULL) and, around
   a recovery, what it found. */
void master_publish_master (master_t *m, const char *what, const char *reason);

#endif

/*  journal.h - the master's journal on disk (`hearth-master --journal DIR`).

    DIR holds (all mode 0600, DIR 0700: records carry application tokens):

        lock        flock()ed by the master that uses DIR; holds its pid
        snapshot    the whole state at generation G: a "snapshot" header
                    {gen: G}, one record per worker, application, executor
                    and driver, and an "end" record; written to
                    snapshot.tmp, fsync'd and renamed, so it is whole or
                    absent
        journal.G   every change since that snapshot, appended as it
                    happens: a "journal" header {gen: G}, then records
        files/KEY/N the bytes records refer to but do not hold (the files
                    of a cluster-mode driver not yet ended, KEY its id),
                    written whole before the record that needs them
                    (jfiles.h)

    The record format is jstate.h's: length-prefixed, checksummed lines.
    Recovery reads the snapshot (if any) and journal.G of the same
    generation into a jstate_t; a bad record is logged as a warning and
    skipped, never applied, and the good records after it are kept (a
    torn or corrupt tail is cut off).  The skipped bytes are kept in
    journal.G.bad.  Compaction
    writes a new snapshot of generation G + 1, starts journal.(G + 1) and
    removes journal.G; a crash at any point leaves either the old snapshot
    and its journal or the new ones.  The master compacts right after
    recovering (which also drops a corrupt tail for good) and whenever the
    journal has grown past a size.

    Writes: each record is written (write(2)) when it is appended, so a
    master killed with kill -9 loses nothing; it is fsync'd at once when
    the caller says it matters (sync), else at the next journal_sync().
    A write that fails (a full disk) is cut back to the last whole record
    (ftruncate, then fdatasync), so that a torn record is never followed
    by good ones, and the journal is then behind: it appends nothing more
    (a record after a missing one would lie) until a snapshot of the whole
    state succeeds, which the caller tries when journal_repair_due() says
    so.  A failed fdatasync counts as a failed write.  The failure is
    logged once, and its end once.
*/
#ifndef HEARTH_MASTER_JOURNAL_H
#define HEARTH_MASTER_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/error.h"
#include "master/jstate.h"

typedef struct journal journal_t;

/* Open DIR (creating it), lock it, and read what it holds into *state (a
   new jstate_t, caller destroys; empty for a new journal).  Warnings
   about skipped tails are logged.  NULL with err when DIR cannot be used
   or another master holds it. */
journal_t *journal_open (const char *dir, jstate_t **state,
                         hearth_error_t *err);

/* Unlock and close; what was appended is fsync'd first.  Accepts NULL
   and a NULL *self_p; sets *self_p to NULL; keeps errno. */
void journal_destroy (journal_t **self_p);

/* Append one record (borrowed).  0 or -1. */
int journal_append (journal_t *self, const cJSON *record, bool sync);

/* fsync what was appended since the last sync.  0 or -1. */
int journal_sync (journal_t *self);

/* Whether appends wait for journal_sync (for /metrics, which times the
   syncs that write). */
bool journal_dirty (const journal_t *self);

/* True while a record could not be written: the files hold a prefix of
   the changes, and appends are refused until a journal_compact()
   succeeds. */
bool journal_behind (const journal_t *self);

/* True when the journal is behind and no snapshot was tried in the last
   second (now_ms: any monotonic clock); notes the attempt. */
bool journal_repair_due (journal_t *self, int64_t now_ms);

/* Bytes in the current journal file. */
size_t journal_size (const journal_t *self);

/* Bytes of the last snapshot this journal wrote (journal_compact), or 0
   before the first.  A journal is worth compacting once it is larger:
   with applications' outputs tables (issue 39) a snapshot may be far
   larger than the fixed threshold, and compacting at that would write
   it again for every few MiB of records. */
size_t journal_snapshot_size (const journal_t *self);

/* The current generation. */
int64_t journal_gen (const journal_t *self);

/* The directory (borrowed). */
const char *journal_dir (const journal_t *self);

/* Called by a dump for each record of the state. */
typedef void (journal_emit_fn) (void *emit_arg, const cJSON *record, bool sync);
/* Fills a snapshot: calls emit for every record of the current state. */
typedef void (journal_dump_fn) (void *dump_arg, journal_emit_fn *emit,
                                void *emit_arg);

/* Write a snapshot of what dump emits and start a new generation; a
   journal that was behind is whole again.  On failure (err) the old
   snapshot and journal stay in use. */
int journal_compact (journal_t *self, journal_dump_fn *dump, void *dump_arg,
                     hearth_error_t *err);

#endif

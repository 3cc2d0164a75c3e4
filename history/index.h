/*  index.h - the listing's cache: each log's summary (appsum.h) kept in
    DIR/.hearth-history/index with the size and modification time of
    every file it was read from.

    A summary is used only while all of its log's files still have those
    sizes and times (and no file was added or removed); any change reads
    that log again, and only that log.  The file is one JSON object a
    line: {"hearth_history_index":1} first, then per log
    {"id":..., "files":[[NAME, SIZE, MTIME_S, MTIME_NS], ...], "app":{...}};
    a line that does not read is dropped (its log is read again).  It is
    written to a temporary file renamed over the old one, so a reader
    never sees half of it; when DIR or the index's directory cannot be
    written, the summaries live in memory only (docs/history.md).  DIR
    may be shared: the index's directory is opened O_NOFOLLOW and its
    files reached through it (openat, renameat: libcore/safefile.h), so
    a link left at .hearth-history is never read nor written through.
*/
#ifndef HEARTH_HISTORY_INDEX_H
#define HEARTH_HISTORY_INDEX_H

#include <stdbool.h>

#include "history/appsum.h"
#include "history/scan.h"
#include "libcore/error.h"

/* The index's directory in DIR, and its file there. */
#define HIST_INDEX_DIR ".hearth-history"
#define HIST_INDEX_FILE "index"

typedef struct hist_index hist_index_t;

/* The index of dir: read from its file when there is one (a missing or
   unreadable file is an empty index).  NULL only when out of memory. */
hist_index_t *hist_index_load (const char *dir);

/* Destroy; accepts NULL; nulls the pointer. */
void hist_index_destroy (hist_index_t **self_p);

/* The summary of log when its files are unchanged (borrowed: valid until
   the next put of that log or the destroy), else NULL. */
const hist_app_t *hist_index_get (hist_index_t *self, const hist_log_t *log);

/* Keep app (ownership taken, even on failure) as log's summary.  0, or
   -1 when out of memory. */
int hist_index_put (hist_index_t *self, const hist_log_t *log, hist_app_t *app);

/* Write the index when something changed since the load, with only the
   logs of current (entries of logs that are gone are dropped).  0 when
   written or nothing to write; -1 with err when it cannot be written
   (a read-only DIR: the caller goes on without). */
int hist_index_save (hist_index_t *self, const hist_dir_t *current,
                     hearth_error_t *err);

/* What a listing should say about the index, or NULL: its directory is
   a symbolic link (left in a shared DIR), neither read nor written
   through (borrowed). */
const char *hist_index_warning (const hist_index_t *self);

/* Entries read from the file at load, and logs put since. */
size_t hist_index_loaded (const hist_index_t *self);
size_t hist_index_refreshed (const hist_index_t *self);

#endif

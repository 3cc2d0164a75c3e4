/*  scan.h - the logs of a directory, and the lines of one log.

    A log is the files DIR/STEM.events, DIR/STEM.events.1, .2 ... (the
    writer rolls into them in that order, docs/event-log.md); STEM is the
    application's id, or APP_ID.driverN for the log of a driver that
    resumed the application (its epoch N, from 2).  Other names, and
    names beginning with a dot (the index's directory), are not logs and
    are skipped.
*/
#ifndef HEARTH_HISTORY_SCAN_H
#define HEARTH_HISTORY_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libcore/error.h"

typedef struct {
    char *name;       /* the file's name in DIR */
    unsigned no;      /* 0 for STEM.events, n for STEM.events.n */
    uint64_t size;    /* bytes, when scanned */
    int64_t mtime_s;  /* modification time, seconds */
    int64_t mtime_ns; /* ... and nanoseconds */
} hist_file_t;

typedef struct {
    char *id;           /* the stem */
    hist_file_t *files; /* in reading order (owned) */
    size_t nfiles;      /* entries in files */
    int64_t mtime_ms;   /* the newest file's modification time */
    uint64_t bytes;     /* the files' sizes added */
} hist_log_t;

typedef struct {
    hist_log_t *logs; /* sorted by id (owned) */
    size_t n;         /* entries in logs */
} hist_dir_t;

/* The logs of dir into out (to release with hist_dir_release).  0, or -1
   with err when dir cannot be read (missing, not a directory, no
   permission) or no memory. */
int hist_dir_scan (const char *dir, hist_dir_t *out, hearth_error_t *err);

/* Free what hist_dir_scan filled; accepts a zeroed or released one. */
void hist_dir_release (hist_dir_t *d);

/* The log of id in d (borrowed), or NULL. */
const hist_log_t *hist_dir_find (const hist_dir_t *d, const char *id);

/* A driver that resumed an application writes its own log,
   APP_ID.driverN.events (N its driver epoch, from 2), beside its earlier
   drivers' (APP_ID.events for the first; docs/event-log.md).  The stem of
   the log in d of the driver that took over from the one whose log is
   id (the next epoch there), or of the one it took over from (the
   previous): borrowed from d, or NULL when d has none. */
const char *hist_dir_next_driver (const hist_dir_t *d, const char *id);
const char *hist_dir_prev_driver (const hist_dir_t *d, const char *id);

/* The driver epoch of the log of stem id: N for APP_ID.driverN, 1 for
   any other stem. */
unsigned long hist_driver_epoch (const char *id);

/* The name's stem and file number when name is a log file's name: true,
 *stem_len and *no; else false. */
bool hist_log_name (const char *name, size_t *stem_len, unsigned *no);

/* The longest line a reader takes: a longer one is skipped, never held
   whole (docs/history.md, "Bounds"). */
#define HIST_MAX_LINE (1024 * 1024)

/* Called with each whole line of a log (text without its newline, not
   NUL-terminated); first: the first line of the first file.  A non-zero
   return stops the reading and is returned by hist_log_read. */
typedef int (hist_line_fn) (void *arg, const char *text, size_t len,
                            bool first);

/* What a reading saw besides the lines it gave. */
typedef struct {
    bool cut;            /* the last file ends in a line without its
                            newline (a driver killed while writing, or one
                            writing now): not given */
    uint64_t long_lines; /* lines over HIST_MAX_LINE bytes: not given */
    uint64_t longest;    /* the longest of them, in bytes */
    char long_file[256]; /* the file of the first of them, or "" */
} hist_read_t;

/* Read the lines of log's files in order, calling fn, into *rd.  A line
   over HIST_MAX_LINE bytes is skipped as it is read (the reader holds
   about 2 MiB at most, whatever the file) and counted in rd; a skipped
   first line makes the next one not the first (the log is not a log).
   0, fn's non-zero return, or -1 with err when a file cannot be opened
   or read. */
int hist_log_read (const char *dir, const hist_log_t *log, hist_line_fn *fn,
                   void *arg, hist_read_t *rd, hearth_error_t *err);

/* Say on out, in one line, the lines rd skipped as too long, if any
   ("hearth-history: DIR/FILE: skipped N line(s) over 1 MiB ..."). */
void hist_read_warn (FILE *out, const char *dir, const hist_read_t *rd);

#endif

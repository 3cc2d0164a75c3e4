/*  scan.h - the logs of a directory, and the lines of one log.

    A log is the files DIR/STEM.events, DIR/STEM.events.1, .2 ... (the
    writer rolls into them in that order, docs/event-log.md); STEM is the
    application's id.  Other names, and names beginning with a dot (the
    index's directory), are not logs and are skipped.
*/
#ifndef HEARTH_HISTORY_SCAN_H
#define HEARTH_HISTORY_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The name's stem and file number when name is a log file's name: true,
 *stem_len and *no; else false. */
bool hist_log_name (const char *name, size_t *stem_len, unsigned *no);

/* Called with each whole line of a log (text without its newline, not
   NUL-terminated); first: the first line of the first file.  A non-zero
   return stops the reading and is returned by hist_log_read. */
typedef int (hist_line_fn) (void *arg, const char *text, size_t len,
                            bool first);

/* Read the lines of log's files in order, calling fn.  *cut is set when
   the last file ends in a line without its newline (a driver killed while
   writing, or one writing now): that line is not given to fn.  0, fn's
   non-zero return, or -1 with err when a file cannot be opened or read. */
int hist_log_read (const char *dir, const hist_log_t *log, hist_line_fn *fn,
                   void *arg, bool *cut, hearth_error_t *err);

#endif

/*  log.h - levelled, timestamped logging for every Hearth process.

    One line per call: `2026-11-29T20:05:35.123Z hearth-master[1234] INFO
    text`.  To stderr by default, to a file on request; the file is reopened
    by hearth_log_reopen() (daemons call it on SIGHUP, for logrotate).

    The logger is the one piece of process-wide state in Hearth: a process
    has one identity and one log, and every module writes to it.  It is
    configured once at start-up, before any thread is started.
*/
#ifndef HEARTH_LOG_H
#define HEARTH_LOG_H

#include "libcore/error.h"

typedef enum {
    HEARTH_LOG_ERROR = 0,
    HEARTH_LOG_WARN = 1,
    HEARTH_LOG_INFO = 2,
    HEARTH_LOG_DEBUG = 3,
} hearth_log_level_t;

/* Parse "error", "warn", "info" or "debug". Returns the level or -1. */
int hearth_log_level_parse (const char *text);

/* Set the component name, the threshold and the destination (path NULL or
   "-" means stderr; a file is appended to, and refused when it is a
   symbolic link or has other hard links: libcore/safefile.h).  Returns
   0, or -1 with err filled when the file cannot be opened or the level
   is unknown. */
int hearth_log_open (const char *component, const char *level, const char *path,
                     hearth_error_t *err);

/* Reopen the log file (no-op for stderr), by the same rule. Returns 0
   or -1 with errno (the old file kept). */
int hearth_log_reopen (void);

/* Close the log file, if any, and go back to stderr. */
void hearth_log_close (void);

/* True if a message of this level would be written. */
int hearth_log_enabled (hearth_log_level_t level);

void hearth_log (hearth_log_level_t level, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#define log_error(...) hearth_log (HEARTH_LOG_ERROR, __VA_ARGS__)
#define log_warn(...) hearth_log (HEARTH_LOG_WARN, __VA_ARGS__)
#define log_info(...) hearth_log (HEARTH_LOG_INFO, __VA_ARGS__)
#define log_debug(...)                                                         \
    do {                                                                       \
        if (hearth_log_enabled (HEARTH_LOG_DEBUG))                             \
            hearth_log (HEARTH_LOG_DEBUG, __VA_ARGS__);                        \
    } while (0)

#endif

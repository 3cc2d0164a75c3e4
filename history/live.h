/*  live.h - whether a log without app_end is still being written: the
    state the listing shows (docs/history.md, "In progress or failed").

    A log with app_end shows its state.  One without:
    - its driver on this host (app_start's host is this one's name, or
      the log has no host: older logs, written before the field) and
      app_start's pid a live process that started no later than the log:
      RUNNING; that pid gone (or reused by a later process): FAILED, "the
      log ended without app_end (driver pid N is gone)";
    - its driver elsewhere, or no app_start yet: RUNNING while the log's
      newest file changed less than stale_ms ago, else FAILED, "the log
      ended without app_end (no event for over D)".
    Before both: a later driver's log of the application beside it (the
    application was resumed, scan.h's hist_dir_next_driver): FAILED,
    "its driver was lost: driver N resumed the application (its log:
    STEM)", whatever its pid or age.
*/
#ifndef HEARTH_HISTORY_LIVE_H
#define HEARTH_HISTORY_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "history/appsum.h"
#include "history/scan.h"

typedef struct {
    char host[256];   /* this host's name */
    int64_t now_ms;   /* the wall clock at the listing */
    int64_t stale_ms; /* a remote log unchanged this long has failed */
    int64_t boot_ms;  /* when this host booted (wall clock), or -1 */
    long ticks;       /* clock ticks a second (/proc's unit) */
} hist_here_t;

/* This host, now, with the staleness bound. */
void hist_here_init (hist_here_t *h, int64_t stale_ms);

/* True when a process pid lives here and started at or before
   before_ms (1 s of slack: /proc's boot time is to the second). */
bool hist_pid_alive (const hist_here_t *h, int64_t pid, int64_t before_ms);

/* The state shown for a (borrowed, static or a's), with its reason
   written into reason (size bytes): the log's, RUNNING or FAILED per
   the rule above.  mtime_ms: the log's newest file's. */
const char *hist_shown_state (const hist_app_t *a, int64_t mtime_ms,
                              const hist_here_t *h, char *reason, size_t size);

/* The same for a, the summary of log, one of d's: with the rule of a
   resumed application's earlier drivers first. */
const char *hist_shown_state_in (const hist_app_t *a, const hist_dir_t *d,
                                 const hist_log_t *log, const hist_here_t *h,
                                 char *reason, size_t size);

#endif

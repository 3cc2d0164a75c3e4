/*  progress_report.h - the driver's progress summary for the master
    (APPLICATION_PROGRESS, docs/protocol.md), in the cluster modes.

    The engine's tick asks whether a summary is due; it is built from
    counters the engine keeps anyway (the task set's per-stage counts,
    the failed attempts the engine counts, the totals of the jobs that
    ended: work.h), never from the task path.  A summary is due at most
    once per interval while it differs from the last one sent, at once
    when a job has ended since, and at the end when it differs.

    Ownership: the report owns its last summary and nothing else; the
    work is borrowed for each call.
*/
#ifndef HEARTH_LIBHEARTH_PROGRESS_REPORT_H
#define HEARTH_LIBHEARTH_PROGRESS_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/proto.h"
#include "libhearth/work.h"

typedef struct progress_report progress_report_t;

/* A report that sends at most once per interval_ms.  NULL on no
   memory. */
progress_report_t *progress_report_new (int64_t interval_ms);
/* Accepts NULL; nulls *self_p; keeps errno. */
void progress_report_destroy (progress_report_t **self_p);

/* Whether a summary of work is due at now_ms (monotonic): final asks
   for one whenever it differs from the last sent, whatever the time;
   news (the live timeline's, tlfeed.h) makes one due like a change.
   When due, the summary is kept for progress_report_msg. */
bool progress_report_due (progress_report_t *self, work_t *work, int64_t now_ms,
                          bool final, bool news);

/* The summary progress_report_due kept, as an APPLICATION_PROGRESS of
   app_id (borrowed) for the caller to send.  NULL on no memory. */
hearth_msg_t *progress_report_msg (const progress_report_t *self,
                                   const char *app_id);

/* The summary was sent at now_ms: the next ones are compared with it. */
void progress_report_sent (progress_report_t *self, int64_t now_ms);

/* The name cut to at most max bytes, never inside a UTF-8 character,
   into buf (max + 1 bytes). */
void progress_report_cut (char *buf, const char *name, size_t max);

#endif

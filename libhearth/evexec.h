/*  evexec.h - the event log's lines about executors: executor_added,
    executor_removed, and the task_end (LOST) of each attempt an executor
    took along (docs/event-log.md); counted into the log's totals (the
    executors, their cores x lifetime).  Every function accepts a NULL
    log.
*/
#ifndef HEARTH_LIBHEARTH_EVEXEC_H
#define HEARTH_LIBHEARTH_EVEXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/taskset.h"
#include "libhearth/eventlog.h"

/* What the events say of an executor (strings borrowed). */
typedef struct {
    int exec_id;        /* its id */
    const char *host;   /* where it runs */
    const char *worker; /* its worker's id, "" in local modes */
    int cores;          /* its cores */
    int64_t memory_mb;  /* its memory, 0: not told */
    int64_t added_ms;   /* evexec_added's time */
    int64_t peak_rss;   /* its peak memory in bytes, -1: not told */
} evexec_t;

/* executor_added; returns its time (the wall clock, ms), for added_ms. */
int64_t evexec_added (eventlog_t *el, const evexec_t *x);
/* executor_removed: why, and how many attempts went with it. */
void evexec_removed (eventlog_t *el, const evexec_t *x, const char *reason,
                     int tasks_lost);

/* The argument of evexec_attempt_lost (strings borrowed). */
struct tlfeed;
typedef struct {
    eventlog_t *el;     /* the log, or NULL */
    struct tlfeed *tl;  /* the live timeline's feed, or NULL */
    int exec_id;        /* the executor lost */
    const char *reason; /* why */
    int64_t now_us;     /* when (monotonic) */
} evexec_lost_t;
/* A hearth_ts_dropped_fn: the task_end (LOST) of one attempt, in the log
   and the feed; arg is an evexec_lost_t. */
void evexec_attempt_lost (void *arg, const hearth_assign_t *a, int64_t start_us,
                          bool requeued);

#endif

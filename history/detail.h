/*  detail.h - the figures of one application's summary (`hearth-history
    --dir DIR APP_ID`), gathered in one pass over its log.

    Jobs, stages and executors are kept by their ids (small integers from
    the driver); the run times of successful attempts are kept whole, so
    percentiles are exact (nearest rank); failed attempts are kept per
    task (count, last error), the slowest attempts as a top-N list.  The
    fields of web-wire §5 (memory_mb, peak_rss_bytes, lifetime_ms, the
    app_end totals) are read when a log has them and computed or shown
    as unknown when it does not.
*/
#ifndef HEARTH_HISTORY_DETAIL_H
#define HEARTH_HISTORY_DETAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "history/appsum.h"
#include "history/evline.h"
#include "history/tasklog.h"

typedef struct {
    bool seen;                /* a job_start or job_end named it */
    char *name;               /* its name, or NULL */
    int64_t stages;           /* job_start's stage count */
    char *state;              /* job_end's, or NULL: not ended */
    char *error;              /* job_end's error, or NULL */
    int64_t start_ms, end_ms; /* -1 when not seen */
} hist_job_t;

typedef struct {
    int64_t *v;   /* values (owned) */
    size_t n;     /* used */
    size_t alloc; /* allocated */
} hist_vec_t;

/* The locality levels a task_start names (libcore/taskset.h's, with
   Spark's names; absent: NO_PREF), in hearth_locality_t's order. */
#define HIST_LOCALITIES 5
extern const char *const hist_localities[HIST_LOCALITIES];

typedef struct {
    bool seen;                /* some event named it */
    int64_t job;              /* its job */
    char *name;               /* its name, or NULL */
    int64_t tasks;            /* stage_start's first count */
    int64_t cached;           /* its first stage_start's `cached`: tasks
                                 of a persisted stage not run (0) */
    int64_t runs;             /* stage_start events (re-runs: attempt > 0) */
    bool skipped;             /* a stage_skipped named it: a resumed
                                 driver ran none of its tasks */
    char *skip_reason;        /* stage_skipped's reason, or NULL */
    char *state;              /* stage_end's, or NULL */
    int64_t finished;         /* stage_end's, or -1 */
    int64_t start_ms, end_ms; /* -1 when not seen */
    int64_t started;          /* task_start events */
    int64_t speculative;      /* ... of them speculative copies */
    int64_t local[HIST_LOCALITIES]; /* ... of them by locality level
                                       (hist_localities' order) */
    int64_t ended;                  /* task_end events */
    int64_t accepted;               /* outcome accepted */
    int64_t failed;                 /* state FAILED, not fetch_wait */
    int64_t killed;                 /* state KILLED */
    int64_t lost;                   /* state LOST */
    hist_vec_t ok_us;               /* run_us of FINISHED attempts */
} hist_stage_t;

typedef struct {
    bool seen;           /* executor_added seen */
    char *host;          /* its host */
    char *worker;        /* its worker, or NULL (local modes, older logs) */
    int64_t cores;       /* cores */
    int64_t memory_mb;   /* memory, -1: not in the log */
    int64_t added_ms;    /* executor_added's time */
    int64_t removed_ms;  /* executor_removed's time, -1: not removed */
    int64_t lifetime_ms; /* executor_removed's, -1: computed */
    int64_t peak_rss;    /* bytes, -1: unknown */
    char *reason;        /* executor_removed's, or NULL */
    int64_t tasks_lost;  /* executor_removed's */
    int64_t attempts;    /* task_end events on it */
    int64_t failed;      /* ... FAILED */
} hist_exec_t;

typedef struct {
    int64_t stage, index, attempt, executor; /* which attempt */
    int64_t run_us;                          /* its run time */
    int64_t time_ms;                         /* its end */
    char state[16];                          /* the executor's state */
    char outcome[16];                        /* the driver's outcome */
} hist_attempt_t;

typedef struct {
    int64_t stage, index;  /* the task */
    int64_t failed;        /* failed attempts (and lost ones) */
    int64_t last_attempt;  /* the last failed attempt */
    int64_t last_executor; /* where it ran */
    char *last_error;      /* its error, or NULL */
    bool succeeded;        /* a later attempt was accepted */
    bool gave_up;          /* the driver gave up on it */
} hist_taskfail_t;

typedef struct hist_detail hist_detail_t;

/* A new, empty summary of the log of stem id.  NULL: no memory. */
hist_detail_t *hist_detail_new (const char *id, int top);

/* Destroy; accepts NULL; nulls the pointer. */
void hist_detail_destroy (hist_detail_t **self_p);

/* Feed one whole line.  -1 only when out of memory. */
int hist_detail_feed (hist_detail_t *self, const char *text, size_t len,
                      bool first);

/* After the last line: sorts what percentiles need, groups failures.
   -1 when out of memory. */
int hist_detail_finish (hist_detail_t *self);

/* Keep the attempts of the timeline too (history/tasklog.h), before the
   first line.  -1 when out of memory. */
int hist_detail_keep_timeline (hist_detail_t *self);

/* The pieces, for appview.c (borrowed). */
/* The timeline's attempts, or NULL when not kept. */
hist_tasklog_t *hist_detail_tasklog (hist_detail_t *self);
hist_app_t *hist_detail_app (hist_detail_t *self);
const cJSON *hist_detail_settings (const hist_detail_t *self);
const hist_job_t *hist_detail_jobs (const hist_detail_t *self, size_t *n);
const hist_stage_t *hist_detail_stages (const hist_detail_t *self, size_t *n);
const hist_exec_t *hist_detail_execs (const hist_detail_t *self, size_t *n);
const hist_attempt_t *hist_detail_top (const hist_detail_t *self, size_t *n);
const hist_taskfail_t *hist_detail_fails (const hist_detail_t *self, size_t *n);
/* Every FINISHED attempt's run_us, sorted (after finish). */
const hist_vec_t *hist_detail_ok_us (const hist_detail_t *self);
/* Sum of every attempt's run_us; attempts started and ended. */
void hist_detail_counts (const hist_detail_t *self, int64_t *run_us_sum,
                         int64_t *started, int64_t *ended, int64_t *dropped);
/* An app_end total (web-wire §5: duration_ms, tasks_succeeded, ...) or
   -1 when the log has none. */
int64_t hist_detail_end_total (const hist_detail_t *self, const char *key);

/* The p-th percentile (0 < p <= 100, nearest rank) of sorted v, or -1
   when empty. */
int64_t hist_percentile (const hist_vec_t *v, double p);

#endif

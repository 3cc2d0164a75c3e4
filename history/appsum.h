/*  appsum.h - what the listing shows of one application: a summary fed
    one event at a time, kept in the index (index.h) between runs.

    The feeder reads only the events that the list needs (a task_start
    line is recognized by its first bytes and skipped unparsed).  Its
    state is the application's as the log says; whether a log without
    app_end is still running is decided at each listing (live.h), never
    stored.
*/
#ifndef HEARTH_HISTORY_APPSUM_H
#define HEARTH_HISTORY_APPSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "history/evline.h"

typedef struct {
    char *id;             /* the files' stem: the APP_ID to ask for */
    char *app_id;         /* log_start's app_id, or NULL */
    char *name;           /* log_start's name, or NULL */
    char *user;           /* log_start's user, or NULL */
    char *master;         /* app_start's master URL, or NULL */
    char *host;           /* app_start's host (newer logs), or NULL */
    int64_t pid;          /* app_start's driver pid, or 0 */
    int64_t start_ms;     /* log_start's time, or -1 */
    int64_t last_ms;      /* the last event's time, or -1 */
    int64_t end_ms;       /* app_end's time, or -1 when none */
    char *state;          /* app_end's state, or NULL: none */
    char *reason;         /* app_end's reason, or NULL */
    int64_t cores_max;    /* the most executors' cores held at once */
    int64_t cores_sum;    /* the sum of executor_added cores */
    int64_t executors;    /* executor_added events */
    int64_t tasks_ok;     /* accepted attempts: tasks that succeeded */
    int64_t tasks_failed; /* FAILED attempts (not fetch_wait) */
    int64_t jobs;         /* job_start events */
    int64_t jobs_failed;  /* job_end FAILED events */
    int64_t resumed;      /* app_resumed's outputs: those of earlier
                             drivers given back; -1: not resumed */
    int64_t lines;        /* whole lines read */
    int64_t bad_lines;    /* whole lines that were not events */
    int64_t long_lines;   /* of them, lines over HIST_MAX_LINE, skipped
                             (counted while reading: not in the index) */
    bool cut;             /* the last line had no newline (ignored) */
    bool is_log;          /* its first line is a log_start */
    /* while feeding */
    int64_t cores_now;   /* cores held by executors not removed */
    int64_t *exec_cores; /* cores by executor id, -1: none or gone */
    size_t nexec_cores;  /* entries in exec_cores */
} hist_app_t;

/* A new, empty summary for the files' stem id (copied).  NULL: no
   memory. */
hist_app_t *hist_app_new (const char *id);

/* Destroy; accepts NULL; nulls the pointer. */
void hist_app_destroy (hist_app_t **self_p);

/* Feed one whole line (without its newline).  first: the log's first
   line.  -1 only when out of memory. */
int hist_app_feed (hist_app_t *self, const char *text, size_t len, bool first);

/* Feed a parsed event (the same as hist_app_feed, for a reader that
   parses every line anyway).  -1 only when out of memory. */
int hist_app_feed_line (hist_app_t *self, const hist_line_t *l, bool first);

/* The summary as a JSON object of its stored fields (new; caller
   deletes), or NULL when out of memory. */
cJSON *hist_app_to_json (const hist_app_t *self);

/* A summary from hist_app_to_json's object (new), or NULL when o is not
   one (a damaged index entry) or no memory. */
hist_app_t *hist_app_from_json (const cJSON *o);

#endif

/*  list.h - `hearth-history --dir DIR`: the applications of a directory,
    newest first, filtered, as text or JSON (docs/history.md). */
#ifndef HEARTH_HISTORY_LIST_H
#define HEARTH_HISTORY_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "history/appsum.h"
#include "history/scan.h"
#include "libcore/error.h"

typedef struct {
    const char *dir;           /* the event-log directory */
    const char *const *states; /* shown states kept (upper case) */
    size_t nstates;            /* entries in states, 0: all */
    int64_t since_ms;          /* last event at or after, -1: all */
    const char *name_glob;     /* fnmatch(3) pattern, or NULL */
    bool json;                 /* JSON, not text */
    int64_t stale_ms;          /* live.h's bound */
    bool no_index;             /* neither read nor write the index */
} hist_list_opts_t;

/* Print the listing to out; warnings and errors to err_out, each after
   "hearth-history: ".  Returns the exit status: 0; 1 when the directory
   cannot be read or some file in it could not be read or is not a log
   (the others are still listed). */
int hist_list (const hist_list_opts_t *o, FILE *out, FILE *err_out);

/* The listing's document, the one --json prints (new; caller deletes),
   with *status the exit status hist_list would return.  NULL (status 1)
   when the directory cannot be read, after saying why on err_out, or
   when out of memory. */
cJSON *hist_list_json (const hist_list_opts_t *o, FILE *err_out, int *status);

/* The summary of one log read from its files (new; caller destroys), or
   NULL with err.  Lines skipped as too long are counted as bad lines and
   said on warn_out (when not NULL). */
hist_app_t *hist_list_read_app (const char *dir, const hist_log_t *log,
                                FILE *warn_out, hearth_error_t *err);

/* A time for --since: a duration back from now_ms (30s, 90m, 24h, 7d,
   2w) or a UTC date and time (2026-12-01, 2026-12-01T09:30,
   2026-12-01 09:30:00, a trailing Z allowed).  0 and *ms, or -1 with
   err. */
int hist_parse_since (const char *text, int64_t now_ms, int64_t *ms,
                      hearth_error_t *err);

#endif

/*  appview.h - `hearth-history --dir DIR APP_ID`: one application's
    summary as text or as the JSON document of docs/history.md. */
#ifndef HEARTH_HISTORY_APPVIEW_H
#define HEARTH_HISTORY_APPVIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "history/detail.h"
#include "history/live.h"
#include "libcore/error.h"

/* Read the log of app_id in dir and print its summary to out (top: how
   many of the slowest attempts; stale_ms: live.h's bound).  Errors to
   err_out after "hearth-history: ".  Returns the exit status: 0, or 1
   when there is no such log, it cannot be read or is not a log. */
int hist_appview (const char *dir, const char *app_id, bool json, int top,
                  int64_t stale_ms, FILE *out, FILE *err_out);

/* The summary document of app_id's log in dir, the one --json prints
   (new; caller deletes), or NULL with err; *missing is then true when
   there is no such log or it is not a log (else: the directory or the
   log cannot be read, or out of memory).  timeline (or NULL): gets the
   application's timeline as SVG (apptimeline.h; new, caller frees) with
   the document, NULL without it. */
cJSON *hist_appview_doc (const char *dir, const char *app_id, int top,
                         int64_t stale_ms, char **timeline, bool *missing,
                         hearth_error_t *err);

/* The summary document of a finished detail d (new; caller deletes), or
   NULL when out of memory.  state, reason: as shown (live.h); now_ms:
   the end of what has no end yet. */
cJSON *hist_appview_json (hist_detail_t *d, const char *state,
                          const char *reason, int64_t now_ms);

#endif

/*  timeline_live.h - a running application's timeline, as its driver
    reports it to the master and the master keeps it for the application's
    page (docs/operations.md "The pages", Timeline; docs/protocol.md,
    APPLICATION_PROGRESS's `timeline`).

    On the wire, each report carries only what is new since the driver's
    last one: the attempts that ended (at most HEARTH_TL_MAX_TASKS, the
    last ones; `cut` counts the earlier ones left out), the executors
    added or removed and the stages started or ended since.  Times are
    ms since the driver started (its own clock), so the driver's and the
    master's clocks never need to agree.  An attempt is an array of
    HEARTH_TLW_COLS integers in the order of hearth_tlw_col_t.

    The store (hearth_tllive_t) is the master's: it merges the reports
    into the last HEARTH_TL_MAX_TASKS attempts, HEARTH_TLW_MAX_EXECS
    executors and HEARTH_TL_MAX_STAGES stages (names, hosts and reasons
    cut to HEARTH_TL_MAX_TEXT bytes), so its memory is bounded whatever
    the driver sends, and draws them with timeline.h.  It is a pure
    structure: no clock, no socket.
*/
#ifndef HEARTH_LIBCORE_TIMELINE_LIVE_H
#define HEARTH_LIBCORE_TIMELINE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "libcore/timeline.h"

/* Executors in one report and in the store (no more can be drawn: each
   takes a lane at least). */
#define HEARTH_TLW_MAX_EXECS HEARTH_TL_MAX_LANES

/* The columns of an attempt on the wire. */
typedef enum {
    HEARTH_TLW_EXEC = 0, /* executor id */
    HEARTH_TLW_STAGE,    /* stage id */
    HEARTH_TLW_TASK,     /* task index in its stage */
    HEARTH_TLW_ATTEMPT,  /* attempt number */
    HEARTH_TLW_START,    /* when it started running (ms) */
    HEARTH_TLW_END,      /* when it ended (ms, at or after its start) */
    HEARTH_TLW_OUTCOME,  /* a hearth_tl_outcome_t */
    HEARTH_TLW_COLS,
} hearth_tlw_col_t;

/* (The rules of a `timeline` beyond its schema, each attempt's columns
   in range and its end not before its start, are cmdrules.c's.) */

/* The length of s cut to at most max bytes, never inside a UTF-8
   character: how the driver and the store cut names, hosts and
   reasons. */
size_t hearth_tllive_cut (const char *s, size_t max);

typedef struct hearth_tllive hearth_tllive_t;

/* An empty store (its attempts' ring grows as they come, up to its
   bound).  NULL on no memory. */
hearth_tllive_t *hearth_tllive_new (void);
/* Accepts NULL; nulls the pointer; keeps errno. */
void hearth_tllive_destroy (hearth_tllive_t **self_p);

/* Merge one report's `timeline` (borrowed, checked by the schema and
   hearth_tllive_check): its attempts after the ones kept (the oldest
   dropped past the bound, counted as cut), its executors and stages by
   id (a later report's fields over an earlier's).  0, or -1 on no
   memory (what was merged stays, the rest of the report is lost). */
int hearth_tllive_merge (hearth_tllive_t *self, const cJSON *timeline);

/* Attempts kept, and attempts left out (the driver's cut and the
   store's). */
size_t hearth_tllive_attempts (const hearth_tllive_t *self, size_t *cut);

/* The timeline as one <svg> element (timeline.h), its axis from the
   driver's start to late_ms after its last report (the time since that
   report arrived, on the reader's clock: a driver with nothing new sends
   none); the caller frees it.  NULL on no memory. */
char *hearth_tllive_svg (const hearth_tllive_t *self, int64_t late_ms);

#endif

/*  tlfeed.h - what the driver tells the master for the live timeline of
    the application's page: the task attempts that ended, the executors
    added and removed, the stages started and ended since its last
    progress summary (APPLICATION_PROGRESS's `timeline`,
    libcore/timeline_live.h; docs/operations.md "The pages", Timeline).

    Bounded whatever the task rate: the attempts not yet sent wait in a
    ring of HEARTH_TL_MAX_TASKS (the oldest give way, counted as cut and
    said so on the page), executors and stages in tables of
    HEARTH_TLW_MAX_EXECS and HEARTH_TL_MAX_STAGES.  Recording an attempt
    is a copy of 40 bytes into the ring; the JSON is made on the engine's
    tick, with the summary, at most once a second.  Times are ms since
    the feed was made (the driver's start), on the wall clock the event
    log uses.

    Ownership: the engine owns the feed (with a master only); the parts
    that record borrow it through work_tlfeed().  Every function accepts a
    NULL feed and then does nothing.  Engine thread only.
*/
#ifndef HEARTH_LIBHEARTH_TLFEED_H
#define HEARTH_LIBHEARTH_TLFEED_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "libhearth/evexec.h"
#include "libhearth/evtask.h"

typedef struct tlfeed tlfeed_t;

/* An empty feed whose times count from now_ms (the wall clock).  NULL
   on no memory. */
tlfeed_t *tlfeed_new (int64_t now_ms);
/* Accepts NULL; nulls the pointer; keeps errno. */
void tlfeed_destroy (tlfeed_t **self_p);

/* An attempt ended at now_ms (wall clock): e as the event log has it. */
void tlfeed_attempt (tlfeed_t *self, const evtask_end_t *e, int64_t now_ms);
/* Executor x added (reason NULL) or removed at now_ms, with why. */
void tlfeed_exec (tlfeed_t *self, const evexec_t *x, const char *reason,
                  int64_t now_ms);
/* Stage uid (named name) started (state NULL) or ended in state at
   now_ms. */
void tlfeed_stage (tlfeed_t *self, uint32_t uid, const char *name,
                   const char *state, int64_t now_ms);

/* Whether anything waits to be sent. */
bool tlfeed_pending (const tlfeed_t *self);
/* Add what waits as body's `timeline`, dated now_ms (wall clock).  0,
   or -1 on no memory (body may hold part of it: drop the message). */
int tlfeed_add (const tlfeed_t *self, cJSON *body, int64_t now_ms);
/* What tlfeed_add added was sent: it waits no more. */
void tlfeed_sent (tlfeed_t *self);

#endif

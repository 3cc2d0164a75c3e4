/*  stateview.h - the cluster's state as tables for people: the workers,
    applications, executors and drivers of a MASTER_STATE_RESPONSE body,
    as hearth-tail --state and hearth-admin print them.

    Rows can be filtered by state and by name (a shell glob, fnmatch(3)),
    and workers are shown by their short names (wnames.h) when a name set
    is given.  A worker's shown state is DRAINING while it is ALIVE and
    drained.  Applications show when they were submitted, how long they
    ran (or have run so far) and, once ended, their final state's reason.

    Everything here borrows what it is given and prints to out; nothing
    is kept.
*/
#ifndef HEARTH_LIBCORE_STATEVIEW_H
#define HEARTH_LIBCORE_STATEVIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "libcore/wnames.h"

/* How rows are chosen and shown. */
typedef struct {
    const char *state;      /* only rows shown in this state, or NULL */
    const char *name;       /* only rows whose name matches this glob (a
                               worker's: its id or its short name), or
                               NULL */
    hearth_wnames_t *names; /* short worker names (borrowed), or NULL: ids
                               in full */
    int64_t now_ms;         /* wall clock the state was taken at (its
                               time_ms): how long running ones have run */
    bool web;               /* a "web: URL" line under each worker that
                               serves pages (hearth-tail --state) */
} hearth_view_t;

/* Make every worker id of state (workers, executors, drivers) known to
   names.  0, or -1 when out of memory. */
int hearth_view_learn (hearth_wnames_t *names, const cJSON *state);

/* The tables, each with its heading line; the rows v selects.  Each
   returns how many rows it printed. */
size_t hearth_view_workers (FILE *out, const cJSON *state,
                            const hearth_view_t *v);
size_t hearth_view_apps (FILE *out, const cJSON *state, const hearth_view_t *v);
size_t hearth_view_executors (FILE *out, const cJSON *state,
                              const hearth_view_t *v);
size_t hearth_view_drivers (FILE *out, const cJSON *state,
                            const hearth_view_t *v);

/* Whether a row (a worker, application or driver object of the state)
   is one v selects. */
bool hearth_view_match (const hearth_view_t *v, const cJSON *row);

/* A `waiting` object ({code, reason}) as "REASON (CODE)" into buf (cut
   to size); false ("") when it is not one (the row does not wait). */
bool hearth_view_waiting_text (const cJSON *waiting, char *buf, size_t size);

/* A worker's state as shown: DRAINING for a drained ALIVE worker, else
   its state (borrowed; "-" when it has none). */
const char *hearth_view_worker_state (const cJSON *worker);

/* Readers of a state's objects: a number member (0 when absent), a
   string member ("-" when absent, borrowed), a worker id as v's names
   show it ("-" for NULL; borrowed). */
double hearth_view_num (const cJSON *o, const char *name);
const char *hearth_view_text (const cJSON *o, const char *name);
const char *hearth_view_worker_name (hearth_wnames_t *names, const char *id);

/* A wall-clock time (ms since the epoch; 0 or less: now) as
   2026-12-01T09:30:00.123Z. */
void hearth_view_stamp (double ms, char *buf, size_t size);

/* A duration as 850ms, 12.3s, 4m05s, 2h07m or 3d04h. */
void hearth_view_duration (int64_t ms, char *buf, size_t size);

/* The history's forms (hearth-history's text and pages), each "-" for a
   negative value (a figure the log lacks): a time (ms since the epoch)
   to the second, 2026-12-01T09:30:00Z; a duration as above; a run time
   in µs as 850us, 12.3ms, then as a duration. */
void hearth_view_second (int64_t ms, char *buf, size_t size);
void hearth_view_span (int64_t ms, char *buf, size_t size);
void hearth_view_run_us (int64_t us, char *buf, size_t size);

/* A "run" object of hearth-history's documents ({"p50_us", "p95_us",
   "max_us"}) as "P50 P95 MAX" run times, or "-" when it is not an
   object (no successful attempt). */
void hearth_view_run (const cJSON *run, char *buf, size_t size);

/* A "locality" object of hearth-history's stages ({"NODE_LOCAL": 8,
   "ANY": 2}: attempts by the level they were offered at) as
   "node 8 any 2" (no-pref, process, node, rack, any), or "-" when it is
   not an object (every attempt NO_PREF). */
void hearth_view_locality (const cJSON *locality, char *buf, size_t size);

/* A worker's custom resources and who holds each address (its
   `resources` and `resources_held`): "gpu 0 (APP/EXEC), 1 (free); fpga a
   (free)" into buf; "" when it offers none.  Cut to size. */
void hearth_view_resources_text (const cJSON *worker, char *buf, size_t size);
/* Amounts by name ({"gpu": 1}: "gpu=1") or addresses by name ({"gpu":
   ["0", "1"]}: "gpu=0,1"), space-separated, into buf; "" when o has
   none.  Cut to size. */
void hearth_view_amounts_text (const cJSON *o, char *buf, size_t size);

#endif

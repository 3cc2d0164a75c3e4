/*  dynalloc.h - dynamic allocation in the driver (cluster and
    local-cluster modes, --dynamic-allocation): on every tick, what the
    task set wants and what the executor set holds go to the schedule
    (dynalloc_sched.h); a new target goes to the master
    (REQUEST_EXECUTORS) and idle executors past the idle timeout are
    retired in the task set, then given back (KILL_EXECUTORS).

    It owns its idle bookkeeping; the task set and the executor set are
    borrowed on each call.  It tells its owner what to send by the
    callbacks given at creation. */
#ifndef HEARTH_LIBHEARTH_DYNALLOC_H
#define HEARTH_LIBHEARTH_DYNALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/taskset.h"
#include "libhearth/dynalloc_opts.h"
#include "libhearth/dynalloc_sched.h"
#include "libhearth/execs.h"

typedef struct dynalloc dynalloc_t;

/* What it asks its owner to send to the master. */
typedef struct {
    /* REQUEST_EXECUTORS {total, places}: places the n most wanted
       places of the tasks waiting to start, each with how many prefer it
       (borrowed; n may be 0). */
    void (*request) (void *arg, int total, const char *const *places,
                     const uint64_t *counts, size_t n);
    /* KILL_EXECUTORS {exec_ids} (borrowed, n of them), already retired
       in the task set. */
    void (*release) (void *arg, const int *exec_ids, size_t n);
    void *arg; /* given to every callback */
} dynalloc_cbs_t;

/* A new manager for conf (borrowed, read now), or NULL with err set. */
dynalloc_t *dynalloc_new (const hearth_conf_t *conf, const dynalloc_cbs_t *cbs,
                          hearth_error_t *err);
/* Free it.  Accepts NULL; nulls *self_p. */
void dynalloc_destroy (dynalloc_t **self_p);

/* The application (re-)registered: its target goes to the master again
   at the next tick (a master without a journal forgot it). */
void dynalloc_registered (dynalloc_t *self);

/* One look at ts and execs (borrowed) at now_ms (monotonic). */
void dynalloc_tick (dynalloc_t *self, hearth_taskset_t *ts,
                    const execs_t *execs, int64_t now_ms);

/* The target now (for tests and logs). */
int dynalloc_target (const dynalloc_t *self);

#endif

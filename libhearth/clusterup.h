/*  clusterup.h - when the driver's own local cluster is up.

    In local-cluster[W,C,M] the context starts the master and the workers
    itself; hearth_ctx_new() returns once the executors those workers will
    give the application have registered, or a bound has passed, so that
    a new application's first job does not spend its first tens of
    milliseconds waiting for workers, executors and their libraries to
    start (benchmark 23; docs/performance.md, "The first job").  The cost
    moves into the context's creation, which starts that cluster anyway
    (as Spark's waitBackendReady with minRegisteredResourcesRatio 1, for
    a bounded time).  local[N] waits the same way for the one executor it
    starts.

    How many to wait for follows the master's placement of plain
    settings: executor-cores (else a whole worker) and executor-memory
    per worker, total-executor-cores over them all.  With dynamic
    allocation or custom executor resources the count is not guessed: no
    wait.  A count the master does not reach costs the bound, never a
    failure. */
#ifndef HEARTH_LIBHEARTH_CLUSTERUP_H
#define HEARTH_LIBHEARTH_CLUSTERUP_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/conf.h"
#include "libhearth/execs.h"
#include "libhearth/local.h"

typedef struct {
    bool registered;     /* the master has registered the application */
    int expected;        /* executors to wait for; 0: no wait */
    int64_t deadline_ms; /* stop waiting then (monotonic ms) */
} clusterup_t;

/* Memory per executor for the master, in MiB: executor-memory, or in a
   local cluster where it is left at its default a whole worker's. */
int64_t clusterup_executor_memory_mb (const hearth_conf_t *conf,
                                      const local_setup_t *setup);

/* The executors a local cluster of setup will give an application of
   conf (borrowed), 0 when none is to be waited for. */
int clusterup_expected (const hearth_conf_t *conf, const local_setup_t *setup);

/* Start waiting at now_ms for the executors clusterup_expected counts. */
void clusterup_start (clusterup_t *self, const hearth_conf_t *conf,
                      const local_setup_t *setup, int64_t now_ms);

/* Whether the wait is over: that many executors of execs (borrowed) have
   registered, or the bound has passed. */
bool clusterup_ready (const clusterup_t *self, const execs_t *execs,
                      int64_t now_ms);

#endif

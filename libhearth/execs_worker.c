/*  execs_worker.c - a worker lost with everything on it (the master's
    EXECUTOR_UPDATED worker_lost); see execs_worker_lost in execs.h.

    The worker's executors are gone, and so is its block server with
    every map output it held: the outputs are dropped and their map tasks
    resubmitted at once, and the reduce attempts running elsewhere that
    read them are killed to wait for them (work_server_lost), rather than
    each finding out by itself after its fetch's silence timeouts (4
    tries of 10 s on a host that does not answer).  Spark does the same
    when it learns that a host is lost (SPARK-19753).
*/
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/intkeys.h"
#include "libcore/log.h"
#include "libhearth/execs.h"
#include "libhearth/execs_int.h"
#include "libhearth/shuffle.h"

/* An executor of worker_id ("" matches none), or NULL. */
static exec_t *
s_on_worker (execs_t *self, const char *worker_id)
{
    for (exec_t *x = zhashx_first (self->by_id); x && *worker_id;
         x = zhashx_next (self->by_id))
        if (streq (x->worker, worker_id))
            return x;
    return NULL;
}

void
execs_worker_lost (execs_t *self, int exec_id, const char *worker_id,
                   const char *reason)
{
    exec_t *named = zhashx_lookup (self->by_id, hearth_intkey (exec_id));
    char worker[HEARTH_ID_MAX + 1]; /* a copy: named goes below */
    snprintf (worker, sizeof worker, "%s",
              worker_id && *worker_id ? worker_id
              : named                 ? named->worker
                                      : "");
    shuffle_servers_t *servers = work_servers (self->work);
    uint32_t server = shuffle_servers_of_worker (servers, worker);
    if (server == SHUFFLE_NO_SERVER && named)
        server = named->server;
    /* its executors take nothing more, not even while the others are
       told lost one by one (each loss offers what is free) */
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id))
        if (x->registered
            && (x == named || (*worker && streq (x->worker, worker))))
            hearth_taskset_retire_executor (self->ts, x->exec_id);
    char why[HEARTH_ID_MAX + 32];
    snprintf (why, sizeof why, "worker %s lost", *worker ? worker : "?");
    work_server_lost (self->work, server, why);
    shipspread_lost (self->spread, server);
    if (named)
        execs_lost (self, exec_id, reason);
    exec_t *x;
    while ((x = s_on_worker (self, worker)))
        execs_lost (self, x->exec_id, reason);
    self->cbs.changed (self->cbs.arg); /* the kills and the re-runs */
}

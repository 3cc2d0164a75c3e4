/*  admin.h - the handlers of what an operator asks the master about
    workers (hearth-admin drain, resume, decommission): drain a worker, so
    that nothing new is placed on it while what runs there keeps running,
    resume it, or decommission it (it leaves once its work is done:
    docs/operations.md); and the worker's own notice that it leaves.  Each
    takes rid and msg borrowed; the operator's are answered on rid with
    the matching *_RESPONSE. */
#ifndef HEARTH_MASTER_ADMIN_H
#define HEARTH_MASTER_ADMIN_H

#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"

/* DRAIN_WORKER: mark the worker drained (journaled), with the reason. */
void master_drain_worker (void *arg, const hearth_from_t *from,
                          hearth_msg_t *msg);

/* RESUME_WORKER: the worker takes new work again. */
void master_resume_worker (void *arg, const hearth_from_t *from,
                           hearth_msg_t *msg);

/* DECOMMISSION_WORKER: mark the worker DECOMMISSIONING (journaled), tell
   its executors' drivers (EXECUTOR_DECOMMISSIONING) and the worker
   (DECOMMISSION). */
void master_decommission_worker (void *arg, const hearth_from_t *from,
                                 hearth_msg_t *msg);

/* WORKER_DECOMMISSIONING, from the worker itself (its connection): the
   same record and notices, without DECOMMISSION. */
void master_worker_decommissioning (void *arg, const hearth_from_t *from,
                                    hearth_msg_t *msg);

#endif

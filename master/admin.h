/*  admin.h - the handlers of what an operator asks the master about
    workers (hearth-admin drain, resume): drain a worker, so that nothing
    new is placed on it while what runs there keeps running, and resume
    it.  Each takes rid and msg borrowed and answers rid with the matching
    *_RESPONSE.  The fuller decommission (moving work off a worker) is
    issue 18's. */
#ifndef HEARTH_MASTER_ADMIN_H
#define HEARTH_MASTER_ADMIN_H

#include <czmq.h>

#include "libcore/proto.h"
#include "master/master.h"

/* DRAIN_WORKER: mark the worker drained (journaled), with the reason. */
void master_drain_worker (master_t *m, zframe_t *rid, hearth_msg_t *msg);

/* RESUME_WORKER: the worker takes new work again. */
void master_resume_worker (master_t *m, zframe_t *rid, hearth_msg_t *msg);

#endif

/*  drvlog.h - the relay of DRIVER_LOG: a cluster-mode driver's output
    stays on the worker that ran it; hearth-submit --log asks the master,
    which asks that worker and relays its answer.  The requests in flight
    are the relay's own context (drvlog_t, m->logs). */
#ifndef HEARTH_MASTER_DRVLOG_H
#define HEARTH_MASTER_DRVLOG_H

#include <stdint.h>

#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"

typedef struct drvlog drvlog_t;

/* A relay with no request in flight, or NULL on no memory. */
drvlog_t *drvlog_new (void);

/* Forget every request in flight (unanswered) and free the relay.
   Accepts NULL and a NULL *self_p; sets *self_p to NULL; keeps errno. */
void drvlog_destroy (drvlog_t **self_p);

/* DRIVER_LOG's handler (rid and msg borrowed), from hearth-submit: ask
   the driver's worker, or refuse at once (no such driver, not launched,
   its worker gone, too many requests in flight). */
void master_driver_log (void *arg, const hearth_from_t *from,
                        hearth_msg_t *msg);

/* DRIVER_LOG_RESPONSE's handler (rid and msg borrowed), from a worker:
   relay it, with its data frame, to whoever asked. */
void master_driver_log_response (void *arg, const hearth_from_t *from,
                                 hearth_msg_t *msg);

/* Periodic: refuse the requests whose worker did not answer in time.
   now is monotonic. */
void master_driver_logs_tick (master_t *m, int64_t now);

#endif

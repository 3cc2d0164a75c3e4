/*  decom.h - the worker's graceful decommission (issue 18): on SIGTERM or
    the master's DECOMMISSION it tells the master at once
    (WORKER_DECOMMISSIONING), takes no new executor or driver, and waits
    for its executors to end (their drivers stop them once idle), for its
    cluster-mode drivers to end and for the map outputs it serves to be
    no longer needed (their applications ended), up to its timeout; then
    it stops as on SIGINT (worker_stop: WORKER_STOPPING, its children
    stopped) and exits.  Called by main.c (signals, the tick) and link.c
    (the master's DECOMMISSION, a registration); it calls children,
    drivers and the block server, and sends on the link's socket itself
    (WORKER_DECOMMISSIONING, WORKER_STOPPING). */
#ifndef HEARTH_WORKER_DECOM_H
#define HEARTH_WORKER_DECOM_H

#include <stdint.h>

#include "worker/worker.h"

/* The default of --decommission-timeout: within systemd's TimeoutStopSec
   (60 s in systemd/hearth-worker.service) with room for the stop. */
#define WORKER_DECOM_TIMEOUT_DEFAULT "30s"

/* Start leaving, for reason (copied, e.g. "SIGTERM"), within timeout_ms
   (0: stop at once, as worker_stop).  Again while leaving: only an
   earlier deadline changes it. */
void worker_decom_start (worker_t *w, const char *reason, int64_t timeout_ms);

/* Tell the master (again: after a registration) that this worker is
   leaving, with the time left; nothing when not leaving. */
void worker_decom_tell (worker_t *w);

/* Periodic: leave once nothing is left to wait for, or the deadline has
   passed. */
void worker_decom_tick (worker_t *w, int64_t now);

/* Stop now for why (copied into the master's WORKER_STOPPING): the master
   is told, executors and drivers get SIGTERM, then SIGKILL after the
   grace; the loop ends once they are reaped. */
void worker_stop (worker_t *w, const char *why);

#endif

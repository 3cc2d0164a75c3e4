/*  waiting.h - why applications and cluster-mode drivers wait, and the
    end of those that no live worker can ever hold.

    After the scheduling passes (cluster.c), master_waiting_report() gives
    each application and driver of the first pass its `waiting` object,
    {code, reason} (libcore/allocwhy.h has the codes):

    - an application that wants cores and has no executor (WAITING, or
      RUNNING after losing every executor), or a driver still unplaced:
      first whether any live worker (ALIVE and not leaving) could ever
      hold one executor of it (the driver): no_worker, too_many_cores,
      too_much_memory, resource_missing, no_worker_fits, judged from the
      workers' whole cores, memory and addresses; then key_limit when its
      key's core limit held it back in the pass; else cluster_full,
      naming the applications and drivers that hold cores, oldest first;
    - a running application that its key's limit held back: key_limit
      ("it runs on fewer cores than it asks");
    - the others: none.

    The application's driver hears each new reason (APPLICATION_WAITING),
    MASTER_STATE and the pages show it, and the master logs it.

    A never code starts the record's clock (unplaceable_ms); any other
    stops it, so it starts again from zero once a worker that could hold
    it registers.  A clock older than --unschedulable-timeout (0: never)
    ends the application FAILED ("unschedulable for 2m
    (--unschedulable-timeout): asks 64 GiB per executor; the largest
    worker offers 2 GiB"), its driver told by APPLICATION_REMOVED, or
    the driver FAILED with that error (not relaunched, even supervised:
    no worker could take it).  The clock is not journaled: after a
    restart it starts again once the master has recovered. */
#ifndef HEARTH_MASTER_WAITING_H
#define HEARTH_MASTER_WAITING_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/alloc.h"
#include "master/limits.h"
#include "master/master.h"
#include "master/registry.h"

/* The first pass's records and what the allocator said of them (all
   borrowed). */
typedef struct {
    reg_app_t *const *arec;               /* its applications */
    const hearth_alloc_app_t *apps;       /* their views, same index */
    size_t napps;                         /* entries */
    const bool *apps_capped;              /* their key's limit held them back
                                             (alloc.h), or NULL: none */
    reg_driver_t *const *drec;            /* its unplaced drivers */
    const hearth_alloc_driver_t *drivers; /* their views, same index */
    size_t ndrivers;                      /* entries */
    const bool *drivers_capped;           /* as apps_capped */
    limits_pass_t *limits;                /* the pass's keys' groups */
} waiting_pass_t;

/* After the passes were applied to m's registry: each record of pass
   gets its waiting; those unplaceable past --unschedulable-timeout end
   FAILED.  Sets m->waiting_due_ms (the next such end, or 0). */
void master_waiting_report (master_t *m, const waiting_pass_t *pass);

/* Before a pass: true when nothing changed since the last one and only
   an unschedulable clock is running, not yet due (the pass would say
   the same again). */
bool master_waiting_asleep (master_t *m);

/* After a pass: a clock due later keeps the tick scheduling (m->held). */
void master_waiting_hold (master_t *m);

#endif

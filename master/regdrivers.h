/*  regdrivers.h - the registry's cluster-mode drivers (regdrivers.c):
    lookup, submission, placement and states.  The registry itself and
    its types are registry.h's; registry_driver_final() stays there, for
    the registry's own use.
*/
#ifndef HEARTH_MASTER_REGDRIVERS_H
#define HEARTH_MASTER_REGDRIVERS_H

#include "master/registry.h"

/* Lookup (borrowed, NULL when unknown or forgotten). */
reg_driver_t *registry_driver (registry_t *self, const char *id);
/* Drivers not yet ended (SUBMITTED, RUNNING, RELAUNCHING), in submission
   order: the allocator's FIFO. */
zlistx_t *registry_drivers (registry_t *self);
/* Ended drivers, oldest first (at most retained_apps of them). */
zlistx_t *registry_drivers_completed (registry_t *self);

/* A new driver, SUBMITTED, waiting for a worker.  NULL on no memory. */
reg_driver_t *registry_driver_submit (registry_t *self,
                                      const registry_driver_desc_t *desc);

/* Place d on w (the master sends LAUNCH_DRIVER): it takes w's cores and
   memory, and its launch count goes up.  key (borrowed; NULL or "" without
   CURVE) is the public key made for this launch, d->key from now on.
   now_ms is monotonic. */
void registry_driver_launch (registry_t *self, reg_driver_t *d, reg_worker_t *w,
                             int64_t now_ms, const char *key);

/* Apply u to d.  RUNNING records the pid.  RELAUNCHING and the final
   states give back the worker's resources (d->worker becomes NULL); a
   final state drops its files (bytes stays) and moves d to the completed
   list, where the oldest beyond the retention are forgotten (d stays valid
   until the registry's next change).  RELAUNCHING with u->failure counts one
   more failure in a row (d->failures, for the back-off); registry_driver_ran
   resets it. */
void registry_driver_set_state (registry_t *self, reg_driver_t *d,
                                const registry_driver_update_t *u);

/* d ran long enough that its failures in a row start again from 0. */
void registry_driver_ran (registry_t *self, reg_driver_t *d);

/* KILL_DRIVER arrived for d: its next end is KILLED, and a supervised
   driver is not launched again. */
void registry_driver_kill_requested (registry_t *self, reg_driver_t *d);

/* Why d waits unplaced (code: allocwhy.h's name, static; why copied),
   or NULL for both; cleared when it is placed or ends.  A change is
   published (a `driver` event `waiting`), not journaled. */
void registry_driver_set_waiting (registry_t *self, reg_driver_t *d,
                                  const char *code, const char *why);

/* The clock of d's being unplaceable, as an application's
   (registry_app_unplaceable). */
int64_t registry_driver_unplaceable (registry_t *self, reg_driver_t *d,
                                     bool never, int64_t now_ms);

/* d's application registered (REGISTER_APPLICATION with its driver_id). */
void registry_driver_set_app (registry_t *self, reg_driver_t *d,
                              const char *app_id);

#endif

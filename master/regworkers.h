/*  regworkers.h - what the registry keeps of a worker beyond its
    registration and its death (regworkers.c): an operator's drain, its
    leaving (decommission), the health of its launches, and whose its id
    is (the key it registered with).  The registry itself, its types and
    a worker's registration are registry.h's.
*/
#ifndef HEARTH_MASTER_REGWORKERS_H
#define HEARTH_MASTER_REGWORKERS_H

#include "master/registry.h"

/* Drain a worker (draining true; reason copied, NULL: none) or resume it
   (false): the scheduler places no new executor or driver on a drained
   worker, and what runs there keeps running.  The flag is the record's:
   it is journaled, survives the worker's death and re-registration under
   its id, and goes when the record is forgotten.  Publishes a worker event
   ("draining" or "resumed").  Returns 1, or 0 changing nothing when the
   worker was so already, or -1 when out of memory. */
int registry_worker_drain (registry_t *self, reg_worker_t *w, bool draining,
                           const char *reason);

/* The worker is leaving (its WORKER_DECOMMISSIONING, or an operator's
   DECOMMISSION_WORKER), by deadline_ms (wall clock; 0: not told), for
   reason (copied): the scheduler leaves it out, the change is journaled
   and published ("decommissioning").  Again on a leaving worker, only an
   earlier deadline changes it.  Returns 1, 0 changing nothing, or -1
   when out of memory. */
int registry_worker_decommission (registry_t *self, reg_worker_t *w,
                                  const char *reason, int64_t deadline_ms);

/* Launches on a worker (regworkers.c).  A worker whose launches fail
   (it reports an executor FAILED before RUNNING: no work dir, a full
   disk) backs off: nothing is placed on it for a hold that doubles with
   each failure in a row, from half a second up to 30 s, and after 3 in a
   row it is unhealthy, with the last failure's reason, until a launch
   succeeds.  The master places on such a worker only what healthy
   workers cannot take, one executor at a time (a probe,
   registry_worker_probe).  Health is the master's own view: it is not
   journaled, and a registration starts it afresh. */

/* A launch on w failed for reason (borrowed), at now_ms (monotonic).
   Returns true when w has just become unhealthy (a `worker` event
   "unhealthy" with the reason). */
bool registry_worker_launch_failed (registry_t *self, reg_worker_t *w,
                                    const char *reason, int64_t now_ms);

/* A launch on w succeeded (its executor RUNNING): its failures in a row
   end.  Returns true when w was unhealthy and is healthy again (a
   `worker` event "healthy"). */
bool registry_worker_launch_ok (registry_t *self, reg_worker_t *w);

/* An executor is being placed on w while its launches fail (a probe):
   nothing more goes there until its result, or the hold, passes. */
void registry_worker_probe (registry_t *self, reg_worker_t *w, int64_t now_ms);

/* What a registration under w's id with key (Z85; "" without keys) is,
   as its id belongs to the key w registered with (docs/security.md,
   "Worker ids and keys").  w_key_admitted: w's key is still a worker key
   (--curve-allow-workers).  Pure: the caller logs, refuses or registers. */
typedef enum {
    REG_KEY_SAME,  /* w's own key, or no keys at all */
    REG_KEY_FIRST, /* w has no key (a journal of an older master, or a
                      master without keys): the id takes this one */
    REG_KEY_NEW,   /* another key, and w's is no longer a worker key (a
                      rotation): the id moves to this one */
    REG_KEY_OTHER, /* another key, while w's is still a worker key: the id
                      is not this key's, refused */
} reg_worker_key_t;
reg_worker_key_t registry_worker_key (reg_worker_t *w, const char *key,
                                      bool w_key_admitted);

#endif

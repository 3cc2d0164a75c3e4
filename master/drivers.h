/*  drivers.h - the life of cluster-mode drivers in hearth-master (the
    ones hearth-submit --deploy-mode cluster hands it): launching one on
    the worker the allocator chose, applying what workers report of them,
    relaunching a supervised one that failed, killing one, and ending a
    driver's application with it.  The requests of hearth-submit about
    drivers are drvsubmit.h's, the relay of their logs drvlog.h's; the
    records themselves are the registry's (registry.h). */
#ifndef HEARTH_MASTER_DRIVERS_H
#define HEARTH_MASTER_DRIVERS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"
#include "master/registry.h"

/* A new, empty list for m->orphan_apps (the caller destroys it with
   zlistx_destroy), or NULL on no memory. */
zlistx_t *master_orphan_list_new (void);

/* Add to body (a LAUNCH_EXECUTOR's or LAUNCH_DRIVER's) who submitted
   what it starts: owner (the key, borrowed; "" without CURVE: nothing
   added), the name of its key file and the user that file names, when
   the allow directories still have them (docs/security.md, "Tasks run as
   their submitter"). */
void master_add_owner (master_t *m, cJSON *body, const char *owner);

/* Place d (borrowed; SUBMITTED or RELAUNCHING, unplaced) on w, which the
   allocator chose, and send w LAUNCH_DRIVER: its spec, a copy of its
   files, and, with CURVE, the secret half of a key pair made for this
   launch, whose public half the master admits as d's while it is placed
   (drvkeys.h). */
void master_driver_place (master_t *m, reg_driver_t *d, reg_worker_t *w);

/* DRIVER_STATE_CHANGED's handler (rid and msg borrowed): a worker says
   how the driver it runs is doing. */
void master_driver_state_changed (void *arg, const hearth_from_t *from,
                                  hearth_msg_t *msg);

/* REGISTER_APPLICATION named driver_id (borrowed; may be NULL): link the
   driver to app (borrowed), when the sender (who spoke with key,
   borrowed) is that driver (it speaks from the worker it runs on, and app
   is its submitter's). */
void master_driver_app_registered (master_t *m, reg_app_t *app,
                                   const char *driver_id, const char *key);

/* The observer's part: d (borrowed) changed.  When it ended, its
   application is queued to end on the next master_drivers_settle(). */
void master_driver_changed (master_t *m, reg_driver_t *d);

/* End the applications of drivers that ended (deferred from the
   observer, so that no record changes inside another's change). */
void master_drivers_settle (master_t *m);

/* A worker w (borrowed) registered listing drivers (borrowed; running, or
   ended while it was away): apply their ends, kill what it should not
   run, and end what the master placed there that it no longer runs. */
void master_drivers_reconcile (master_t *m, reg_worker_t *w,
                               const cJSON *drivers);

/* Add to *cores and *memory what the running drivers w lists (borrowed)
   use that the master did not place there. */
void master_drivers_foreign (master_t *m, reg_worker_t *w, const cJSON *drivers,
                             int *cores, int64_t *memory);

/* The active driver whose application is app_id (borrowed), or NULL. */
reg_driver_t *master_driver_of_app (master_t *m, const char *app_id);

/* Kill d (borrowed), which has not ended: it is not relaunched, its
   application ends KILLED, its worker stops it.  text (size bytes) gets
   what was done. */
void master_driver_kill (master_t *m, reg_driver_t *d, char *text, size_t size);

/* Kill app (borrowed), which has not ended, as KILL_APPLICATION does:
   it ends KILLED ("killed by request"), and the cluster-mode driver
   that runs it, if any, is killed too and not relaunched (as with
   master_driver_kill).  app may be gone when this returns. */
void master_app_kill (master_t *m, reg_app_t *app);

/* Copy member name of from (borrowed), if there, into to. */
void master_json_copy (cJSON *to, const cJSON *from, const char *name);

#endif

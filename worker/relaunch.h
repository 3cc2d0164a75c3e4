/*  relaunch.h - the driver launches that wait for an older launch of the
    same driver to end.

    The master sends LAUNCH_DRIVER launch N+1 for a driver it considers
    gone (its worker timed out, the driver failed) while the worker may
    still be stopping launch N (a driver that takes its time over
    SIGTERM).  Two launches of one driver never run together, and the
    newer one is not dropped: drivers.c keeps a copy of it here and starts
    it once launch N has been reaped.  One launch waits per driver, the
    newest.

    The set owns its copies (the LAUNCH_DRIVER message they came from is
    gone by then): the strings, the JSON of args, files, env and conf,
    and the files' frames.
*/
#ifndef HEARTH_WORKER_RELAUNCH_H
#define HEARTH_WORKER_RELAUNCH_H

#include "worker/drivers.h"

typedef struct relaunches relaunches_t;

/* A new, empty set.  NULL on no memory. */
relaunches_t *relaunches_new (void);

/* Free the set and its copies.  Accepts NULL and a NULL *self_p; nulls
   the pointer; keeps errno. */
void relaunches_destroy (relaunches_t **self_p);

/* Keep a copy of l (borrowed), in place of any launch of that driver
   waiting already.  Returns 0, or -1 on no memory (nothing kept). */
int relaunches_put (relaunches_t *self, const drivers_launch_t *l);

/* The launch of driver_id that waits (borrowed: valid until it is
   dropped or replaced), or NULL. */
const drivers_launch_t *relaunches_get (relaunches_t *self,
                                        const char *driver_id);

/* Forget the launch of driver_id that waits, if any. */
void relaunches_drop (relaunches_t *self, const char *driver_id);

/* The first waiting launch, in no particular order (borrowed), or NULL:
   to drop them all, one at a time. */
const drivers_launch_t *relaunches_first (relaunches_t *self);

#endif

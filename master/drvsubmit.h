/*  drvsubmit.h - the handlers of what hearth-submit asks the master about
    cluster-mode drivers: submit one (its files ride along as frames),
    its status, kill it.  Each takes rid and msg borrowed and answers rid
    with the matching *_RESPONSE. */
#ifndef HEARTH_MASTER_DRVSUBMIT_H
#define HEARTH_MASTER_DRVSUBMIT_H

#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"

/* SUBMIT_DRIVER: check the files (names unique, the application one of
   them, at most --max-submit-size in all) and record a new driver,
   SUBMITTED, for the allocator to place. */
void master_submit_driver (void *arg, const hearth_from_t *from,
                           hearth_msg_t *msg);

/* DRIVER_STATUS: where the driver is and how it is doing. */
void master_driver_status (void *arg, const hearth_from_t *from,
                           hearth_msg_t *msg);

/* KILL_DRIVER: kill a driver that has not ended (drivers.h). */
void master_kill_driver (void *arg, const hearth_from_t *from,
                         hearth_msg_t *msg);

#endif

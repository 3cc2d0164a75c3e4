/*  handlers.h - hearth-master's dispatch of what arrives on its ROUTER:
    one table of {command, handler} rows (handlers.c), a row for every
    command the master accepts. */
#ifndef HEARTH_MASTER_HANDLERS_H
#define HEARTH_MASTER_HANDLERS_H

#include <stdint.h>

#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"

/* Handle one message from the ROUTER: from (its routing id and the key
   it spoke with, "" without CURVE) and msg are borrowed, and the handler
   may not keep them.  Its row of the table (libcore/dispatch.h) is
   called once authz.c's table lets the sender send it.  Any message from
   a known peer is a sign of life.  Never fails: errors are answered or
   logged. */
void master_dispatch (master_t *m, const hearth_from_t *from,
                      hearth_msg_t *msg);

/* Dispatch the held claims whose time has come at now (monotonic), as
   if they arrived now, each as its sender (claims.h). */
void master_dispatch_held (master_t *m, int64_t now);

#endif

/*  handlers.h - hearth-master's dispatch of what arrives on its ROUTER:
    one table of {command, handler} rows (handlers.c), a row for every
    command the master accepts. */
#ifndef HEARTH_MASTER_HANDLERS_H
#define HEARTH_MASTER_HANDLERS_H

#include <stdint.h>

#include <czmq.h>

#include "libcore/proto.h"
#include "master/master.h"

/* Handle one message from the ROUTER: rid and msg are borrowed, and the
   handler may not keep them.  Any message from a known peer is a sign of
   life.  Never fails: errors are answered or logged. */
void master_dispatch (master_t *m, zframe_t *rid, hearth_msg_t *msg);

/* Dispatch the held claims whose time has come at now (monotonic), as
   if they arrived now, each as its sender (claims.h). */
void master_dispatch_held (master_t *m, int64_t now);

#endif

/*  dispatch.h - one way to hand a message to its handler.

    Each socket a program reads has a table of {command, handler} rows
    (docs/protocol.md names each command's handler on its "Handled by:"
    line, and tests/unit/test_spec checks the tables against it).  The
    table is looked up by the message's command, and the handler called
    with its owner's context, the sender and the message: every handler
    of every table has that one shape.

    The sender is an argument, never a field of the owner's context set
    around the call (flux-core's message handlers, redis's client): what
    a handler needs to know of who sent the message (where to answer,
    the key it spoke with) it is given, and so are the functions it
    passes it to (the master's authorization, master/authz.h). */
#ifndef HEARTH_LIBCORE_DISPATCH_H
#define HEARTH_LIBCORE_DISPATCH_H

#include <stddef.h>

#include <czmq.h>

#include "libcore/proto.h"

/* Who sent the message being handled (every member borrowed for the
   call). */
typedef struct {
    zframe_t *rid;   /* its routing id on a ROUTER, or NULL: the one peer
                        of a DEALER */
    const char *key; /* the CURVE public key it spoke with (Z85), or "":
                        none (no keys, or a DEALER's peer) */
    void *peer;      /* what the reader knows of it (the reader's own type),
                        or NULL */
} hearth_from_t;

/* A handler: self is the table's owner's context, from the sender, msg
   the message (borrowed: the reader destroys it after the call). */
typedef void (hearth_handler_fn) (void *self, const hearth_from_t *from,
                                  hearth_msg_t *msg);

/* One row of a table. */
typedef struct {
    hearth_cmd_t cmd;           /* what arrived */
    hearth_handler_fn *handler; /* what to do */
} hearth_handler_t;

/* A table and its number of rows, for the functions below. */
#define HEARTH_HANDLERS(table) (table), (sizeof (table) / sizeof (table)[0])

/* The row of cmd in table (n rows, borrowed), or NULL: the table has
   none.  For a reader that checks more before it calls (the master asks
   who may send it first). */
const hearth_handler_t *hearth_handler_find (const hearth_handler_t *table,
                                             size_t n, hearth_cmd_t cmd);

/* Call the handler of msg's command in table (n rows) with self, from
   and msg.  Returns 0, or -1 when the table has no row for it: nothing
   was called, and the reader answers or logs it. */
int hearth_dispatch (const hearth_handler_t *table, size_t n, void *self,
                     const hearth_from_t *from, hearth_msg_t *msg);

#endif

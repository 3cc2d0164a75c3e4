/*  master_watch.h - why the driver's link cannot reach the master, said
    while it tries (libcore/connwatch.h does the diagnosis): the monitor
    of the link's newest socket, served on the link's loop, until the
    first registration.

    Warnings are logged here ("...; still trying"); a cause that waiting
    cannot mend (a host that does not resolve) goes to the link through
    the callback given at creation.
*/
#ifndef HEARTH_DRIVER_MASTER_WATCH_H
#define HEARTH_DRIVER_MASTER_WATCH_H

#include <stdbool.h>

#include <czmq.h>

#include "libcore/curve.h"
#include "libcore/loop.h"

typedef struct master_watch master_watch_t;

/* Called with the cause (borrowed) when waiting cannot mend it; returns
   -1 when that ends the loop (start-up failed), 0 when the link goes
   on (another master of its list). */
typedef int (master_watch_fatal_fn) (void *arg, const char *text);

/* Watch sock (borrowed: destroy the watch first), about to connect to
   url with curve's keys, on loop (borrowed).  NULL when it cannot be
   watched (logged: the link works without). */
master_watch_t *master_watch_new (hearth_loop_t *loop, zsock_t *sock,
                                  const char *url, const hearth_curve_t *curve,
                                  master_watch_fatal_fn *fatal, void *arg);
/* Stop watching (on_loop: the loop still exists, and stops serving the
   monitor; false once it is destroyed).  Accepts NULL and a NULL
   *self_p; nulls the pointer; keeps errno. */
void master_watch_destroy (master_watch_t **self_p, bool on_loop);
/* Say what time alone shows (no answer, no handshake). */
void master_watch_tick (master_watch_t *self);
/* The last cause said (borrowed), or NULL. */
const char *master_watch_last (const master_watch_t *self);

#endif

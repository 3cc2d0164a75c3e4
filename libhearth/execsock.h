/*  execsock.h - the ROUTER the executors of an application connect to:
    bound on the driver's host (driver-host, else the address that faces
    the master) at a port the kernel picks, with CURVE and throw-away keys
    of the application's when the cluster is secure, and served by a
    reader of the caller's on the engine's loop.  It is ZMQ_ROUTER_MANDATORY:
    a message to an executor not connected fails with EHOSTUNREACH, one to
    an executor whose queue is full with EAGAIN, instead of being dropped
    without a word.  The executor set (execs.c) owns one.
*/
#ifndef HEARTH_LIBHEARTH_EXECSOCK_H
#define HEARTH_LIBHEARTH_EXECSOCK_H

#include <stdbool.h>

#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/loop.h"

typedef struct execsock execsock_t;

/* Bind towards (a tcp:// URL, or NULL: loopback) as conf says, and serve
   it on loop (borrowed) with reader(arg).  NULL with err set. */
execsock_t *execsock_new (const hearth_conf_t *conf, hearth_loop_t *loop,
                          const char *towards, bool secure,
                          hearth_loop_reader_fn *reader, void *arg,
                          hearth_error_t *err);
/* Stop serving it on its loop and close it (before the loop goes); then
   free it.  Accepts NULL; nulls the pointer. */
void execsock_close (execsock_t **self_p);
/* Close it without touching the loop (gone already), and free it.
   Accepts NULL; nulls the pointer; keeps errno. */
void execsock_destroy (execsock_t **self_p);

/* The socket (borrowed). */
zsock_t *execsock_router (const execsock_t *self);
/* tcp://HOST:PORT where it listens (borrowed). */
const char *execsock_url (const execsock_t *self);
/* Its CURVE public key, Z85 (borrowed), or NULL when not secure. */
const char *execsock_public_key (const execsock_t *self);

#endif

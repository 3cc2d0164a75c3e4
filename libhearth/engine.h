/*  engine.h - the driver's engine: the thread that owns every socket, as
    the context (ctx.c) sees it.

    The engine is the root of the driver's parts: it holds the work in
    progress (work.c), the executor set (execs.c), the link to the master
    (master.c) and the local modes (local.c), calls them, and hears from
    them through the callbacks it gives each at creation.  See internal.h
    for the module map and for what is shared with the user's thread.
*/
#ifndef HEARTH_LIBHEARTH_ENGINE_H
#define HEARTH_LIBHEARTH_ENGINE_H

#include <czmq.h>

#include "libhearth/internal.h"

typedef struct engine engine_t;

/* An engine for ctx's settings (ctx->conf, borrowed: it outlives the
   engine); nothing starts until engine_run.  NULL on no memory. */
engine_t *engine_new (hearth_ctx_t *ctx);
/* The engine thread's body: start up, signal pipe (0: started, 1:
   failed, see engine_error), then serve pipe until "$TERM" (SUBMIT and
   CANCEL carry a hearth_job_t pointer, borrowed until the job ends).
   The pipe stays the caller's. */
void engine_run (engine_t *self, zsock_t *pipe);
/* Free the engine, after engine_run has returned (or was never called).
   Accepts NULL; keeps errno. */
void engine_destroy (engine_t **self_p);
/* Why start-up failed (borrowed), or NULL. */
const char *engine_error (const engine_t *self);
/* What the executors are shipped (borrowed), once started, or NULL. */
struct ship *engine_ship (engine_t *self);
/* The application's id (borrowed), once started. */
const char *engine_app_id (const engine_t *self);

#endif

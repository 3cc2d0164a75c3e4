/*  shuffle.h - the worker's block server: the map outputs that this
    node's executors wrote, served to the reduce tasks of any node.

    A map task's executor writes its output under the worker's shuffle
    directory, ROOT/APP_ID/SHUFFLE/MAP.ATTEMPT (the data) and
    MAP.ATTEMPT.index (libcore/partfmt.h), so that outputs outlive the
    executor that wrote them.  This module binds a ROUTER (with CURVE and
    the worker's own key pair when the worker has keys), answers
    FETCH_BLOCK with pieces of one partition's stored bytes (BLOCK_DATA),
    and removes an application's outputs when the master says it ended.

    A request must carry its application's token, the secret the master
    gave this worker in LAUNCH_EXECUTOR: whoever holds no executor token of
    the application reads nothing of its data.  The tokens are the
    worker's table of applications (apps.h): learned at an application's
    first launch here, never replaced, forgotten with the application.
*/
#ifndef HEARTH_WORKER_SHUFFLE_H
#define HEARTH_WORKER_SHUFFLE_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/error.h"
#include "libcore/loop.h"
#include "worker/apps.h"

typedef struct shuffle shuffle_t;

/* Where and how the server runs (borrowed by shuffle_new). */
typedef struct {
    const char *root;     /* the shuffle directory: WORK_DIR/shuffle */
    const char *work_dir; /* WORK_DIR: the applications' caches of shipped
                             files, WORK_DIR/APP_ID/.ship, are served from
                             there too (shipserve.h), or NULL: none */
    const char *host;     /* the address to advertise */
    const char *bind;     /* the address to bind: NULL for host, "*" for all */
    int port;             /* its port; 0: any free one */
    zcert_t *cert;        /* the worker's key pair for CURVE (borrowed, outlives
                             the server), or NULL: no encryption */
    hearth_loop_t *loop;  /* served from this loop (borrowed) */
    apps_t *apps;         /* the applications' tokens (borrowed, outlives the
                             server) */
    uint64_t cache_disk;  /* persisted map outputs kept (persisted.h), at
                             most; 0: no limit */
    bool shared;          /* executors run as other users than the worker's
                             (runas.h): ROOT is searchable by them (mode 0711),
                             each ROOT/APP_ID made for its user by the worker
                             (private to that user); else ROOT is private
                             (0700) */
} shuffle_config_t;

/* A server: ROOT made if missing and emptied of what an earlier worker
   left (those applications' outputs are lost with their worker), the
   ROUTER bound and read on loop.  NULL with err. */
shuffle_t *shuffle_new (const shuffle_config_t *config, hearth_error_t *err);
/* Stop serving (the ROUTER leaves the loop and closes).  Accepts NULL and
   a NULL *self_p; sets *self_p to NULL; keeps errno. */
void shuffle_destroy (shuffle_t **self_p);

/* tcp://HOST:PORT of the ROUTER (borrowed), for REGISTER_WORKER. */
const char *shuffle_url (const shuffle_t *self);
/* Its CURVE public key (Z85, borrowed), or NULL without keys. */
const char *shuffle_key (const shuffle_t *self);
/* The directory an application's executors write their outputs in, into
   path: ROOT/APP_ID.  Returns 0, or -1 with err when it does not fit. */
int shuffle_app_dir (const shuffle_t *self, const char *app_id, char *path,
                     size_t size, hearth_error_t *err);

/* The application ended: remove its outputs (the caller forgets its
   token: apps_removed). */
void shuffle_app_removed (shuffle_t *self, const char *app_id);

/* The applications whose map outputs are on disk here now (counted from
   the disk: a worker that leaves waits for them, worker/decom.c). */
size_t shuffle_apps_held (const shuffle_t *self);
/* Bytes of map outputs on disk, as of the last shuffle_tick. */
uint64_t shuffle_bytes (const shuffle_t *self);
/* Of them, persisted stages' (persisted.h), as last counted. */
uint64_t shuffle_persisted_bytes (const shuffle_t *self);
/* Periodic work: count the bytes on disk (at most every few seconds). */
void shuffle_tick (shuffle_t *self, int64_t now_ms);

#endif

/*  shipfetch.h - the application's shipped libraries and files, got by
    hash: REGISTERED_EXECUTOR names each (name, size, SHA-1, mode); what
    the node's cache (shipcache.h) holds already is used from there, what
    another executor of the node is fetching is waited for, and the rest
    is fetched from the driver in chunks over the executor's link
    (FETCH_FILE, answered FILE_CHUNK) or, when the driver names other
    nodes holding a chunk (FILE_HOLDERS), from their workers' block
    servers (shippeers.h, worker/shipserve.h), then checked whole
    against its hash and renamed into the cache.  A file complete in
    the node's cache is told to the driver (FILE_HELD): this node's
    worker serves it to others from then on, and the chunks received
    before that, as they arrive (shipcache.h's progress file).  A file is then
   linked into the work dir (files.h), a library loaded (libs.h).

    Until every one is in place (or has failed), ex->ship_waiting holds
    the tasks back (tasks.c): none runs without the files it may read.
    A file that cannot be had (the driver refuses it, it does not match
    its hash, the cache cannot be written) sets ex->ship_error, which
    every task then fails with: never a task on a wrong or missing file.
    A library that cannot be had fails the tasks that need it (libs.h).

    Each chunk carries its CRC-32C, checked on arrival: a corrupted one is
    fetched again at once, without starting the file over; the SHA-1 of
    the whole, checked at the end, is what proves the file is the one
    named.  At most s_max_in_flight chunks are asked for at a time; one
    the driver does not answer within s_ask_timeout_ms is asked for
    again, up to s_max_tries times.  A holder that is silent (its node
    died), refuses or sends a damaged chunk is replaced by the next one
    the driver named, then by the driver itself; one that has not got
    the chunk yet ("not_yet": on its way to it) is asked again shortly.
*/
#ifndef HEARTH_EXECUTOR_SHIPFETCH_H
#define HEARTH_EXECUTOR_SHIPFETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "executor/executor.h"
#include "libcore/error.h"
#include "libcore/proto.h"

typedef struct shipfetch shipfetch_t;

/* Send *msg_p (taken) to the driver; 0 or -1. */
typedef int (shipfetch_send_fn) (void *arg, hearth_msg_t **msg_p);
/* Everything is in place (or failed): the tasks may go. */
typedef void (shipfetch_ready_fn) (void *arg);

/* For ex (borrowed), its cache at ex->ship_dir (or WORK_DIR/.files).
   NULL with err. */
shipfetch_t *shipfetch_new (executor_t *ex, shipfetch_send_fn *send,
                            shipfetch_ready_fn *ready, void *arg,
                            hearth_error_t *err);
/* Abandon what is being fetched (no partial file stays in the cache).
   Accepts NULL; nulls the pointer; keeps errno. */
void shipfetch_destroy (shipfetch_t **self_p);

/* REGISTERED_EXECUTOR's "libs", "files" and "broadcast" (borrowed, checked by
   the codec; either may be NULL): get them, asking for each file's chunks from
   the one at start x its chunks on (0..1: its "ship_start", which spreads the
   nodes over the file), wrapping.  Once only: a repeat is ignored. */
void shipfetch_start (shipfetch_t *self, const cJSON *libs, const cJSON *files,
                      const cJSON *bcast, double start);
/* BROADCAST's "broadcast" (borrowed): broadcast files added after we
   registered, got as those of REGISTERED_EXECUTOR (one named already
   is not got twice); the tasks wait for them. */
void shipfetch_add_broadcast (shipfetch_t *self, const cJSON *bcast);

/* A FILE_CHUNK (msg borrowed). */
void shipfetch_on_chunk (shipfetch_t *self, const hearth_msg_t *msg);
/* A FILE_HOLDERS (msg borrowed): the chunk asked for is asked of the
   holders it names, one after the other, then of the driver with
   "force". */
void shipfetch_on_holders (shipfetch_t *self, const hearth_msg_t *msg);

/* An ERROR (msg borrowed): true when it answered one of our FETCH_FILE
   (that file or library then fails with it). */
bool shipfetch_on_error (shipfetch_t *self, const hearth_msg_t *msg);

/* Periodic: chunks not answered in time, claims of other executors
   that went stale or ended, our own claims kept fresh. */
void shipfetch_tick (shipfetch_t *self, int64_t now_ms);

#endif

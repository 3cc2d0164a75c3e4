/*  shipfetch.h - the application's shipped libraries and files, got by
    hash: REGISTERED_EXECUTOR names each (name, size, SHA-1, mode); what
    the node's cache (shipcache.h) holds already is used from there, what
    another executor of the node is fetching is waited for, and the rest
    is fetched from the driver in chunks over the executor's link
    (FETCH_FILE, answered FILE_CHUNK), then checked whole against its
    hash and renamed into the cache.  A file is then linked into the work
    dir (files.h), a library loaded (libs.h).

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
    not answered within s_ask_timeout_ms is asked for again, up to
    s_max_tries times.
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

/* REGISTERED_EXECUTOR's "libs" and "files" (borrowed, checked by the
   codec; either may be NULL): get them.  Once only: a repeat is
   ignored. */
void shipfetch_start (shipfetch_t *self, const cJSON *libs, const cJSON *files);

/* A FILE_CHUNK (msg borrowed). */
void shipfetch_on_chunk (shipfetch_t *self, const hearth_msg_t *msg);

/* An ERROR (msg borrowed): true when it answered one of our FETCH_FILE
   (that file or library then fails with it). */
bool shipfetch_on_error (shipfetch_t *self, const hearth_msg_t *msg);

/* Periodic: chunks not answered in time, claims of other executors
   that went stale or ended, our own claims kept fresh. */
void shipfetch_tick (shipfetch_t *self, int64_t now_ms);

#endif

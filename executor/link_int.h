/*  link_int.h - the executor's link to its driver, inside: its record,
    shared by link.c (the uplink and the loop's reader, the tick, the
    updates sent) and orders.c (what each command of the driver does).
*/
#ifndef HEARTH_EXECUTOR_LINK_INT_H
#define HEARTH_EXECUTOR_LINK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "executor/executor.h"
#include "executor/shipfetch.h"
#include "libcore/curve.h"
#include "libcore/loglimit.h"
#include "libcore/packed.h"
#include "libcore/proto.h"
#include "libcore/uplink.h"

struct link {
    executor_t *ex;               /* the context (borrowed) */
    tasks_t *tasks;               /* the task table (owned) */
    shipfetch_t *ship;            /* the shipped files being got (owned) */
    hearth_uplink_t *uplink;      /* the DEALER to the driver, registration,
                                     liveness, heartbeats (owned) */
    hearth_curve_t curve;         /* our throw-away CURVE keys and the driver's
                                     key, when it has one */
    int heard;                    /* messages handled in this read of the
                                     socket (their updates go in one flush) */
    hearth_msg_t *batch;          /* STATUS_UPDATE's large result frames
                                     while updates are packed, or NULL */
    hearth_packer_t updates;      /* the updates (and small results) packed */
    size_t batch_bytes;           /* result bytes in the batch */
    int batch_count;              /* updates in the batch */
    int flush_timer;              /* the loop's timer of s_flush_soon, or -1 */
    hearth_loglimit_t *log_limit; /* lines about the driver's bad messages */
    int64_t peak_rss;             /* our peak memory so far, bytes */
    bool peak_unsent;             /* it grew since the driver was told */
    size_t cache_told;            /* the bytes of reduce inputs kept in
                                     memory (partcache.h) last told */
    bool cache_unsent;            /* they changed since */
    int64_t launched;      /* the batch of the last LAUNCH_TASKS handled (taken
                              or refused), told back in the next STATUS_UPDATE
                              or HEARTBEAT; 0: none yet */
    int64_t launched_told; /* launched as last sent to the driver */
};

/* Handle one message from the driver (msg borrowed): its row of the
   handler table, or a line for a command the executor does not take. */
void link_dispatch (link_t *self, hearth_msg_t *msg);

/* REGISTERED_EXECUTOR (msg borrowed): the application's libraries,
   files and bounds (the uplink has taken its heartbeat settings). */
void link_registered (link_t *self, const hearth_msg_t *msg);

#endif

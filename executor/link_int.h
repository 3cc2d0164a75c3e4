/*  link_int.h - the executor's link to its driver, inside: its record,
    shared by link.c (the socket, the loop's reader, the tick, the
    updates sent) and orders.c (what each command of the driver does).
*/
#ifndef HEARTH_EXECUTOR_LINK_INT_H
#define HEARTH_EXECUTOR_LINK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "executor/executor.h"
#include "libcore/loglimit.h"
#include "libcore/packed.h"
#include "libcore/proto.h"

struct link {
    executor_t *ex;          /* the context (borrowed) */
    tasks_t *tasks;          /* the task table (owned) */
    zsock_t *driver;         /* DEALER to the driver */
    zcert_t *cert;           /* our CURVE keys, when the driver has a key */
    bool registered;         /* REGISTERED_EXECUTOR received */
    int64_t last_recv_ms;    /* last message from the driver (mono) */
    int64_t last_send_ms;    /* last message to the driver (mono) */
    hearth_msg_t *batch;     /* STATUS_UPDATE's large result frames
                                while updates are packed, or NULL */
    hearth_packer_t updates; /* the updates (and small results) packed */
    size_t batch_bytes;      /* result bytes in the batch */
    int batch_count;         /* updates in the batch */
    int flush_timer;         /* the loop's timer of s_flush_soon, or -1 */
    hearth_loglimit_t *log_limit; /* lines about the driver's bad messages */
    int64_t peak_rss;             /* our peak memory so far, bytes */
    bool peak_unsent;             /* it grew since the driver was told */
    int64_t launched;      /* the batch of the last LAUNCH_TASKS handled (taken
                              or refused), told back in the next STATUS_UPDATE
                              or HEARTBEAT; 0: none yet */
    int64_t launched_told; /* launched as last sent to the driver */
};

/* Handle one message from the driver (msg borrowed): its row of the
   handler table, or a line for a command the executor does not take. */
void link_dispatch (link_t *self, hearth_msg_t *msg);

#endif

/*  execs_int.h - the records of the driver's executor set, shared by
    the files that implement execs.h; private to them: execs.c (the
    ROUTER, registration, heartbeats, losses), execs_send.c (what goes
    to executors: offers, kills, stops) and execs_worker.c (a
    worker lost with its executors and map outputs).  Only execs.c
    writes them, but for what execs_worker.c does through execs.h's
    calls.
*/
#ifndef HEARTH_LIBHEARTH_EXECS_INT_H
#define HEARTH_LIBHEARTH_EXECS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/ids.h"
#include "libcore/intkeys.h"
#include "libcore/refusals.h"
#include "libcore/resources.h"
#include "libcore/taskset.h"
#include "libhearth/evexec.h"
#include "libhearth/execs.h"
#include "libhearth/execsock.h"
#include "libhearth/launch.h"
#include "libhearth/ship.h"
#include "libhearth/shipspread.h"

/* One executor of the application. */
typedef struct {
    int exec_id;                    /* its id (from the master, or local) */
    int cores;                      /* task slots */
    char host[256];                 /* where it runs */
    char worker[HEARTH_ID_MAX + 1]; /* its worker's id ("" in local modes) */
    bool expected;        /* granted, not registered: coming to its host and
                             worker (hearth_taskset_expect) */
    cJSON *labels;        /* its worker's labels (EXECUTOR_ADDED; owned), or
                             NULL */
    int64_t memory_mb;    /* its memory (0: not told) */
    int64_t added_ms;     /* when it registered (wall clock) */
    int64_t cache_bytes;  /* reduce inputs of persisted stages it keeps in
                             memory, as it last said */
    int64_t peak_rss;     /* its peak memory, bytes, as its worker saw it
                             (-1: not told) */
    char *key;            /* hex of its routing id once registered */
    zframe_t *rid;        /* its routing id once registered */
    bool registered;      /* REGISTER_EXECUTOR accepted: in the task set */
    uint32_t server;      /* its node's block server (shuffle.h;
                             SHUFFLE_NO_SERVER until it registers) */
    int64_t last_recv_ms; /* last message from it (monotonic) */
    int64_t last_send_ms; /* last message to it, or last found
                             unreachable (monotonic) */
    bool unreachable;     /* the ROUTER said it is not connected
                             (EHOSTUNREACH): offered no tasks until a
                             message to it goes through again */
    hearth_resources_t resources; /* its custom resource addresses
                                     (REGISTER_EXECUTOR), owned */
} exec_t;

struct execs {
    hearth_conf_t *conf;         /* settings (borrowed) */
    hearth_loop_t *loop;         /* serves router (borrowed), once open */
    execsock_t *sock;            /* the ROUTER, once open */
    zsock_t *router;             /* executors connect here (sock's) */
    char app_id[160];            /* executors must belong to it */
    char token[64];              /* and present it (Z85) */
    int64_t hb_interval_ms;      /* heartbeat interval */
    int64_t hb_liveness;         /* missed intervals before one is lost */
    int64_t max_result_bytes;    /* per task, told at registration */
    zhashx_t *by_id;             /* exec id -> exec_t */
    zhash_t *by_key;             /* routing id hex -> exec_t (borrowed) */
    zhashx_t *gone;              /* routing id hex -> "" of executors lost
                                    (their late messages are expected:
                                    dropped quietly); cleared past
                                    s_max_gone entries */
    bool ended;                  /* the application has ended: executors
                                    that go now go with it */
    hearth_refusals_t *refusals; /* refused peers, logged once a minute */
    zlistx_t *early;             /* REGISTER_EXECUTORs read before the
                                    application's id (execs.c s_early_t) */
    ship_t *ship;                /* shipped at registration */
    shipspread_t *spread;        /* which nodes hold which chunks of it */
    uint64_t turn_chunk_bytes;   /* FILE_CHUNK bytes sent in this turn of
                                    the ROUTER's reader */
    hearth_taskset_t *ts;        /* executors' slots (borrowed) */
    work_t *work;                /* stages and block servers (borrowed) */
    launch_t *launch;            /* tasks to and from executors */
    execs_cbs_t cbs;             /* the owner's callbacks */
};

/* ---- shared by the files of the set ------------------------------------ */

/* The executor exec_id, registered or not, or NULL. */
static inline exec_t *
execs_find (const execs_t *self, int exec_id)
{
    return zhashx_lookup (self->by_id, hearth_intkey (exec_id));
}

/* What the event log's executor lines say of x. */
static inline evexec_t
execs_ev_info (const exec_t *x)
{
    return (evexec_t){.exec_id = x->exec_id,
                      .host = x->host,
                      .worker = x->worker,
                      .cores = x->cores,
                      .memory_mb = x->memory_mb,
                      .added_ms = x->added_ms,
                      .peak_rss = x->peak_rss};
}

/* execs_send.c: send *msg_p (taken) to x.  Returns 0, or -1 (logged; a
   peer gone only at debug level) with err (may be NULL): code
   "not_connected" before x has registered, "send_failed" when the socket
   would not take it (execsock.h), else the codec's.  A send the ROUTER
   refuses for x not connected marks x unreachable (no offers), the next
   one that goes through clears it. */
int execs_send (execs_t *self, exec_t *x, hearth_msg_t **msg_p,
                hearth_error_t *err);
/* Send x a message of command cmd, with reason when not NULL. */
void execs_send_simple (execs_t *self, exec_t *x, hearth_cmd_t cmd,
                        const char *reason);

#endif

/*  master_int.h - the driver's link to the master, inside: its state,
    shared by master.c (the link, on libcore/uplink.h) and master_execs.c
    (what it asks about executors).
    Nothing else includes it.
*/
#ifndef HEARTH_LIBHEARTH_MASTER_INT_H
#define HEARTH_LIBHEARTH_MASTER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/curve.h"
#include "libcore/proto.h"
#include "libcore/uplink.h"
#include "libhearth/master.h"

struct master_link {
    hearth_conf_t *conf;     /* settings (borrowed) */
    hearth_loop_t *loop;     /* serves the uplink's sockets (borrowed) */
    hearth_uplink_t *uplink; /* the link itself: sockets, registering,
                                liveness, back-off, the masters (owned) */
    bool opened;             /* master_link_open succeeded */
    hearth_curve_t curve;    /* keys for the link (off: none) */
    char app_name[256];      /* as registered */
    char driver_url[300];    /* where executors connect */
    char token[64];          /* executors must present it (Z85) */
    char driver_key[64];     /* the executors' link's key, or "" */
    int64_t memory_mb;       /* per executor */
    char app_id[160];        /* from the master, once registered */
    int64_t register_us;     /* last REGISTER_APPLICATION sent (mono) */
    bool lost;               /* the link went down since it was up */
    int64_t lost_ms;         /* when (mono) */
    bool failed;             /* start-up failure told: the loop ends */
    bool finishing;          /* unregistering: see master_link_close */
    bool unregistered;       /* the master recorded the end */
    char end_state[16];      /* the end to record: FINISHED, ... */
    char end_reason[1024];   /* and why */
    char waiting[1100];      /* why the master says the application
                                waits, "REASON (CODE)", or "" */
    master_link_cbs_t cbs;   /* the owner's callbacks */
};

/* Send *msg_p (consumed) to the master.  0, or -1 (logged). */
int master_link_send (master_link_t *self, hearth_msg_t **msg_p);

/* Whether the application is registered on a working link (requests
   about executors go only then). */
bool master_link_up (const master_link_t *self);

#endif

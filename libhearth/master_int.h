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
#include "libcore/dispatch.h"
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
    int64_t driver_epoch;    /* the master's word for which driver of the
                                application this is (1, then one more at
                                each resume), or 0: not told yet */
    struct resume *resume;   /* a resumed registration's outputs table,
                                until its last batch (master_resume.c) */
    bool fenced;             /* a newer driver of the application took
                                over: this one is out */
    bool again_pending;      /* the registration waiting for its table was
                                a registration again */
};

/* The field of a driver's epoch in REGISTER_APPLICATION,
   REGISTERED_APPLICATION, OUTPUTS_RECORDED, UNREGISTER_APPLICATION
   ("epoch" alone is the master leader's, in everything it sends). */
#define MASTER_DRIVER_EPOCH "driver_epoch"

struct record;

/* REGISTERED_APPLICATION's word on resuming (master_resume.c): notes
   the driver epoch; true when the application was resumed, so that its
   outputs table follows (APPLICATION_OUTPUTS) and the registration is
   done only after its last batch. */
bool master_resume_registered (master_link_t *self, const hearth_msg_t *msg);
/* APPLICATION_OUTPUTS: a batch of the table into self->resume; true
   after the last one (the registration is then done). */
bool master_resume_outputs (master_link_t *self, const hearth_msg_t *msg);
/* The next OUTPUTS_RECORDED of what record holds, or NULL when nothing
   waits (or no memory: they wait). */
hearth_msg_t *master_resume_outputs_msg (master_link_t *self,
                                         struct record *record);
/* An ERROR: when it is "fenced" (a newer driver resumed the
   application), the application is dead to this driver; true then. */
bool master_resume_fenced (master_link_t *self, const hearth_msg_t *msg,
                           const char *text);

/* Send *msg_p (consumed) to the master.  0, or -1 (logged). */
int master_link_send (master_link_t *self, hearth_msg_t **msg_p);

/* Whether the application is registered on a working link (requests
   about executors go only then). */
bool master_link_up (const master_link_t *self);

#endif

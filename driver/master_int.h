/*  master_int.h - the driver's link to the master, inside: its state,
    shared by master.c (the link), master_follow.c (which master it
    talks to, fencing) and master_execs.c (what it asks about executors).
    Nothing else includes it.
*/
#ifndef HEARTH_DRIVER_MASTER_INT_H
#define HEARTH_DRIVER_MASTER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "driver/master.h"
#include "driver/master_watch.h"
#include "libcore/curve.h"
#include "libcore/loglimit.h"
#include "libcore/masters.h"
#include "libcore/proto.h"

struct master_link {
    hearth_conf_t *conf;          /* settings (borrowed) */
    hearth_loop_t *loop;          /* serves sock (borrowed) */
    zsock_t *sock;                /* DEALER, the newest one */
    master_watch_t *watch;        /* why it does not connect, until the
                                     first registration; or NULL */
    hearth_masters_t *masters;    /* the master URLs, the one followed now
                                     (url) and the highest epoch (owned) */
    bool unanswered;              /* nothing came on the current socket yet */
    bool reopen;                  /* a switch is due: register anew on a fresh
                                     socket at next_attempt_ms */
    int leader_hops;              /* standbys' leaders followed since the
                                     last registration */
    hearth_loglimit_t *log_limit; /* fenced messages: a line a minute */
    hearth_curve_t curve;         /* keys for the link (off: none) */
    char app_name[256];           /* as registered */
    char driver_url[300];         /* where executors connect */
    char token[64];               /* executors must present it (Z85) */
    char driver_key[64];          /* the executors' link's key, or "" */
    int64_t memory_mb;            /* per executor */
    char app_id[160];             /* from the master, once registered */
    int64_t hb_interval_ms;       /* heartbeat interval */
    int64_t hb_liveness;          /* missed intervals before the link is down */
    bool registered;              /* REGISTERED_APPLICATION received */
    int64_t register_deadline;    /* give up registering after this (mono) */
    int64_t recv_ms;              /* last message from the master (mono) */
    int64_t send_ms;              /* last message to the master (mono) */
    int64_t register_us;          /* last REGISTER_APPLICATION sent (mono) */
    bool linked;                  /* the current socket is registered */
    int64_t lost_ms;              /* when the link went down (mono) */
    int64_t backoff_ms;           /* wait before the next attempt after */
    int64_t next_attempt_ms;      /* next registration attempt (mono) */
    bool failed;                  /* start-up failure told: the loop ends */
    bool finishing;               /* unregistering: see master_link_close */
    bool unregistered;            /* the master recorded the end */
    char end_state[16];           /* the end to record: FINISHED, ... */
    char end_reason[1024];        /* and why */
    char waiting[1100];           /* why the master says the application
                                     waits, "REASON (CODE)", or "" */
    master_link_cbs_t cbs;        /* the owner's callbacks */
};

/* Send *msg_p (consumed) on the newest socket, noting when (send_ms).
   0, or -1 (logged). */
int master_link_send (master_link_t *self, hearth_msg_t **msg_p);

/* Move the link to the next master of the list (nothing with one), the
   current one having done what why says ("is silent"); logged. */
void master_follow_next (master_link_t *self, const char *why);

/* A standby's ERROR (msg borrowed): the link is down; the next attempt,
   on a fresh socket, goes to the leader it names or to the next master
   (self->reopen). */
void master_follow_standby (master_link_t *self, const hearth_msg_t *msg);

/* Whether msg (borrowed) is to be handled: false, logged at WARN
   (limited), when it carries an older epoch than the highest seen. */
bool master_follow_fence (master_link_t *self, const hearth_msg_t *msg);

#endif

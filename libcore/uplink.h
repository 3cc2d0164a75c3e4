/*  uplink.h - a peer that registers with another and stays linked: the
    worker's and the driver's link to the master, and the executor's to
    its driver (issue 36), written once (flux-core's overlay/parent.c
    serves every broker so).  "The master" below is the peer registered
    with (opts.peer names it in the logs: the executor's is its driver).

    The rules are the ZeroMQ guide's and protocol.md §7's:
    - a DEALER connects and sends the owner's registration; the answer
      (opts.registered_cmd) brings the link up, with the heartbeat
      settings it states;
    - any valid message from the master is a sign of life; silence for
      liveness x interval brings the link down;
    - a link that is down registers again on a fresh socket (the old one
      is dropped with whatever it still queued), one interval after the
      first attempt, then twice that and so on up to opts.backoff_max_ms,
      and back to one interval once registered;
    - a HEARTBEAT (the owner's body) goes when nothing else has gone for
      one interval;
    - opts.reconnect_cmd (RECONNECT_WORKER...) brings the link down: the
      next tick registers again at once;
    - with failover (a list of masters, libcore/masters.h): a registration
      nobody answered by the next attempt, or a silent master, sends the
      next attempt to the next URL; a standby's ERROR to the leader it
      names (at once the first time since a registration, then at
      back-off); messages of an older epoch are dropped;
    - until the link is up, a watch of the socket's connection
      (libcore/connwatch.h) says why it cannot reach the master, once per
      cause; a cause that waiting cannot mend is fatal before the first
      registration when opts.watch_fatal says so (a person's program
      stops, a daemon keeps trying); opts.register_timeout_ms bounds the
      first registration;
    - with opts.down_fatal (the executor: liveness only), the link is
      never registered again: going down (silence, reconnect_cmd) is
      fatal.

    The uplink runs no loop and reads no clock: its owner serves the
    sockets it is told of (cbs.serve) and calls hearth_uplink_on_readable
    when one is readable, and hearth_uplink_tick now and then (at the
    latest at the deadline it returns), passing the time (monotonic ms)
    each time.  Sockets are replaced only from the tick.  Single-threaded:
    the owner's thread.
*/
#ifndef HEARTH_UPLINK_H
#define HEARTH_UPLINK_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/curve.h"
#include "libcore/error.h"
#include "libcore/masters.h"
#include "libcore/proto.h"

typedef struct hearth_uplink hearth_uplink_t;

/* What the uplink asks of, and tells, its owner.  Every message it
   passes is borrowed for the call. */
typedef struct {
    /* The registration to send now (taken), or NULL to send none this
       time; again: the link has been up before. */
    hearth_msg_t *(*registration) (void *arg, bool again);
    /* The HEARTBEAT to send now (taken), or NULL. */
    hearth_msg_t *(*heartbeat) (void *arg);
    /* opts.registered_cmd arrived: the link is up (again: it has been
       up before). */
    void (*up) (void *arg, const hearth_msg_t *msg, bool again);
    /* The link went down (why: what happened); it registers again from
       the next tick.  NULL: nothing to do. */
    void (*down) (void *arg, const char *why);
    /* Any other message from the master (fenced). */
    void (*message) (void *arg, hearth_msg_t *msg);
    /* The link cannot go on (why: a sentence for a person): the first
       registration timed out, the connection cannot be mended, or the
       master speaks another protocol.  The uplink does nothing more until
       the owner closes it. */
    void (*fatal) (void *arg, const char *why);
    /* Serve sock (on) or stop serving it (off; it is destroyed next):
       call hearth_uplink_on_readable when it is readable. */
    void (*serve) (void *arg, zsock_t *sock, bool on);
    /* Something was sent on sock (a loop of libcore/loop.h must hear
       it).  NULL: nothing to do. */
    void (*sent) (void *arg, zsock_t *sock);
    void *arg; /* given to every callback */
    /* A message of a known command that could not be decoded (err says
       why; refused holds its command and what parsed of its body,
       unchecked: proto.h's hearth_msg_try_recv_refused), for an owner
       that answers it; logged as any bad message.  NULL: logged only.
       (Last, so that owners that list the callbacks in order need not
       name it.) */
    void (*refused) (void *arg, const hearth_msg_t *refused,
                     const hearth_error_t *err);
} hearth_uplink_cbs_t;

/* The longest wait between two registration attempts, by default. */
#define HEARTH_UPLINK_BACKOFF_MAX_MS 32000

typedef struct {
    const char *url;             /* the master, or a list of masters
                                    (libcore/masters.h; copied) */
    const hearth_curve_t *curve; /* the link's keys (borrowed: must outlive
                                    the uplink), or NULL: none */
    const char *who;             /* what registers, for the logs: "worker
                                    w1", "the application" (copied) */
    const char *peer;            /* what it registers with, for the logs
                                    (copied; NULL: "the master") */
    const char *identity;        /* the DEALER's routing id (copied; NULL:
                                    ZeroMQ's own) */
    hearth_cmd_t registered_cmd; /* the answer that brings the link up */
    hearth_cmd_t reconnect_cmd;  /* the master's "register again", or
                                    HEARTH_CMD_COUNT: none */
    int64_t interval_ms;         /* heartbeat interval, until the master
                                    states its own */
    int64_t liveness;            /* missed intervals: the master is gone */
    int64_t backoff_max_ms;      /* cap of the back-off (0: the default) */
    int64_t register_timeout_ms; /* the first registration fails after
                                    this (0: never) */
    bool failover;               /* follow the list, leaders and epochs
                                    (false: one URL, no fencing) */
    bool hold_first;             /* before the first registration, keep the
                                    one socket and its registration unless
                                    the list moves on: a registration sent
                                    twice would register twice */
    bool watch_fatal;            /* a cause the watch cannot mend ends the
                                    first registration (fatal) */
    bool down_fatal;             /* never register again: the link going
                                    down is fatal (use with hold_first and
                                    one URL: one registration, ever) */
    int read_batch;              /* messages read per on_readable call
                                    (0: 64) */
} hearth_uplink_opts_t;

/* A link not yet open (opts and cbs copied).  NULL with err set (a bad
   list of masters, no memory). */
hearth_uplink_t *hearth_uplink_new (const hearth_uplink_opts_t *opts,
                                    const hearth_uplink_cbs_t *cbs,
                                    hearth_error_t *err);

/* Free it and its sockets, without telling the owner (the loop may be
   gone: hearth_uplink_close first when it is not).  Accepts NULL and a
   NULL *self_p; nulls the pointer; keeps errno. */
void hearth_uplink_destroy (hearth_uplink_t **self_p);

/* Connect and send the first registration, at now_ms.  0, or -1 with err
   (no socket: the ticks try again). */
int hearth_uplink_open (hearth_uplink_t *self, int64_t now_ms,
                        hearth_error_t *err);

/* Stop serving and close the sockets (linger_ms: how long what is queued
   may wait to go, -1: the socket's setting).  The uplink stays closed. */
void hearth_uplink_close (hearth_uplink_t *self, int linger_ms);

/* Liveness, heartbeats, registering again, the deadline of the first
   registration, at now_ms.  Returns when it wants the next tick (ms,
   same clock). */
int64_t hearth_uplink_tick (hearth_uplink_t *self, int64_t now_ms);

/* sock (one the uplink served) is readable at now_ms: read up to a
   batch.  0 when nothing is left, 1 when it stopped with more to read,
   -1 when the link is fatal or its socket broken (logged). */
int hearth_uplink_on_readable (hearth_uplink_t *self, zsock_t *sock,
                               int64_t now_ms);

/* Send *msg_p (taken, nulled) to the master at now_ms.  0, or -1 when
   there is no socket or it could not go (logged). */
int hearth_uplink_send (hearth_uplink_t *self, hearth_msg_t **msg_p,
                        int64_t now_ms);

/* Send the registration again on the current socket (the master asked
   for it before the link was up). */
void hearth_uplink_register_again (hearth_uplink_t *self, int64_t now_ms);

/* The link is down (why: logged at WARN, or NULL: said already):
   register again from the next tick.  Nothing when it is not up. */
void hearth_uplink_down (hearth_uplink_t *self, const char *why,
                         int64_t now_ms);

/* The master followed now (borrowed until the next call). */
const char *hearth_uplink_url (const hearth_uplink_t *self);
/* The list of masters (borrowed). */
const hearth_masters_t *hearth_uplink_masters (const hearth_uplink_t *self);
/* Whether the link is up / has been up since it opened. */
bool hearth_uplink_up (const hearth_uplink_t *self);
bool hearth_uplink_ever (const hearth_uplink_t *self);
/* The heartbeat settings in use (the master's, once registered). */
int64_t hearth_uplink_interval (const hearth_uplink_t *self);
int64_t hearth_uplink_liveness (const hearth_uplink_t *self);
/* When the master was last heard (ms, the owner's clock; the open's
   time before it said anything). */
int64_t hearth_uplink_heard (const hearth_uplink_t *self);
/* The peer was heard at now_ms: what a handler that takes long says of
   the message it handles (a read of the socket dates every message it
   takes to its start, and a batch of heavy ones, such as an executor's
   chunks of shipped files, would otherwise look like silence). */
void hearth_uplink_heard_at (hearth_uplink_t *self, int64_t now_ms);
/* The wait the next failed attempt adds (ms). */
int64_t hearth_uplink_backoff (const hearth_uplink_t *self);
/* The newest DEALER (borrowed), or NULL. */
zsock_t *hearth_uplink_sock (const hearth_uplink_t *self);
/* The watch's last cause (borrowed), or NULL. */
const char *hearth_uplink_watch_last (const hearth_uplink_t *self);

#endif

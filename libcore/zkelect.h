/*  zkelect.h - leader election through ZooKeeper, for standby masters
    (issue 17; docs/high-availability.md).

    Each candidate holds one ephemeral sequential node under DIR/election,
    named n_TOKEN_SEQUENCE (TOKEN: random, the candidate's own, so that a
    node created by a request whose answer was lost is still recognised
    as ours), its data the candidate's description (a master's URLs).
    The candidate with the lowest sequence number leads; its sequence
    number is the leader's epoch, which only grows: every later node of
    DIR/election has a higher one.  Each other candidate watches the node
    just before its own and the leader's, so it learns of a new leader
    without the whole group waking on every change.

    The leader also watches the election's children (a node below its
    own, which only a forgery can be, takes the lead from it as the rule
    says) and its own node: deleted, changed, or made by
    another session than its own (someone else's hand: the nodes' ACL
    should forbid it, zkacl.h), it stops leading at once
   (SUSPENDED), gives its session up (the servers remove its node) and joins
   again on a new session, as a new candidate with a new node.  Each session
    names its node with a new TOKEN.

    Before it joins, on each session, a candidate looks at whose the
    cluster's directory and DIR/election are (zkowner.h): with
    credentials it makes no node in a directory where others than the
    masters have more than READ (SUSPENDED, said once a minute, looked
    at again on every retry), since whoever has DELETE or CREATE there
    decides who leads.

    Fencing: a candidate that loses its connection to ZooKeeper stops
    leading at once (SUSPENDED), before its session can expire on the
    servers (the client notices the silence after two thirds of the
    session time, the servers expire it after the whole), so two
    candidates never lead at the same time.  Back on the same session it
    leads again with the same epoch; after an expiry it joins again with
    a new node.  Closing (zkelect_destroy) ends the session, which removes
    the node at once: a clean stop hands over in one round trip.

    Threads: the ZooKeeper client's threads only wake the owner's loop
    (zkelect_fd becomes readable); every decision and every call to
    ZooKeeper is made on the owner's thread, in zkelect_dispatch and
    zkelect_tick, which call back on role changes.  A call to ZooKeeper
    blocks that thread for a round trip (at most the session time when the
    link is failing: it is failing then, and the candidate is suspended).
*/
#ifndef HEARTH_ZKELECT_H
#define HEARTH_ZKELECT_H

#include <stdint.h>

#include "libcore/error.h"

typedef enum {
    ZKELECT_SUSPENDED, /* no usable ZooKeeper session: neither lead nor trust
                          what is known of the leader */
    ZKELECT_STANDBY,   /* another candidate leads */
    ZKELECT_LEADER,    /* this candidate leads */
} zkelect_role_t;

/* What the callback is told. */
typedef struct {
    zkelect_role_t role;
    uint64_t epoch;     /* the leader's epoch (its sequence number); 0 when
                           suspended */
    const char *leader; /* the leader's data (borrowed, for the call only);
                           NULL when suspended */
    const char *why;    /* what changed, for the log */
} zkelect_view_t;

typedef void (zkelect_fn) (void *arg, const zkelect_view_t *view);

typedef struct zkelect zkelect_t;

/* Who a candidate is and where it runs (every string borrowed for the
   call to zkelect_new, which copies them). */
typedef struct {
    const char *hosts; /* the ensemble, "h1:2181,h2:2181" */
    const char *dir;   /* an absolute ZooKeeper path such as /hearth, made
                          if missing; the election is DIR/election */
    int session_ms;    /* the session time asked for */
    const char *data;  /* this candidate's description */
    const char *auth;  /* "user:password" for ZooKeeper's digest scheme
                          (zkacl_read_auth), or NULL: no credentials; it
                          decides the nodes' ACLs (zkacl.h) */
} zkelect_config_t;

/* A candidate as config says.  It starts SUSPENDED and connects in the
   background; fn is called on the owner's thread whenever the role, the
   epoch or the leader's data changes.  NULL with err on bad arguments or
   no memory (an unreachable ensemble is no error: it keeps trying). */
zkelect_t *zkelect_new (const zkelect_config_t *config, zkelect_fn *fn,
                        void *arg, hearth_error_t *err);
/* End the session (the node goes at once), free.  Accepts NULL; nulls
   the pointer. */
void zkelect_destroy (zkelect_t **self_p);
/* A descriptor readable when ZooKeeper has news: call zkelect_dispatch. */
int zkelect_fd (const zkelect_t *self);
/* Act on the news (drains zkelect_fd). */
void zkelect_dispatch (zkelect_t *self);
/* Retry what failed (every 200 ms at most); call about every 100 ms. */
void zkelect_tick (zkelect_t *self);
/* The current role. */
zkelect_role_t zkelect_role (const zkelect_t *self);
/* The session time the servers granted (0 before the first connection). */
int zkelect_session_ms (const zkelect_t *self);
const char *zkelect_role_name (zkelect_role_t role);

#endif

/*  claims.h - REGISTER_APPLICATION under an application id the master
    does not know (a claim): whose the id is, as the workers say, and the
    claims held until the workers have had the time to say it
    (docs/security.md, "An application's id and its data").

    A master that forgot its applications (restarted without --journal)
    hears of them again from two sides: their drivers register again
    under their ids, and their workers register again listing the
    applications they have launched executors of, each with the key that
    submitted it (REGISTER_WORKER `apps`, worker/apps.h).  An id a worker
    lists is given only to that key: another key's claim is refused with
    ERROR duplicate_app, so that it gets neither the application's id nor,
    through executors placed under it, its map outputs.  Without CURVE
    there are no keys, and any claim is taken as before.

    The workers come back within the recovery timeout of the master's
    start (twice liveness x interval, at least 5 s: a worker's socket may
    wait 2 s between reconnects while the master is down; recover.h).  A
    claim that arrives before then is held, unanswered, and handled as if
    it arrived at the end of that time (handlers.c, master_dispatch_held),
    so that a quick claimant cannot take an id before its workers have
    spoken.  A driver that registers again on a fresh socket meanwhile
    replaces its held claim.  The same holds from the moment a standby
    is elected (ha.c).
*/
#ifndef HEARTH_MASTER_CLAIMS_H
#define HEARTH_MASTER_CLAIMS_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"
#include "master/registry.h"

typedef struct claims claims_t;

/* A held claim: the message as it came and who sent it (all owned). */
typedef struct {
    zframe_t *rid;     /* its sender's routing id */
    hearth_msg_t *msg; /* the REGISTER_APPLICATION */
    char key[64];      /* the sender's CURVE key, or "" */
} claim_held_t;

/* Claims held until until_ms (monotonic).  NULL on no memory. */
claims_t *claims_new (int64_t until_ms);
/* Free it, and the claims it holds.  Accepts NULL and a NULL *self_p;
   nulls the pointer; keeps errno. */
void claims_destroy (claims_t **self_p);

/* The master starts to serve (elected): claims held until until_ms. */
void claims_open (claims_t *self, int64_t until_ms);

/* The next held claim whose time has come at now_ms, in arrival order
   (the caller owns it: claim_held_destroy), or NULL. */
claim_held_t *claims_due (claims_t *self, int64_t now_ms);
/* Free a held claim.  Accepts NULL and a NULL *self_p; nulls it. */
void claim_held_destroy (claim_held_t **self_p);

/* A worker's REGISTER_WORKER `apps` (borrowed, may be NULL): note the
   owner of each id the master does not know; warn of one it knows as
   another key's. */
void master_claims_reported (master_t *m, const reg_worker_t *w,
                             const cJSON *apps);

/* In REGISTER_APPLICATION's handler, for an id the master does not
   know: true when the message is held (its sender, from's routing id
   and key, and msg copied), to be dispatched again once the workers have
   had the time to list their applications. */
bool master_claim_hold (master_t *m, const hearth_from_t *from,
                        const hearth_msg_t *msg);

/* In REGISTER_APPLICATION's handler, for an id the master does not
   know: true when owner (the new application's owner key) may have it:
   no worker listed it, or for owner.  Otherwise answers rid ERROR
   duplicate_app, logs, and returns false. */
bool master_claim_allowed (master_t *m, zframe_t *rid, const char *app_id,
                           const char *owner);

/* app_id was registered: what the workers said of it is no longer
   needed. */
void master_claim_taken (master_t *m, const char *app_id);

#endif

/*  authz.h - what the sender of the message being handled may do
    (docs/security.md, "Who may do what").  Its CURVE key has the roles
    of the allow directories that admit it (zap.h: client, worker,
    operator); an application or a cluster-mode driver belongs to the key
    that submitted it (its owner).  Without CURVE there are no keys and
    everything is allowed; with one allow directory every key has every
    role.

    The key is the one main.c's loop read with the message
    (m->sender_key): these functions answer for the message being handled,
    and only handlers call them.  A refusal is logged once a minute per
    key and command (m->denials). */
#ifndef HEARTH_MASTER_AUTHZ_H
#define HEARTH_MASTER_AUTHZ_H

#include <stdbool.h>
#include <stddef.h>

#include "master/master.h"

/* The sender's key (Z85, borrowed), or "" without CURVE. */
const char *master_sender_key (const master_t *m);

/* True when the sender may operate the whole cluster: kill any
   application or driver, drain and resume workers.  That is an operator
   key (--curve-operators), any key of a master with one allow directory,
   and anyone without CURVE.  Otherwise, when why is not NULL, fills it
   (for the answer: which key, and that `command` needs an operator) and
   logs the refusal.  For every handler of such a command (KILL_* of
   another's record here, DRAIN_WORKER and RESUME_WORKER). */
bool master_may_operate (master_t *m, const char *command, char *why,
                         size_t size);

/* True when the sender's key has every role of roles (HEARTH_ROLE_*):
   always without CURVE.  Otherwise fills why (what the key is, what
   `command` needs) and logs the refusal. */
bool master_sender_has (master_t *m, unsigned roles, const char *command,
                        char *why, size_t size);

/* True when the sender may end or kill a record of owner (a key, or ""
   for one submitted without CURVE): it is that key, or it may operate.
   Otherwise fills why (`what`, e.g. "application app-...", belongs to
   another key) and logs the refusal. */
bool master_may_act_on (master_t *m, const char *owner, const char *what,
                        const char *command, char *why, size_t size);

/* True when the sender may end app (UNREGISTER_APPLICATION): it is the
   application's driver (rid, borrowed, is its peer, or it speaks with its
   driver's key), or it may act on app's owner.  Otherwise fills why and
   logs the refusal. */
bool master_may_end_app (master_t *m, zframe_t *rid, const reg_app_t *app,
                         const char *command, char *why, size_t size);

/* True when the sender is where cluster-mode driver d runs: d is not
   ended and placed on a worker that speaks with the sender's key (a
   driver a worker starts speaks with its worker's key; while that worker
   has not spoken since the master's restart, any worker key).  Without
   CURVE, when d is placed.  Its application then belongs to d's owner. */
bool master_sender_runs (master_t *m, const reg_driver_t *d);

#endif

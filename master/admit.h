/*  admit.h - hearth-master under CURVE (--curve-*): the allow directory
    says which client keys may connect, and a key removed from it (a
    reload on SIGHUP) cuts its peers off at once.  Without keys none of
    this is called. */
#ifndef HEARTH_MASTER_ADMIT_H
#define HEARTH_MASTER_ADMIT_H

#include <stdbool.h>

#include <czmq.h>

#include "libcore/error.h"
#include "master/master.h"

/* Admit the masters' own key pair, with the role `master` (authz.h): a
   standby follows the leader's journal with it (ha.c), and no allow
   directory gives that role.  Admitted on a single master too, where it
   may read as any key may, so that the role is the same whatever the
   master's place.  0, or -1 with err. */
int master_admit_masters (master_t *m, hearth_error_t *err);

/* Without keys on loopback: answer the local cookie's ZAP requests in
   the master's loop (cookie.h), so that only this user's tools connect.
   0, or -1 with err. */
int master_admit_local (master_t *m, hearth_error_t *err);

/* Answer ZAP requests in the master's loop, and log the handshakes the
   ROUTER and the PUB socket refuse.  0, or -1 with err. */
int master_admit_watch (master_t *m, hearth_error_t *err);

/* After a message of rid (borrowed) with CURVE key `key` (borrowed, Z85)
   was handled or refused: remember the key of its worker or application
   (so that a reload that removes the key ends it at once), or, refused,
   end that worker or application now. */
void master_admit_seen (master_t *m, zframe_t *rid, const char *key,
                        bool refused);

/* SIGHUP: read the allow directory again; when keys were removed, end
   their workers and applications and make the events socket's
   subscribers connect again (only admitted keys get back). */
void master_admit_reload (master_t *m);

#endif

/*  authz.h - who may send each command to hearth-master: the
    authorization table, and the checks that read it (docs/security.md,
    "Who may do what").

    A sender is known by its CURVE key, which has the roles of the allow
    directories that admit it (zap.h: client, worker, operator; the
    masters' own key pair: master; the key the master made for a launch
    of a cluster-mode driver: driver), and by where it stands toward what
    the command names: the key that submitted an application or a
    cluster-mode driver is its owner; an application's driver speaks on
    the application's own link, and a cluster-mode driver with its own
    key.  Each command has one row in the table, saying which of these
    may send it; no handler decides alone.

    Two checks read a row:
      - master_authorize, for every message before its handler
        (handlers.c's dispatch): it admits a sender whose key has a role
        the row names, refuses one the row cannot admit, and leaves the
        rest to the handler when the row names a relation (owner, self)
        that only the record can tell;
      - master_authorize_on, for a handler that found the record the
        message names: the whole row, with the sender's relations to it.
    A worker's id is a record of its own kind: it belongs to the key the
    worker registered with (journaled), and master_authorize_worker
    checks a REGISTER_WORKER under an id the master knows against it.
    A refused sender is answered (ERROR not_allowed, naming the command
    and why, or the row's own refusal command) and the refusal is logged
    once a minute per key and command (m->denials).

    Without CURVE there are no keys: every role and every ownership is
    the sender's, and only the rows that need the record's own link
    (self) still refuse a stranger.  With one allow directory every key
    has the client, worker and operator roles.

    The sender is the handler's (libcore/dispatch.h: its routing id, and
    the key main.c's loop read with the message, "" without CURVE),
    passed to each check: these functions answer for the message being
    handled, and only its handlers call them. */
#ifndef HEARTH_MASTER_AUTHZ_H
#define HEARTH_MASTER_AUTHZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"
#include "master/regworkers.h"

/* Who may send a command: a row of the table is a set of these. */
typedef enum {
    MASTER_MAY_OPERATOR = 1 << 0, /* an operator key (--curve-operators) */
    MASTER_MAY_CLIENT = 1 << 1,   /* any client key (--curve-allow) */
    MASTER_MAY_WORKER = 1 << 2,   /* any worker key (--curve-allow-workers) */
    MASTER_MAY_MASTER = 1 << 3,   /* the masters' key pair (a standby) */
    MASTER_MAY_DRIVER = 1 << 4,   /* any cluster-mode driver's own key (the
                                     master made it for the launch) */
    MASTER_MAY_OWNER = 1 << 5,    /* the key that submitted what it names */
    MASTER_MAY_SELF = 1 << 6,     /* the application's driver it names (its
                                     link; registering again, its token; a
                                     cluster-mode driver registering its
                                     application, that driver's own key) */
} master_may_t;

/* The relations a row may name, which only the record can tell. */
#define MASTER_MAY_RELATIONS (MASTER_MAY_OWNER | MASTER_MAY_SELF)

/* The record a message names, as its handler sees the sender. */
typedef struct {
    const char *what;  /* "application app-...", for the refusal */
    const char *owner; /* the key that submitted it ("" without CURVE) */
    bool self;         /* the sender is the application's driver */
    const char *may;   /* what the row lets its owner do, for the
                          refusal: "end it" when NULL */
} master_subject_t;

/* Before cmd's handler: true when the sender's key may send it whatever
   it names, or when the row leaves it to the record (the handler then
   calls master_authorize_on).  Otherwise answers the sender (from,
   borrowed), logs, and returns false. */
bool master_authorize (master_t *m, const hearth_from_t *from,
                       hearth_cmd_t cmd);

/* In cmd's handler, on the record s (borrowed) the message names: true
   when the row admits the sender by its roles or its relation to s.
   Otherwise answers the sender, logs, and returns false. */
bool master_authorize_on (master_t *m, const hearth_from_t *from,
                          hearth_cmd_t cmd, const master_subject_t *s);

/* Print the table, one line a command: its name, then the words of the
   senders its row admits (operator client worker master driver owner
   self), space-separated (hearth-master --authz-table). */
void master_authz_print (FILE *out);

/* What a REGISTER_WORKER from the sender of key (borrowed; "" without
   CURVE) under w's id (w borrowed: the record of that id) is:
   registry_worker_key with that key, and whether w's key is still a
   worker key now. */
reg_worker_key_t master_worker_key (master_t *m, const char *key,
                                    const reg_worker_t *w);

/* REGISTER_WORKER under the id of an existing record w (borrowed): true
   when its id may take the sender's key (its own key; the first key of
   a record without one, or a new one once w's key is no longer a worker
   key, each said at INFO).  Otherwise answers REGISTER_WORKER_FAILED
   naming both keys and what to do, logs, and returns false. */
bool master_authorize_worker (master_t *m, const hearth_from_t *from,
                              const reg_worker_t *w);

/* True when the sender is cluster-mode driver d itself: d is placed (not
   ended, not waiting to be relaunched) and the sender speaks with the key
   the master made for that launch (d->key, drvkeys.h).  Without CURVE,
   when d is placed.  Its application then belongs to d's owner. */
bool master_sender_is_driver (master_t *m, const char *key,
                              const reg_driver_t *d);

#endif

/*  zap.h - who may talk to a CURVE server: a ZAP handler (RFC 27) that
    admits the clients whose public keys are in its allow directories, and
    logs refusals.  Each directory gives its keys roles (what they may do
    once in: hearth-master's --curve-allow, --curve-allow-workers and
    --curve-operators); a key found in several has all their roles.

    The handler lives in the server's own event loop (no thread): bind it
    before the CURVE sockets, and call hearth_zap_handle() when its socket
    is readable.  hearth_zap_reload() re-reads the directory, so that
    adding or removing a client's key takes effect without a restart
    (daemons do it on SIGHUP).

    Refusals are logged once per peer address per minute: those the
    handler decides (an unknown key, a foreign ZAP domain), and, through a
    socket monitor (hearth_zap_watch), handshakes that fail before it is
    asked (a peer with no key, or one that expects another server key).

    The handler also keeps the user each key file names (keys.h), whom
    the master names in the launches of the key's executors and drivers.

    Besides the directories' keys, the program may admit keys of its own
    (hearth_zap_admit_key: the masters' key pair, and the key the master
    makes for each launch of a cluster-mode driver), which reloads keep,
    until it forgets them (hearth_zap_forget_key).

    An admitted client's ZAP User-Id is its public key (Z85), which libzmq
    attaches to every message of the connection: hearth_zap_admits() tells
    whether a message's sender is still admitted after a reload, so that
    removing a key cuts off connections made before the removal too (and
    forgetting one of the program's keys, those made with it).

    The handler logs its refusals through a refusal log (refusals.h),
    which other refusing code uses too.
*/
#ifndef HEARTH_ZAP_H
#define HEARTH_ZAP_H

#include <czmq.h>

#include "libcore/error.h"
/* hearth_refusals_t: its users found it here before it had a file */
#include "libcore/refusals.h"

typedef struct hearth_zap hearth_zap_t;
/* The ZAP domain Hearth's servers use. */
#define HEARTH_ZAP_DOMAIN "hearth"

/* What an admitted key may do (docs/security.md, "Who may do what"). */
enum {
    HEARTH_ROLE_CLIENT = 1,   /* run applications, kill its own, read */
    HEARTH_ROLE_WORKER = 2,   /* register workers */
    HEARTH_ROLE_OPERATOR = 4, /* kill any application or driver, drain */
    HEARTH_ROLE_MASTER = 8,   /* follow the leader's journal (a standby
                                 master: the key pair the masters share) */
    HEARTH_ROLE_DRIVER = 16,  /* a cluster-mode driver's own key, which the
                                 master made for one launch of it: its
                                 application's traffic, reads */
};
/* Every role: the keys of a server given one allow directory only. */
#define HEARTH_ROLE_ALL                                                        \
    (HEARTH_ROLE_CLIENT | HEARTH_ROLE_WORKER | HEARTH_ROLE_OPERATOR)

/* An allow directory and the roles of its keys. */
typedef struct {
    const char *dir;  /* its path (borrowed) */
    unsigned roles;   /* HEARTH_ROLE_* of every key in it */
    const char *what; /* its keys, for the log: "client", "worker"... */
} hearth_zap_dir_t;

/* Bind the process's ZAP handler and load the ndirs allow directories
   (borrowed: copied; at least one), for the caller to destroy.  NULL with
   err. */
hearth_zap_t *hearth_zap_new_dirs (const hearth_zap_dir_t *dirs, size_t ndirs,
                                   hearth_error_t *err);

/* The same with one directory whose keys have every role. */
hearth_zap_t *hearth_zap_new (const char *allow_dir, hearth_error_t *err);

/* Close the handler and its monitors, free the keys.  Accepts NULL and
   a NULL *self_p; nulls *self_p; keeps errno. */
void hearth_zap_destroy (hearth_zap_t **self_p);

/* Admit key (Z85, copied) with roles besides the allow directories' keys,
   under name (copied) for the log, until hearth_zap_forget_key: reloads
   keep it.  A key already in a directory gets these roles too; one the
   program admitted already gets this name and these roles instead.  As
   many as memory holds (one hash entry each).  0, or -1 with err (no
   memory, bad key). */
int hearth_zap_admit_key (hearth_zap_t *self, const char *key, const char *name,
                          unsigned roles, hearth_error_t *err);

/* Take back what hearth_zap_admit_key gave key (borrowed; NULL or a key
   never admitted: nothing happens).  A key of an allow directory keeps
   that directory's roles; any other is refused from now on, its
   handshakes and, through hearth_zap_admits, its messages on connections
   made before. */
void hearth_zap_forget_key (hearth_zap_t *self, const char *key);

/* Re-read the allow directories.  Returns the number of keys admitted,
   or -1 with err (the previous keys stay in force). */
int hearth_zap_reload (hearth_zap_t *self, hearth_error_t *err);

/* Keys the last successful reload removed or took a role from (0 after
   hearth_zap_new). */
size_t hearth_zap_removed (const hearth_zap_t *self);

/* True if a message whose connection has ZAP User-Id user_id (a public
   key, from hearth_sender_t) may be handled: its key is admitted now.
   Otherwise the refusal is logged (once a minute per key, naming the
   peer's address) and the caller drops the message. */
bool hearth_zap_admits (hearth_zap_t *self, const char *user_id,
                        const char *address);

/* Keys admitted now. */
size_t hearth_zap_size (const hearth_zap_t *self);

/* True if this public key (Z85) is admitted now.  Logs nothing. */
bool hearth_zap_allowed (hearth_zap_t *self, const char *key);

/* The roles of this public key (Z85; NULL accepted) now: 0 when it is
   not admitted. */
unsigned hearth_zap_roles (hearth_zap_t *self, const char *key);

/* The name of the key file that admits this key ("alice.key", borrowed
   until the next reload), or NULL when it is not admitted. */
const char *hearth_zap_name (hearth_zap_t *self, const char *key);

/* The user that the key file admitting this key names (its metadata's
   `user`, keys.h; borrowed until the next reload), or NULL when it names
   none or the key is not admitted.  A key in several directories has the
   first user found. */
const char *hearth_zap_user (hearth_zap_t *self, const char *key);

/* True when the directories give keys different roles (more than one
   directory); false when every key may do everything. */
bool hearth_zap_has_roles (const hearth_zap_t *self);

/* The handler's socket (borrowed), to watch for input. */
zsock_t *hearth_zap_sock (hearth_zap_t *self);

/* Answer the pending ZAP requests. */
void hearth_zap_handle (hearth_zap_t *self);

/* Watch sock's failed handshakes; returns a socket (owned by self) to
   watch for input, calling hearth_zap_on_monitor() when readable.  name
   says which socket in the log ("ROUTER", "events"). */
zsock_t *hearth_zap_watch (hearth_zap_t *self, zsock_t *sock, const char *name,
                           hearth_error_t *err);
void hearth_zap_on_monitor (hearth_zap_t *self, zsock_t *monitor);

/* Refusals seen (decided by the handler or failed handshakes). */
size_t hearth_zap_refusals (const hearth_zap_t *self);

#endif

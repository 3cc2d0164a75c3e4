/*  runas.h - whom a worker runs each executor and cluster-mode driver
    as (docs/security.md, "Tasks run as their submitter").

    The master names, in LAUNCH_EXECUTOR and LAUNCH_DRIVER, the key that
    submitted the application (owner), its key file's name (owner_name)
    and the user that key file names (user).  A worker running as root
    runs the child as:

        1. the user of the worker's --user-map entry for the key (its
           public key, its key file's name "alice.key", or that name
           without ".key"), when there is one; "-" there refuses the key;
        2. else the user the key names;
        3. else nobody: the launch is refused ("... names no user"),
           unless --allow-root-tasks (a single-user cluster): then it
           runs as the worker, root.

    The user must exist on this node (the passwd database), and be
    other than root (uid 0) unless --allow-root-tasks.  The child gets
    that user's uid, gid and groups (the group database's, as
    initgroups would set them).

    A launch without an owner comes from a master without CURVE (a
    loopback master, local-cluster, --insecure): there are no keys to
    name anyone, and the child runs as the worker's user, as before.
    But a worker that has keys talks only to a master that has them,
    which names the owner of everything it launches: a launch without
    one there is an application or a driver the master recorded before
    it had keys (its journal), and would run as root; it is refused
    unless --allow-root-tasks.  A worker that is not root cannot change
    users: it runs everything as itself.

    A refusal (the policy's: no user, no such user, root, the map's "-",
    no owner on a keyed worker) is final for the application: no other
    launch of it would do better here.  A lookup that fails (the passwd
    or group database cannot be read: an LDAP server that does not
    answer, EIO, no memory) is not a refusal: that launch fails, as one
    that cannot be spawned does, and the master may try again.

    The map is read at start and again at each runas_reload (SIGHUP);
    a file that cannot be read or parsed is refused with its line, and
    the previous map stays.  Nothing here reads a clock.
*/
#ifndef HEARTH_WORKER_RUNAS_H
#define HEARTH_WORKER_RUNAS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "libcore/error.h"
#include "libcore/keys.h"
#include "libcore/spawn.h"

typedef struct runas runas_t;

/* The code (hearth_error_t's) of runas_resolve's refusals. */
#define RUNAS_REFUSED "user_refused"

/* Settings (borrowed by runas_new, which copies them). */
typedef struct {
    const char *map_path; /* --user-map FILE, or NULL */
    bool allow_root;      /* --allow-root-tasks: a key may map to root,
                             and one that names no user runs as root */
    bool keys;            /* the worker has CURVE keys: a launch without
                             an owner is refused (unless allow_root) */
} runas_config_t;

/* Whom one child runs as. */
typedef struct {
    bool switched;                  /* it runs as this user, not as the
                                       worker's (then ids is set) */
    char name[HEARTH_USER_MAX + 1]; /* the user's name */
    char home[1024];                /* its home directory */
    hearth_spawn_ids_t ids;         /* its uid, gid and groups (groups
                                       owned: runas_user_clear) */
} runas_user_t;

/* What a launch says of its submitter (all borrowed; NULL: absent). */
typedef struct {
    const char *owner;      /* the key (Z85) */
    const char *owner_name; /* its key file's name ("alice.key") */
    const char *user;       /* the user that key file names */
} runas_owner_t;

/* A new policy: the worker's own user, and the map read.  NULL with err
   (no memory, a map that cannot be read or parsed). */
runas_t *runas_new (const runas_config_t *config, hearth_error_t *err);

/* Free it.  Accepts NULL and a NULL *self_p; nulls it; keeps errno. */
void runas_destroy (runas_t **self_p);

/* Read the map again.  Returns its entries, or -1 with err (the previous
   map stays). */
int runas_reload (runas_t *self, hearth_error_t *err);

/* Whether children may run as other users than the worker's (it is
   root). */
bool runas_switches (const runas_t *self);

/* Say once, at start, whom children run as (keys: the worker has
   CURVE keys, so launches name their submitters): INFO when they run as
   their keys' users, WARN when they run as the worker's user (not root)
   or as root (no keys; INFO when its master admits only root's tools,
   cookie: a loopback master, libcore/cookie.h).  When they run as other users,
   also WARN if a directory on the way to work_dir is not searchable by them. */
void runas_announce (const runas_t *self, bool keys, bool cookie,
                     const char *work_dir);

/* Whom to run a child of o's as, into *u (cleared first; the caller
   clears it after use).  Returns 0, or -1 with err saying why it must
   not run: err->code RUNAS_REFUSED when the policy refuses it ("the key
   alice.key (...) names no user: ..."), another code when the user
   could not be looked up ("cannot look up the user alice (of the key
   ...) on node4: Input/output error"). */
int runas_resolve (runas_t *self, const runas_owner_t *o, runas_user_t *u,
                   hearth_error_t *err);

/* Free u's groups (accepts a cleared or resolved u; idempotent). */
void runas_user_clear (runas_user_t *u);

#endif

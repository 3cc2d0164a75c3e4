/*  zkacl.h - who may touch the election's nodes in ZooKeeper (issue 35;
    docs/high-availability.md "Securing ZooKeeper", docs/security.md).

    With credentials (--zookeeper-auth FILE, "user:password" for
    ZooKeeper's digest scheme, the same for every master of a cluster),
    every node a candidate makes gives that identity every right and
    everyone else READ: only the masters may create, change or delete the
    election's nodes; anyone may look at them (they hold the masters' URLs,
    which every client is given anyway).

    Without credentials ZooKeeper has no identity to give rights to, so
    the nodes get the least that still works: a candidate's node READ for
    everyone (nobody can rewrite it or take its rights; the servers still
    remove it with its session, whatever its ACL), the directories READ
    and CREATE (candidates add their nodes there; nobody may delete
    another's).  Anyone who reaches ZooKeeper can still add nodes of
    their own to the election: that is what credentials are for.

    A directory that exists already with rights for everyone beyond these
    (made by an older Hearth, or by hand) is narrowed to them when ZooKeeper
    lets this candidate change its ACL; otherwise a warning says what is
    open and how to close it.
*/
#ifndef HEARTH_ZKACL_H
#define HEARTH_ZKACL_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/error.h"

/* ZooKeeper's types, declared only: its header defines zsock_t and
   zcert_t as czmq does, so that the master (which includes czmq's) must
   not include it. */
struct ACL_vector;
struct _zhandle;

/* Longest "user:password" of an auth file, in bytes. */
#define ZKACL_AUTH_MAX 256

/* Read the credentials of path, its first line "user:password" (user not
   empty, without ':'; password not empty; the line end dropped), into buf
   (at least ZKACL_AUTH_MAX + 1 bytes).  Refused (-1 with err naming the
   file) when it cannot be read, is not a regular file (a FIFO there
   does not block), belongs to neither this process's user nor root
   (whoever owns it may change it, or its mode), may be read or written
   by its group or others (the rule of secret key files), or holds no
   such line.  0 otherwise. */
int zkacl_read_auth (const char *path, char *buf, size_t size,
                     hearth_error_t *err);

/* The ACL of a candidate's node, and of a directory, with credentials
   (auth) or without (static: borrowed). */
const struct ACL_vector *zkacl_node (bool auth);
const struct ACL_vector *zkacl_dir (bool auth);

/* The rights acl gives everyone ("world:anyone") beyond those of want,
   as ZooKeeper's letters ("cdrwa"), into buf; "" when none.  Returns
   buf. */
const char *zkacl_extra (const struct ACL_vector *acl,
                         const struct ACL_vector *want, char *buf, size_t size);

/* Narrow the ACL of the existing directory path to zkacl_dir (auth) when
   it gives everyone more (logged at WARN either way: what was open, and
   whether it is closed now or how to close it).  ZOK, or ZooKeeper's
   error reading it (ZNONODE: it is not there). */
int zkacl_narrow_dir (struct _zhandle *zh, const char *path, bool auth);

#endif

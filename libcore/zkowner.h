/*  zkowner.h - whose the cluster's directory in ZooKeeper is: a master
    with credentials joins an election that only the masters may change,
    or none (issue 35; docs/high-availability.md "Securing ZooKeeper",
    docs/security.md "ZooKeeper").

    In ZooKeeper the right to delete a node is DELETE on its parent, and
    to add one, CREATE on the parent; ADMIN on a node lets its holder
    give itself every other right there.  So whoever has more than READ
    on DIR/election decides who leads (it deletes the leader's node, or
    adds one that sorts lowest and no master leads), and whoever has more
    than READ on DIR may take DIR/election away when it is empty, or make
    it first.  A stranger who reaches the ensemble before the masters'
    first start (a shared ZooKeeper, a predictable --zookeeper-dir) can
    make both for itself, with just enough rights for the masters to
    join.

    With credentials, the masters' identity is the digest identity of
    their credentials (zkident.h), and a master joins only when DIR and
    DIR/election give no other identity more than READ:
    - rights of everyone ("world:anyone") beyond READ, as an older
      Hearth or zkCli's default left them, are narrowed to the masters'
      first when ZooKeeper lets this master (zkacl_narrow_dir: the
      upgrade path of a running cluster), and refused when it does not;
    - rights of any other identity (a digest user, an address, SASL or
      x509) beyond READ are refused, and not repaired even when this
      master could (ADMIN): what the stranger did with its rights before
      stays (a node in the election: an ephemeral one of its live session
      looks like a candidate's, a persistent one that sorts lowest keeps
      every master from leading), and a directory made for another
      identity is more likely someone else's (another cluster on a shared
      ensemble, a mistyped --zookeeper-dir) than the cluster's.  The
      operator decides: a new --zookeeper-dir, or setAcl by the owner or
      ZooKeeper's superuser; the master looks again on every retry, and
      joins once the ACL is right.

    Without credentials the masters have no identity of their own to
    tell from a stranger's (an "ip:" entry may be how the operator keeps
    the nodes to the masters' hosts): the directory is used as before,
    and a warning names whoever else has more than READ there and what it
    may do.
*/
#ifndef HEARTH_ZKOWNER_H
#define HEARTH_ZKOWNER_H

#include <stdbool.h>
#include <stddef.h>

/* ZooKeeper's types, declared only (zkacl.h says why). */
struct ACL_vector;
struct _zhandle;

/* zkowner_check's refusal: positive, unlike ZooKeeper's errors (ZOK is
   0, the others negative). */
#define ZKOWNER_REFUSED 1

/* The identities that acl gives a right beyond READ, other than
   "world:anyone" and other than self ("user:HASH", the masters' digest
   identity; NULL: none), as "scheme:id 'rights'" (rights in ZooKeeper's
   letters, "cdrwa") joined by ", ", into buf (truncated to size); ""
   when there are none.  Returns buf.
   ZooKeeper hides a digest's hash ("user:x") from a client without
   ADMIN on the node: such an entry is never taken for self's (it may be
   another password of the same user), so a directory where the masters'
   identity lacks ADMIN is not theirs alone as far as they can tell;
   one of self's user is said to be so. */
const char *zkowner_others (const struct ACL_vector *acl, const char *self,
                            char *buf, size_t size);

/* Judge the existing directory path for a master of identity self (NULL:
   no credentials), narrowing everyone's rights there first when narrow
   is set (zkacl_narrow_dir, which logs).  With credentials: ZOK when no
   identity but self has more than READ there; ZKOWNER_REFUSED when one
   has, with who (size bytes) naming them as zkowner_others does
   ("world:anyone 'rights'" for everyone's).  Without credentials: ZOK,
   having warned of the others first.  Or ZooKeeper's error reading the
   ACL (ZNONODE: it is not there). */
int zkowner_check (struct _zhandle *zh, const char *path, const char *self,
                   bool narrow, char *who, size_t size);

#endif

/*  zkident.h - the identity ZooKeeper gives the masters' credentials
    (issue 35; zkowner.h says what it is compared with).

    ZooKeeper's digest scheme names whoever authenticates with
    "user:password" by the identity "user:BASE64(SHA1(user:password))",
    the id that an ACL entry "digest:user:HASH" holds: the servers work it
    out from the credentials each session sends (zkacl.h, "auth"), and a
    master works it out the same way to recognise its own entries in an
    ACL that someone else wrote.  Two passwords of one user name are two
    identities.

    Apart from zkowner.c because it hashes with czmq (zdigest, SHA-1),
    whose header may not meet ZooKeeper's (zkacl.h).
*/
#ifndef HEARTH_ZKIDENT_H
#define HEARTH_ZKIDENT_H

/* The digest identity of auth ("user:password", as zkacl_read_auth
   reads it; borrowed): "user:HASH", which the caller frees.  NULL when
   auth has no ':' (errno EINVAL) or on no memory (ENOMEM). */
char *zkident_digest (const char *auth);

#endif

/*  zkowner.c - whose the cluster's directory in ZooKeeper is; see
    zkowner.h. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <zookeeper/zookeeper.h>

#include "libcore/log.h"
#include "libcore/zkacl.h"
#include "libcore/zkowner.h"

/* perms in ZooKeeper's letters ("cdrwa") into buf, as zkacl_extra spells
   everyone's rights beyond none. */
static const char *
s_letters (int32_t perms, char *buf, size_t size)
{
    struct ACL one = {perms, {(char *) "world", (char *) "anyone"}};
    struct ACL_vector have = {1, &one}, none = {0, NULL};
    return zkacl_extra (&have, &none, buf, size);
}

static bool
s_is (const struct Id *id, const char *scheme, const char *name)
{
    return strcmp (id->scheme, scheme) == 0 && strcmp (id->id, name) == 0;
}

/* id is a digest of self's user whose hash ZooKeeper hid ("user:x":
   it shows a digest's hash only to a client with ADMIN on the node), so
   that it may be self's or another password's. */
static bool
s_hidden_self (const struct Id *id, const char *self)
{
    const char *colon = self ? strchr (self, ':') : NULL;
    size_t user = colon ? (size_t) (colon - self) : 0;
    return colon && strcmp (id->scheme, "digest") == 0
           && strncmp (id->id, self, user + 1) == 0
           && strcmp (id->id + user + 1, "x") == 0;
}

const char *
zkowner_others (const struct ACL_vector *acl, const char *self, char *buf,
                size_t size)
{
    size_t n = 0;
    if (size)
        buf[0] = '\0';
    for (int32_t i = 0; i < acl->count && n < size; i++) {
        const struct ACL *e = &acl->data[i];
        if (!(e->perms & ~ZOO_PERM_READ) || s_is (&e->id, "world", "anyone")
            || (self && s_is (&e->id, "digest", self)))
            continue;
        char rights[8];
        int w = snprintf (buf + n, size - n, "%s%s:%s '%s'%s", n ? ", " : "",
                          e->id.scheme, e->id.id,
                          s_letters (e->perms, rights, sizeof rights),
                          s_hidden_self (&e->id, self)
                              ? " (this user's, but ZooKeeper shows which "
                                "password only to holders of ADMIN there: "
                                "these masters need it to know their own)"
                              : "");
        n += w > 0 ? (size_t) w : 0;
    }
    return buf;
}

/* Read path's ACL: everyone's rights there (*world), those of them
   beyond what a directory of the masters gives (zkacl_dir) into extra,
   and the others' into who.  ZOK or ZooKeeper's error. */
static int
s_read (zhandle_t *zh, const char *path, const char *self, int32_t *world,
        char *extra, size_t extra_size, char *who, size_t size)
{
    struct ACL_vector acl = {0, NULL};
    struct Stat st;
    int rc = zoo_get_acl (zh, path, &acl, &st);
    if (rc != ZOK)
        return rc;
    *world = 0;
    for (int32_t i = 0; i < acl.count; i++)
        if (s_is (&acl.data[i].id, "world", "anyone"))
            *world |= acl.data[i].perms;
    zkacl_extra (&acl, zkacl_dir (self != NULL), extra, extra_size);
    zkowner_others (&acl, self, who, size);
    deallocate_ACL_vector (&acl);
    return ZOK;
}

int
zkowner_check (zhandle_t *zh, const char *path, const char *self, bool narrow,
               char *who, size_t size)
{
    char extra[8];
    int32_t world;
    int rc = s_read (zh, path, self, &world, extra, sizeof extra, who, size);
    if (rc != ZOK)
        return rc;
    if (*who && self)
        return ZKOWNER_REFUSED; /* not repaired: zkowner.h says why */
    if (*who)
        /* said before a narrowing takes the entries away */
        log_warn ("zookeeper: %s gives %s: beyond READ; whoever holds that "
                  "may delete the leader's node or add one that sorts "
                  "lowest (then no master leads).  Without "
                  "--zookeeper-auth a master has no identity of its own to "
                  "tell from theirs, and uses the directory; with it, it "
                  "would refuse it (docs/high-availability.md, \"Securing "
                  "ZooKeeper\")",
                  path, who);
    if (!*extra)
        return ZOK;
    if (narrow && (rc = zkacl_narrow_dir (zh, path, self != NULL)) != ZOK)
        return rc;
    if (!self)
        return ZOK; /* as closed as ZooKeeper allows: zkacl_narrow_dir said */
    /* with credentials, everyone too gets READ at most: narrowed now? */
    rc = s_read (zh, path, self, &world, extra, sizeof extra, who, size);
    if (rc != ZOK)
        return rc;
    char rights[8];
    size_t n = strlen (who);
    if (*extra)
        snprintf (who + n, size - n, "%sworld:anyone '%s'", n ? ", " : "",
                  s_letters (world, rights, sizeof rights));
    return *who ? ZKOWNER_REFUSED : ZOK;
}

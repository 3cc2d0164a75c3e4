/*  zkacl.c - the election's ACLs and the masters' ZooKeeper credentials;
    see zkacl.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>

#include "libcore/log.h"
#include "libcore/safefile.h"
#include "libcore/zkacl.h"

/* ZooKeeper's identities (its own ZOO_AUTH_IDS and ZOO_ANYONE_ID_UNSAFE,
   like its ZOO_PERM_* rights, are variables, which no static
   initialiser may read: the ACLs are filled on each use). */
#define S_CREATOR                                                              \
    {                                                                          \
        (char *) "auth", (char *) ""                                           \
    }
#define S_ANYONE                                                               \
    {                                                                          \
        (char *) "world", (char *) "anyone"                                    \
    }

static struct ACL s_closed[2];    /* the masters' identity, READ for all */
static struct ACL s_node_open[1]; /* READ for all */
static struct ACL s_dir_open[1];  /* READ and CREATE for all */
static struct ACL_vector s_closed_v = {2, s_closed};
static struct ACL_vector s_node_open_v = {1, s_node_open};
static struct ACL_vector s_dir_open_v = {1, s_dir_open};

static void
s_fill (void)
{
    s_closed[0] = (struct ACL){ZOO_PERM_ALL, S_CREATOR};
    s_closed[1] = (struct ACL){ZOO_PERM_READ, S_ANYONE};
    s_node_open[0] = (struct ACL){ZOO_PERM_READ, S_ANYONE};
    s_dir_open[0] = (struct ACL){ZOO_PERM_READ | ZOO_PERM_CREATE, S_ANYONE};
}

const struct ACL_vector *
zkacl_node (bool auth)
{
    s_fill ();
    return auth ? &s_closed_v : &s_node_open_v;
}

const struct ACL_vector *
zkacl_dir (bool auth)
{
    /* with credentials a directory is as closed as a node */
    s_fill ();
    return auth ? &s_closed_v : &s_dir_open_v;
}

/* The rights acl gives world:anyone. */
static int32_t
s_world (const struct ACL_vector *acl)
{
    int32_t perms = 0;
    for (int32_t i = 0; i < acl->count; i++)
        if (strcmp (acl->data[i].id.scheme, "world") == 0
            && strcmp (acl->data[i].id.id, "anyone") == 0)
            perms |= acl->data[i].perms;
    return perms;
}

const char *
zkacl_extra (const struct ACL_vector *acl, const struct ACL_vector *want,
             char *buf, size_t size)
{
    const struct {
        int32_t perm;
        char letter;
    } letters[] = {{ZOO_PERM_CREATE, 'c'},
                   {ZOO_PERM_DELETE, 'd'},
                   {ZOO_PERM_READ, 'r'},
                   {ZOO_PERM_WRITE, 'w'},
                   {ZOO_PERM_ADMIN, 'a'}};
    int32_t extra = s_world (acl) & ~s_world (want);
    size_t n = 0;
    for (size_t i = 0; i < sizeof letters / sizeof *letters; i++)
        if ((extra & letters[i].perm) && n + 1 < size)
            buf[n++] = letters[i].letter;
    if (size)
        buf[n < size ? n : size - 1] = '\0';
    return buf;
}

int
zkacl_narrow_dir (zhandle_t *zh, const char *path, bool auth)
{
    struct ACL_vector have = {0, NULL};
    struct Stat st;
    int rc = zoo_get_acl (zh, path, &have, &st);
    if (rc != ZOK)
        return rc;
    char extra[8];
    zkacl_extra (&have, zkacl_dir (auth), extra, sizeof extra);
    deallocate_ACL_vector (&have);
    if (!*extra)
        return ZOK;
    rc = zoo_set_acl (zh, path, st.aversion, zkacl_dir (auth));
    if (rc == ZOK)
        log_warn ("zookeeper: %s gave everyone the rights '%s' (made by an "
                  "older Hearth, or by hand): narrowed to %s",
                  path, extra,
                  auth ? "the masters' identity, and READ for everyone"
                       : "READ and CREATE for everyone");
    else
        log_warn ("zookeeper: %s gives everyone the rights '%s' and this "
                  "master may not change its ACL (%s): anyone who reaches "
                  "ZooKeeper may %s its nodes.  Use a new --zookeeper-dir, "
                  "or have ZooKeeper's superuser set its ACL "
                  "(docs/high-availability.md, \"Securing ZooKeeper\")",
                  path, extra, zerror (rc),
                  strchr (extra, 'd') ? "delete" : "add to");
    return ZOK;
}

/* The first line of the open file fd (path: for messages) into buf. */
static int
s_read_line (int fd, const char *path, char *buf, size_t size,
             hearth_error_t *err)
{
    char line[ZKACL_AUTH_MAX + 2];
    ssize_t got = read (fd, line, sizeof line - 1);
    if (got < 0)
        return hearth_errprintf (err,
                                 "cannot read the ZooKeeper auth file "
                                 "%s: %s",
                                 path, strerror (errno));
    line[got] = '\0';
    size_t n = strcspn (line, "\n");
    if (n && line[n - 1] == '\r')
        n--;
    int rc = 0;
    const char *colon = memchr (line, ':', n);
    if (n > ZKACL_AUTH_MAX)
        rc = hearth_errprintf (err,
                               "the first line of the ZooKeeper auth file "
                               "%s is longer than %d bytes",
                               path, ZKACL_AUTH_MAX);
    else if (!colon || colon == line || colon == line + n - 1 || n >= size)
        rc = hearth_errprintf (err,
                               "the ZooKeeper auth file %s holds no "
                               "credentials: its first line must be "
                               "user:password",
                               path);
    else {
        memcpy (buf, line, n);
        buf[n] = '\0';
    }
    explicit_bzero (line, sizeof line);
    return rc;
}

int
zkacl_read_auth (const char *path, char *buf, size_t size, hearth_error_t *err)
{
    /* the name is the administrator's (a link is followed); what it names
       is judged on what was opened, not on the name again, and a FIFO
       there does not block the master's start */
    struct stat st;
    int fd = hearth_file_open_regular_at (AT_FDCWD, path, O_RDONLY, 0, &st);
    int rc = 0;
    if (fd < 0)
        return hearth_errprintf (err,
                                 "cannot read the ZooKeeper auth file "
                                 "%s: %s",
                                 path, hearth_file_why (errno));
    if (st.st_uid != geteuid () && st.st_uid != 0)
        rc = hearth_errprintf (err,
                               "the ZooKeeper auth file %s belongs to uid "
                               "%u, neither this master's user (uid %u) nor "
                               "root: refused; chown it",
                               path, (unsigned) st.st_uid,
                               (unsigned) geteuid ());
    else if (st.st_mode & (S_IRWXG | S_IRWXO))
        rc = hearth_errprintf (err,
                               "the ZooKeeper auth file %s may be read by "
                               "others (mode %04o): refused; chmod 600 %s",
                               path, (unsigned) (st.st_mode & 07777), path);
    else
        rc = s_read_line (fd, path, buf, size, err);
    close (fd);
    return rc;
}

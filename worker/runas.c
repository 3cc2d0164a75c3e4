/*  runas.c - whom each child runs as: the --user-map, the key's user,
    the passwd and group databases; see runas.h. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/keymap.h"
#include "libcore/log.h"
#include "worker/runas.h"

/* A map entry that refuses the key. */
static const char s_refused[] = "-";
/* Buffer for one getpwnam_r (grown while it says ERANGE, up to the
   max). */
static const size_t s_pw_buf = 4096, s_pw_buf_max = 1024 * 1024;
/* Supplementary groups of a user looked for at first (grown as
   getgrouplist asks), and at most. */
static const int s_groups_first = 64, s_groups_max = 65536;

struct runas {
    bool root;                           /* the worker runs as root */
    bool allow_root;                     /* --allow-root-tasks */
    bool keys;                           /* the worker has CURVE keys */
    char *map_path;                      /* --user-map, or NULL */
    zhashx_t *map;                       /* key or key file name -> user
                                            (strings, owned), or NULL */
    char self_name[HEARTH_USER_MAX + 1]; /* the worker's user */
};

/* --- the map ------------------------------------------------------------ */

/* A user's text: the map's value (keymap.h). */
static void *
s_user (const char *text, hearth_error_t *err)
{
    if (strcmp (text, s_refused) != 0 && !hearth_user_name_valid (text)) {
        hearth_errprintf (err,
                          "'%.40s' is not a user name (letters, digits, '.', "
                          "'_', '-', at most %d; or '-': refused)",
                          text, HEARTH_USER_MAX);
        return NULL;
    }
    char *copy = strdup (text);
    if (!copy)
        hearth_errprintf (err, "out of memory");
    return copy;
}

int
runas_reload (runas_t *self, hearth_error_t *err)
{
    if (!self->map_path)
        return 0;
    zhashx_t *map = hearth_keymap_read (self->map_path, "the user map",
                                        "KEY USER", s_user, err);
    if (!map)
        return -1;
    zhashx_destroy (&self->map);
    self->map = map;
    log_info ("user map: %zu keys in %s", zhashx_size (map), self->map_path);
    return (int) zhashx_size (map);
}

/* --- the policy ---------------------------------------------------------- */

runas_t *
runas_new (const runas_config_t *c, hearth_error_t *err)
{
    runas_t *self = calloc (1, sizeof *self);
    if (!self || (c->map_path && !(self->map_path = strdup (c->map_path)))) {
        runas_destroy (&self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->root = geteuid () == 0;
    self->allow_root = c->allow_root;
    self->keys = c->keys;
    struct passwd pw, *found = NULL;
    char buf[4096];
    if (getpwuid_r (geteuid (), &pw, buf, sizeof buf, &found) == 0 && found)
        snprintf (self->self_name, sizeof self->self_name, "%s", pw.pw_name);
    else
        snprintf (self->self_name, sizeof self->self_name, "%u",
                  (unsigned) geteuid ());
    if (runas_reload (self, err) < 0)
        runas_destroy (&self);
    return self;
}

void
runas_destroy (runas_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    runas_t *self = *self_p;
    zhashx_destroy (&self->map);
    free (self->map_path);
    free (self);
    *self_p = NULL;
    errno = saved;
}

bool
runas_switches (const runas_t *self)
{
    return self->root;
}

/* The first directory from work_dir up to / that users other than its
   owner cannot search (no o+x), into buf; false when there is none. */
static bool
s_unreachable (const char *work_dir, char *buf, size_t size)
{
    char path[4096];
    snprintf (path, sizeof path, "%s", work_dir);
    for (;;) {
        struct stat st;
        if (stat (path[0] ? path : "/", &st) == 0 && !(st.st_mode & S_IXOTH)) {
            snprintf (buf, size, "%s (mode %04o)", path[0] ? path : "/",
                      (unsigned) (st.st_mode & 07777));
            return true;
        }
        char *slash = strrchr (path, '/');
        if (!slash || !path[0])
            return false;
        *slash = '\0';
    }
}

void
runas_announce (const runas_t *self, bool keys, bool cookie,
                const char *work_dir)
{
    char dir[4200];
    if (!self->root)
        hearth_log (keys ? HEARTH_LOG_WARN : HEARTH_LOG_INFO,
                    "tasks run as this worker's user, %s (uid %u): it is not "
                    "root, so it cannot run them as the users their keys name; "
                    "they can read what it can (its key) and leave their "
                    "cgroups (docs/security.md)",
                    self->self_name, (unsigned) geteuid ());
    else if (!keys) /* on loopback, only root's own tools reach the master
                       (its cookie): a single user's cluster */
        hearth_log (cookie ? HEARTH_LOG_INFO : HEARTH_LOG_WARN,
                    "tasks run as root: without keys no launch names its "
                    "submitter (with keys, tasks run as the users their keys "
                    "name)%s",
                    cookie ? "; the master admits only root's own tools (its "
                             "cookie)"
                           : "");
    else {
        log_info ("tasks run as the users their keys name%s%s; %s",
                  self->map_path ? ", or --user-map " : "",
                  self->map_path ? self->map_path : "",
                  self->allow_root
                      ? "those of a key without one, or naming root, run as "
                        "root (--allow-root-tasks), as do launches naming no "
                        "key"
                      : "a key without one, or naming root, is refused, as "
                        "is a launch naming no key");
        if (s_unreachable (work_dir, dir, sizeof dir))
            log_warn ("the tasks' users cannot reach the work dir %s: %s "
                      "is not searchable by others (chmod o+x)",
                      work_dir, dir);
    }
}

/* "alice.key (Ne&p!5...)": o's key for a message, into buf. */
static const char *
s_key_text (const runas_owner_t *o, char *buf, size_t size)
{
    snprintf (buf, size, "%s (%.8s...)",
              o->owner_name ? o->owner_name : "of its submitter", o->owner);
    return buf;
}

/* name's passwd entry into u (its uid, gid, home).  0, or -1 with errno
   0 when there is no such user (getpwnam_r found none), or with the
   lookup's error (the database could not be read: EIO, ENOMEM, an LDAP
   server that does not answer...). */
static int
s_passwd (const char *name, runas_user_t *u)
{
    struct passwd pw, *found = NULL;
    size_t size = s_pw_buf;
    char *buf = NULL;
    int rc;
    do {
        char *bigger = realloc (buf, size);
        if (!bigger) {
            free (buf);
            errno = ENOMEM;
            return -1;
        }
        buf = bigger;
        rc = getpwnam_r (name, &pw, buf, size, &found);
        size *= 2;
    } while (rc == ERANGE && size <= s_pw_buf_max);
    if (rc == 0 && found) {
        u->ids.uid = pw.pw_uid;
        u->ids.gid = pw.pw_gid;
        snprintf (u->home, sizeof u->home, "%s", pw.pw_dir ? pw.pw_dir : "/");
    }
    free (buf);
    errno = rc;
    return rc == 0 && found ? 0 : -1;
}

/* name's groups (its gid among them) into u.  0, or -1 when they could
   not be read (no memory, more than s_groups_max, the database). */
static int
s_groups (const char *name, runas_user_t *u)
{
    int n = s_groups_first;
    gid_t *groups = NULL;
    for (;;) {
        gid_t *bigger = realloc (groups, (size_t) n * sizeof *groups);
        if (!bigger) {
            free (groups);
            return -1;
        }
        groups = bigger;
        int want = n;
        errno = 0; /* what the group database says, if anything */
        if (getgrouplist (name, u->ids.gid, groups, &want) >= 0) {
            u->ids.groups = groups;
            u->ids.ngroups = (size_t) want;
            return 0;
        }
        if (want <= n || want > s_groups_max) {
            free (groups);
            return -1;
        }
        n = want;
    }
}

/* The user's ids into u, or -1 with err saying why not: a refusal
   (RUNAS_REFUSED: no such user, root), or a lookup that failed. */
static int
s_lookup (runas_t *self, const char *name, const char *key, runas_user_t *u,
          hearth_error_t *err)
{
    char host[256] = "this node";
    gethostname (host, sizeof host);
    host[sizeof host - 1] = '\0';
    if (s_passwd (name, u) < 0 && errno == 0)
        return hearth_errcode (err, RUNAS_REFUSED,
                               "the key %s maps to the user %s, who does "
                               "not exist on %s",
                               key, name, host);
    if (errno != 0) /* s_passwd failed: the database, not the user */
        return hearth_errprintf (err,
                                 "cannot look up the user %s (of the key "
                                 "%s) on %s: %s",
                                 name, key, host, strerror (errno));
    if (u->ids.uid == 0 && !self->allow_root)
        return hearth_errcode (err, RUNAS_REFUSED,
                               "the key %s maps to %s, the superuser: this "
                               "worker runs no task as root "
                               "(--allow-root-tasks)",
                               key, name);
    if (u->ids.uid == 0) {
        snprintf (u->name, sizeof u->name, "%s", self->self_name);
        return 0; /* root, allowed: as the worker */
    }
    if (s_groups (name, u) < 0)
        return hearth_errprintf (err,
                                 "cannot read the groups of the user %s on "
                                 "%s%s%s",
                                 name, host, errno ? ": " : "",
                                 errno ? strerror (errno) : "");
    snprintf (u->name, sizeof u->name, "%s", name);
    u->switched = true;
    return 0;
}

/* A launch that names no key (o->owner NULL): as the worker, unless it
   has keys, when its master would name one (an application or a driver
   the master recorded before it had keys): then refused, unless
   --allow-root-tasks.  0 or -1 with err. */
static int
s_ownerless (const runas_t *self, hearth_error_t *err)
{
    if (!self->keys || self->allow_root)
        return 0;
    return hearth_errcode (err, RUNAS_REFUSED,
                           "the launch names no key (an application or "
                           "driver recorded before the master had keys?): "
                           "this worker has keys, so it would run it as "
                           "root, which it does only with "
                           "--allow-root-tasks");
}

int
runas_resolve (runas_t *self, const runas_owner_t *o, runas_user_t *u,
               hearth_error_t *err)
{
    memset (u, 0, sizeof *u);
    snprintf (u->name, sizeof u->name, "%s", self->self_name);
    if (!self->root)
        return 0; /* as the worker: it cannot change users */
    if (!o->owner)
        return s_ownerless (self, err);
    char key[300];
    s_key_text (o, key, sizeof key);
    const char *mapped =
        hearth_keymap_lookup (self->map, o->owner, o->owner_name);
    if (mapped && strcmp (mapped, s_refused) == 0)
        return hearth_errcode (err, RUNAS_REFUSED,
                               "the key %s may run nothing on this worker "
                               "(its --user-map says '-')",
                               key);
    const char *name = mapped ? mapped : o->user;
    if (!name && self->allow_root)
        return 0; /* a single-user cluster: as the worker, root */
    if (!name)
        return hearth_errcode (err, RUNAS_REFUSED,
                               "the key %s names no user: tasks run as "
                               "their key's user (hearth-keygen --user, "
                               "or the worker's --user-map), never as "
                               "root unless --allow-root-tasks",
                               key);
    if (!hearth_user_name_valid (name))
        return hearth_errcode (err, RUNAS_REFUSED,
                               "the key %s names '%.40s', which is not a "
                               "user name",
                               key, name);
    int rc = s_lookup (self, name, key, u, err);
    if (rc < 0)
        runas_user_clear (u);
    return rc;
}

void
runas_user_clear (runas_user_t *u)
{
    free ((gid_t *) u->ids.groups);
    u->ids.groups = NULL;
    u->ids.ngroups = 0;
}

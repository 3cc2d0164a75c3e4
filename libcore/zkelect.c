/*  zkelect.c - leader election through ZooKeeper; see zkelect.h.

    Level-triggered: whatever ZooKeeper says (a session event, a watched
    node gone), the owner's thread looks at the whole picture again (the
    session's state, the election's children) and decides from that, so
    no event can be lost between two decisions.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zookeeper/zookeeper.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/loglimit.h"
#include "libcore/zkacl.h"
#include "libcore/zkelect.h"
#include "libcore/zkident.h"
#include "libcore/zkowner.h"

#define RETRY_MS 200
/* A failure that repeats every RETRY_MS (a refused create) is logged
   once this often. */
#define FAILURE_LOG_MS 60000
#define NODE_PREFIX "n_"
#define SEQ_DIGITS 10 /* ZooKeeper's sequence suffix */

struct zkelect {
    zhandle_t *zh;               /* the session's handle, or NULL between two */
    char *hosts;                 /* the ensemble */
    char *dir;                   /* DIR/election */
    char *data;                  /* this candidate's description */
    char *auth;                  /* "user:password" (digest), or NULL: none */
    char *ident;                 /* its digest identity "user:HASH", or NULL */
    bool guarded;                /* the directories were found the masters' on
                                    this session (zkowner.h) */
    bool narrow_tried;           /* everyone's rights there were narrowed, or
                                    found unchangeable, on this session */
    hearth_loglimit_t *failures; /* failed looks at the election, by error */
    char token[17];              /* names our node among the others (new with
                                    each session) */
    int session_ms;              /* asked for */
    char *node;                  /* our node's name (not path), or NULL */
    zkelect_fn *fn;              /* role changes */
    void *arg;                   /* given to fn */
    int pipe[2];                 /* the client threads' wake-up */
    atomic_bool expired; /* the session expired (a client thread saw it) */
    int64_t retry_at;    /* when to look again after a failure, or 0 */
    zkelect_role_t role; /* as last told */
    uint64_t epoch;      /* as last told */
    char *leader;        /* the leader's data as last told, or NULL */
};

static const char *const s_role_names[] = {"SUSPENDED", "STANDBY", "LEADER"};

const char *
zkelect_role_name (zkelect_role_t role)
{
    return s_role_names[role];
}

/* On a ZooKeeper client thread: wake the owner, nothing else (no call
   back into ZooKeeper from here: its synchronous calls would wait on this
   very thread). */
static void
s_watcher (zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    (void) zh;
    (void) path;
    zkelect_t *self = ctx;
    if (type == ZOO_SESSION_EVENT && state == ZOO_EXPIRED_SESSION_STATE)
        atomic_store (&self->expired, true);
    char one = 1;
    if (write (self->pipe[1], &one, 1) < 0) {
        /* full: a wake-up is pending already */
    }
}

/* The client's own messages (a refused connection every 50 ms while the
   ensemble is down, for instance): into our log, at debug level; what
   matters of them the roles say. */
static void
s_client_log (const char *message)
{
    size_t n = strlen (message);
    while (n && (message[n - 1] == '\n' || message[n - 1] == '\r'))
        n--;
    log_debug ("zookeeper client: %.*s", (int) n, message);
}

/* A new token: 16 hex digits from /dev/urandom.  0 or -1. */
static int
s_new_token (zkelect_t *self)
{
    unsigned char r[8];
    FILE *u = fopen ("/dev/urandom", "rb");
    bool random = u && fread (r, 1, sizeof r, u) == sizeof r;
    if (u)
        fclose (u);
    for (int i = 0; random && i < 8; i++)
        snprintf (self->token + 2 * i, 3, "%02x", r[i]);
    return random ? 0 : -1;
}

/* A new session; its node will have a new token, so that a node of the
   name of one of ours made by someone else after the session that made
   it ended is never taken for ours. */
static int
s_connect (zkelect_t *self)
{
    if (s_new_token (self) < 0)
        return -1;
    atomic_store (&self->expired, false);
    self->guarded = self->narrow_tried = false;
    self->zh = zookeeper_init2 (self->hosts, s_watcher, self->session_ms, NULL,
                                self, 0, s_client_log);
    if (!self->zh)
        return -1;
    /* Sent before any request of the session, and again by the client
       whenever it reconnects.  The digest scheme accepts any
       credentials: a wrong password is only another identity, which
       the ACLs then refuse (NoAuth, said by zkelect_dispatch). */
    if (self->auth
        && zoo_add_auth (self->zh, "digest", self->auth,
                         (int) strlen (self->auth), NULL, NULL)
               != ZOK) {
        zookeeper_close (self->zh);
        self->zh = NULL;
        return -1;
    }
    return 0;
}

/* Tell the owner when something it acts on changed. */
static void
s_tell (zkelect_t *self, zkelect_role_t role, uint64_t epoch,
        const char *leader, const char *why)
{
    bool same_leader =
        (!leader && !self->leader)
        || (leader && self->leader && strcmp (leader, self->leader) == 0);
    if (role == self->role && epoch == self->epoch && same_leader)
        return;
    self->role = role;
    self->epoch = epoch;
    free (self->leader);
    self->leader = leader ? strdup (leader) : NULL;
    zkelect_view_t v = {role, epoch, self->leader, why};
    self->fn (self->arg, &v);
}

static void
s_suspend (zkelect_t *self, const char *why)
{
    s_tell (self, ZKELECT_SUSPENDED, 0, NULL, why);
}

/* End the session (the servers remove its node, whatever its ACL) and
   suspend: the next dispatch joins again, on a new session. */
static void
s_drop_session (zkelect_t *self, const char *why)
{
    zookeeper_close (self->zh);
    self->zh = NULL;
    free (self->node);
    self->node = NULL;
    s_suspend (self, why);
}

/* The epoch a node's name gives: the sequence number at its end, plus
   one (ZooKeeper counts from 0; an epoch of 0 means none). */
static uint64_t
s_seq (const char *name)
{
    size_t n = strlen (name);
    return n > SEQ_DIGITS ? strtoull (name + n - SEQ_DIGITS, NULL, 10) + 1 : 0;
}

static int
s_by_seq (const void *a, const void *b)
{
    uint64_t x = s_seq (*(char *const *) a), y = s_seq (*(char *const *) b);
    return x < y ? -1 : x > y;
}

/* Make DIR/election and its parents; 0 or the ZooKeeper error. */
static int
s_make_dirs (zkelect_t *self)
{
    char path[1024];
    for (const char *p = strchr (self->dir + 1, '/');;
         p = strchr (p + 1, '/')) {
        size_t n = p ? (size_t) (p - self->dir) : strlen (self->dir);
        memcpy (path, self->dir, n);
        path[n] = '\0';
        int rc = zoo_create (self->zh, path, NULL, -1,
                             zkacl_dir (self->auth != NULL), 0, NULL, 0);
        if (rc != ZOK && rc != ZNODEEXISTS)
            return rc;
        if (!p)
            return ZOK;
    }
}

/* Once a session, before this candidate joins: the cluster's directory
   and the election's are the masters' (zkowner.h), their ACLs narrowed
   when they are only too open.  ZOK; ZKOWNER_REFUSED (logged, at most
   once a minute: whose they are, and what to do), looked at again on the
   next try; or ZooKeeper's error. */
static int
s_guard (zkelect_t *self)
{
    if (self->guarded)
        return ZOK;
    size_t n = (size_t) (strrchr (self->dir, '/') - self->dir);
    char paths[2][1024], who[512], refused[1400] = "", fix[1400] = "";
    snprintf (paths[0], sizeof paths[0], "%.*s", (int) n, self->dir);
    snprintf (paths[1], sizeof paths[1], "%s", self->dir);
    int rc = ZOK;
    /* the root is ZooKeeper's, not the cluster's */
    for (int i = n ? 0 : 1; i < 2 && (rc == ZOK || rc == ZKOWNER_REFUSED);
         i++) {
        int r = zkowner_check (self->zh, paths[i], self->ident,
                               !self->narrow_tried, who, sizeof who);
        if (r == ZKOWNER_REFUSED) {
            size_t a = strlen (refused), b = strlen (fix);
            snprintf (refused + a, sizeof refused - a, "%s%s gives %s",
                      a ? "; " : "", paths[i], who);
            snprintf (fix + b, sizeof fix - b,
                      "%ssetAcl %s digest:%s:cdrwa,world:anyone:r",
                      b ? ", " : "", paths[i], self->ident);
        }
        if (r != ZOK)
            rc = r;
    }
    if (rc == ZOK || rc == ZKOWNER_REFUSED)
        self->narrow_tried = true;
    self->guarded = rc == ZOK;
    if (rc == ZKOWNER_REFUSED)
        hearth_log_limited (
            self->failures, HEARTH_LOG_ERROR, "directory refused",
            hearth_mono_ms (),
            "zookeeper: not joining the election at %s: others than these "
            "masters have rights beyond READ there (%s); whoever holds them "
            "may delete the leader's node or add one that sorts lowest "
            "(then no master leads).  Use a new --zookeeper-dir, or have the "
            "owner or ZooKeeper's superuser run zkCli.sh %s "
            "(docs/high-availability.md, \"Securing ZooKeeper\"); looking "
            "again every %d ms",
            self->dir, refused, fix, RETRY_MS);
    return rc;
}

/* Our node among names (after a lost answer, one may exist already). */
static const char *
s_find_ours (const zkelect_t *self, const struct String_vector *kids)
{
    char prefix[64];
    snprintf (prefix, sizeof prefix, NODE_PREFIX "%s_", self->token);
    for (int i = 0; i < kids->count; i++)
        if (strncmp (kids->data[i], prefix, strlen (prefix)) == 0)
            return kids->data[i];
    return NULL;
}

static int
s_create_node (zkelect_t *self)
{
    char path[1024], made[1024];
    snprintf (path, sizeof path, "%s/" NODE_PREFIX "%s_", self->dir,
              self->token);
    int rc = zoo_create (self->zh, path, self->data, (int) strlen (self->data),
                         zkacl_node (self->auth != NULL),
                         ZOO_EPHEMERAL_SEQUENTIAL, made, sizeof made);
    if (rc != ZOK)
        return rc;
    const char *slash = strrchr (made, '/');
    free (self->node);
    self->node = strdup (slash ? slash + 1 : made);
    log_info ("zookeeper: joined the election as %s/%s", self->dir, self->node);
    return self->node ? ZOK : ZSYSTEMERROR;
}

/* Watch the node name of the election (its deletion wakes us); fills its
   data into buf when buf is given.  ZOK, ZNONODE or an error. */
static int
s_watch (zkelect_t *self, const char *name, char *buf, int size)
{
    char path[1024];
    snprintf (path, sizeof path, "%s/%s", self->dir, name);
    struct Stat st;
    int rc = zoo_wexists (self->zh, path, s_watcher, self, &st);
    if (rc == ZOK && buf) {
        int len = size - 1;
        rc = zoo_get (self->zh, path, 0, buf, &len, &st);
        buf[rc == ZOK && len > 0 ? len : 0] = '\0';
    }
    return rc;
}

/* As the leader: watch our own node (its deletion or a change of its
   data wakes us) and check that it is as we made it, ours (made by this
   session) with our data.  ZOK; ZNONODE or ZBADARGUMENTS with *why set
   when it is gone or not as made (another's hand); another error
   (retry). */
static int
s_check_own (zkelect_t *self, const char *name, const char **why)
{
    char path[1024];
    snprintf (path, sizeof path, "%s/%s", self->dir, name);
    size_t want = strlen (self->data);
    char *buf = malloc (want + 1);
    if (!buf)
        return ZSYSTEMERROR;
    int len = (int) want + 1; /* longer data shows as a wrong length */
    struct Stat st;
    int rc = zoo_wget (self->zh, path, s_watcher, self, buf, &len, &st);
    const clientid_t *me = zoo_client_id (self->zh);
    if (rc == ZNONODE)
        *why = "the election's node of this candidate is gone";
    else if (rc == ZOK && (!me || st.ephemeralOwner != me->client_id)) {
        *why = "the election's node of this candidate is another session's";
        rc = ZBADARGUMENTS;
    }
    else if (rc == ZOK
             && (len != (int) want || memcmp (buf, self->data, want) != 0)) {
        *why = "the data of the election's node of this candidate was "
               "changed";
        rc = ZBADARGUMENTS;
    }
    free (buf);
    return rc;
}

/* As the leader: watch the election's children too, so that a node
   added below ours (only a forgery can be: sequence numbers only grow)
   wakes us as the lowest node's candidate must, and check that ours is
   still the lowest.  ZOK, ZNONODE (look again), or an error. */
static int
s_watch_kids (zkelect_t *self, const char *ours)
{
    struct String_vector kids = {0, NULL};
    int rc = zoo_wget_children (self->zh, self->dir, s_watcher, self, &kids);
    for (int i = 0; rc == ZOK && i < kids.count; i++)
        if (s_seq (kids.data[i]) < s_seq (ours))
            rc = ZNONODE;
    deallocate_String_vector (&kids);
    return rc;
}

/* Someone else's hand on our node (why): whatever the election says
   now, this session's place in it is not to be trusted.  Give the
   session up (its node goes with it) and join again as a new
   candidate. */
static int
s_tampered (zkelect_t *self, const char *why)
{
    log_warn ("zookeeper: %s: leaving the election and joining it again on "
              "a new session",
              why);
    s_drop_session (self, why);
    return ZOK;
}

/* Decide from the sorted children, ours the mine-th; 0, or a ZooKeeper
   error (retry). */
static int
s_decide (zkelect_t *self, const struct String_vector *kids, int mine)
{
    const char *ours = kids->data[mine], *why = NULL;
    char leader[1024] = "";
    int rc;
    if (mine == 0) {
        if ((rc = s_check_own (self, ours, &why)) == ZOK
            && (rc = s_watch_kids (self, ours)) == ZOK)
            s_tell (self, ZKELECT_LEADER, s_seq (ours), self->data,
                    "the lowest node of the election is ours");
        return why ? s_tampered (self, why) : rc;
    }
    if ((rc = s_watch (self, kids->data[0], leader, sizeof leader)) == ZOK
        && (rc = s_watch (self, kids->data[mine - 1], NULL, 0)) == ZOK)
        s_tell (self, ZKELECT_STANDBY, s_seq (kids->data[0]), leader,
                "another candidate's node is the lowest");
    return rc; /* ZNONODE: gone meanwhile, look again */
}

/* Decide from the election's children; 0, or a ZooKeeper error (retry). */
static int
s_evaluate (zkelect_t *self)
{
    struct String_vector kids = {0, NULL};
    int rc = zoo_get_children (self->zh, self->dir, 0, &kids);
    if (rc == ZNONODE)
        rc = s_make_dirs (self);
    if (rc == ZOK)
        rc = s_guard (self);
    if (rc != ZOK) {
        deallocate_String_vector (&kids);
        return rc;
    }
    const char *ours = s_find_ours (self, &kids);
    if (!ours && self->node) {
        /* only a delete removes a live session's node */
        deallocate_String_vector (&kids);
        return s_tampered (self,
                           "the election's node of this candidate is gone");
    }
    if (!ours) {
        deallocate_String_vector (&kids);
        rc = s_create_node (self);
        if (rc == ZOK)
            rc = zoo_get_children (self->zh, self->dir, 0, &kids);
        if (rc != ZOK)
            return rc;
        ours = s_find_ours (self, &kids);
        if (!ours) {
            deallocate_String_vector (&kids);
            return ZNONODE;
        }
    }
    if (!self->node && !(self->node = strdup (ours))) {
        deallocate_String_vector (&kids);
        return ZSYSTEMERROR;
    }
    qsort (kids.data, (size_t) kids.count, sizeof *kids.data, s_by_seq);
    int mine = 0;
    while (mine < kids.count && strcmp (kids.data[mine], ours) != 0)
        mine++;
    rc = s_decide (self, &kids, mine);
    deallocate_String_vector (&kids);
    return rc;
}

void
zkelect_dispatch (zkelect_t *self)
{
    char buf[64];
    while (read (self->pipe[0], buf, sizeof buf) > 0)
        ;
    if (self->zh && zoo_state (self->zh) == ZOO_EXPIRED_SESSION_STATE)
        atomic_store (&self->expired, true);
    if (atomic_load (&self->expired) && self->zh)
        /* its node is gone with it: join again on a new session */
        s_drop_session (self, "the ZooKeeper session expired");
    if (self->zh && zoo_state (self->zh) == ZOO_AUTH_FAILED_STATE) {
        /* the handle is dead: another one, later */
        hearth_log_limited (self->failures, HEARTH_LOG_ERROR, "auth failed",
                            hearth_mono_ms (),
                            "zookeeper: the servers refused this "
                            "candidate's credentials (again in %d ms)",
                            RETRY_MS);
        s_drop_session (self, "ZooKeeper refused the credentials");
        self->retry_at = hearth_mono_ms () + RETRY_MS;
        return;
    }
    if (!self->zh && s_connect (self) < 0) {
        self->retry_at = hearth_mono_ms () + RETRY_MS;
        return;
    }
    if (zoo_state (self->zh) != ZOO_CONNECTED_STATE) {
        s_suspend (self, "not connected to ZooKeeper");
        return;
    }
    int rc = s_evaluate (self);
    for (int again = 0; self->zh && rc == ZNONODE && again < 3; again++)
        rc = s_evaluate (self); /* a node went while we looked */
    if (!self->zh) {
        /* the evaluation gave the session up: a new one at the tick */
        self->retry_at = hearth_mono_ms ();
        return;
    }
    self->retry_at = rc == ZOK ? 0 : hearth_mono_ms () + RETRY_MS;
    if (rc == ZKOWNER_REFUSED)
        /* said by s_guard */
        s_suspend (self, "the cluster's directory in ZooKeeper is not the "
                         "masters' alone");
    else if (rc != ZOK && rc != ZNONODE) {
        /* the same failure, every RETRY_MS, is said once a minute */
        hearth_log_limited (
            self->failures, HEARTH_LOG_WARN, zerror (rc), hearth_mono_ms (),
            "zookeeper: the election at %s: %s%s (again in %d ms)", self->dir,
            zerror (rc),
            rc != ZNOAUTH ? ""
            : self->auth
                ? ": its ACL does not let these credentials in; every "
                  "master of a cluster needs the same --zookeeper-auth"
                : ": its ACL lets only the masters' credentials in; give "
                  "this master theirs (--zookeeper-auth)",
            RETRY_MS);
        /* Whether we still lead is unknown until a look succeeds: a
           client that lost its server and found another within a tick
           is connected again by the time the tick looks at its state,
           and would have led on through the loss. */
        s_suspend (self, zerror (rc));
    }
}

void
zkelect_tick (zkelect_t *self)
{
    bool due = self->retry_at && hearth_mono_ms () >= self->retry_at;
    /* a state change without an event (the client gave up a connection
       attempt quietly) is seen here too */
    bool lost = self->role != ZKELECT_SUSPENDED && self->zh
                && zoo_state (self->zh) != ZOO_CONNECTED_STATE;
    if (due || lost || atomic_load (&self->expired))
        zkelect_dispatch (self);
}

zkelect_t *
zkelect_new (const zkelect_config_t *config, zkelect_fn *fn, void *arg,
             hearth_error_t *err)
{
    const char *hosts = config->hosts, *dir = config->dir;
    const char *data = config->data, *auth = config->auth;
    int session_ms = config->session_ms;
    if (!hosts || !*hosts || !dir || dir[0] != '/' || strlen (dir) > 512
        || (strlen (dir) > 1 && dir[strlen (dir) - 1] == '/'))
        return hearth_errprintf (err,
                                 "a ZooKeeper directory must be an absolute "
                                 "path like /hearth, without a trailing /"),
               NULL;
    if (session_ms < 1000)
        return hearth_errprintf (err,
                                 "a ZooKeeper session of %d ms is too "
                                 "short (1 s at least)",
                                 session_ms),
               NULL;
    zkelect_t *self = calloc (1, sizeof *self);
    if (!self)
        return hearth_errprintf (err, "out of memory"), NULL;
    self->pipe[0] = self->pipe[1] = -1;
    self->hosts = strdup (hosts);
    self->data = strdup (data ? data : "");
    self->auth = auth ? strdup (auth) : NULL;
    self->ident = auth ? zkident_digest (auth) : NULL;
    self->failures = hearth_loglimit_new (FAILURE_LOG_MS, 16);
    size_t n = strlen (dir) + sizeof "/election";
    self->dir = malloc (n);
    if (self->dir)
        snprintf (self->dir, n, "%s/election", strcmp (dir, "/") ? dir : "");
    self->session_ms = session_ms;
    self->fn = fn;
    self->arg = arg;
    bool ok = self->hosts && self->data && self->dir
              && ((self->auth && self->ident) || !auth) && self->failures
              && pipe2 (self->pipe, O_NONBLOCK | O_CLOEXEC) == 0;
    zoo_set_debug_level (hearth_log_enabled (HEARTH_LOG_DEBUG)
                             ? ZOO_LOG_LEVEL_INFO
                             : ZOO_LOG_LEVEL_ERROR);
    if (!ok || s_connect (self) < 0) {
        hearth_errprintf (err, "cannot start a ZooKeeper client for %s: %s",
                          hosts, strerror (errno ? errno : ENOMEM));
        zkelect_destroy (&self);
    }
    return self;
}

void
zkelect_destroy (zkelect_t **self_p)
{
    zkelect_t *self = *self_p;
    if (!self)
        return;
    int saved = errno;
    if (self->zh)
        zookeeper_close (self->zh); /* ends the session: our node goes */
    for (int i = 0; i < 2; i++)
        if (self->pipe[i] >= 0)
            close (self->pipe[i]);
    free (self->hosts);
    if (self->auth) {
        explicit_bzero (self->auth, strlen (self->auth));
        free (self->auth);
    }
    free (self->ident);
    hearth_loglimit_destroy (&self->failures);
    free (self->dir);
    free (self->data);
    free (self->node);
    free (self->leader);
    free (self);
    *self_p = NULL;
    errno = saved;
}

int
zkelect_fd (const zkelect_t *self)
{
    return self->pipe[0];
}

zkelect_role_t
zkelect_role (const zkelect_t *self)
{
    return self->role;
}

int
zkelect_session_ms (const zkelect_t *self)
{
    return self->zh && zoo_state (self->zh) == ZOO_CONNECTED_STATE
               ? zoo_recv_timeout (self->zh)
               : 0;
}

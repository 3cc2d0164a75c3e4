/*  zap.c - admitting CURVE clients by their public key, and the roles
    their allow directories give them; see zap.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/keys.h"
#include "libcore/log.h"
#include "libcore/sock.h"
#include "libcore/zap.h"

/* libzmq asks for authentication on this endpoint (RFC 27). */
static const char s_zap_endpoint[] = "inproc://zeromq.zap.01";
/* Socket monitors watched at most. */
enum { s_max_watched = 8 };
/* Allow directories at most. */
enum { s_max_dirs = 4 };

/* An allow directory of ours. */
typedef struct {
    char *dir;      /* its path */
    unsigned roles; /* the roles of its keys */
    char *what;     /* its keys, for the log */
} s_dir_t;

/* An admitted key. */
typedef struct {
    char *name;     /* the file that admits it (the first one found) */
    unsigned roles; /* the roles of every directory holding it */
    char user[HEARTH_USER_MAX + 1]; /* the user its file names (the first
                                       file naming one), or "" */
} s_entry_t;

struct hearth_zap {
    s_dir_t dirs[s_max_dirs];           /* the allow directories */
    size_t ndirs;                       /* entries in dirs */
    zsock_t *handler;                   /* REP bound to the ZAP endpoint */
    zhash_t *allowed;                   /* the directories' keys: Z85 public
                                           key -> s_entry_t (a reload
                                           replaces it) */
    zhashx_t *program;                  /* the keys the program admits
                                           (hearth_zap_admit_key): Z85
                                           public key -> s_entry_t, kept
                                           across reloads */
    size_t removed;                     /* keys the last reload removed */
    hearth_refusals_t *refusals;        /* the refusal log */
    zsock_t *monitors[s_max_watched];   /* PAIRs receiving socket events */
    char *monitor_names[s_max_watched]; /* their sockets' names, for logs */
    size_t nmonitors;                   /* monitors in use */
};

static bool
s_is_key_file (const char *name)
{
    size_t len = strlen (name);
    return name[0] != '.'
           && !(len > 7 && strcmp (name + len - 7, "_secret") == 0);
}

static void
s_entry_free (void *item)
{
    s_entry_t *e = item;
    if (e)
        free (e->name);
    free (e);
}

static void
s_entry_destructor (void **item)
{
    s_entry_free (*item);
    *item = NULL;
}

/* key's entries: the directories' and the program's (each NULL when it
   has none). */
static void
s_find (hearth_zap_t *self, const char *key, s_entry_t **dir, s_entry_t **prog)
{
    *dir = key && self->allowed ? zhash_lookup (self->allowed, key) : NULL;
    *prog = key && self->program ? zhashx_lookup (self->program, key) : NULL;
}

/* Add key, of file name naming user ("" or NULL: none), with roles to
   keys; -1 on no memory. */
static int
s_admit (zhash_t *keys, const char *key, const char *name, unsigned roles,
         const char *user)
{
    s_entry_t *e = zhash_lookup (keys, key);
    if (e) {
        e->roles |= roles;
        if (user && user[0] && e->user[0] && strcmp (user, e->user) != 0)
            log_warn ("allow directories: the key of %s names the user %s, "
                      "and %s names %s: %s counts",
                      name, user, e->name, e->user, e->user);
        if (user && user[0] && !e->user[0])
            snprintf (e->user, sizeof e->user, "%s", user);
        return 0;
    }
    if (!(e = calloc (1, sizeof *e)) || !(e->name = strdup (name))) {
        s_entry_free (e);
        return -1;
    }
    e->roles = roles;
    snprintf (e->user, sizeof e->user, "%s", user ? user : "");
    zhash_insert (keys, key, e);
    zhash_freefn (keys, key, s_entry_free);
    return 0;
}

/* Read every key file of d into keys; logs how many.  -1 with err. */
static int
s_load_dir (const s_dir_t *d, zhash_t *keys, hearth_error_t *err)
{
    DIR *dir = opendir (d->dir);
    if (!dir)
        return hearth_errprintf (err, "cannot read the allow directory %s: %s",
                                 d->dir, strerror (errno));
    struct dirent *ent;
    size_t n = 0;
    int rc = 0;
    while (rc == 0 && (ent = readdir (dir))) {
        char path[4096], key[HEARTH_KEY_TXT_LEN + 1], user[HEARTH_USER_MAX + 1];
        hearth_error_t kerr;
        if (!s_is_key_file (ent->d_name))
            continue;
        snprintf (path, sizeof path, "%s/%s", d->dir, ent->d_name);
        if (hearth_keys_load_public_user (path, key, sizeof key, user,
                                          sizeof user, &kerr)
            < 0) {
            log_warn ("allow directory: %s", kerr.text);
            continue;
        }
        if ((rc = s_admit (keys, key, ent->d_name, d->roles, user)) == 0)
            n++;
    }
    closedir (dir);
    if (rc < 0)
        return hearth_errprintf (err, "out of memory");
    log_info ("%zu %s keys admitted from %s", n, d->what, d->dir);
    if (n == 0)
        log_warn ("the allow directory %s (%s keys) holds no key", d->dir,
                  d->what);
    return 0;
}

/* Keys of old missing from new, or with fewer roles there. */
static size_t
s_count_removed (zhash_t *old, zhash_t *new)
{
    size_t n = 0;
    for (s_entry_t *e = old ? zhash_first (old) : NULL; e;
         e = zhash_next (old)) {
        s_entry_t *now = zhash_lookup (new, zhash_cursor (old));
        n += !now || (e->roles & ~now->roles) != 0;
    }
    return n;
}

int
hearth_zap_reload (hearth_zap_t *self, hearth_error_t *err)
{
    zhash_t *keys = zhash_new ();
    if (!keys)
        return hearth_errprintf (err, "out of memory");
    for (size_t i = 0; i < self->ndirs; i++)
        if (s_load_dir (&self->dirs[i], keys, err) < 0) {
            zhash_destroy (&keys);
            return -1;
        }
    self->removed = s_count_removed (self->allowed, keys);
    zhash_destroy (&self->allowed);
    self->allowed = keys;
    return (int) hearth_zap_size (self);
}

int
hearth_zap_admit_key (hearth_zap_t *self, const char *key, const char *name,
                      unsigned roles, hearth_error_t *err)
{
    if (!key || strlen (key) != HEARTH_KEY_TXT_LEN)
        return hearth_errprintf (err, "not a public key: '%.60s'",
                                 key ? key : "");
    s_entry_t *e = calloc (1, sizeof *e);
    if (!e || !(e->name = strdup (name))) {
        s_entry_free (e);
        return hearth_errprintf (err, "out of memory");
    }
    e->roles = roles;
    /* a key admitted again: its new name and roles */
    zhashx_update (self->program, key, e);
    return 0;
}

void
hearth_zap_forget_key (hearth_zap_t *self, const char *key)
{
    if (key)
        zhashx_delete (self->program, key);
}

hearth_zap_t *
hearth_zap_new_dirs (const hearth_zap_dir_t *dirs, size_t ndirs,
                     hearth_error_t *err)
{
    hearth_zap_t *self = calloc (1, sizeof *self);
    if (!self || !(self->refusals = hearth_refusals_new ())
        || !(self->program = zhashx_new ())) {
        hearth_errprintf (err, "out of memory");
        hearth_zap_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->program, s_entry_destructor);
    if (ndirs == 0 || ndirs > s_max_dirs) {
        hearth_errprintf (err, "between 1 and %d allow directories",
                          (int) s_max_dirs);
        hearth_zap_destroy (&self);
        return NULL;
    }
    for (; self->ndirs < ndirs; self->ndirs++) {
        s_dir_t *d = &self->dirs[self->ndirs];
        d->roles = dirs[self->ndirs].roles;
        d->dir = strdup (dirs[self->ndirs].dir);
        d->what =
            strdup (dirs[self->ndirs].what ? dirs[self->ndirs].what : "client");
        if (!d->dir || !d->what) {
            self->ndirs++;
            hearth_errprintf (err, "out of memory");
            hearth_zap_destroy (&self);
            return NULL;
        }
    }
    hearth_sock_opts_t opts = {.type = ZMQ_REP};
    if (hearth_zap_reload (self, err) < 0
        || !(self->handler = hearth_sock_new (&opts, err))
        || hearth_sock_bind (self->handler, s_zap_endpoint, err) < 0) {
        hearth_zap_destroy (&self);
        return NULL;
    }
    return self;
}

hearth_zap_t *
hearth_zap_new (const char *allow_dir, hearth_error_t *err)
{
    hearth_zap_dir_t dir = {allow_dir, HEARTH_ROLE_ALL, "client"};
    return hearth_zap_new_dirs (&dir, 1, err);
}

void
hearth_zap_destroy (hearth_zap_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_zap_t *self = *self_p;
    for (size_t i = 0; i < self->nmonitors; i++) {
        zsock_destroy (&self->monitors[i]);
        free (self->monitor_names[i]);
    }
    /* Unbinding an inproc endpoint is synchronous, closing is not: without
       it a handler made right after this one may find the ZAP endpoint
       still taken. */
    if (self->handler)
        zsock_unbind (self->handler, "%s", s_zap_endpoint);
    hearth_sock_destroy (&self->handler);
    zhash_destroy (&self->allowed);
    zhashx_destroy (&self->program);
    hearth_refusals_destroy (&self->refusals);
    for (size_t i = 0; i < self->ndirs; i++) {
        free (self->dirs[i].dir);
        free (self->dirs[i].what);
    }
    free (self);
    *self_p = NULL;
    errno = saved;
}

size_t
hearth_zap_size (const hearth_zap_t *self)
{
    size_t n = self->allowed ? zhash_size (self->allowed) : 0;
    for (void *e = zhashx_first (self->program); e;
         e = zhashx_next (self->program))
        n += !self->allowed
             || !zhash_lookup (self->allowed, zhashx_cursor (self->program));
    return n;
}

size_t
hearth_zap_removed (const hearth_zap_t *self)
{
    return self->removed;
}

size_t
hearth_zap_refusals (const hearth_zap_t *self)
{
    return hearth_refusals_count (self->refusals);
}

bool
hearth_zap_admits (hearth_zap_t *self, const char *user_id, const char *address)
{
    if (hearth_zap_allowed (self, user_id))
        return true;
    char why[256];
    snprintf (why, sizeof why,
              "CURVE key %s was removed from the allow directory (or was "
              "the key of a cluster-mode driver's launch that ended): its "
              "messages are dropped",
              user_id[0] ? user_id : "(none)");
    /* A line per key: only keys once admitted get here. */
    hearth_refusals_log (self->refusals, address[0] ? address : "?", user_id,
                         why);
    return false;
}

bool
hearth_zap_allowed (hearth_zap_t *self, const char *key)
{
    s_entry_t *dir, *prog;
    s_find (self, key, &dir, &prog);
    return dir || prog;
}

unsigned
hearth_zap_roles (hearth_zap_t *self, const char *key)
{
    s_entry_t *dir, *prog;
    s_find (self, key, &dir, &prog);
    return (dir ? dir->roles : 0) | (prog ? prog->roles : 0);
}

const char *
hearth_zap_name (hearth_zap_t *self, const char *key)
{
    s_entry_t *dir, *prog;
    s_find (self, key, &dir, &prog);
    return dir ? dir->name : prog ? prog->name : NULL;
}

const char *
hearth_zap_user (hearth_zap_t *self, const char *key)
{
    s_entry_t *dir, *prog;
    s_find (self, key, &dir, &prog);
    return dir && dir->user[0] ? dir->user : NULL;
}

bool
hearth_zap_has_roles (const hearth_zap_t *self)
{
    return self->ndirs > 1 || self->dirs[0].roles != HEARTH_ROLE_ALL;
}

zsock_t *
hearth_zap_sock (hearth_zap_t *self)
{
    return self->handler;
}

static void
s_reply (zsock_t *sock, const char *version, zframe_t *request_id,
         const char *code, const char *text, const char *user)
{
    zmsg_t *reply = zmsg_new ();
    zmsg_addstr (reply, version);
    zmsg_append (reply, &request_id);
    zmsg_addstr (reply, code);
    zmsg_addstr (reply, text);
    zmsg_addstr (reply, user);
    zmsg_addmem (reply, "", 0);
    zmsg_send (&reply, sock);
}

/* One request: 1.0, id, domain, address, identity, mechanism, creds. */
static void
s_handle_one (hearth_zap_t *self, zmsg_t *req)
{
    char *version = zmsg_popstr (req);
    zframe_t *request_id = zmsg_pop (req);
    char *domain = zmsg_popstr (req);
    char *address = zmsg_popstr (req);
    zframe_t *identity = zmsg_pop (req);
    char *mechanism = zmsg_popstr (req);
    zframe_t *key = zmsg_pop (req);
    char txt[HEARTH_KEY_TXT_LEN + 1] = "";
    bool ours = domain && streq (domain, HEARTH_ZAP_DOMAIN);
    bool found = false;
    if (ours && mechanism && streq (mechanism, "CURVE") && key
        && zframe_size (key) == 32) {
        zmq_z85_encode (txt, zframe_data (key), 32);
        found = hearth_zap_allowed (self, txt);
    }
    if (found) /* the key is the User-Id: hearth_zap_admits() checks it */
        s_reply (self->handler, "1.0", request_id, "200", "OK", txt);
    else {
        char why[160];
        if (!ours)
            snprintf (why, sizeof why,
                      "a socket of ZAP domain '%.40s', not '%s'",
                      domain ? domain : "", HEARTH_ZAP_DOMAIN);
        else
            snprintf (why, sizeof why,
                      "%s key %s is not in the allow directory",
                      mechanism ? mechanism : "no", txt[0] ? txt : "(none)");
        hearth_refusals_log (self->refusals, address ? address : "?", NULL,
                             why);
        s_reply (self->handler, "1.0", request_id, "400", "not admitted", "");
    }
    free (version);
    free (domain);
    free (address);
    free (mechanism);
    zframe_destroy (&identity);
    zframe_destroy (&key);
}

void
hearth_zap_handle (hearth_zap_t *self)
{
    while (zsock_events (self->handler) & ZMQ_POLLIN) {
        zmsg_t *req = zmsg_recv (self->handler);
        if (!req)
            return;
        if (zmsg_size (req) < 6) /* not a ZAP request: answer anyway */
            s_reply (self->handler, "1.0", zframe_new ("", 0), "500",
                     "bad request", "");
        else
            s_handle_one (self, req);
        zmsg_destroy (&req);
    }
}

zsock_t *
hearth_zap_watch (hearth_zap_t *self, zsock_t *sock, const char *name,
                  hearth_error_t *err)
{
    if (self->nmonitors == s_max_watched) {
        hearth_errprintf (err, "too many watched sockets");
        return NULL;
    }
    char endpoint[64];
    snprintf (endpoint, sizeof endpoint, "inproc://hearth-monitor-%p-%zu",
              (void *) self, self->nmonitors);
    int events = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL
                 | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                 | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
    if (zmq_socket_monitor (zsock_resolve (sock), endpoint, events) < 0) {
        hearth_errprintf (err, "cannot monitor the %s socket: %s", name,
                          zmq_strerror (errno));
        return NULL;
    }
    zsock_t *pair = zsock_new_pair (endpoint);
    if (!pair) {
        hearth_errprintf (err, "cannot monitor the %s socket", name);
        return NULL;
    }
    self->monitors[self->nmonitors] = pair;
    self->monitor_names[self->nmonitors++] = strdup (name);
    return pair;
}

void
hearth_zap_on_monitor (hearth_zap_t *self, zsock_t *monitor)
{
    const char *name = "a";
    for (size_t i = 0; i < self->nmonitors; i++)
        if (self->monitors[i] == monitor)
            name = self->monitor_names[i];
    zmsg_t *msg = zmsg_recv (monitor);
    zframe_t *event = msg ? zmsg_first (msg) : NULL;
    zframe_t *where = msg ? zmsg_next (msg) : NULL;
    if (event && where && zframe_size (event) >= 2) {
        uint16_t id;
        memcpy (&id, zframe_data (event), sizeof id);
        char *address = zframe_strdup (where);
        char why[128];
        snprintf (why, sizeof why, "failed handshake on the %s socket (%s)",
                  name,
                  id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                      ? "authentication"
                      : "a peer without the right keys");
        /* ZAP refusals were logged by the handler already. */
        if (id != ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
            hearth_refusals_log (self->refusals, address ? address : "?", NULL,
                                 why);
        free (address);
    }
    zmsg_destroy (&msg);
}

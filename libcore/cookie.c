/*  cookie.c - the local cookie of a keyless loopback master and its
    tools; see cookie.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "libcore/cookie.h"
#include "libcore/log.h"
#include "libcore/refusals.h"
#include "libcore/sock.h"
#include "libcore/zap.h"

/* libzmq asks for authentication on this endpoint (RFC 27). */
static const char s_zap_endpoint[] = "inproc://zeromq.zap.01";
/* The cookie's place under the user's home. */
static const char s_home_dir[] = ".hearth";
static const char s_file[] = "cookie";
/* A cookie of Hearth before its CURVE pairs: 32 bytes, a PLAIN password. */
#define S_OLD_LEN 40

int
hearth_cookie_path (char *buf, size_t size, hearth_error_t *err)
{
    const char *path = getenv ("HEARTH_COOKIE");
    if (path && path[0]) {
        if (snprintf (buf, size, "%s", path) >= (int) size)
            return hearth_errprintf (err, "HEARTH_COOKIE is too long");
        return 0;
    }
    const char *home = getenv ("HOME");
    if (!home || home[0] != '/') {
        struct passwd *pw = getpwuid (geteuid ());
        home = pw ? pw->pw_dir : NULL;
    }
    if (!home || home[0] != '/')
        return hearth_errprintf (err, "no home directory for the cookie (set "
                                      "HOME, or HEARTH_COOKIE to a file)");
    if (snprintf (buf, size, "%s/%s/%s", home, s_home_dir, s_file)
        >= (int) size)
        return hearth_errprintf (err, "the home directory's path is too long");
    return 0;
}

/* Split path into its directory (into dir) and its last name. */
static const char *
s_split (const char *path, char *dir, size_t size)
{
    const char *slash = strrchr (path, '/');
    if (!slash) {
        snprintf (dir, size, ".");
        return path;
    }
    snprintf (dir, size, "%.*s", (int) (slash == path ? 1 : slash - path),
              path);
    return slash + 1;
}

/* Open the cookie's directory without following a link, making it (mode
   0700) when create is set; refuse one that is not ours or that others
   may write.  The descriptor, or -1 with err (*missing: there is none). */
static int
s_open_dir (const char *dir, bool create, bool *missing, hearth_error_t *err)
{
    *missing = false;
    if (create && mkdir (dir, 0700) < 0 && errno != EEXIST)
        return hearth_errprintf (err, "cannot make %s: %s", dir,
                                 strerror (errno));
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    *missing = fd < 0 && (errno == ENOENT || errno == ENOTDIR);
    if (fd < 0)
        return hearth_errprintf (err, "cannot open %s: %s%s", dir,
                                 strerror (errno),
                                 errno == ELOOP ? " (a link: refused)" : "");
    if (fstat (fd, &st) < 0 || st.st_uid != geteuid ()
        || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        close (fd);
        return hearth_errprintf (err,
                                 "%s is not this user's own, or others may "
                                 "write to it: no cookie is kept there",
                                 dir);
    }
    return fd;
}

/* Read the cookie file name in dirfd into buf.  1, 0 when there is none,
   2 for one of the earlier format (S_OLD_LEN characters, not read), -1
   with err. */
static int
s_read_at (int dirfd, const char *name, const char *path, char *buf,
           size_t size, hearth_error_t *err)
{
    int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0)
        return hearth_errprintf (err, "cannot read the cookie %s: %s%s", path,
                                 strerror (errno),
                                 errno == ELOOP ? " (a link: refused)" : "");
    struct stat st;
    char text[HEARTH_COOKIE_LEN + 2];
    ssize_t n = -1;
    if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ()
        && !(st.st_mode & (S_IRWXG | S_IRWXO)))
        n = read (fd, text, sizeof text);
    else
        errno = EPERM;
    close (fd);
    if (n < 0)
        return hearth_errprintf (err,
                                 "the cookie %s is not this user's own, or "
                                 "others may read it (chmod 600)%s",
                                 path, errno == EPERM ? "" : ": unreadable");
    if (n > 0 && text[n - 1] == '\n')
        n--;
    if (n == S_OLD_LEN)
        return 2;
    if (n != HEARTH_COOKIE_LEN || size <= HEARTH_COOKIE_LEN)
        return hearth_errprintf (err,
                                 "the cookie %s is not %d characters: remove "
                                 "it, and a master makes a new one",
                                 path, HEARTH_COOKIE_LEN);
    memcpy (buf, text, HEARTH_COOKIE_LEN);
    buf[HEARTH_COOKIE_LEN] = '\0';
    return 1;
}

/* Write a new random cookie as name in dirfd: unless another process
   wrote one first (then nothing is written), or over the one there when
   replace is set.  0, or -1 with err. */
static int
s_make_at (int dirfd, const char *name, bool replace, hearth_error_t *err)
{
    uint8_t raw[64]; /* the server's secret key, then the client's */
    char text[HEARTH_COOKIE_LEN + 2], tmp[64];
    if (getrandom (raw, sizeof raw, 0) != (ssize_t) sizeof raw
        || !zmq_z85_encode (text, raw, sizeof raw))
        return hearth_errprintf (err, "no random bytes for a cookie");
    text[HEARTH_COOKIE_LEN] = '\n';
    snprintf (tmp, sizeof tmp, ".hearth-cookie.%ld", (long) getpid ());
    int fd = openat (
        dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return hearth_errprintf (err, "cannot write a cookie: %s",
                                 strerror (errno));
    bool written = write (fd, text, HEARTH_COOKIE_LEN + 1)
                   == (ssize_t) HEARTH_COOKIE_LEN + 1;
    written = fsync (fd) == 0 && written;
    close (fd);
    /* a link, not a rename: a cookie another master made meanwhile wins */
    int rc = !written  ? -1
             : replace ? renameat (dirfd, tmp, dirfd, name)
             : (linkat (dirfd, tmp, dirfd, name, 0) == 0 || errno == EEXIST)
                 ? 0
                 : -1;
    int saved = errno;
    unlinkat (dirfd, tmp, 0);
    if (rc < 0)
        return hearth_errprintf (err, "cannot write a cookie: %s",
                                 strerror (saved));
    return 0;
}

/* A cookie of the earlier format at name: replaced by a new one, once
   (the directory locked: of two processes, the second reads the first's),
   and read into buf.  1, or -1 with err. */
static int
s_replace_old (int dirfd, const char *name, const char *path, char *buf,
               size_t size, hearth_error_t *err)
{
    if (flock (dirfd, LOCK_EX) < 0)
        return hearth_errprintf (err, "cannot lock the cookie's directory: %s",
                                 strerror (errno));
    int rc = s_read_at (dirfd, name, path, buf, size, err);
    if (rc == 2 && s_make_at (dirfd, name, true, err) == 0) {
        log_info ("the cookie %s was of an earlier Hearth (a password sent "
                  "in clear): replaced by one of two key pairs",
                  path);
        rc = s_read_at (dirfd, name, path, buf, size, err);
    }
    flock (dirfd, LOCK_UN);
    return rc == 2 ? hearth_errprintf (err, "the cookie %s: not replaced", path)
                   : rc;
}

/* The cookie of path into buf, made when create is set and there is
   none (or one of the earlier format).  1, 0 (none), or -1 with err. */
static int
s_get (char *buf, size_t size, bool create, hearth_error_t *err)
{
    char path[PATH_MAX], dir[PATH_MAX];
    if (hearth_cookie_path (path, sizeof path, err) < 0)
        return -1;
    const char *name = s_split (path, dir, sizeof dir);
    bool missing;
    int dirfd = s_open_dir (dir, create, &missing, err);
    if (dirfd < 0)
        return missing && !create ? 0 : -1;
    int rc = s_read_at (dirfd, name, path, buf, size, err);
    if (rc == 2 && create)
        rc = s_replace_old (dirfd, name, path, buf, size, err);
    if (rc == 2) /* for a tool, none: it then makes it over (ensure) */
        rc = 0;
    if (rc == 0 && create && s_make_at (dirfd, name, false, err) == 0)
        rc = s_read_at (dirfd, name, path, buf, size, err);
    close (dirfd);
    return rc;
}

int
hearth_cookie_ensure (char *buf, size_t size, hearth_error_t *err)
{
    int rc = s_get (buf, size, true, err);
    if (rc == 0)
        hearth_errprintf (err, "no cookie was made");
    return rc > 0 ? 0 : -1;
}

int
hearth_cookie_read (char *buf, size_t size, hearth_error_t *err)
{
    return s_get (buf, size, false, err);
}

/* --- the web pages' token ------------------------------------------------ */

/* What the web token is a keyed hash of: it names its use, so that the
   same cookie keyed for anything else gives another value. */
static const char s_web_label[] = "hearth web pages token 1";

int
hearth_cookie_web_token (const char *cookie, char *buf, size_t size,
                         hearth_error_t *err)
{
    uint8_t raw[64], mac[HEARTH_COOKIE_WEB_TOKEN_LEN / 2];
    assert (buf && size > HEARTH_COOKIE_WEB_TOKEN_LEN);
    _Static_assert(sizeof raw <= crypto_generichash_KEYBYTES_MAX,
                   "the cookie's bytes are the hash's key");
    if (!cookie || strlen (cookie) != HEARTH_COOKIE_LEN
        || !zmq_z85_decode (raw, cookie))
        return hearth_errprintf (err, "not a cookie");
    int rc = sodium_init () < 0
                 ? -1
                 : crypto_generichash (mac, sizeof mac,
                                       (const uint8_t *) s_web_label,
                                       sizeof s_web_label - 1, raw, sizeof raw);
    sodium_memzero (raw, sizeof raw);
    if (rc == 0)
        sodium_bin2hex (buf, size, mac, sizeof mac);
    sodium_memzero (mac, sizeof mac);
    if (rc != 0)
        return hearth_errprintf (err, "no keyed hash for the web token "
                                      "(libsodium did not start)");
    return 0;
}

/* --- the ZAP handler ------------------------------------------------------ */

struct hearth_cookie_zap {
    zsock_t *handler;            /* REP bound to the ZAP endpoint */
    uint8_t client[32];          /* the client public key it admits */
    hearth_refusals_t *refusals; /* the refusal log */
};

/* A certificate of the secret key in 32 bytes at secret, its public key
   derived (libzmq's zmq_curve_public).  NULL on failure. */
static zcert_t *
s_cert (const uint8_t *secret)
{
    char secret_txt[41], public_txt[41];
    uint8_t public_key[32];
    if (!zmq_z85_encode (secret_txt, secret, 32)
        || zmq_curve_public (public_txt, secret_txt) != 0
        || !zmq_z85_decode (public_key, public_txt))
        return NULL;
    return zcert_new_from (public_key, secret);
}

int
hearth_cookie_certs (const char *cookie, zcert_t **server, zcert_t **client,
                     hearth_error_t *err)
{
    uint8_t raw[64];
    *server = *client = NULL;
    if (!cookie || strlen (cookie) != HEARTH_COOKIE_LEN
        || !zmq_z85_decode (raw, cookie))
        return hearth_errprintf (err, "not a cookie");
    *server = s_cert (raw);
    *client = s_cert (raw + 32);
    memset (raw, 0, sizeof raw);
    if (!*server || !*client) {
        zcert_destroy (server);
        zcert_destroy (client);
        return hearth_errprintf (err, "no CURVE keys from the cookie (libzmq "
                                      "built without CURVE?)");
    }
    return 0;
}

hearth_cookie_zap_t *
hearth_cookie_zap_new (const char *cookie, hearth_error_t *err)
{
    hearth_cookie_zap_t *self = calloc (1, sizeof *self);
    hearth_sock_opts_t opts = {.type = ZMQ_REP};
    if (!self || !(self->refusals = hearth_refusals_new ())) {
        hearth_errprintf (err, "out of memory");
        hearth_cookie_zap_destroy (&self);
        return NULL;
    }
    zcert_t *server = NULL, *client = NULL;
    if (hearth_cookie_certs (cookie, &server, &client, err) < 0) {
        hearth_cookie_zap_destroy (&self);
        return NULL;
    }
    memcpy (self->client, zcert_public_key (client), sizeof self->client);
    zcert_destroy (&server);
    zcert_destroy (&client);
    if (!(self->handler = hearth_sock_new (&opts, err))
        || hearth_sock_bind (self->handler, s_zap_endpoint, err) < 0) {
        hearth_cookie_zap_destroy (&self);
        return NULL;
    }
    return self;
}

void
hearth_cookie_zap_destroy (hearth_cookie_zap_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_cookie_zap_t *self = *self_p;
    /* unbound first: a handler made right after finds the endpoint free */
    if (self->handler)
        zsock_unbind (self->handler, "%s", s_zap_endpoint);
    hearth_sock_destroy (&self->handler);
    hearth_refusals_destroy (&self->refusals);
    free (self);
    *self_p = NULL;
    errno = saved;
}

zsock_t *
hearth_cookie_zap_sock (hearth_cookie_zap_t *self)
{
    return self->handler;
}

size_t
hearth_cookie_zap_refusals (const hearth_cookie_zap_t *self)
{
    return hearth_refusals_count (self->refusals);
}

/* Whether the request's CURVE client key is the cookie's. */
static bool
s_admits (hearth_cookie_zap_t *self, const char *domain, const char *mech,
          zmsg_t *req, const char **why)
{
    zframe_t *key = zmsg_pop (req);
    bool ok = false;
    if (!domain || strcmp (domain, HEARTH_ZAP_DOMAIN) != 0)
        *why = "a socket of another ZAP domain";
    else if (!mech || strcmp (mech, "CURVE") != 0)
        *why = "a client of another mechanism than the cookie's (CURVE)";
    else if (!key || zframe_size (key) != sizeof self->client
             || memcmp (zframe_data (key), self->client, sizeof self->client))
        *why = "a wrong cookie: not one of this master's user (a tool of "
               "another user?)";
    else
        ok = true;
    zframe_destroy (&key);
    return ok;
}

/* Answer one request: 1.0, id, domain, address, identity, mechanism,
   then CURVE's client key. */
static void
s_handle_one (hearth_cookie_zap_t *self, zmsg_t *req)
{
    char *version = zmsg_popstr (req);
    zframe_t *request_id = zmsg_pop (req);
    char *domain = zmsg_popstr (req), *address = zmsg_popstr (req);
    zframe_t *identity = zmsg_pop (req);
    char *mech = zmsg_popstr (req);
    const char *why = "";
    bool ok = s_admits (self, domain, mech, req, &why);
    if (!ok)
        hearth_refusals_log (self->refusals, address ? address : "?", NULL,
                             why);
    zmsg_t *reply = zmsg_new ();
    zmsg_addstr (reply, "1.0");
    zmsg_append (reply, &request_id);
    zmsg_addstr (reply, ok ? "200" : "400");
    zmsg_addstr (reply, ok ? "OK" : "not admitted");
    zmsg_addstr (reply, "");
    zmsg_addmem (reply, "", 0);
    zmsg_send (&reply, self->handler);
    free (version);
    free (domain);
    free (address);
    free (mech);
    zframe_destroy (&request_id);
    zframe_destroy (&identity);
}

void
hearth_cookie_zap_handle (hearth_cookie_zap_t *self)
{
    while (zsock_events (self->handler) & ZMQ_POLLIN) {
        zmsg_t *req = zmsg_recv (self->handler);
        if (!req)
            return;
        s_handle_one (self, req);
        zmsg_destroy (&req);
    }
}

/*  curve.c - CurveZMQ settings of servers and clients; see curve.h. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "libcore/curve.h"
#include "libcore/log.h"

/* How to make keys, for the messages that say keys are missing. */
#define S_HOW_TO_MAKE_KEYS "make keys with 'hearth-keygen DIR'"

/* True if host (a bare host, no URL) is loopback. */
static bool
s_host_is_loopback (const char *host)
{
    struct in_addr v4;
    struct in6_addr v6;
    if (strcmp (host, "localhost") == 0)
        return true;
    if (inet_pton (AF_INET, host, &v4) == 1)
        return (ntohl (v4.s_addr) >> 24) == 127;
    return inet_pton (AF_INET6, host, &v6) == 1 && IN6_IS_ADDR_LOOPBACK (&v6);
}

bool
hearth_host_is_loopback (const char *host)
{
    if (!host)
        return false;
    if (strncmp (host, "tcp://", 6) != 0)
        return s_host_is_loopback (host);
    /* tcp://HOST:PORT, HOST maybe in brackets ([::1]). */
    char buf[256];
    snprintf (buf, sizeof buf, "%s", host + 6);
    char *colon = strrchr (buf, ':');
    if (!colon || !colon[1]
        || strspn (colon + 1, "0123456789") != strlen (colon + 1))
        return false;
    *colon = '\0';
    size_t len = strlen (buf);
    if (len >= 2 && buf[0] == '[' && buf[len - 1] == ']') {
        buf[len - 1] = '\0';
        return s_host_is_loopback (buf + 1);
    }
    return !strchr (buf, ':') && s_host_is_loopback (buf);
}

/* The allow directories of conf into dirs (at least 3 entries): with
   --curve-allow alone, its keys may do everything.  Returns how many. */
static size_t
s_allow_dirs (hearth_conf_t *conf, hearth_zap_dir_t *dirs)
{
    const char *allow = hearth_conf_str (conf, "curve-allow");
    const char *workers = hearth_conf_str (conf, "curve-allow-workers");
    const char *operators = hearth_conf_str (conf, "curve-operators");
    size_t n = 0;
    if (!workers && !operators) {
        dirs[n++] = (hearth_zap_dir_t){allow, HEARTH_ROLE_ALL, "client"};
        return n;
    }
    if (allow)
        dirs[n++] = (hearth_zap_dir_t){allow, HEARTH_ROLE_CLIENT, "client"};
    if (workers)
        dirs[n++] = (hearth_zap_dir_t){workers, HEARTH_ROLE_WORKER, "worker"};
    if (operators)
        dirs[n++] = (hearth_zap_dir_t){
            operators, HEARTH_ROLE_CLIENT | HEARTH_ROLE_OPERATOR, "operator"};
    return n;
}

/* A loopback server without keys: this user's cookie, and its handler. */
static int
s_cookie_server (hearth_curve_t *self, hearth_error_t *err)
{
    if (hearth_cookie_ensure (self->cookie, sizeof self->cookie, err) < 0
        || hearth_cookie_certs (self->cookie, &self->local_server,
                                &self->local_client, err)
               < 0
        || !(self->cookie_zap = hearth_cookie_zap_new (self->cookie, err))) {
        hearth_curve_cleanup (self);
        return -1;
    }
    return 0;
}

int
hearth_curve_server_setup (hearth_curve_t *self, hearth_conf_t *conf,
                           const char *host, hearth_error_t *err)
{
    const char *secret = hearth_conf_str (conf, "curve-secret");
    bool dirs_given = hearth_conf_str (conf, "curve-allow")
                      || hearth_conf_str (conf, "curve-allow-workers")
                      || hearth_conf_str (conf, "curve-operators");
    memset (self, 0, sizeof *self);
    if (!secret && !dirs_given) {
        if (hearth_host_is_loopback (host))
            return s_cookie_server (self, err);
        if (!hearth_conf_bool (conf, "insecure"))
            return hearth_errprintf (
                err,
                "refusing to listen on %s without keys: anyone who reaches "
                "it could run code on this cluster.  " S_HOW_TO_MAKE_KEYS
                " and pass --curve-secret DIR/master.key_secret "
                "--curve-allow DIR/clients, or pass --insecure to accept "
                "that risk",
                host);
        log_warn ("INSECURE: listening on %s without keys (--insecure): "
                  "anyone who reaches it can register workers, run code on "
                  "them, read the cluster's state and events, and all "
                  "traffic (tasks, tokens) is clear text.  To secure "
                  "it, " S_HOW_TO_MAKE_KEYS
                  " and pass --curve-secret DIR/master.key_secret "
                  "--curve-allow DIR/clients",
                  host);
        return 0;
    }
    if (!secret || !dirs_given)
        return hearth_errprintf (err, "--curve-secret and --curve-allow go "
                                      "together (keys, and who is admitted)");
    hearth_zap_dir_t dirs[3];
    size_t ndirs = s_allow_dirs (conf, dirs);
    if (!(self->cert = hearth_keys_load_secret (secret, err)))
        return -1;
    if (!(self->zap = hearth_zap_new_dirs (dirs, ndirs, err))) {
        zcert_destroy (&self->cert);
        return -1;
    }
    if (!hearth_zap_has_roles (self->zap))
        log_warn ("keys without roles: every key of %s may do everything "
                  "(register workers, run applications, kill any "
                  "application or driver, drain workers).  To separate "
                  "them, give the workers' keys --curve-allow-workers DIR "
                  "and the operators' --curve-operators DIR "
                  "(docs/security.md)",
                  dirs[0].dir);
    return 0;
}

int
hearth_curve_client_setup (hearth_curve_t *self, hearth_conf_t *conf,
                           const char *url, hearth_error_t *err)
{
    const char *secret = hearth_conf_str (conf, "curve-secret");
    const char *master = hearth_conf_str (conf, "master-key");
    memset (self, 0, sizeof *self);
    if (!secret && !master) {
        if (url && hearth_host_is_loopback (url))
            return hearth_curve_client_local (self, url, err);
        if (url)
            log_warn (
                "INSECURE: talking to the master at %s without keys: "
                "everything on this link, and on a driver's link to "
                "its executors, is clear text that anyone on the "
                "network can read or forge.  To secure it, " S_HOW_TO_MAKE_KEYS
                " (on the master's side) and pass --curve-secret "
                "NAME.key_secret --master-key master.key",
                url);
        return 0;
    }
    if (!secret || !master)
        return hearth_errprintf (err, "--curve-secret and --master-key go "
                                      "together (our keys, and the "
                                      "master's)");
    if (hearth_keys_load_public (master, self->server_key,
                                 sizeof self->server_key, err)
        < 0)
        return -1;
    if (!(self->cert = hearth_keys_load_secret (secret, err)))
        return -1;
    return 0;
}

int
hearth_curve_client_local (hearth_curve_t *self, const char *url,
                           hearth_error_t *err)
{
    memset (self, 0, sizeof *self);
    if (!url || !hearth_host_is_loopback (url))
        return 0;
    /* None yet: made now, as the master would (a tool may start before
       the master it waits for); a user who cannot keep one has none. */
    int rc = hearth_cookie_read (self->cookie, sizeof self->cookie, err);
    if (rc == 0
        && hearth_cookie_ensure (self->cookie, sizeof self->cookie, NULL) < 0)
        self->cookie[0] = '\0';
    if (rc >= 0 && self->cookie[0]
        && hearth_cookie_certs (self->cookie, &self->local_server,
                                &self->local_client, err)
               < 0)
        rc = -1;
    if (rc < 0)
        hearth_curve_cleanup (self);
    return rc < 0 ? -1 : 0;
}

bool
hearth_curve_on (const hearth_curve_t *self)
{
    return self->cert != NULL;
}

void
hearth_curve_server_opts (const hearth_curve_t *self, hearth_sock_opts_t *opts)
{
    if (!self->cert && self->local_server) { /* the cookie's pair */
        opts->curve_cert = self->local_server;
        opts->curve_server_key = NULL;
        opts->zap_domain = HEARTH_ZAP_DOMAIN;
    }
    if (!self->cert)
        return;
    opts->curve_cert = self->cert;
    opts->curve_server_key = NULL;
    opts->zap_domain = HEARTH_ZAP_DOMAIN;
}

void
hearth_curve_client_opts (const hearth_curve_t *self, hearth_sock_opts_t *opts)
{
    if (!self->cert && self->local_client) { /* the cookie's pairs */
        opts->curve_cert = self->local_client;
        opts->curve_server_key = zcert_public_txt (self->local_server);
    }
    if (!self->cert)
        return;
    opts->curve_cert = self->cert;
    opts->curve_server_key = self->server_key;
}

void
hearth_curve_cleanup (hearth_curve_t *self)
{
    hearth_zap_destroy (&self->zap);
    hearth_cookie_zap_destroy (&self->cookie_zap);
    zcert_destroy (&self->local_server);
    zcert_destroy (&self->local_client);
    zcert_destroy (&self->cert);
    memset (self->cookie, 0, sizeof self->cookie);
}

/*  sock.c - making, binding and connecting sockets; see sock.h. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libcore/sock.h"
#include "libcore/units.h"

static void
s_zsys_init (size_t max_sockets)
{
    zsys_handler_set (NULL);
    zsys_set_io_threads (1);
    zsys_set_linger (HEARTH_SOCK_LINGER_MS);
    zsys_set_logstream (stderr);
    zsys_set_max_sockets (max_sockets); /* 0: as many as the OS allows */
    zsys_init ();
}

void
hearth_zsys_init (void)
{
    s_zsys_init (HEARTH_SOCK_MAX_SOCKETS);
}

void
hearth_zsys_init_unbounded (void)
{
    s_zsys_init (0);
}

static int
s_or (int value, int dflt)
{
    return value ? value : dflt;
}

/* Keys go on before bind or connect: the handshake uses them. */
static void
s_apply_curve (zsock_t *sock, const hearth_sock_opts_t *opts)
{
    zcert_apply (opts->curve_cert, sock);
    if (opts->curve_server_key)
        zsock_set_curve_serverkey (sock, opts->curve_server_key);
    else {
        zsock_set_curve_server (sock, 1);
        if (opts->zap_domain)
            zsock_set_zap_domain (sock, opts->zap_domain);
    }
}

zsock_t *
hearth_sock_new (const hearth_sock_opts_t *opts, hearth_error_t *err)
{
    static const hearth_sock_opts_t s_defaults = {.type = ZMQ_DEALER};
    if (!opts)
        opts = &s_defaults;
    zsock_t *sock = zsock_new (opts->type);
    if (!sock) {
        hearth_errprintf (err, "cannot create socket: %s",
                          zmq_strerror (errno));
        return NULL;
    }
    int hwm = s_or (opts->hwm, HEARTH_SOCK_HWM);
    zsock_set_linger (sock, s_or (opts->linger_ms, HEARTH_SOCK_LINGER_MS));
    zsock_set_sndhwm (sock, hwm);
    zsock_set_rcvhwm (sock, hwm);
    zsock_set_sndtimeo (sock, 0);
    zsock_set_maxmsgsize (sock, opts->max_msg_bytes
                                    ? opts->max_msg_bytes
                                    : HEARTH_SOCK_MAX_MSG_BYTES);
    zsock_set_reconnect_ivl (
        sock, s_or (opts->reconnect_ivl_ms, HEARTH_SOCK_RECONNECT_MS));
    zsock_set_reconnect_ivl_max (
        sock, s_or (opts->reconnect_ivl_max_ms, HEARTH_SOCK_RECONNECT_MAX_MS));
    if (opts->identity)
        zsock_set_identity (sock, opts->identity);
    if (opts->curve_cert)
        s_apply_curve (sock, opts);
    return sock;
}

/* The TCP port a socket is bound to, from its last endpoint; 0 if none. */
static int
s_bound_port (zsock_t *sock)
{
    char *last = zsock_last_endpoint (sock);
    const char *colon = last ? strrchr (last, ':') : NULL;
    int64_t port = 0;
    if (!colon || hearth_parse_int (colon + 1, 1, 65535, &port, NULL) < 0)
        port = 0;
    freen (last);
    return (int) port;
}

int
hearth_sock_bind (zsock_t *sock, const char *endpoint, hearth_error_t *err)
{
    int rc = zsock_bind (sock, "%s", endpoint);
    if (rc < 0)
        return hearth_errprintf (err, "cannot bind %s: %s", endpoint,
                                 zmq_strerror (errno));
    /* czmq reports the port only for "*" and "!"; port 0 asks the kernel */
    if (rc == 0 && strncmp (endpoint, "tcp://", 6) == 0)
        rc = s_bound_port (sock);
    return rc;
}

int
hearth_sock_connect (zsock_t *sock, const char *endpoint, hearth_error_t *err)
{
    if (zsock_connect (sock, "%s", endpoint) < 0)
        return hearth_errprintf (err, "cannot connect to %s: %s", endpoint,
                                 zmq_strerror (errno));
    return 0;
}

void
hearth_sock_destroy (zsock_t **sock_p)
{
    if (!sock_p || !*sock_p)
        return;
    int saved = errno;
    zsock_destroy (sock_p);
    errno = saved;
}

int
hearth_url_split (const char *url, char *host, size_t host_size, int *port,
                  hearth_error_t *err)
{
    static const char prefix[] = "tcp://";
    if (!url || strncmp (url, prefix, strlen (prefix)) != 0)
        return hearth_errprintf (err, "'%s' is not a tcp://HOST:PORT URL",
                                 url ? url : "");
    const char *h = url + strlen (prefix);
    /* The port's colon comes after the host, and after the ']' of an
       IPv6 address in brackets. */
    const char *bracket = *h == '[' ? strchr (h, ']') : NULL;
    const char *colon = strrchr (bracket ? bracket : h, ':');
    if (colon == h || *h == '\0')
        return hearth_errprintf (err,
                                 "'%s': missing host (expected "
                                 "tcp://HOST:PORT)",
                                 url);
    if (!colon || colon[1] == '\0')
        return hearth_errprintf (err,
                                 "'%s': missing port (expected "
                                 "tcp://HOST:PORT)",
                                 url);
    if ((size_t) (colon - h) >= host_size)
        return hearth_errprintf (err, "'%s': host too long", url);
    int64_t p;
    if (hearth_parse_int (colon + 1, 1, 65535, &p, NULL) < 0)
        return hearth_errprintf (err, "'%s': bad port '%s'", url, colon + 1);
    memcpy (host, h, colon - h);
    host[colon - h] = '\0';
    *port = (int) p;
    return 0;
}

int
hearth_address_towards (const char *host, int port, char *buf, size_t size)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM};
    struct addrinfo *res = NULL;
    char service[16];
    snprintf (service, sizeof service, "%d", port);
    if (getaddrinfo (host, service, &hints, &res) != 0 || !res)
        return -1;
    int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in local;
    socklen_t len = sizeof local;
    int rc = -1;
    if (fd >= 0 && connect (fd, res->ai_addr, res->ai_addrlen) == 0
        && getsockname (fd, (struct sockaddr *) &local, &len) == 0
        && inet_ntop (AF_INET, &local.sin_addr, buf, size))
        rc = 0;
    if (fd >= 0)
        close (fd);
    freeaddrinfo (res);
    return rc;
}

void
hearth_address_towards_url (const char *url, char *buf, size_t size)
{
    char host[256];
    int port;
    if (!url || hearth_url_split (url, host, sizeof host, &port, NULL) < 0
        || hearth_address_towards (host, port, buf, size) < 0)
        snprintf (buf, size, "127.0.0.1");
}

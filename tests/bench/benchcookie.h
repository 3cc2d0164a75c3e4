/*  benchcookie.h - a benchmark's raw socket to a master on loopback
    without keys presents this user's local cookie (libcore/cookie.h), as
    Hearth's own clients do (libcore/curve.h).  Header-only. */
#ifndef HEARTH_BENCHCOOKIE_H
#define HEARTH_BENCHCOOKIE_H

#include <string.h>

#include <czmq.h>
#include <zmq.h>

#include "libcore/cookie.h"

/* Set the cookie's client key pair and its server's public key on sock
   (a libzmq socket, before it connects) when this user has a cookie. */
static inline void
bench_cookie (void *sock)
{
    char cookie[HEARTH_COOKIE_LEN + 1];
    zcert_t *server = NULL, *client = NULL;
    if (hearth_cookie_read (cookie, sizeof cookie, NULL) != 1
        || hearth_cookie_certs (cookie, &server, &client, NULL) < 0)
        return;
    zmq_setsockopt (sock, ZMQ_CURVE_SERVERKEY, zcert_public_key (server), 32);
    zmq_setsockopt (sock, ZMQ_CURVE_PUBLICKEY, zcert_public_key (client), 32);
    zmq_setsockopt (sock, ZMQ_CURVE_SECRETKEY, zcert_secret_key (client), 32);
    zcert_destroy (&server);
    zcert_destroy (&client);
}

/* A czmq DEALER connected to url, with the cookie; NULL on failure. */
static inline zsock_t *
bench_dealer (const char *url)
{
    zsock_t *sock = zsock_new (ZMQ_DEALER);
    if (!sock)
        return NULL;
    bench_cookie (zsock_resolve (sock));
    if (zsock_connect (sock, "%s", url) < 0)
        zsock_destroy (&sock);
    return sock;
}

#endif

/*  benchcookie.h - a benchmark's raw socket to a master on loopback
    without keys presents this user's local cookie (libcore/cookie.h), as
    Hearth's own clients do (libcore/curve.h).  Header-only. */
#ifndef HEARTH_BENCHCOOKIE_H
#define HEARTH_BENCHCOOKIE_H

#include <string.h>

#include <zmq.h>

#include "libcore/cookie.h"

/* Set PLAIN's user name and the cookie on sock (a libzmq socket, before
   it connects) when this user has a cookie. */
static inline void
bench_cookie (void *sock)
{
    char cookie[HEARTH_COOKIE_LEN + 1];
    if (hearth_cookie_read (cookie, sizeof cookie, NULL) != 1)
        return;
    zmq_setsockopt (sock, ZMQ_PLAIN_USERNAME, HEARTH_COOKIE_USER,
                    strlen (HEARTH_COOKIE_USER));
    zmq_setsockopt (sock, ZMQ_PLAIN_PASSWORD, cookie, HEARTH_COOKIE_LEN);
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

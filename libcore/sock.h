/*  sock.h - the one place where Hearth's ZeroMQ sockets are made.

    Every socket of every process comes from hearth_sock_new(), so that
    limits (ZMQ_MAXMSGSIZE), queueing (high-water marks, never blocking on
    send), linger at close, reconnect back-off and security are decided once.
*/
#ifndef HEARTH_SOCK_H
#define HEARTH_SOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/error.h"

typedef struct {
    int type;              /* ZMQ_ROUTER, ZMQ_DEALER, ZMQ_PUB, ZMQ_SUB... */
    const char *identity;  /* routing id for a DEALER, or NULL */
    int64_t max_msg_bytes; /* ZMQ_MAXMSGSIZE; 0 means the default */
    int linger_ms;         /* wait at close for unsent messages; 0 = default */
    int hwm;               /* send and receive high-water mark; 0 = default */
    int reconnect_ivl_ms;  /* first reconnect delay; 0 = default */
    int reconnect_ivl_max_ms;     /* reconnect back-off cap; 0 = default */
    zcert_t *curve_cert;          /* CURVE: this socket's key pair (borrowed),
                                     or NULL for no encryption */
    const char *curve_server_key; /* CURVE client: the server's public key
                                     (Z85); NULL makes this a server */
    const char *zap_domain;       /* CURVE server: ask ZAP (zap.h, cookie.h)
                                     who may connect; NULL: any client key */
} hearth_sock_opts_t;

/* Defaults used when an option is 0. */
#define HEARTH_SOCK_MAX_MSG_BYTES ((int64_t) 256 * 1024 * 1024)
#define HEARTH_SOCK_LINGER_MS 1000
#define HEARTH_SOCK_HWM 100000
#define HEARTH_SOCK_RECONNECT_MS 100
#define HEARTH_SOCK_RECONNECT_MAX_MS 2000
/* ZeroMQ sockets a process holds at most by default: ours hold a
   handful.  ZeroMQ sizes two tables by this when its context starts, so
   the OS's limit (65,535 sockets) costs every process about 190 pages
   and 0.3 ms of its start-up (docs/performance.md, benchmark 6). */
#define HEARTH_SOCK_MAX_SOCKETS 4096

/* Decide czmq's process-wide defaults: no czmq signal handler (daemons
   handle their signals themselves), one I/O thread, logs to stderr, at
   most HEARTH_SOCK_MAX_SOCKETS sockets.  Call once at start-up, before
   any socket is made and any thread started. */
void hearth_zsys_init (void);

/* The same, with as many sockets as the OS allows: for a process whose
   sockets grow with the cluster (an executor's reduce tasks hold one per
   block server). */
void hearth_zsys_init_unbounded (void);

/* A new socket with opts applied (opts NULL: a DEALER with defaults),
   CURVE included when opts->curve_cert is set.  NULL with err on
   failure. */
zsock_t *hearth_sock_new (const hearth_sock_opts_t *opts, hearth_error_t *err);

/* Bind to endpoint ("tcp://127.0.0.1:7077", port 0 or "*" for an ephemeral
   one).  Returns the bound TCP port (or 0 for other transports), or -1 with
   err. */
int hearth_sock_bind (zsock_t *sock, const char *endpoint, hearth_error_t *err);

/* Connect to endpoint.  Returns 0 or -1 with err. */
int hearth_sock_connect (zsock_t *sock, const char *endpoint,
                         hearth_error_t *err);

/* Destroy a socket, nulling the pointer; accepts NULL; keeps errno. */
void hearth_sock_destroy (zsock_t **sock_p);

/* Split "tcp://HOST:PORT" into host (at most host_size bytes) and port.
   Returns 0 or -1 with err when the URL is not of that form, saying what
   is wrong: "missing port", "missing host", "bad port". */
int hearth_url_split (const char *url, char *host, size_t host_size, int *port,
                      hearth_error_t *err);

/* The IPv4 address this machine would use as source to reach HOST:PORT
   (the route's, found by connecting a UDP socket: nothing is sent), into
   buf.  Returns 0, or -1 when HOST does not resolve or is unreachable. */
int hearth_address_towards (const char *host, int port, char *buf, size_t size);

/* The address to reach this machine by from url's host (a tcp:// URL, or
   NULL): hearth_address_towards it, else 127.0.0.1. */
void hearth_address_towards_url (const char *url, char *buf, size_t size);

#endif

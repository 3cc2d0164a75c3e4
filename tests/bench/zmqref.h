/*  zmqref.h - the raw ZeroMQ reference that benchmarks measure beside
    their own figures: a ROUTER server in a forked process (before any
    ZeroMQ context exists in the parent) and a DEALER client.

    The server echoes messages starting with 'E', counts those starting
    with 'C', parses those starting with '{' as JSON (and reads a field),
    answers 'X' with its count, and exits on 'Q'.

    Header-only, shared by bench-zmq (benchmark 1) and bench-driver's
    latency mode, which measures round trips between its own repetitions
    so that both see the same load on a shared machine.
*/
#ifndef HEARTH_ZMQREF_H
#define HEARTH_ZMQREF_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zmq.h>

#include "tests/bench/benchutil.h"

/* First byte of each client message: what the server does with it. */
enum {
    MSG_ECHO = 'E',  /* send it back */
    MSG_COUNT = 'C', /* count it */
    MSG_JSON = '{',  /* parse it as JSON, read a field, count it */
    MSG_END = 'X',   /* reply with the count, reset it */
    MSG_QUIT = 'Q',  /* exit */
};

/* Bytes of a small message; round trips before the measured ones. */
enum { ZMQREF_SMALL = 64, ZMQREF_WARMUP = 1000 };

/* The server: a ROUTER bound to endpoint (a port 0 picks one), CURVE
   when curve_secret (Z85) is given, with no ZAP handler (any client key
   is accepted: what the benchmark measures is the encryption); the
   endpoint it bound is written to port_fd. */
static inline int
zmqref_serve (const char *endpoint_in, const char *curve_secret, int port_fd)
{
    void *ctx = zmq_ctx_new ();
    void *router = zmq_socket (ctx, ZMQ_ROUTER);
    int one = 1;
    if (curve_secret
        && (zmq_setsockopt (router, ZMQ_CURVE_SERVER, &one, sizeof one) < 0
            || zmq_setsockopt (router, ZMQ_CURVE_SECRETKEY, curve_secret, 40)
                   < 0)) {
        fprintf (stderr, "zmqref: curve: %s\n", zmq_strerror (errno));
        return 1;
    }
    if (zmq_bind (router, endpoint_in) < 0) {
        fprintf (stderr, "zmqref: bind: %s\n", zmq_strerror (errno));
        return 1;
    }
    char endpoint[256];
    size_t len = sizeof endpoint;
    zmq_getsockopt (router, ZMQ_LAST_ENDPOINT, endpoint, &len);
    if (write (port_fd, endpoint, strlen (endpoint) + 1) < 0)
        return 1;
    if (port_fd > 2)
        close (port_fd);
    long count = 0, bad = 0;
    zmq_msg_t rid, body;
    zmq_msg_init (&rid);
    zmq_msg_init (&body);
    for (;;) {
        if (zmq_msg_recv (&rid, router, 0) < 0
            || zmq_msg_recv (&body, router, 0) < 0)
            break;
        const char *data = zmq_msg_data (&body);
        size_t size = zmq_msg_size (&body);
        char kind = size ? data[0] : MSG_COUNT;
        if (kind == MSG_ECHO) {
            zmq_msg_send (&rid, router, ZMQ_SNDMORE);
            zmq_msg_send (&body, router, 0);
        }
        else if (kind == MSG_JSON) {
            cJSON *json = cJSON_ParseWithLength (data, size);
            const cJSON *tid = cJSON_GetObjectItemCaseSensitive (json, "tid");
            if (!cJSON_IsNumber (tid))
                bad++;
            cJSON_Delete (json);
            count++;
        }
        else if (kind == MSG_END) {
            char reply[32];
            int n = snprintf (reply, sizeof reply, "%ld", bad ? -bad : count);
            zmq_msg_send (&rid, router, ZMQ_SNDMORE);
            zmq_send (router, reply, n, 0);
            count = bad = 0;
        }
        else if (kind == MSG_QUIT)
            break;
        else
            count++;
    }
    zmq_msg_close (&rid);
    zmq_msg_close (&body);
    zmq_close (router);
    zmq_ctx_term (ctx);
    return 0;
}

/* The loopback server of the same-machine references. */
static inline int
zmqref_server (int port_fd)
{
    return zmqref_serve ("tcp://127.0.0.1:0", NULL, port_fd);
}

/* A DEALER of ctx connected to endpoint, a CURVE client of the server
   whose public key (Z85) is server_key when given (with a key pair of
   its own, made here); NULL on failure. */
static inline void *
zmqref_connect (void *ctx, const char *endpoint, const char *server_key)
{
    void *dealer = zmq_socket (ctx, ZMQ_DEALER);
    char pub[41], sec[41];
    if (server_key
        && (zmq_curve_keypair (pub, sec) < 0
            || zmq_setsockopt (dealer, ZMQ_CURVE_SERVERKEY, server_key, 40) < 0
            || zmq_setsockopt (dealer, ZMQ_CURVE_PUBLICKEY, pub, 40) < 0
            || zmq_setsockopt (dealer, ZMQ_CURVE_SECRETKEY, sec, 40) < 0)) {
        fprintf (stderr, "zmqref: curve: %s\n", zmq_strerror (errno));
        zmq_close (dealer);
        return NULL;
    }
    if (zmq_connect (dealer, endpoint) < 0) {
        fprintf (stderr, "zmqref: connect %s: %s\n", endpoint,
                 zmq_strerror (errno));
        zmq_close (dealer);
        return NULL;
    }
    return dealer;
}

/* Round trips: fills us[0..n), after warmup untimed ones. */
static inline void
zmqref_rtt_warm (void *dealer, double *us, int n, int warmup)
{
    char buf[64];
    memset (buf, 'x', sizeof buf);
    buf[0] = MSG_ECHO;
    for (int i = -warmup; i < n; i++) {
        double t0 = bench_now_us ();
        zmq_send (dealer, buf, ZMQREF_SMALL, 0);
        zmq_recv (dealer, buf, sizeof buf, 0);
        if (i >= 0)
            us[i] = bench_now_us () - t0;
    }
}

/* n round trips into us[], after ZMQREF_WARMUP untimed ones. */
static inline void
zmqref_rtt (void *dealer, double *us, int n)
{
    zmqref_rtt_warm (dealer, us, n, ZMQREF_WARMUP);
}

/* The client side of the reference. */
typedef struct {
    pid_t pid;    /* the server, or -1 when it is another host's */
    void *ctx;    /* our context */
    void *dealer; /* connected to the server */
} zmqref_t;

/* Fork the server and connect to it.  Call before any other ZeroMQ
   context exists in this process.  Returns 0 or -1. */
static inline int
zmqref_start (zmqref_t *ref)
{
    int fds[2];
    if (pipe (fds) < 0)
        return -1;
    fflush (stdout);
    ref->pid = fork ();
    if (ref->pid == 0) {
        close (fds[0]);
        _exit (zmqref_server (fds[1]));
    }
    close (fds[1]);
    char endpoint[256] = "";
    ssize_t n = read (fds[0], endpoint, sizeof endpoint - 1);
    close (fds[0]);
    if (ref->pid < 0 || n <= 0) {
        fprintf (stderr, "zmqref: the server did not start\n");
        return -1;
    }
    ref->ctx = zmq_ctx_new ();
    ref->dealer = zmqref_connect (ref->ctx, endpoint, NULL);
    return ref->dealer ? 0 : -1;
}

static inline void
zmqref_stop (zmqref_t *ref)
{
    char quit = MSG_QUIT;
    if (ref->pid > 0) /* a server of our own; another host's stays up */
        zmq_send (ref->dealer, &quit, 1, 0);
    int linger = 1000;
    zmq_setsockopt (ref->dealer, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close (ref->dealer);
    zmq_ctx_term (ref->ctx);
    int status;
    if (ref->pid > 0)
        waitpid (ref->pid, &status, 0);
}

#endif

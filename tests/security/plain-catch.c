/*  plain-catch.c - a stranger's listener on a port a tool of another user
    will connect to (test-cookie-theft.sh):

        plain-catch URL SECONDS

    Binds URL (tcp://127.0.0.1:PORT) as a ZeroMQ PLAIN server, the
    mechanism a keyless loopback master speaks (cookie.h), with a ZAP
    handler of its own that admits nobody.  It prints "bound" once
    listening, "accepted" for each connection, then the first handshake's
    outcome, and exits: "password PASSWORD" (the client presented a
    password: exit 0) or "handshake failed" (exit 3).  Nothing within
    SECONDS, or no bind: exit 1.  It runs as any user: no key, no cookie,
    nothing but the port. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

/* libzmq asks this endpoint whether to admit a client (RFC 27). */
static const char s_zap_endpoint[] = "inproc://zeromq.zap.01";

/* Answer one ZAP request with a refusal; print its password.  True when
   the request was a PLAIN one (it had a password to print). */
static bool
s_answer (zsock_t *zap)
{
    zmsg_t *req = zmsg_recv (zap);
    if (!req)
        return false;
    char *version = zmsg_popstr (req);
    zframe_t *id = zmsg_pop (req);
    char *domain = zmsg_popstr (req), *address = zmsg_popstr (req);
    zframe_t *identity = zmsg_pop (req);
    char *mech = zmsg_popstr (req);
    char *user = zmsg_popstr (req), *password = zmsg_popstr (req);
    bool plain = mech && strcmp (mech, "PLAIN") == 0 && password;
    if (plain) {
        printf ("password %s\n", password);
        fflush (stdout);
    }
    zmsg_t *reply = zmsg_new ();
    zmsg_addstr (reply, "1.0");
    zmsg_append (reply, &id);
    zmsg_addstr (reply, "400");
    zmsg_addstr (reply, "no");
    zmsg_addstr (reply, "");
    zmsg_addmem (reply, "", 0);
    zmsg_send (&reply, zap);
    free (version);
    free (domain);
    free (address);
    free (mech);
    free (user);
    free (password);
    zframe_destroy (&id);
    zframe_destroy (&identity);
    zmsg_destroy (&req);
    return plain;
}

/* One event of the server's monitor: print it.  1 to go on, 3 after a
   failed handshake. */
static int
s_event (zactor_t *monitor)
{
    zmsg_t *event = zmsg_recv (monitor);
    char *name = event ? zmsg_popstr (event) : NULL;
    int rc = 1;
    if (name && strcmp (name, "ACCEPTED") == 0)
        printf ("accepted\n");
    else if (name && strncmp (name, "HANDSHAKE_FAILED", 16) == 0) {
        printf ("handshake failed\n");
        rc = 3;
    }
    fflush (stdout);
    free (name);
    zmsg_destroy (&event);
    return rc;
}

int
main (int argc, char **argv)
{
    if (argc != 3) {
        fprintf (stderr, "usage: plain-catch URL SECONDS\n");
        return 2;
    }
    zsys_handler_set (NULL);
    int64_t until = zclock_mono () + atoi (argv[2]) * 1000;
    zsock_t *zap = zsock_new_rep (s_zap_endpoint);
    zsock_t *server = zsock_new (ZMQ_ROUTER);
    zactor_t *monitor = server ? zactor_new (zmonitor, server) : NULL;
    int rc = 1;
    if (!zap || !server || !monitor) {
        fprintf (stderr, "plain-catch: no sockets\n");
        goto done;
    }
    zsock_set_plain_server (server, 1);
    zsock_set_zap_domain (server, "hearth");
    zstr_sendx (monitor, "LISTEN", "ACCEPTED", "HANDSHAKE_FAILED_NO_DETAIL",
                "HANDSHAKE_FAILED_PROTOCOL", "HANDSHAKE_FAILED_AUTH", NULL);
    zstr_sendx (monitor, "START", NULL);
    zsock_wait (monitor);
    if (zsock_bind (server, "%s", argv[1]) < 0) {
        fprintf (stderr, "plain-catch: cannot bind %s: %s\n", argv[1],
                 zmq_strerror (zmq_errno ()));
        goto done;
    }
    printf ("bound\n");
    fflush (stdout);
    zpoller_t *poller = zpoller_new (zap, monitor, NULL);
    while (rc == 1 && zclock_mono () < until) {
        void *which = zpoller_wait (poller, 100);
        if (which == zap && s_answer (zap))
            rc = 0;
        else if (which == monitor)
            rc = s_event (monitor);
    }
    zpoller_destroy (&poller);
done:
    zactor_destroy (&monitor);
    zsock_destroy (&server);
    zsock_destroy (&zap);
    return rc;
}

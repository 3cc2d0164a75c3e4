/*  test_connwatch.c - what a client says when it cannot reach its
    server: the diagnosis from monitor events (fed by hand, with a fake
    clock), the probe of a peer that is not ZeroMQ, and a real socket's
    monitor against a port where nothing listens. */
#include "config.h"

#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/clock.h"
#include "libcore/connwatch.h"
#include "libcore/sock.h"
#include "tests/unit/testutil.h"

static hearth_connwatch_t *
s_watch (const char *url, bool curve)
{
    hearth_connwatch_t *w =
        hearth_connwatch_new (url, "the master", curve, curve ? "KEY" : NULL);
    assert_non_null (w);
    return w;
}

/* A TCP port on loopback: listening (the fd returned), or free again
   (fd < 0 after it is closed). */
static int
s_listen (int *port, bool keep)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_true (fd >= 0);
    assert_int_equal (bind (fd, (struct sockaddr *) &a, sizeof a), 0);
    assert_int_equal (listen (fd, 4), 0);
    assert_int_equal (getsockname (fd, (struct sockaddr *) &a, &len), 0);
    *port = ntohs (a.sin_port);
    if (!keep) {
        close (fd);
        return -1;
    }
    return fd;
}

static void
test_refused_said_once (void **state)
{
    (void) state;
    hearth_connwatch_t *w = s_watch ("tcp://127.0.0.1:7077", false);
    bool fatal = true;
    assert_null (hearth_connwatch_news (w, 0, &fatal));
    assert_null (hearth_connwatch_last (w));
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECT_DELAYED, 115, 0);
    assert_false (hearth_connwatch_refused (w));
    hearth_connwatch_event (w, ZMQ_EVENT_CLOSED, 12, 1);
    assert_true (hearth_connwatch_refused (w)); /* before anything is said */
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECT_RETRIED, 100, 1);
    const char *news = hearth_connwatch_news (w, 2, &fatal);
    assert_contains (news, "the master at tcp://127.0.0.1:7077");
    assert_contains (news, "connection refused");
    assert_false (fatal);
    /* The same again, and again: said once. */
    for (int i = 0; i < 3; i++) {
        hearth_connwatch_event (w, ZMQ_EVENT_CONNECT_DELAYED, 115, 10 + i);
        hearth_connwatch_event (w, ZMQ_EVENT_CLOSED, 12, 10 + i);
        hearth_connwatch_event (w, ZMQ_EVENT_CONNECT_RETRIED, 100, 10 + i);
    }
    assert_null (hearth_connwatch_news (w, 20, NULL));
    assert_contains (hearth_connwatch_last (w), "connection refused");
    assert_false (hearth_connwatch_ok (w));
    /* The server comes up: all is well, and a new refusal is news. */
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECT_DELAYED, 115, 30);
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECTED, 12, 30);
    hearth_connwatch_event (w, ZMQ_EVENT_HANDSHAKE_SUCCEEDED, 0, 31);
    assert_true (hearth_connwatch_ok (w));
    assert_false (hearth_connwatch_refused (w));
    assert_null (hearth_connwatch_news (w, 32, NULL));
    /* it goes (its process killed): the connection drops, and its
       reconnection is refused */
    hearth_connwatch_event (w, ZMQ_EVENT_DISCONNECTED, 12, 40);
    assert_false (hearth_connwatch_refused (w));
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECT_DELAYED, 115, 41);
    hearth_connwatch_event (w, ZMQ_EVENT_CLOSED, 12, 41);
    assert_true (hearth_connwatch_refused (w));
    assert_contains (hearth_connwatch_news (w, 42, NULL), "connection refused");
    hearth_connwatch_destroy (&w);
    assert_null (w);
    hearth_connwatch_destroy (&w);
    hearth_connwatch_destroy (NULL);
}

static void
test_unresolved_host (void **state)
{
    (void) state;
    hearth_connwatch_t *w = s_watch ("tcp://nosuch.invalid:7077", false);
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECT_RETRIED, 150, 0);
    bool fatal = false;
    const char *news = hearth_connwatch_news (w, 1, &fatal);
    assert_contains (news, "host nosuch.invalid");
    /* Where DNS answers, the name does not exist: waiting cannot mend it.
       (A resolver that cannot be reached says so, for now.) */
    if (strstr (news, "not found"))
        assert_true (fatal);
    else
        assert_contains (news, "does not resolve");
    hearth_connwatch_destroy (&w);
}

static void
test_silences_take_time (void **state)
{
    (void) state;
    hearth_connwatch_t *w = s_watch ("tcp://10.1.2.3:7077", false);
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECT_DELAYED, 115, 1000);
    assert_null (hearth_connwatch_news (w, 2000, NULL));
    assert_contains (hearth_connwatch_news (w, 3100, NULL), "no answer from");
    assert_false (hearth_connwatch_refused (w)); /* a silence is not that */
    hearth_connwatch_destroy (&w);
}

static void
test_keys (void **state)
{
    (void) state;
    hearth_connwatch_t *w = s_watch ("tcp://127.0.0.1:7077", true);
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECTED, 12, 0);
    hearth_connwatch_event (w, ZMQ_EVENT_HANDSHAKE_FAILED_AUTH, 400, 1);
    const char *news = hearth_connwatch_news (w, 2, NULL);
    assert_contains (news, "does not admit this client's key KEY");
    assert_contains (news, "--curve-allow");
    /* Then the other side turns out to use no keys at all. */
    hearth_connwatch_event (w, ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL,
                            ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH, 3);
    assert_contains (hearth_connwatch_news (w, 4, NULL), "uses no keys");
    hearth_connwatch_destroy (&w);
    w = s_watch ("tcp://127.0.0.1:7077", false);
    hearth_connwatch_event (w, ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL,
                            ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH, 3);
    assert_contains (hearth_connwatch_news (w, 4, NULL), "needs CURVE keys");
    hearth_connwatch_event (w, ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL,
                            ZMQ_PROTOCOL_ERROR_ZMTP_UNEXPECTED_COMMAND, 5);
    assert_contains (hearth_connwatch_news (w, 6, NULL),
                     "ZMTP protocol error 0x10000001");
    hearth_connwatch_destroy (&w);
}

/* A peer that is not ZeroMQ (an SSH server, say): the probe reads what
   it sent. */
static void
test_probe_tells_another_protocol (void **state)
{
    (void) state;
    int port, fd = s_listen (&port, true);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        alarm (30); /* never outlive a test that failed */
        for (;;) {
            int c = accept (fd, NULL, NULL);
            if (c >= 0 && write (c, "SSH-2.0-OpenSSH_9\r\n", 19) < 0)
                _exit (1);
        }
    }
    close (fd);
    char url[64];
    snprintf (url, sizeof url, "tcp://127.0.0.1:%d", port);
    hearth_connwatch_t *w = s_watch (url, false);
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECTED, 12, 0);
    hearth_connwatch_event (w, ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL, 104, 1);
    const char *news = hearth_connwatch_news (w, 2, NULL);
    assert_contains (news, "is not a ZeroMQ peer");
    assert_contains (news, "\"SSH-2.0-OpenSSH_9\"");
    hearth_connwatch_destroy (&w);
    /* The same peer, saying nothing wrong yet: the probe comes after a
       short wait for the handshake. */
    w = s_watch (url, false);
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECTED, 12, 0);
    assert_null (hearth_connwatch_news (w, 100, NULL));
    assert_contains (hearth_connwatch_news (w, 600, NULL),
                     "is not a ZeroMQ peer");
    hearth_connwatch_destroy (&w);
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
}

/* A handshake that failed where nothing answers the probe: the general
   words. */
static void
test_probe_without_answer (void **state)
{
    (void) state;
    int port;
    s_listen (&port, false);
    char url[64];
    snprintf (url, sizeof url, "tcp://127.0.0.1:%d", port);
    hearth_connwatch_t *w = s_watch (url, true);
    hearth_connwatch_event (w, ZMQ_EVENT_CONNECTED, 12, 0);
    hearth_connwatch_event (w, ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL, 32, 1);
    assert_contains (hearth_connwatch_news (w, 2, NULL),
                     "its keys and this client's do not match");
    hearth_connwatch_destroy (&w);
}

/* A real DEALER and its monitor, towards a port where nothing listens. */
static void
test_real_socket_refused (void **state)
{
    (void) state;
    hearth_zsys_init ();
    int port;
    s_listen (&port, false);
    char url[64];
    snprintf (url, sizeof url, "tcp://127.0.0.1:%d", port);
    hearth_error_t err;
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    zsock_t *sock = hearth_sock_new (&opts, &err);
    assert_non_null (sock);
    hearth_connwatch_t *w = s_watch (url, false);
    zsock_t *monitor = hearth_connwatch_attach (w, sock, &err);
    assert_non_null (monitor);
    assert_ptr_equal (hearth_connwatch_monitor (w), monitor);
    assert_int_equal (hearth_sock_connect (sock, url, &err), 0);
    const char *news = NULL;
    int64_t deadline = hearth_mono_ms () + 3000;
    while (!news && hearth_mono_ms () < deadline) {
        zmq_pollitem_t item = {zsock_resolve (monitor), 0, ZMQ_POLLIN, 0};
        if (zmq_poll (&item, 1, 100) > 0)
            hearth_connwatch_read (w, hearth_mono_ms ());
        news = hearth_connwatch_news (w, hearth_mono_ms (), NULL);
    }
    assert_contains (news, "connection refused");
    assert_true (hearth_connwatch_refused (w));
    hearth_connwatch_destroy (&w);
    zsock_set_linger (sock, 0);
    zsock_destroy (&sock);
}

/* A request sent after the server has already refused the handshake:
   the DEALER has no peer left and cannot take it (EAGAIN), which is how
   the race between a tool's send and the I/O thread's handshake ended in
   CI ("cannot send DRIVER_STATUS: Resource temporarily unavailable").
   Sent through the watch, the request is no error, and the wait says
   why at once. */
static void
test_request_after_handshake_refused (void **state)
{
    (void) state;
    hearth_zsys_init ();
    hearth_error_t err;
    zcert_t *cert = zcert_new ();
    assert_non_null (cert);
    hearth_sock_opts_t sopts = {.type = ZMQ_ROUTER, .curve_cert = cert};
    zsock_t *server = hearth_sock_new (&sopts, &err);
    assert_non_null (server);
    int port = zsock_bind (server, "tcp://127.0.0.1:*");
    assert_true (port > 0);
    char url[64];
    snprintf (url, sizeof url, "tcp://127.0.0.1:%d", port);
    /* the race lost on purpose: wait until the connection is dropped
       (no peer left to send to), reading nothing of the monitor.  The
       client sees the refusal either as the mechanism's mismatch (the
       pipe ends) or as the server closing (it reconnects, keeping its
       pipe, and sends would go): fresh sockets until one lost it. */
    zsock_t *sock = NULL;
    hearth_connwatch_t *w = NULL;
    for (int attempt = 0; attempt < 50 && !w; attempt++) {
        hearth_sock_opts_t opts = {.type = ZMQ_DEALER}; /* no keys, cookie */
        assert_non_null (sock = hearth_sock_new (&opts, &err));
        w = s_watch (url, false);
        assert_non_null (hearth_connwatch_attach (w, sock, &err));
        assert_int_equal (hearth_sock_connect (sock, url, &err), 0);
        int64_t deadline = hearth_mono_ms () + 500;
        while ((zsock_events (sock) & ZMQ_POLLOUT)
               && hearth_mono_ms () < deadline)
            usleep (10 * 1000);
        if (!(zsock_events (sock) & ZMQ_POLLOUT))
            break;
        hearth_connwatch_destroy (&w);
        zsock_set_linger (sock, 0);
        zsock_destroy (&sock);
    }
    assert_non_null (w);
    hearth_msg_t *req = hearth_msg_new (HEARTH_CMD_MASTER_STATE);
    assert_non_null (req);
    assert_int_equal (hearth_connwatch_send (w, sock, &req, &err), 0);
    assert_null (req);
    int64_t start = hearth_mono_ms ();
    assert_int_equal (hearth_connwatch_wait (w, sock, 20000, &err), -1);
    assert_true (hearth_mono_ms () - start < 10000);
    assert_contains (err.text, "needs keys");
    hearth_connwatch_destroy (&w);
    zsock_set_linger (sock, 0);
    zsock_destroy (&sock);
    zsock_destroy (&server);
    zcert_destroy (&cert);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_refused_said_once),
        cmocka_unit_test (test_unresolved_host),
        cmocka_unit_test (test_silences_take_time),
        cmocka_unit_test (test_keys),
        cmocka_unit_test (test_probe_tells_another_protocol),
        cmocka_unit_test (test_probe_without_answer),
        cmocka_unit_test (test_real_socket_refused),
        cmocka_unit_test (test_request_after_handshake_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_sock.c - unit tests of the socket factory (libcore/sock.c): the
    options every Hearth socket gets, binding and connecting with readable
    errors, ZMQ_MAXMSGSIZE really dropping an oversize message, and URL
    splitting.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <czmq.h>

#include "libcore/sock.h"
#include "tests/unit/testutil.h"

static void
test_defaults (void **state)
{
    (void) state;
    hearth_error_t err;
    zsock_t *sock = hearth_sock_new (NULL, &err);
    assert_non_null (sock);
    assert_int_equal (zsock_type (sock), ZMQ_DEALER);
    assert_int_equal (zsock_linger (sock), HEARTH_SOCK_LINGER_MS);
    assert_int_equal (zsock_sndhwm (sock), HEARTH_SOCK_HWM);
    assert_int_equal (zsock_rcvhwm (sock), HEARTH_SOCK_HWM);
    assert_int_equal (zsock_sndtimeo (sock), 0); /* sends never block */
    assert_true (zsock_maxmsgsize (sock) == HEARTH_SOCK_MAX_MSG_BYTES);
    assert_int_equal (zsock_reconnect_ivl (sock), HEARTH_SOCK_RECONNECT_MS);
    assert_int_equal (zsock_reconnect_ivl_max (sock),
                      HEARTH_SOCK_RECONNECT_MAX_MS);
    hearth_sock_destroy (&sock);
    assert_null (sock);
    hearth_sock_destroy (&sock);
    hearth_sock_destroy (NULL);
}

static void
test_options (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_sock_opts_t opts = {.type = ZMQ_ROUTER,
                               .identity = "master",
                               .max_msg_bytes = 4096,
                               .linger_ms = 5,
                               .hwm = 10,
                               .reconnect_ivl_ms = 250,
                               .reconnect_ivl_max_ms = 8000};
    zsock_t *sock = hearth_sock_new (&opts, &err);
    assert_non_null (sock);
    assert_int_equal (zsock_type (sock), ZMQ_ROUTER);
    assert_int_equal (zsock_linger (sock), 5);
    assert_int_equal (zsock_sndhwm (sock), 10);
    assert_int_equal (zsock_maxmsgsize (sock), 4096);
    assert_int_equal (zsock_reconnect_ivl (sock), 250);
    assert_int_equal (zsock_reconnect_ivl_max (sock), 8000);
    char *identity = zsock_identity (sock);
    assert_string_equal (identity, "master");
    freen (identity);
    hearth_sock_destroy (&sock);
}

static void
test_bind_connect (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_sock_opts_t ropts = {.type = ZMQ_ROUTER};
    zsock_t *a = hearth_sock_new (&ropts, &err);
    zsock_t *b = hearth_sock_new (&ropts, &err);
    int port = hearth_sock_bind (a, "tcp://127.0.0.1:*", &err);
    assert_true (port > 0 && port < 65536);

    char url[64], want[160];
    snprintf (url, sizeof url, "tcp://127.0.0.1:%d", port);
    assert_int_equal (hearth_sock_bind (b, url, &err), -1);
    snprintf (want, sizeof want, "cannot bind %s: Address already in use", url);
    assert_string_equal (err.text, want);
    assert_int_equal (hearth_sock_bind (b, "bogus://x", &err), -1);
    assert_contains (err.text, "cannot bind bogus://x: ");
    assert_int_equal (hearth_sock_bind (b, "inproc://hearth-test", &err), 0);

    /* port 0: the kernel's choice, reported like czmq's "*" */
    int other = hearth_sock_bind (b, "tcp://127.0.0.1:0", &err);
    assert_true (other > 0 && other < 65536 && other != port);
    char *last = zsock_last_endpoint (b);
    snprintf (want, sizeof want, "tcp://127.0.0.1:%d", other);
    assert_string_equal (last, want);
    freen (last);

    zsock_t *c = hearth_sock_new (NULL, &err);
    assert_int_equal (hearth_sock_connect (c, url, &err), 0);
    assert_int_equal (hearth_sock_connect (c, "tcp://", &err), -1);
    assert_contains (err.text, "cannot connect to tcp://: ");
    /* peers before the sockets they connect to, so that no DEALER ever
       reconnects to a port that another test has bound since */
    hearth_sock_destroy (&c);
    hearth_sock_destroy (&a);
    hearth_sock_destroy (&b);
}

/* A message above max_msg_bytes never arrives; one below does. */
static void
test_max_msg_size (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_sock_opts_t ropts = {.type = ZMQ_ROUTER, .max_msg_bytes = 1000};
    zsock_t *router = hearth_sock_new (&ropts, &err);
    /* a kernel-chosen port: czmq's "*" takes the first free one from
       49152, which other programs' reconnecting peers may still aim at */
    int port = hearth_sock_bind (router, "tcp://127.0.0.1:0", &err);
    assert_true (port > 0);
    char url[64];
    snprintf (url, sizeof url, "tcp://127.0.0.1:%d", port);
    zsock_set_rcvtimeo (router, 3000);

    hearth_sock_opts_t sopts = {.type = ZMQ_DEALER, .identity = "small"};
    zsock_t *small = hearth_sock_new (&sopts, &err);
    assert_int_equal (hearth_sock_connect (small, url, &err), 0);
    char data[2000];
    memset (data, 'x', sizeof data);
    zframe_t *frame = zframe_new (data, 999);
    assert_int_equal (zframe_send (&frame, small, 0), 0);
    zmsg_t *msg = zmsg_recv (router);
    assert_non_null (msg);
    assert_true (zframe_streq (zmsg_first (msg), "small"));
    assert_int_equal (zframe_size (zmsg_last (msg)), 999);
    zmsg_destroy (&msg);

    zsock_t *big = hearth_sock_new (NULL, &err);
    assert_int_equal (hearth_sock_connect (big, url, &err), 0);
    frame = zframe_new (data, 1001);
    assert_int_equal (zframe_send (&frame, big, 0), 0);
    zsock_set_rcvtimeo (router, 300);
    assert_null (zmsg_recv (router));
    hearth_sock_destroy (&big);
    hearth_sock_destroy (&small);
    hearth_sock_destroy (&router);
}

static void
test_url_split (void **state)
{
    (void) state;
    char host[64];
    int port = 0;
    hearth_error_t err;
    assert_int_equal (hearth_url_split ("tcp://10.0.0.5:7077", host,
                                        sizeof host, &port, &err),
                      0);
    assert_string_equal (host, "10.0.0.5");
    assert_int_equal (port, 7077);
    assert_int_equal (
        hearth_url_split ("tcp://[::1]:1", host, sizeof host, &port, &err), 0);
    assert_string_equal (host, "[::1]");
    assert_int_equal (port, 1);

    static const char *const bad[] = {
        "udp://h:1", "tcp://h",   "tcp://:7077",
        "tcp://h:",  "tcp://h:0", "tcp://h:65536",
        "tcp://h:x", "h:7077",    "tcp://h:7077x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        port = -1;
        if (hearth_url_split (bad[i], host, sizeof host, &port, &err) == 0)
            fail_msg ("'%s' accepted", bad[i]);
        assert_int_equal (port, -1);
        assert_contains (err.text, bad[i]);
    }
    assert_int_equal (
        hearth_url_split ("tcp://h:0", host, sizeof host, &port, &err), -1);
    assert_string_equal (err.text, "'tcp://h:0': bad port '0'");
    /* what is wrong is said (issue 13: "tcp://127.0.0.1" without a port) */
    static const char *const no_port[] = {
        "tcp://h", "tcp://h:", "tcp://127.0.0.1", "tcp://[::1]"};
    for (size_t i = 0; i < sizeof no_port / sizeof no_port[0]; i++) {
        assert_int_equal (
            hearth_url_split (no_port[i], host, sizeof host, &port, &err), -1);
        assert_contains (err.text, "missing port");
    }
    assert_int_equal (
        hearth_url_split ("tcp://:7077", host, sizeof host, &port, &err), -1);
    assert_contains (err.text, "missing host");
    assert_int_equal (hearth_url_split (NULL, host, sizeof host, &port, &err),
                      -1);
    assert_string_equal (err.text, "'' is not a tcp://HOST:PORT URL");
    /* a host longer than the buffer is refused, not cut */
    assert_int_equal (
        hearth_url_split ("tcp://abcdefgh:1", host, 8, &port, &err), -1);
    assert_int_equal (
        hearth_url_split ("tcp://abcdefg:1", host, 8, &port, &err), 0);
    assert_string_equal (host, "abcdefg");
}

/* The address executors are told to reach a driver by: towards the
   master's host, else loopback. */
static void
test_address_towards_url (void **state)
{
    (void) state;
    char buf[64];
    hearth_address_towards_url ("tcp://127.0.0.1:7077", buf, sizeof buf);
    assert_string_equal (buf, "127.0.0.1");
    snprintf (buf, sizeof buf, "stale");
    hearth_address_towards_url (NULL, buf, sizeof buf);
    assert_string_equal (buf, "127.0.0.1");
    snprintf (buf, sizeof buf, "stale");
    hearth_address_towards_url ("not a url", buf, sizeof buf);
    assert_string_equal (buf, "127.0.0.1");
}

int
main (void)
{
    alarm (120);
    hearth_zsys_init ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_defaults),
        cmocka_unit_test (test_options),
        cmocka_unit_test (test_bind_connect),
        cmocka_unit_test (test_max_msg_size),
        cmocka_unit_test (test_url_split),
        cmocka_unit_test (test_address_towards_url),
    };
    return cmocka_run_group_tests_name ("sock", tests, NULL, NULL);
}

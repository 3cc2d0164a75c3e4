/*  test_cookie.c - the local cookie (libcore/cookie.h): where it lives,
    how it is made and read, what is refused (a link, a file others may
    read, a directory others may write, a wrong length), a cookie of the
    earlier format replaced, its ZAP handler over real sockets (a CURVE
    client with the cookie's keys gets through, one with another cookie's
    and one with no mechanism do not), and the web pages' token it gives
    (a known answer, one per cookie). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/cookie.h"
#include "libcore/log.h"
#include "libcore/sock.h"
#include "libcore/zap.h"
#include "tests/unit/testutil.h"

static char s_dir[64];   /* the test's directory */
static char s_path[128]; /* HEARTH_COOKIE: s_dir/c/cookie */
static char s_cdir[96];  /* its directory */

static int
s_setup (void **state)
{
    (void) state;
    hearth_test_clear_env ();
    hearth_log_open ("test_cookie", "error", NULL, NULL);
    hearth_zsys_init ();
    snprintf (s_dir, sizeof s_dir, "/tmp/hearth-cookie-XXXXXX");
    if (!mkdtemp (s_dir))
        return -1;
    snprintf (s_cdir, sizeof s_cdir, "%s/c", s_dir);
    snprintf (s_path, sizeof s_path, "%s/cookie", s_cdir);
    setenv ("HEARTH_COOKIE", s_path, 1);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    return hearth_test_rmtree (s_dir);
}

/* Start each test without the cookie or its directory. */
static int
s_fresh (void **state)
{
    (void) state;
    unlink (s_path);
    rmdir (s_cdir);
    return 0;
}

static void
test_path (void **state)
{
    (void) state;
    char buf[256];
    assert_int_equal (hearth_cookie_path (buf, sizeof buf, NULL), 0);
    assert_string_equal (buf, s_path);
    unsetenv ("HEARTH_COOKIE");
    setenv ("HOME", "/home/someone", 1);
    assert_int_equal (hearth_cookie_path (buf, sizeof buf, NULL), 0);
    assert_string_equal (buf, "/home/someone/.hearth/cookie");
    setenv ("HEARTH_COOKIE", s_path, 1);
}

static void
test_make_and_read (void **state)
{
    (void) state;
    char a[HEARTH_COOKIE_LEN + 1], b[HEARTH_COOKIE_LEN + 1];
    hearth_error_t err;
    assert_int_equal (hearth_cookie_read (a, sizeof a, &err), 0);
    assert_int_equal (hearth_cookie_ensure (a, sizeof a, &err), 0);
    assert_int_equal (strlen (a), HEARTH_COOKIE_LEN);
    struct stat st;
    assert_int_equal (stat (s_path, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0600);
    assert_int_equal (stat (s_cdir, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0700);
    /* the same one again, and for a client */
    assert_int_equal (hearth_cookie_ensure (b, sizeof b, &err), 0);
    assert_string_equal (a, b);
    assert_int_equal (hearth_cookie_read (b, sizeof b, &err), 1);
    assert_string_equal (a, b);
    /* another made elsewhere differs: they are random */
    unlink (s_path);
    assert_int_equal (hearth_cookie_ensure (b, sizeof b, &err), 0);
    assert_string_not_equal (a, b);
}

/* A cookie of Hearth before its key pairs (40 characters, a PLAIN
   password): a tool reads none; a master, or a tool making its cookie,
   replaces it once with a new one of the current format. */
static void
test_old_format (void **state)
{
    (void) state;
    char a[HEARTH_COOKIE_LEN + 1], b[HEARTH_COOKIE_LEN + 1];
    hearth_error_t err;
    assert_int_equal (mkdir (s_cdir, 0700), 0);
    FILE *f = fopen (s_path, "w");
    assert_non_null (f);
    fputs ("0123456789012345678901234567890123456789\n", f);
    fclose (f);
    assert_int_equal (chmod (s_path, 0600), 0);
    assert_int_equal (hearth_cookie_read (a, sizeof a, &err), 0);
    assert_int_equal (hearth_cookie_ensure (a, sizeof a, &err), 0);
    assert_int_equal (strlen (a), HEARTH_COOKIE_LEN);
    struct stat st;
    assert_int_equal (stat (s_path, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0600);
    assert_int_equal (st.st_size, HEARTH_COOKIE_LEN + 1);
    /* replaced once: the next reader gets the same */
    assert_int_equal (hearth_cookie_ensure (b, sizeof b, &err), 0);
    assert_string_equal (a, b);
    assert_int_equal (hearth_cookie_read (b, sizeof b, &err), 1);
    assert_string_equal (a, b);
}

static void
test_refusals (void **state)
{
    (void) state;
    char c[HEARTH_COOKIE_LEN + 1];
    hearth_error_t err;
    assert_int_equal (hearth_cookie_ensure (c, sizeof c, &err), 0);
    chmod (s_path, 0644);
    assert_int_equal (hearth_cookie_read (c, sizeof c, &err), -1);
    assert_contains (err.text, "others may read it");
    assert_int_equal (hearth_cookie_ensure (c, sizeof c, &err), -1);
    chmod (s_path, 0600);
    chmod (s_cdir, 0777);
    assert_int_equal (hearth_cookie_read (c, sizeof c, &err), -1);
    assert_contains (err.text, "others may write to it");
    chmod (s_cdir, 0700);
    /* a link planted where the cookie goes is not followed */
    char target[128];
    snprintf (target, sizeof target, "%s/target", s_dir);
    FILE *f = fopen (target, "w");
    fputs ("0123456789012345678901234567890123456789\n", f);
    fclose (f);
    chmod (target, 0600);
    unlink (s_path);
    assert_int_equal (symlink (target, s_path), 0);
    assert_int_equal (hearth_cookie_read (c, sizeof c, &err), -1);
    assert_contains (err.text, "a link: refused");
    assert_int_equal (hearth_cookie_ensure (c, sizeof c, &err), -1);
    unlink (s_path);
    /* a cookie of the wrong length */
    f = fopen (s_path, "w");
    fputs ("short\n", f);
    fclose (f);
    chmod (s_path, 0600);
    assert_int_equal (hearth_cookie_read (c, sizeof c, &err), -1);
    assert_contains (err.text, "is not 80 characters");
}

/* Does a DEALER with the key pairs of cookie theirs (NULL: no mechanism)
   reach a CURVE server of the key pairs of cookie ours, whose ZAP handler
   zap asks for its client key? */
static bool
s_reaches (hearth_cookie_zap_t *zap, const char *ours, const char *theirs)
{
    hearth_error_t err;
    zcert_t *server, *client, *their_server = NULL, *their_client = NULL;
    assert_int_equal (hearth_cookie_certs (ours, &server, &client, &err), 0);
    if (theirs)
        assert_int_equal (
            hearth_cookie_certs (theirs, &their_server, &their_client, &err),
            0);
    hearth_sock_opts_t sopts = {.type = ZMQ_ROUTER,
                                .curve_cert = server,
                                .zap_domain = HEARTH_ZAP_DOMAIN};
    hearth_sock_opts_t copts = {
        .type = ZMQ_DEALER,
        .curve_cert = their_client,
        .curve_server_key =
            their_server ? zcert_public_txt (their_server) : NULL};
    zsock_t *srv = hearth_sock_new (&sopts, &err);
    int port = hearth_sock_bind (srv, "tcp://127.0.0.1:0", &err);
    zsock_t *cli = hearth_sock_new (&copts, &err);
    char url[64];
    snprintf (url, sizeof url, "tcp://127.0.0.1:%d", port);
    assert_int_equal (hearth_sock_connect (cli, url, &err), 0);
    zstr_send (cli, "hello");
    bool got = false;
    for (int i = 0; i < 40 && !got; i++) {
        if (zsock_events (hearth_cookie_zap_sock (zap)) & ZMQ_POLLIN)
            hearth_cookie_zap_handle (zap);
        zpoller_t *p = zpoller_new (srv, NULL);
        if (zpoller_wait (p, 25)) {
            zmsg_t *m = zmsg_recv (srv);
            got = m != NULL;
            zmsg_destroy (&m);
        }
        zpoller_destroy (&p);
    }
    hearth_sock_destroy (&cli);
    hearth_sock_destroy (&srv);
    zcert_destroy (&server);
    zcert_destroy (&client);
    zcert_destroy (&their_server);
    zcert_destroy (&their_client);
    return got;
}

static void
test_zap (void **state)
{
    (void) state;
    char c[HEARTH_COOKIE_LEN + 1];
    hearth_error_t err;
    assert_int_equal (hearth_cookie_ensure (c, sizeof c, &err), 0);
    hearth_cookie_zap_t *zap = hearth_cookie_zap_new (c, &err);
    assert_non_null (zap);
    assert_true (s_reaches (zap, c, c));
    assert_int_equal (hearth_cookie_zap_refusals (zap), 0);
    /* the server's half right, the client's another: refused by ZAP */
    char other[HEARTH_COOKIE_LEN + 1];
    snprintf (other, sizeof other, "%s", c);
    other[HEARTH_COOKIE_LEN - 1] =
        other[HEARTH_COOKIE_LEN - 1] == 'a' ? 'b' : 'a';
    assert_false (s_reaches (zap, c, other));
    assert_int_equal (hearth_cookie_zap_refusals (zap), 1);
    /* another cookie altogether: the client does not even take the server
       (it expects another server key), so nothing secret was shown */
    char alien[HEARTH_COOKIE_LEN + 1];
    snprintf (alien, sizeof alien, "%s", c);
    alien[0] = alien[0] == 'a' ? 'b' : 'a';
    assert_false (s_reaches (zap, c, alien));
    assert_false (s_reaches (zap, c, NULL)); /* no mechanism: no handshake */
    hearth_cookie_zap_destroy (&zap);
    assert_null (zap);
    hearth_cookie_zap_destroy (&zap);
}

static void
test_web_token (void **state)
{
    (void) state;
    char c[HEARTH_COOKIE_LEN + 1], d[HEARTH_COOKIE_LEN + 1];
    char t[HEARTH_COOKIE_WEB_TOKEN_LEN + 1], u[HEARTH_COOKIE_WEB_TOKEN_LEN + 1];
    hearth_error_t err;
    /* a known answer: BLAKE2b-192 keyed with 64 zero bytes (Z85 "0" x 80)
       of the label; tools and daemons of every version must agree */
    memset (c, '0', HEARTH_COOKIE_LEN);
    c[HEARTH_COOKIE_LEN] = '\0';
    assert_int_equal (hearth_cookie_web_token (c, t, sizeof t, &err), 0);
    assert_string_equal (t, "6e2d92dc4a4fdc625fd87c644b3a2e39d31011a453bc2dc6");
    /* a made cookie: 48 hexadecimal characters, the same every time, and
       another for another cookie */
    assert_int_equal (hearth_cookie_ensure (c, sizeof c, &err), 0);
    assert_int_equal (hearth_cookie_web_token (c, t, sizeof t, &err), 0);
    assert_int_equal (strlen (t), HEARTH_COOKIE_WEB_TOKEN_LEN);
    assert_int_equal (strspn (t, "0123456789abcdef"),
                      HEARTH_COOKIE_WEB_TOKEN_LEN);
    assert_int_equal (hearth_cookie_web_token (c, u, sizeof u, &err), 0);
    assert_string_equal (t, u);
    snprintf (d, sizeof d, "%s", c);
    d[HEARTH_COOKIE_LEN - 1] = d[HEARTH_COOKIE_LEN - 1] == 'a' ? 'b' : 'a';
    assert_int_equal (hearth_cookie_web_token (d, u, sizeof u, &err), 0);
    assert_string_not_equal (t, u);
    /* not a cookie: refused */
    assert_int_equal (hearth_cookie_web_token ("short", t, sizeof t, &err), -1);
    assert_contains (err.text, "not a cookie");
    memset (d, '"', HEARTH_COOKIE_LEN); /* not Z85 */
    assert_int_equal (hearth_cookie_web_token (d, t, sizeof t, &err), -1);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup (test_path, s_fresh),
        cmocka_unit_test_setup (test_make_and_read, s_fresh),
        cmocka_unit_test_setup (test_old_format, s_fresh),
        cmocka_unit_test_setup (test_refusals, s_fresh),
        cmocka_unit_test_setup (test_zap, s_fresh),
        cmocka_unit_test_setup (test_web_token, s_fresh),
    };
    return cmocka_run_group_tests_name ("cookie", tests, s_setup, s_teardown);
}

/*  test_webauth.c - unit tests of who the web server admits
    (libcore/webauth.c, docs/security.md "Web pages"): on loopback without
    a token file, only requests with the token of this user's local cookie
    (a header, the cookie, ?token=), a token file's when there is one, and
    a refusal to start (ENOKEY) when this user can keep no cookie; the
    Host rule: a server bound to loopback answers only requests whose
    Host, port aside, is a loopback address, localhost or the address it
    binds, so that a page whose name was made to resolve to 127.0.0.1
    (DNS rebinding) cannot read it; a request without Host is answered;
    beyond loopback every Host is (the token decides).
*/
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/cookie.h"
#include "libcore/log.h"
#include "libcore/webauth.h"
#include "tests/unit/testutil.h"

static char s_dir[64];   /* the test's directory */
static char s_path[128]; /* HEARTH_COOKIE: s_dir/c/cookie, the test's */

static int
s_setup (void **state)
{
    (void) state;
    hearth_test_clear_env ();
    hearth_log_open ("test_webauth", "error", NULL, NULL);
    snprintf (s_dir, sizeof s_dir, "test_webauth.XXXXXX");
    snprintf (s_path, sizeof s_path, "%s/c/cookie", hearth_test_tmpdir (s_dir));
    setenv ("HEARTH_COOKIE", s_path, 1);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    return hearth_test_rmtree (s_dir);
}

static void
s_setup_auth (hearth_webauth_t *a, const char *host, bool insecure)
{
    hearth_error_t err;
    assert_int_equal (hearth_webauth_setup (a, host, NULL, insecure, &err), 0);
}

static void
test_loopback_names (void **state)
{
    (void) state;
    hearth_webauth_t a;
    s_setup_auth (&a, "127.0.0.1", false);
    static const char *const ok[] = {
        "127.0.0.1",   "127.0.0.1:8080", "localhost",
        "localhost:9", "LocalHost:80",   "[::1]",
        "[::1]:8081",  "127.0.0.3",      "127.255.0.1:1",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!hearth_webauth_host_ok (&a, ok[i]))
            fail_msg ("Host %s refused", ok[i]);
    assert_true (hearth_webauth_host_ok (&a, NULL)); /* HTTP/1.0 */
}

static void
test_other_names (void **state)
{
    (void) state;
    hearth_webauth_t a;
    s_setup_auth (&a, "127.0.0.1", false);
    static const char *const refused[] = {
        "evil.example",
        "evil.example:8080",
        "localhost.evil.example",
        "127.0.0.1.nip.io",
        "127.1",
        "128.0.0.1",
        "0.0.0.0",
        "[::2]",
        "[::1",
        "::1",
        "127.0.0.1:",
        "127.0.0.1:80x",
        "127.0.0.1:80:80",
        "[::1]x",
        "",
        ":80",
        "localhost:8080/evil",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (hearth_webauth_host_ok (&a, refused[i]))
            fail_msg ("Host '%s' admitted", refused[i]);
}

static void
test_own_name (void **state)
{
    (void) state;
    hearth_webauth_t a;
    /* bound by name: that name too, in any case */
    s_setup_auth (&a, "localhost", false);
    assert_true (hearth_webauth_host_ok (&a, "LOCALHOST:1"));
    assert_false (hearth_webauth_host_ok (&a, "evil.example"));
    s_setup_auth (&a, "::1", false);
    assert_true (hearth_webauth_host_ok (&a, "[::1]:8080"));
    assert_false (hearth_webauth_host_ok (&a, "evil.example"));
}

static void
test_beyond_loopback (void **state)
{
    (void) state;
    hearth_webauth_t a;
    /* the token (here: --insecure) decides, whatever the Host */
    s_setup_auth (&a, "0.0.0.0", true);
    assert_true (hearth_webauth_host_ok (&a, "evil.example"));
    assert_true (hearth_webauth_host_ok (&a, "10.0.0.7:8080"));
    hearth_webauth_clear (&a);
}

/* This user's web token, as hearth-admin web-token derives it. */
static void
s_cookie_token (char *buf, size_t size)
{
    char cookie[HEARTH_COOKIE_LEN + 1];
    hearth_error_t err;
    assert_int_equal (hearth_cookie_ensure (cookie, sizeof cookie, &err), 0);
    assert_int_equal (hearth_cookie_web_token (cookie, buf, size, &err), 0);
}

static void
test_loopback_token (void **state)
{
    (void) state;
    hearth_webauth_t a;
    char token[HEARTH_COOKIE_WEB_TOKEN_LEN + 1], bearer[80];
    s_setup_auth (&a, "127.0.0.1", false);
    s_cookie_token (token, sizeof token);
    snprintf (bearer, sizeof bearer, "Bearer %s", token);
    assert_false (a.open);
    assert_int_equal (a.source, HEARTH_WEBAUTH_COOKIE);
    assert_int_equal (hearth_webauth_check (&a, NULL, NULL, NULL), 0);
    assert_int_equal (hearth_webauth_check (&a, bearer, NULL, NULL), 1);
    assert_int_equal (hearth_webauth_check (&a, NULL, token, NULL), 1);
    assert_int_equal (hearth_webauth_check (&a, NULL, NULL, token), 2);
    assert_int_equal (hearth_webauth_check (&a, "Bearer x", "y", "z"), 0);
    /* --insecure opens nothing on loopback */
    s_setup_auth (&a, "::1", true);
    assert_false (a.open);
    assert_int_equal (hearth_webauth_check (&a, NULL, NULL, NULL), 0);
    assert_int_equal (hearth_webauth_check (&a, bearer, NULL, NULL), 1);
    hearth_webauth_clear (&a);
}

static void
test_loopback_file (void **state)
{
    (void) state;
    hearth_webauth_t a;
    hearth_error_t err;
    char file[160], token[HEARTH_COOKIE_WEB_TOKEN_LEN + 1];
    snprintf (file, sizeof file, "%s/token", s_dir);
    FILE *f = fopen (file, "w");
    assert_non_null (f);
    fputs ("file-token\n", f);
    fclose (f);
    assert_int_equal (hearth_webauth_setup (&a, "127.0.0.1", file, false, &err),
                      0);
    assert_int_equal (a.source, HEARTH_WEBAUTH_FILE);
    s_cookie_token (token, sizeof token);
    assert_int_equal (hearth_webauth_check (&a, NULL, "file-token", NULL), 1);
    assert_int_equal (hearth_webauth_check (&a, NULL, token, NULL), 0);
    hearth_webauth_clear (&a);
}

static void
test_no_cookie (void **state)
{
    (void) state;
    hearth_webauth_t a;
    hearth_error_t err;
    setenv ("HEARTH_COOKIE", "/dev/null/cookie", 1);
    errno = 0;
    assert_int_equal (hearth_webauth_setup (&a, "127.0.0.1", NULL, false, &err),
                      -1);
    assert_int_equal (errno, ENOKEY);
    assert_contains (err.text, "no token for the web pages");
    /* beyond loopback the cookie is not asked */
    assert_int_equal (hearth_webauth_setup (&a, "0.0.0.0", NULL, true, &err),
                      0);
    assert_true (a.open);
    setenv ("HEARTH_COOKIE", s_path, 1);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_loopback_names),
        cmocka_unit_test (test_other_names),
        cmocka_unit_test (test_own_name),
        cmocka_unit_test (test_beyond_loopback),
        cmocka_unit_test (test_loopback_token),
        cmocka_unit_test (test_loopback_file),
        cmocka_unit_test (test_no_cookie),
    };
    return cmocka_run_group_tests_name ("webauth", tests, s_setup, s_teardown);
}

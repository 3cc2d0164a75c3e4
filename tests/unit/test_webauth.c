/*  test_webauth.c - unit tests of the web server's Host rule
    (libcore/webauth.c, docs/security.md "Web pages"): a server bound to
    loopback answers only requests whose Host, port aside, is a loopback
    address, localhost or the address it binds, so that a page whose name
    was made to resolve to 127.0.0.1 (DNS rebinding) cannot read it; a
    request without Host is answered; beyond loopback every Host is (the
    token decides).
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/webauth.h"
#include "tests/unit/testutil.h"

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

int
main (void)
{
    alarm (60);
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_loopback_names),
        cmocka_unit_test (test_other_names),
        cmocka_unit_test (test_own_name),
        cmocka_unit_test (test_beyond_loopback),
    };
    return cmocka_run_group_tests_name ("webauth", tests, NULL, NULL);
}

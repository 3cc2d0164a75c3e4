/*  test_webform.c - unit tests of what an action's form must carry
    (libcore/webform.c, docs/security.md "Actions on the pages"): the
    anti-forgery value is 64 hex digits, the same for one action on one
    server, another for another action, another token or another server
    (its random form key), and only that value passes; the Origin rule
    (absent: the value decides; this server's http or https origin
    passes; another host, port or scheme, "null", an Origin without Host
    and a Sec-Fetch-Site other than same-origin do not); a form's fields
    decoded, the first of a name counting, bad encodings, NULs and
    values too long refused.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/log.h"
#include "libcore/webform.h"
#include "tests/unit/testutil.h"

static const char *const s_kill = "/app/app-20261201093000-0001/kill";

static int
s_setup (void **state)
{
    (void) state;
    hearth_test_clear_env ();
    /* an open server warns INSECURE: not this test's business */
    hearth_log_open ("test_webform", "error", NULL, NULL);
    return 0;
}

/* An open server's rule (no token file: open, its own form key). */
static void
s_auth (hearth_webauth_t *a, const char *token)
{
    hearth_error_t err;
    assert_int_equal (hearth_webauth_setup (a, "0.0.0.0", NULL, true, &err), 0);
    snprintf (a->token, sizeof a->token, "%s", token);
}

static void
test_value (void **state)
{
    (void) state;
    hearth_webauth_t a, b;
    char v[HEARTH_WEBFORM_VALUE_LEN + 1], w[HEARTH_WEBFORM_VALUE_LEN + 1];
    s_auth (&a, "tok");
    assert_int_equal (hearth_webform_value (&a, s_kill, v, sizeof v), 0);
    assert_int_equal (strlen (v), HEARTH_WEBFORM_VALUE_LEN);
    assert_int_equal (strspn (v, "0123456789abcdef"), HEARTH_WEBFORM_VALUE_LEN);
    assert_true (hearth_webform_value_ok (&a, s_kill, v));
    /* the same again; another action differs, and does not pass */
    assert_int_equal (hearth_webform_value (&a, s_kill, w, sizeof w), 0);
    assert_string_equal (v, w);
    assert_int_equal (hearth_webform_value (
                          &a, "/app/app-20261201093000-0002/kill", w, sizeof w),
                      0);
    assert_string_not_equal (v, w);
    assert_false (hearth_webform_value_ok (&a, s_kill, w));
    /* another token, another server: another value */
    b = a;
    snprintf (b.token, sizeof b.token, "tok2");
    assert_false (hearth_webform_value_ok (&b, s_kill, v));
    s_auth (&b, "tok");
    assert_false (hearth_webform_value_ok (&b, s_kill, v));
    /* nothing else passes: none, empty, cut, one digit changed, upper
       case */
    assert_false (hearth_webform_value_ok (&a, s_kill, NULL));
    assert_false (hearth_webform_value_ok (&a, s_kill, ""));
    snprintf (w, sizeof w, "%.63s", v);
    assert_false (hearth_webform_value_ok (&a, s_kill, w));
    snprintf (w, sizeof w, "%s", v);
    w[10] = w[10] == '0' ? '1' : '0';
    assert_false (hearth_webform_value_ok (&a, s_kill, w));
    /* a buffer too small: -1, "" */
    assert_int_equal (hearth_webform_value (&a, s_kill, w, 64), -1);
    assert_string_equal (w, "");
    hearth_webauth_clear (&a);
    hearth_webauth_clear (&b);
}

static void
test_origin (void **state)
{
    (void) state;
    const char *host = "127.0.0.1:8080";
    assert_null (hearth_webform_origin_why (NULL, NULL, host));
    assert_null (hearth_webform_origin_why (NULL, NULL, NULL));
    assert_null (
        hearth_webform_origin_why ("http://127.0.0.1:8080", NULL, host));
    assert_null (
        hearth_webform_origin_why ("HTTPS://127.0.0.1:8080", NULL, host));
    assert_null (hearth_webform_origin_why ("http://127.0.0.1:8080",
                                            "same-origin", host));
    assert_null (hearth_webform_origin_why (NULL, "same-origin", host));
    assert_non_null (
        hearth_webform_origin_why ("http://evil.example", NULL, host));
    assert_non_null (
        hearth_webform_origin_why ("http://127.0.0.1:8081", NULL, host));
    assert_non_null (
        hearth_webform_origin_why ("http://127.0.0.1", NULL, host));
    assert_non_null (
        hearth_webform_origin_why ("ftp://127.0.0.1:8080", NULL, host));
    assert_non_null (hearth_webform_origin_why ("null", NULL, host));
    assert_non_null (
        hearth_webform_origin_why ("http://127.0.0.1:8080", NULL, NULL));
    assert_non_null (hearth_webform_origin_why (NULL, "cross-site", host));
    assert_non_null (hearth_webform_origin_why (NULL, "same-site", host));
    assert_non_null (hearth_webform_origin_why (NULL, "none", host));
    assert_non_null (hearth_webform_origin_why ("http://127.0.0.1:8080",
                                                "cross-site", host));
}

static void
test_field (void **state)
{
    (void) state;
    char buf[16];
    const char *body = "a=1&csrf=ab%2Fc+d&csrf=second&empty=&x";
    size_t len = strlen (body);
    assert_int_equal (hearth_webform_field (body, len, "csrf", buf, sizeof buf),
                      0);
    assert_string_equal (buf, "ab/c d");
    assert_int_equal (hearth_webform_field (body, len, "a", buf, sizeof buf),
                      0);
    assert_string_equal (buf, "1");
    assert_int_equal (
        hearth_webform_field (body, len, "empty", buf, sizeof buf), 0);
    assert_string_equal (buf, "");
    assert_int_equal (hearth_webform_field (body, len, "x", buf, sizeof buf),
                      -1);
    assert_int_equal (hearth_webform_field (body, len, "cs", buf, sizeof buf),
                      -1);
    assert_int_equal (hearth_webform_field ("", 0, "a", buf, sizeof buf), -1);
    /* the length given counts, not a NUL */
    assert_int_equal (hearth_webform_field ("a=123", 4, "a", buf, sizeof buf),
                      0);
    assert_string_equal (buf, "12");
    /* bad encodings, a NUL, too long: refused, buf "" */
    const char *bad[] = {"a=%", "a=%4", "a=%zz", "a=%00", "a=x%0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal (hearth_webform_field (bad[i], strlen (bad[i]), "a",
                                                buf, sizeof buf),
                          -1);
        assert_string_equal (buf, "");
    }
    assert_int_equal (
        hearth_webform_field ("a=0123456789abcdef", 18, "a", buf, sizeof buf),
        -1);
    assert_int_equal (
        hearth_webform_field ("a=0123456789abcde", 17, "a", buf, sizeof buf),
        0);
    assert_int_equal (
        hearth_webform_field ("a=0123456789abcd", 16, "a", buf, sizeof buf), 0);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_value),
        cmocka_unit_test (test_origin),
        cmocka_unit_test (test_field),
    };
    return cmocka_run_group_tests_name ("webform", tests, s_setup, NULL);
}

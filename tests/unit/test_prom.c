/*  test_prom.c - unit tests of the Prometheus text (libcore/prom.c) and
    of the web server's token comparison (libcore/web.c): families,
    escaped label values, whole numbers without a fraction, cumulative
    histogram buckets whose +Inf equals the count, and tokens equal only
    when every byte and the length are. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/prom.h"
#include "libcore/web.h"
#include "tests/unit/testutil.h"

static char *
s_text (hearth_prom_t *p)
{
    size_t len;
    char *text = hearth_prom_take (&p, &len);
    assert_non_null (text);
    assert_null (p);
    assert_int_equal (strlen (text), len);
    return text;
}

static void
test_family_and_samples (void **state)
{
    (void) state;
    hearth_prom_t *p = hearth_prom_new ();
    hearth_prom_family (p, "hearth_x", "gauge", "An x.");
    hearth_prom_sample (p, "hearth_x", "state", "ALIVE", 3);
    hearth_prom_sample (p, "hearth_x", "state", "a\"b\\c\nd", 2147483648.0);
    hearth_prom_sample (p, "hearth_y", NULL, NULL, 0.5);
    char *text = s_text (p);
    assert_string_equal (text,
                         "# HELP hearth_x An x.\n# TYPE hearth_x gauge\n"
                         "hearth_x{state=\"ALIVE\"} 3\n"
                         "hearth_x{state=\"a\\\"b\\\\c\\nd\"} 2147483648\n"
                         "hearth_y 0.5\n");
    free (text);
}

static void
test_histogram (void **state)
{
    (void) state;
    hearth_prom_hist_t h = {0};
    hearth_prom_observe (&h, 0.00005); /* first bucket */
    hearth_prom_observe (&h, 0.0001);  /* on the bound: still the first */
    hearth_prom_observe (&h, 0.003);   /* le 0.005 */
    hearth_prom_observe (&h, 100);     /* +Inf only */
    assert_int_equal (h.count, 4);
    hearth_prom_t *p = hearth_prom_new ();
    hearth_prom_histogram (p, "hearth_t_seconds", "T.", &h);
    char *text = s_text (p);
    assert_non_null (strstr (text, "# TYPE hearth_t_seconds histogram\n"));
    assert_non_null (
        strstr (text, "hearth_t_seconds_bucket{le=\"0.0001\"} 2\n"));
    assert_non_null (
        strstr (text, "hearth_t_seconds_bucket{le=\"0.0025\"} 2\n"));
    assert_non_null (
        strstr (text, "hearth_t_seconds_bucket{le=\"0.005\"} 3\n"));
    assert_non_null (strstr (text, "hearth_t_seconds_bucket{le=\"10\"} 3\n"));
    assert_non_null (strstr (text, "hearth_t_seconds_bucket{le=\"+Inf\"} 4\n"));
    assert_non_null (strstr (text, "hearth_t_seconds_count 4\n"));
    assert_non_null (strstr (text, "hearth_t_seconds_sum 100.00315"));
    free (text);
}

static void
test_large_text (void **state)
{
    (void) state;
    hearth_prom_t *p = hearth_prom_new ();
    for (int i = 0; i < 10000; i++)
        hearth_prom_sample (p, "hearth_many", "state", "ALIVE", i);
    char *text = s_text (p);
    assert_non_null (strstr (text, "hearth_many{state=\"ALIVE\"} 9999\n"));
    free (text);
    p = hearth_prom_new (); /* nothing appended: an empty text */
    text = s_text (p);
    assert_string_equal (text, "");
    free (text);
}

static void
test_token_equal (void **state)
{
    (void) state;
    assert_true (hearth_web_token_equal ("s3cret-token", "s3cret-token"));
    assert_false (hearth_web_token_equal ("s3cret-tokem", "s3cret-token"));
    assert_false (hearth_web_token_equal ("s3cret", "s3cret-token"));
    assert_false (hearth_web_token_equal ("s3cret-token-", "s3cret-token"));
    assert_false (hearth_web_token_equal ("", "s3cret-token"));
    assert_false (hearth_web_token_equal ("x", ""));
    assert_true (hearth_web_token_equal ("", ""));
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_family_and_samples),
        cmocka_unit_test (test_histogram),
        cmocka_unit_test (test_large_text),
        cmocka_unit_test (test_token_equal),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

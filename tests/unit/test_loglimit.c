/*  test_loglimit.c - unit tests of the log limiter (libcore/loglimit.c):
    one line per key and period, the count of the ones held back given
    with the next line or when the key falls silent, and bounded memory
    under a flood of distinct keys. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/loglimit.h"
#include "tests/unit/testutil.h"

static void
test_one_line_per_period (void **state)
{
    (void) state;
    hearth_loglimit_t *l = hearth_loglimit_new (60000, 100);
    uint64_t held = 99;
    assert_non_null (l);
    assert_true (hearth_loglimit_allow (l, "bad", 0, &held));
    assert_int_equal (held, 0);
    /* 20,000 more within the minute: none logged */
    for (int i = 1; i <= 20000; i++)
        assert_false (hearth_loglimit_allow (l, "bad", i, &held));
    /* another key is limited on its own */
    assert_true (hearth_loglimit_allow (l, "unexpected", 5, &held));
    assert_false (hearth_loglimit_allow (l, "unexpected", 6, NULL));
    /* after the period, one goes out with the count */
    assert_false (hearth_loglimit_allow (l, "bad", 59999, &held));
    assert_true (hearth_loglimit_allow (l, "bad", 60000, &held));
    assert_int_equal (held, 20001);
    assert_false (hearth_loglimit_allow (l, "bad", 60001, &held));
    hearth_loglimit_destroy (&l);
    assert_null (l);
    hearth_loglimit_destroy (&l);
    hearth_loglimit_destroy (NULL);
}

/* What the expiry reports. */
typedef struct {
    char keys[4][32]; /* in the order told */
    uint64_t held[4]; /* their counts */
    int n;            /* told */
} s_told_t;

static void
s_tell (void *arg, const char *key, uint64_t held)
{
    s_told_t *t = arg;
    assert_true (t->n < 4);
    snprintf (t->keys[t->n], sizeof t->keys[t->n], "%s", key);
    t->held[t->n++] = held;
}

static void
test_counts_of_silent_keys (void **state)
{
    (void) state;
    hearth_loglimit_t *l = hearth_loglimit_new (1000, 100);
    s_told_t told = {0};
    assert_true (hearth_loglimit_allow (l, "a", 0, NULL));
    assert_false (hearth_loglimit_allow (l, "a", 10, NULL));
    assert_false (hearth_loglimit_allow (l, "a", 20, NULL));
    assert_true (hearth_loglimit_allow (l, "b", 500, NULL));
    /* nothing is due before the period of each key ends */
    assert_int_equal (hearth_loglimit_expired (l, 999, s_tell, &told), 0);
    assert_int_equal (told.n, 0);
    /* "a" is due, with its two held lines; "b" not yet */
    assert_int_equal (hearth_loglimit_expired (l, 1000, s_tell, &told), 1);
    assert_int_equal (told.n, 1);
    assert_string_equal (told.keys[0], "a");
    assert_int_equal (told.held[0], 2);
    assert_int_equal (hearth_loglimit_size (l), 1);
    /* "b" held nothing: forgotten without a word */
    assert_int_equal (hearth_loglimit_expired (l, 1500, s_tell, &told), 1);
    assert_int_equal (told.n, 1);
    assert_int_equal (hearth_loglimit_size (l), 0);
    /* a forgotten key starts again */
    assert_true (hearth_loglimit_allow (l, "a", 1600, NULL));
    hearth_loglimit_destroy (&l);
}

static void
test_bounded_keys (void **state)
{
    (void) state;
    hearth_loglimit_t *l = hearth_loglimit_new (60000, 10);
    char key[32];
    for (int i = 0; i < 1000; i++) {
        snprintf (key, sizeof key, "peer-%d", i);
        assert_true (hearth_loglimit_allow (l, key, i, NULL));
        assert_true (hearth_loglimit_size (l) <= 10);
    }
    hearth_loglimit_destroy (&l);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_one_line_per_period),
        cmocka_unit_test (test_counts_of_silent_keys),
        cmocka_unit_test (test_bounded_keys),
    };
    return cmocka_run_group_tests_name ("loglimit", tests, NULL, NULL);
}

/*  test_units.c - unit tests of sizes, durations, integers and booleans as
    people write them (libcore/units.c).
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/units.h"
#include "tests/unit/testutil.h"

static uint64_t
s_size (const char *text, uint64_t plain_unit)
{
    uint64_t bytes = 0;
    hearth_error_t err;
    if (hearth_parse_size (text, plain_unit, &bytes, &err) < 0)
        fail_msg ("'%s' rejected: %s", text, err.text);
    return bytes;
}

static void
s_size_fails (const char *text, const char *needle)
{
    uint64_t bytes = 12345;
    hearth_error_t err;
    if (hearth_parse_size (text, 1, &bytes, &err) == 0)
        fail_msg ("'%s' accepted as %llu bytes", text,
                  (unsigned long long) bytes);
    assert_int_equal (bytes, 12345); /* untouched on failure */
    assert_contains (err.text, needle);
}

static void
test_sizes (void **state)
{
    (void) state;
    assert_int_equal (s_size ("0", 1), 0);
    assert_int_equal (s_size ("300", 1), 300);
    assert_int_equal (s_size ("300", HEARTH_MiB), 300 * HEARTH_MiB);
    assert_int_equal (s_size ("1k", 1), 1024);
    assert_int_equal (s_size ("4K", HEARTH_MiB), 4096);
    assert_int_equal (s_size ("512M", 1), 512 * HEARTH_MiB);
    assert_int_equal (s_size ("512MiB", 1), 512 * HEARTH_MiB);
    assert_int_equal (s_size ("512mb", 1), 512 * HEARTH_MiB);
    assert_int_equal (s_size ("2G", 1), 2 * HEARTH_GiB);
    assert_int_equal (s_size ("2GB", 1), 2 * HEARTH_GiB);
    assert_int_equal (s_size ("1.5G", 1), 3 * HEARTH_GiB / 2);
    assert_int_equal (s_size ("3T", 1), 3 * 1024 * HEARTH_GiB);
    assert_int_equal (s_size ("100b", HEARTH_MiB), 100);
    assert_int_equal (s_size ("0.5", 1), 1); /* rounds to whole bytes */
}

/* Sizes beyond 2^63 bytes still fit the uint64_t result exactly. */
static void
test_huge_sizes (void **state)
{
    (void) state;
    assert_int_equal (s_size ("8388608T", 1), (uint64_t) 1 << 63);
    assert_true (s_size ("10000000T", 1)
                 == (uint64_t) 10000000 * 1024 * HEARTH_GiB);
    assert_true (s_size ("16777215T", 1)
                 == (uint64_t) 16777215 * 1024 * HEARTH_GiB);
    s_size_fails ("16777216T", "too large");
    s_size_fails ("1e30", "too large");
}

static void
test_bad_sizes (void **state)
{
    (void) state;
    s_size_fails ("", "is not a size (expected e.g. 512M or 2G)");
    s_size_fails ("M", "'M' is not a size");
    s_size_fails ("-1", "'-1' is not a size");
    s_size_fails (" 5M", "is not a size");
    s_size_fails ("12X",
                  "'12X': unknown size unit 'X' (expected K, M, G or T)");
    s_size_fails ("12 M", "unknown size unit ' M'");
    s_size_fails ("1e400", "is not a size");
    uint64_t bytes;
    hearth_error_t err;
    assert_int_equal (hearth_parse_size (NULL, 1, &bytes, &err), -1);
    assert_int_equal (hearth_parse_size ("x", 1, &bytes, NULL), -1);
}

static int64_t
s_ms (const char *text)
{
    int64_t ms = -1;
    hearth_error_t err;
    if (hearth_parse_duration (text, &ms, &err) < 0)
        fail_msg ("'%s' rejected: %s", text, err.text);
    return ms;
}

static void
s_duration_fails (const char *text, const char *needle)
{
    int64_t ms = -7;
    hearth_error_t err;
    if (hearth_parse_duration (text, &ms, &err) == 0)
        fail_msg ("'%s' accepted as %lld ms", text, (long long) ms);
    assert_int_equal (ms, -7);
    assert_contains (err.text, needle);
}

static void
test_durations (void **state)
{
    (void) state;
    assert_int_equal (s_ms ("0"), 0);
    assert_int_equal (s_ms ("250"), 250);
    assert_int_equal (s_ms ("500ms"), 500);
    assert_int_equal (s_ms ("5s"), 5000);
    assert_int_equal (s_ms ("1.5s"), 1500);
    assert_int_equal (s_ms ("2m"), 120000);
    assert_int_equal (s_ms ("1h"), 3600000);
    assert_int_equal (s_ms ("1d"), 86400000);
    assert_int_equal (s_ms ("5S"), 5000);
    assert_int_equal (s_ms ("100000d"), 8640000000000);
}

static void
test_bad_durations (void **state)
{
    (void) state;
    s_duration_fails ("", "is not a duration (expected e.g. 500ms or 5s)");
    s_duration_fails ("-5s", "'-5s' is not a duration");
    s_duration_fails ("s", "is not a duration");
    s_duration_fails ("5x", "'5x': unknown duration unit 'x' (expected ms, "
                            "s, m, h or d)");
    s_duration_fails ("5 s", "unknown duration unit ' s'");
    s_duration_fails ("5sec", "unknown duration unit 'sec'");
    s_duration_fails ("1e20d", "is too long");
    int64_t ms;
    assert_int_equal (hearth_parse_duration (NULL, &ms, NULL), -1);
}

static void
test_integers (void **state)
{
    (void) state;
    int64_t v = 0;
    hearth_error_t err;
    assert_int_equal (hearth_parse_int ("42", 0, 100, &v, &err), 0);
    assert_int_equal (v, 42);
    assert_int_equal (hearth_parse_int ("-7", -10, 10, &v, &err), 0);
    assert_int_equal (v, -7);
    assert_int_equal (hearth_parse_int ("1", 1, 1, &v, &err), 0);
    assert_int_equal (hearth_parse_int ("9223372036854775807", INT64_MIN,
                                        INT64_MAX, &v, &err),
                      0);
    assert_true (v == INT64_MAX);

    v = 99;
    assert_int_equal (hearth_parse_int ("101", 0, 100, &v, &err), -1);
    assert_string_equal (err.text, "101 is out of range (0 to 100)");
    assert_int_equal (hearth_parse_int ("-1", 0, 100, &v, &err), -1);
    assert_string_equal (err.text, "-1 is out of range (0 to 100)");
    assert_int_equal (hearth_parse_int ("12abc", 0, 100, &v, &err), -1);
    assert_string_equal (err.text, "'12abc' is not a whole number");
    assert_int_equal (hearth_parse_int (" 5", 0, 100, &v, &err), -1);
    assert_int_equal (hearth_parse_int ("1.0", 0, 100, &v, &err), -1);
    assert_int_equal (hearth_parse_int ("99999999999999999999", INT64_MIN,
                                        INT64_MAX, &v, &err),
                      -1);
    assert_contains (err.text, "is not a whole number");
    assert_int_equal (hearth_parse_int ("", 0, 100, &v, &err), -1);
    assert_string_equal (err.text, "expected a number, got nothing");
    assert_int_equal (hearth_parse_int (NULL, 0, 100, &v, &err), -1);
    assert_int_equal (v, 99); /* untouched on failure */
}

static void
test_booleans (void **state)
{
    (void) state;
    static const char *const yes[] = {"true", "TRUE", "yes", "On", "1"};
    static const char *const no[] = {"false", "False", "no", "OFF", "0"};
    int v;
    hearth_error_t err;
    for (size_t i = 0; i < 5; i++) {
        v = -1;
        assert_int_equal (hearth_parse_bool (yes[i], &v, &err), 0);
        assert_int_equal (v, 1);
        assert_int_equal (hearth_parse_bool (no[i], &v, &err), 0);
        assert_int_equal (v, 0);
    }
    v = -1;
    assert_int_equal (hearth_parse_bool ("maybe", &v, &err), -1);
    assert_string_equal (err.text,
                         "'maybe' is not a boolean (expected true or false)");
    assert_int_equal (hearth_parse_bool ("", &v, &err), -1);
    assert_int_equal (hearth_parse_bool ("2", &v, &err), -1);
    assert_int_equal (hearth_parse_bool (NULL, &v, &err), -1);
    assert_int_equal (v, -1);
}

static void
test_format_size (void **state)
{
    (void) state;
    char buf[32];
    assert_string_equal (hearth_format_size (0, buf, sizeof buf), "0");
    assert_string_equal (hearth_format_size (300, buf, sizeof buf), "300");
    assert_string_equal (hearth_format_size (1023, buf, sizeof buf), "1023");
    assert_string_equal (hearth_format_size (1024, buf, sizeof buf), "1K");
    assert_string_equal (hearth_format_size (1536, buf, sizeof buf), "1.5K");
    assert_string_equal (hearth_format_size (512 * HEARTH_MiB, buf, sizeof buf),
                         "512M");
    assert_string_equal (
        hearth_format_size (3 * HEARTH_GiB / 2, buf, sizeof buf), "1.5G");
    assert_string_equal (
        hearth_format_size (2048 * HEARTH_GiB, buf, sizeof buf), "2T");
    assert_string_equal (
        hearth_format_size (2048 * 1024 * HEARTH_GiB, buf, sizeof buf),
        "2048T");
    /* what format_size writes, parse_size reads back */
    static const uint64_t round[] = {
        0, 1, 1024, 1536, 512 * HEARTH_MiB, 7 * HEARTH_GiB};
    for (size_t i = 0; i < sizeof round / sizeof round[0]; i++) {
        hearth_format_size (round[i], buf, sizeof buf);
        assert_int_equal (s_size (buf, 1), round[i]);
    }
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_sizes),
        cmocka_unit_test (test_huge_sizes),
        cmocka_unit_test (test_bad_sizes),
        cmocka_unit_test (test_durations),
        cmocka_unit_test (test_bad_durations),
        cmocka_unit_test (test_integers),
        cmocka_unit_test (test_booleans),
        cmocka_unit_test (test_format_size),
    };
    return cmocka_run_group_tests_name ("units", tests, NULL, NULL);
}

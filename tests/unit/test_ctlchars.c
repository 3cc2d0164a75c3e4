/*  test_ctlchars.c - unit tests of control characters found and escaped
    (libcore/ctlchars.c): which bytes are control characters, the escapes,
    cutting to a buffer, names refused, JSON documents escaped in place
    and the escaping fprintf.
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

#include "libcore/ctlchars.h"
#include "tests/unit/testutil.h"

/* s escaped whole, into a static buffer. */
static const char *
s_esc (const char *s)
{
    static char buf[1024];
    hearth_ctl_escape (buf, sizeof buf, s, strlen (s));
    return buf;
}

static void
test_find (void **state)
{
    (void) state;
    assert_int_equal (hearth_ctl_find ("plain text", 10), 10);
    assert_int_equal (hearth_ctl_find ("a\nb", 3), 1);
    assert_int_equal (hearth_ctl_find ("ab\x1b[31m", 7), 2);
    assert_int_equal (hearth_ctl_find ("abc\x7f", 4), 3);
    /* NUL inside the length counts */
    assert_int_equal (hearth_ctl_find ("ab\0c", 4), 2);
    /* UTF-8: é (c3 a9) and a non-breaking space (c2 a0) are text, CSI
       (U+009B: c2 9b) and NEL (U+0085: c2 85) are not */
    assert_int_equal (hearth_ctl_find ("caf\xc3\xa9 \xc2\xa0x", 9), 9);
    assert_int_equal (hearth_ctl_find ("x\xc2\x9b"
                                       "31m",
                                       6),
                      1);
    assert_int_equal (hearth_ctl_find ("xy\xc2\x85", 4), 2);
    /* a lone c2 at the end is not a C1 code */
    assert_int_equal (hearth_ctl_find ("x\xc2", 2), 2);
    for (int c = 0; c < 0x20; c++) {
        char s[2] = {(char) c, 0};
        assert_int_equal (hearth_ctl_find (s, 1), 0);
    }
    for (int c = 0x20; c < 0x7f; c++) {
        char s[2] = {(char) c, 0};
        assert_int_equal (hearth_ctl_find (s, 1), 1);
    }
    assert_true (hearth_ctl_has ("a\tb"));
    assert_false (hearth_ctl_has ("a b"));
    assert_false (hearth_ctl_has (NULL));
    assert_false (hearth_ctl_has (""));
}

/* The plain reading, a byte at a time: what hearth_ctl_find must agree
   with whatever the word it reads eight bytes at a time holds. */
static size_t
s_find_slowly (const unsigned char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] < 0x20 || s[i] == 0x7f
            || (s[i] == 0xc2 && i + 1 < len && s[i + 1] >= 0x80
                && s[i + 1] <= 0x9f))
            return i;
    return len;
}

/* Every position of a word and across words, and random bytes. */
static void
test_find_by_words (void **state)
{
    (void) state;
    unsigned char s[40];
    static const unsigned char ctl[] = {0x00, 0x01, 0x0a, 0x1b, 0x1f, 0x7f};
    for (size_t at = 0; at < sizeof s; at++)
        for (size_t c = 0; c < sizeof ctl; c++) {
            memset (s, 'a', sizeof s);
            s[at] = ctl[c];
            assert_int_equal (hearth_ctl_find ((char *) s, sizeof s), at);
        }
    for (size_t at = 0; at + 1 < sizeof s; at++) { /* C1, across words too */
        memset (s, 'a', sizeof s);
        s[at] = 0xc2;
        s[at + 1] = 0x9b;
        assert_int_equal (hearth_ctl_find ((char *) s, sizeof s), at);
        s[at + 1] = 0xa9; /* U+00A9, text */
        assert_int_equal (hearth_ctl_find ((char *) s, sizeof s), sizeof s);
    }
    unsigned seed = 7;
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t) rand_r (&seed) % sizeof s;
        for (size_t i = 0; i < len; i++) /* mostly text, some of the rest */
            s[i] = (unsigned char) (rand_r (&seed) % 8
                                        ? 0x20 + rand_r (&seed) % 0x5f
                                        : rand_r (&seed) % 256);
        assert_int_equal (hearth_ctl_find ((char *) s, len),
                          s_find_slowly (s, len));
    }
}

static void
test_escape_forms (void **state)
{
    (void) state;
    assert_string_equal (s_esc ("plain"), "plain");
    assert_string_equal (s_esc ("a\nb\rc\td"), "a\\nb\\rc\\td");
    assert_string_equal (s_esc ("\x1b[31mred"), "\\x1b[31mred");
    assert_string_equal (s_esc ("\x01\x7f"), "\\x01\\x7f");
    assert_string_equal (s_esc ("x\xc2\x9by"), "x\\u009by");
    /* backslashes and UTF-8 text stay as they are */
    assert_string_equal (s_esc ("c:\\n caf\xc3\xa9"), "c:\\n caf\xc3\xa9");
    /* a NUL within the length is escaped too */
    char buf[32];
    hearth_ctl_escape (buf, sizeof buf, "a\0b", 3);
    assert_string_equal (buf, "a\\x00b");
}

/* The output is cut before whatever does not fit whole: plain bytes up to
   the end, never half an escape, never half a UTF-8 character. */
static void
test_escape_cut (void **state)
{
    (void) state;
    char buf[8];
    assert_int_equal (hearth_ctl_escape (buf, sizeof buf, "abcdefghij", 10), 7);
    assert_string_equal (buf, "abcdefg");
    assert_int_equal (hearth_ctl_escape (buf, sizeof buf, "abcdef\n", 7), 6);
    assert_string_equal (buf, "abcdef");
    assert_int_equal (hearth_ctl_escape (buf, sizeof buf, "abc\ndef", 7), 7);
    assert_string_equal (buf, "abc\\nde");
    assert_int_equal (hearth_ctl_escape (buf, sizeof buf, "abcdef\xc3\xa9", 8),
                      6);
    assert_string_equal (buf, "abcdef");
    assert_int_equal (hearth_ctl_escape (buf, 1, "abc", 3), 0);
    assert_string_equal (buf, "");
}

static void
test_check_names (void **state)
{
    (void) state;
    hearth_error_t err;
    assert_int_equal (hearth_ctl_check ("name", "etl-nightly", &err), 0);
    assert_int_equal (hearth_ctl_check ("name", "caf\xc3\xa9 au lait", &err),
                      0);
    assert_int_equal (hearth_ctl_check ("name", NULL, &err), 0);
    assert_int_equal (hearth_ctl_check ("--name", "evil\nforged", &err), -1);
    assert_string_equal (err.text, "--name: a control character (\\n) at "
                                   "byte 4: a name may hold none");
    assert_int_equal (hearth_ctl_check ("stages[1].name", "a\x1b[31m", &err),
                      -1);
    assert_string_equal (err.text, "stages[1].name: a control character "
                                   "(\\x1b) at byte 1: a name may hold none");
    assert_int_equal (hearth_ctl_check ("n", "\xc2\x9b", &err), -1);
    assert_contains (err.text, "(\\u009b) at byte 0");
}

static void
test_strdup (void **state)
{
    (void) state;
    char *s = hearth_ctl_strdup ("\x1b\x1b\x1b");
    assert_string_equal (s, "\\x1b\\x1b\\x1b");
    free (s);
    assert_null (hearth_ctl_strdup (NULL));
}

/* Every string of a document, values and member names, at any depth; the
   rest of it untouched. */
static void
test_escape_json (void **state)
{
    (void) state;
    cJSON *doc = cJSON_Parse (
        "{\"name\":\"evil\\nforged\\u001b[31m\",\"n\":3,\"ok\":true,"
        "\"apps\":[{\"reason\":\"a\\tb\",\"id\":\"app-1\"},\"\\u007f\"],"
        "\"conf\":{\"k\\ney\":\"v\"},\"plain\":\"as is\"}");
    assert_non_null (doc);
    assert_int_equal (hearth_ctl_escape_json (doc), 0);
    char *text = cJSON_PrintUnformatted (doc);
    assert_string_equal (
        text, "{\"name\":\"evil\\\\nforged\\\\x1b[31m\",\"n\":3,\"ok\":true,"
              "\"apps\":[{\"reason\":\"a\\\\tb\",\"id\":\"app-1\"},"
              "\"\\\\x7f\"],\"conf\":{\"k\\\\ney\":\"v\"},\"plain\":\"as "
              "is\"}");
    free (text);
    cJSON_Delete (doc);
    /* a lone string, and nothing */
    cJSON *s = cJSON_CreateString ("x\ny");
    assert_int_equal (hearth_ctl_escape_json (s), 0);
    assert_string_equal (s->valuestring, "x\\ny");
    cJSON_Delete (s);
    assert_int_equal (hearth_ctl_escape_json (NULL), 0);
}

static void
test_fprintf (void **state)
{
    (void) state;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream (&text, &size);
    assert_non_null (f);
    hearth_ctl_fprintf (f, "worker %s: %s\n", "w1", "gone\n\x1b]0;owned\x07");
    hearth_ctl_fprintf (f, "no newline %s", "\r");
    /* lines: newlines and tabs kept, the rest escaped */
    hearth_ctl_fprintf_lines (f, "|%s\n", "one\ttwo\nthree\r\x1b[2J");
    fclose (f);
    assert_string_equal (text, "worker w1: gone\\n\\x1b]0;owned\\x07\n"
                               "no newline \\r"
                               "|one\ttwo\nthree\\r\\x1b[2J\n");
    free (text);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_find),
        cmocka_unit_test (test_find_by_words),
        cmocka_unit_test (test_escape_forms),
        cmocka_unit_test (test_escape_cut),
        cmocka_unit_test (test_check_names),
        cmocka_unit_test (test_strdup),
        cmocka_unit_test (test_escape_json),
        cmocka_unit_test (test_fprintf),
    };
    return cmocka_run_group_tests_name ("ctlchars", tests, NULL, NULL);
}

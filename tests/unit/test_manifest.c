/*  test_manifest.c - the manifest of an output directory (part files and
    their hosts in DIR/_SUCCESS): written and read back, an empty
    _SUCCESS listing the part files, a link at _SUCCESS replaced rather
    than followed, and manifests that must be refused (a bad name or
    host, or one that names a part twice or hides bytes behind a NUL). */
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

#include "libcore/manifest.h"
#include "tests/unit/testutil.h"

static char s_dir[64];

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_dir, sizeof s_dir, "test_manifest.XXXXXX");
    hearth_test_tmpdir (s_dir);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    return hearth_test_rmtree (s_dir);
}

static void
s_put (const char *name, const char *text)
{
    char path[128];
    snprintf (path, sizeof path, "%s/%s", s_dir, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

/* name holding len bytes of text, NUL bytes included. */
static void
s_put_bytes (const char *name, const char *text, size_t len)
{
    char path[128];
    snprintf (path, sizeof path, "%s/%s", s_dir, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    assert_int_equal (fwrite (text, 1, len, f), len);
    fclose (f);
}

static void
test_round_trip (void **state)
{
    (void) state;
    hearth_part_file_t in[] = {{"part-00000", "10.0.0.7", 12},
                               {"part-00001", NULL, 0},
                               {"part-00002", "node \"b\"", 1ull << 40}};
    hearth_error_t err;
    assert_int_equal (hearth_manifest_write (s_dir, in, 3, &err), 0);
    hearth_part_file_t *out;
    size_t n;
    assert_int_equal (hearth_manifest_read (s_dir, &out, &n, &err), 0);
    assert_int_equal (n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal (out[i].name, in[i].name);
        if (in[i].host)
            assert_string_equal (out[i].host, in[i].host);
        else
            assert_null (out[i].host);
        assert_int_equal (out[i].bytes, in[i].bytes);
    }
    hearth_manifest_free (out, n);
}

/* Another tool's output: an empty _SUCCESS, its part-* files by name. */
static void
test_empty_marker_lists_parts (void **state)
{
    (void) state;
    s_put ("part-b", "b\n");
    s_put ("part-a", "a\n");
    s_put ("other", "x\n");
    s_put ("_SUCCESS", "\n");
    hearth_part_file_t *out;
    size_t n;
    hearth_error_t err;
    assert_int_equal (hearth_manifest_read (s_dir, &out, &n, &err), 0);
    assert_true (n >= 2);
    assert_string_equal (out[0].name, "part-a");
    assert_string_equal (out[1].name, "part-b");
    assert_null (out[0].host);
    hearth_manifest_free (out, n);
}

/* A link left at _SUCCESS is replaced, its target untouched. */
static void
test_link_not_followed (void **state)
{
    (void) state;
    char target[128], link[128];
    snprintf (target, sizeof target, "%s/target", s_dir);
    snprintf (link, sizeof link, "%s/_SUCCESS", s_dir);
    s_put ("target", "keep");
    unlink (link);
    assert_int_equal (symlink (target, link), 0);
    hearth_part_file_t one = {"part-00000", "h", 1};
    hearth_error_t err;
    assert_int_equal (hearth_manifest_write (s_dir, &one, 1, &err), 0);
    struct stat sb;
    assert_int_equal (lstat (link, &sb), 0);
    assert_true (S_ISREG (sb.st_mode));
    FILE *f = fopen (target, "r");
    char buf[16] = {0};
    assert_non_null (fgets (buf, sizeof buf, f));
    fclose (f);
    assert_string_equal (buf, "keep");
}

static void
test_refused (void **state)
{
    (void) state;
    hearth_part_file_t *out;
    size_t n;
    hearth_error_t err;
    const char *bad[] = {
        "{\"parts\": [{\"name\": \"../etc/passwd\"}]}",
        "{\"parts\": [{\"name\": \"\"}]}",
        "{\"parts\": [{\"name\": \"part-0\", \"host\": \"a\\u0001b\"}]}",
        "{\"parts\": [{\"name\": \"part-0\", \"host\": \"\"}]}",
        "{\"parts\": 3}",
        "not json",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        s_put ("_SUCCESS", bad[i]);
        assert_int_equal (hearth_manifest_read (s_dir, &out, &n, &err), -1);
        assert_null (out);
        assert_int_equal (n, 0);
        assert_contains (err.text, "_SUCCESS");
    }
    char none[128];
    snprintf (none, sizeof none, "%s/none", s_dir);
    assert_int_equal (hearth_manifest_read (none, &out, &n, &err), -1);
    assert_contains (err.text, "not a finished output?");
}

/* Manifests that would read a part twice or another part than the one
   written: a name given twice, a NUL byte (escaped, it would cut a name
   or host short; raw, it would hide what follows), a second value after
   the manifest. */
static void
test_refused_ambiguous (void **state)
{
    (void) state;
    hearth_part_file_t *out;
    size_t n;
    hearth_error_t err;
    static const char dup[] =
        "{\"parts\": [{\"name\": \"part-1\"}, {\"name\": \"part-0\"}, "
        "{\"name\": \"part-1\"}]}";
    static const char esc_name[] =
        "{\"parts\": [{\"name\": \"part-0\\u0000x\"}]}";
    static const char esc_host[] =
        "{\"parts\": [{\"name\": \"part-0\", \"host\": \"a\\u0000b\"}]}";
    static const char raw_nul[] = "{\"parts\": [{\"name\": \"part-0\"}]}\0"
                                  "{\"parts\": []}";
    static const char second[] =
        "{\"parts\": [{\"name\": \"part-0\"}]} {\"parts\": []}";
    const struct {
        const char *text;
        size_t len;
        const char *why;
    } bad[] = {
        {dup, sizeof dup - 1, "part-1 twice"},
        {esc_name, sizeof esc_name - 1, "NUL"},
        {esc_host, sizeof esc_host - 1, "NUL"},
        {raw_nul, sizeof raw_nul - 1, "NUL"},
        {second, sizeof second - 1, "not JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        s_put_bytes ("_SUCCESS", bad[i].text, bad[i].len);
        assert_int_equal (hearth_manifest_read (s_dir, &out, &n, &err), -1);
        assert_null (out);
        assert_int_equal (n, 0);
        assert_contains (err.text, "_SUCCESS");
        assert_contains (err.text, bad[i].why);
    }
    /* a backslash before u0000 is a backslash, not an escape: kept */
    s_put ("_SUCCESS", "{\"parts\": [{\"name\": \"p\\\\u0000\"}]}");
    assert_int_equal (hearth_manifest_read (s_dir, &out, &n, &err), 0);
    assert_int_equal (n, 1);
    assert_string_equal (out[0].name, "p\\u0000");
    hearth_manifest_free (out, n);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_round_trip),
        cmocka_unit_test (test_empty_marker_lists_parts),
        cmocka_unit_test (test_link_not_followed),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_refused_ambiguous),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}

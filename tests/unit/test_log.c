/*  test_log.c - unit tests of the process logger (libcore/log.c): level
    names, the line format, the threshold, logging to a file, and reopening
    that file after it was renamed (what logrotate does before SIGHUP).

    Log files go to a scratch directory under the build directory.
*/
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/log.h"
#include "tests/unit/testutil.h"

static char s_dir[] = "test_log.XXXXXX";

/* Path of name in the scratch directory (one of a few static buffers). */
static const char *
s_path (const char *name)
{
    static char paths[4][256];
    static int next;
    char *path = paths[next++ % 4];
    snprintf (path, sizeof paths[0], "%s/%s", s_dir, name);
    return path;
}

/* The whole file as a new string ("" when it does not exist). */
static char *
s_slurp (const char *path)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return strdup ("");
    char *text = calloc (1, 65536);
    assert_non_null (text);
    size_t n = fread (text, 1, 65535, f);
    text[n] = '\0';
    fclose (f);
    return text;
}

static int
s_count_lines (const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static void
s_open (const char *level, const char *path)
{
    hearth_error_t err;
    if (hearth_log_open ("test-log", level, path, &err) < 0)
        fail_msg ("log open failed: %s", err.text);
}

static void
test_level_parse (void **state)
{
    (void) state;
    assert_int_equal (hearth_log_level_parse ("error"), HEARTH_LOG_ERROR);
    assert_int_equal (hearth_log_level_parse ("warn"), HEARTH_LOG_WARN);
    assert_int_equal (hearth_log_level_parse ("WARNING"), HEARTH_LOG_WARN);
    assert_int_equal (hearth_log_level_parse ("Info"), HEARTH_LOG_INFO);
    assert_int_equal (hearth_log_level_parse ("DEBUG"), HEARTH_LOG_DEBUG);
    assert_int_equal (hearth_log_level_parse ("verbose"), -1);
    assert_int_equal (hearth_log_level_parse (""), -1);
    assert_int_equal (hearth_log_level_parse ("info "), -1);
    assert_int_equal (hearth_log_level_parse (NULL), -1);
}

static void
test_open_errors (void **state)
{
    (void) state;
    hearth_error_t err;
    assert_int_equal (hearth_log_open ("x", "loud", NULL, &err), -1);
    assert_string_equal (err.text, "unknown log level 'loud' (expected "
                                   "error, warn, info or debug)");
    assert_int_equal (
        hearth_log_open ("x", "info", "/nonexistent-dir/x.log", &err), -1);
    assert_string_equal (err.text, "cannot open log file "
                                   "/nonexistent-dir/x.log: No such file or "
                                   "directory");
}

static void
test_line_format (void **state)
{
    (void) state;
    const char *path = s_path ("format.log");
    s_open ("debug", path);
    errno = ERANGE;
    log_info ("hello %d", 42);
    assert_int_equal (errno, ERANGE); /* logging keeps errno */
    log_error ("bad thing");
    log_debug ("details");
    hearth_log_close ();

    char pattern[256];
    snprintf (pattern, sizeof pattern,
              "^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]"
              "\\.[0-9]{3}Z test-log\\[%d\\] INFO hello 42\n"
              "[^\n]*Z test-log\\[%d\\] ERROR bad thing\n"
              "[^\n]*Z test-log\\[%d\\] DEBUG details\n$",
              (int) getpid (), (int) getpid (), (int) getpid ());
    regex_t re;
    assert_int_equal (regcomp (&re, pattern, REG_EXTENDED), 0);
    char *text = s_slurp (path);
    if (regexec (&re, text, 0, NULL, 0) != 0)
        fail_msg ("log text does not match:\n%s", text);
    regfree (&re);
    free (text);
}

static void
test_threshold (void **state)
{
    (void) state;
    const char *path = s_path ("threshold.log");
    s_open ("warn", path);
    assert_true (hearth_log_enabled (HEARTH_LOG_ERROR));
    assert_true (hearth_log_enabled (HEARTH_LOG_WARN));
    assert_false (hearth_log_enabled (HEARTH_LOG_INFO));
    assert_false (hearth_log_enabled (HEARTH_LOG_DEBUG));
    int evaluated = 0;
    log_error ("e");
    log_warn ("w");
    log_info ("i");
    log_debug ("d %d", ++evaluated); /* arguments not even evaluated */
    assert_int_equal (evaluated, 0);
    hearth_log_close ();
    char *text = s_slurp (path);
    assert_int_equal (s_count_lines (text), 2);
    assert_contains (text, " ERROR e\n");
    assert_contains (text, " WARN w\n");
    assert_null (strstr (text, "INFO"));
    free (text);

    /* no level given: info */
    s_open (NULL, path);
    assert_true (hearth_log_enabled (HEARTH_LOG_INFO));
    assert_false (hearth_log_enabled (HEARTH_LOG_DEBUG));
    hearth_log_close ();
}

/* logrotate renames the file, then the daemon reopens on SIGHUP. */
static void
test_reopen_after_rename (void **state)
{
    (void) state;
    const char *path = s_path ("daemon.log");
    const char *rotated = s_path ("daemon.log.1");
    s_open ("info", path);
    log_info ("before rotation");
    assert_int_equal (rename (path, rotated), 0);
    log_info ("still to the renamed file");
    assert_int_equal (hearth_log_reopen (), 0);
    log_info ("after rotation");
    hearth_log_close ();

    char *old = s_slurp (rotated), *cur = s_slurp (path);
    assert_int_equal (s_count_lines (old), 2);
    assert_contains (old, "before rotation");
    assert_contains (old, "still to the renamed file");
    assert_int_equal (s_count_lines (cur), 1);
    assert_contains (cur, "INFO after rotation\n");
    free (old);
    free (cur);
}

/* A failed open keeps the old destination; closing goes back to stderr
   and writes nothing more to the file. */
static void
test_failed_open_and_close (void **state)
{
    (void) state;
    const char *path = s_path ("keep.log");
    s_open ("info", path);
    hearth_error_t err;
    assert_int_equal (hearth_log_open ("other", "bogus", NULL, &err), -1);
    log_info ("kept");
    hearth_log_close ();
    assert_int_equal (hearth_log_reopen (), 0); /* stderr: nothing to do */
    char *text = s_slurp (path);
    assert_int_equal (s_count_lines (text), 1);
    assert_contains (text, "test-log[");
    assert_contains (text, "INFO kept\n");
    free (text);
}

/* A symbolic link left at the log file's name (a shared log directory)
   is refused, at the start and at a reopen; the file it names keeps its
   content. */
static void
test_link_refused (void **state)
{
    (void) state;
    const char *victim = s_path ("victim");
    const char *path = s_path ("planted.log");
    FILE *f = fopen (victim, "w");
    assert_non_null (f);
    fputs ("precious\n", f);
    fclose (f);
    assert_int_equal (symlink ("victim", path), 0);
    hearth_error_t err;
    assert_int_equal (hearth_log_open ("x", "info", path, &err), -1);
    assert_contains (err.text, "cannot open log file");
    assert_contains (err.text, "symbolic link");
    /* rotated away, and a link left in its place before the reopen */
    unlink (path);
    s_open ("info", path);
    assert_int_equal (rename (path, s_path ("planted.log.1")), 0);
    assert_int_equal (symlink ("victim", path), 0);
    assert_int_equal (hearth_log_reopen (), -1);
    log_info ("to the old file still");
    hearth_log_close ();
    char *text = s_slurp (victim);
    assert_string_equal (text, "precious\n");
    free (text);
    unlink (path);
    unlink (s_path ("planted.log.1"));
    unlink (victim);
}

/* A very long message is cut, but still ends its line. */
static void
test_long_line (void **state)
{
    (void) state;
    const char *path = s_path ("long.log");
    s_open ("info", path);
    char *big = malloc (5001);
    assert_non_null (big);
    memset (big, 'x', 5000);
    big[5000] = '\0';
    log_info ("%s", big);
    log_info ("next");
    hearth_log_close ();
    free (big);
    char *text = s_slurp (path);
    assert_int_equal (s_count_lines (text), 2);
    char *nl = strchr (text, '\n');
    assert_true (nl - text < 2048);
    assert_true (nl[-1] == 'x');
    assert_contains (nl + 1, "INFO next\n");
    free (text);
}

/* A peer's text with control characters is one line still, escaped: no
   forged record after a newline, no terminal sequence (ctlchars.h). */
static void
test_control_escaped (void **state)
{
    (void) state;
    const char *path = s_path ("ctl.log");
    s_open ("info", path);
    log_info ("app %s registered",
              "evil\n2026-01-01T00:00:00.000Z hearth-master[1] INFO "
              "forged\x1b[31m\r\x7f");
    /* mostly newlines: cut to the line, still one line */
    char *many = malloc (3001);
    assert_non_null (many);
    memset (many, '\n', 3000);
    many[3000] = '\0';
    log_warn ("%s", many);
    free (many);
    hearth_log_close ();
    char *text = s_slurp (path);
    assert_int_equal (s_count_lines (text), 2);
    assert_contains (text, "INFO app evil\\n2026-01-01T00:00:00.000Z "
                           "hearth-master[1] INFO forged\\x1b[31m\\r"
                           "\\x7f registered\n");
    assert_null (strchr (text, '\x1b'));
    char *second = strchr (text, '\n') + 1;
    assert_true (strlen (second) <= 2048);
    assert_contains (second, " WARN \\n\\n\\n");
    free (text);
}

static int
s_group_setup (void **state)
{
    (void) state;
    hearth_test_tmpdir (s_dir);
    return 0;
}

static int
s_group_teardown (void **state)
{
    (void) state;
    static const char *const names[] = {
        "format.log", "threshold.log", "daemon.log", "daemon.log.1",
        "keep.log",   "long.log",      "ctl.log"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink (s_path (names[i]));
    return rmdir (s_dir);
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_level_parse),
        cmocka_unit_test (test_open_errors),
        cmocka_unit_test (test_line_format),
        cmocka_unit_test (test_threshold),
        cmocka_unit_test (test_reopen_after_rename),
        cmocka_unit_test (test_failed_open_and_close),
        cmocka_unit_test (test_long_line),
        cmocka_unit_test (test_link_refused),
        cmocka_unit_test (test_control_escaped),
    };
    return cmocka_run_group_tests_name ("log", tests, s_group_setup,
                                        s_group_teardown);
}

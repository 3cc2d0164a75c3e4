/*  test_fstree.c - removing whole trees (libcore/fstree.c): files,
    directories deep and wide, and links, which are removed and never
    followed, so that what they point to stays; the path given may end
    with '/' or not exist. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "libcore/fstree.h"
#include "tests/unit/testutil.h"

static char s_top[64];

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_top, sizeof s_top, "/tmp/hearth-fstree-XXXXXX");
    return mkdtemp (s_top) ? 0 : -1;
}

static int
s_teardown (void **state)
{
    (void) state;
    char cmd[128];
    snprintf (cmd, sizeof cmd, "rm -rf %s", s_top);
    return system (cmd);
}

/* s_top/rel (into buf). */
static const char *
s_at (char *buf, size_t size, const char *rel)
{
    snprintf (buf, size, "%s/%s", s_top, rel);
    return buf;
}

static void
s_make_file (const char *rel)
{
    char path[PATH_MAX];
    FILE *f = fopen (s_at (path, sizeof path, rel), "w");
    assert_non_null (f);
    fputs ("x", f);
    fclose (f);
}

static bool
s_exists (const char *rel)
{
    char path[PATH_MAX];
    struct stat st;
    return lstat (s_at (path, sizeof path, rel), &st) == 0;
}

static void
test_tree_with_links (void **state)
{
    (void) state;
    char path[PATH_MAX], target[PATH_MAX];
    assert_int_equal (mkdir (s_at (path, sizeof path, "keep"), 0700), 0);
    s_make_file ("keep/precious");
    assert_int_equal (mkdir (s_at (path, sizeof path, "t"), 0700), 0);
    assert_int_equal (mkdir (s_at (path, sizeof path, "t/a"), 0700), 0);
    assert_int_equal (mkdir (s_at (path, sizeof path, "t/a/b"), 0000), 0);
    s_make_file ("t/f");
    s_make_file ("t/a/g");
    /* a link to a directory outside, and one to a file there */
    assert_int_equal (symlink (s_at (target, sizeof target, "keep"),
                               s_at (path, sizeof path, "t/a/dirlink")),
                      0);
    assert_int_equal (symlink (s_at (target, sizeof target, "keep/precious"),
                               s_at (path, sizeof path, "t/filelink")),
                      0);
    assert_int_equal (
        symlink ("/nonexistent", s_at (path, sizeof path, "t/dangling")), 0);
    assert_int_equal (mkfifo (s_at (path, sizeof path, "t/a/fifo"), 0600), 0);
    hearth_rm_tree (s_at (path, sizeof path, "t/"));
    assert_false (s_exists ("t"));
    assert_true (s_exists ("keep/precious"));
    /* a path that is a link: the link goes, not what it points to */
    assert_int_equal (symlink (s_at (target, sizeof target, "keep"),
                               s_at (path, sizeof path, "l")),
                      0);
    hearth_rm_tree (s_at (path, sizeof path, "l"));
    assert_false (s_exists ("l"));
    assert_true (s_exists ("keep/precious"));
    /* nothing there: no error */
    hearth_rm_tree (s_at (path, sizeof path, "none"));
    hearth_rm_tree (s_at (path, sizeof path, "keep"));
    assert_false (s_exists ("keep"));
}

static void
test_deep_and_wide (void **state)
{
    (void) state;
    char rel[PATH_MAX] = "d", path[PATH_MAX];
    for (int i = 0; i < 100; i++) {
        assert_int_equal (mkdir (s_at (path, sizeof path, rel), 0700), 0);
        strcat (rel, "/d");
    }
    for (int i = 0; i < 300; i++) {
        snprintf (path, sizeof path, "d/f%d", i);
        s_make_file (path);
    }
    hearth_rm_tree (s_at (path, sizeof path, "d"));
    assert_false (s_exists ("d"));
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_tree_with_links, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_deep_and_wide, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

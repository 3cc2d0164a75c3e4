/*  test_persisted.c - a worker's persisted map outputs on disk
    (worker/persisted.c): only marked shuffle directories count, their
    outputs' data and index bytes summed; over the budget the oldest
    outputs go (index and data) until the rest fit; no budget removes
    nothing; a link is never followed. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/fstree.h"
#include "libcore/partfmt.h"
#include "worker/persisted.h"

static char s_root[64];

/* root/DIR/NAME of len bytes, written at second when. */
static void
s_file (const char *dir, const char *name, size_t len, time_t when)
{
    char path[256];
    snprintf (path, sizeof path, "%s/%s", s_root, dir);
    hearth_error_t err;
    assert_int_equal (hearth_mkdir_p (path, 0700, &err), 0);
    snprintf (path, sizeof path, "%s/%s/%s", s_root, dir, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    for (size_t i = 0; i < len; i++)
        fputc ('x', f);
    fclose (f);
    struct timeval tv[2] = {{when, 0}, {when, 0}};
    assert_int_equal (utimes (path, tv), 0);
}

static bool
s_exists (const char *rel)
{
    char path[256];
    snprintf (path, sizeof path, "%s/%s", s_root, rel);
    struct stat st;
    return lstat (path, &st) == 0;
}

/* app/5 marked: outputs 0.0 (100 + 10 bytes, oldest), 1.0 (200 + 10),
   2.0 (300 + 10, newest); app/6 not marked: 0.0 (1000 + 10). */
static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_root, sizeof s_root, "/tmp/test_persisted.XXXXXX");
    assert_non_null (mkdtemp (s_root));
    s_file ("app/5", HEARTH_PERSISTED_MARK, 0, 1000);
    s_file ("app/5", "0.0", 100, 1000);
    s_file ("app/5", "0.0.index", 10, 1000);
    s_file ("app/5", "1.0", 200, 2000);
    s_file ("app/5", "1.0.index", 10, 2000);
    s_file ("app/5", "2.0", 300, 3000);
    s_file ("app/5", "2.0.index", 10, 3000);
    s_file ("app/6", "0.0", 1000, 500);
    s_file ("app/6", "0.0.index", 10, 500);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    hearth_rm_tree (s_root);
    return 0;
}

static void
test_counted_not_evicted (void **state)
{
    (void) state;
    size_t evicted = 99;
    assert_int_equal (persisted_sweep (s_root, 0, &evicted), 630);
    assert_int_equal (evicted, 0);
    assert_int_equal (persisted_sweep (s_root, 630, &evicted), 630);
    assert_int_equal (evicted, 0);
    assert_true (s_exists ("app/5/0.0.index"));
}

static void
test_oldest_go_first (void **state)
{
    (void) state;
    size_t evicted;
    /* 630 over 400: 0.0 (110) goes, 520 still over, 1.0 (210) goes */
    assert_int_equal (persisted_sweep (s_root, 400, &evicted), 310);
    assert_int_equal (evicted, 2);
    assert_false (s_exists ("app/5/0.0"));
    assert_false (s_exists ("app/5/0.0.index"));
    assert_false (s_exists ("app/5/1.0.index"));
    assert_true (s_exists ("app/5/2.0"));
    assert_true (s_exists ("app/5/2.0.index"));
    assert_true (s_exists ("app/6/0.0")); /* not persisted: never */
    assert_true (s_exists ("app/5/" HEARTH_PERSISTED_MARK));
}

/* A link at a shuffle directory's place is not followed: what it points
   at is neither counted nor removed. */
static void
test_link_not_followed (void **state)
{
    (void) state;
    char target[128], link[128];
    snprintf (target, sizeof target, "%s/app/5", s_root);
    snprintf (link, sizeof link, "%s/app/7", s_root);
    assert_int_equal (symlink (target, link), 0);
    size_t evicted;
    assert_int_equal (persisted_sweep (s_root, 1, &evicted), 0);
    assert_int_equal (evicted, 1); /* 2.0, through app/5 itself */
    assert_true (s_exists ("app/7"));
    unlink (link);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_counted_not_evicted),
        cmocka_unit_test (test_oldest_go_first),
        cmocka_unit_test (test_link_not_followed),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}

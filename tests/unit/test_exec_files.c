/*  test_exec_files.c - the node's cache of shipped files
    (executor/shipcache.c) and the files put into the work dir from it
    (executor/files.c): an entry is there only once committed, read-only,
    as a regular file of its size; one claim at a time, a stale claim
    taken over, and the old holder's end not removing the new claim; an
    abandoned fetch leaves nothing; a symbolic link planted at an entry's
    name is never followed (not taken for the entry, replaced by the
    commit, its target untouched), nor one at the cache's own name; a
    file linked into the work dir under its name, an executable one
    executable, a second one replacing the first; names the work dir
    holds already, or unsafe ones, refused with nothing written.
*/
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
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
#include <czmq.h>

#include "executor/files.h"
#include "executor/shipcache.h"
#include "tests/unit/testutil.h"

/* A claim untouched this long is stale, in these tests. */
static const int64_t s_stale_ms = 60000;
/* An entry's name, as the executor makes them (HASH-NAME). */
static const char s_entry[] = "F572D396FAE9206628714FB2CE00F72E94F2258F-a.txt";

/* A fresh directory for each test. */
static int
s_setup (void **state)
{
    char *dir = strdup ("/tmp/hearth-test-files-XXXXXX");
    if (!dir || !mkdtemp (dir)) {
        free (dir);
        return -1;
    }
    *state = dir;
    return 0;
}

static int
s_teardown (void **state)
{
    char cmd[200];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", (char *) *state);
    int rc = system (cmd);
    free (*state);
    return rc == 0 ? 0 : -1;
}

/* DIR/name's text (NULL: none), at most 255 bytes. */
static char *
s_read (const char *dir, const char *name)
{
    char path[512], buf[256];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    int fd = open (path, O_RDONLY);
    ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close (fd);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return strdup (buf);
}

/* Write text to DIR/name (made anew), mode mode. */
static void
s_write (const char *dir, const char *name, const char *text, int mode)
{
    char path[512];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    unlink (path);
    int fd = open (path, O_WRONLY | O_CREAT | O_EXCL, mode);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, text, strlen (text)), (ssize_t) strlen (text));
    close (fd);
}

/* Fetch text into cache as entry, as an executor does: claim, part,
   commit (mode). */
static void
s_fetch (shipcache_t *cache, const char *entry, const char *text, int mode)
{
    hearth_error_t err;
    assert_int_equal (shipcache_claim (cache, entry, &err), 1);
    int fd = shipcache_part (cache, entry, &err);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, text, strlen (text)), (ssize_t) strlen (text));
    close (fd);
    assert_int_equal (shipcache_commit (cache, entry, mode, &err), 0);
}

/* How many names DIR holds (. and .. left out). */
static int
s_count (const char *dir)
{
    DIR *d = opendir (dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir (d)))
        n += strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0;
    if (d)
        closedir (d);
    return d ? n : -1;
}

static void
test_entry_committed (void **state)
{
    const char *dir = *state;
    hearth_error_t err;
    shipcache_t *cache = shipcache_new (dir, s_stale_ms, &err);
    assert_non_null (cache);
    assert_false (shipcache_has (cache, s_entry, 6));
    assert_int_equal (shipcache_claim (cache, s_entry, &err), 1);
    int fd = shipcache_part (cache, s_entry, &err);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, "hel", 3), 3);
    assert_false (shipcache_has (cache, s_entry, 3)); /* not yet: a part */
    assert_int_equal (write (fd, "lo\n", 3), 3);
    close (fd);
    assert_int_equal (shipcache_commit (cache, s_entry, 0400, &err), 0);
    assert_true (shipcache_has (cache, s_entry, 6));
    assert_false (shipcache_has (cache, s_entry, 7)); /* not of that size */
    char *text = s_read (dir, s_entry);
    assert_string_equal (text, "hello\n");
    free (text);
    struct stat st;
    char path[512];
    snprintf (path, sizeof path, "%s/%s", dir, s_entry);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0400); /* read-only */
    assert_int_equal (s_count (dir), 1);        /* the claim went */
    shipcache_destroy (&cache);
    assert_null (cache);
}

static void
test_one_claim_at_a_time (void **state)
{
    const char *dir = *state;
    hearth_error_t err;
    shipcache_t *a = shipcache_new (dir, s_stale_ms, &err);
    shipcache_t *b = shipcache_new (dir, s_stale_ms, &err);
    assert_non_null (a);
    assert_non_null (b);
    assert_int_equal (shipcache_claim (a, s_entry, &err), 1);
    assert_int_equal (shipcache_claim (b, s_entry, &err), 0); /* waits */
    shipcache_touch (a, s_entry);
    assert_int_equal (shipcache_claim (b, s_entry, &err), 0);
    /* a's claim untouched for longer than stale_ms: b takes it over */
    char claim[512];
    snprintf (claim, sizeof claim, "%s/.%s.claim", dir, s_entry);
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    assert_int_equal (utimensat (AT_FDCWD, claim, old, 0), 0);
    assert_int_equal (shipcache_claim (b, s_entry, &err), 1);
    /* a, ending late, does not remove b's claim */
    shipcache_abandon (a, s_entry);
    assert_int_equal (access (claim, F_OK), 0);
    shipcache_t *c = shipcache_new (dir, s_stale_ms, &err);
    assert_int_equal (shipcache_claim (c, s_entry, &err), 0);
    shipcache_abandon (b, s_entry); /* b gives up: nothing left */
    assert_int_equal (s_count (dir), 0);
    assert_int_equal (shipcache_claim (c, s_entry, &err), 1);
    shipcache_destroy (&a);
    shipcache_destroy (&b);
    shipcache_destroy (&c);
}

static void
test_abandoned_leaves_nothing (void **state)
{
    const char *dir = *state;
    hearth_error_t err;
    shipcache_t *cache = shipcache_new (dir, s_stale_ms, &err);
    assert_int_equal (shipcache_claim (cache, s_entry, &err), 1);
    int fd = shipcache_part (cache, s_entry, &err);
    assert_int_equal (write (fd, "hel", 3), 3);
    close (fd);
    shipcache_abandon (cache, s_entry);
    assert_int_equal (s_count (dir), 0);
    assert_false (shipcache_has (cache, s_entry, 3));
    shipcache_destroy (&cache);
}

static void
test_links_not_followed (void **state)
{
    const char *dir = *state;
    hearth_error_t err;
    char sub[256], entry[512], target[512];
    snprintf (sub, sizeof sub, "%s/cache", dir);
    assert_int_equal (mkdir (sub, 0700), 0);
    s_write (dir, "secret", "hello\n", 0600); /* of the entry's size */
    snprintf (entry, sizeof entry, "%s/%s", sub, s_entry);
    snprintf (target, sizeof target, "%s/secret", dir);
    assert_int_equal (symlink (target, entry), 0);
    shipcache_t *cache = shipcache_new (sub, s_stale_ms, &err);
    assert_non_null (cache);
    assert_false (shipcache_has (cache, s_entry, 6)); /* not taken */
    s_fetch (cache, s_entry, "right\n", 0400);
    struct stat st;
    assert_int_equal (lstat (entry, &st), 0);
    assert_true (S_ISREG (st.st_mode)); /* the link was replaced */
    char *text = s_read (sub, s_entry);
    assert_string_equal (text, "right\n");
    free (text);
    text = s_read (dir, "secret"); /* its target untouched */
    assert_string_equal (text, "hello\n");
    free (text);
    shipcache_destroy (&cache);
    /* a link at the cache's own name is refused */
    char link_dir[512];
    snprintf (link_dir, sizeof link_dir, "%s/linked", dir);
    assert_int_equal (symlink (sub, link_dir), 0);
    assert_null (shipcache_new (link_dir, s_stale_ms, &err));
    assert_contains (err.text, "linked");
}

static void
test_placed_in_work_dir (void **state)
{
    const char *dir = *state;
    hearth_error_t err;
    shipcache_t *cache = shipcache_new (dir, s_stale_ms, &err);
    s_fetch (cache, "AA-data.txt", "alpha\n", 0400);
    s_fetch (cache, "BB-run.sh", "#!/bin/sh\n", 0500);
    s_fetch (cache, "CC-data.txt", "two\n", 0400);
    char work[256], path[512], cached[512];
    snprintf (work, sizeof work, "%s/exec-0", dir);
    assert_int_equal (mkdir (work, 0700), 0);
    snprintf (cached, sizeof cached, "%s/AA-data.txt", shipcache_dir (cache));
    assert_int_equal (files_place (work, "data.txt", cached, 0400, &err), 0);
    char *text = s_read (work, "data.txt");
    assert_string_equal (text, "alpha\n");
    free (text);
    struct stat a, b;
    snprintf (path, sizeof path, "%s/data.txt", work);
    assert_int_equal (stat (cached, &a), 0);
    assert_int_equal (stat (path, &b), 0);
    assert_true (a.st_ino == b.st_ino); /* a link to the cache */
    assert_false (b.st_mode & S_IXUSR);
    snprintf (cached, sizeof cached, "%s/BB-run.sh", shipcache_dir (cache));
    assert_int_equal (files_place (work, "run.sh", cached, 0500, &err), 0);
    snprintf (path, sizeof path, "%s/run.sh", work);
    assert_int_equal (access (path, X_OK), 0);
    /* a second one of that name replaces the first */
    snprintf (cached, sizeof cached, "%s/CC-data.txt", shipcache_dir (cache));
    assert_int_equal (files_place (work, "data.txt", cached, 0400, &err), 0);
    text = s_read (work, "data.txt");
    assert_string_equal (text, "two\n");
    free (text);
    static const char *const bad[] = {"libs", "stdout", "stderr", ".hidden",
                                      "-x",   "a/b",    "",       NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal (files_place (work, bad[i], cached, 0400, &err), -1);
        assert_contains (err.text, "file");
    }
    assert_null (s_read (work, "libs")); /* nothing written */
    assert_int_equal (s_count (work), 2);
    shipcache_destroy (&cache);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_entry_committed, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_one_claim_at_a_time, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_abandoned_leaves_nothing, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_links_not_followed, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_placed_in_work_dir, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests_name ("exec_files", tests, NULL, NULL);
}

/*  test_safefile.c - unit tests of libcore/safefile.c, files written into
    directories that others may write: a new file is never created
    through a symbolic link or onto a hard link left at its name; a
    replaced one loses the link, never what the link names; a reopened
    one must be a regular file with one link; nothing opened waits on a
    FIFO left at its name; a file read from another user's directory
    must be one link of that user's; a directory of our own is never
    entered through a link.  Each time the file the link names
    keeps its content.

    Files go to a scratch directory under the build directory.
*/
#include "config.h"

#include <errno.h>
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

#include "libcore/safefile.h"
#include "tests/unit/testutil.h"

static char s_dir[] = "test_safefile.XXXXXX";
static int s_dfd = -1;

/* The victim: a file that links point at, and its content. */
static const char s_precious[] = "precious\n";

static void
s_write_victim (void)
{
    int fd = openat (s_dfd, "victim", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, s_precious, strlen (s_precious)),
                      (ssize_t) strlen (s_precious));
    close (fd);
}

static void
s_assert_victim (void)
{
    char buf[64] = "";
    int fd = openat (s_dfd, "victim", O_RDONLY);
    assert_true (fd >= 0);
    assert_true (read (fd, buf, sizeof buf - 1) >= 0);
    close (fd);
    assert_string_equal (buf, s_precious);
}

static void
s_clean (void)
{
    unlinkat (s_dfd, "f", 0);
    unlinkat (s_dfd, "victim", 0);
}

static void
test_create_new (void **state)
{
    (void) state;
    int fd = hearth_file_create_at (s_dfd, "f", O_WRONLY, 0640, false);
    assert_true (fd >= 0);
    assert_true (fcntl (fd, F_GETFD) & FD_CLOEXEC);
    close (fd);
    struct stat st;
    assert_int_equal (fstatat (s_dfd, "f", &st, AT_SYMLINK_NOFOLLOW), 0);
    assert_true (S_ISREG (st.st_mode));
    /* taken now: not created again, unless replaced */
    assert_int_equal (hearth_file_create_at (s_dfd, "f", O_WRONLY, 0640, false),
                      -1);
    assert_int_equal (errno, EEXIST);
    fd = hearth_file_create_at (s_dfd, "f", O_WRONLY, 0640, true);
    assert_true (fd >= 0);
    close (fd);
    s_clean ();
}

static void
test_create_refuses_links (void **state)
{
    (void) state;
    s_write_victim ();
    assert_int_equal (symlinkat ("victim", s_dfd, "f"), 0);
    assert_int_equal (hearth_file_create_at (s_dfd, "f", O_WRONLY, 0644, false),
                      -1);
    assert_int_equal (errno, EEXIST);
    assert_contains (hearth_file_why (errno), "never overwritten nor followed");
    s_assert_victim ();
    /* a dangling link: O_CREAT alone would make its target */
    unlinkat (s_dfd, "f", 0);
    assert_int_equal (symlinkat ("nothing-yet", s_dfd, "f"), 0);
    assert_int_equal (hearth_file_create_at (s_dfd, "f", O_WRONLY, 0644, false),
                      -1);
    assert_int_equal (faccessat (s_dfd, "nothing-yet", F_OK, 0), -1);
    unlinkat (s_dfd, "f", 0);
    /* a hard link to the victim */
    assert_int_equal (linkat (s_dfd, "victim", s_dfd, "f", 0), 0);
    assert_int_equal (hearth_file_create_at (s_dfd, "f", O_WRONLY, 0644, false),
                      -1);
    s_assert_victim ();
    s_clean ();
}

static void
test_replace_removes_the_link_only (void **state)
{
    (void) state;
    s_write_victim ();
    assert_int_equal (symlinkat ("victim", s_dfd, "f"), 0);
    int fd = hearth_file_create_at (s_dfd, "f", O_WRONLY, 0644, true);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, "new\n", 4), 4);
    close (fd);
    s_assert_victim ();
    struct stat st;
    assert_int_equal (fstatat (s_dfd, "f", &st, AT_SYMLINK_NOFOLLOW), 0);
    assert_true (S_ISREG (st.st_mode));
    assert_int_equal (st.st_size, 4);
    /* a hard link: replaced by a file of its own */
    unlinkat (s_dfd, "f", 0);
    assert_int_equal (linkat (s_dfd, "victim", s_dfd, "f", 0), 0);
    fd = hearth_file_create_at (s_dfd, "f", O_WRONLY, 0644, true);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, "x", 1), 1);
    close (fd);
    s_assert_victim ();
    s_clean ();
}

static void
test_create_by_path (void **state)
{
    (void) state;
    char path[300];
    s_write_victim ();
    assert_int_equal (symlinkat ("victim", s_dfd, "f"), 0);
    snprintf (path, sizeof path, "%s/f", s_dir);
    assert_int_equal (hearth_file_create (path, O_WRONLY, 0644, false), -1);
    assert_int_equal (errno, EEXIST);
    s_assert_victim ();
    int fd = hearth_file_create (path, O_WRONLY, 0644, true);
    assert_true (fd >= 0);
    close (fd);
    s_assert_victim ();
    snprintf (path, sizeof path, "%s/no/such/f", s_dir);
    assert_int_equal (hearth_file_create (path, O_WRONLY, 0644, false), -1);
    assert_int_equal (errno, ENOENT);
    s_clean ();
}

static void
test_reopen (void **state)
{
    (void) state;
    char path[300], victim[300];
    snprintf (path, sizeof path, "%s/f", s_dir);
    snprintf (victim, sizeof victim, "%s/victim", s_dir);
    int fd = hearth_file_reopen (path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    assert_true (fd >= 0);
    close (fd);
    fd = hearth_file_reopen (path, O_WRONLY | O_APPEND, 0);
    assert_true (fd >= 0); /* again: a file of its own, one link */
    close (fd);
    unlink (path);
    s_write_victim ();
    assert_int_equal (symlink ("victim", path), 0);
    assert_int_equal (hearth_file_reopen (path, O_WRONLY | O_APPEND, 0), -1);
    assert_int_equal (errno, ELOOP);
    assert_contains (hearth_file_why (errno), "symbolic link");
    unlink (path);
    assert_int_equal (link (victim, path), 0);
    assert_int_equal (hearth_file_reopen (path, O_WRONLY | O_APPEND, 0), -1);
    assert_int_equal (errno, EMLINK);
    assert_contains (hearth_file_why (errno), "hard links");
    s_assert_victim ();
    unlink (path);
    assert_int_equal (mkfifo (path, 0600), 0);
    assert_int_equal (hearth_file_reopen (path, O_RDWR, 0), -1);
    assert_int_equal (errno, EINVAL);
    s_clean ();
}

/* A FIFO at the name neither blocks the open, whichever way it is
   opened (a log reopened O_WRONLY at start or SIGHUP waits for a reader,
   a file read O_RDONLY for a writer), nor is kept; nor is a directory. */
static void
test_fifo_does_not_block (void **state)
{
    (void) state;
    char path[300];
    snprintf (path, sizeof path, "%s/f", s_dir);
    assert_int_equal (mkfifo (path, 0600), 0);
    assert_int_equal (
        hearth_file_reopen (path, O_WRONLY | O_CREAT | O_APPEND, 0640), -1);
    assert_int_equal (errno, EINVAL);
    assert_contains (hearth_file_why (errno), "not a regular file");
    assert_int_equal (
        hearth_file_open_regular_at (s_dfd, "f", O_RDONLY, 0, NULL), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (
        hearth_file_open_regular_at (s_dfd, "f", O_WRONLY, 0, NULL), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (
        hearth_file_open_regular_at (AT_FDCWD, s_dir, O_RDONLY, 0, NULL), -1);
    assert_int_equal (errno, EINVAL);
    s_clean ();
}

/* A regular file is opened blocking, with what fstat said of it; a link
   at the name is refused with O_NOFOLLOW, followed without. */
static void
test_open_regular (void **state)
{
    (void) state;
    struct stat st;
    s_write_victim ();
    int fd = hearth_file_open_regular_at (s_dfd, "victim", O_RDONLY, 0, &st);
    assert_true (fd >= 0);
    assert_false (fcntl (fd, F_GETFL) & O_NONBLOCK);
    assert_true (fcntl (fd, F_GETFD) & FD_CLOEXEC);
    assert_int_equal (st.st_size, strlen (s_precious));
    close (fd);
    assert_int_equal (symlinkat ("victim", s_dfd, "f"), 0);
    assert_int_equal (hearth_file_open_regular_at (
                          s_dfd, "f", O_RDONLY | O_NOFOLLOW, 0, NULL),
                      -1);
    assert_int_equal (errno, ELOOP);
    fd = hearth_file_open_regular_at (s_dfd, "f", O_RDONLY, 0, NULL);
    assert_true (fd >= 0);
    close (fd);
    s_clean ();
}

/* A file read back from another user's directory: a regular file of one
   link, that user's; never a link, a hard link, a FIFO. */
static void
test_open_owned (void **state)
{
    (void) state;
    uid_t me = geteuid ();
    s_write_victim ();
    int fd = hearth_file_open_owned_at (s_dfd, "victim", me, NULL);
    assert_true (fd >= 0);
    close (fd);
    assert_int_equal (hearth_file_open_owned_at (s_dfd, "victim", me + 1, NULL),
                      -1);
    assert_int_equal (errno, EPERM);
    assert_contains (hearth_file_why (errno), "belongs to another user");
    assert_int_equal (linkat (s_dfd, "victim", s_dfd, "f", 0), 0);
    assert_int_equal (hearth_file_open_owned_at (s_dfd, "f", me, NULL), -1);
    assert_int_equal (errno, EMLINK);
    unlinkat (s_dfd, "f", 0);
    assert_int_equal (symlinkat ("victim", s_dfd, "f"), 0);
    assert_int_equal (hearth_file_open_owned_at (s_dfd, "f", me, NULL), -1);
    assert_int_equal (errno, ELOOP);
    unlinkat (s_dfd, "f", 0);
    assert_int_equal (mkfifoat (s_dfd, "f", 0600), 0);
    assert_int_equal (hearth_file_open_owned_at (s_dfd, "f", me, NULL), -1);
    assert_int_equal (errno, EINVAL);
    s_clean ();
}

static void
test_dir_open_at (void **state)
{
    (void) state;
    int fd = hearth_dir_open_at (s_dfd, "d", 0);
    assert_int_equal (fd, -1); /* missing, not made */
    fd = hearth_dir_open_at (s_dfd, "d", 0755);
    assert_true (fd >= 0);
    close (fd);
    fd = hearth_dir_open_at (s_dfd, "d", 0755); /* there: opened */
    assert_true (fd >= 0);
    close (fd);
    /* a link to a directory at the name: refused */
    assert_int_equal (symlinkat ("d", s_dfd, "l"), 0);
    assert_int_equal (hearth_dir_open_at (s_dfd, "l", 0755), -1);
    assert_int_equal (errno, ELOOP);
    /* a file of ours in it: not through the link either */
    char path[300];
    snprintf (path, sizeof path, "%s/l/f", s_dir);
    assert_int_equal (hearth_file_create_below (path, O_WRONLY, 0644, true),
                      -1);
    assert_int_equal (errno, ELOOP);
    assert_int_equal (faccessat (s_dfd, "d/f", F_OK, 0), -1);
    snprintf (path, sizeof path, "%s/d/f", s_dir);
    fd = hearth_file_create_below (path, O_WRONLY, 0644, true);
    assert_true (fd >= 0);
    close (fd);
    /* removed the same way: never through the link */
    snprintf (path, sizeof path, "%s/l/f", s_dir);
    assert_int_equal (hearth_file_unlink_below (path), -1);
    assert_int_equal (errno, ELOOP);
    assert_int_equal (faccessat (s_dfd, "d/f", F_OK, 0), 0);
    snprintf (path, sizeof path, "%s/d/f", s_dir);
    assert_int_equal (hearth_file_unlink_below (path), 0);
    assert_int_equal (faccessat (s_dfd, "d/f", F_OK, 0), -1);
    assert_int_equal (hearth_file_unlink_below (path), -1);
    assert_int_equal (errno, ENOENT);
    unlinkat (s_dfd, "l", 0);
    unlinkat (s_dfd, "d", AT_REMOVEDIR);
}

static int
s_setup (void **state)
{
    (void) state;
    hearth_test_clear_env ();
    if (!mkdtemp (s_dir))
        return -1;
    s_dfd = open (s_dir, O_RDONLY | O_DIRECTORY);
    return s_dfd < 0 ? -1 : 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    s_clean ();
    close (s_dfd);
    return rmdir (s_dir);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_create_new),
        cmocka_unit_test (test_create_refuses_links),
        cmocka_unit_test (test_replace_removes_the_link_only),
        cmocka_unit_test (test_create_by_path),
        cmocka_unit_test (test_reopen),
        cmocka_unit_test (test_fifo_does_not_block),
        cmocka_unit_test (test_open_regular),
        cmocka_unit_test (test_open_owned),
        cmocka_unit_test (test_dir_open_at),
    };
    return cmocka_run_group_tests_name ("safefile", tests, s_setup, s_teardown);
}

/*  test_userfs.c - the worker's file work in trees a child's user may
    write to (worker/userfs.c): directories made and given to the user
    (as root), never through a symbolic link, nor into a directory of
    another user; files made anew or appended to, refused when they are
    links, of several links or FIFOs (which do not block); files read
    back with no link followed on the way, and (as root) only when they
    are of one link and belong to their directory's owner.
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

#include "tests/unit/testutil.h"
#include "worker/userfs.h"

static char s_root[64];

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_root, sizeof s_root, "/tmp/hearth-userfs-XXXXXX");
    return mkdtemp (s_root) ? 0 : -1;
}

static int
s_teardown (void **state)
{
    (void) state;
    char cmd[128];
    snprintf (cmd, sizeof cmd, "rm -rf %s", s_root);
    return system (cmd);
}

static void
s_path (char *buf, size_t size, const char *rel)
{
    snprintf (buf, size, "%s/%s", s_root, rel);
}

/* A file of that content at root/rel. */
static void
s_file (const char *rel, const char *content)
{
    char path[256];
    s_path (path, sizeof path, rel);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (content, f);
    fclose (f);
}

static void
test_mkdirs (void **state)
{
    (void) state;
    hearth_error_t err;
    char path[256];
    struct stat st;
    int fd = userfs_mkdirs (s_root, "a/b", 0700, NULL, &err);
    assert_true (fd >= 0);
    assert_int_equal (fstat (fd, &st), 0);
    assert_true (S_ISDIR (st.st_mode));
    close (fd);
    s_path (path, sizeof path, "a/b");
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0700);
    /* again: it exists, fine */
    fd = userfs_mkdirs (s_root, "a/b", 0700, NULL, &err);
    assert_true (fd >= 0);
    close (fd);
    /* a symbolic link on the way, or at the end, is refused */
    s_path (path, sizeof path, "link");
    assert_int_equal (symlink ("/etc", path), 0);
    assert_int_equal (userfs_mkdirs (s_root, "link/x", 0700, NULL, &err), -1);
    assert_contains (err.text, "a symbolic link or not a directory on the way");
    assert_true (errno == ENOTDIR || errno == ELOOP);
    assert_int_equal (userfs_mkdirs (s_root, "link", 0700, NULL, &err), -1);
    assert_int_equal (access ("/etc/x", F_OK), -1);
    /* what is not a plain name */
    assert_int_equal (userfs_mkdirs (s_root, "a/../b", 0700, NULL, &err), -1);
    assert_int_equal (userfs_mkdirs (s_root, "a//b", 0700, NULL, &err), -1);
}

/* As root: made for a user, and not into another user's directory. */
static void
test_mkdirs_owner (void **state)
{
    (void) state;
    if (geteuid () != 0) {
        skip ();
        return;
    }
    hearth_error_t err;
    char path[256];
    struct stat st;
    userfs_owner_t o = {65534, 65534};
    int fd = userfs_mkdirs (s_root, "app/0", 0700, &o, &err);
    assert_true (fd >= 0);
    close (fd);
    s_path (path, sizeof path, "app");
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_uid, 65534);
    s_path (path, sizeof path, "app/0");
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_uid, 65534);
    assert_int_equal (st.st_gid, 65534);
    /* one of the worker's is given over */
    s_path (path, sizeof path, "mine");
    assert_int_equal (mkdir (path, 0700), 0);
    fd = userfs_mkdirs (s_root, "mine", 0700, &o, &err);
    assert_true (fd >= 0);
    close (fd);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_uid, 65534);
    /* another user's is refused */
    s_path (path, sizeof path, "theirs");
    assert_int_equal (mkdir (path, 0700), 0);
    assert_int_equal (chown (path, 1, 1), 0);
    assert_int_equal (userfs_mkdirs (s_root, "theirs/x", 0700, &o, &err), -1);
    assert_contains (err.text,
                     "a directory on the way belongs to another user");
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_uid, 1);
}

static void
test_create (void **state)
{
    (void) state;
    hearth_error_t err;
    char path[256], buf[64];
    struct stat st;
    int dir = open (s_root, O_RDONLY | O_DIRECTORY);
    assert_true (dir >= 0);
    /* appended to */
    int fd = userfs_create (dir, s_root, "log", true, 0600, NULL, &err);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, "a", 1), 1);
    close (fd);
    fd = userfs_create (dir, s_root, "log", true, 0600, NULL, &err);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, "b", 1), 1);
    close (fd);
    s_path (path, sizeof path, "log");
    FILE *f = fopen (path, "r");
    assert_non_null (fgets (buf, sizeof buf, f));
    fclose (f);
    assert_string_equal (buf, "ab");
    /* a symbolic link is not followed */
    s_file ("target", "keep");
    s_path (path, sizeof path, "sym");
    assert_int_equal (symlink ("target", path), 0);
    assert_int_equal (
        userfs_create (dir, s_root, "sym", true, 0600, NULL, &err), -1);
    assert_contains (err.text, "a symbolic link or not a directory on the way");
    /* a hard link to another file is refused */
    char target[256];
    s_path (target, sizeof target, "target");
    s_path (path, sizeof path, "hard");
    assert_int_equal (link (target, path), 0);
    assert_int_equal (
        userfs_create (dir, s_root, "hard", true, 0600, NULL, &err), -1);
    assert_contains (err.text, "not a regular file of one link");
    /* a FIFO neither blocks nor is written */
    s_path (path, sizeof path, "fifo");
    assert_int_equal (mkfifo (path, 0600), 0);
    assert_int_equal (
        userfs_create (dir, s_root, "fifo", true, 0600, NULL, &err), -1);
    /* replaced: a new file where the link was, the target untouched */
    fd = userfs_create (dir, s_root, "sym", false, 0640, NULL, &err);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, "new", 3), 3);
    close (fd);
    s_path (path, sizeof path, "sym");
    assert_int_equal (lstat (path, &st), 0);
    assert_true (S_ISREG (st.st_mode));
    f = fopen (target, "r");
    assert_non_null (fgets (buf, sizeof buf, f));
    fclose (f);
    assert_string_equal (buf, "keep");
    fd = userfs_create (dir, s_root, "hard", false, 0600, NULL, &err);
    assert_true (fd >= 0);
    close (fd);
    assert_int_equal (stat (target, &st), 0);
    assert_int_equal (st.st_nlink, 1);
    if (geteuid () == 0) {
        userfs_owner_t o = {65534, 65534};
        fd = userfs_create (dir, s_root, "owned", false, 0600, &o, &err);
        assert_true (fd >= 0);
        assert_int_equal (fstat (fd, &st), 0);
        assert_int_equal (st.st_uid, 65534);
        close (fd);
    }
    close (dir);
}

static void
test_open_read (void **state)
{
    (void) state;
    hearth_error_t err;
    char path[256], buf[16] = "";
    s_path (path, sizeof path, "r");
    assert_int_equal (mkdir (path, 0700), 0);
    s_file ("r/file", "data");
    int fd = userfs_open_read (s_root, "r/file", &err);
    assert_true (fd >= 0);
    assert_int_equal (read (fd, buf, sizeof buf - 1), 4);
    assert_string_equal (buf, "data");
    close (fd);
    /* a link to a file the reader may not hand out, at the end or on the
       way */
    s_path (path, sizeof path, "r/shadow");
    assert_int_equal (symlink ("/etc/passwd", path), 0);
    assert_int_equal (userfs_open_read (s_root, "r/shadow", &err), -1);
    assert_int_equal (errno, ELOOP);
    assert_contains (err.text, "a symbolic link or not a directory on the way");
    s_path (path, sizeof path, "rl");
    assert_int_equal (symlink ("r", path), 0);
    assert_int_equal (userfs_open_read (s_root, "rl/file", &err), -1);
    assert_true (errno == ENOTDIR || errno == ELOOP);
    assert_contains (err.text, "a symbolic link or not a directory on the way");
    /* a FIFO does not block the reader */
    s_path (path, sizeof path, "r/fifo");
    assert_int_equal (mkfifo (path, 0600), 0);
    assert_int_equal (userfs_open_read (s_root, "r/fifo", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_contains (err.text, "not a regular file");
    /* nor is a directory a file */
    assert_int_equal (userfs_open_read (s_root, "r", &err), -1);
    assert_int_equal (userfs_open_read (s_root, "r/none", &err), -1);
    assert_int_equal (errno, ENOENT);
}

/* As root, reading back what a user may write: only files of that
   user's (the owner of their directory), of one link.  Not a hard link
   to a file of root's (a user makes one where fs.protected_hardlinks is
   0), nor that file once its other name is gone (one link, but root's),
   nor a hard link to another user's file, nor a FIFO of the user's. */
static void
test_open_read_owner (void **state)
{
    (void) state;
    if (geteuid () != 0) {
        skip ();
        return;
    }
    hearth_error_t err;
    char path[256], secret[256];
    userfs_owner_t o = {65534, 65534};
    int fd = userfs_mkdirs (s_root, "u", 0700, &o, &err);
    assert_true (fd >= 0);
    close (fd);
    s_file ("u/log", "mine");
    s_path (path, sizeof path, "u/log");
    assert_int_equal (chown (path, 65534, 65534), 0);
    fd = userfs_open_read (s_root, "u/log", &err);
    assert_true (fd >= 0);
    close (fd);
    /* root's secret, hard-linked into the user's directory */
    s_file ("secret", "root only");
    s_path (secret, sizeof secret, "secret");
    assert_int_equal (chmod (secret, 0600), 0);
    s_path (path, sizeof path, "u/hard");
    assert_int_equal (link (secret, path), 0);
    assert_int_equal (userfs_open_read (s_root, "u/hard", &err), -1);
    assert_int_equal (errno, EMLINK);
    assert_contains (err.text, "not a regular file of one link");
    assert_int_equal (unlink (secret), 0);
    assert_int_equal (userfs_open_read (s_root, "u/hard", &err), -1);
    assert_int_equal (errno, EPERM);
    assert_contains (err.text, "does not belong to its directory's owner");
    /* another user's file (uid 1), its own name gone too */
    s_file ("theirs", "not yours");
    s_path (secret, sizeof secret, "theirs");
    assert_int_equal (chown (secret, 1, 1), 0);
    s_path (path, sizeof path, "u/theirs");
    assert_int_equal (link (secret, path), 0);
    assert_int_equal (unlink (secret), 0);
    assert_int_equal (userfs_open_read (s_root, "u/theirs", &err), -1);
    assert_int_equal (errno, EPERM);
    /* a FIFO of the user's: refused at once */
    s_path (path, sizeof path, "u/fifo");
    assert_int_equal (mkfifo (path, 0600), 0);
    assert_int_equal (chown (path, 65534, 65534), 0);
    assert_int_equal (userfs_open_read (s_root, "u/fifo", &err), -1);
    assert_int_equal (errno, EINVAL);
    /* the worker's own file in its own directory (children run as it) */
    s_file ("own", "the worker's");
    fd = userfs_open_read (s_root, "own", &err);
    assert_true (fd >= 0);
    close (fd);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_mkdirs, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_mkdirs_owner, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_create, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_open_read, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_open_read_owner, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_zkacl.c - unit tests of libcore/zkacl.c: the masters' ZooKeeper
    credentials file (its first line, user:password; refused when others
    may read it, when it is another user's, empty, malformed, too long or
    not a file, a FIFO not blocking) and the ACLs
    the election's nodes get, with and without credentials. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zookeeper/zookeeper.h>

#include "libcore/zkacl.h"
#include "tests/unit/testutil.h"

static char s_dir[] = "/tmp/test_zkacl.XXXXXX";
static char s_path[sizeof s_dir + 16];

/* Write content to the test's file with mode. */
static void
s_write (const char *content, mode_t mode)
{
    unlink (s_path);
    FILE *f = fopen (s_path, "w");
    assert_non_null (f);
    fputs (content, f);
    fclose (f);
    assert_int_equal (chmod (s_path, mode), 0);
}

/* Read the test's file: 0 with the credentials in buf, or -1 with err. */
static int
s_read (char *buf, hearth_error_t *err)
{
    return zkacl_read_auth (s_path, buf, ZKACL_AUTH_MAX + 1, err);
}

static void
test_good (void **state)
{
    (void) state;
    char buf[ZKACL_AUTH_MAX + 1];
    hearth_error_t err;
    s_write ("hearth:s3cret\n# the rest is not read\n", 0600);
    assert_int_equal (s_read (buf, &err), 0);
    assert_string_equal (buf, "hearth:s3cret");
    /* a line end of Windows, no line end, a password with ':' */
    s_write ("hearth:a:b\r\n", 0400);
    assert_int_equal (s_read (buf, &err), 0);
    assert_string_equal (buf, "hearth:a:b");
    s_write ("u:p", 0600);
    assert_int_equal (s_read (buf, &err), 0);
    assert_string_equal (buf, "u:p");
}

static void
test_mode (void **state)
{
    (void) state;
    char buf[ZKACL_AUTH_MAX + 1];
    hearth_error_t err;
    s_write ("hearth:s3cret\n", 0644);
    assert_int_equal (s_read (buf, &err), -1);
    assert_contains (err.text, "may be read by others (mode 0644): refused; "
                               "chmod 600");
    s_write ("hearth:s3cret\n", 0620);
    assert_int_equal (s_read (buf, &err), -1);
    assert_contains (err.text, "(mode 0620)");
    s_write ("hearth:s3cret\n", 0604);
    assert_int_equal (s_read (buf, &err), -1);
    /* a directory, a missing file */
    assert_int_equal (zkacl_read_auth (s_dir, buf, sizeof buf, &err), -1);
    assert_contains (err.text, "is not a regular file");
    unlink (s_path);
    assert_int_equal (s_read (buf, &err), -1);
    assert_contains (err.text, "cannot read the ZooKeeper auth file");
    assert_contains (err.text, "No such file");
}

/* Its owner: this process's user or root, else whoever owns it could
   change it (as root: a file of nobody's is refused). */
static void
test_owner (void **state)
{
    (void) state;
    char buf[ZKACL_AUTH_MAX + 1];
    hearth_error_t err;
    if (geteuid () != 0) {
        skip ();
        return;
    }
    s_write ("hearth:s3cret\n", 0600);
    assert_int_equal (chown (s_path, 65534, 65534), 0);
    assert_int_equal (s_read (buf, &err), -1);
    assert_contains (err.text, "belongs to uid 65534, neither this master's "
                               "user (uid 0) nor root: refused");
    assert_int_equal (chown (s_path, 0, 0), 0);
    assert_int_equal (s_read (buf, &err), 0);
}

/* A FIFO at its name does not block the master's start. */
static void
test_fifo (void **state)
{
    (void) state;
    char buf[ZKACL_AUTH_MAX + 1];
    hearth_error_t err;
    unlink (s_path);
    assert_int_equal (mkfifo (s_path, 0600), 0);
    assert_int_equal (s_read (buf, &err), -1);
    assert_contains (err.text, "is not a regular file");
    unlink (s_path);
}

static void
test_malformed (void **state)
{
    (void) state;
    char buf[ZKACL_AUTH_MAX + 1], line[ZKACL_AUTH_MAX + 8];
    hearth_error_t err;
    const char *bad[] = {"",          "\n",        "hearth\n",
                         ":s3cret\n", "hearth:\n", "\nhearth:s3cret\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        s_write (bad[i], 0600);
        assert_int_equal (s_read (buf, &err), -1);
        assert_contains (err.text, "holds no credentials: its first line "
                                   "must be user:password");
    }
    memset (line, 'x', sizeof line - 1);
    line[1] = ':';
    line[ZKACL_AUTH_MAX + 1] = '\0';
    s_write (line, 0600);
    assert_int_equal (s_read (buf, &err), -1);
    assert_contains (err.text, "longer than 256 bytes");
    line[ZKACL_AUTH_MAX] = '\0'; /* just fits */
    s_write (line, 0600);
    assert_int_equal (s_read (buf, &err), 0);
    assert_int_equal (strlen (buf), ZKACL_AUTH_MAX);
}

/* The rights of world:anyone in acl, 0 without such an entry. */
static int32_t
s_world (const struct ACL_vector *acl)
{
    for (int32_t i = 0; i < acl->count; i++)
        if (strcmp (acl->data[i].id.scheme, "world") == 0)
            return acl->data[i].perms;
    return 0;
}

static void
test_acls (void **state)
{
    (void) state;
    /* with credentials: the masters' identity all, everyone READ */
    const struct ACL_vector *closed = zkacl_node (true);
    assert_int_equal (closed->count, 2);
    assert_string_equal (closed->data[0].id.scheme, "auth");
    assert_int_equal (closed->data[0].perms, ZOO_PERM_ALL);
    assert_int_equal (s_world (closed), ZOO_PERM_READ);
    assert_ptr_equal (zkacl_dir (true), closed);
    /* without: nodes READ, directories READ and CREATE, for everyone */
    assert_int_equal (zkacl_node (false)->count, 1);
    assert_int_equal (s_world (zkacl_node (false)), ZOO_PERM_READ);
    assert_int_equal (s_world (zkacl_dir (false)),
                      ZOO_PERM_READ | ZOO_PERM_CREATE);
    /* what an open directory gives beyond them */
    char buf[8];
    assert_string_equal (
        zkacl_extra (&ZOO_OPEN_ACL_UNSAFE, zkacl_dir (false), buf, sizeof buf),
        "dwa");
    assert_string_equal (
        zkacl_extra (&ZOO_OPEN_ACL_UNSAFE, zkacl_dir (true), buf, sizeof buf),
        "cdwa");
    assert_string_equal (
        zkacl_extra (zkacl_dir (true), zkacl_dir (false), buf, sizeof buf), "");
    assert_string_equal (
        zkacl_extra (&ZOO_CREATOR_ALL_ACL, zkacl_dir (true), buf, sizeof buf),
        "");
}

static int
s_setup (void **state)
{
    (void) state;
    if (!mkdtemp (s_dir))
        return -1;
    snprintf (s_path, sizeof s_path, "%s/zk.auth", s_dir);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    unlink (s_path);
    return rmdir (s_dir);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_good),      cmocka_unit_test (test_mode),
        cmocka_unit_test (test_owner),     cmocka_unit_test (test_fifo),
        cmocka_unit_test (test_malformed), cmocka_unit_test (test_acls),
    };
    return cmocka_run_group_tests_name ("zkacl", tests, s_setup, s_teardown);
}

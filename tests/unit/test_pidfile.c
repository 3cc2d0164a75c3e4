/*  test_pidfile.c - unit tests of libcore/pidfile.c: the pid is written,
    a second holder is refused with the first one's pid, a stale file is
    taken over, removal deletes the file, and bad paths are reported; a
    symbolic or hard link left at the pid file's name (a shared /run or
    /tmp) is refused, the file it names untouched (libcore/safefile.h).

    Files go to a scratch directory under the build directory.
*/
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/pidfile.h"
#include "tests/unit/testutil.h"

static char s_dir[] = "test_pidfile.XXXXXX";
static char s_file[300];

static void
test_write_and_remove (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_pidfile_t *pf = hearth_pidfile_open (s_file, &err);
    assert_non_null (pf);
    assert_int_equal (hearth_pidfile_read (s_file), getpid ());
    hearth_pidfile_remove (&pf);
    assert_null (pf);
    assert_int_equal (access (s_file, F_OK), -1);
    assert_int_equal (hearth_pidfile_read (s_file), -1);
    hearth_pidfile_remove (&pf); /* NULL is fine */
}

static void
test_second_holder_refused (void **state)
{
    (void) state;
    hearth_error_t err;
    char pid[32];
    hearth_pidfile_t *first = hearth_pidfile_open (s_file, &err);
    assert_non_null (first);
    /* flock locks belong to open file descriptions: a second open in the
       same process conflicts like another process would. */
    assert_null (hearth_pidfile_open (s_file, &err));
    snprintf (pid, sizeof pid, "process %d", (int) getpid ());
    assert_contains (err.text, "is held by");
    assert_contains (err.text, pid);
    /* The refusal left the first holder's file alone. */
    assert_int_equal (hearth_pidfile_read (s_file), getpid ());
    hearth_pidfile_remove (&first);
}

static void
test_stale_file_taken_over (void **state)
{
    (void) state;
    hearth_error_t err;
    FILE *f = fopen (s_file, "w");
    assert_non_null (f);
    fputs ("999999999 and more text than a pid\n", f);
    fclose (f);
    assert_int_equal (hearth_pidfile_read (s_file), -1);
    hearth_pidfile_t *pf = hearth_pidfile_open (s_file, &err);
    assert_non_null (pf);
    assert_int_equal (hearth_pidfile_read (s_file), getpid ());
    /* Closing (a crash, as far as the file is concerned) leaves it. */
    hearth_pidfile_close (&pf);
    assert_int_equal (hearth_pidfile_read (s_file), getpid ());
    assert_non_null (pf = hearth_pidfile_open (s_file, &err));
    hearth_pidfile_remove (&pf);
}

static void
test_bad_path (void **state)
{
    (void) state;
    hearth_error_t err;
    char path[400];
    snprintf (path, sizeof path, "%s/no/such/dir/x.pid", s_dir);
    assert_null (hearth_pidfile_open (path, &err));
    assert_contains (err.text, "cannot open the pid file");
    assert_contains (err.text, "No such file or directory");
}

/* A file the links below name: its content must survive. */
static void
s_victim (const char *path)
{
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs ("precious\n", f);
    fclose (f);
}

static void
s_assert_victim (const char *path)
{
    char text[64] = "";
    FILE *f = fopen (path, "r");
    assert_non_null (f);
    assert_non_null (fgets (text, sizeof text, f));
    fclose (f);
    assert_string_equal (text, "precious\n");
}

static void
test_link_refused (void **state)
{
    (void) state;
    hearth_error_t err;
    char victim[400];
    snprintf (victim, sizeof victim, "%s/victim", s_dir);
    s_victim (victim);
    assert_int_equal (symlink ("victim", s_file), 0);
    assert_null (hearth_pidfile_open (s_file, &err));
    assert_contains (err.text, "cannot open the pid file");
    assert_contains (err.text, "symbolic link");
    s_assert_victim (victim);
    unlink (s_file);
    /* a hard link: the same file under the pid file's name */
    assert_int_equal (link (victim, s_file), 0);
    assert_null (hearth_pidfile_open (s_file, &err));
    assert_contains (err.text, "other hard links");
    s_assert_victim (victim);
    unlink (s_file);
    unlink (victim);
}

static int
s_setup (void **state)
{
    (void) state;
    hearth_test_clear_env ();
    if (!mkdtemp (s_dir))
        return -1;
    snprintf (s_file, sizeof s_file, "%s/daemon.pid", s_dir);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    unlink (s_file);
    return rmdir (s_dir);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_write_and_remove),
        cmocka_unit_test (test_second_holder_refused),
        cmocka_unit_test (test_stale_file_taken_over),
        cmocka_unit_test (test_bad_path),
        cmocka_unit_test (test_link_refused),
    };
    return cmocka_run_group_tests_name ("pidfile", tests, s_setup, s_teardown);
}

/*  test_exec_files.c - the executor's store of shipped bytes and its
    files in the work dir (executor/files.c): kept by content hash and
    linked under their names, an executable one executable, a second
    delivery replacing the first; refused, with nothing written, when the
    hash does not match, the name is not safe or is one the work dir
    holds already, or the bytes are missing.
*/
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
#include <czmq.h>

#include "executor/files.h"
#include "tests/unit/testutil.h"

/* A fresh work dir for each test. */
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

/* The SHA-1 of text, hex, into hash. */
static void
s_hash (const char *text, char *hash, size_t size)
{
    zdigest_t *d = zdigest_new ();
    zdigest_update (d, (const byte *) text, strlen (text));
    snprintf (hash, size, "%s", zdigest_string (d));
    zdigest_destroy (&d);
}

/* Ship text as name with mode; returns files_add's code. */
static int
s_add (const char *dir, const char *name, const char *text, int mode,
       const char *hash, hearth_error_t *err)
{
    char own[64];
    if (!hash) {
        s_hash (text, own, sizeof own);
        hash = own;
    }
    zframe_t *frame = zframe_new (text, strlen (text));
    int rc = files_add (dir, name, hash, mode, frame, err);
    zframe_destroy (&frame);
    return rc;
}

static char *
s_read (const char *dir, const char *name)
{
    char path[512];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    zfile_t *f = zfile_new (NULL, path);
    zchunk_t *c =
        f && zfile_input (f) == 0 ? zfile_read (f, zfile_cursize (f), 0) : NULL;
    char *text = c ? zchunk_strdup (c) : NULL;
    zchunk_destroy (&c);
    zfile_destroy (&f);
    return text;
}

static void
test_stored_and_linked (void **state)
{
    const char *dir = *state;
    hearth_error_t err;
    char hash[64], cached[512], path[512];
    assert_int_equal (s_add (dir, "data.txt", "alpha\n", 0644, NULL, &err), 0);
    char *text = s_read (dir, "data.txt");
    assert_string_equal (text, "alpha\n");
    free (text);
    s_hash ("alpha\n", hash, sizeof hash);
    snprintf (cached, sizeof cached, "%s/.files/%s-data.txt", dir, hash);
    snprintf (path, sizeof path, "%s/data.txt", dir);
    struct stat a, b;
    assert_int_equal (stat (cached, &a), 0);
    assert_int_equal (stat (path, &b), 0);
    assert_true (a.st_ino == b.st_ino); /* a link to the cache */
    assert_false (b.st_mode & S_IXUSR);
    /* an executable one stays executable */
    assert_int_equal (s_add (dir, "run.sh", "#!/bin/sh\n", 0755, NULL, &err),
                      0);
    snprintf (path, sizeof path, "%s/run.sh", dir);
    assert_int_equal (access (path, X_OK), 0);
}

static void
test_second_delivery_replaces (void **state)
{
    const char *dir = *state;
    hearth_error_t err;
    assert_int_equal (s_add (dir, "data.txt", "one\n", 0600, NULL, &err), 0);
    assert_int_equal (s_add (dir, "data.txt", "two\n", 0600, NULL, &err), 0);
    char *text = s_read (dir, "data.txt");
    assert_string_equal (text, "two\n");
    free (text);
    /* the same again: the cache is there already */
    assert_int_equal (s_add (dir, "data.txt", "two\n", 0600, NULL, &err), 0);
}

static void
test_refused (void **state)
{
    const char *dir = *state;
    hearth_error_t err;
    assert_int_equal (s_add (dir, "data.txt", "alpha\n", 0600,
                             "0123456789012345678901234567890123456789", &err),
                      -1);
    assert_contains (err.text, "does not match its hash");
    static const char *const bad[] = {"libs", "stdout", "stderr", ".hidden",
                                      "-x",   "a/b",    "",       NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal (s_add (dir, bad[i], "x", 0600, NULL, &err), -1);
        assert_contains (err.text, "file");
    }
    assert_int_equal (files_add (dir, "data.txt", "abc", 0600, NULL, &err), -1);
    assert_contains (err.text, "without its bytes");
    assert_null (s_read (dir, "data.txt")); /* nothing written */
    assert_null (s_read (dir, "libs"));
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_stored_and_linked, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_second_delivery_replaces, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_refused, s_setup, s_teardown),
    };
    return cmocka_run_group_tests_name ("exec_files", tests, NULL, NULL);
}

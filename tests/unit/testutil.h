/*  testutil.h - small helpers shared by Hearth's cmocka unit tests.

    Header-only (static inline) so that each test program stays one .c file
    plus this header.  Include it after <cmocka.h>.
*/
#ifndef HEARTH_TESTUTIL_H
#define HEARTH_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fail the test, at the caller's line, unless text contains needle. */
#define assert_contains(text, needle)                                          \
    hearth_test_contains ((text), (needle), __FILE__, __LINE__)

static inline void
hearth_test_contains (const char *text, const char *needle, const char *file,
                      int line)
{
    if (text && needle && strstr (text, needle))
        return;
    print_error ("'%s' does not contain '%s'\n", text ? text : "(null)",
                 needle ? needle : "(null)");
    _fail (file, line);
}

/* Remove every HEARTH_* variable from the environment, so that a setting
   in the shell that runs `make check` cannot change a test's outcome. */
static inline void
hearth_test_clear_env (void)
{
    extern char **environ;
    bool again = true;
    while (again) {
        again = false;
        for (char **e = environ; e && *e; e++) {
            if (strncmp (*e, "HEARTH_", 7) != 0)
                continue;
            char name[256];
            size_t n = strcspn (*e, "=");
            snprintf (name, sizeof name, "%.*s", (int) n, *e);
            unsetenv (name);
            again = true; /* environ changed under us: rescan */
            break;
        }
    }
}

/* A fresh scratch directory under the current (build) directory, made
   from template ("test_x.XXXXXX", modified in place).  Returns template. */
static inline char *
hearth_test_tmpdir (char *template_)
{
    if (!mkdtemp (template_)) {
        print_error ("mkdtemp %s failed\n", template_);
        _fail (__FILE__, __LINE__);
    }
    return template_;
}

/* Remove dir and everything under it (a test's scratch directory): 0,
   or -1 (a group teardown's failure). */
static inline int
hearth_test_rmtree (const char *dir)
{
    char cmd[300];
    if (snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir) >= (int) sizeof cmd)
        return -1;
    return system (cmd) == 0 ? 0 : -1;
}

#endif

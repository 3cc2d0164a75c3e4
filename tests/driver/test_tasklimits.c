/*  test_tasklimits.c - the limits of one task (libhearth/tasklimits.c), on
    the templates of a group: each limit at its edge and one byte past,
    the first task whose "{i}" grows past a limit (the first index of
    some number of digits), the first task over any limit when several
    are broken, and the words of each refusal.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/proto.h"
#include "libhearth/tasklimits.h"
#include "tests/unit/testutil.h"

/* A string of n bytes of c, then tail (freed by the caller). */
static char *
s_text (size_t n, char c, const char *tail)
{
    char *t = malloc (n + strlen (tail) + 1);
    memset (t, c, n);
    strcpy (t + n, tail);
    return t;
}

/* argv {"echo", arg}, count copies: 0, or -1 with *over. */
static int
s_echo (const char *arg, uint64_t count, tasklimit_t *over)
{
    const char *const argv[] = {"echo", arg, NULL};
    return tasklimits_command (argv, NULL, count, over);
}

static void
test_argument_edge (void **state)
{
    (void) state;
    tasklimit_t over;
    char *arg = s_text (HEARTH_TASK_ARG_MAX, 'a', "");
    assert_int_equal (s_echo (arg, 1, &over), 0);
    free (arg);
    arg = s_text (HEARTH_TASK_ARG_MAX + 1, 'a', "");
    assert_int_equal (s_echo (arg, 5, &over), -1);
    assert_int_equal (over.index, 0);
    assert_string_equal (over.text, "cmd[1] is 65537 bytes, over the 65536 "
                                    "a command's argument may be");
    free (arg);
    /* the 120,000 bytes */
    arg = s_text (120000, 'a', "");
    assert_int_equal (s_echo (arg, 1, &over), -1);
    assert_contains (over.text, "cmd[1] is 120000 bytes");
    free (arg);
}

/* "{i}" renders to the index's digits: the first task over is the first
   index with enough of them, and only if the group has it. */
static void
test_index_growth (void **state)
{
    (void) state;
    tasklimit_t over;
    /* 65,533 bytes + "{i}": 65,534 for 0..9, 65,535 for 10..99, 65,536
       for 100..999, 65,537 from 1000 */
    char *arg = s_text (HEARTH_TASK_ARG_MAX - 3, 'a', "{i}");
    assert_int_equal (s_echo (arg, 1000, &over), 0);
    assert_int_equal (s_echo (arg, 1001, &over), -1);
    assert_int_equal (over.index, 1000);
    assert_contains (over.text, "cmd[1] is 65537 bytes");
    free (arg);
    /* two of them grow twice as fast: 65,531 + 2 x digits */
    arg = s_text (HEARTH_TASK_ARG_MAX - 5, 'a', "{i}{i}");
    assert_int_equal (s_echo (arg, 100, &over), 0);
    assert_int_equal (s_echo (arg, 101, &over), -1);
    assert_int_equal (over.index, 100);
    free (arg);
    /* over already at index 0 */
    arg = s_text (HEARTH_TASK_ARG_MAX, 'a', "{i}");
    assert_int_equal (s_echo (arg, 3, &over), -1);
    assert_int_equal (over.index, 0);
    assert_contains (over.text, "cmd[1] is 65537 bytes");
    free (arg);
    /* "{i" or "i}" alone are text, not the index */
    arg = s_text (HEARTH_TASK_ARG_MAX - 2, 'a', "{i");
    assert_int_equal (s_echo (arg, 1000000, &over), 0);
    free (arg);
}

static void
test_argv_count (void **state)
{
    (void) state;
    tasklimit_t over;
    const char **argv = calloc (HEARTH_TASK_ARGV_MAX + 2, sizeof *argv);
    for (int i = 0; i < HEARTH_TASK_ARGV_MAX; i++)
        argv[i] = i ? "" : "echo"; /* empty arguments are fine */
    assert_int_equal (tasklimits_command (argv, NULL, 1, &over), 0);
    argv[HEARTH_TASK_ARGV_MAX] = "x";
    assert_int_equal (tasklimits_command (argv, NULL, 1, &over), -1);
    assert_string_equal (over.text, "cmd has 4097 strings, over the 4096 a "
                                    "command may have");
    free (argv);
    const char *const empty[] = {"", "x", NULL};
    assert_int_equal (tasklimits_command (empty, NULL, 1, &over), -1);
    assert_string_equal (over.text,
                         "cmd[0] is empty: a command needs a program");
}

static void
test_environment (void **state)
{
    (void) state;
    tasklimit_t over;
    const char *const argv[] = {"env", NULL};
    const char *bad[][2] = {{"NOEQUALS", "env[0] is not NAME=VALUE (no '=')"},
                            {"=v", "env[0] is not NAME=VALUE (an empty name)"}};
    for (size_t i = 0; i < 2; i++) {
        const char *const env[] = {bad[i][0], NULL};
        assert_int_equal (tasklimits_command (argv, env, 1, &over), -1);
        assert_string_equal (over.text, bad[i][1]);
    }
    char *value = s_text (HEARTH_TASK_ARG_MAX, 'v', "");
    char *entry = malloc (HEARTH_TASK_ARG_MAX + 8);
    strcpy (entry, "A=");
    strcat (entry, value);
    const char *env[] = {"B=1", entry, NULL};
    assert_int_equal (tasklimits_command (argv, env, 1, &over), 0);
    strcat (entry, "v");
    assert_int_equal (tasklimits_command (argv, env, 1, &over), -1);
    assert_string_equal (over.text, "env[1]'s value is 65537 bytes, over the "
                                    "65536 an environment variable's value "
                                    "may be");
    char *name = s_text (HEARTH_TASK_ENV_NAME_MAX + 1, 'N', "=1");
    env[1] = name;
    assert_int_equal (tasklimits_command (argv, env, 1, &over), -1);
    assert_contains (over.text, "env[1]'s name is 256 bytes, over the 255");
    free (name);
    free (entry);
    free (value);
    const char **many = calloc (HEARTH_TASK_ENV_MAX + 2, sizeof *many);
    for (int i = 0; i <= HEARTH_TASK_ENV_MAX; i++)
        many[i] = "K=V";
    assert_int_equal (tasklimits_command (argv, many, 1, &over), -1);
    assert_string_equal (over.text, "env has 1025 entries, over the 1024 a "
                                    "command's environment may have");
    many[HEARTH_TASK_ENV_MAX] = NULL;
    assert_int_equal (tasklimits_command (argv, many, 1, &over), 0);
    free (many);
}

/* argv and env together: at most TASKLIMITS_COMMAND_BYTES, each string
   counted with its NUL. */
static void
test_command_total (void **state)
{
    (void) state;
    tasklimit_t over;
    enum { n = 40 };
    const char *argv[n + 2] = {"sh"};
    char *arg = s_text (HEARTH_TASK_ARG_MAX - 1, 'a', ""); /* 65,536 with NUL */
    for (int i = 1; i <= n; i++)
        argv[i] = arg;
    /* "sh" (3) + 40 x 65,536 = 2,621,443 > 2,097,152 */
    assert_int_equal (tasklimits_command (argv, NULL, 1, &over), -1);
    assert_string_equal (over.text,
                         "cmd and env are 2621443 bytes together, over the "
                         "2097152 a command's arguments and environment may "
                         "be (Linux's ARG_MAX)");
    argv[32] = NULL; /* 3 + 31 x 65,536 = 2,031,619 */
    assert_int_equal (tasklimits_command (argv, NULL, 1, &over), 0);
    const char *const env[] = {"E={i}", NULL};
    char *fill = s_text (TASKLIMITS_COMMAND_BYTES - 2031619 - 4 - 1, 'f', "");
    argv[32] = fill; /* exactly the limit with env "E=0": 2,097,152 */
    argv[33] = NULL;
    assert_int_equal (tasklimits_command (argv, env, 10, &over), 0);
    assert_int_equal (tasklimits_command (argv, env, 11, &over), -1);
    assert_int_equal (over.index, 10);
    assert_contains (over.text, "cmd and env are 2097153 bytes together");
    free (fill);
    free (arg);
}

/* The first task over any limit is told, whatever limit it breaks; of
   one task, the first limit checked (argv, then env, then the total). */
static void
test_first_task_wins (void **state)
{
    (void) state;
    tasklimit_t over;
    char *arg = s_text (HEARTH_TASK_ARG_MAX - 1, 'a', "{i}"); /* from 10 */
    const char *const argv[] = {"echo", arg, NULL};
    char *entry = malloc (HEARTH_TASK_ARG_MAX + 16);
    /* its value over from 100 (65,534 + digits), from 10, from 0 */
    const struct {
        size_t value;
        uint64_t index;
        const char *field;
    } cases[] = {{HEARTH_TASK_ARG_MAX - 2, 10, "cmd[1]"},
                 {HEARTH_TASK_ARG_MAX - 1, 10, "cmd[1]"},
                 {HEARTH_TASK_ARG_MAX, 0, "env[0]"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *value = s_text (cases[i].value, 'v', "{i}");
        sprintf (entry, "V=%s", value);
        const char *const env[] = {entry, NULL};
        assert_int_equal (tasklimits_command (argv, env, 1000, &over), -1);
        assert_int_equal (over.index, cases[i].index);
        assert_contains (over.text, cases[i].field);
        free (value);
    }
    free (entry);
    free (arg);
}

static void
test_functions (void **state)
{
    (void) state;
    tasklimit_t over;
    /* an argument far over what a body carries is fine: it has a frame */
    char *arg = s_text (HEARTH_TASK_ARG_FRAME_MAX, 'a', "");
    assert_int_equal (tasklimits_function ("f", arg, 3, &over), 0);
    free (arg);
    arg = s_text (HEARTH_TASK_ARG_FRAME_MAX - 1, 'a', "{i}");
    assert_int_equal (tasklimits_function ("f", arg, 10, &over), 0);
    assert_int_equal (tasklimits_function ("f", arg, 11, &over), -1);
    assert_int_equal (over.index, 10);
    assert_string_equal (over.text, "arg is 67108865 bytes, over the "
                                    "67108864 a function's argument may be");
    free (arg);
    assert_int_equal (tasklimits_function ("f", NULL, 1, &over), 0);
    char *fn = s_text (HEARTH_TASK_FN_MAX + 1, 'f', "");
    assert_int_equal (tasklimits_function (fn, "", 1, &over), -1);
    assert_string_equal (over.text, "fn is 256 bytes, not 1 to 255 as a "
                                    "function's name");
    free (fn);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_argument_edge),
        cmocka_unit_test (test_index_growth),
        cmocka_unit_test (test_argv_count),
        cmocka_unit_test (test_environment),
        cmocka_unit_test (test_command_total),
        cmocka_unit_test (test_first_task_wins),
        cmocka_unit_test (test_functions),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

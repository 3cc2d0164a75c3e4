/*  test_conf.c - unit tests of layered settings (libcore/conf.c): flags
    beat HEARTH_* variables beat config files beat defaults, for every
    option type; --conf FILE and --conf KEY=VALUE; list and alias options;
    and every error a user can make, which must name the option and where
    the bad value came from.

    Config files are written into a scratch directory under the build
    directory; every HEARTH_* variable is cleared before each test.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/conf.h"
#include "libcore/log.h"
#include "libcore/start.h"
#include "libcore/units.h"
#include "tests/unit/conf_testing.h"
#include "tests/unit/testutil.h"

static hearth_opt_type_t
s_type (const char *name)
{
    for (const hearth_opt_t *o = ct_opts; o->name; o++)
        if (strcmp (o->name, name) == 0)
            return o->type;
    fail_msg ("test bug: no option %s", name);
    return HEARTH_OPT_STR;
}

/* The typed value of an option, read with the reader of its type. */
static int64_t
s_number (const hearth_conf_t *conf, const char *name)
{
    switch (s_type (name)) {
    case HEARTH_OPT_INT:
        return hearth_conf_int (conf, name);
    case HEARTH_OPT_BOOL:
        return hearth_conf_bool (conf, name);
    case HEARTH_OPT_SIZE:
    case HEARTH_OPT_MEMORY:
        return (int64_t) hearth_conf_bytes (conf, name);
    case HEARTH_OPT_DURATION:
        return hearth_conf_ms (conf, name);
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------------
   Precedence */

/* One option's value at each level, as text and as its typed value. */
typedef struct {
    const char *name;    /* option */
    const char *env;     /* its environment variable */
    const char *text[4]; /* default, file, env, flag ("" flag: bare) */
    int64_t number[4];   /* the typed values (not for strings) */
} s_levels_t;

static const s_levels_t s_levels[] = {
    {"name",
     "HEARTH_NAME",
     {"hearth", "from-file", "from-env", "from-flag"},
     {0}},
    {"port",
     "HEARTH_PORT",
     {"7077", "1001", "1002", "1003"},
     {7077, 1001, 1002, 1003}},
    {"verbose", "HEARTH_VERBOSE", {"false", "yes", "off", ""}, {0, 1, 0, 1}},
    {"max-result",
     "HEARTH_MAX_RESULT",
     {"1M", "2M", "3K", "4G"},
     {1 << 20, 2 << 20, 3 << 10, 4LL << 30}},
    {"memory",
     "HEARTH_MEMORY",
     {"1G", "512", "2G", "768M"},
     {1 << 30, 512 << 20, 2LL << 30, 768 << 20}},
    {"heartbeat-interval",
     "HEARTH_HEARTBEAT_INTERVAL",
     {"1s", "2s", "500ms", "1m"},
     {1000, 2000, 500, 60000}},
};

/* Parse with the levels up to top (0 default .. 3 flag) for option l and
   check the winner. */
static void
s_check_level (const s_levels_t *l, int top)
{
    char line[128], flag[128];
    snprintf (line, sizeof line, "# settings\n%s = %s\n", l->name, l->text[1]);
    const char *file = ct_file ("levels.conf", line);
    if (top >= 2)
        setenv (l->env, l->text[2], 1);
    if (*l->text[3])
        snprintf (flag, sizeof flag, "--%s=%s", l->name, l->text[3]);
    else
        snprintf (flag, sizeof flag, "--%s", l->name);
    const char *argv[] = {PROGRAM, "--conf", file, flag, NULL};
    if (top < 3)
        argv[3] = NULL;
    if (top < 1)
        argv[1] = NULL;
    hearth_conf_t *conf = ct_parse (argv, NULL);
    static const hearth_src_t srcs[] = {HEARTH_SRC_DEFAULT, HEARTH_SRC_FILE,
                                        HEARTH_SRC_ENV, HEARTH_SRC_FLAG};
    assert_int_equal (hearth_conf_source (conf, l->name), srcs[top]);
    assert_true (hearth_conf_isset (conf, l->name));
    if (s_type (l->name) == HEARTH_OPT_STR
        || s_type (l->name) == HEARTH_OPT_LABEL)
        assert_string_equal (hearth_conf_str (conf, l->name), l->text[top]);
    else if (s_number (conf, l->name) != l->number[top])
        fail_msg ("%s at level %d: %lld, expected %lld", l->name, top,
                  (long long) s_number (conf, l->name),
                  (long long) l->number[top]);
    hearth_conf_destroy (&conf);
    unsetenv (l->env);
}

static void
test_precedence_each_type (void **state)
{
    (void) state;
    for (size_t i = 0; i < sizeof s_levels / sizeof s_levels[0]; i++)
        for (int top = 0; top < 4; top++)
            s_check_level (&s_levels[i], top);
}

/* A flag beats a file when no variable is set, and a variable beats a
   file whatever the order they are read in. */
static void
test_flag_beats_file (void **state)
{
    (void) state;
    const char *file = ct_file ("a.conf", "port = 2000\nname = file\n");
    setenv ("HEARTH_NAME", "env", 1);
    const char *argv[] = {PROGRAM, "--port", "3000", "--conf", file, NULL};
    hearth_conf_t *conf = ct_parse (argv, NULL);
    assert_int_equal (hearth_conf_int (conf, "port"), 3000);
    assert_string_equal (hearth_conf_str (conf, "name"), "env");
    hearth_conf_destroy (&conf);
}

static void
test_list_precedence (void **state)
{
    (void) state;
    const char *const *items;
    const char *file = ct_file ("lib.conf", "lib = a.so\nlib = b.so\n");
    const char *none[] = {PROGRAM, NULL};
    hearth_conf_t *conf = ct_parse (none, NULL);
    assert_int_equal (hearth_conf_list (conf, "lib", &items), 0);
    assert_false (hearth_conf_isset (conf, "lib"));
    hearth_conf_destroy (&conf);

    const char *with_file[] = {PROGRAM, "--conf", file, NULL};
    conf = ct_parse (with_file, NULL);
    assert_int_equal (hearth_conf_list (conf, "lib", &items), 2);
    assert_string_equal (items[0], "a.so");
    assert_string_equal (items[1], "b.so");
    hearth_conf_destroy (&conf);

    setenv ("HEARTH_LIB", "c.so", 1);
    conf = ct_parse (with_file, NULL);
    assert_int_equal (hearth_conf_list (conf, "lib", &items), 1);
    assert_string_equal (items[0], "c.so");
    hearth_conf_destroy (&conf);

    const char *flags[] = {PROGRAM,      "--lib",  "d.so",     "--conf", file,
                           "--lib=e.so", "--conf", "lib=f.so", NULL};
    conf = ct_parse (flags, NULL);
    assert_int_equal (hearth_conf_list (conf, "lib", &items), 3);
    assert_string_equal (items[0], "d.so");
    assert_string_equal (items[1], "e.so");
    assert_string_equal (items[2], "f.so");
    assert_int_equal (hearth_conf_source (conf, "lib"), HEARTH_SRC_FLAG);
    hearth_conf_destroy (&conf);
}

/* ---------------------------------------------------------------------
   Files */

static void
test_conf_file_syntax (void **state)
{
    (void) state;
    const char *file = ct_file ("syntax.conf", "# a comment\n"
                                               "\n"
                                               "   port=10   # trailing\n"
                                               "name =  a b c  \n"
                                               "no-such-key = ignored\n"
                                               "memory = 2G\n");
    const char *argv[] = {PROGRAM, "--conf", file, NULL};
    hearth_conf_t *conf = ct_parse (argv, NULL);
    assert_int_equal (hearth_conf_int (conf, "port"), 10);
    assert_string_equal (hearth_conf_str (conf, "name"), "a b c");
    assert_int_equal (hearth_conf_bytes (conf, "memory"), 2 * HEARTH_GiB);
    const char *const *extras;
    assert_int_equal (hearth_conf_extras (conf, &extras), 0);
    hearth_conf_destroy (&conf);
}

static void
test_hearth_conf_env (void **state)
{
    (void) state;
    const char *one = ct_file ("one.conf", "port = 1111\nname = one\n");
    const char *two = ct_file ("two.conf", "port = 2222\n");
    setenv ("HEARTH_CONF", one, 1);
    const char *none[] = {PROGRAM, NULL};
    hearth_conf_t *conf = ct_parse (none, NULL);
    assert_int_equal (hearth_conf_int (conf, "port"), 1111);
    assert_int_equal (hearth_conf_source (conf, "port"), HEARTH_SRC_FILE);
    hearth_conf_destroy (&conf);

    /* --conf FILE replaces HEARTH_CONF */
    const char *argv[] = {PROGRAM, "--conf", two, NULL};
    conf = ct_parse (argv, NULL);
    assert_int_equal (hearth_conf_int (conf, "port"), 2222);
    assert_string_equal (hearth_conf_str (conf, "name"), "hearth");
    hearth_conf_destroy (&conf);

    /* several files: read in order, the last one wins */
    unsetenv ("HEARTH_CONF");
    const char *both[] = {PROGRAM, "--conf", one, "--conf", two, NULL};
    conf = ct_parse (both, NULL);
    assert_int_equal (hearth_conf_int (conf, "port"), 2222);
    assert_string_equal (hearth_conf_str (conf, "name"), "one");
    hearth_conf_destroy (&conf);
}

static void
test_bad_file (void **state)
{
    (void) state;
    char text[300];
    const char *file = ct_file ("bad.conf", "port = 9\njust some words\n");
    snprintf (text, sizeof text, "%s:2: expected 'key = value'", file);
    const char *argv[] = {PROGRAM, "--conf", file, NULL};
    ct_parse_fails (argv, text);

    file = ct_file ("value.conf", "# x\nheartbeat-interval = soon\n");
    snprintf (text, sizeof text,
              "%s:2: config file: bad value for heartbeat-interval: 'soon' "
              "is not a duration (expected e.g. 500ms or 5s)",
              file);
    argv[2] = file;
    ct_parse_fails (argv, text);

    snprintf (text, sizeof text, "%s/missing.conf", ct_dir);
    argv[2] = text;
    char want[400];
    snprintf (want, sizeof want,
              "cannot read config file %s: No such file or directory", text);
    ct_parse_fails (argv, want);
}

/* ---------------------------------------------------------------------
   The defaults file */

/* Parse argv with the defaults file at path (strict or not) into a new
   conf; -1 (with err) or the first positional's index into *rc. */
static hearth_conf_t *
s_parse_defaults (const char **argv, const char *path, bool strict, int *rc,
                  hearth_error_t *err)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    hearth_conf_t *conf = hearth_conf_new (PROGRAM, ct_opts);
    assert_non_null (conf);
    assert_int_equal (hearth_conf_use_defaults (conf, path, strict), 0);
    *rc = hearth_conf_parse (conf, argc, (char **) argv, err);
    return conf;
}

/* Flags beat the environment, which beats --conf FILE, which beats the
   defaults file, which beats the built-in defaults: each level wins when
   it is the strongest one given. */
static void
test_defaults_file_precedence (void **state)
{
    (void) state;
    hearth_error_t err;
    int rc;
    const char *dflt = ct_file ("defaults.conf", "port = 1001\nname = dfile\n"
                                                 "memory = 2G\nretries = 7\n"
                                                 "lib = a.so,b.so\n");
    const char *file = ct_file ("a.conf", "port = 1002\nname = file\n");
    setenv ("HEARTH_NAME", "env", 1);
    setenv ("HEARTH_MEMORY", "3G", 1);
    const char *argv[] = {PROGRAM, "--conf", file, "--memory", "4G", NULL};
    hearth_conf_t *conf = s_parse_defaults (argv, dflt, false, &rc, &err);
    assert_int_equal (rc, 5);
    /* memory: flag, over environment and defaults file */
    assert_int_equal (hearth_conf_bytes (conf, "memory"), 4 * HEARTH_GiB);
    /* name: environment, over --conf file and defaults file */
    assert_string_equal (hearth_conf_str (conf, "name"), "env");
    assert_int_equal (hearth_conf_source (conf, "name"), HEARTH_SRC_ENV);
    /* port: --conf file, over the defaults file */
    assert_int_equal (hearth_conf_int (conf, "port"), 1002);
    /* retries: only in the defaults file, over nothing */
    assert_int_equal (hearth_conf_int (conf, "retries"), 7);
    assert_int_equal (hearth_conf_source (conf, "retries"),
                      HEARTH_SRC_DEFAULTS_FILE);
    const char *const *items;
    assert_int_equal (hearth_conf_list (conf, "lib", &items), 2);
    assert_string_equal (items[1], "b.so");
    /* policy: the built-in default, in no file */
    assert_string_equal (hearth_conf_str (conf, "policy"), "spread");
    assert_int_equal (hearth_conf_source (conf, "policy"), HEARTH_SRC_DEFAULT);
    hearth_conf_destroy (&conf);

    /* without the defaults file asked for, it is not read */
    const char *none[] = {PROGRAM, NULL};
    conf = ct_parse (none, NULL);
    assert_int_equal (hearth_conf_source (conf, "retries"), HEARTH_SRC_UNSET);
    hearth_conf_destroy (&conf);
}

/* Where the defaults file is, and what a missing or bad one does. */
static void
test_defaults_file_errors (void **state)
{
    (void) state;
    hearth_error_t err;
    int rc;
    char path[300], want[600];
    setenv ("HEARTH_CONF_DIR", "/etc/elsewhere", 1);
    assert_string_equal (hearth_conf_defaults_path (path, sizeof path),
                         "/etc/elsewhere/hearth-defaults.conf");
    unsetenv ("HEARTH_CONF_DIR");
    assert_string_equal (hearth_conf_defaults_path (path, sizeof path),
                         HEARTH_SYSCONFDIR "/hearth/hearth-defaults.conf");

    /* no such file: no defaults, no error */
    snprintf (path, sizeof path, "%s/no-defaults.conf", ct_dir);
    const char *argv[] = {PROGRAM, NULL};
    hearth_conf_t *conf = s_parse_defaults (argv, path, true, &rc, &err);
    assert_int_equal (rc, 1);
    hearth_conf_destroy (&conf);

    /* a bad line names the file and the line */
    const char *bad = ct_file ("defaults.conf", "# ok\nport = 1\nport: 2\n");
    conf = s_parse_defaults (argv, bad, false, &rc, &err);
    assert_int_equal (rc, -1);
    snprintf (want, sizeof want, "%s:3: expected 'key = value'", bad);
    assert_string_equal (err.text, want);
    hearth_conf_destroy (&conf);
    bad = ct_file ("defaults.conf", "\nport = 70000\n");
    conf = s_parse_defaults (argv, bad, false, &rc, &err);
    assert_int_equal (rc, -1);
    snprintf (want, sizeof want,
              "%s:2: defaults file: bad value for port: ", bad);
    assert_contains (err.text, want);
    hearth_conf_destroy (&conf);

    /* an unknown key: ignored, unless strict; a flag-only option is not
       a setting a file may hold */
    bad = ct_file ("defaults.conf", "port = 5\nprot = 6\nstate = RUNNING\n");
    conf = s_parse_defaults (argv, bad, false, &rc, &err);
    assert_int_equal (rc, 1);
    assert_int_equal (hearth_conf_int (conf, "port"), 5);
    assert_false (hearth_conf_isset (conf, "state"));
    hearth_conf_destroy (&conf);
    conf = s_parse_defaults (argv, bad, true, &rc, &err);
    assert_int_equal (rc, -1);
    snprintf (want, sizeof want,
              "%s:2: unknown setting 'prot' (" PROGRAM " --help lists them)",
              bad);
    assert_string_equal (err.text, want);
    hearth_conf_destroy (&conf);

    /* --help is answered whatever the defaults file holds */
    const char *help[] = {PROGRAM, "--help", NULL};
    conf = s_parse_defaults (help, bad, true, &rc, &err);
    assert_true (rc >= 0);
    assert_true (hearth_conf_wants_help (conf));
    hearth_conf_destroy (&conf);
}

/* A flag-only option comes from the command line alone; more flags can be
   parsed after a subcommand. */
static void
test_flag_only_and_more (void **state)
{
    (void) state;
    setenv ("HEARTH_STATE", "FROM-ENV", 1);
    const char *argv[] = {PROGRAM,   "--port",  "9",      "list",
                          "--state", "RUNNING", "--name", "n",
                          "ID1",     "--bad",   NULL};
    int first;
    hearth_conf_t *conf = ct_parse (argv, &first);
    assert_int_equal (first, 3);
    assert_false (hearth_conf_isset (conf, "state"));
    hearth_error_t err;
    int next = hearth_conf_parse_more (conf, 10, (char **) argv, 4, &err);
    assert_int_equal (next, 8);
    assert_string_equal (hearth_conf_str (conf, "state"), "RUNNING");
    assert_string_equal (hearth_conf_str (conf, "name"), "n");
    assert_int_equal (hearth_conf_int (conf, "port"), 9);
    assert_int_equal (
        hearth_conf_parse_more (conf, 10, (char **) argv, 9, &err), -1);
    assert_contains (err.text, "unknown option --bad");
    hearth_conf_destroy (&conf);
}

/* ---------------------------------------------------------------------
   --conf KEY=VALUE */

static void
test_conf_key_value (void **state)
{
    (void) state;
    setenv ("HEARTH_PORT", "5", 1);
    const char *argv[] = {PROGRAM,  "--conf",           "port=1234",
                          "--conf", "speculation=true", "--conf=max-failures=8",
                          "--conf", "consolidate=",     NULL};
    hearth_conf_t *conf = ct_parse (argv, NULL);
    assert_int_equal (hearth_conf_int (conf, "port"), 1234);
    assert_int_equal (hearth_conf_source (conf, "port"), HEARTH_SRC_FLAG);
    assert_string_equal (hearth_conf_str (conf, "policy"), "consolidate");
    const char *const *extras;
    assert_int_equal (hearth_conf_extras (conf, &extras), 2);
    assert_string_equal (extras[0], "speculation=true");
    assert_string_equal (extras[1], "max-failures=8");
    hearth_conf_destroy (&conf);

    const char *bad[] = {PROGRAM, "--conf", "port=x", NULL};
    ct_parse_fails (bad, "command line: bad value for port: 'x' is not a "
                         "whole number");
    const char *nokey[] = {PROGRAM, "--conf", "=x", NULL};
    ct_parse_fails (nokey, "--conf =x: expected KEY=VALUE or FILE");
}

/* A strict program (hearth-submit, hearth-master) refuses what --conf
   gives that it does not know, on the command line and in a file, where
   another keeps the key (KEY=VALUE) or ignores it (a file). */
static void
test_conf_strict (void **state)
{
    (void) state;
    const char *argv[] = {PROGRAM, "--conf", "speculaton=true", NULL};
    hearth_error_t err;
    hearth_conf_t *conf = hearth_conf_new (PROGRAM, ct_opts);
    hearth_conf_strict (conf);
    assert_int_equal (hearth_conf_parse (conf, 3, (char **) argv, &err), -1);
    assert_string_equal (err.text, "--conf speculaton: unknown setting "
                                   "'speculaton' (" PROGRAM " --help lists "
                                   "them)");
    hearth_conf_destroy (&conf);

    char path[512];
    snprintf (path, sizeof path, "%s/typo.conf", ct_dir);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs ("port = 1234\nexector-memory = 2G\n", f);
    fclose (f);
    const char *file[] = {PROGRAM, "--conf", path, NULL};
    conf = hearth_conf_new (PROGRAM, ct_opts);
    hearth_conf_strict (conf);
    assert_int_equal (hearth_conf_parse (conf, 3, (char **) file, &err), -1);
    assert_contains (err.text, "typo.conf:2: unknown setting "
                               "'exector-memory'");
    hearth_conf_destroy (&conf);
    /* not strict: the file's unknown key is ignored, its known ones read */
    conf = ct_parse (file, NULL);
    assert_int_equal (hearth_conf_int (conf, "port"), 1234);
    hearth_conf_destroy (&conf);
    unlink (path);
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup (test_precedence_each_type, ct_setup),
        cmocka_unit_test_setup (test_flag_beats_file, ct_setup),
        cmocka_unit_test_setup (test_list_precedence, ct_setup),
        cmocka_unit_test_setup (test_conf_file_syntax, ct_setup),
        cmocka_unit_test_setup (test_hearth_conf_env, ct_setup),
        cmocka_unit_test_setup (test_bad_file, ct_setup),
        cmocka_unit_test_setup (test_defaults_file_precedence, ct_setup),
        cmocka_unit_test_setup (test_defaults_file_errors, ct_setup),
        cmocka_unit_test_setup (test_flag_only_and_more, ct_setup),
        cmocka_unit_test_setup (test_conf_key_value, ct_setup),
        cmocka_unit_test_setup (test_conf_strict, ct_setup),
    };
    return cmocka_run_group_tests_name ("conf", tests, ct_group_setup,
                                        ct_group_teardown);
}

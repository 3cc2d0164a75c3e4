/*  test_conf_flags.c - settings from the command line (libcore/conf.c):
    aliases, boolean flags, bad values, unknown and missing options,
    --help and --version, the stop at the first positional, and the API's
    setters, readers, usage and start-up.  Every error must name the
    option and where the bad value came from.  The option table and the
    helpers are conf_testing.h's.
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

/* ---------------------------------------------------------------------
   Flags */

static void
test_alias (void **state)
{
    (void) state;
    setenv ("HEARTH_POLICY", "spread-out", 1);
    const char *env_only[] = {PROGRAM, NULL};
    hearth_conf_t *conf = ct_parse (env_only, NULL);
    assert_string_equal (hearth_conf_str (conf, "policy"), "spread-out");
    hearth_conf_destroy (&conf);

    const char *argv[] = {PROGRAM, "--consolidate", NULL};
    conf = ct_parse (argv, NULL);
    assert_string_equal (hearth_conf_str (conf, "policy"), "consolidate");
    assert_int_equal (hearth_conf_source (conf, "policy"), HEARTH_SRC_FLAG);
    hearth_conf_destroy (&conf);

    const char *value[] = {PROGRAM, "--consolidate=yes", NULL};
    ct_parse_fails (value, "option --consolidate takes no value");
}

static void
test_bool_flags (void **state)
{
    (void) state;
    static const struct {
        const char *arg;
        bool value;
    } cases[] = {
        {"--verbose", true},        {"--verbose=true", true},
        {"--verbose=false", false}, {"--verbose=no", false},
        {"--verbose=ON", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[] = {PROGRAM, cases[i].arg, NULL};
        hearth_conf_t *conf = ct_parse (argv, NULL);
        assert_int_equal (hearth_conf_bool (conf, "verbose"), cases[i].value);
        assert_int_equal (hearth_conf_source (conf, "verbose"),
                          HEARTH_SRC_FLAG);
        hearth_conf_destroy (&conf);
    }
    /* a bool flag never takes the next argument as its value */
    const char *sep[] = {PROGRAM, "--verbose", "false", NULL};
    int first;
    hearth_conf_t *conf = ct_parse (sep, &first);
    assert_true (hearth_conf_bool (conf, "verbose"));
    assert_int_equal (first, 2);
    hearth_conf_destroy (&conf);

    const char *bad[] = {PROGRAM, "--verbose=maybe", NULL};
    ct_parse_fails (bad, "command line: bad value for verbose: 'maybe' is not "
                         "a boolean (expected true or false)");
}

static void
test_bad_values (void **state)
{
    (void) state;
    const char *port[] = {PROGRAM, "--port", "0", NULL};
    ct_parse_fails (port, "command line: bad value for port: 0 is out of "
                          "range (1 to 65535)");
    const char *mem[] = {PROGRAM, "--memory=12X", NULL};
    ct_parse_fails (mem, "command line: bad value for memory: '12X': unknown "
                         "size unit 'X' (expected K, M, G or T)");
    const char *none[] = {PROGRAM, NULL};
    setenv ("HEARTH_MEMORY", "lots", 1);
    ct_parse_fails (none, "environment: bad value for memory: 'lots' is not a "
                          "size (expected e.g. 512M or 2G) (from "
                          "HEARTH_MEMORY)");
    /* without an error structure the failure is still reported */
    hearth_conf_t *conf = hearth_conf_new (PROGRAM, ct_opts);
    assert_int_equal (hearth_conf_parse (conf, 1, (char **) none, NULL), -1);
    hearth_conf_destroy (&conf);
    unsetenv ("HEARTH_MEMORY");
    setenv ("HEARTH_RETRIES", "-5", 1);
    conf = ct_parse (none, NULL);
    assert_int_equal (hearth_conf_int (conf, "retries"), -5);
    hearth_conf_destroy (&conf);
}

/* A name (HEARTH_OPT_LABEL) holds no control character, from any source;
   other text may. */
static void
test_label_values (void **state)
{
    (void) state;
    const char *nl[] = {PROGRAM, "--name", "evil\nforged", NULL};
    ct_parse_fails (nl, "command line: bad value for name: a control "
                        "character (\\n) at byte 4: a name may hold none");
    const char *none[] = {PROGRAM, NULL};
    setenv ("HEARTH_NAME", "red\x1b[31m", 1);
    ct_parse_fails (none, "environment: bad value for name: a control "
                          "character (\\x1b) at byte 3: a name may hold "
                          "none (from HEARTH_NAME)");
    unsetenv ("HEARTH_NAME");
    const char *ok[] = {PROGRAM,    "--name", "caf\xc3\xa9 nightly",
                        "--policy", "a\tb",   NULL};
    hearth_conf_t *conf = ct_parse (ok, NULL);
    assert_string_equal (hearth_conf_str (conf, "name"), "caf\xc3\xa9 nightly");
    assert_string_equal (hearth_conf_str (conf, "policy"), "a\tb");
    hearth_conf_destroy (&conf);
}

static void
test_unknown_and_missing (void **state)
{
    (void) state;
    const char *unknown[] = {PROGRAM, "--frobnicate", NULL};
    ct_parse_fails (unknown, "unknown option --frobnicate (see test-conf "
                             "--help)");
    const char *unknown_eq[] = {PROGRAM, "--frob=1", NULL};
    ct_parse_fails (unknown_eq, "unknown option --frob (see test-conf --help)");
    const char *shortopt[] = {PROGRAM, "-x", NULL};
    ct_parse_fails (shortopt, "unknown option -x (see test-conf --help)");
    const char *missing[] = {PROGRAM, "--port", NULL};
    ct_parse_fails (missing, "option --port needs a value");
    const char *conf_missing[] = {PROGRAM, "--conf", NULL};
    ct_parse_fails (conf_missing, "option --conf needs a value");
}

static void
test_help_and_version (void **state)
{
    (void) state;
    int first;
    const char *help[] = {PROGRAM, "--port", "5", "--help", "--bogus", NULL};
    hearth_conf_t *conf = ct_parse (help, &first);
    assert_int_equal (first, 5);
    assert_true (hearth_conf_wants_help (conf));
    assert_false (hearth_conf_wants_version (conf));
    assert_int_equal (hearth_conf_int (conf, "port"), 5);
    hearth_conf_destroy (&conf);

    const char *h[] = {PROGRAM, "-h", NULL};
    conf = ct_parse (h, &first);
    assert_int_equal (first, 2);
    assert_true (hearth_conf_wants_help (conf));
    hearth_conf_destroy (&conf);

    const char *version[] = {PROGRAM, "--version", "-z", NULL};
    conf = ct_parse (version, &first);
    assert_int_equal (first, 3);
    assert_true (hearth_conf_wants_version (conf));
    assert_false (hearth_conf_wants_help (conf));
    hearth_conf_destroy (&conf);

    const char *none[] = {PROGRAM, NULL};
    conf = ct_parse (none, &first);
    assert_int_equal (first, 1);
    assert_false (hearth_conf_wants_help (conf));
    assert_false (hearth_conf_wants_version (conf));
    hearth_conf_destroy (&conf);
}

static void
test_stops_at_positional (void **state)
{
    (void) state;
    int first;
    const char *argv[] = {PROGRAM,  "--port", "1",       "job.json",
                          "--port", "2",      "--bogus", NULL};
    hearth_conf_t *conf = ct_parse (argv, &first);
    assert_int_equal (first, 3);
    assert_int_equal (hearth_conf_int (conf, "port"), 1);
    hearth_conf_destroy (&conf);

    const char *dashes[] = {PROGRAM, "--verbose", "--", "--port", "2", NULL};
    conf = ct_parse (dashes, &first);
    assert_int_equal (first, 3);
    assert_int_equal (hearth_conf_int (conf, "port"), 7077);
    assert_true (hearth_conf_bool (conf, "verbose"));
    hearth_conf_destroy (&conf);

    const char *dash[] = {PROGRAM, "-", "--port", "2", NULL};
    conf = ct_parse (dash, &first);
    assert_int_equal (first, 1);
    hearth_conf_destroy (&conf);
}

/* ---------------------------------------------------------------------
   The API directly */

static void
test_set_and_readers (void **state)
{
    (void) state;
    hearth_conf_t *conf = hearth_conf_new (PROGRAM, ct_opts);
    hearth_error_t err;
    assert_false (hearth_conf_isset (conf, "retries"));
    assert_null (hearth_conf_str (conf, "retries"));
    assert_int_equal (hearth_conf_int (conf, "retries"), 0);
    assert_int_equal (hearth_conf_source (conf, "retries"), HEARTH_SRC_UNSET);
    assert_int_equal (hearth_conf_source (conf, "port"), HEARTH_SRC_DEFAULT);

    assert_int_equal (
        hearth_conf_set (conf, "port", "80", HEARTH_SRC_FLAG, &err), 0);
    /* a weaker source does not override, and that is not an error */
    assert_int_equal (
        hearth_conf_set (conf, "port", "81", HEARTH_SRC_FILE, &err), 0);
    assert_int_equal (hearth_conf_int (conf, "port"), 80);
    assert_string_equal (hearth_conf_str (conf, "port"), "80");
    /* a bad value leaves the old one */
    assert_int_equal (
        hearth_conf_set (conf, "port", "x", HEARTH_SRC_FLAG, &err), -1);
    assert_int_equal (hearth_conf_int (conf, "port"), 80);
    assert_int_equal (
        hearth_conf_set (conf, "nope", "1", HEARTH_SRC_FLAG, &err), -1);
    assert_string_equal (err.text, "unknown option 'nope'");
    hearth_conf_destroy (&conf);
    hearth_conf_destroy (&conf);
    hearth_conf_destroy (NULL);
}

static void
test_usage (void **state)
{
    (void) state;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream (&text, &size);
    assert_non_null (out);
    hearth_conf_t *conf = hearth_conf_new (PROGRAM, ct_opts);
    hearth_conf_usage (conf, out, "[OPTIONS] JOB", "Runs a job.");
    fclose (out);
    assert_contains (text, "Usage: test-conf [OPTIONS] JOB\n\nRuns a job.\n");
    assert_contains (text, "--port N");
    assert_contains (text, "the port (default: 7077)");
    assert_contains (text, "--lib FILE");
    assert_contains (text, "--heartbeat-interval TIME");
    assert_contains (text, "--consolidate ");
    assert_contains (text, "fill one worker first\n");
    assert_contains (text, "--conf FILE|KEY=VALUE");
    assert_contains (text, "-h, --help");
    assert_contains (text, "--version");
    free (text);
    hearth_conf_destroy (&conf);
}

/* hearth_start: go on, answer --help/--version, refuse what is wrong. */
static void
test_start (void **state)
{
    (void) state;
    char *argv[] = {"test-conf", "--port", "80", NULL, NULL};
    hearth_conf_t *conf = hearth_conf_new (PROGRAM, ct_opts);
    assert_int_equal (hearth_start (conf, 3, argv, "", ""), 1);
    assert_int_equal (hearth_conf_int (conf, "port"), 80);
    hearth_conf_destroy (&conf);
    hearth_log_close ();

    argv[1] = "--version";
    conf = hearth_conf_new (PROGRAM, ct_opts);
    assert_int_equal (hearth_start (conf, 2, argv, "", ""), 0);
    hearth_conf_destroy (&conf);

    argv[1] = "--port", argv[2] = "80", argv[3] = "extra";
    conf = hearth_conf_new (PROGRAM, ct_opts);
    assert_int_equal (hearth_start (conf, 4, argv, "", ""), -1);
    hearth_conf_destroy (&conf);

    argv[2] = "eighty";
    conf = hearth_conf_new (PROGRAM, ct_opts);
    assert_int_equal (hearth_start (conf, 3, argv, "", ""), -1);
    hearth_conf_destroy (&conf);
}
int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup (test_alias, ct_setup),
        cmocka_unit_test_setup (test_bool_flags, ct_setup),
        cmocka_unit_test_setup (test_bad_values, ct_setup),
        cmocka_unit_test_setup (test_label_values, ct_setup),
        cmocka_unit_test_setup (test_unknown_and_missing, ct_setup),
        cmocka_unit_test_setup (test_help_and_version, ct_setup),
        cmocka_unit_test_setup (test_stops_at_positional, ct_setup),
        cmocka_unit_test_setup (test_set_and_readers, ct_setup),
        cmocka_unit_test_setup (test_usage, ct_setup),
        cmocka_unit_test_setup (test_start, ct_setup),
    };
    return cmocka_run_group_tests_name ("conf flags", tests, ct_group_setup,
                                        ct_group_teardown);
}

/*  conf_testing.c - what the settings tests share: their option table,
    scratch directory and parsing helpers; see conf_testing.h. */
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

const hearth_opt_t ct_opts[] = {
    {.name = "name",
     .type = HEARTH_OPT_LABEL,
     .dflt = "hearth",
     .help = "name"},
    {.name = "port",
     .type = HEARTH_OPT_INT,
     .dflt = "7077",
     .help = "the port",
     .min = 1,
     .max = 65535},
    {.name = "retries", .type = HEARTH_OPT_INT, .help = "any whole number"},
    {.name = "verbose", .type = HEARTH_OPT_BOOL, .dflt = "false"},
    {.name = "max-result", .type = HEARTH_OPT_SIZE, .dflt = "1M"},
    {.name = "memory", .type = HEARTH_OPT_MEMORY, .dflt = "1G"},
    {.name = "heartbeat-interval", .type = HEARTH_OPT_DURATION, .dflt = "1s"},
    {.name = "lib", .type = HEARTH_OPT_LIST, .metavar = "FILE"},
    {.name = "policy", .type = HEARTH_OPT_STR, .dflt = "spread"},
    {.name = "consolidate",
     .type = HEARTH_OPT_ALIAS,
     .help = "fill one worker first",
     .alias_of = "policy",
     .alias_value = "consolidate"},
    {.name = "state",
     .type = HEARTH_OPT_STR,
     .help = "a subcommand's filter",
     .flag_only = true},
    {.name = NULL},
};

/* The scratch directory of this run. */
char ct_dir[] = "test_conf.XXXXXX";

/* ---------------------------------------------------------------------
   Helpers */

int
ct_setup (void **state)
{
    (void) state;
    hearth_test_clear_env ();
    return 0;
}

/* Write text into the scratch file called name; return its path. */
const char *
ct_file (const char *name, const char *text)
{
    static char paths[4][256];
    static int next;
    char *path = paths[next++ % 4];
    snprintf (path, sizeof paths[0], "%s/%s", ct_dir, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
    return path;
}

/* Parse argv (NULL-terminated, argv[0] included) into a new conf;
   expect success and return the index of the first positional. */
hearth_conf_t *
ct_parse (const char **argv, int *first)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    hearth_conf_t *conf = hearth_conf_new (PROGRAM, ct_opts);
    assert_non_null (conf);
    hearth_error_t err;
    int rc = hearth_conf_parse (conf, argc, (char **) argv, &err);
    if (rc < 0)
        fail_msg ("parse failed: %s", err.text);
    if (first)
        *first = rc;
    return conf;
}

/* Parse argv, expecting failure with exactly this text. */
void
ct_parse_fails (const char **argv, const char *text)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    hearth_conf_t *conf = hearth_conf_new (PROGRAM, ct_opts);
    assert_non_null (conf);
    hearth_error_t err;
    hearth_error_clear (&err);
    if (hearth_conf_parse (conf, argc, (char **) argv, &err) >= 0)
        fail_msg ("parse succeeded, expected: %s", text);
    assert_string_equal (err.text, text);
    hearth_conf_destroy (&conf);
    assert_null (conf);
}

int
ct_group_setup (void **state)
{
    (void) state;
    hearth_test_tmpdir (ct_dir);
    return 0;
}

/* Remove the scratch directory and what the tests wrote in it. */
int
ct_group_teardown (void **state)
{
    (void) state;
    static const char *const names[] = {
        "levels.conf", "a.conf",   "lib.conf",   "syntax.conf",   "one.conf",
        "two.conf",    "bad.conf", "value.conf", "defaults.conf",
    };
    char path[300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf (path, sizeof path, "%s/%s", ct_dir, names[i]);
        unlink (path);
    }
    return rmdir (ct_dir);
}

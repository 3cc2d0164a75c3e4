/*  conf_testing.h - what test_conf and test_conf_flags share (defined in
    conf_testing.c): an option of every type, a scratch directory made by
    the group setup and removed by its teardown, and parsing helpers that
    fail the test at the caller when the outcome is not the one expected.
*/
#ifndef HEARTH_TEST_CONF_TESTING_H
#define HEARTH_TEST_CONF_TESTING_H

#include "libcore/conf.h"

#define PROGRAM "test-conf"

/* The options every test parses against. */
extern const hearth_opt_t ct_opts[];
/* The scratch directory of this run (made by ct_group_setup). */
extern char ct_dir[];

/* Per test: clear every HEARTH_* variable. */
int ct_setup (void **state);
/* Make and remove the scratch directory. */
int ct_group_setup (void **state);
int ct_group_teardown (void **state);
/* Write text into the scratch file called name; return its path
   (borrowed: one of four rotating buffers). */
const char *ct_file (const char *name, const char *text);
/* Parse argv (NULL-terminated, argv[0] included) into a new conf
   (caller destroys); expect success; the first positional's index into
   *first when not NULL. */
hearth_conf_t *ct_parse (const char **argv, int *first);
/* Parse argv, expecting failure with exactly this text. */
void ct_parse_fails (const char **argv, const char *text);

#endif

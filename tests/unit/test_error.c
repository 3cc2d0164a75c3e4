/*  test_error.c - unit tests of the error carrier (libcore/error.c): the
    helpers return -1, keep errno, accept a NULL error, and cut long texts
    safely.
*/
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/error.h"
#include "tests/unit/testutil.h"

static void
test_errcode (void **state)
{
    (void) state;
    hearth_error_t err;
    errno = ENOENT;
    assert_int_equal (
        hearth_errcode (&err, "bad_field", "field '%s': %d", "cores", 7), -1);
    assert_int_equal (errno, ENOENT);
    assert_string_equal (err.code, "bad_field");
    assert_string_equal (err.text, "field 'cores': 7");
}

static void
test_errprintf (void **state)
{
    (void) state;
    hearth_error_t err;
    errno = EAGAIN;
    assert_int_equal (hearth_errprintf (&err, "bad port '%s'", "x"), -1);
    assert_int_equal (errno, EAGAIN);
    assert_string_equal (err.code, "error");
    assert_string_equal (err.text, "bad port 'x'");
}

static void
test_null_error (void **state)
{
    (void) state;
    errno = EINVAL;
    assert_int_equal (hearth_errcode (NULL, "x", "y"), -1);
    assert_int_equal (hearth_errprintf (NULL, "y %d", 1), -1);
    assert_int_equal (errno, EINVAL);
    hearth_error_clear (NULL);
}

static void
test_clear_and_truncate (void **state)
{
    (void) state;
    hearth_error_t err;
    char big[1000];
    memset (big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    hearth_errprintf (&err, "%s", big);
    assert_int_equal (strlen (err.text), HEARTH_ERROR_TEXT_MAX - 1);
    hearth_error_clear (&err);
    assert_null (err.code);
    assert_string_equal (err.text, "");
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_errcode),
        cmocka_unit_test (test_errprintf),
        cmocka_unit_test (test_null_error),
        cmocka_unit_test (test_clear_and_truncate),
    };
    return cmocka_run_group_tests_name ("error", tests, NULL, NULL);
}

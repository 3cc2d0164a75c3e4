/*  test_dltable.c - unit tests of libcore/dltable.c: a library opened at
    run time fills its table, and a missing library or symbol is an error
    that names it. */
#include "config.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/dltable.h"
#include "tests/unit/testutil.h"

/* Two functions of libm, reached through a table as mhdlib.c and
   elflib.c reach theirs. */
typedef struct {
    double (*sqrt_fn) (double);
    double (*floor_fn) (double);
} s_libm_t;

static const hearth_dl_sym_t s_syms[] = {
    HEARTH_DL_SYM (s_libm_t, sqrt_fn, "sqrt"),
    HEARTH_DL_SYM (s_libm_t, floor_fn, "floor"),
};

static void
test_fills_the_table (void **state)
{
    (void) state;
    s_libm_t m = {0};
    hearth_error_t err;
    void *lib = hearth_dl_table ("libm.so.6", s_syms, 2, &m, &err);
    assert_non_null (lib);
    assert_non_null (m.sqrt_fn);
    assert_non_null (m.floor_fn);
    assert_true (m.sqrt_fn (81.0) == 9.0);
    assert_true (m.floor_fn (2.5) == 2.0);
    dlclose (lib);
}

static void
test_missing_library (void **state)
{
    (void) state;
    s_libm_t m = {0};
    hearth_error_t err;
    assert_null (hearth_dl_table ("libhearth-none.so.9", s_syms, 2, &m, &err));
    assert_contains (err.text, "cannot load libhearth-none.so.9: ");
}

static void
test_missing_symbol (void **state)
{
    (void) state;
    static const hearth_dl_sym_t bad[] = {
        HEARTH_DL_SYM (s_libm_t, sqrt_fn, "sqrt"),
        HEARTH_DL_SYM (s_libm_t, floor_fn, "hearth_no_such_function"),
    };
    s_libm_t m = {0};
    hearth_error_t err;
    assert_null (hearth_dl_table ("libm.so.6", bad, 2, &m, &err));
    assert_string_equal (err.text, "libm.so.6 has no hearth_no_such_function");
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_fills_the_table),
        cmocka_unit_test (test_missing_library),
        cmocka_unit_test (test_missing_symbol),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

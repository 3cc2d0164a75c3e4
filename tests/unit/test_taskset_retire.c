/*  test_taskset_retire.c - a retired executor (decommissioned, or being
    released by dynamic allocation) is offered nothing more, while what it
    holds ends as usual and the other executors take the rest. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "libcore/taskset.h"

static void
test_retired_executor_gets_nothing_more (void **state)
{
    (void) state;
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    hearth_assign_t as[64], more[64];
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 20, NULL, 0, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 2), 0);
    assert_int_equal (hearth_taskset_add_executor (ts, 1, 2), 0);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), 0);
    size_t n = hearth_taskset_offer (ts, 0, 0, as, 64);
    assert_int_equal (n, 4);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), 4);

    assert_int_equal (hearth_taskset_retire_executor (ts, 0), 0);
    /* what it holds ends as usual and frees no slot for more */
    assert_int_equal (hearth_taskset_update (ts, 0, as[0].stage, as[0].index,
                                             as[0].attempt, HEARTH_TS_FINISHED,
                                             100, 0),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (hearth_taskset_free_slots (ts, 0), 0);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, more, 64), 0);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), 3);
    /* the other executor still takes work */
    assert_true (hearth_taskset_offer (ts, 1, 0, more, 64) > 0);
    for (size_t i = 1; i < n; i++)
        assert_int_equal (hearth_taskset_update (ts, 0, as[i].stage,
                                                 as[i].index, as[i].attempt,
                                                 HEARTH_TS_FINISHED, 100, 0),
                          HEARTH_TS_ACCEPT);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), 0);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, more, 64), 0);

    /* unknown executors */
    errno = 0;
    assert_int_equal (hearth_taskset_retire_executor (ts, 9), -1);
    assert_int_equal (errno, ENOENT);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 9), -1);
    /* a removed retired executor is forgotten */
    assert_int_equal (hearth_taskset_remove_executor (ts, 0), 0);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), -1);
    hearth_taskset_destroy (&ts);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_retired_executor_gets_nothing_more),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

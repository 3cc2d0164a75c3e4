/*  test_dynalloc.c - dynamic allocation's schedule (libhearth/dynalloc_sched.h)
    on a fake clock: the doubling raises after the backlog timeouts, the
    cap at what the tasks need and at max-executors, the drop when the
    backlog goes, removals never below max (target, min) nor while tasks
    wait for every core held; the option checks; and what the task set's
    runnable stages want (hearth_taskset_demand). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/taskset.h"
#include "libhearth/dynalloc_sched.h"

static const dynalloc_opts_t s_opts = {0, INT32_MAX, 0, 1000, 1000, 60000};

/* A load of waiting tasks among unfinished ones, on 1-core executors. */
static dynalloc_load_t
s_load (uint64_t waiting, uint64_t unfinished, int executors)
{
    return (dynalloc_load_t){waiting, unfinished, 1, executors, executors};
}

/* 1,000 waiting 1-core tasks, max 16: nothing before the backlog
   timeout, then 1, 3, 7, 15, 16 one sustained period apart. */
static void
test_doubling_schedule (void **state)
{
    (void) state;
    dynalloc_sched_t s;
    dynalloc_opts_t o = s_opts;
    o.max_executors = 16;
    dynalloc_sched_init (&s, &o);
    dynalloc_load_t l = s_load (1000, 1000, 0);
    assert_int_equal (dynalloc_sched_update (&s, &l, 0), 0);
    assert_int_equal (dynalloc_sched_update (&s, &l, 999), 0);
    const int want[] = {1, 3, 7, 15, 16, 16};
    for (int i = 0; i < 6; i++) {
        l.executors = s.target; /* the master gave what was asked */
        assert_int_equal (dynalloc_sched_update (&s, &l, 1000 + i * 1000),
                          want[i]);
        /* nothing more within the sustained period */
        assert_int_equal (dynalloc_sched_update (&s, &l, 1500 + i * 1000),
                          want[i]);
    }
}

/* Never more than the tasks need: 5 unfinished 2-core tasks on 2-core
   executors want 3. */
static void
test_capped_by_need (void **state)
{
    (void) state;
    dynalloc_sched_t s;
    dynalloc_sched_init (&s, &s_opts);
    dynalloc_load_t l = {5, 5, 2, 0, 0};
    for (int64_t t = 0; t <= 10000; t += 500)
        dynalloc_sched_update (&s, &l, t);
    assert_int_equal (s.target, 3);
    assert_int_equal (dynalloc_sched_needed (&s, &l), 3);
}

/* The backlog goes: the target falls to what is needed (not below min),
   and the step starts again at 1. */
static void
test_drop_to_need_and_min (void **state)
{
    (void) state;
    dynalloc_sched_t s;
    dynalloc_opts_t o = s_opts;
    o.min_executors = 2;
    o.initial_executors = 2;
    dynalloc_sched_init (&s, &o);
    dynalloc_load_t l = s_load (100, 100, 2);
    for (int64_t t = 0; t <= 4000; t += 250)
        dynalloc_sched_update (&s, &l, t);
    assert_true (s.target > 8);
    l = s_load (0, 1, s.target);
    assert_int_equal (dynalloc_sched_update (&s, &l, 4100), 2);
    assert_int_equal (s.to_add, 1);
    assert_int_equal (s.add_ms, -1);
    /* a new burst: after the backlog timeout again, +1 first */
    l = s_load (50, 50, 2);
    assert_int_equal (dynalloc_sched_update (&s, &l, 5000), 2);
    assert_int_equal (dynalloc_sched_update (&s, &l, 6000), 3);
}

/* Before any task, the target stays at initial-executors. */
static void
test_initial_kept_until_tasks (void **state)
{
    (void) state;
    dynalloc_sched_t s;
    dynalloc_opts_t o = s_opts;
    o.initial_executors = 4;
    dynalloc_sched_init (&s, &o);
    dynalloc_load_t l = s_load (0, 0, 4);
    assert_int_equal (dynalloc_sched_update (&s, &l, 100000), 4);
    assert_int_equal (dynalloc_sched_removable (&s, &l, 4), 0);
    l = s_load (1, 1, 4);
    assert_int_equal (dynalloc_sched_update (&s, &l, 100100), 1);
}

/* Removals: never below max (target, min), none while waiting tasks are
   at least the cores held, at most the idle ones. */
static void
test_removable (void **state)
{
    (void) state;
    dynalloc_sched_t s;
    dynalloc_opts_t o = s_opts;
    o.min_executors = 1;
    o.initial_executors = 1;
    dynalloc_sched_init (&s, &o);
    dynalloc_load_t l = s_load (0, 0, 8);
    s.initializing = false;
    dynalloc_sched_update (&s, &l, 0);
    assert_int_equal (s.target, 1);
    assert_int_equal (dynalloc_sched_removable (&s, &l, 8), 7);
    assert_int_equal (dynalloc_sched_removable (&s, &l, 3), 3);
    s.target = 5;
    assert_int_equal (dynalloc_sched_removable (&s, &l, 8), 3);
    l = s_load (8, 10, 8); /* tasks queue for every core */
    s.target = 1;
    assert_int_equal (dynalloc_sched_removable (&s, &l, 2), 0);
    l.waiting = 7;
    assert_int_equal (dynalloc_sched_removable (&s, &l, 2), 2);
}

static void
test_opts_check (void **state)
{
    (void) state;
    char why[256];
    dynalloc_opts_t o = s_opts;
    assert_int_equal (dynalloc_opts_check (&o, why, sizeof why), 0);
    o.min_executors = 5;
    o.max_executors = 4;
    o.initial_executors = 5;
    assert_int_equal (dynalloc_opts_check (&o, why, sizeof why), -1);
    assert_non_null (strstr (why, "--min-executors 5 is more than"));
    o = s_opts;
    o.max_executors = 4;
    o.initial_executors = 9;
    assert_int_equal (dynalloc_opts_check (&o, why, sizeof why), -1);
    assert_non_null (strstr (why, "--initial-executors 9 is outside"));
}

/* Only runnable stages count; executing attempts are not waiting. */
static void
test_taskset_demand (void **state)
{
    (void) state;
    hearth_taskset_t *ts = hearth_taskset_new (NULL);
    uint64_t waiting, unfinished;
    uint32_t parent = 1;
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 10, NULL, 0, NULL, 1),
                      0);
    assert_int_equal (
        hearth_taskset_add_stage (ts, 2, 1, 50, &parent, 1, NULL, 1), 0);
    hearth_taskset_demand (ts, &waiting, &unfinished);
    assert_int_equal (unfinished, 10);
    assert_int_equal (waiting, 10);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 2), 0);
    hearth_assign_t a[16];
    size_t n = hearth_taskset_offer (ts, 0, 0, a, 16);
    assert_true (n >= 2);
    hearth_taskset_demand (ts, &waiting, &unfinished);
    assert_int_equal (unfinished, 10);
    assert_int_equal (waiting, 8); /* 2 on its cores, the rest queued */
    hearth_taskset_destroy (&ts);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_doubling_schedule),
        cmocka_unit_test (test_capped_by_need),
        cmocka_unit_test (test_drop_to_need_and_min),
        cmocka_unit_test (test_initial_kept_until_tasks),
        cmocka_unit_test (test_removable),
        cmocka_unit_test (test_opts_check),
        cmocka_unit_test (test_taskset_demand),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

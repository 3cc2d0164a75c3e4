/*  test_taskset_res.c - custom resources in the task set (issue 15): an
    attempt that needs them goes only to an executor with enough free,
    holds them until it ends (finished, failed, killed, lost), none is
    prefetched beyond them, tasks without resources still fill the
    slots; and an executor killed for memory counts as a failure of its
    tasks (hearth_taskset_remove_executor_failed). */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "libcore/taskset.h"

static hearth_taskset_t *
s_new (bool fair)
{
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.fair = fair;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    return ts;
}

/* Amounts from "gpu=1" specs (NULL-terminated), for the caller to clear. */
static hearth_resource_amounts_t
s_amounts (const char *spec, const char *spec2)
{
    hearth_resource_amounts_t a = {0};
    assert_int_equal (hearth_resource_amounts_add_spec (&a, spec, NULL), 0);
    if (spec2)
        assert_int_equal (hearth_resource_amounts_add_spec (&a, spec2, NULL),
                          0);
    return a;
}

static void
s_set_exec (hearth_taskset_t *ts, int id, const char *spec, const char *spec2)
{
    hearth_resource_amounts_t a = s_amounts (spec, spec2);
    assert_int_equal (hearth_taskset_set_executor_resources (ts, id, &a), 0);
    hearth_resource_amounts_clear (&a);
}

static void
s_set_stage (hearth_taskset_t *ts, uint32_t stage, const char *spec)
{
    hearth_resource_amounts_t a = s_amounts (spec, NULL);
    assert_int_equal (hearth_taskset_set_stage_resources (ts, stage, &a), 0);
    hearth_resource_amounts_clear (&a);
}

static size_t
s_count_stage (const hearth_assign_t *as, size_t n, uint32_t stage)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += as[i].stage == stage;
    return k;
}

/* 4 gpus, 8 cores: 4 gpu attempts at most, the rest of the slots go to
   a stage without resources; each end frees one gpu for one more. */
static void
test_offer_bounded_by_free_addresses (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false);
    hearth_assign_t as[64];
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 40, NULL, 0, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_stage (ts, 2, 2, 40, NULL, 0, NULL, 1),
                      0);
    s_set_stage (ts, 1, "gpu=1");
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 8), 0);
    s_set_exec (ts, 0, "gpu=4", NULL);
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 4);
    size_t n = hearth_taskset_offer (ts, 0, 0, as, 64);
    assert_int_equal (s_count_stage (as, n, 1), 4);
    assert_int_equal (s_count_stage (as, n, 2), n - 4);
    assert_true (n > 4); /* tasks without resources fill the slots */
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 0);
    /* full: nothing more for the gpu stage */
    n = hearth_taskset_offer (ts, 0, 0, as, 64);
    assert_int_equal (s_count_stage (as, n, 1), 0);
    /* one gpu attempt finishes: one gpu free, one more offered */
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FINISHED, 10, 10),
        HEARTH_TS_ACCEPT);
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 1);
    assert_int_equal (
        hearth_taskset_update (ts, 0, 2, 0, 0, HEARTH_TS_FINISHED, 10, 10),
        HEARTH_TS_ACCEPT);
    n = hearth_taskset_offer (ts, 0, 20, as, 64);
    assert_int_equal (s_count_stage (as, n, 1), 1);
    assert_int_equal (as[0].index, 4);
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 0);
    hearth_taskset_destroy (&ts);
}

/* An executor without the resource (or with too few) never gets such an
   attempt; one with them does. */
static void
test_only_executors_that_have_them (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false);
    hearth_assign_t as[16];
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 3, NULL, 0, NULL, 1),
                      0);
    s_set_stage (ts, 1, "gpu=2");
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 4), 0);
    assert_int_equal (hearth_taskset_add_executor (ts, 1, 4), 0);
    s_set_exec (ts, 0, "fpga=4", NULL);
    s_set_exec (ts, 1, "gpu=3", "fpga=1");
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 16), 0);
    assert_int_equal (hearth_taskset_offer (ts, 1, 0, as, 16), 1);
    assert_int_equal (hearth_taskset_resource_free (ts, 1, "gpu"), 1);
    assert_int_equal (hearth_taskset_resource_free (ts, 1, "fpga"), 1);
    assert_int_equal (hearth_taskset_resource_free (ts, 1, "nic"), 0);
    assert_int_equal (hearth_taskset_resource_free (ts, 7, "gpu"), -1);
    hearth_taskset_destroy (&ts);
}

/* Held until the end, whatever the end: failed (re-queued), killed by
   us, killed not by us (a loss), and the executor lost with them. */
static void
test_held_until_any_end (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false);
    hearth_assign_t as[16];
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 4, NULL, 0, NULL, 1),
                      0);
    s_set_stage (ts, 1, "gpu=1");
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 4), 0);
    s_set_exec (ts, 0, "gpu=2", NULL);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 16), 2);
    /* a failure frees its gpu; the retry takes it again */
    assert_int_equal (hearth_taskset_update (ts, 0, 1, as[0].index,
                                             as[0].attempt, HEARTH_TS_FAILED, 5,
                                             5),
                      HEARTH_TS_RETRY);
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 6, as, 16), 1);
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 0);
    /* a kill not asked for (a loss): freed too */
    assert_int_equal (hearth_taskset_update (ts, 0, 1, as[0].index,
                                             as[0].attempt, HEARTH_TS_KILLED, 5,
                                             7),
                      HEARTH_TS_RETRY);
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 1);
    /* a job failed from outside: held until the kills are heard */
    hearth_taskset_fail_job (ts, 1);
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 1);
    hearth_ts_event_t ev;
    int kills = 0;
    while (hearth_taskset_next_event (ts, &ev))
        if (ev.type == HEARTH_TS_EV_KILL) {
            kills++;
            assert_int_equal (hearth_taskset_update (ts, 0, 1, ev.index,
                                                     ev.attempt,
                                                     HEARTH_TS_KILLED, 0, 8),
                              HEARTH_TS_RELEASED);
        }
    assert_int_equal (kills, 1);
    assert_int_equal (hearth_taskset_resource_free (ts, 0, "gpu"), 2);
    hearth_taskset_destroy (&ts);
}

/* A lost executor's attempts free nothing elsewhere; its replacement
   starts with all of its own free.  A forgotten job's attempts free
   theirs. */
static void
test_lost_and_forgotten (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (true);
    hearth_assign_t as[16];
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 6, NULL, 0, NULL, 1),
                      0);
    s_set_stage (ts, 1, "gpu=1");
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 2), 0);
    s_set_exec (ts, 0, "gpu=2", NULL);
    assert_int_equal (hearth_taskset_add_executor (ts, 1, 2), 0);
    s_set_exec (ts, 1, "gpu=1", NULL);
    /* FAIR too: bounded by the free gpus */
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 16), 2);
    assert_int_equal (hearth_taskset_offer (ts, 1, 0, as, 16), 1);
    assert_int_equal (hearth_taskset_remove_executor (ts, 0), 2);
    assert_int_equal (hearth_taskset_resource_free (ts, 1, "gpu"), 0);
    assert_int_equal (hearth_taskset_add_executor (ts, 2, 2), 0);
    s_set_exec (ts, 2, "gpu=2", NULL);
    assert_int_equal (hearth_taskset_offer (ts, 2, 1, as, 16), 2);
    assert_int_equal (hearth_taskset_resource_free (ts, 2, "gpu"), 0);
    hearth_taskset_forget_job (ts, 1);
    assert_int_equal (hearth_taskset_resource_free (ts, 2, "gpu"), 2);
    assert_int_equal (hearth_taskset_resource_free (ts, 1, "gpu"), 1);
    hearth_taskset_destroy (&ts);
}

/* Bad calls: no such executor or stage. */
static void
test_bad_ids (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false);
    hearth_resource_amounts_t a = s_amounts ("gpu=1", NULL);
    errno = 0;
    assert_int_equal (hearth_taskset_set_executor_resources (ts, 3, &a), -1);
    assert_int_equal (errno, ENOENT);
    assert_int_equal (hearth_taskset_set_stage_resources (ts, 3, &a), -1);
    assert_int_equal (errno, EINVAL);
    hearth_resource_amounts_clear (&a);
    hearth_taskset_destroy (&ts);
}

/* An executor killed for memory: its attempts count as failures of
   their tasks (max_failures, not max_lost), and the job that gives up
   says so (with_executor). */
static void
test_executor_failed_counts_failures (void **state)
{
    (void) state;
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.max_failures = 3;
    o.max_lost = 8;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    hearth_assign_t as[4];
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 1, NULL, 0, NULL, 1),
                      0);
    hearth_ts_event_t ev;
    for (int i = 0; i < 3; i++) {
        assert_int_equal (hearth_taskset_add_executor (ts, i, 1), 0);
        assert_int_equal (hearth_taskset_offer (ts, i, i, as, 4), 1);
        assert_int_equal (as[0].attempt, i);
        assert_false (hearth_taskset_next_event (ts, &ev));
        assert_int_equal (
            hearth_taskset_remove_executor_failed (ts, i, NULL, NULL), 1);
    }
    /* the third failure gives up (max_failures 3), long before max_lost */
    assert_true (hearth_taskset_next_event (ts, &ev));
    assert_int_equal (ev.type, HEARTH_TS_EV_JOB_FAILED);
    assert_int_equal (ev.attempt, 2);
    assert_false (ev.lost);
    assert_true (ev.with_executor);
    /* the plain losses keep their rule */
    assert_int_equal (hearth_taskset_add_stage (ts, 2, 2, 1, NULL, 0, NULL, 1),
                      0);
    for (int i = 10; i < 13; i++) {
        assert_int_equal (hearth_taskset_add_executor (ts, i, 1), 0);
        assert_int_equal (hearth_taskset_offer (ts, i, i, as, 4), 1);
        assert_int_equal (hearth_taskset_remove_executor (ts, i), 1);
    }
    while (hearth_taskset_next_event (ts, &ev))
        assert_int_not_equal (ev.type, HEARTH_TS_EV_JOB_FAILED);
    hearth_taskset_destroy (&ts);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_offer_bounded_by_free_addresses),
        cmocka_unit_test (test_only_executors_that_have_them),
        cmocka_unit_test (test_held_until_any_end),
        cmocka_unit_test (test_lost_and_forgotten),
        cmocka_unit_test (test_bad_ids),
        cmocka_unit_test (test_executor_failed_counts_failures),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

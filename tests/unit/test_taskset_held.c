/*  test_taskset_held.c - stages added with their tasks already run (a
    persisted stage read again by a later job, issue 38), with a fake
    clock: held tasks count finished and are never offered, the missing
    ones run again with their attempts numbered past the kept outputs',
    the stage is done from the start when nothing is missing (no
    STAGE_DONE), its readers wait for what is missing, no copy of its
    tasks is speculated, and a bad parent adds nothing. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "libcore/taskset.h"

/* The held stage, the stage reading it, and their job. */
enum { HELD = 3, READER = 4, JOB = 9 };

static hearth_taskset_t *
s_new (void)
{
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.speculation = true;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 4), 0);
    return ts;
}

/* A held stage of 4 tasks (held as given, attempts from 5, 6, 7, 8) and
   a reader of 2 tasks after it. */
static hearth_taskset_t *
s_held (const bool held[4])
{
    hearth_taskset_t *ts = s_new ();
    const uint16_t first[4] = {5, 6, 7, 8};
    uint32_t parent = HELD;
    assert_int_equal (hearth_taskset_add_stage_held (ts, HELD, JOB, 4, NULL, 0,
                                                     NULL, 1, held, first),
                      0);
    assert_int_equal (
        hearth_taskset_add_stage (ts, READER, JOB, 2, &parent, 1, NULL, 1), 0);
    return ts;
}

static void
s_counts (hearth_taskset_t *ts, uint32_t stage, uint64_t want_finished)
{
    uint64_t finished, running, total;
    assert_int_equal (
        hearth_taskset_stage_counts (ts, stage, &finished, &running, &total),
        0);
    assert_int_equal (finished, want_finished);
}

/* Events of one type, the queue drained. */
static int
s_drain (hearth_taskset_t *ts, hearth_ts_event_type_t type, uint32_t stage)
{
    hearth_ts_event_t ev = {0};
    int n = 0;
    while (hearth_taskset_next_event (ts, &ev))
        n += ev.type == type && ev.stage == stage;
    return n;
}

static void
s_finish (hearth_taskset_t *ts, const hearth_assign_t *a)
{
    assert_int_equal (hearth_taskset_update (ts, 0, a->stage, a->index,
                                             a->attempt, HEARTH_TS_FINISHED,
                                             1000, 1000),
                      HEARTH_TS_ACCEPT);
}

/* Everything held: done from the start, no STAGE_DONE of it; the reader
   is offered at once, and its end ends the job. */
static void
test_all_held (void **state)
{
    (void) state;
    const bool held[4] = {true, true, true, true};
    hearth_taskset_t *ts = s_held (held);
    s_counts (ts, HELD, 4);
    hearth_assign_t as[16];
    size_t n = hearth_taskset_offer (ts, 0, 0, as, 16);
    assert_int_equal (n, 2);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal (as[i].stage, READER);
        s_finish (ts, &as[i]);
    }
    hearth_ts_event_t ev;
    int held_done = 0, job_done = 0;
    while (hearth_taskset_next_event (ts, &ev)) {
        held_done += ev.type == HEARTH_TS_EV_STAGE_DONE && ev.stage == HELD;
        job_done += ev.type == HEARTH_TS_EV_JOB_DONE && ev.job == JOB;
    }
    assert_int_equal (held_done, 0);
    assert_int_equal (job_done, 1);
    hearth_taskset_destroy (&ts);
}

/* Tasks 1 and 3 missing: only they are offered, numbered from their
   first attempts; the reader waits until both are done, then STAGE_DONE
   of the held stage and the reader's tasks. */
static void
test_missing_run_again (void **state)
{
    (void) state;
    const bool held[4] = {true, false, true, false};
    hearth_taskset_t *ts = s_held (held);
    s_counts (ts, HELD, 2);
    hearth_assign_t as[16];
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 16), 2);
    assert_int_equal (as[0].stage, HELD);
    assert_int_equal (as[1].stage, HELD);
    assert_int_equal (as[0].index + as[1].index, 4); /* 1 and 3 */
    for (int i = 0; i < 2; i++)
        assert_int_equal (as[i].attempt, as[i].index == 1 ? 6 : 8);
    s_finish (ts, &as[0]);
    hearth_assign_t none[16];
    assert_int_equal (hearth_taskset_offer (ts, 0, 2000, none, 16), 0);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_STAGE_DONE, HELD), 0);
    s_finish (ts, &as[1]);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_STAGE_DONE, HELD), 1);
    s_counts (ts, HELD, 4);
    hearth_assign_t red[16];
    assert_int_equal (hearth_taskset_offer (ts, 0, 3000, red, 16), 2);
    assert_int_equal (red[0].stage, READER);
    hearth_taskset_destroy (&ts);
}

/* A task run again in a held stage is never copied, however long it
   runs: the held tasks' run times are unknown. */
static void
test_no_speculation (void **state)
{
    (void) state;
    const bool held[4] = {true, true, true, false};
    hearth_taskset_t *ts = s_held (held);
    hearth_assign_t as[16];
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 16), 1);
    assert_int_equal (hearth_taskset_speculate (ts, 3600 * 1000000LL), 0);
    hearth_taskset_destroy (&ts);
}

/* An unknown parent: EINVAL, and no stage added. */
static void
test_bad_parent (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new ();
    const bool held[2] = {true, false};
    const uint16_t first[2] = {1, 1};
    uint32_t parent = 2;
    errno = 0;
    assert_int_equal (hearth_taskset_add_stage_held (ts, HELD, JOB, 2, &parent,
                                                     1, NULL, 1, held, first),
                      -1);
    assert_int_equal (errno, EINVAL);
    uint64_t f, r, t;
    assert_int_equal (hearth_taskset_stage_counts (ts, HELD, &f, &r, &t), -1);
    hearth_taskset_destroy (&ts);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_all_held),
        cmocka_unit_test (test_missing_run_again),
        cmocka_unit_test (test_no_speculation),
        cmocka_unit_test (test_bad_parent),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_taskset_move.c - a decommissioned executor's queued attempts move
    to other executors (killed there, re-queued without counting as
    failures or losses), its executing ones finish where they are, and it
    ends up holding nothing (libcore/taskset_retire.h). */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "libcore/taskset.h"
#include "libcore/taskset_retire.h"

/* A board where any counted failure or loss fails the job: a move must
   count as neither. */
static hearth_taskset_t *
s_strict_board (void)
{
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.max_failures = 1;
    o.max_lost = 0;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    return ts;
}

static hearth_ts_outcome_t
s_end (hearth_taskset_t *ts, int exec, const hearth_assign_t *a,
       hearth_ts_state_t state)
{
    return hearth_taskset_update (ts, exec, a->stage, a->index, a->attempt,
                                  state, 1000, 0);
}

static void
test_queued_attempts_move_elsewhere (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_strict_board ();
    hearth_assign_t as[64], more[64];
    hearth_ts_event_t ev;
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 4, NULL, 0, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_executor_on (ts, 0, 1, "h0"), 0);
    size_t n = hearth_taskset_offer (ts, 0, 0, as, 64);
    assert_int_equal (n, 2); /* one executing, one queued behind it */
    assert_int_equal (hearth_taskset_add_executor_on (ts, 1, 1, "h1"), 0);

    assert_int_equal (hearth_taskset_retire_executor (ts, 0), 0);
    assert_int_equal (hearth_taskset_move_queued (ts, 0), 1);
    /* the queued one (the newest, as[1]) is killed there */
    assert_true (hearth_taskset_next_event (ts, &ev));
    assert_int_equal (ev.type, HEARTH_TS_EV_KILL);
    assert_int_equal (ev.exec_id, 0);
    assert_int_equal (ev.index, as[1].index);
    assert_false (hearth_taskset_next_event (ts, &ev));
    /* moving again moves nothing: it is being killed */
    assert_int_equal (hearth_taskset_move_queued (ts, 0), 0);
    /* until its end is heard the executor holds both */
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), 2);
    assert_int_equal (s_end (ts, 0, &as[1], HEARTH_TS_KILLED),
                      HEARTH_TS_RELEASED);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), 1);

    /* the moved task runs on the other executor */
    size_t m = hearth_taskset_offer (ts, 1, 0, more, 64);
    assert_true (m >= 1);
    bool found = false;
    for (size_t i = 0; i < m; i++)
        found |= more[i].index == as[1].index;
    assert_true (found);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as + 2, 8), 0);

    /* the executing one finishes where it is; then the executor is idle */
    assert_int_equal (s_end (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), 0);
    /* nothing counted: every task finishes and the job is done */
    for (size_t i = 0; i < m; i++)
        assert_int_equal (s_end (ts, 1, &more[i], HEARTH_TS_FINISHED),
                          HEARTH_TS_ACCEPT);
    m = hearth_taskset_offer (ts, 1, 0, more, 64);
    for (size_t i = 0; i < m; i++)
        assert_int_equal (s_end (ts, 1, &more[i], HEARTH_TS_FINISHED),
                          HEARTH_TS_ACCEPT);
    uint64_t finished, running, total;
    assert_int_equal (
        hearth_taskset_stage_counts (ts, 1, &finished, &running, &total), 0);
    assert_int_equal (finished, 4);
    bool job_done = false;
    while (hearth_taskset_next_event (ts, &ev)) {
        assert_int_not_equal (ev.type, HEARTH_TS_EV_JOB_FAILED);
        job_done |= ev.type == HEARTH_TS_EV_JOB_DONE;
    }
    assert_true (job_done);
    hearth_taskset_destroy (&ts);
}

/* A moved attempt that had started after all and finishes: its result is
   the task's (the first to finish wins), the re-queued copy is not run. */
static void
test_moved_attempt_that_finishes_counts (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_strict_board ();
    hearth_assign_t as[8], more[8];
    hearth_ts_event_t ev;
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 2, NULL, 0, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 1), 0);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 2);
    assert_int_equal (hearth_taskset_retire_executor (ts, 0), 0);
    assert_int_equal (hearth_taskset_move_queued (ts, 0), 1);
    while (hearth_taskset_next_event (ts, &ev))
        ;
    assert_int_equal (s_end (ts, 0, &as[1], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_end (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (hearth_taskset_executor_attempts (ts, 0), 0);
    assert_int_equal (hearth_taskset_add_executor (ts, 1, 1), 0);
    assert_int_equal (hearth_taskset_offer (ts, 1, 0, more, 8), 0);
    bool job_done = false;
    while (hearth_taskset_next_event (ts, &ev))
        job_done |= ev.type == HEARTH_TS_EV_JOB_DONE;
    assert_true (job_done);
    hearth_taskset_destroy (&ts);
}

static void
test_unknown_executor (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_strict_board ();
    errno = 0;
    assert_int_equal (hearth_taskset_move_queued (ts, 7), -1);
    assert_int_equal (errno, ENOENT);
    /* an idle executor has nothing to move */
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 2), 0);
    assert_int_equal (hearth_taskset_move_queued (ts, 0), 0);
    hearth_taskset_destroy (&ts);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_queued_attempts_move_elsewhere),
        cmocka_unit_test (test_moved_attempt_that_finishes_counts),
        cmocka_unit_test (test_unknown_executor),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

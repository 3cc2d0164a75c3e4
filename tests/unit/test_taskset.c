/*  test_taskset.c - the driver's task-set bookkeeping, with a fake clock:
    offers, prefetch, retries on another executor, losses, stale and
    duplicate updates, dependencies, FIFO and FAIR order, speculation. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/taskset.h"

static hearth_taskset_t *
s_new (bool fair, bool speculation)
{
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.fair = fair;
    o.speculation = speculation;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    return ts;
}

/* Count events of one type, draining the queue. */
static int
s_drain (hearth_taskset_t *ts, hearth_ts_event_type_t type,
         hearth_ts_event_t *last)
{
    hearth_ts_event_t ev = {0};
    int n = 0;
    while (hearth_taskset_next_event (ts, &ev))
        if (ev.type == type) {
            n++;
            if (last)
                *last = ev;
        }
    return n;
}

static void
test_offer_fills_slots_in_order (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[64];
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 10, NULL, 0, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 2), 0);
    /* No run time known yet: one task queued per core beyond the cores. */
    assert_int_equal (hearth_taskset_slots (ts, 2), 4);
    size_t n = hearth_taskset_offer (ts, 0, 0, as, 64);
    assert_int_equal (n, 4);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal (as[i].stage, 1);
        assert_int_equal (as[i].index, i);
        assert_int_equal (as[i].attempt, 0);
        assert_false (as[i].speculative);
    }
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 64), 0);
    assert_int_equal (hearth_taskset_inflight (ts), 4);
    /* 4 sent, 2 of them queued behind the executor's 2 cores */
    uint64_t finished, running, total;
    assert_int_equal (
        hearth_taskset_stage_counts (ts, 1, &finished, &running, &total), 0);
    assert_int_equal (finished, 0);
    assert_int_equal (running, 2);
    assert_int_equal (total, 10);
    /* Unknown executors get nothing. */
    assert_int_equal (hearth_taskset_offer (ts, 7, 0, as, 64), 0);
    hearth_taskset_destroy (&ts);
    assert_null (ts);
}

static void
test_stage_and_job_done (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 5, 3, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 4);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 3);
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 1, 0, HEARTH_TS_RUNNING, 0, 10),
        HEARTH_TS_NOTED);
    for (int i = 0; i < 3; i++)
        assert_int_equal (
            hearth_taskset_update (ts, 0, 1, i, 0, HEARTH_TS_FINISHED, 100, 10),
            HEARTH_TS_ACCEPT);
    hearth_ts_event_t ev = {0};
    assert_true (hearth_taskset_next_event (ts, &ev));
    assert_int_equal (ev.type, HEARTH_TS_EV_STAGE_DONE);
    assert_int_equal (ev.stage, 1);
    assert_true (hearth_taskset_next_event (ts, &ev));
    assert_int_equal (ev.type, HEARTH_TS_EV_JOB_DONE);
    assert_int_equal (ev.job, 5);
    assert_false (hearth_taskset_next_event (ts, &ev));
    /* A second result of the same attempt is stale. */
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FINISHED, 100, 10),
        HEARTH_TS_STALE);
    hearth_taskset_destroy (&ts);
}

static void
test_dependencies_wait (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    uint32_t parent = 1;
    hearth_taskset_add_stage (ts, 1, 1, 1, NULL, 0, NULL, 1);
    assert_int_equal (
        hearth_taskset_add_stage (ts, 2, 1, 2, &parent, 1, NULL, 1), 0);
    hearth_taskset_add_executor (ts, 0, 8);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 1);
    assert_int_equal (as[0].stage, 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 0);
    hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FINISHED, 50, 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 2);
    assert_int_equal (as[0].stage, 2);
    assert_int_equal (as[1].stage, 2);
    hearth_taskset_destroy (&ts);
}

static void
test_add_stage_rejects (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    uint32_t missing = 9, other_job = 1;
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 0, NULL, 0, NULL, 1),
                      -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (
        hearth_taskset_add_stage (ts, 2, 1, 1, &missing, 1, NULL, 1), -1);
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 1, NULL, 0, NULL, 1),
                      0);
    /* Ids must grow; parents must be in the same job; ids < 2^21. */
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 1, NULL, 0, NULL, 1),
                      -1);
    assert_int_equal (
        hearth_taskset_add_stage (ts, 3, 2, 1, &other_job, 1, NULL, 1), -1);
    assert_int_equal (
        hearth_taskset_add_stage (ts, 1u << 21, 1, 1, NULL, 0, NULL, 1), -1);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 0), -1);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 1), 0);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 1), -1);
    hearth_taskset_destroy (&ts);
}

static void
test_retry_goes_elsewhere (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 1, 1, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 1);
    hearth_taskset_add_executor (ts, 1, 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 1);
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FAILED, 10, 1),
        HEARTH_TS_RETRY);
    /* Executor 0, where it failed, is skipped while executor 1 exists. */
    assert_int_equal (hearth_taskset_offer (ts, 0, 2, as, 8), 0);
    assert_int_equal (hearth_taskset_offer (ts, 1, 2, as, 8), 1);
    assert_int_equal (as[0].index, 0);
    assert_int_equal (as[0].attempt, 1);
    hearth_taskset_destroy (&ts);
}

/* A failed task prefers an executor of another host while one exists
   (two executors on one bad host must not use up its attempts); with
   none left elsewhere, the failed host's executors take it again.  A
   loss says nothing of the host. */
static void
test_retry_prefers_another_host (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 1, 2, NULL, 0, NULL, 1);
    assert_int_equal (hearth_taskset_add_executor_on (ts, 0, 1, "bad"), 0);
    assert_int_equal (hearth_taskset_add_executor_on (ts, 1, 1, "bad"), 0);
    assert_int_equal (hearth_taskset_add_executor_on (ts, 2, 1, "good"), 0);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 1), 1);
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FAILED, 10, 1),
        HEARTH_TS_RETRY);
    /* Executor 1 shares the failed host: it gets the next fresh task,
       not the retry; executor 2, on another host, gets the retry. */
    assert_int_equal (hearth_taskset_offer (ts, 1, 2, as, 1), 1);
    assert_int_equal (as[0].index, 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 2, as, 8), 0);
    assert_int_equal (hearth_taskset_offer (ts, 2, 2, as, 1), 1);
    assert_int_equal (as[0].index, 0);
    assert_int_equal (as[0].attempt, 1);
    /* It fails there too; then the good host's executor is lost: the bad
       host's executors are all there is, and take the retry. */
    assert_int_equal (
        hearth_taskset_update (ts, 2, 1, 0, 1, HEARTH_TS_FAILED, 10, 3),
        HEARTH_TS_RETRY);
    assert_int_equal (hearth_taskset_remove_executor (ts, 2), 0);
    assert_int_equal (hearth_taskset_offer (ts, 0, 4, as, 8), 1);
    assert_int_equal (as[0].index, 0);
    assert_int_equal (as[0].attempt, 2);
    /* Lost with executor 0 while the good host is back: a loss says
       nothing of the host, the other executor of the bad host takes it. */
    assert_int_equal (hearth_taskset_add_executor_on (ts, 3, 1, "good"), 0);
    assert_int_equal (hearth_taskset_remove_executor (ts, 0), 1);
    assert_int_equal (hearth_taskset_offer (ts, 1, 5, as, 8), 1);
    assert_int_equal (as[0].index, 0);
    assert_int_equal (as[0].attempt, 3);
    hearth_taskset_destroy (&ts);
}

static void
test_retry_same_executor_when_alone (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 1, 1, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 1);
    hearth_taskset_offer (ts, 0, 0, as, 8);
    hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FAILED, 10, 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 2, as, 8), 1);
    assert_int_equal (as[0].attempt, 1);
    hearth_taskset_destroy (&ts);
}

static void
test_gives_up_after_max_failures (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 3, 2, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 2);
    hearth_ts_outcome_t out = HEARTH_TS_RETRY;
    int attempts = 0;
    /* Task 1 keeps running while task 0 fails over and over. */
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 2), 2);
    for (int a = 0; out == HEARTH_TS_RETRY; a++) {
        out = hearth_taskset_update (ts, 0, 1, 0, a, HEARTH_TS_FAILED, 10, 1);
        attempts++;
        if (out == HEARTH_TS_RETRY) {
            assert_int_equal (hearth_taskset_offer (ts, 0, 1, as, 1), 1);
            assert_int_equal (as[0].index, 0);
            assert_int_equal (as[0].attempt, a + 1);
        }
    }
    assert_int_equal (out, HEARTH_TS_GAVE_UP);
    assert_int_equal (attempts, 4);
    hearth_ts_event_t ev, failed = {0};
    int kills = 0, fails = 0;
    while (hearth_taskset_next_event (ts, &ev)) {
        if (ev.type == HEARTH_TS_EV_JOB_FAILED) {
            fails++;
            failed = ev;
        }
        if (ev.type == HEARTH_TS_EV_KILL) {
            kills++;
            assert_int_equal (ev.index, 1); /* the task still running */
        }
    }
    assert_int_equal (fails, 1);
    assert_int_equal (failed.job, 3);
    assert_int_equal (failed.index, 0);
    assert_int_equal (failed.attempt, 3);
    assert_false (failed.lost);
    assert_int_equal (kills, 1);
    /* Its killed attempt reporting later frees the slot quietly. */
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 1, 0, HEARTH_TS_KILLED, 0, 2),
        HEARTH_TS_RELEASED);
    assert_int_equal (hearth_taskset_inflight (ts), 0);
    hearth_taskset_destroy (&ts);
}

/* A failure that a retry cannot change gives up at the first attempt,
   however many attempts are left; a plain failure of another task of the
   job before it still counted as one. */
static void
test_permanent_failure_gives_up_at_once (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 4, 2, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 2);
    hearth_taskset_add_executor (ts, 1, 2);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 2), 2);
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 1, 0, HEARTH_TS_FAILED, 10, 1),
        HEARTH_TS_RETRY);
    assert_int_equal (hearth_taskset_update (ts, 0, 1, 0, 0,
                                             HEARTH_TS_FAILED_PERMANENT, 10, 1),
                      HEARTH_TS_GAVE_UP);
    hearth_ts_event_t failed = {0};
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_FAILED, &failed), 1);
    assert_int_equal (failed.job, 4);
    assert_int_equal (failed.index, 0);
    assert_int_equal (failed.attempt, 0);
    assert_false (failed.lost);
    /* Nothing of the failed job is offered any more. */
    assert_int_equal (hearth_taskset_offer (ts, 1, 2, as, 8), 0);
    hearth_taskset_destroy (&ts);
}

static void
test_executor_loss_requeues (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 1, 3, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 1);
    hearth_taskset_add_executor (ts, 1, 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 2);
    assert_int_equal (hearth_taskset_offer (ts, 1, 0, as, 8), 1);
    assert_int_equal (hearth_taskset_remove_executor (ts, 0), 2);
    assert_int_equal (hearth_taskset_remove_executor (ts, 0), -1);
    /* Updates from the lost executor are stale now. */
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FINISHED, 1, 1),
        HEARTH_TS_STALE);
    assert_int_equal (
        hearth_taskset_update (ts, 1, 1, 2, 0, HEARTH_TS_FINISHED, 1, 1),
        HEARTH_TS_ACCEPT);
    assert_int_equal (hearth_taskset_offer (ts, 1, 2, as, 8), 2);
    assert_int_equal (as[0].attempt, 1);
    assert_int_equal (as[1].attempt, 1);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_FAILED, NULL), 0);
    hearth_taskset_destroy (&ts);
}

static void
test_too_many_losses_fail_the_job (void **state)
{
    (void) state;
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.max_lost = 2;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 4, 1, NULL, 0, NULL, 1);
    for (int e = 0; e < 3; e++) {
        hearth_taskset_add_executor (ts, e, 1);
        assert_int_equal (hearth_taskset_offer (ts, e, 0, as, 8), 1);
        hearth_taskset_remove_executor (ts, e);
    }
    hearth_ts_event_t ev = {0};
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_FAILED, &ev), 1);
    assert_true (ev.lost);
    assert_int_equal (ev.job, 4);
    hearth_taskset_destroy (&ts);
}

static void
test_killed_not_by_us_is_requeued (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 1, 1, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 1);
    hearth_taskset_offer (ts, 0, 0, as, 8);
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_KILLED, 0, 1),
        HEARTH_TS_RETRY);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 1);
    hearth_taskset_destroy (&ts);
}

/* An attempt whose launch never reached its executor (LOST): run again
   without counting as a failure (max_failures 1 would give up), toward
   max_lost, elsewhere when there is another executor. */
static void
test_lost_launch_counts_as_lost (void **state)
{
    (void) state;
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.max_failures = 1;
    o.max_lost = 1;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 3, 1, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 1);
    hearth_taskset_add_executor (ts, 1, 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 1);
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_LOST, 0, 1),
        HEARTH_TS_RETRY);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_FAILED, NULL), 0);
    assert_int_equal (hearth_taskset_offer (ts, 0, 2, as, 8), 0); /* avoided */
    assert_int_equal (hearth_taskset_offer (ts, 1, 2, as, 8), 1);
    assert_int_equal (as[0].attempt, 1);
    /* the second loss is past max_lost: the job fails, for losses */
    assert_int_equal (
        hearth_taskset_update (ts, 1, 1, 0, 1, HEARTH_TS_LOST, 0, 3),
        HEARTH_TS_GAVE_UP);
    hearth_ts_event_t ev = {0};
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_FAILED, &ev), 1);
    assert_true (ev.lost);
    assert_int_equal (ev.job, 3);
    hearth_taskset_destroy (&ts);
}

static void
test_prefetch_follows_run_time (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[1024];
    hearth_taskset_add_stage (ts, 1, 1, 100000, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 1);
    size_t n = hearth_taskset_offer (ts, 0, 0, as, 1024);
    assert_int_equal (n, 2);
    /* Tasks of 5 us: the queue per core grows to the cap (128). */
    for (size_t i = 0; i < n; i++)
        hearth_taskset_update (ts, 0, 1, as[i].index, 0, HEARTH_TS_FINISHED, 5,
                               1);
    assert_int_equal (hearth_taskset_slots (ts, 1), 129);
    assert_int_equal (hearth_taskset_offer (ts, 0, 2, as, 1024), 129);
    hearth_taskset_destroy (&ts);
    /* Tasks of seconds: no queue at all. */
    ts = s_new (false, false);
    hearth_taskset_add_stage (ts, 1, 1, 10, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 2);
    n = hearth_taskset_offer (ts, 0, 0, as, 1024);
    for (size_t i = 0; i < n; i++)
        hearth_taskset_update (ts, 0, 1, as[i].index, 0, HEARTH_TS_FINISHED,
                               3000000, 1);
    assert_int_equal (hearth_taskset_slots (ts, 2), 2);
    hearth_taskset_destroy (&ts);
}

/* --task-prefetch 0: an executor holds one attempt per core, from its
   first offer on, before and after run times are known. */
static void
test_prefetch_zero_queues_nothing (void **state)
{
    (void) state;
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.prefetch_max = 0;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    hearth_assign_t as[16];
    hearth_taskset_add_stage (ts, 1, 1, 10, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 2);
    hearth_taskset_add_executor (ts, 1, 2);
    assert_int_equal (hearth_taskset_slots (ts, 2), 2);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 16), 2);
    assert_int_equal (hearth_taskset_offer (ts, 1, 0, as, 16), 2);
    hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FINISHED, 5, 1);
    assert_int_equal (hearth_taskset_slots (ts, 2), 2);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 16), 1);
    hearth_taskset_destroy (&ts);
}

static void
test_fifo_serves_first_job_first (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[16];
    hearth_taskset_add_stage (ts, 1, 1, 3, NULL, 0, NULL, 1);
    hearth_taskset_add_stage (ts, 2, 2, 3, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 2);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 16), 4);
    assert_int_equal (as[0].stage, 1);
    assert_int_equal (as[2].stage, 1);
    assert_int_equal (as[3].stage, 2);
    hearth_taskset_destroy (&ts);
}

static void
test_fair_shares_by_weight (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (true, false);
    hearth_assign_t as[64];
    hearth_taskset_add_stage (ts, 1, 1, 100, NULL, 0, "a", 1);
    hearth_taskset_add_stage (ts, 2, 2, 100, NULL, 0, "b", 2);
    hearth_taskset_add_executor (ts, 0, 6); /* 12 slots */
    size_t n = hearth_taskset_offer (ts, 0, 0, as, 64);
    assert_int_equal (n, 12);
    int a = 0, b = 0;
    for (size_t i = 0; i < n; i++)
        *(as[i].stage == 1 ? &a : &b) += 1;
    assert_int_equal (a, 4);
    assert_int_equal (b, 8);
    hearth_taskset_destroy (&ts);
}

static void
test_speculation_first_result_wins (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, true);
    hearth_assign_t as[8];
    hearth_taskset_add_stage (ts, 1, 1, 4, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 2);
    hearth_taskset_add_executor (ts, 1, 2);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 4);
    for (int i = 0; i < 3; i++)
        hearth_taskset_update (ts, 0, 1, i, 0, HEARTH_TS_FINISHED, 200000,
                               200000);
    /* Not a straggler yet at 250 ms (threshold 1.5 x 200 ms = 300 ms). */
    assert_int_equal (hearth_taskset_speculate (ts, 250000), 0);
    assert_int_equal (hearth_taskset_speculate (ts, 400000), 1);
    assert_int_equal (hearth_taskset_speculate (ts, 500000), 0); /* once */
    /* The copy does not go where the original runs. */
    assert_int_equal (hearth_taskset_offer (ts, 0, 400000, as, 8), 0);
    assert_int_equal (hearth_taskset_offer (ts, 1, 400000, as, 8), 1);
    assert_true (as[0].speculative);
    assert_int_equal (as[0].index, 3);
    assert_int_equal (as[0].attempt, 1);
    s_drain (ts, HEARTH_TS_EV_STAGE_DONE, NULL);
    assert_int_equal (hearth_taskset_update (ts, 1, 1, 3, 1, HEARTH_TS_FINISHED,
                                             1000, 401000),
                      HEARTH_TS_ACCEPT);
    hearth_ts_event_t ev, kill = {0};
    int kills = 0, done = 0;
    while (hearth_taskset_next_event (ts, &ev)) {
        kills += ev.type == HEARTH_TS_EV_KILL;
        done += ev.type == HEARTH_TS_EV_STAGE_DONE;
        if (ev.type == HEARTH_TS_EV_KILL)
            kill = ev;
    }
    assert_int_equal (kills, 1);
    assert_int_equal (done, 1);
    assert_int_equal (kill.exec_id, 0);
    assert_int_equal (kill.attempt, 0);
    /* The loser's result, should it still come, is not delivered. */
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 3, 0, HEARTH_TS_FINISHED, 1, 402000),
        HEARTH_TS_DUPLICATE);
    hearth_taskset_destroy (&ts);
}

/* Stage 1 of 4 tasks on executor 0, tasks 0 to 2 finished in 200 ms,
   task 3 a straggler whose copy (attempt 1) now runs on executor 1. */
static hearth_taskset_t *
s_copy_of_task_3 (hearth_assign_t as[8])
{
    hearth_taskset_t *ts = s_new (false, true);
    hearth_taskset_add_stage (ts, 1, 1, 4, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 2);
    hearth_taskset_add_executor (ts, 1, 2);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 4);
    for (int i = 0; i < 3; i++)
        hearth_taskset_update (ts, 0, 1, i, 0, HEARTH_TS_FINISHED, 200000,
                               200000);
    assert_int_equal (hearth_taskset_speculate (ts, 400000), 1);
    assert_int_equal (hearth_taskset_offer (ts, 1, 400000, as, 8), 1);
    assert_int_equal (as[0].index, 3);
    assert_int_equal (as[0].attempt, 1);
    return ts;
}

/* Output commits: one attempt of a task commits (Spark's coordinator). */
static void
test_one_attempt_commits (void **state)
{
    (void) state;
    hearth_assign_t as[8];
    hearth_taskset_t *ts = s_copy_of_task_3 (as);
    assert_int_equal (hearth_taskset_set_stage_commits (ts, 1), 0);
    assert_int_equal (hearth_taskset_set_stage_commits (ts, 1), 0);
    assert_int_equal (hearth_taskset_set_stage_commits (ts, 9), -1);
    /* not in flight there, or not at all: no */
    assert_false (hearth_taskset_may_commit (ts, 1, 1, 3, 0));
    assert_false (hearth_taskset_may_commit (ts, 0, 1, 3, 7));
    /* the copy asks first: yes, and again yes; the original: no */
    assert_true (hearth_taskset_may_commit (ts, 1, 1, 3, 1));
    assert_true (hearth_taskset_may_commit (ts, 1, 1, 3, 1));
    assert_false (hearth_taskset_may_commit (ts, 0, 1, 3, 0));
    /* the denied one's end re-queues nothing, counts nothing */
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 3, 0, HEARTH_TS_KILLED, 1, 401000),
        HEARTH_TS_RELEASED);
    assert_int_equal (hearth_taskset_offer (ts, 0, 401000, as, 8), 0);
    /* the allowed one lost with its executor: the task is free again */
    hearth_taskset_remove_executor (ts, 1);
    assert_int_equal (hearth_taskset_offer (ts, 0, 402000, as, 8), 1);
    int again = as[0].attempt;
    assert_true (hearth_taskset_may_commit (ts, 0, 1, 3, again));
    assert_int_equal (hearth_taskset_update (ts, 0, 1, 3, again,
                                             HEARTH_TS_FINISHED, 1, 403000),
                      HEARTH_TS_ACCEPT);
    hearth_taskset_destroy (&ts);
}

/* A stage whose tasks write no output has nothing to commit: an
   ASK_COMMIT for one of its attempts (a confused or hostile peer) is
   answered no, and the attempt, not denied a commit it never needed,
   goes on: neither killed nor re-queued, its result accepted. */
static void
test_no_commit_without_output (void **state)
{
    (void) state;
    hearth_assign_t as[8];
    hearth_taskset_t *ts = s_copy_of_task_3 (as);
    assert_false (hearth_taskset_may_commit (ts, 1, 1, 3, 1));
    assert_false (hearth_taskset_may_commit (ts, 1, 1, 3, 1));
    assert_false (hearth_taskset_may_commit (ts, 0, 1, 3, 0));
    hearth_ts_event_t ev;
    assert_false (hearth_taskset_next_event (ts, &ev));
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 3, 0, HEARTH_TS_FINISHED, 1, 401000),
        HEARTH_TS_ACCEPT);
    hearth_taskset_destroy (&ts);
}

static void
test_fail_and_forget_job (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[8];
    uint64_t finished, running, total;
    hearth_taskset_add_stage (ts, 1, 1, 4, NULL, 0, NULL, 1);
    hearth_taskset_add_stage (ts, 2, 2, 4, NULL, 0, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 2);
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 8), 4);
    assert_int_equal (
        hearth_taskset_stage_counts (ts, 1, &finished, &running, &total), 0);
    assert_int_equal (running, 2); /* 4 sent to 2 cores */
    assert_int_equal (total, 4);
    hearth_taskset_fail_job (ts, 1);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_KILL, NULL), 4);
    hearth_taskset_forget_job (ts, 1);
    assert_int_equal (hearth_taskset_inflight (ts), 0);
    assert_int_equal (
        hearth_taskset_stage_counts (ts, 1, &finished, &running, &total), -1);
    /* Job 2 now gets the slots. */
    assert_int_equal (hearth_taskset_offer (ts, 0, 1, as, 8), 4);
    assert_int_equal (as[0].stage, 2);
    hearth_taskset_destroy (&ts);
}

/* Running counts what executes: on each executor, its oldest attempts up
   to its cores (the rest are prefetched, queued there), not the attempts
   sent capped at the cluster's cores. */
static void
test_running_counts_each_executor (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (false, false);
    hearth_assign_t as[64];
    uint64_t finished, running, total;
    assert_int_equal (hearth_taskset_add_stage (ts, 1, 1, 20, NULL, 0, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_stage (ts, 2, 2, 20, NULL, 0, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 2), 0);
    assert_int_equal (hearth_taskset_add_executor (ts, 1, 4), 0);
    /* executor 0: 4 of stage 1 (2 run, 2 queued); executor 1: 1 */
    assert_int_equal (hearth_taskset_offer (ts, 0, 0, as, 64), 4);
    assert_int_equal (hearth_taskset_offer (ts, 1, 0, as, 1), 1);
    assert_int_equal (
        hearth_taskset_stage_counts (ts, 1, &finished, &running, &total), 0);
    assert_int_equal (running, 3); /* was 5: min(5 sent, 6 cores) */
    /* the oldest on executor 0 finishes: a queued one takes its core */
    assert_int_equal (
        hearth_taskset_update (ts, 0, 1, 0, 0, HEARTH_TS_FINISHED, 100, 10),
        HEARTH_TS_ACCEPT);
    hearth_taskset_stage_counts (ts, 1, &finished, &running, &total);
    assert_int_equal (running, 3);
    /* a queued one (the newest, index 3) ends: nothing moves */
    hearth_taskset_update (ts, 0, 1, 3, 0, HEARTH_TS_FINISHED, 100, 10);
    hearth_taskset_stage_counts (ts, 1, &finished, &running, &total);
    assert_int_equal (running, 3);
    assert_int_equal (finished, 2);
    /* executor 1 fills up, with stage 1 then stage 2 queued behind */
    size_t n = hearth_taskset_offer (ts, 1, 0, as, 64);
    assert_true (n >= 3);
    uint64_t r1, r2;
    hearth_taskset_stage_counts (ts, 1, &finished, &r1, &total);
    hearth_taskset_stage_counts (ts, 2, &finished, &r2, &total);
    /* the two stages together never exceed the 6 cores (each stage's own
       count capped at 6 said up to 12) */
    assert_int_equal (r1 + r2, 6);
    /* executor 0 is lost: its attempts stop counting */
    hearth_taskset_remove_executor_each (ts, 0, NULL, NULL);
    hearth_taskset_stage_counts (ts, 1, &finished, &r1, &total);
    hearth_taskset_stage_counts (ts, 2, &finished, &r2, &total);
    assert_int_equal (r1 + r2, 4);
    hearth_taskset_destroy (&ts);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_running_counts_each_executor),
        cmocka_unit_test (test_one_attempt_commits),
        cmocka_unit_test (test_no_commit_without_output),
        cmocka_unit_test (test_offer_fills_slots_in_order),
        cmocka_unit_test (test_stage_and_job_done),
        cmocka_unit_test (test_dependencies_wait),
        cmocka_unit_test (test_add_stage_rejects),
        cmocka_unit_test (test_retry_goes_elsewhere),
        cmocka_unit_test (test_retry_same_executor_when_alone),
        cmocka_unit_test (test_retry_prefers_another_host),
        cmocka_unit_test (test_gives_up_after_max_failures),
        cmocka_unit_test (test_permanent_failure_gives_up_at_once),
        cmocka_unit_test (test_executor_loss_requeues),
        cmocka_unit_test (test_too_many_losses_fail_the_job),
        cmocka_unit_test (test_killed_not_by_us_is_requeued),
        cmocka_unit_test (test_lost_launch_counts_as_lost),
        cmocka_unit_test (test_prefetch_follows_run_time),
        cmocka_unit_test (test_prefetch_zero_queues_nothing),
        cmocka_unit_test (test_fifo_serves_first_job_first),
        cmocka_unit_test (test_fair_shares_by_weight),
        cmocka_unit_test (test_speculation_first_result_wins),
        cmocka_unit_test (test_fail_and_forget_job),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_taskset_lost.c - the task set's lost map outputs and fetch
    failures (issue 21), with a fake clock: resubmitted map tasks hold back
    their reduce stage, FETCH_FAILED is not counted and waits for the
    parents, STAGE_DONE again but JOB_DONE once, the fetch-failure rounds,
    the readers of lost outputs killed (refetch), resubmit's errors, and
    the races of killed copies with resubmits. */
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

/* Stage ids of the two-stage job every test builds. */
enum { MAP = 1, RED = 2, JOB = 7 };

static hearth_taskset_t *
s_new (int max_failures, bool speculation)
{
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.max_failures = max_failures;
    o.speculation = speculation;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    return ts;
}

/* Count events of one type, draining the queue. */
static int
s_drain (hearth_taskset_t *ts, hearth_ts_event_type_t type)
{
    hearth_ts_event_t ev = {0};
    int n = 0;
    while (hearth_taskset_next_event (ts, &ev))
        n += ev.type == type;
    return n;
}

/* Offer everything exec can take, keep it in as[] (max 64). */
static size_t
s_offer (hearth_taskset_t *ts, int exec, hearth_assign_t *as)
{
    return hearth_taskset_offer (ts, exec, 0, as, 64);
}

static hearth_ts_outcome_t
s_update (hearth_taskset_t *ts, int exec, const hearth_assign_t *a,
          hearth_ts_state_t state)
{
    return hearth_taskset_update (ts, exec, a->stage, a->index, a->attempt,
                                  state, 100, 0);
}

/* A job of nmap map tasks feeding nred reduce tasks on executor 0 of 8
   cores (16 slots before any run time); the map stage run and finished,
   its events drained. */
static hearth_taskset_t *
s_mapped (int nmap, int nred, int max_failures)
{
    hearth_taskset_t *ts = s_new (max_failures, false);
    uint32_t parent = MAP;
    assert_int_equal (hearth_taskset_add_stage (ts, MAP, JOB, (uint64_t) nmap,
                                                NULL, 0, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_stage (ts, RED, JOB, (uint64_t) nred,
                                                &parent, 1, NULL, 1),
                      0);
    assert_int_equal (hearth_taskset_add_executor (ts, 0, 8), 0);
    hearth_assign_t as[64];
    size_t n = s_offer (ts, 0, as);
    assert_int_equal (n, (size_t) nmap); /* the reduce stage waits */
    for (size_t i = 0; i < n; i++)
        assert_int_equal (s_update (ts, 0, &as[i], HEARTH_TS_FINISHED),
                          HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_STAGE_DONE), 1);
    return ts;
}

static void
s_counts (hearth_taskset_t *ts, uint32_t stage, uint64_t want_finished,
          uint64_t want_running)
{
    uint64_t finished, running, total;
    assert_int_equal (
        hearth_taskset_stage_counts (ts, stage, &finished, &running, &total),
        0);
    assert_int_equal (finished, want_finished);
    assert_int_equal (running, want_running);
}

/* Launch the 4 tasks of stage on exec at 0 us, finish the first 3 at
   200 ms: at 400 ms task 3 is a straggler, queued for a copy. */
static void
s_straggle (hearth_taskset_t *ts, uint32_t stage, int exec)
{
    hearth_assign_t as[4];
    assert_int_equal (hearth_taskset_offer (ts, exec, 0, as, 4), 4);
    for (int i = 0; i < 3; i++)
        assert_int_equal (hearth_taskset_update (ts, exec, stage, as[i].index,
                                                 0, HEARTH_TS_FINISHED, 200000,
                                                 200000),
                          HEARTH_TS_ACCEPT);
    assert_int_equal (as[3].index, 3);
    assert_int_equal (hearth_taskset_speculate (ts, 400000), 1);
}

/* 4 maps feeding 1 reduce, executors 0 and 1; map 3 straggles on 0, its
   copy (attempt 1) runs on 1, the original wins at 401 ms and the copy
   is being killed. */
static hearth_taskset_t *
s_killed_copy (void)
{
    hearth_taskset_t *ts = s_new (4, true);
    uint32_t parent = MAP;
    hearth_assign_t copy;
    hearth_taskset_add_stage (ts, MAP, JOB, 4, NULL, 0, NULL, 1);
    hearth_taskset_add_stage (ts, RED, JOB, 1, &parent, 1, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 4);
    hearth_taskset_add_executor (ts, 1, 4);
    s_straggle (ts, MAP, 0);
    assert_int_equal (hearth_taskset_offer (ts, 1, 400000, &copy, 1), 1);
    assert_true (copy.speculative);
    assert_int_equal (copy.attempt, 1);
    assert_int_equal (
        hearth_taskset_update (ts, 0, MAP, 3, 0, HEARTH_TS_FINISHED, 1, 401000),
        HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_KILL), 1);
    return ts;
}

/* The only task executor 0 is offered is reduce task index, its second
   attempt (run again): it finishes, accepted. */
static void
s_rerun (hearth_taskset_t *ts, uint64_t index)
{
    hearth_assign_t as[64];
    assert_int_equal (s_offer (ts, 0, as), 1);
    assert_int_equal (as[0].stage, RED);
    assert_int_equal (as[0].index, index);
    assert_int_equal (as[0].attempt, 1);
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
}

/* A map resubmitted while its reduce stage runs: no reduce task is
   offered until the map is done again; a reduce running meanwhile
   finishes and is accepted; STAGE_DONE of the map twice, JOB_DONE once. */
static void
test_resubmit_holds_back_the_reduce (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (2, 4, 4);
    hearth_assign_t red[64], as[64];
    assert_int_equal (s_offer (ts, 0, red), 4);
    assert_int_equal (red[0].stage, RED);
    /* reduce 0 finishes; reduce 1 cannot fetch map 1; map 1 is lost */
    assert_int_equal (s_update (ts, 0, &red[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_update (ts, 0, &red[1], HEARTH_TS_FETCH_FAILED),
                      HEARTH_TS_FETCH_WAIT);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 1), 0);
    s_counts (ts, MAP, 1, 0);
    /* the only task offered is the map's; reduce 1 waits */
    assert_int_equal (s_offer (ts, 0, as), 1);
    assert_int_equal (as[0].stage, MAP);
    assert_int_equal (as[0].index, 1);
    assert_int_equal (as[0].attempt, 1);
    assert_false (as[0].speculative);
    assert_int_equal (s_offer (ts, 0, as + 1), 0);
    /* reduce 2, running all along, finishes: accepted */
    assert_int_equal (s_update (ts, 0, &red[2], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    s_counts (ts, RED, 2, 1);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_DONE), 0);
    /* the map is done again: STAGE_DONE again; reduce 1 is offered */
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    hearth_ts_event_t ev;
    assert_true (hearth_taskset_next_event (ts, &ev));
    assert_int_equal (ev.type, HEARTH_TS_EV_STAGE_DONE);
    assert_int_equal (ev.stage, MAP);
    assert_false (hearth_taskset_next_event (ts, &ev));
    s_rerun (ts, 1);
    assert_int_equal (s_update (ts, 0, &red[3], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    int stage_done = 0, job_done = 0;
    while (hearth_taskset_next_event (ts, &ev)) {
        stage_done += ev.type == HEARTH_TS_EV_STAGE_DONE && ev.stage == RED;
        job_done += ev.type == HEARTH_TS_EV_JOB_DONE && ev.job == JOB;
    }
    assert_int_equal (stage_done, 1);
    assert_int_equal (job_done, 1);
    hearth_taskset_destroy (&ts);
}

/* Several maps lost at once: the map stage runs exactly those again, and
   is done (once more) only when the last of them is. */
static void
test_resubmit_several_maps (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (6, 2, 4);
    hearth_assign_t as[64];
    assert_int_equal (s_offer (ts, 0, as), 2); /* both reduces */
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 4), 0);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 1), 0);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 3), 0);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 1), 0); /* pending */
    s_counts (ts, MAP, 3, 0);
    size_t n = s_offer (ts, 0, as);
    assert_int_equal (n, 3);
    /* in the order they were lost */
    assert_int_equal (as[0].index, 4);
    assert_int_equal (as[1].index, 1);
    assert_int_equal (as[2].index, 3);
    for (size_t i = 0; i < n; i++)
        assert_int_equal (as[i].stage, MAP);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 3), 0); /* running */
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_update (ts, 0, &as[1], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_STAGE_DONE), 0);
    assert_int_equal (s_update (ts, 0, &as[2], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_STAGE_DONE), 1);
    s_counts (ts, MAP, 6, 0);
    s_counts (ts, RED, 0, 2);
    hearth_taskset_destroy (&ts);
}

/* FETCH_FAILED is not a failure: with max_failures 1 the task is still
   run again, as often as it happens, and the job never fails. */
static void
test_fetch_failed_not_counted (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (1, 1, 1);
    hearth_assign_t as[64];
    for (int round = 0; round < 5; round++) {
        assert_int_equal (s_offer (ts, 0, as), 1);
        assert_int_equal (as[0].stage, RED);
        assert_int_equal (as[0].attempt, round);
        assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FETCH_FAILED),
                          HEARTH_TS_FETCH_WAIT);
        assert_int_equal (hearth_taskset_inflight (ts), 0);
        assert_int_equal (hearth_taskset_free_slots (ts, 0),
                          hearth_taskset_slots (ts, 8));
    }
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_FAILED), 0);
    /* and a real failure, the first, still fails the job */
    assert_int_equal (s_offer (ts, 0, as), 1);
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FAILED),
                      HEARTH_TS_GAVE_UP);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_FAILED), 1);
    hearth_taskset_destroy (&ts);
}

/* A FETCH_WAIT task is offered again only once its parent is done again,
   whichever of the resubmit and the update comes first; its speculative
   copy, still running, is left alone and may win. */
static void
test_fetch_wait_until_parent_done (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (2, 2, 4);
    hearth_assign_t red[64], map[64], as[64];
    assert_int_equal (s_offer (ts, 0, red), 2);
    /* the resubmit first, then the update */
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 0), 0);
    assert_int_equal (s_update (ts, 0, &red[0], HEARTH_TS_FETCH_FAILED),
                      HEARTH_TS_FETCH_WAIT);
    assert_int_equal (s_offer (ts, 0, map), 1);
    assert_int_equal (map[0].stage, MAP);
    /* reduce 1 cannot fetch either (same lost map): it waits too */
    assert_int_equal (s_update (ts, 0, &red[1], HEARTH_TS_FETCH_FAILED),
                      HEARTH_TS_FETCH_WAIT);
    assert_int_equal (s_offer (ts, 0, as), 0);
    s_counts (ts, RED, 0, 0);
    assert_int_equal (s_update (ts, 0, &map[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_offer (ts, 0, as), 2);
    assert_int_equal (as[0].index, 0);
    assert_int_equal (as[1].index, 1);
    hearth_taskset_destroy (&ts);

    /* The update first, then the resubmit (the driver's usual order). */
    ts = s_mapped (2, 1, 4);
    assert_int_equal (s_offer (ts, 0, red), 1);
    assert_int_equal (s_update (ts, 0, &red[0], HEARTH_TS_FETCH_FAILED),
                      HEARTH_TS_FETCH_WAIT);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 1), 0);
    assert_int_equal (s_offer (ts, 0, as), 1);
    assert_int_equal (as[0].stage, MAP);
    assert_int_equal (s_offer (ts, 0, as + 1), 0);
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_offer (ts, 0, as), 1);
    assert_int_equal (as[0].stage, RED);
    hearth_taskset_destroy (&ts);
}

/* A straggling reduce with a speculative copy: the original fails to
   fetch; the copy goes on, is not killed, and its result is accepted. */
static void
test_fetch_failed_leaves_copies_alone (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (4, true);
    uint32_t parent = MAP;
    hearth_taskset_add_stage (ts, MAP, JOB, 1, NULL, 0, NULL, 1);
    hearth_taskset_add_stage (ts, RED, JOB, 4, &parent, 1, NULL, 1);
    hearth_taskset_add_executor (ts, 0, 4);
    hearth_taskset_add_executor (ts, 1, 4);
    hearth_assign_t as[64];
    assert_int_equal (s_offer (ts, 0, as), 1);
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    s_straggle (ts, RED, 0);
    assert_int_equal (hearth_taskset_offer (ts, 1, 400000, as, 64), 1);
    assert_true (as[0].speculative);
    assert_int_equal (as[0].index, 3);
    s_drain (ts, HEARTH_TS_EV_STAGE_DONE);
    assert_int_equal (hearth_taskset_update (ts, 0, RED, 3, 0,
                                             HEARTH_TS_FETCH_FAILED, 1, 401000),
                      HEARTH_TS_FETCH_WAIT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_KILL), 0);
    s_counts (ts, RED, 3, 1);
    /* not queued again: its copy runs */
    assert_int_equal (hearth_taskset_offer (ts, 0, 402000, as, 64), 0);
    assert_int_equal (
        hearth_taskset_update (ts, 1, RED, 3, 1, HEARTH_TS_FINISHED, 1, 403000),
        HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_DONE), 1);
    hearth_taskset_destroy (&ts);
}

/* The fetch-failure rounds: FETCH_FAILEDs before a parent is re-done are
   one round; each re-done parent closes it; a finished task resets it. */
static void
test_fetch_failure_rounds (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (1, 3, 4);
    hearth_assign_t red[64], as[64];
    assert_int_equal (hearth_taskset_fetch_failures (ts, RED), 0);
    assert_int_equal (hearth_taskset_fetch_failures (ts, MAP), 0);
    assert_int_equal (s_offer (ts, 0, red), 3);
    for (int round = 1; round <= 4; round++) {
        /* reduce 0 and 1 fail to fetch the one map, which is re-run */
        for (size_t i = 0; i < 2; i++)
            assert_int_equal (s_update (ts, 0, &red[i], HEARTH_TS_FETCH_FAILED),
                              HEARTH_TS_FETCH_WAIT);
        assert_int_equal (hearth_taskset_fetch_failures (ts, RED), round);
        assert_int_equal (hearth_taskset_resubmit (ts, MAP, 0), 0);
        assert_int_equal (s_offer (ts, 0, as), 1);
        assert_int_equal (as[0].stage, MAP);
        assert_int_equal (hearth_taskset_fetch_failures (ts, RED), round);
        assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                          HEARTH_TS_ACCEPT);
        assert_int_equal (s_offer (ts, 0, red), 2);
        assert_int_equal (red[0].index, 0);
        assert_int_equal (red[1].index, 1);
    }
    assert_int_equal (hearth_taskset_fetch_failures (ts, MAP), 0);
    /* one reduce finishes: the count starts again */
    assert_int_equal (s_update (ts, 0, &red[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (hearth_taskset_fetch_failures (ts, RED), 0);
    assert_int_equal (s_update (ts, 0, &red[1], HEARTH_TS_FETCH_FAILED),
                      HEARTH_TS_FETCH_WAIT);
    assert_int_equal (hearth_taskset_fetch_failures (ts, RED), 1);
    assert_int_equal (hearth_taskset_fetch_failures (ts, 99), -1);
    assert_int_equal (errno, EINVAL);
    hearth_taskset_destroy (&ts);
}

/* Reduce tasks 0 and 2 read the output lost. */
static bool
s_reads_0_2 (void *arg, uint64_t index)
{
    (void) arg;
    return index == 0 || index == 2;
}

/* A worker lost under a running reduce stage: the attempts that read its
   outputs are killed and wait, uncounted (max_failures 1), for the map
   re-run; the others go on and are accepted; one killed attempt that
   finishes anyway is accepted, once; one round of fetch failures. */
static void
test_refetch_kills_the_readers (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (4, 4, 1);
    hearth_assign_t red[64], as[64];
    hearth_ts_event_t ev;
    assert_int_equal (s_offer (ts, 0, red), 4);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 1), 0);
    assert_int_equal (hearth_taskset_refetch (ts, RED, s_reads_0_2, NULL), 2);
    int killed[4] = {0};
    while (hearth_taskset_next_event (ts, &ev)) {
        assert_int_equal (ev.type, HEARTH_TS_EV_KILL);
        assert_int_equal (ev.stage, RED);
        assert_int_equal (ev.exec_id, 0);
        killed[ev.index]++;
    }
    assert_int_equal (killed[0] + killed[1] + killed[2] + killed[3], 2);
    assert_int_equal (killed[0], 1);
    assert_int_equal (killed[2], 1);
    assert_int_equal (hearth_taskset_fetch_failures (ts, RED), 1);
    /* asked again: the attempts being killed are not killed twice */
    assert_int_equal (hearth_taskset_refetch (ts, RED, s_reads_0_2, NULL), 0);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_KILL), 0);
    /* only the map is offered: the reduces wait for it */
    assert_int_equal (s_offer (ts, 0, as), 1);
    assert_int_equal (as[0].stage, MAP);
    assert_int_equal (s_update (ts, 0, &red[0], HEARTH_TS_KILLED),
                      HEARTH_TS_RELEASED);
    /* reduce 2 finished before it heard the kill: accepted */
    assert_int_equal (s_update (ts, 0, &red[2], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_update (ts, 0, &red[1], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_FAILED), 0);
    /* the map done again: reduce 0 runs again, not reduce 2 */
    s_rerun (ts, 0);
    assert_int_equal (s_update (ts, 0, &red[3], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_DONE), 1);
    assert_int_equal (hearth_taskset_refetch (ts, 99, s_reads_0_2, NULL), -1);
    assert_int_equal (errno, EINVAL);
    hearth_taskset_destroy (&ts);
}

/* No attempt reads what was lost (or none runs): nothing is killed and
   no round opens. */
static void
test_refetch_nothing_to_kill (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (2, 4, 4);
    hearth_assign_t red[64];
    assert_int_equal (hearth_taskset_refetch (ts, RED, s_reads_0_2, NULL), 0);
    assert_int_equal (s_offer (ts, 0, red), 4);
    assert_int_equal (s_update (ts, 0, &red[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_update (ts, 0, &red[2], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (hearth_taskset_refetch (ts, RED, s_reads_0_2, NULL), 0);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_KILL), 0);
    assert_int_equal (hearth_taskset_fetch_failures (ts, RED), 0);
    hearth_taskset_destroy (&ts);
}

static void
test_resubmit_errors (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (2, 2, 4);
    hearth_assign_t as[64];
    errno = 0;
    assert_int_equal (hearth_taskset_resubmit (ts, 99, 0), -1);
    assert_int_equal (errno, EINVAL);
    errno = 0;
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 2), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, UINT64_MAX), -1);
    assert_int_equal (errno, EINVAL);
    /* not finished (pending, then running): nothing to do */
    assert_int_equal (hearth_taskset_resubmit (ts, RED, 0), 0);
    assert_int_equal (s_offer (ts, 0, as), 2);
    assert_int_equal (hearth_taskset_resubmit (ts, RED, 1), 0);
    s_counts (ts, MAP, 2, 0);
    s_counts (ts, RED, 0, 2);
    assert_int_equal (s_offer (ts, 0, as + 2), 0); /* nothing queued */
    /* the job done: too late, JOB_DONE is not to fire twice */
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_update (ts, 0, &as[1], HEARTH_TS_FINISHED),
                      HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_DONE), 1);
    errno = 0;
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 0), -1);
    assert_int_equal (errno, EALREADY);
    s_counts (ts, MAP, 2, 0);
    assert_int_equal (s_offer (ts, 0, as), 0);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_JOB_DONE), 0);
    hearth_taskset_destroy (&ts);
}

/* A job failed, then forgotten, with resubmitted tasks and waiting
   reduces: nothing is offered, a late update is harmless, nothing leaks. */
static void
test_failed_and_forgotten_with_resubmits (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_mapped (3, 2, 4);
    hearth_assign_t red[64], as[64];
    assert_int_equal (s_offer (ts, 0, red), 2);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 0), 0);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 2), 0);
    assert_int_equal (s_update (ts, 0, &red[0], HEARTH_TS_FETCH_FAILED),
                      HEARTH_TS_FETCH_WAIT);
    assert_int_equal (s_offer (ts, 0, as), 2); /* the two maps */
    hearth_taskset_fail_job (ts, JOB);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_KILL), 3);
    errno = 0;
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 1), -1);
    assert_int_equal (errno, ECANCELED);
    assert_int_equal (s_update (ts, 0, &red[1], HEARTH_TS_FETCH_FAILED),
                      HEARTH_TS_RELEASED);
    assert_int_equal (hearth_taskset_fetch_failures (ts, RED), 1);
    assert_int_equal (s_offer (ts, 0, as + 2), 0);
    hearth_taskset_forget_job (ts, JOB);
    assert_int_equal (hearth_taskset_inflight (ts), 0);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 0), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (s_update (ts, 0, &as[0], HEARTH_TS_FINISHED),
                      HEARTH_TS_STALE);
    hearth_taskset_destroy (&ts);

    /* Forgotten while resubmitted maps are still queued (not offered). */
    ts = s_mapped (3, 2, 4);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 1), 0);
    hearth_taskset_forget_job (ts, JOB);
    assert_int_equal (s_offer (ts, 0, as), 0);
    hearth_taskset_destroy (&ts);
}

/* A map whose copy was being killed when it finished is resubmitted: the
   killed copy's end does not leave the task without an attempt, and its
   late FINISHED (it raced the kill) is accepted once. */
static void
test_resubmit_races_a_killed_copy (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_killed_copy ();
    hearth_assign_t as[64], rerun;
    /* map 3's output is lost before the copy's end is heard */
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 3), 0);
    assert_int_equal (hearth_taskset_offer (ts, 0, 402000, &rerun, 1), 1);
    assert_int_equal (rerun.index, 3);
    assert_int_equal (rerun.attempt, 2);
    /* the re-run fails for real, then the killed copy ends */
    assert_int_equal (
        hearth_taskset_update (ts, 0, MAP, 3, 2, HEARTH_TS_FAILED, 1, 403000),
        HEARTH_TS_RETRY);
    assert_int_equal (
        hearth_taskset_update (ts, 1, MAP, 3, 1, HEARTH_TS_KILLED, 1, 404000),
        HEARTH_TS_RELEASED);
    /* map 3 is run again (it was not left without an attempt) */
    assert_int_equal (hearth_taskset_offer (ts, 1, 405000, as, 64), 1);
    assert_int_equal (as[0].stage, MAP);
    assert_int_equal (as[0].index, 3);
    assert_int_equal (as[0].attempt, 3);
    assert_int_equal (
        hearth_taskset_update (ts, 1, MAP, 3, 3, HEARTH_TS_FINISHED, 1, 406000),
        HEARTH_TS_ACCEPT);
    assert_int_equal (s_drain (ts, HEARTH_TS_EV_STAGE_DONE), 1);
    hearth_taskset_destroy (&ts);

    /* The killed copy finishes instead (it raced the kill): accepted, and
       the retry queued by the resubmit is not launched as well. */
    ts = s_killed_copy ();
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 3), 0);
    assert_int_equal (hearth_taskset_resubmit (ts, MAP, 0), 0);
    assert_int_equal (
        hearth_taskset_update (ts, 1, MAP, 3, 1, HEARTH_TS_FINISHED, 1, 402000),
        HEARTH_TS_ACCEPT);
    s_counts (ts, MAP, 3, 0);
    /* map 0 runs again, map 3 does not */
    assert_int_equal (hearth_taskset_offer (ts, 0, 403000, as, 64), 1);
    assert_int_equal (as[0].stage, MAP);
    assert_int_equal (as[0].index, 0);
    assert_int_equal (hearth_taskset_offer (ts, 1, 403000, as + 1, 63), 0);
    assert_int_equal (
        hearth_taskset_update (ts, 0, MAP, 0, 1, HEARTH_TS_FINISHED, 1, 404000),
        HEARTH_TS_ACCEPT);
    s_counts (ts, MAP, 4, 0);
    /* only the reduce runs now */
    assert_int_equal (hearth_taskset_offer (ts, 0, 405000, as, 64), 1);
    assert_int_equal (as[0].stage, RED);
    hearth_taskset_destroy (&ts);
}

/* A straggler whose attempt failed is pending in the retry queue: its
   stale copy request is not launched as a "speculative" second attempt
   beside the retry, on the host the retry avoids. */
static void
test_no_copy_of_a_pending_task (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_new (4, true);
    hearth_assign_t as[64];
    hearth_taskset_add_stage (ts, MAP, JOB, 4, NULL, 0, NULL, 1);
    assert_int_equal (hearth_taskset_add_executor_on (ts, 0, 4, "h0"), 0);
    assert_int_equal (hearth_taskset_add_executor_on (ts, 1, 4, "h0"), 0);
    assert_int_equal (hearth_taskset_add_executor_on (ts, 2, 4, "h1"), 0);
    s_straggle (ts, MAP, 0);
    assert_int_equal (
        hearth_taskset_update (ts, 0, MAP, 3, 0, HEARTH_TS_FAILED, 1, 401000),
        HEARTH_TS_RETRY);
    /* executor 1 shares the failing host: no retry there, and no copy */
    assert_int_equal (hearth_taskset_offer (ts, 1, 402000, as, 64), 0);
    assert_int_equal (hearth_taskset_offer (ts, 2, 402000, as, 64), 1);
    assert_int_equal (as[0].index, 3);
    assert_false (as[0].speculative);
    hearth_taskset_destroy (&ts);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_resubmit_holds_back_the_reduce),
        cmocka_unit_test (test_resubmit_several_maps),
        cmocka_unit_test (test_fetch_failed_not_counted),
        cmocka_unit_test (test_fetch_wait_until_parent_done),
        cmocka_unit_test (test_fetch_failed_leaves_copies_alone),
        cmocka_unit_test (test_fetch_failure_rounds),
        cmocka_unit_test (test_refetch_kills_the_readers),
        cmocka_unit_test (test_refetch_nothing_to_kill),
        cmocka_unit_test (test_resubmit_errors),
        cmocka_unit_test (test_failed_and_forgotten_with_resubmits),
        cmocka_unit_test (test_resubmit_races_a_killed_copy),
        cmocka_unit_test (test_no_copy_of_a_pending_task),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

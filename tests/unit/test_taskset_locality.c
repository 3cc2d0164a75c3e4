/*  test_taskset_locality.c - locality in the task set (issue 37,
    libcore/taskset_place.c): an executor gets first the tasks that
    prefer a place it is on (its host, worker or label), then the ones
    that prefer nothing, or only places no executor is on; the others
    wait locality_wait per level (RACK when racks are told, then ANY),
    a launch at a level restarts its wait, and a wait of 0 waits for
    nothing. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "libcore/taskset.h"

/* The wait of these tests, us. */
#define WAIT 3000000

/* A board without prefetch (an executor holds as many attempts as it
   has cores), with the locality wait of these tests. */
static hearth_taskset_t *
s_new (int64_t wait_us)
{
    hearth_taskset_opts_t o;
    hearth_taskset_opts_default (&o);
    o.prefetch_max = 0;
    o.locality_wait_us = wait_us;
    hearth_taskset_t *ts = hearth_taskset_new (&o);
    assert_non_null (ts);
    return ts;
}

/* A board (s_new) with stage 1 of ntasks tasks. */
static hearth_taskset_t *
s_board (int64_t wait_us, uint64_t ntasks)
{
    hearth_taskset_t *ts = s_new (wait_us);
    assert_int_equal (
        hearth_taskset_add_stage (ts, 1, 1, ntasks, NULL, 0, NULL, 1), 0);
    return ts;
}

/* Executor id of 1 core on host, with one more place (or NULL) and
   rack (or NULL). */
static void
s_exec (hearth_taskset_t *ts, int id, const char *host, const char *place,
        const char *rack)
{
    assert_int_equal (hearth_taskset_add_executor_on (ts, id, 1, host), 0);
    const char *places[] = {place};
    assert_int_equal (hearth_taskset_set_executor_places (ts, id, places,
                                                          place ? 1 : 0, rack),
                      0);
}

/* Task index of stage 1 prefers where. */
static void
s_prefer (hearth_taskset_t *ts, uint64_t index, const char *where)
{
    const char *places[] = {where};
    assert_int_equal (hearth_taskset_prefer (ts, 1, index, places, 1), 0);
}

/* One offer to exec at now_us: true with *a when it got a task. */
static bool
s_offer (hearth_taskset_t *ts, int exec, int64_t now_us, hearth_assign_t *a)
{
    return hearth_taskset_offer (ts, exec, now_us, a, 1) == 1;
}

/* a finished on exec at now_us (its slot free again). */
static void
s_finish (hearth_taskset_t *ts, int exec, const hearth_assign_t *a,
          int64_t now_us)
{
    assert_int_equal (hearth_taskset_update (ts, exec, a->stage, a->index,
                                             a->attempt, HEARTH_TS_FINISHED,
                                             1000, now_us),
                      HEARTH_TS_ACCEPT);
}

/* a failed on exec at now_us: its outcome. */
static hearth_ts_outcome_t
s_fail (hearth_taskset_t *ts, int exec, const hearth_assign_t *a,
        int64_t now_us)
{
    return hearth_taskset_update (ts, exec, a->stage, a->index, a->attempt,
                                  HEARTH_TS_FAILED, 1000, now_us);
}

static void
test_node_local_first (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 4);
    s_prefer (ts, 0, "a");
    s_prefer (ts, 1, "a");
    s_prefer (ts, 2, "b");
    s_prefer (ts, 3, "b");
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "b", NULL, NULL);
    hearth_assign_t x;
    assert_true (s_offer (ts, 2, 0, &x));
    assert_int_equal (x.index, 2);
    assert_int_equal (x.locality, HEARTH_LOC_NODE);
    s_finish (ts, 2, &x, 10);
    assert_true (s_offer (ts, 2, 10, &x));
    assert_int_equal (x.index, 3);
    assert_true (s_offer (ts, 1, 10, &x));
    assert_int_equal (x.index, 0);
    assert_int_equal (x.locality, HEARTH_LOC_NODE);
    hearth_taskset_destroy (&ts);
}

/* A retry goes at once (to another host when there is one), and its
   level is where it runs: ANY elsewhere while an executor is on its
   host, NO_PREF once none is, NODE on its host when that is the only
   one. */
static void
test_retry_level (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 2);
    s_prefer (ts, 0, "a");
    s_prefer (ts, 1, "a");
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "c", NULL, NULL);
    hearth_assign_t x, y;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_int_equal (x.locality, HEARTH_LOC_NODE);
    assert_int_equal (s_fail (ts, 1, &x, 10), HEARTH_TS_RETRY);
    assert_true (s_offer (ts, 2, 20, &y)); /* it waits for nothing */
    assert_int_equal (y.index, x.index);
    assert_int_equal (y.attempt, 1);
    assert_int_equal (y.locality, HEARTH_LOC_ANY);
    s_finish (ts, 2, &y, 30);
    assert_true (s_offer (ts, 1, 40, &x));
    assert_int_equal (x.index, 1);
    assert_int_equal (s_fail (ts, 1, &x, 50), HEARTH_TS_RETRY);
    assert_int_equal (hearth_taskset_remove_executor (ts, 1), 0);
    assert_true (s_offer (ts, 2, 60, &y)); /* nobody on a any more */
    assert_int_equal (y.index, 1);
    assert_int_equal (y.locality, HEARTH_LOC_NO_PREF);
    hearth_taskset_destroy (&ts);

    ts = s_board (WAIT, 1); /* one host: the retry goes back there */
    s_prefer (ts, 0, "a");
    s_exec (ts, 1, "a", NULL, NULL);
    assert_true (s_offer (ts, 1, 0, &x));
    assert_int_equal (s_fail (ts, 1, &x, 10), HEARTH_TS_RETRY);
    assert_true (s_offer (ts, 1, 20, &y));
    assert_int_equal (y.attempt, 1);
    assert_int_equal (y.locality, HEARTH_LOC_NODE);
    hearth_taskset_destroy (&ts);
}

/* Tasks preferring a busy host wait locality_wait, then go ANY; a task
   preferring nothing goes at once meanwhile. */
static void
test_delay_then_any (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 4);
    s_prefer (ts, 0, "a");
    s_prefer (ts, 1, "a");
    s_prefer (ts, 2, "a"); /* task 3 prefers nothing */
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "c", NULL, NULL);
    hearth_assign_t x, y;
    assert_true (s_offer (ts, 1, 0, &x)); /* a busy from now on */
    assert_int_equal (x.index, 0);
    assert_true (s_offer (ts, 2, 0, &y));
    assert_int_equal (y.index, 3);
    assert_int_equal (y.locality, HEARTH_LOC_NO_PREF);
    s_finish (ts, 2, &y, 100);
    assert_false (s_offer (ts, 2, 100, &y)); /* tasks 1, 2 wait for a */
    assert_false (s_offer (ts, 2, WAIT - 1, &y));
    assert_true (s_offer (ts, 2, WAIT, &y));
    assert_int_equal (y.index, 1);
    assert_int_equal (y.locality, HEARTH_LOC_ANY);
    /* at ANY now: the next goes at once */
    s_finish (ts, 2, &y, WAIT + 10);
    assert_true (s_offer (ts, 2, WAIT + 10, &y));
    assert_int_equal (y.index, 2);
    assert_int_equal (y.locality, HEARTH_LOC_ANY);
    hearth_taskset_destroy (&ts);
}

/* A launch at NODE restarts the wait: ANY comes only locality_wait after
   the last local launch. */
static void
test_wait_restarts_on_local_launch (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 4);
    for (uint64_t i = 0; i < 4; i++)
        s_prefer (ts, i, "a");
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "c", NULL, NULL);
    hearth_assign_t x, y;
    assert_true (s_offer (ts, 1, 0, &x));
    s_finish (ts, 1, &x, WAIT - 100);
    assert_true (s_offer (ts, 1, WAIT - 100, &x)); /* a local launch */
    assert_int_equal (x.locality, HEARTH_LOC_NODE);
    assert_false (s_offer (ts, 2, WAIT, &y)); /* the wait restarted */
    assert_false (s_offer (ts, 2, 2 * WAIT - 101, &y));
    assert_true (s_offer (ts, 2, 2 * WAIT - 100, &y));
    assert_int_equal (y.locality, HEARTH_LOC_ANY);
    hearth_taskset_destroy (&ts);
}

/* A task whose preferred places have no executor waits for nothing. */
static void
test_unserved_place_waits_for_nothing (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 2);
    s_prefer (ts, 0, "gone");
    const char *both[] = {"gone", "a"};
    assert_int_equal (hearth_taskset_prefer (ts, 1, 1, both, 2), 0);
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "c", NULL, NULL);
    hearth_assign_t x, y;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_int_equal (x.index, 1); /* its place "a" */
    assert_true (s_offer (ts, 2, 0, &y));
    assert_int_equal (y.index, 0);
    assert_int_equal (y.locality, HEARTH_LOC_NO_PREF);
    hearth_taskset_destroy (&ts);
}

/* A place with an executor coming (granted, not registered yet) is
   awaited; once it will not come, its tasks go at once. */
static void
test_coming_executor_awaited (void **state)
{
    (void) state;
    const char *w2[] = {"worker:w2"}, *w3[] = {"worker:w3"};
    hearth_taskset_t *ts = s_board (WAIT, 1);
    s_prefer (ts, 0, "b");
    assert_int_equal (hearth_taskset_expect (ts, "b", w2, 1, true), 0);
    s_exec (ts, 1, "a", NULL, NULL);
    hearth_assign_t x;
    assert_false (s_offer (ts, 1, 0, &x)); /* b's executor is coming */
    assert_int_equal (hearth_taskset_expect (ts, "b", w2, 1, false), 0);
    assert_true (s_offer (ts, 1, 1, &x)); /* it will not: nothing to wait */
    assert_int_equal (x.locality, HEARTH_LOC_NO_PREF);
    /* expecting by worker works as well, and an extra "no longer" is
       harmless */
    assert_int_equal (hearth_taskset_expect (ts, NULL, w2, 1, false), 0);
    hearth_taskset_destroy (&ts);
    ts = s_board (WAIT, 1);
    s_prefer (ts, 0, "worker:w3");
    assert_int_equal (hearth_taskset_expect (ts, NULL, w3, 1, true), 0);
    s_exec (ts, 1, "a", NULL, NULL);
    assert_false (s_offer (ts, 1, 0, &x));
    assert_true (s_offer (ts, 1, WAIT, &x)); /* after the wait: ANY */
    assert_int_equal (x.locality, HEARTH_LOC_ANY);
    hearth_taskset_destroy (&ts);
}

/* A requirement is hard: only executors on every required place get
   the stage's tasks, however long they wait. */
static void
test_require (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 2);
    const char *ssd[] = {"disk=ssd", "rack=r1"};
    assert_int_equal (hearth_taskset_require (ts, 1, ssd, 2), 0);
    assert_false (hearth_taskset_requirement_met (ts, 1));
    s_exec (ts, 1, "a", "disk=ssd", NULL); /* not on rack r1 */
    assert_false (hearth_taskset_requirement_met (ts, 1));
    hearth_assign_t x;
    assert_false (s_offer (ts, 1, 10 * WAIT, &x));
    const char *both[] = {"disk=ssd", "rack=r1"};
    assert_int_equal (hearth_taskset_add_executor_on (ts, 2, 1, "b"), 0);
    assert_int_equal (hearth_taskset_set_executor_places (ts, 2, both, 2, NULL),
                      0);
    assert_true (hearth_taskset_requirement_met (ts, 1));
    assert_true (s_offer (ts, 2, 10 * WAIT, &x));
    assert_false (s_offer (ts, 1, 10 * WAIT, &x));
    assert_int_equal (hearth_taskset_require (ts, 1, ssd, 1), -1);
    assert_int_equal (errno, EINVAL);
    assert_true (hearth_taskset_requirement_met (ts, 1));
    assert_false (hearth_taskset_requirement_met (ts, 9));
    hearth_taskset_destroy (&ts);
}

/* A task preferring a served place does not go elsewhere because
   another of its places is unserved. */
static void
test_served_place_still_awaited (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 2);
    const char *both[] = {"gone", "a"};
    assert_int_equal (hearth_taskset_prefer (ts, 1, 0, both, 2), 0);
    assert_int_equal (hearth_taskset_prefer (ts, 1, 1, both, 2), 0);
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "c", NULL, NULL);
    hearth_assign_t x, y;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_false (s_offer (ts, 2, 1, &y)); /* task 1 waits for a */
    assert_true (s_offer (ts, 2, WAIT, &y));
    assert_int_equal (y.index, 1);
    assert_int_equal (y.locality, HEARTH_LOC_ANY);
    hearth_taskset_destroy (&ts);
}

/* Once an executor has gone without a task because of the wait, the
   busy host's local launches no longer renew it: the idle core waits one
   wait, not until the busy host has run every task (SPARK-18886). */
static void
test_idle_core_waits_one_wait (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 4);
    for (uint64_t i = 0; i < 4; i++)
        s_prefer (ts, i, "a");
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "c", NULL, NULL);
    hearth_assign_t x, y;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_false (s_offer (ts, 2, 10, &y)); /* c idles: declined */
    s_finish (ts, 1, &x, WAIT - 100);
    assert_true (s_offer (ts, 1, WAIT - 100, &x)); /* a launches locally */
    assert_int_equal (x.locality, HEARTH_LOC_NODE);
    assert_true (s_offer (ts, 2, WAIT, &y)); /* not renewed: ANY */
    assert_int_equal (y.locality, HEARTH_LOC_ANY);
    /* a still takes its own first */
    s_finish (ts, 1, &x, WAIT + 10);
    assert_true (s_offer (ts, 1, WAIT + 10, &x));
    assert_int_equal (x.locality, HEARTH_LOC_NODE);
    hearth_taskset_destroy (&ts);
}

/* With racks told: RACK after one wait, ANY after two. */
static void
test_rack_level (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 3);
    for (uint64_t i = 0; i < 3; i++)
        s_prefer (ts, i, "a");
    s_exec (ts, 1, "a", NULL, "r1");
    s_exec (ts, 2, "e", NULL, "r1");
    s_exec (ts, 3, "f", NULL, "r2");
    hearth_assign_t x, y;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_false (s_offer (ts, 2, WAIT - 1, &y));
    assert_false (s_offer (ts, 3, WAIT, &y)); /* RACK: not f's rack */
    assert_true (s_offer (ts, 2, WAIT, &y));
    assert_int_equal (y.locality, HEARTH_LOC_RACK);
    assert_false (s_offer (ts, 3, 2 * WAIT - 1, &y)); /* restarted */
    assert_true (s_offer (ts, 3, 2 * WAIT, &y));
    assert_int_equal (y.locality, HEARTH_LOC_ANY);
    hearth_taskset_destroy (&ts);
}

/* A worker and a label are places too. */
static void
test_worker_and_label_places (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 2);
    s_prefer (ts, 0, "disk=ssd");
    s_prefer (ts, 1, "worker:w2");
    s_exec (ts, 1, "a", "disk=ssd", NULL);
    const char *w2[] = {"worker:w2", "disk=hdd"};
    assert_int_equal (hearth_taskset_add_executor_on (ts, 2, 1, "b"), 0);
    assert_int_equal (hearth_taskset_set_executor_places (ts, 2, w2, 2, NULL),
                      0);
    hearth_assign_t x;
    assert_true (s_offer (ts, 2, 0, &x));
    assert_int_equal (x.index, 1);
    assert_int_equal (x.locality, HEARTH_LOC_NODE);
    assert_true (s_offer (ts, 1, 0, &x));
    assert_int_equal (x.index, 0);
    assert_int_equal (x.locality, HEARTH_LOC_NODE);
    hearth_taskset_destroy (&ts);
}

/* An executor is a place of its own ("executor:N"): a task preferring
   it (its input kept in that executor's memory) goes there PROCESS_LOCAL,
   one preferring its worker NODE_LOCAL. */
static void
test_executor_place (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 2);
    s_prefer (ts, 0, "worker:w1");
    s_prefer (ts, 1, "executor:1");
    const char *places[] = {"executor:1", "worker:w1"};
    assert_int_equal (hearth_taskset_add_executor_on (ts, 1, 2, "a"), 0);
    assert_int_equal (
        hearth_taskset_set_executor_places (ts, 1, places, 2, NULL), 0);
    hearth_assign_t x, y;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_true (s_offer (ts, 1, 0, &y));
    assert_int_equal (x.index + y.index, 1);
    hearth_assign_t *mem = x.index == 1 ? &x : &y, *node = x.index ? &y : &x;
    assert_int_equal (mem->locality, HEARTH_LOC_PROCESS);
    assert_int_equal (node->locality, HEARTH_LOC_NODE);
    hearth_taskset_destroy (&ts);
}

/* A wait of 0: nothing waits. */
static void
test_no_wait (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (0, 2);
    s_prefer (ts, 0, "a");
    s_prefer (ts, 1, "a");
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "c", NULL, NULL);
    hearth_assign_t x;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_true (s_offer (ts, 2, 0, &x));
    assert_int_equal (x.locality, HEARTH_LOC_ANY);
    hearth_taskset_destroy (&ts);
}

/* A stage waiting for its places lets a later stage use the core. */
static void
test_later_stage_uses_the_core (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 2);
    assert_int_equal (hearth_taskset_add_stage (ts, 2, 2, 1, NULL, 0, NULL, 1),
                      0);
    s_prefer (ts, 0, "a");
    s_prefer (ts, 1, "a");
    s_exec (ts, 1, "a", NULL, NULL);
    s_exec (ts, 2, "c", NULL, NULL);
    hearth_assign_t x;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_true (s_offer (ts, 2, 0, &x));
    assert_int_equal (x.stage, 2);
    assert_int_equal (x.locality, HEARTH_LOC_NO_PREF);
    hearth_taskset_destroy (&ts);
}

/* Failures and retries keep working; preferences are refused once the
   stage was offered, and out of range. */
static void
test_rules (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 1);
    const char *a[] = {"a"};
    assert_int_equal (hearth_taskset_prefer (ts, 1, 1, a, 1), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (hearth_taskset_prefer (ts, 9, 0, a, 1), -1);
    s_prefer (ts, 0, "a");
    s_exec (ts, 1, "a", NULL, NULL);
    assert_int_equal (hearth_taskset_set_executor_places (ts, 7, NULL, 0, NULL),
                      -1);
    assert_int_equal (errno, ENOENT);
    hearth_assign_t x;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_int_equal (hearth_taskset_prefer (ts, 1, 0, a, 1), -1);
    assert_int_equal (errno, EINVAL);
    /* it fails once: its retry is offered (not waiting for a place) */
    assert_int_equal (hearth_taskset_update (ts, 1, 1, 0, x.attempt,
                                             HEARTH_TS_FAILED, 10, 10),
                      HEARTH_TS_RETRY);
    assert_true (s_offer (ts, 1, 20, &x));
    assert_int_equal (x.attempt, 1);
    s_finish (ts, 1, &x, 30);
    hearth_ts_event_t ev;
    assert_true (hearth_taskset_next_event (ts, &ev));
    assert_int_equal (ev.type, HEARTH_TS_EV_STAGE_DONE);
    hearth_taskset_destroy (&ts);
}

/* What the never-launched tasks prefer, the most wanted first, for
   dynamic allocation's requests: before the first offer (the pairs as
   given) and after (a launched task counts no more). */
static void
test_place_demand (void **state)
{
    (void) state;
    hearth_taskset_t *ts = s_board (WAIT, 6);
    s_prefer (ts, 0, "b");
    s_prefer (ts, 1, "a");
    s_prefer (ts, 2, "a");
    s_prefer (ts, 3, "b");
    s_prefer (ts, 4, "a"); /* task 5 prefers nothing */
    const char *names[4];
    uint64_t counts[4];
    assert_int_equal (hearth_taskset_place_demand (ts, names, counts, 4), 2);
    assert_string_equal (names[0], "a");
    assert_int_equal (counts[0], 3);
    assert_string_equal (names[1], "b");
    assert_int_equal (counts[1], 2);
    assert_int_equal (hearth_taskset_place_demand (ts, names, counts, 1), 1);
    assert_string_equal (names[0], "a");
    s_exec (ts, 1, "a", NULL, NULL);
    hearth_assign_t x;
    assert_true (s_offer (ts, 1, 0, &x));
    assert_int_equal (x.index, 1);
    assert_int_equal (hearth_taskset_place_demand (ts, names, counts, 4), 2);
    assert_int_equal (counts[0] + counts[1], 4);
    assert_int_equal (counts[0], 2);
    hearth_taskset_destroy (&ts);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_node_local_first),
        cmocka_unit_test (test_delay_then_any),
        cmocka_unit_test (test_retry_level),
        cmocka_unit_test (test_place_demand),
        cmocka_unit_test (test_wait_restarts_on_local_launch),
        cmocka_unit_test (test_idle_core_waits_one_wait),
        cmocka_unit_test (test_unserved_place_waits_for_nothing),
        cmocka_unit_test (test_served_place_still_awaited),
        cmocka_unit_test (test_coming_executor_awaited),
        cmocka_unit_test (test_require),
        cmocka_unit_test (test_rack_level),
        cmocka_unit_test (test_worker_and_label_places),
        cmocka_unit_test (test_executor_place),
        cmocka_unit_test (test_no_wait),
        cmocka_unit_test (test_later_stage_uses_the_core),
        cmocka_unit_test (test_rules),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

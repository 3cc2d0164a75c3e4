/*  test_alloc_target.c - the allocator with executor targets (alloc.h
    rule 6, dynamic allocation): an application never gets more new
    executors than its target leaves room for, in both policies, with and
    without cores_per_executor; a key's cap still holds under a target;
    an application without a target is placed as before.  And rule 7:
    an application placed only on some workers (on_workers, the workers
    carrying its --executor-label) gets nothing elsewhere; and rule 8:
    preferred workers (its waiting tasks' places) are given to first. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/alloc.h"

#define GiB 1024

/* What one pass gave each app. */
typedef struct {
    size_t executors; /* new executors */
    int cores;        /* their cores */
    int workers[16];  /* executors per input worker */
} s_grant_t;

/* nworkers workers of cores free cores and 64 GiB; one pass, app a's
   grants in g[a]. */
static void
s_pass (size_t nworkers, int cores, const hearth_alloc_app_t *apps,
        size_t napps, bool spread, const hearth_alloc_group_t *groups,
        size_t ngroups, s_grant_t *g)
{
    hearth_alloc_worker_t workers[16];
    for (size_t i = 0; i < nworkers; i++)
        workers[i] = (hearth_alloc_worker_t){true, cores, 64 * GiB, NULL, 0};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = nworkers,
                               .apps = apps,
                               .napps = napps,
                               .groups = groups,
                               .ngroups = ngroups,
                               .spread_out = spread};
    hearth_alloc_result_t r = {0};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    memset (g, 0, napps * sizeof *g);
    for (size_t i = 0; i < r.nexecutors; i++) {
        s_grant_t *a = &g[r.executors[i].app];
        a->executors++;
        a->cores += r.executors[i].cores;
        a->workers[r.executors[i].worker]++;
    }
    hearth_alloc_result_clear (&r);
}

static hearth_alloc_app_t
s_app (int cores_left, int cpe, bool has_target, int executors_left)
{
    hearth_alloc_app_t a = {cores_left, cpe, GiB, NULL, NULL, 0};
    a.has_target = has_target;
    a.executors_left = executors_left;
    return a;
}

/* 1-core executors on 16 one-core workers: a target of 3 gets 3, in
   both policies; 0 left gets none. */
static void
test_target_caps_cpe_set (void **state)
{
    (void) state;
    s_grant_t g;
    for (int spread = 0; spread < 2; spread++) {
        hearth_alloc_app_t app = s_app (HEARTH_ALLOC_UNLIMITED, 1, true, 3);
        s_pass (16, 1, &app, 1, spread, NULL, 0, &g);
        assert_int_equal (g.executors, 3);
        assert_int_equal (g.cores, 3);
        app.executors_left = 0;
        s_pass (16, 1, &app, 1, spread, NULL, 0, &g);
        assert_int_equal (g.executors, 0);
        app.executors_left = -2; /* it holds more than it now wants */
        s_pass (16, 1, &app, 1, spread, NULL, 0, &g);
        assert_int_equal (g.executors, 0);
    }
}

/* 2-core executors on 2 workers of 8 cores: a target of 5 gets 5
   executors of 2 cores in both policies (consolidate packs 4 on the
   first). */
static void
test_target_caps_multi_core (void **state)
{
    (void) state;
    s_grant_t g;
    hearth_alloc_app_t app = s_app (HEARTH_ALLOC_UNLIMITED, 2, true, 5);
    s_pass (2, 8, &app, 1, true, NULL, 0, &g);
    assert_int_equal (g.executors, 5);
    assert_int_equal (g.cores, 10);
    assert_int_equal (g.workers[0], 3);
    assert_int_equal (g.workers[1], 2);
    s_pass (2, 8, &app, 1, false, NULL, 0, &g);
    assert_int_equal (g.executors, 5);
    assert_int_equal (g.workers[0], 4);
    assert_int_equal (g.workers[1], 1);
}

/* cores_per_executor unset: one executor per worker; a target of 2 on 4
   workers gets 2 executors, each with all its worker's cores. */
static void
test_target_one_per_worker (void **state)
{
    (void) state;
    s_grant_t g;
    for (int spread = 0; spread < 2; spread++) {
        hearth_alloc_app_t app = s_app (HEARTH_ALLOC_UNLIMITED, 0, true, 2);
        s_pass (4, 4, &app, 1, spread, NULL, 0, &g);
        assert_int_equal (g.executors, 2);
        assert_int_equal (g.cores, 8);
    }
}

/* max_cores (cores_left) still caps under a larger target. */
static void
test_cores_left_still_caps (void **state)
{
    (void) state;
    s_grant_t g;
    hearth_alloc_app_t app = s_app (3, 1, true, 10);
    s_pass (16, 1, &app, 1, true, NULL, 0, &g);
    assert_int_equal (g.executors, 3);
}

/* A key's cap holds under a target, and the target that holds an app
   back is not reported as its cap (apps_capped). */
static void
test_group_cap_still_holds (void **state)
{
    (void) state;
    s_grant_t g[1];
    hearth_alloc_group_t groups[] = {{2, 0}};
    hearth_alloc_app_t app = s_app (HEARTH_ALLOC_UNLIMITED, 1, true, 6);
    app.group = &groups[0];
    s_pass (16, 1, &app, 1, true, groups, 1, g);
    assert_int_equal (g[0].executors, 2);
    groups[0].cores_limit = 10;
    s_pass (16, 1, &app, 1, true, groups, 1, g);
    assert_int_equal (g[0].executors, 6);
}

/* The cores a target leaves go to the next application in the same
   pass; an app without a target takes everything as before. */
static void
test_leftover_to_next_app (void **state)
{
    (void) state;
    s_grant_t g[2];
    hearth_alloc_app_t apps[2] = {s_app (HEARTH_ALLOC_UNLIMITED, 1, true, 2),
                                  s_app (HEARTH_ALLOC_UNLIMITED, 1, false, 0)};
    for (int spread = 0; spread < 2; spread++) {
        s_pass (8, 1, apps, 2, spread, NULL, 0, g);
        assert_int_equal (g[0].executors, 2);
        assert_int_equal (g[1].executors, 6);
    }
}

/* Rule 7: workers 1 and 3 of 4 carry the labels: every executor goes
   there, in both policies, with and without cores_per_executor; with
   none carrying them, nothing is placed. */
static void
test_on_workers (void **state)
{
    (void) state;
    s_grant_t g;
    bool on[4] = {false, true, false, true};
    for (int spread = 0; spread < 2; spread++)
        for (int cpe = 0; cpe < 2; cpe++) {
            hearth_alloc_app_t app =
                s_app (HEARTH_ALLOC_UNLIMITED, cpe, false, 0);
            app.on_workers = on;
            s_pass (4, 2, &app, 1, spread, NULL, 0, &g);
            assert_int_equal (g.cores, 4);
            assert_int_equal (g.workers[0] + g.workers[2], 0);
            assert_true (g.workers[1] > 0 && g.workers[3] > 0);
        }
    bool none[4] = {false, false, false, false};
    hearth_alloc_app_t app = s_app (HEARTH_ALLOC_UNLIMITED, 1, false, 0);
    app.on_workers = none;
    s_pass (4, 2, &app, 1, true, NULL, 0, &g);
    assert_int_equal (g.executors, 0);
}

/* Rule 8: a preferred worker gets the first new executor, though
   another has more free cores, in both policies; consolidate fills it
   before going on, spread-out goes on to the others in the usual
   order. */
static void
test_prefer_workers (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[3] = {{true, 8, 64 * GiB, NULL, 0},
                                        {true, 4, 64 * GiB, NULL, 0},
                                        {true, 2, 64 * GiB, NULL, 0}};
    bool prefer[3] = {false, false, true};
    for (int spread = 0; spread < 2; spread++)
        for (int with = 0; with < 2; with++) {
            hearth_alloc_app_t app = s_app (HEARTH_ALLOC_UNLIMITED, 1, true, 3);
            app.prefer_workers = with ? prefer : NULL;
            hearth_alloc_input_t in = {.workers = workers,
                                       .nworkers = 3,
                                       .apps = &app,
                                       .napps = 1,
                                       .spread_out = spread};
            hearth_alloc_result_t r = {0};
            assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
            assert_int_equal (r.nexecutors, 3);
            int on[3] = {0};
            for (size_t i = 0; i < r.nexecutors; i++)
                on[r.executors[i].worker]++;
            assert_int_equal (r.executors[0].worker, with ? 2 : 0);
            assert_int_equal (on[2], spread ? 1 : with ? 2 : 0);
            hearth_alloc_result_clear (&r);
        }
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_on_workers),
        cmocka_unit_test (test_prefer_workers),
        cmocka_unit_test (test_target_caps_cpe_set),
        cmocka_unit_test (test_target_caps_multi_core),
        cmocka_unit_test (test_target_one_per_worker),
        cmocka_unit_test (test_cores_left_still_caps),
        cmocka_unit_test (test_group_cap_still_holds),
        cmocka_unit_test (test_leftover_to_next_app),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

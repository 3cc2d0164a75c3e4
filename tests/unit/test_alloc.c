/*  test_alloc.c - the allocator against worked examples, Spark
    standalone's MasterSuite (3 workers of 8 free cores and 16 GiB, 2 GiB
    per executor unless stated), plus drivers, dead workers, FIFO order
    and the shuffle.  test_alloc_ref.c holds its comparison with an
    independent reference on random clusters and the 10,000-worker
    pass; per-key caps (groups) last. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/alloc.h"

#define GiB 1024

/* Cores and executors granted per worker by one pass over one app. */
typedef struct {
    int cores[16];     /* cores per input worker */
    int executors[16]; /* executors per input worker */
    int sizes[64];     /* cores of each executor, in launch order */
    size_t n;          /* executors launched */
} s_grant_t;

static void
s_collect (const hearth_alloc_result_t *r, size_t app, s_grant_t *g)
{
    memset (g, 0, sizeof *g);
    for (size_t i = 0; i < r->nexecutors; i++) {
        const hearth_alloc_executor_t *e = &r->executors[i];
        if (e->app != app)
            continue;
        g->cores[e->worker] += e->cores;
        g->executors[e->worker]++;
        if (g->n < 64)
            g->sizes[g->n++] = e->cores;
    }
}

/* One app on workers with the given free cores and 16 GiB each. */
static void
s_run (const int *free_cores, size_t nworkers, int max, int cpe, int64_t mem_mb,
       bool spread, s_grant_t *g)
{
    hearth_alloc_worker_t workers[16];
    for (size_t i = 0; i < nworkers; i++)
        workers[i] = (hearth_alloc_worker_t){true, free_cores[i], 16 * GiB};
    hearth_alloc_app_t app = {max ? max : HEARTH_ALLOC_UNLIMITED, cpe, mem_mb};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = nworkers,
                               .apps = &app,
                               .napps = 1,
                               .spread_out = spread};
    hearth_alloc_result_t r = {0};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    s_collect (&r, 0, g);
    hearth_alloc_result_clear (&r);
}

static const int s_888[] = {8, 8, 8};

static void
s_expect3 (const s_grant_t *g, int a, int b, int c)
{
    assert_int_equal (g->cores[0], a);
    assert_int_equal (g->cores[1], b);
    assert_int_equal (g->cores[2], c);
}

static void
test_max12_cpe2 (void **state)
{
    (void) state;
    s_grant_t g;
    s_run (s_888, 3, 12, 2, 2 * GiB, true, &g);
    s_expect3 (&g, 4, 4, 4);
    assert_int_equal (g.n, 6);
    s_run (s_888, 3, 12, 2, 2 * GiB, false, &g);
    s_expect3 (&g, 8, 4, 0);
    assert_int_equal (g.executors[0], 4);
    assert_int_equal (g.executors[1], 2);
}

static void
test_max12_cpe_unset (void **state)
{
    (void) state;
    s_grant_t g;
    s_run (s_888, 3, 12, 0, 2 * GiB, true, &g);
    s_expect3 (&g, 4, 4, 4);
    assert_int_equal (g.n, 3); /* three 4-core executors */
    for (int i = 0; i < 3; i++)
        assert_int_equal (g.sizes[i], 4);
    s_run (s_888, 3, 12, 0, 2 * GiB, false, &g);
    s_expect3 (&g, 8, 4, 0);
    assert_int_equal (g.n, 2); /* an 8 and a 4 */
    assert_int_equal (g.sizes[0], 8);
    assert_int_equal (g.sizes[1], 4);
}

static void
test_max_unset (void **state)
{
    (void) state;
    s_grant_t g;
    for (int spread = 0; spread < 2; spread++) {
        s_run (s_888, 3, 0, 2, 2 * GiB, spread, &g);
        s_expect3 (&g, 8, 8, 8);
        assert_int_equal (g.n, 12);
        s_run (s_888, 3, 0, 0, 2 * GiB, spread, &g);
        s_expect3 (&g, 8, 8, 8);
        assert_int_equal (g.n, 3);
    }
}

static void
test_max13_cpe2_last_core_never_granted (void **state)
{
    (void) state;
    s_grant_t g;
    s_run (s_888, 3, 13, 2, 2 * GiB, true, &g);
    s_expect3 (&g, 4, 4, 4);
    s_run (s_888, 3, 13, 2, 2 * GiB, false, &g);
    s_expect3 (&g, 8, 4, 0);
}

static void
test_memory_caps_executors (void **state)
{
    (void) state;
    s_grant_t g;
    /* 6 GiB executors: two fit in 16 GiB, a third does not. */
    s_run (s_888, 3, 24, 2, 6 * GiB, true, &g);
    s_expect3 (&g, 4, 4, 4);
    s_run (s_888, 3, 24, 2, 6 * GiB, false, &g);
    s_expect3 (&g, 4, 4, 4);
    /* One executor per worker needs its memory only once. */
    s_run (s_888, 3, 24, 0, 6 * GiB, false, &g);
    s_expect3 (&g, 8, 8, 8);
    /* 20 GiB executors fit nowhere. */
    s_run (s_888, 3, 24, 2, 20 * GiB, true, &g);
    s_expect3 (&g, 0, 0, 0);
}

static void
test_uneven_workers (void **state)
{
    (void) state;
    static const int free_cores[] = {8, 6, 2};
    s_grant_t g;
    s_run (free_cores, 3, 8, 2, 2 * GiB, true, &g);
    s_expect3 (&g, 4, 2, 2);
    s_run (free_cores, 3, 8, 2, 2 * GiB, false, &g);
    s_expect3 (&g, 8, 0, 0);
}

static void
test_usable_order_most_free_first (void **state)
{
    (void) state;
    /* Input order 2, 6, 8: the 8-core worker is served first. */
    static const int free_cores[] = {2, 6, 8};
    s_grant_t g;
    s_run (free_cores, 3, 8, 2, 2 * GiB, false, &g);
    s_expect3 (&g, 0, 0, 8);
    s_run (free_cores, 3, 4, 2, 2 * GiB, true, &g);
    s_expect3 (&g, 0, 2, 2);
    /* A worker with fewer free cores than one executor is not usable. */
    s_run (free_cores, 3, 0, 4, 2 * GiB, true, &g);
    s_expect3 (&g, 0, 4, 8);
}

static void
test_cores_left_below_one_executor (void **state)
{
    (void) state;
    s_grant_t g;
    s_run (s_888, 3, 3, 4, 2 * GiB, true, &g);
    s_expect3 (&g, 0, 0, 0);
    s_run (s_888, 3, 1, 0, 2 * GiB, true, &g);
    s_expect3 (&g, 1, 0, 0);
}

static void
test_dead_and_empty (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[] = {
        {false, 8, 16 * GiB}, {true, 8, 16 * GiB}, {true, 0, 16 * GiB}};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 2, 2 * GiB};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 3,
                               .apps = &app,
                               .napps = 1,
                               .spread_out = true};
    hearth_alloc_result_t r = {0};
    s_grant_t g;
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    s_collect (&r, 0, &g);
    s_expect3 (&g, 0, 8, 0);
    hearth_alloc_result_clear (&r);
    in.nworkers = 0;
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    assert_int_equal (r.nexecutors, 0);
    hearth_alloc_result_clear (&r);
}

static void
test_apps_fifo (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[] = {
        {true, 8, 16 * GiB}, {true, 8, 16 * GiB}, {true, 8, 16 * GiB}};
    hearth_alloc_app_t apps[] = {{20, 2, 2 * GiB},
                                 {HEARTH_ALLOC_UNLIMITED, 0, 1 * GiB},
                                 {4, 4, 1 * GiB}};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 3,
                               .apps = apps,
                               .napps = 3,
                               .spread_out = true};
    hearth_alloc_result_t r = {0};
    s_grant_t g;
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    s_collect (&r, 0, &g);
    s_expect3 (&g, 8, 6, 6); /* 20 cores, 2 at a time */
    s_collect (&r, 1, &g);
    s_expect3 (&g, 0, 2, 2); /* the rest, one executor per worker */
    s_collect (&r, 2, &g);
    s_expect3 (&g, 0, 0, 0); /* nothing left */
    hearth_alloc_result_clear (&r);
}

static void
test_drivers_first_round_robin (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[] = {
        {true, 2, 4 * GiB}, {true, 2, 4 * GiB}, {false, 8, 16 * GiB}};
    hearth_alloc_driver_t drivers[] = {
        {1, 1 * GiB}, {1, 1 * GiB}, {1, 1 * GiB}, {4, 1 * GiB}};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 1, 1 * GiB};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 3,
                               .drivers = drivers,
                               .ndrivers = 4,
                               .apps = &app,
                               .napps = 1,
                               .spread_out = true};
    hearth_alloc_result_t r = {0};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    assert_int_equal (r.ndrivers, 3); /* the 4-core driver fits nowhere */
    assert_int_equal (r.drivers[0].worker, 0);
    assert_int_equal (r.drivers[1].worker, 1);
    assert_int_equal (r.drivers[2].worker, 0);
    assert_int_equal (r.drivers[2].driver, 2);
    /* The app gets what the drivers left: one core on worker 1. */
    assert_int_equal (r.nexecutors, 1);
    assert_int_equal (r.executors[0].worker, 1);
    hearth_alloc_result_clear (&r);
}

/* A fixed sequence instead of randomness: always the last index. */
static unsigned
s_rand_last (void *arg, unsigned bound)
{
    int *calls = arg;
    (*calls)++;
    return bound - 1;
}

/* Always index 0: a fixed, known permutation. */
static unsigned
s_rand_zero (void *arg, unsigned bound)
{
    (void) arg;
    (void) bound;
    return 0;
}

static void
test_drivers_shuffle_is_an_input (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[] = {
        {true, 1, GiB}, {true, 1, GiB}, {true, 1, GiB}};
    hearth_alloc_driver_t drivers[] = {{1, GiB}};
    int calls = 0;
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 3,
                               .drivers = drivers,
                               .ndrivers = 1,
                               .rand = s_rand_last,
                               .rand_arg = &calls};
    hearth_alloc_result_t r = {0};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    assert_int_equal (calls, 2);               /* Fisher-Yates over 3 workers */
    assert_int_equal (r.drivers[0].worker, 0); /* identity permutation */
    hearth_alloc_result_clear (&r);
    in.rand = s_rand_zero;
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    /* swap(2,0) -> 2 1 0, swap(1,0) -> 1 2 0: worker 1 first. */
    assert_int_equal (r.drivers[0].worker, 1);
    hearth_alloc_result_clear (&r);
}

static void
test_assign_cores_direct (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[] = {
        {true, 8, 16 * GiB}, {true, 8, 16 * GiB}, {true, 8, 16 * GiB}};
    size_t usable[] = {2, 0, 1};
    int assigned[3];
    hearth_alloc_app_t app = {5, 0, GiB};
    hearth_alloc_assign_cores (&app, workers, usable, 3, true, assigned);
    assert_int_equal (assigned[0], 2);
    assert_int_equal (assigned[1], 2);
    assert_int_equal (assigned[2], 1);
}

/* --- per-key caps (groups) ---------------------------------------------- */

/* A key at 2 of its 6 cores: its first app gets the 4 left, its second
   none; both are told capped.  An app of no key gets the rest. */
static void
test_group_caps_apps (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[] = {
        {true, 8, 16 * GiB}, {true, 8, 16 * GiB}, {true, 8, 16 * GiB}};
    hearth_alloc_group_t groups[] = {{6, 2}};
    hearth_alloc_app_t apps[] = {{HEARTH_ALLOC_UNLIMITED, 2, GiB, &groups[0]},
                                 {HEARTH_ALLOC_UNLIMITED, 1, GiB, &groups[0]},
                                 {HEARTH_ALLOC_UNLIMITED, 0, GiB, NULL}};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 3,
                               .apps = apps,
                               .napps = 3,
                               .groups = groups,
                               .ngroups = 1,
                               .spread_out = true};
    hearth_alloc_result_t r = {0};
    s_grant_t g;
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    s_collect (&r, 0, &g);
    s_expect3 (&g, 2, 2, 0);
    s_collect (&r, 1, &g);
    s_expect3 (&g, 0, 0, 0);
    s_collect (&r, 2, &g);
    s_expect3 (&g, 6, 6, 8); /* no key: everything left */
    assert_non_null (r.apps_capped);
    assert_true (r.apps_capped[0]);
    assert_true (r.apps_capped[1]);
    assert_false (r.apps_capped[2]);
    assert_int_equal (groups[0].cores_used, 2); /* the input is not changed */
    hearth_alloc_result_clear (&r);
    assert_null (r.apps_capped);
}

/* Drivers count against their key: a 2-core driver fits under a cap of
   4, a 3-core one no longer does (it waits, capped) and the key's app
   gets the 2 cores left, capped. */
static void
test_group_counts_drivers (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[] = {{true, 8, 16 * GiB},
                                       {true, 8, 16 * GiB}};
    hearth_alloc_group_t groups[] = {{4, 0}};
    hearth_alloc_driver_t drivers[] = {{2, GiB, &groups[0]},
                                       {3, GiB, &groups[0]}};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 1, GiB, &groups[0]};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 2,
                               .drivers = drivers,
                               .ndrivers = 2,
                               .apps = &app,
                               .napps = 1,
                               .groups = groups,
                               .ngroups = 1,
                               .spread_out = true};
    hearth_alloc_result_t r = {0};
    s_grant_t g;
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    assert_int_equal (r.ndrivers, 1);
    assert_int_equal (r.drivers[0].driver, 0);
    assert_false (r.drivers_capped[0]);
    assert_true (r.drivers_capped[1]);
    s_collect (&r, 0, &g);
    assert_int_equal (g.cores[0] + g.cores[1], 2);
    assert_true (r.apps_capped[0]);
    hearth_alloc_result_clear (&r);
}

/* A cap above what the cluster has free holds nothing back: the app gets
   every free core and is not told capped. */
static void
test_group_above_cluster (void **state)
{
    (void) state;
    s_grant_t g;
    hearth_alloc_worker_t workers[] = {
        {true, 8, 16 * GiB}, {true, 8, 16 * GiB}, {true, 8, 16 * GiB}};
    hearth_alloc_group_t groups[] = {{100, 10}};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 0, GiB, &groups[0]};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 3,
                               .apps = &app,
                               .napps = 1,
                               .groups = groups,
                               .ngroups = 1,
                               .spread_out = true};
    hearth_alloc_result_t r = {0};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    s_collect (&r, 0, &g);
    s_expect3 (&g, 8, 8, 8);
    assert_false (r.apps_capped[0]);
    hearth_alloc_result_clear (&r);
}

/* Room for less than one executor: skipped, and capped even when the
   cluster has nothing free either (the key is at its limit); room for
   one executor of 2 out of 3 cores: one executor, capped, and the next
   app of the key finds 1 core of room: skipped, capped. */
static void
test_group_room_below_executor (void **state)
{
    (void) state;
    s_grant_t g;
    hearth_alloc_worker_t full[] = {{true, 0, 16 * GiB}};
    hearth_alloc_group_t at_cap[] = {{2, 2}};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 1, GiB, &at_cap[0]};
    hearth_alloc_input_t in = {.workers = full,
                               .nworkers = 1,
                               .apps = &app,
                               .napps = 1,
                               .groups = at_cap,
                               .ngroups = 1,
                               .spread_out = true};
    hearth_alloc_result_t r = {0};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    assert_int_equal (r.nexecutors, 0);
    assert_true (r.apps_capped[0]);
    hearth_alloc_result_clear (&r);

    hearth_alloc_worker_t workers[] = {{true, 8, 16 * GiB}};
    hearth_alloc_group_t groups[] = {{5, 2}};
    hearth_alloc_app_t apps[] = {{HEARTH_ALLOC_UNLIMITED, 2, GiB, &groups[0]},
                                 {4, 2, GiB, &groups[0]}};
    in = (hearth_alloc_input_t){.workers = workers,
                                .nworkers = 1,
                                .apps = apps,
                                .napps = 2,
                                .groups = groups,
                                .ngroups = 1,
                                .spread_out = false};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    s_collect (&r, 0, &g);
    assert_int_equal (g.cores[0], 2);
    assert_int_equal (g.n, 1);
    s_collect (&r, 1, &g);
    assert_int_equal (g.cores[0], 0);
    assert_true (r.apps_capped[0]);
    assert_true (r.apps_capped[1]);
    hearth_alloc_result_clear (&r);
}

/* A group pointer that is not one of the input's groups means no cap; so
   does NULL; and without groups the result has no capped arrays. */
static void
test_group_foreign_pointer (void **state)
{
    (void) state;
    s_grant_t g;
    hearth_alloc_worker_t workers[] = {{true, 8, 16 * GiB}};
    hearth_alloc_group_t groups[] = {{1, 0}}, other = {1, 0};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 0, GiB, &other};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 1,
                               .apps = &app,
                               .napps = 1,
                               .groups = groups,
                               .ngroups = 1};
    hearth_alloc_result_t r = {0};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    s_collect (&r, 0, &g);
    assert_int_equal (g.cores[0], 8);
    assert_false (r.apps_capped[0]);
    hearth_alloc_result_clear (&r);
    in.groups = NULL;
    in.ngroups = 0;
    app.group = NULL;
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    assert_null (r.apps_capped);
    assert_null (r.drivers_capped);
    s_collect (&r, 0, &g);
    assert_int_equal (g.cores[0], 8);
    hearth_alloc_result_clear (&r);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_max12_cpe2),
        cmocka_unit_test (test_max12_cpe_unset),
        cmocka_unit_test (test_max_unset),
        cmocka_unit_test (test_max13_cpe2_last_core_never_granted),
        cmocka_unit_test (test_memory_caps_executors),
        cmocka_unit_test (test_uneven_workers),
        cmocka_unit_test (test_usable_order_most_free_first),
        cmocka_unit_test (test_cores_left_below_one_executor),
        cmocka_unit_test (test_dead_and_empty),
        cmocka_unit_test (test_apps_fifo),
        cmocka_unit_test (test_drivers_first_round_robin),
        cmocka_unit_test (test_drivers_shuffle_is_an_input),
        cmocka_unit_test (test_assign_cores_direct),
        cmocka_unit_test (test_group_caps_apps),
        cmocka_unit_test (test_group_counts_drivers),
        cmocka_unit_test (test_group_above_cluster),
        cmocka_unit_test (test_group_room_below_executor),
        cmocka_unit_test (test_group_foreign_pointer),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

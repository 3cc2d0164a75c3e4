/*  test_alloc.c - the allocator against the worked examples of issue 3
    and Spark standalone's MasterSuite (3 workers of 8 free cores and 16
    GiB, 2 GiB per executor unless stated), plus drivers, dead workers,
    FIFO order and the shuffle. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The reference: Spark's steps written plainly, with a full sort. */
static int s_ref_cores[64];

static int
s_ref_cmp (const void *a, const void *b)
{
    size_t x = *(const size_t *) a, y = *(const size_t *) b;
    if (s_ref_cores[x] != s_ref_cores[y])
        return s_ref_cores[x] > s_ref_cores[y] ? -1 : 1;
    return x < y ? -1 : 1;
}

static void
s_reference (const hearth_alloc_worker_t *workers, size_t n,
             const hearth_alloc_app_t *app, bool spread, int *per_worker)
{
    int min = app->cores_per_executor ? app->cores_per_executor : 1;
    size_t usable[64], nu = 0;
    int assigned[64];
    for (size_t i = 0; i < n; i++) {
        per_worker[i] = 0;
        s_ref_cores[i] = workers[i].cores_free;
        if (workers[i].alive && workers[i].cores_free >= min
            && workers[i].memory_free_mb >= app->memory_per_executor_mb)
            usable[nu++] = i;
    }
    if (app->cores_left < min)
        return;
    qsort (usable, nu, sizeof *usable, s_ref_cmp);
    hearth_alloc_assign_cores (app, workers, usable, nu, spread, assigned);
    for (size_t pos = 0; pos < nu; pos++)
        per_worker[usable[pos]] = assigned[pos];
}

/* The fast paths (counting sort, cut at the reachable workers) give the
   same placements as the reference on random clusters. */
static void
test_matches_reference (void **state)
{
    (void) state;
    unsigned seed = 7;
    for (int round = 0; round < 3000; round++) {
        size_t n = 1 + rand_r (&seed) % 40;
        hearth_alloc_worker_t workers[64];
        for (size_t i = 0; i < n; i++)
            workers[i] = (hearth_alloc_worker_t){
                rand_r (&seed) % 8 != 0, (int) (rand_r (&seed) % 17),
                (int64_t) (rand_r (&seed) % 9) * GiB};
        hearth_alloc_app_t app = {
            rand_r (&seed) % 4 ? 1 + (int) (rand_r (&seed) % 60)
                               : HEARTH_ALLOC_UNLIMITED,
            (int) (rand_r (&seed) % 5), (1 + rand_r (&seed) % 4) * GiB};
        bool spread = rand_r (&seed) % 2;
        int expect[64];
        s_reference (workers, n, &app, spread, expect);
        hearth_alloc_input_t in = {.workers = workers,
                                   .nworkers = n,
                                   .apps = &app,
                                   .napps = 1,
                                   .spread_out = spread};
        hearth_alloc_result_t r = {0};
        assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
        int got[64] = {0};
        int64_t granted = 0;
        for (size_t i = 0; i < r.nexecutors; i++) {
            got[r.executors[i].worker] += r.executors[i].cores;
            granted += r.executors[i].cores;
        }
        for (size_t i = 0; i < n; i++)
            assert_int_equal (got[i], expect[i]);
        assert_true (granted <= app.cores_left);
        hearth_alloc_result_clear (&r);
    }
}

/* Issue 7's target: 100 waiting apps over 10,000 workers in one pass. */
static void
test_scale_10000_workers (void **state)
{
    (void) state;
    size_t nw = 10000, na = 100;
    hearth_alloc_worker_t *workers = calloc (nw, sizeof *workers);
    hearth_alloc_app_t *apps = calloc (na, sizeof *apps);
    assert_non_null (workers);
    assert_non_null (apps);
    for (size_t i = 0; i < nw; i++)
        workers[i] =
            (hearth_alloc_worker_t){true, 1 + (int) (i % 16), 64 * GiB};
    for (size_t i = 0; i < na; i++)
        apps[i] = (hearth_alloc_app_t){64 + (int) i, (int) (i % 3), GiB};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = nw,
                               .apps = apps,
                               .napps = na,
                               .spread_out = true};
    hearth_alloc_result_t r = {0};
    struct timespec t0, t1;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    print_message ("allocation pass, 100 apps x 10000 workers: %.2f ms\n", ms);
    assert_true (r.nexecutors > 0);
    hearth_alloc_result_clear (&r);
    free (workers);
    free (apps);
}

int
main (void)
{
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
        cmocka_unit_test (test_matches_reference),
        cmocka_unit_test (test_scale_10000_workers),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

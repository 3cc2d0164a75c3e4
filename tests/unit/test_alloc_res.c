/*  test_alloc_res.c - the allocator with custom resources (alloc.h rule
    5): workers offering free GPU addresses, applications asking for some
    per executor, in both policies, with and without cores_per_executor.
    The allocator counts; which addresses is the master's (regres.c). */
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

/* Executors and their cores per input worker, for one app. */
typedef struct {
    int executors[8]; /* executors per worker */
    int cores[8];     /* cores per worker */
    size_t n;         /* executors in all */
} s_grant_t;

/* Workers of 8 free cores and 16 GiB, gpus[i] free gpu addresses each;
   nothing else offered.  One pass over napps apps; app a's grants in
   g[a]. */
static void
s_pass (const int *gpus, size_t nworkers, const hearth_alloc_app_t *apps,
        size_t napps, bool spread, s_grant_t *g)
{
    hearth_alloc_worker_t workers[8];
    hearth_alloc_resource_t res[8];
    for (size_t i = 0; i < nworkers; i++) {
        res[i] = (hearth_alloc_resource_t){"gpu", gpus[i]};
        workers[i] = (hearth_alloc_worker_t){true, 8, 16 * GiB, &res[i],
                                             gpus[i] >= 0 ? 1 : 0};
    }
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = nworkers,
                               .apps = apps,
                               .napps = napps,
                               .spread_out = spread};
    hearth_alloc_result_t r = {0};
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    memset (g, 0, napps * sizeof *g);
    for (size_t i = 0; i < r.nexecutors; i++) {
        s_grant_t *a = &g[r.executors[i].app];
        a->executors[r.executors[i].worker]++;
        a->cores[r.executors[i].worker] += r.executors[i].cores;
        a->n++;
    }
    hearth_alloc_result_clear (&r);
}

static const hearth_alloc_resource_t s_gpu1 = {"gpu", 1};
static const hearth_alloc_resource_t s_gpu2 = {"gpu", 2};

/* A (2 gpus), B (1), C (none): an app asking 1 gpu per executor of 2
   cores gets 2 on A and 1 on B, never one on C, in both policies. */
static void
test_cpe_set_both_policies (void **state)
{
    (void) state;
    const int gpus[] = {2, 1, -1};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 2, GiB, NULL, &s_gpu1, 1};
    s_grant_t g;
    for (int spread = 0; spread < 2; spread++) {
        s_pass (gpus, 3, &app, 1, spread, &g);
        assert_int_equal (g.executors[0], 2);
        assert_int_equal (g.executors[1], 1);
        assert_int_equal (g.executors[2], 0);
        assert_int_equal (g.n, 3);
    }
}

/* cores_per_executor unset: one executor per worker holding all its
   cores, which takes the gpu amount once. */
static void
test_cpe_unset_one_per_worker (void **state)
{
    (void) state;
    const int gpus[] = {2, 1, 0};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 0, GiB, NULL, &s_gpu1, 1};
    s_grant_t g;
    for (int spread = 0; spread < 2; spread++) {
        s_pass (gpus, 3, &app, 1, spread, &g);
        assert_int_equal (g.executors[0], 1);
        assert_int_equal (g.cores[0], 8);
        assert_int_equal (g.executors[1], 1);
        assert_int_equal (g.cores[1], 8);
        assert_int_equal (g.executors[2], 0); /* 0 free: not usable */
    }
}

/* Free cores but no free address: the worker is not usable, and the
   app's cores go elsewhere, not to it. */
static void
test_cores_without_addresses_unusable (void **state)
{
    (void) state;
    const int gpus[] = {0, 1};
    hearth_alloc_app_t app = {4, 1, GiB, NULL, &s_gpu1, 1};
    s_grant_t g;
    s_pass (gpus, 2, &app, 1, true, &g);
    assert_int_equal (g.executors[0], 0);
    assert_int_equal (g.executors[1], 1); /* one address: one executor */
    assert_int_equal (g.n, 1);
}

/* The addresses one app takes are gone for the next: two apps asking 1
   gpu each over 1+1 addresses get one executor each, never two on one
   address; a third gets none. */
static void
test_addresses_never_twice (void **state)
{
    (void) state;
    const int gpus[] = {1, 1};
    hearth_alloc_app_t apps[3];
    for (int i = 0; i < 3; i++)
        apps[i] = (hearth_alloc_app_t){2, 2, GiB, NULL, &s_gpu1, 1};
    s_grant_t g[3];
    for (int spread = 0; spread < 2; spread++) {
        s_pass (gpus, 2, apps, 3, spread, g);
        assert_int_equal (g[0].n + g[1].n, 2);
        assert_int_equal (g[0].executors[0] + g[1].executors[0], 1);
        assert_int_equal (g[0].executors[1] + g[1].executors[1], 1);
        assert_int_equal (g[2].n, 0);
    }
}

/* 2 gpus per executor: a worker with 3 gets one, with 1 none. */
static void
test_amount_above_one (void **state)
{
    (void) state;
    const int gpus[] = {3, 1, 4};
    hearth_alloc_app_t app = {HEARTH_ALLOC_UNLIMITED, 1, GiB, NULL, &s_gpu2, 1};
    s_grant_t g;
    s_pass (gpus, 3, &app, 1, false, &g);
    assert_int_equal (g.executors[0], 1);
    assert_int_equal (g.executors[1], 0);
    assert_int_equal (g.executors[2], 2);
}

/* An app asking for none is placed as without resources, on workers
   with and without addresses alike; an app asking for a name no worker
   offers gets nothing. */
static void
test_app_without_resources_unaffected (void **state)
{
    (void) state;
    const int gpus[] = {2, -1, 0};
    hearth_alloc_app_t plain = {HEARTH_ALLOC_UNLIMITED, 2, GiB, NULL, NULL, 0};
    s_grant_t g;
    s_pass (gpus, 3, &plain, 1, true, &g);
    for (int w = 0; w < 3; w++)
        assert_int_equal (g.executors[w], 4);
    hearth_alloc_resource_t fpga = {"fpga", 1};
    hearth_alloc_app_t other = {HEARTH_ALLOC_UNLIMITED, 2, GiB, NULL, &fpga, 1};
    s_pass (gpus, 3, &other, 1, true, &g);
    assert_int_equal (g.n, 0);
}

/* The room helper: the smallest ratio over the app's names. */
static void
test_resource_room (void **state)
{
    (void) state;
    hearth_alloc_resource_t wres[] = {{"gpu", 5}, {"fpga", 1}};
    hearth_alloc_worker_t w = {true, 8, GiB, wres, 2};
    hearth_alloc_resource_t want[] = {{"gpu", 2}, {"fpga", 1}};
    hearth_alloc_app_t app = {8, 1, 1, NULL, want, 1};
    assert_int_equal (hearth_alloc_resource_room (&app, &w), 2);
    app.nresources = 2;
    assert_int_equal (hearth_alloc_resource_room (&app, &w), 1);
    app.nresources = 0;
    assert_int_equal (hearth_alloc_resource_room (&app, &w), INT32_MAX);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_cpe_set_both_policies),
        cmocka_unit_test (test_cpe_unset_one_per_worker),
        cmocka_unit_test (test_cores_without_addresses_unusable),
        cmocka_unit_test (test_addresses_never_twice),
        cmocka_unit_test (test_amount_above_one),
        cmocka_unit_test (test_app_without_resources_unaffected),
        cmocka_unit_test (test_resource_room),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_alloc_ref.c - the allocator against an independent reference of
    DESIGN §5 on worked examples and random clusters, and the properties
    of a pass over 10,000 workers (the scale target of
    docs/performance.md).  test_alloc.c holds the worked examples of
    Spark standalone's MasterSuite. */
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

/* The reference: DESIGN §5 (Spark's schedule() and
   scheduleExecutorsOnWorkers()) written plainly and independently of
   libcore/alloc.c: drivers round-robin over the alive workers in input
   order (no shuffle), then applications in FIFO order, usable workers
   ordered by an insertion sort (most free cores first, ties in input
   order), cores handed out one grant at a time over every usable worker,
   no cut-off.  It writes the executors in launch order, like the
   allocator. */
#define REF_MAX_WORKERS 64
#define REF_MAX_EXECS 4096

typedef struct {
    int cores[REF_MAX_WORKERS];      /* free cores, as the pass goes */
    int64_t memory[REF_MAX_WORKERS]; /* free memory, as the pass goes */
    hearth_alloc_executor_t execs[REF_MAX_EXECS]; /* launch order */
    size_t nexecs;                                /* entries in execs */
    size_t driver_worker[8]; /* worker of each driver, or n */
} s_ref_t;

static void
s_ref_drivers (const hearth_alloc_input_t *in, s_ref_t *ref)
{
    size_t alive[REF_MAX_WORKERS], nalive = 0, pos = 0;
    for (size_t i = 0; i < in->nworkers; i++)
        if (in->workers[i].alive)
            alive[nalive++] = i;
    for (size_t d = 0; d < in->ndrivers; d++) {
        ref->driver_worker[d] = in->nworkers;
        for (size_t tries = 0; tries < nalive; tries++) {
            size_t w = alive[pos];
            pos = (pos + 1) % nalive;
            if (ref->cores[w] >= in->drivers[d].cores
                && ref->memory[w] >= in->drivers[d].memory_mb) {
                ref->cores[w] -= in->drivers[d].cores;
                ref->memory[w] -= in->drivers[d].memory_mb;
                ref->driver_worker[d] = w;
                break;
            }
        }
    }
}

/* canLaunchExecutor(pos) of Spark's scheduleExecutorsOnWorkers. */
static bool
s_ref_can_launch (const s_ref_t *ref, const hearth_alloc_app_t *app, size_t w,
                  int assigned, int executors, int to_assign)
{
    int min = app->cores_per_executor ? app->cores_per_executor : 1;
    bool keep = to_assign >= min;
    bool cores = ref->cores[w] - assigned >= min;
    bool new_exec = app->cores_per_executor != 0 || executors == 0;
    if (!new_exec)
        return keep && cores;
    int64_t memory = ref->memory[w] - executors * app->memory_per_executor_mb;
    return keep && cores && memory >= app->memory_per_executor_mb;
}

static void
s_ref_app (const hearth_alloc_input_t *in, size_t a, s_ref_t *ref)
{
    const hearth_alloc_app_t *app = &in->apps[a];
    int min = app->cores_per_executor ? app->cores_per_executor : 1;
    size_t usable[REF_MAX_WORKERS], n = 0;
    int assigned[REF_MAX_WORKERS] = {0}, executors[REF_MAX_WORKERS] = {0};
    if (app->cores_left < min)
        return;
    for (size_t w = 0; w < in->nworkers; w++) {
        if (!in->workers[w].alive || ref->cores[w] < min
            || ref->memory[w] < app->memory_per_executor_mb)
            continue;
        size_t i = n++;
        while (i > 0 && ref->cores[usable[i - 1]] < ref->cores[w]) {
            usable[i] = usable[i - 1];
            i--;
        }
        usable[i] = w;
    }
    int64_t free_total = 0;
    for (size_t i = 0; i < n; i++)
        free_total += ref->cores[usable[i]];
    int to_assign =
        (int) (app->cores_left < free_total ? app->cores_left : free_total);
    bool any = true;
    while (any) {
        any = false;
        for (size_t i = 0; i < n; i++) {
            size_t w = usable[i];
            while (s_ref_can_launch (ref, app, w, assigned[i], executors[i],
                                     to_assign)) {
                to_assign -= min;
                assigned[i] += min;
                executors[i] = app->cores_per_executor ? executors[i] + 1 : 1;
                any = true;
                if (in->spread_out)
                    break;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        size_t w = usable[i];
        for (int e = 0; e < executors[i]; e++) {
            int cores =
                app->cores_per_executor ? app->cores_per_executor : assigned[i];
            assert_true (ref->nexecs < REF_MAX_EXECS);
            ref->execs[ref->nexecs++] = (hearth_alloc_executor_t){
                a, w, cores, app->memory_per_executor_mb};
            ref->cores[w] -= cores;
            ref->memory[w] -= app->memory_per_executor_mb;
        }
    }
}

static void
s_reference (const hearth_alloc_input_t *in, s_ref_t *ref)
{
    memset (ref, 0, sizeof *ref);
    for (size_t w = 0; w < in->nworkers; w++) {
        ref->cores[w] = in->workers[w].cores_free;
        ref->memory[w] = in->workers[w].memory_free_mb;
    }
    s_ref_drivers (in, ref);
    for (size_t a = 0; a < in->napps; a++)
        s_ref_app (in, a, ref);
}

/* The reference on a few of the worked examples above, so that a wrong
   reference cannot make the comparison below pass. */
static void
test_reference_worked_examples (void **state)
{
    (void) state;
    hearth_alloc_worker_t workers[] = {
        {true, 8, 16 * GiB}, {true, 6, 16 * GiB}, {true, 2, 16 * GiB}};
    hearth_alloc_app_t app = {8, 2, 2 * GiB};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = 3,
                               .apps = &app,
                               .napps = 1,
                               .spread_out = true};
    static s_ref_t ref;
    s_reference (&in, &ref);
    assert_int_equal (ref.nexecs, 4); /* [4,2,2] */
    assert_int_equal (ref.execs[0].worker, 0);
    assert_int_equal (ref.execs[1].worker, 0);
    assert_int_equal (ref.execs[2].worker, 1);
    assert_int_equal (ref.execs[3].worker, 2);
    in.spread_out = false; /* [8,0,0] */
    s_reference (&in, &ref);
    assert_int_equal (ref.nexecs, 4);
    assert_int_equal (ref.execs[3].worker, 0);
    app = (hearth_alloc_app_t){12, 0, 2 * GiB};
    workers[1].cores_free = workers[2].cores_free = 8;
    s_reference (&in, &ref); /* consolidate, cpe unset: an 8 and a 4 */
    assert_int_equal (ref.nexecs, 2);
    assert_int_equal (ref.execs[0].cores, 8);
    assert_int_equal (ref.execs[1].cores, 4);
}

static unsigned
s_rand_between (unsigned *seed, unsigned lo, unsigned hi)
{
    return lo + (unsigned) rand_r (seed) % (hi - lo + 1);
}

/* A random cluster: up to 40 workers (some dead, some full, odd memory
   sizes), up to 3 drivers and 4 applications. */
static void
s_random_input (unsigned *seed, hearth_alloc_input_t *in,
                hearth_alloc_worker_t *workers, hearth_alloc_driver_t *drivers,
                hearth_alloc_app_t *apps)
{
    size_t n = s_rand_between (seed, 1, 40);
    for (size_t i = 0; i < n; i++)
        workers[i] = (hearth_alloc_worker_t){
            s_rand_between (seed, 0, 7) != 0,
            (int) s_rand_between (seed, 0, 16),
            (int64_t) s_rand_between (seed, 0, 9 * GiB)};
    size_t nd = s_rand_between (seed, 0, 3);
    for (size_t d = 0; d < nd; d++)
        drivers[d] = (hearth_alloc_driver_t){
            (int) s_rand_between (seed, 1, 4),
            (int64_t) s_rand_between (seed, 256, 3 * GiB)};
    size_t na = s_rand_between (seed, 1, 4);
    for (size_t a = 0; a < na; a++)
        apps[a] = (hearth_alloc_app_t){
            s_rand_between (seed, 0, 3) ? (int) s_rand_between (seed, 0, 60)
                                        : HEARTH_ALLOC_UNLIMITED,
            (int) s_rand_between (seed, 0, 5),
            (int64_t) s_rand_between (seed, 1, 4 * GiB)};
    *in = (hearth_alloc_input_t){.workers = workers,
                                 .nworkers = n,
                                 .drivers = drivers,
                                 .ndrivers = nd,
                                 .apps = apps,
                                 .napps = na,
                                 .spread_out = s_rand_between (seed, 0, 1)};
}

/* The allocator (counting sort, cut at the reachable workers, resources
   carried from drivers to apps and from app to app) places exactly the
   reference's executors, in the same order, on random clusters. */
static void
test_matches_reference (void **state)
{
    (void) state;
    unsigned seed = 7;
    static s_ref_t ref;
    for (int round = 0; round < 5000; round++) {
        hearth_alloc_worker_t workers[REF_MAX_WORKERS];
        hearth_alloc_driver_t drivers[8];
        hearth_alloc_app_t apps[8];
        hearth_alloc_input_t in;
        s_random_input (&seed, &in, workers, drivers, apps);
        s_reference (&in, &ref);
        hearth_alloc_result_t r = {0};
        assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
        size_t placed = 0;
        for (size_t d = 0; d < in.ndrivers; d++)
            if (ref.driver_worker[d] < in.nworkers) {
                assert_true (placed < r.ndrivers);
                assert_int_equal (r.drivers[placed].driver, d);
                assert_int_equal (r.drivers[placed].worker,
                                  ref.driver_worker[d]);
                placed++;
            }
        assert_int_equal (r.ndrivers, placed);
        assert_int_equal (r.nexecutors, ref.nexecs);
        for (size_t i = 0; i < ref.nexecs; i++) {
            assert_int_equal (r.executors[i].app, ref.execs[i].app);
            assert_int_equal (r.executors[i].worker, ref.execs[i].worker);
            assert_int_equal (r.executors[i].cores, ref.execs[i].cores);
            assert_int_equal (r.executors[i].memory_mb, ref.execs[i].memory_mb);
        }
        hearth_alloc_result_clear (&r);
    }
}

/* What one app can get on a worker with these free resources: executors
   of min cores (or one executor, cpe unset) while cores and memory
   last. */
static int64_t
s_capacity (const hearth_alloc_app_t *app, int cores, int64_t memory)
{
    int min = app->cores_per_executor ? app->cores_per_executor : 1;
    if (cores < min || memory < app->memory_per_executor_mb)
        return 0;
    if (!app->cores_per_executor)
        return cores;
    int64_t by_memory = memory / app->memory_per_executor_mb;
    int64_t by_cores = cores / min;
    return (by_memory < by_cores ? by_memory : by_cores) * min;
}

/* Check one app's executors (exec[0..n)) against the free resources
   before its turn (cores, memory), then take them from those. */
static int64_t
s_check_app_grants (const hearth_alloc_input_t *in, size_t a,
                    const hearth_alloc_executor_t *exec, size_t n, int *cores,
                    int64_t *memory, int *assigned)
{
    const hearth_alloc_app_t *app = &in->apps[a];
    int min = app->cores_per_executor ? app->cores_per_executor : 1;
    int64_t usable_cores = 0, capacity = 0, granted = 0;
    for (size_t w = 0; w < in->nworkers; w++) {
        assigned[w] = 0;
        if (in->workers[w].alive && s_capacity (app, cores[w], memory[w]) > 0) {
            usable_cores += cores[w];
            capacity += s_capacity (app, cores[w], memory[w]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        size_t w = exec[i].worker;
        assert_true (w < in->nworkers);
        assert_true (in->workers[w].alive);
        if (app->cores_per_executor)
            assert_int_equal (exec[i].cores, app->cores_per_executor);
        assert_int_equal (exec[i].memory_mb, app->memory_per_executor_mb);
        assigned[w] += exec[i].cores;
        granted += exec[i].cores;
        cores[w] -= exec[i].cores;
        memory[w] -= exec[i].memory_mb;
        assert_true (cores[w] >= 0);  /* within the free cores */
        assert_true (memory[w] >= 0); /* and the free memory */
    }
    /* min(cores left, usable cores) in whole grants, unless every usable
       worker is full first. */
    int64_t to_assign =
        app->cores_left < usable_cores ? app->cores_left : usable_cores;
    int64_t expect = to_assign / min * min;
    assert_int_equal (granted, expect < capacity ? expect : capacity);
    /* Spread out: a worker got at most one grant fewer than the most any
       got, unless it had no room for another. */
    int most = 0;
    for (size_t w = 0; w < in->nworkers; w++)
        most = assigned[w] > most ? assigned[w] : most;
    for (size_t w = 0; in->spread_out && w < in->nworkers; w++) {
        bool room = in->workers[w].alive && cores[w] >= min
                    && (app->cores_per_executor == 0 && assigned[w] > 0
                            ? true
                            : memory[w] >= app->memory_per_executor_mb);
        if (room)
            assert_true (assigned[w] >= most - min);
    }
    return granted;
}

/* One pass over 10,000 workers (some dead, some short of memory) and 100
   apps, checked app by app: every executor is within its worker's free
   cores and memory, each app gets min(its cores left, the usable cores)
   in whole grants unless the workers fill up first, and spread-out
   grants are even to within one executor. */
static void
s_scale_pass (bool spread_out)
{
    size_t nw = 10000, na = 100;
    hearth_alloc_worker_t *workers = calloc (nw, sizeof *workers);
    hearth_alloc_app_t *apps = calloc (na, sizeof *apps);
    int *cores = calloc (nw, sizeof *cores);
    int64_t *memory = calloc (nw, sizeof *memory);
    int *assigned = calloc (nw, sizeof *assigned);
    assert_true (workers && apps && cores && memory && assigned);
    for (size_t i = 0; i < nw; i++) {
        workers[i] = (hearth_alloc_worker_t){i % 97 != 0, 1 + (int) (i % 16),
                                             i % 5 ? 64 * GiB : 3 * GiB};
        cores[i] = workers[i].cores_free;
        memory[i] = workers[i].memory_free_mb;
    }
    /* The last apps ask for more than is left: their share is capped. */
    for (size_t i = 0; i < na; i++)
        apps[i] = (hearth_alloc_app_t){i < 90 ? 64 + (int) i * 11 : 50000,
                                       (int) (i % 3), GiB + (int64_t) i};
    hearth_alloc_input_t in = {.workers = workers,
                               .nworkers = nw,
                               .apps = apps,
                               .napps = na,
                               .spread_out = spread_out};
    hearth_alloc_result_t r = {0};
    struct timespec t0, t1;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    assert_int_equal (hearth_alloc_schedule (&in, &r), 0);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    print_message ("allocation pass, 100 apps x 10000 workers, %s: %.2f ms\n",
                   spread_out ? "spread-out" : "consolidate", ms);
    size_t i = 0;
    int64_t granted[100];
    for (size_t a = 0; a < na; a++) {
        size_t first = i;
        while (i < r.nexecutors && r.executors[i].app == a)
            i++;
        granted[a] = s_check_app_grants (&in, a, r.executors + first, i - first,
                                         cores, memory, assigned);
    }
    assert_int_equal (i, r.nexecutors); /* apps in FIFO order */
    assert_true (granted[0] == 64);     /* the first get all they ask */
    assert_true (granted[90] > 0 && granted[90] < 50000); /* capped */
    hearth_alloc_result_clear (&r);
    free (workers);
    free (apps);
    free (cores);
    free (memory);
    free (assigned);
}

/* The scale target (docs/performance.md): 100 waiting apps over 10,000
   workers in one pass. */
static void
test_scale_10000_workers (void **state)
{
    (void) state;
    s_scale_pass (true);
    s_scale_pass (false);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_reference_worked_examples),
        cmocka_unit_test (test_matches_reference),
        cmocka_unit_test (test_scale_10000_workers),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

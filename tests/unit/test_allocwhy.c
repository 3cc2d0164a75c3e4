/*  test_allocwhy.c - why a request waits (libcore/allocwhy.h): each never
    code from the live workers' capacities, in its order of precedence,
    the sentences the master shows for them, and the codes' names. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/allocwhy.h"

#define GiB 1024

/* A worker of cores and memory, offering nres of res. */
static hearth_alloc_worker_t
s_worker (int cores, int64_t memory_mb, const hearth_alloc_resource_t *res,
          size_t nres)
{
    return (hearth_alloc_worker_t){true, cores, memory_mb, res, nres};
}

/* fit of need over workers, and its sentence "per executor" into text. */
static hearth_wait_code_t
s_fit (const hearth_alloc_need_t *need, const hearth_alloc_worker_t *w,
       size_t n, char *text, size_t size, hearth_alloc_fit_t *fit)
{
    hearth_alloc_fit (need, w, n, fit);
    hearth_alloc_fit_text (need, fit, "per executor", text, size);
    return fit->code;
}

/* The case: 64 GiB on 2 GiB workers, with the sentence it asks
   for, and the same request once a large worker is there. */
static void
test_memory_above_every_worker (void **state)
{
    (void) state;
    hearth_alloc_worker_t w[] = {s_worker (2, 2 * GiB, NULL, 0),
                                 s_worker (2, 2 * GiB, NULL, 0)};
    hearth_alloc_need_t need = {1, 64 * GiB, NULL, 0};
    hearth_alloc_fit_t fit;
    char text[256];
    assert_int_equal (s_fit (&need, w, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_TOO_MUCH_MEMORY);
    assert_string_equal (text, "asks 64 GiB per executor; the largest "
                               "worker offers 2 GiB");
    assert_int_equal (fit.most_memory_mb, 2 * GiB);
    w[1] = s_worker (2, 64 * GiB, NULL, 0);
    assert_int_equal (s_fit (&need, w, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_NONE);
    assert_string_equal (text, "");
}

/* 8 cores per executor on 2-core workers. */
static void
test_cores_above_every_worker (void **state)
{
    (void) state;
    hearth_alloc_worker_t w[] = {s_worker (2, 4 * GiB, NULL, 0),
                                 s_worker (1, 4 * GiB, NULL, 0)};
    hearth_alloc_need_t need = {8, GiB, NULL, 0};
    hearth_alloc_fit_t fit;
    char text[256];
    assert_int_equal (s_fit (&need, w, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_TOO_MANY_CORES);
    assert_string_equal (text, "asks 8 cores per executor; the most any "
                               "worker has is 2");
    need.cores = 2;
    assert_int_equal (s_fit (&need, w, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_NONE);
}

/* No worker: no_worker, whatever the request; the cores come before the
   memory when both are too large. */
static void
test_no_worker_and_precedence (void **state)
{
    (void) state;
    hearth_alloc_need_t need = {1, 1, NULL, 0};
    hearth_alloc_fit_t fit;
    char text[256];
    assert_int_equal (s_fit (&need, NULL, 0, text, sizeof text, &fit),
                      HEARTH_WAIT_NO_WORKER);
    assert_string_equal (text, "no worker is alive");
    hearth_alloc_worker_t w = s_worker (2, 2 * GiB, NULL, 0);
    need = (hearth_alloc_need_t){8, 64 * GiB, NULL, 0};
    assert_int_equal (s_fit (&need, &w, 1, text, sizeof text, &fit),
                      HEARTH_WAIT_TOO_MANY_CORES);
}

/* Cores on one worker, memory on another: neither alone is short, the
   two are never together. */
static void
test_cores_and_memory_never_together (void **state)
{
    (void) state;
    hearth_alloc_worker_t w[] = {s_worker (8, 2 * GiB, NULL, 0),
                                 s_worker (2, 64 * GiB, NULL, 0)};
    hearth_alloc_need_t need = {8, 64 * GiB, NULL, 0};
    hearth_alloc_fit_t fit;
    char text[256];
    assert_int_equal (s_fit (&need, w, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_NO_WORKER_FITS);
    assert_string_equal (text, "asks 8 cores and 64 GiB per executor; no "
                               "worker has both");
    hearth_alloc_fit_text (&need, &fit, "for the driver", text, sizeof text);
    assert_string_equal (text, "asks 8 cores and 64 GiB for the driver; no "
                               "worker has both");
}

/* Custom resources: a name nobody has enough of (the first wave's
   words), the names each met but never on one worker, and every part
   met somewhere but never all of them on one worker. */
static void
test_resources (void **state)
{
    (void) state;
    hearth_alloc_resource_t a[] = {{"gpu", 2}}, b[] = {{"fpga", 1}};
    hearth_alloc_worker_t w[] = {s_worker (4, 4 * GiB, a, 1),
                                 s_worker (4, 4 * GiB, b, 1)};
    hearth_alloc_resource_t want3[] = {{"gpu", 3}};
    hearth_alloc_need_t need = {1, GiB, want3, 1};
    hearth_alloc_fit_t fit;
    char text[256];
    assert_int_equal (s_fit (&need, w, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_RESOURCE_MISSING);
    assert_int_equal (fit.resource, 0);
    assert_int_equal (fit.most_resource, 2);
    assert_string_equal (text, "each executor asks for 3 gpu; the most any "
                               "live worker has is 2");
    hearth_alloc_resource_t both[] = {{"gpu", 1}, {"fpga", 1}};
    need = (hearth_alloc_need_t){1, GiB, both, 2};
    assert_int_equal (s_fit (&need, w, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_RESOURCE_MISSING);
    assert_int_equal (fit.resource, 2);
    assert_string_equal (text, "each executor asks for 1 gpu and 1 fpga; no "
                               "live worker has all of them");
    /* the gpus are on a worker too small for the executor */
    hearth_alloc_worker_t v[] = {s_worker (1, GiB, a, 1),
                                 s_worker (8, 8 * GiB, NULL, 0)};
    hearth_alloc_resource_t one[] = {{"gpu", 1}};
    need = (hearth_alloc_need_t){4, 2 * GiB, one, 1};
    assert_int_equal (s_fit (&need, v, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_NO_WORKER_FITS);
    assert_string_equal (text, "asks 4 cores, 2 GiB and 1 gpu per executor; "
                               "no worker has all of them");
    v[1].resources = a;
    v[1].nresources = 1;
    assert_int_equal (s_fit (&need, v, 2, text, sizeof text, &fit),
                      HEARTH_WAIT_NONE);
}

/* An amount of 0 asks for nothing; a name the worker offers none of
   counts as 0. */
static void
test_zero_amount (void **state)
{
    (void) state;
    hearth_alloc_worker_t w = s_worker (2, GiB, NULL, 0);
    hearth_alloc_resource_t none[] = {{"gpu", 0}};
    hearth_alloc_need_t need = {1, GiB, none, 1};
    hearth_alloc_fit_t fit;
    hearth_alloc_fit (&need, &w, 1, &fit);
    assert_int_equal (fit.code, HEARTH_WAIT_NONE);
}

/* Sentences cut to the buffer stay terminated. */
static void
test_text_cut (void **state)
{
    (void) state;
    hearth_alloc_resource_t both[] = {{"gpu", 1}, {"fpga", 1}};
    hearth_alloc_resource_t a[] = {{"gpu", 1}}, b[] = {{"fpga", 1}};
    hearth_alloc_worker_t w[] = {s_worker (4, GiB, a, 1),
                                 s_worker (4, GiB, b, 1)};
    hearth_alloc_need_t need = {1, GiB, both, 2};
    hearth_alloc_fit_t fit;
    for (size_t size = 1; size < 80; size++) {
        char text[80];
        memset (text, 'x', sizeof text);
        hearth_alloc_fit (&need, w, 2, &fit);
        hearth_alloc_fit_text (&need, &fit, "per executor", text, size);
        assert_true (strlen (text) < size);
    }
}

static void
test_memory_text (void **state)
{
    (void) state;
    char t[32];
    hearth_alloc_memory_text (2048, t, sizeof t);
    assert_string_equal (t, "2 GiB");
    hearth_alloc_memory_text (1536, t, sizeof t);
    assert_string_equal (t, "1.5 GiB");
    hearth_alloc_memory_text (512, t, sizeof t);
    assert_string_equal (t, "512 MiB");
}

/* Every code but NONE has a distinct name; the never codes are the
   first five. */
static void
test_code_names (void **state)
{
    (void) state;
    assert_null (hearth_wait_code_name (HEARTH_WAIT_NONE));
    assert_null (hearth_wait_code_name (HEARTH_WAIT_NCODES));
    for (int c = 1; c < HEARTH_WAIT_NCODES; c++) {
        assert_non_null (hearth_wait_code_name ((hearth_wait_code_t) c));
        for (int d = 1; d < c; d++)
            assert_string_not_equal (
                hearth_wait_code_name ((hearth_wait_code_t) c),
                hearth_wait_code_name ((hearth_wait_code_t) d));
    }
    assert_string_equal (hearth_wait_code_name (HEARTH_WAIT_TOO_MUCH_MEMORY),
                         "too_much_memory");
    assert_true (hearth_wait_never (HEARTH_WAIT_NO_WORKER));
    assert_true (hearth_wait_never (HEARTH_WAIT_NO_WORKER_FITS));
    assert_false (hearth_wait_never (HEARTH_WAIT_NONE));
    assert_false (hearth_wait_never (HEARTH_WAIT_KEY_LIMIT));
    assert_false (hearth_wait_never (HEARTH_WAIT_CLUSTER_FULL));
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_memory_above_every_worker),
        cmocka_unit_test (test_cores_above_every_worker),
        cmocka_unit_test (test_no_worker_and_precedence),
        cmocka_unit_test (test_cores_and_memory_never_together),
        cmocka_unit_test (test_resources),
        cmocka_unit_test (test_zero_amount),
        cmocka_unit_test (test_text_cut),
        cmocka_unit_test (test_memory_text),
        cmocka_unit_test (test_code_names),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_batches.c - the LAUNCH_TASKS an executor has not said it handled
    (driver/batches.c): numbers in order, forgotten up to what the
    executor acknowledges, one batch or all taken out whole (in the order
    they were sent), batches marked refused taken one by one with their
    reason; nothing left behind (the sanitizers check the frees).
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "driver/batches.h"
#include "tests/unit/testutil.h"

/* Remember a batch of n attempts of stage, indices from first. */
static uint64_t
s_add (batches_t *b, uint32_t stage, uint64_t first, size_t n)
{
    hearth_assign_t as[8];
    assert_true (n <= 8);
    for (size_t i = 0; i < n; i++)
        as[i] = (hearth_assign_t){.stage = stage, .index = first + i};
    uint64_t batch = batches_next (b);
    assert_int_equal (batches_add (b, batch, as, n), 0);
    return batch;
}

/* out holds n attempts of stage, indices from first, and is freed. */
static void
s_assert_taken (batches_taken_t *out, uint32_t stage, uint64_t first, size_t n)
{
    assert_int_equal (out->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal (out->as[i].stage, stage);
        assert_int_equal (out->as[i].index, first + i);
    }
    free (out->as);
}

static void
test_numbers_and_acks (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    assert_int_equal (s_add (b, 1, 0, 2), 1);
    assert_int_equal (s_add (b, 1, 2, 2), 2);
    assert_int_equal (s_add (b, 2, 0, 1), 3);
    batches_taken_t out;
    batches_ack (b, 1);
    assert_int_equal (batches_take (b, 1, &out), -1); /* handled: gone */
    assert_int_equal (batches_take (b, 3, &out), 0);
    s_assert_taken (&out, 2, 0, 1);
    assert_string_equal (out.why, "");
    assert_int_equal (batches_take (b, 2, &out), 0);
    s_assert_taken (&out, 1, 2, 2);
    assert_int_equal (batches_take (b, 0, &out), -1); /* none left */
    /* after the last one went, the list takes new ones again */
    assert_int_equal (s_add (b, 3, 0, 1), 4);
    batches_ack (b, 100);
    assert_int_equal (batches_take (b, 0, &out), -1);
    batches_destroy (&b);
    assert_null (b);
    batches_destroy (&b); /* NULL is fine */
}

/* Batch 0: every batch not acknowledged, oldest first. */
static void
test_take_all (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    s_add (b, 1, 0, 3);
    s_add (b, 1, 3, 2);
    s_add (b, 1, 5, 1);
    batches_ack (b, 1);
    batches_taken_t out;
    assert_int_equal (batches_take (b, 0, &out), 0);
    s_assert_taken (&out, 1, 3, 3);
    assert_int_equal (batches_take (b, 0, &out), -1);
    batches_destroy (&b);
}

static void
test_refused (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    s_add (b, 1, 0, 1);
    s_add (b, 1, 1, 1);
    s_add (b, 1, 2, 1);
    assert_false (batches_any_refused (b));
    batches_refuse (b, 9, "not a batch of ours"); /* nothing */
    assert_false (batches_any_refused (b));
    batches_refuse (b, 3, "cannot send LAUNCH_TASKS: queue full");
    batches_refuse (b, 2, "out of memory launching it");
    assert_true (batches_any_refused (b));
    batches_taken_t out;
    assert_int_equal (batches_take_refused (b, &out), 0); /* oldest first */
    assert_string_equal (out.why, "out of memory launching it");
    s_assert_taken (&out, 1, 1, 1);
    assert_int_equal (batches_take_refused (b, &out), 0);
    assert_string_equal (out.why, "cannot send LAUNCH_TASKS: queue full");
    s_assert_taken (&out, 1, 2, 1);
    assert_int_equal (batches_take_refused (b, &out), -1);
    assert_false (batches_any_refused (b));
    /* the one not refused is still there, and the tail is right */
    s_add (b, 1, 3, 1);
    assert_int_equal (batches_take (b, 0, &out), 0);
    assert_int_equal (out.n, 2);
    assert_int_equal (out.as[0].index, 0);
    assert_int_equal (out.as[1].index, 3);
    free (out.as);
    batches_destroy (&b);
}

/* An executor that never acknowledges costs at most 4096 batches: the
   oldest are forgotten first. */
static void
test_bounded (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    for (uint64_t i = 0; i < 5000; i++)
        s_add (b, 1, i, 1);
    batches_taken_t out;
    assert_int_equal (batches_take (b, 904, &out), -1); /* forgotten */
    assert_int_equal (batches_take (b, 905, &out), 0);  /* 5000 - 4096 + 1 */
    s_assert_taken (&out, 1, 904, 1);
    assert_int_equal (batches_take (b, 0, &out), 0);
    assert_int_equal (out.n, 4095);
    assert_int_equal (out.as[0].index, 905);
    free (out.as);
    batches_destroy (&b);
}

/* A batch left when the set is destroyed is freed with it. */
static void
test_destroy_full (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    s_add (b, 1, 0, 8);
    s_add (b, 1, 8, 8);
    batches_refuse (b, 2, "x");
    batches_destroy (&b);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_numbers_and_acks),
        cmocka_unit_test (test_take_all),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_bounded),
        cmocka_unit_test (test_destroy_full),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

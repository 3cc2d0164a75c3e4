/*  test_batches.c - the LAUNCH_TASKS an executor has not said it handled
    (libhearth/batches.c): numbers in order, forgotten up to what the
    executor acknowledges but for those never sent, a batch taken by its
    number, by the executor's "launched" or as the only one in flight,
    batches not sent taken one by one with their reason and kind, the
    rings wrapping and growing, the bound counted in attempts; nothing
    left behind (the sanitizers check the frees).
*/
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libhearth/batches.h"
#include "tests/unit/testutil.h"

/* The bound of batches.c, in attempts; a batch of launch.c at most. */
enum { s_bound = 1 << 18, s_round = 1024 };

/* Remember a batch of n attempts of stage, indices from first, attempt
   number attempt. */
static uint64_t
s_add_attempt (batches_t *b, uint32_t stage, uint64_t first, size_t n,
               int attempt)
{
    static hearth_assign_t as[s_round];
    assert_true (n <= s_round);
    for (size_t i = 0; i < n; i++)
        as[i] = (hearth_assign_t){
            .stage = stage, .index = first + i, .attempt = attempt};
    assert_int_equal (batches_reserve (b, n), n);
    uint64_t batch = batches_next (b);
    assert_int_equal (batches_add (b, batch, as, n), 0);
    return batch;
}

static uint64_t
s_add (batches_t *b, uint32_t stage, uint64_t first, size_t n)
{
    return s_add_attempt (b, stage, first, n, 0);
}

/* out is batch and holds n attempts of stage, indices from first; it is
   freed. */
static void
s_assert_taken (batches_taken_t *out, uint64_t batch, uint32_t stage,
                uint64_t first, size_t n)
{
    assert_int_equal (out->batch, batch);
    assert_int_equal (out->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal (out->as[i].stage, stage);
        assert_int_equal (out->as[i].index, first + i);
    }
    batches_taken_free (out);
    assert_null (out->as);
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
    assert_int_equal (errno, ENOENT);
    assert_int_equal (batches_take (b, 3, &out), 0);
    assert_null (out.why);
    assert_false (out.lost);
    s_assert_taken (&out, 3, 2, 0, 1);
    assert_int_equal (batches_take (b, 3, &out), -1); /* taken already */
    assert_int_equal (batches_take (b, 2, &out), 0);
    s_assert_taken (&out, 2, 1, 2, 2);
    assert_int_equal (batches_take_pending (b, &out), -1); /* none left */
    assert_int_equal (errno, ENOENT);
    /* after the last one went, the rings take new ones again */
    assert_int_equal (s_add (b, 3, 0, 1), 4);
    batches_ack (b, 100);
    assert_int_equal (batches_take (b, 4, &out), -1);
    batches_destroy (&b);
    assert_null (b);
    batches_destroy (&b); /* NULL is fine */
}

/* A batch that was never sent is not forgotten when the executor says
   it handled a later one: it never had it, and its attempts must end. */
static void
test_unsent_outlives_acks (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    s_add (b, 1, 0, 1);
    s_add (b, 1, 1, 2);
    s_add (b, 1, 3, 1);
    assert_int_equal (batches_unsent_count (b), 0);
    batches_unsent (b, 9, true, "not a batch of ours"); /* nothing */
    assert_int_equal (batches_unsent_count (b), 0);
    batches_unsent (b, 2, true, "cannot send LAUNCH_TASKS: host unreachable");
    batches_unsent (b, 3, false, "LAUNCH_TASKS: field 'x' too long");
    assert_int_equal (batches_unsent_count (b), 2);
    batches_ack (b, 3);
    batches_taken_t out;
    assert_int_equal (batches_take (b, 2, &out), -1);    /* not as refused */
    assert_int_equal (batches_take_unsent (b, &out), 0); /* oldest first */
    assert_true (out.lost);
    assert_string_equal (out.why, "cannot send LAUNCH_TASKS: host unreachable");
    s_assert_taken (&out, 2, 1, 1, 2);
    assert_null (out.why);
    assert_int_equal (batches_take_unsent (b, &out), 0);
    assert_false (out.lost);
    assert_string_equal (out.why, "LAUNCH_TASKS: field 'x' too long");
    s_assert_taken (&out, 3, 1, 3, 1);
    assert_int_equal (batches_take_unsent (b, &out), -1);
    assert_int_equal (batches_unsent_count (b), 0);
    batches_destroy (&b);
}

/* ERROR naming no batch, with the executor's launched: the first sent
   after it, past numbers never sent or refused before. */
static void
test_take_next (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    batches_taken_t out;
    assert_int_equal (batches_take_next (b, 0, &out), -1);
    assert_int_equal (errno, ENOENT);
    for (uint64_t i = 0; i < 6; i++)
        s_add (b, 1, 10 * i, 2);
    batches_ack (b, 1);
    batches_unsent (b, 2, true, "queue full");
    assert_int_equal (batches_take_next (b, 1, &out), 0); /* 2 never went */
    s_assert_taken (&out, 3, 1, 20, 2);
    /* refused again before it handled any: 3 was the one before */
    assert_int_equal (batches_take_next (b, 1, &out), 0);
    s_assert_taken (&out, 4, 1, 30, 2);
    /* it handled 5 since: the one after it */
    assert_int_equal (batches_take_next (b, 5, &out), 0);
    s_assert_taken (&out, 6, 1, 50, 2);
    assert_int_equal (batches_take_next (b, 6, &out), -1);
    assert_int_equal (errno, ENOENT);
    /* 5 is still there (not acknowledged), 2 waits for the tick */
    assert_int_equal (batches_take (b, 5, &out), 0);
    s_assert_taken (&out, 5, 1, 40, 2);
    assert_int_equal (batches_unsent_count (b), 1);
    batches_destroy (&b);
}

/* ERROR naming no batch, without launched: only a lone batch in flight
   can be the one. */
static void
test_take_pending (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    batches_taken_t out;
    s_add (b, 1, 0, 3);
    s_add (b, 1, 3, 3);
    assert_int_equal (batches_take_pending (b, &out), -1);
    assert_int_equal (errno, ENOTUNIQ);
    batches_ack (b, 1);
    assert_int_equal (batches_take_pending (b, &out), 0);
    s_assert_taken (&out, 2, 1, 3, 3);
    s_add (b, 1, 6, 1);
    batches_unsent (b, 3, true, "not connected"); /* not in flight there */
    assert_int_equal (batches_take_pending (b, &out), -1);
    assert_int_equal (errno, ENOENT);
    batches_destroy (&b);
}

/* The rings wrap and grow with batches of every size, acknowledged at
   every pace: each take gives back the attempts that went in. */
static void
test_rings_wrap (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    uint64_t index = 0, acked = 0;
    batches_taken_t out;
    for (int round = 0; round < 2000; round++) {
        size_t n = 1 + (size_t) (round * 37 % 200);
        uint64_t batch = s_add_attempt (b, 7, index, n, round % 3);
        if (round % 5 == 4) { /* one in five refused by number */
            assert_int_equal (batches_take (b, batch, &out), 0);
            assert_int_equal (out.as[n - 1].attempt, round % 3);
            s_assert_taken (&out, batch, 7, index, n);
        }
        index += n;
        if (round % 7 == 6) { /* acknowledged in bursts, a few behind */
            acked = batch - 3;
            batches_ack (b, acked);
        }
    }
    /* the ones after the last acknowledged are whole */
    uint64_t expect_index = index;
    uint64_t last = batches_next (b) - 1;
    for (uint64_t batch = last; batch > acked; batch--) {
        size_t n = 1 + (size_t) ((batch - 1) * 37 % 200);
        expect_index -= n;
        if (batch % 5 == 0)
            continue; /* taken above */
        assert_int_equal (batches_take (b, batch, &out), 0);
        s_assert_taken (&out, batch, 7, expect_index, n);
    }
    batches_destroy (&b);
}

/* The bound counts attempts: thousands of small batches are all kept,
   and 256 Ki attempts at most (the oldest forgotten first), however few
   the batches. */
static void
test_bounded_by_attempts (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    batches_taken_t out;
    for (uint64_t i = 0; i < 5000; i++)
        s_add (b, 1, i, 1);
    assert_int_equal (batches_take (b, 1, &out), 0); /* still there */
    s_assert_taken (&out, 1, 1, 0, 1);
    batches_ack (b, 5000);
    for (uint64_t i = 0; i < 300; i++)
        s_add (b, 2, i * s_round, s_round);
    /* 300 x 1024 > 262,144: the first 44 went */
    assert_int_equal (batches_take (b, 5044, &out), -1);
    assert_int_equal (errno, ENOENT);
    assert_int_equal (batches_take (b, 5045, &out), 0);
    s_assert_taken (&out, 5045, 2, 44 * s_round, s_round);
    /* one of those forgotten was the one after launched: cannot tell */
    assert_int_equal (batches_take_next (b, 5000, &out), -1);
    assert_int_equal (errno, ENOTUNIQ);
    batches_destroy (&b);
}

/* A batch never sent is never forgotten to make room: while it fills
   the bound, nothing more is offered, until the tick takes it. */
static void
test_unsent_keeps_its_room (void **state)
{
    (void) state;
    batches_t *b = batches_new ();
    batches_taken_t out;
    for (uint64_t i = 0; i < s_bound / s_round; i++)
        s_add (b, 1, i * s_round, s_round);
    batches_unsent (b, 1, true, "queue full");
    assert_int_equal (batches_reserve (b, s_round), 0);
    assert_int_equal (batches_take_unsent (b, &out), 0);
    s_assert_taken (&out, 1, 1, 0, s_round);
    assert_int_equal (batches_reserve (b, s_round), s_round);
    /* a batch left unsent when the set is destroyed is freed with it */
    s_add (b, 1, 0, 8);
    batches_unsent (b, 257, false, "x");
    batches_destroy (&b);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_numbers_and_acks),
        cmocka_unit_test (test_unsent_outlives_acks),
        cmocka_unit_test (test_take_next),
        cmocka_unit_test (test_take_pending),
        cmocka_unit_test (test_rings_wrap),
        cmocka_unit_test (test_bounded_by_attempts),
        cmocka_unit_test (test_unsent_keeps_its_room),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_liveness.c - the liveness tracker with an injected clock: expiry
    at the right time and in order, O(1) touch, the order invariant after
    every step of a long random run, 10,000+ peers, and the owner's
    pauses: a gap longer than a tick shifts every deadline by the gap. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/liveness.h"

static void
test_expires_after_timeout (void **state)
{
    (void) state;
    hearth_liveness_t *lv = hearth_liveness_new (1000);
    int a = 1;
    hearth_peer_t *pa = hearth_liveness_add (lv, &a, 0);
    assert_non_null (pa);
    assert_int_equal (hearth_liveness_next_deadline (lv), 1000);
    assert_null (hearth_liveness_expire (lv, 999));
    assert_ptr_equal (hearth_liveness_expire (lv, 1000), &a);
    assert_null (hearth_liveness_expire (lv, 5000));
    assert_int_equal (hearth_liveness_size (lv), 0);
    assert_int_equal (hearth_liveness_next_deadline (lv), INT64_MAX);
    hearth_liveness_destroy (&lv);
    assert_null (lv);
    hearth_liveness_destroy (&lv);
}

static void
test_touch_postpones (void **state)
{
    (void) state;
    hearth_liveness_t *lv = hearth_liveness_new (1000);
    int a = 1, b = 2;
    hearth_peer_t *pa = hearth_liveness_add (lv, &a, 0);
    hearth_liveness_add (lv, &b, 100);
    hearth_liveness_touch (lv, pa, 500);
    assert_true (hearth_liveness_check (lv));
    assert_int_equal (hearth_liveness_last_seen (pa), 500);
    assert_ptr_equal (hearth_liveness_item (pa), &a);
    assert_null (hearth_liveness_expire (lv, 1099));
    assert_ptr_equal (hearth_liveness_expire (lv, 1100), &b);
    assert_null (hearth_liveness_expire (lv, 1499));
    assert_ptr_equal (hearth_liveness_expire (lv, 1500), &a);
    hearth_liveness_destroy (&lv);
}

static void
test_expiry_in_order (void **state)
{
    (void) state;
    hearth_liveness_t *lv = hearth_liveness_new (10);
    int items[5];
    for (int i = 0; i < 5; i++)
        hearth_liveness_add (lv, &items[i], i);
    /* Everyone has expired at 100: they come out oldest first. */
    for (int i = 0; i < 5; i++)
        assert_ptr_equal (hearth_liveness_expire (lv, 100), &items[i]);
    assert_null (hearth_liveness_expire (lv, 100));
    hearth_liveness_destroy (&lv);
}

static void
test_remove_anywhere (void **state)
{
    (void) state;
    hearth_liveness_t *lv = hearth_liveness_new (10);
    int items[3];
    hearth_peer_t *p[3];
    for (int i = 0; i < 3; i++)
        p[i] = hearth_liveness_add (lv, &items[i], i);
    hearth_liveness_remove (lv, &p[1]);
    assert_null (p[1]);
    hearth_liveness_remove (lv, &p[1]); /* NULL is fine */
    assert_true (hearth_liveness_check (lv));
    hearth_liveness_remove (lv, &p[0]);
    hearth_liveness_remove (lv, &p[2]);
    assert_true (hearth_liveness_check (lv));
    assert_int_equal (hearth_liveness_size (lv), 0);
    hearth_liveness_destroy (&lv);
}

static void
test_clock_backwards_is_clamped (void **state)
{
    (void) state;
    hearth_liveness_t *lv = hearth_liveness_new (10);
    int a, b;
    hearth_peer_t *pa = hearth_liveness_add (lv, &a, 100);
    hearth_liveness_add (lv, &b, 50); /* clock went back: clamped to 100 */
    assert_true (hearth_liveness_check (lv));
    hearth_liveness_touch (lv, pa, 20);
    assert_true (hearth_liveness_check (lv));
    assert_int_equal (hearth_liveness_last_seen (pa), 100);
    assert_ptr_equal (hearth_liveness_expire (lv, 110), &b);
    hearth_liveness_destroy (&lv);
}

static void
test_set_timeout (void **state)
{
    (void) state;
    hearth_liveness_t *lv = hearth_liveness_new (1000);
    int a;
    hearth_liveness_add (lv, &a, 0);
    hearth_liveness_set_timeout (lv, 200);
    assert_int_equal (hearth_liveness_next_deadline (lv), 200);
    assert_ptr_equal (hearth_liveness_expire (lv, 200), &a);
    hearth_liveness_destroy (&lv);
}

/* A random walk of adds, touches, removes and expiries over a growing
   clock, checking the order after every step and that no expired peer
   was heard from within the timeout, nor a live one left behind. */
static void
test_random_walk_keeps_order (void **state)
{
    (void) state;
    enum { N = 500, STEPS = 20000, TIMEOUT = 50 };
    hearth_liveness_t *lv = hearth_liveness_new (TIMEOUT);
    hearth_peer_t *peers[N] = {0};
    int64_t seen[N];
    int ids[N];
    unsigned seed = 42;
    int64_t now = 0;
    for (int s = 0; s < STEPS; s++) {
        now += rand_r (&seed) % 3;
        int i = rand_r (&seed) % N;
        ids[i] = i;
        int op = rand_r (&seed) % 10;
        if (!peers[i] && op < 8) {
            peers[i] = hearth_liveness_add (lv, &ids[i], now);
            seen[i] = now;
        }
        else if (peers[i] && op < 7) {
            hearth_liveness_touch (lv, peers[i], now);
            seen[i] = now;
        }
        else if (peers[i] && op == 7)
            hearth_liveness_remove (lv, &peers[i]);
        int *item;
        while ((item = hearth_liveness_expire (lv, now))) {
            assert_true (now - seen[*item] >= TIMEOUT);
            peers[*item] = NULL;
        }
        assert_true (hearth_liveness_check (lv));
    }
    for (int i = 0; i < N; i++)
        if (peers[i])
            assert_true (now - seen[i] < TIMEOUT);
    hearth_liveness_destroy (&lv);
}

/* 20,000 peers heartbeating at 1 Hz for a simulated minute, one dying
   every second: touches stay cheap and the dead come out on time. */
static void
test_scale_20000_peers (void **state)
{
    (void) state;
    enum { N = 20000, INTERVAL = 1000, LIVENESS = 5 };
    hearth_liveness_t *lv = hearth_liveness_new (INTERVAL * LIVENESS);
    hearth_peer_t **peers = calloc (N, sizeof *peers);
    int *ids = calloc (N, sizeof *ids);
    assert_non_null (peers);
    assert_non_null (ids);
    for (int i = 0; i < N; i++) {
        ids[i] = i;
        peers[i] = hearth_liveness_add (lv, &ids[i], 0);
    }
    struct timespec t0, t1;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    int expired = 0;
    for (int sec = 1; sec <= 60; sec++) {
        for (int i = 0; i < N; i++) {
            bool dead = i < sec; /* peer i is last heard at second i */
            if (peers[i] && !dead)
                hearth_liveness_touch (lv, peers[i], sec * INTERVAL);
        }
        int *item;
        while ((item = hearth_liveness_expire (lv, sec * INTERVAL + 999))) {
            assert_true (*item < sec);
            peers[*item] = NULL;
            expired++;
        }
    }
    clock_gettime (CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    print_message ("1.2M touches over 20000 peers: %.1f ms\n", ms);
    /* Peer i (i >= 1) was last heard at second i, so it has expired by
       the check at second s >= i + 5: peers 0..55 by second 60. */
    assert_int_equal (expired, 56);
    assert_true (hearth_liveness_check (lv));
    hearth_liveness_destroy (&lv);
    free (peers);
    free (ids);
}

/* The owner stopped (SIGSTOP, a VM stall) for longer than a tick: the
   gap beyond one tick is credited, a normal or slightly late tick is not. */
static void
test_gap_rule (void **state)
{
    (void) state;
    assert_int_equal (hearth_liveness_gap (1000, 1050, 50), 0);
    assert_int_equal (hearth_liveness_gap (1000, 1100, 50), 0);
    assert_int_equal (hearth_liveness_gap (1000, 1101, 50), 51);
    assert_int_equal (hearth_liveness_gap (1000, 3050, 50), 2000);
    /* no previous tick yet, or a clock that went backwards */
    assert_int_equal (hearth_liveness_gap (INT64_MIN, 3050, 50), 0);
    assert_int_equal (hearth_liveness_gap (3050, 1000, 50), 0);
}

/* The tick: a quarter of the heartbeat interval, within its bounds. */
static void
test_tick_period (void **state)
{
    (void) state;
    assert_int_equal (hearth_liveness_tick_ms (1000), 250);
    assert_int_equal (hearth_liveness_tick_ms (200), 50);
    assert_int_equal (hearth_liveness_tick_ms (100), 25);
    /* a short interval does not spin the loop, a long one leaves the
       tick's other work near */
    assert_int_equal (hearth_liveness_tick_ms (20), HEARTH_TICK_MIN_MS);
    assert_int_equal (hearth_liveness_tick_ms (1), HEARTH_TICK_MIN_MS);
    assert_int_equal (hearth_liveness_tick_ms (60000), HEARTH_TICK_MAX_MS);
}

/* A peer is judged by what it missed while the owner ran: timeout 1000,
   a heard at 100 and b at 900, the owner stopped for 2000 ms more than a
   tick: a expires at 3100, not at 1100; b's heartbeat queued meanwhile,
   read after the resume, keeps it alive until 3960. */
static void
test_pause_shifts_deadlines (void **state)
{
    (void) state;
    hearth_liveness_t *lv = hearth_liveness_new (1000);
    int a = 1, b = 2;
    hearth_peer_t *pa = hearth_liveness_add (lv, &a, 100);
    hearth_peer_t *pb = hearth_liveness_add (lv, &b, 900);
    assert_int_equal (hearth_liveness_next_deadline (lv), 1100);
    hearth_liveness_pause (lv, 2000);
    assert_true (hearth_liveness_check (lv));
    assert_int_equal (hearth_liveness_last_seen (pa), 2100);
    assert_int_equal (hearth_liveness_last_seen (pb), 2900);
    assert_int_equal (hearth_liveness_next_deadline (lv), 3100);
    assert_null (hearth_liveness_expire (lv, 2950));
    assert_null (hearth_liveness_expire (lv, 3099));
    /* b's heartbeat, queued during the pause, is read now */
    hearth_liveness_touch (lv, pb, 2960);
    assert_true (hearth_liveness_check (lv));
    assert_ptr_equal (hearth_liveness_expire (lv, 3100), &a);
    assert_null (hearth_liveness_expire (lv, 3959));
    assert_ptr_equal (hearth_liveness_expire (lv, 3960), &b);
    hearth_liveness_destroy (&lv);
}

/* A shift keeps the order and the clamp: a touch stamped before the
   shifted times (a clock read before the pause) cannot go back. */
static void
test_pause_keeps_order_and_clamp (void **state)
{
    (void) state;
    hearth_liveness_t *lv = hearth_liveness_new (100);
    int items[50];
    hearth_peer_t *peers[50];
    for (int i = 0; i < 50; i++) {
        items[i] = i;
        peers[i] = hearth_liveness_add (lv, &items[i], i * 10);
    }
    hearth_liveness_pause (lv, 5000);
    hearth_liveness_pause (lv, 0);
    hearth_liveness_pause (lv, -7); /* ignored: a gap is never negative */
    assert_true (hearth_liveness_check (lv));
    hearth_liveness_touch (lv, peers[0], 100); /* stale: clamped */
    assert_int_equal (hearth_liveness_last_seen (peers[0]), 5490);
    assert_true (hearth_liveness_check (lv));
    for (int i = 1; i < 50; i++)
        assert_int_equal (hearth_liveness_last_seen (peers[i]), 5000 + i * 10);
    hearth_liveness_destroy (&lv);
    hearth_liveness_t *empty = hearth_liveness_new (100);
    hearth_liveness_pause (empty, 1000);
    assert_true (hearth_liveness_check (empty));
    hearth_liveness_destroy (&empty);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_expires_after_timeout),
        cmocka_unit_test (test_touch_postpones),
        cmocka_unit_test (test_expiry_in_order),
        cmocka_unit_test (test_remove_anywhere),
        cmocka_unit_test (test_clock_backwards_is_clamped),
        cmocka_unit_test (test_set_timeout),
        cmocka_unit_test (test_random_walk_keeps_order),
        cmocka_unit_test (test_scale_20000_peers),
        cmocka_unit_test (test_gap_rule),
        cmocka_unit_test (test_tick_period),
        cmocka_unit_test (test_pause_shifts_deadlines),
        cmocka_unit_test (test_pause_keeps_order_and_clamp),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

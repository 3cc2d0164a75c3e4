/*  test_apiq.c - the API's queue to the driver's engine (libhearth/apiq.c):
    submits and cancels come out in the order they went in, all of them
    at one take, a job on both lists at once (cancelled before the engine
    took it) included; its eventfd is readable once something waits and
    not after the take; the last final state wins and a stop stays; a
    closed queue refuses submits, cancels and final states; jobs pushed
    from several threads at once all come out once, each thread's in its
    own order. */
#include "config.h"

#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libhearth/apiq.h"

/* Whether the queue's eventfd is readable now. */
static bool
s_readable (apiq_t *q)
{
    struct pollfd p = {.fd = apiq_fd (q), .events = POLLIN};
    return poll (&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void
test_order_and_wakeup (void **state)
{
    (void) state;
    apiq_t *q = apiq_new ();
    assert_non_null (q);
    assert_false (s_readable (q));
    apiq_batch_t b;
    apiq_take (q, &b);
    assert_null (b.submits);
    assert_null (b.cancels);
    assert_false (b.final_set || b.stop);
    hearth_job_t jobs[3];
    memset (jobs, 0, sizeof jobs);
    for (int i = 0; i < 3; i++) {
        assert_int_equal (apiq_submit (q, &jobs[i]), 0);
        assert_true (s_readable (q));
    }
    /* the second, cancelled before the engine took its submit */
    assert_int_equal (apiq_cancel (q, &jobs[1]), 0);
    assert_int_equal (apiq_cancel (q, &jobs[0]), 0);
    apiq_take (q, &b);
    assert_false (s_readable (q));
    hearth_job_t *j = b.submits;
    for (int i = 0; i < 3; i++, j = j->submit_next)
        assert_ptr_equal (j, &jobs[i]);
    assert_null (j);
    assert_ptr_equal (b.cancels, &jobs[1]);
    assert_ptr_equal (b.cancels->cancel_next, &jobs[0]);
    assert_null (jobs[0].cancel_next);
    apiq_take (q, &b);
    assert_null (b.submits);
    assert_null (b.cancels);
    /* after a take, the next command wakes the engine again */
    assert_int_equal (apiq_submit (q, &jobs[2]), 0);
    assert_true (s_readable (q));
    apiq_take (q, &b);
    assert_ptr_equal (b.submits, &jobs[2]);
    assert_null (jobs[2].submit_next);
    apiq_destroy (&q);
    assert_null (q);
    apiq_destroy (&q); /* NULL is fine */
}

static void
test_final_stop_close (void **state)
{
    (void) state;
    apiq_t *q = apiq_new ();
    assert_non_null (q);
    assert_int_equal (apiq_final (q, 1, "first"), 0);
    assert_true (s_readable (q));
    assert_int_equal (apiq_final (q, 2, "the last word"), 0);
    apiq_batch_t b;
    apiq_take (q, &b);
    assert_true (b.final_set);
    assert_int_equal (b.final_state, 2);
    assert_string_equal (b.final_reason, "the last word");
    assert_false (b.stop);
    apiq_take (q, &b); /* taken once */
    assert_false (b.final_set);
    assert_int_equal (apiq_final (q, 0, NULL), 0);
    apiq_take (q, &b);
    assert_string_equal (b.final_reason, "");
    apiq_stop (q);
    assert_true (s_readable (q));
    apiq_take (q, &b);
    assert_true (b.stop);
    apiq_take (q, &b); /* a stop stays */
    assert_true (b.stop);
    apiq_close (q);
    hearth_job_t job = {0};
    assert_int_equal (apiq_submit (q, &job), -1);
    assert_int_equal (apiq_cancel (q, &job), -1);
    assert_int_equal (apiq_final (q, 1, "late"), -1);
    apiq_take (q, &b);
    assert_null (b.submits);
    assert_null (b.cancels);
    assert_false (b.final_set);
    apiq_destroy (&q);
}

#define THREADS 4
#define PER_THREAD 5000

typedef struct {
    apiq_t *q;
    hearth_job_t *jobs; /* its PER_THREAD jobs, submitted in order */
} s_pusher_t;

static void *
s_push_all (void *arg)
{
    s_pusher_t *p = arg;
    for (int i = 0; i < PER_THREAD; i++)
        if (apiq_submit (p->q, &p->jobs[i]) < 0)
            return p; /* not NULL: refused */
    return NULL;
}

static void
test_threads (void **state)
{
    (void) state;
    apiq_t *q = apiq_new ();
    assert_non_null (q);
    hearth_job_t *jobs = calloc (THREADS * PER_THREAD, sizeof *jobs);
    assert_non_null (jobs);
    s_pusher_t pushers[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        pushers[t] = (s_pusher_t){q, jobs + t * PER_THREAD};
        assert_int_equal (
            pthread_create (&threads[t], NULL, s_push_all, &pushers[t]), 0);
    }
    /* take while they push, waiting on the eventfd as the engine does:
       every job exactly once, each thread's in order */
    int next[THREADS] = {0}, seen = 0;
    while (seen < THREADS * PER_THREAD) {
        struct pollfd p = {.fd = apiq_fd (q), .events = POLLIN};
        assert_int_equal (poll (&p, 1, 10000), 1); /* never a lost wake-up */
        apiq_batch_t b;
        apiq_take (q, &b);
        for (hearth_job_t *j = b.submits; j; j = j->submit_next) {
            ptrdiff_t k = j - jobs;
            assert_true (k >= 0 && k < THREADS * PER_THREAD);
            int t = (int) (k / PER_THREAD);
            assert_int_equal (k % PER_THREAD, next[t]);
            next[t]++;
            seen++;
        }
    }
    for (int t = 0; t < THREADS; t++) {
        void *refused = NULL;
        pthread_join (threads[t], &refused);
        assert_null (refused);
    }
    apiq_batch_t b;
    apiq_take (q, &b);
    assert_null (b.submits);
    free (jobs);
    apiq_destroy (&q);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_order_and_wakeup),
        cmocka_unit_test (test_final_stop_close),
        cmocka_unit_test (test_threads),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

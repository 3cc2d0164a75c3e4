/*  test_loop.c - unit tests of the task path's reactor (libcore/loop.c):
    timers (counted, ended, added from handlers), descriptors, readers
    drained without waiting, a reader's message made ready by a send
    (which takes the mailbox's commands in, so that ZMQ_FD says nothing:
    the settling must find it), and entries ended inside handlers.

    Each test arms a guard timer that fails it rather than let a lost
    wake-up hang the run.
*/
#include "config.h"

#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <czmq.h>

#include "libcore/clock.h"
#include "libcore/loop.h"
#include "tests/unit/testutil.h"

/* Long enough for any of these on a loaded machine, short enough that a
   lost wake-up fails the test quickly. */
static const size_t s_guard_ms = 2000;

typedef struct {
    hearth_loop_t *loop;
    zsock_t *watched;  /* the loop's reader */
    zsock_t *peer;     /* its other end */
    int received;      /* messages the reader took */
    int want;          /* the loop ends once it has taken this many */
    int per_call;      /* the reader takes at most this many a call */
    int calls;         /* of the reader's handler */
    int fired[4];      /* per timer */
    int ids[4];        /* the timers' ids */
    int fired0_at_end; /* fired[0] when timer 0 was ended */
    int64_t sent_ms;   /* when the awaited message was made ready */
    int64_t got_ms;    /* when the reader took it */
} s_ctx_t;

static void
s_sleep_ms (long ms)
{
    nanosleep (&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static int
s_on_guard_flag (hearth_loop_t *loop, int id, void *arg)
{
    (void) loop;
    (void) id;
    *(bool *) arg = true;
    return -1;
}

/* Run loop to its end under the guard: it must end by itself (-1 from
   a callback of the test), never by the guard's timer. */
static void
s_run_guarded (hearth_loop_t *loop)
{
    bool guard = false;
    hearth_loop_timer (loop, s_guard_ms, 1, s_on_guard_flag, &guard);
    assert_int_equal (hearth_loop_start (loop), -1);
    assert_false (guard);
}

static void
s_pair (s_ctx_t *c, const char *name)
{
    char ep[64];
    snprintf (ep, sizeof ep, "@inproc://%s-%d", name, (int) getpid ());
    c->peer = zsock_new_pair (ep);
    ep[0] = '>';
    c->watched = zsock_new_pair (ep);
    assert_non_null (c->peer);
    assert_non_null (c->watched);
}

static void
s_unpair (s_ctx_t *c)
{
    zsock_destroy (&c->watched);
    zsock_destroy (&c->peer);
}

/* Take what waits, at most per_call (0: all), never waiting: 0 when
   none is left, 1 when it stopped at per_call. */
static int
s_on_reader (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    s_ctx_t *c = arg;
    c->calls++;
    for (int got = 0; c->per_call == 0 || got < c->per_call; got++) {
        char buf[64];
        if (zmq_recv (zsock_resolve (sock), buf, sizeof buf, ZMQ_DONTWAIT) < 0)
            return 0;
        if (++c->received == c->want) {
            c->got_ms = hearth_mono_ms ();
            return -1;
        }
    }
    return 1;
}

static void
s_send (zsock_t *sock, const char *text)
{
    assert_int_equal (zmq_send (zsock_resolve (sock), text, strlen (text), 0),
                      (int) strlen (text));
}

/* ---- timers ----------------------------------------------------------- */

static int
s_on_count (hearth_loop_t *loop, int id, void *arg)
{
    s_ctx_t *c = arg;
    int which = 0;
    while (which < 4 && c->ids[which] != id)
        which++;
    assert_true (which < 4);
    c->fired[which]++;
    /* timer 1 ends timer 0 (still due for more) and itself at its third
       call, and adds timer 2, which ends the loop */
    if (which == 1 && c->fired[1] == 3) {
        hearth_loop_timer_end (loop, c->ids[0]);
        hearth_loop_timer_end (loop, id);
        c->fired0_at_end = c->fired[0];
        c->ids[2] = hearth_loop_timer (loop, 5, 1, s_on_count, c);
        assert_true (c->ids[2] > c->ids[3]);
    }
    return which == 2 ? -1 : 0;
}

static void
test_timers (void **state)
{
    (void) state;
    s_ctx_t c = {.loop = hearth_loop_new ()};
    assert_non_null (c.loop);
    int64_t start = hearth_mono_ms ();
    c.ids[0] = hearth_loop_timer (c.loop, 1, 0, s_on_count, &c);
    c.ids[1] = hearth_loop_timer (c.loop, 4, 0, s_on_count, &c);
    /* a timer of three calls, which then ends on its own */
    c.ids[3] = hearth_loop_timer (c.loop, 1, 3, s_on_count, &c);
    assert_true (c.ids[0] > 0 && c.ids[1] > c.ids[0] && c.ids[3] > c.ids[1]);
    s_run_guarded (c.loop);
    /* timer 1's third call, then timer 2's (milliseconds counted whole:
       one less at most) */
    assert_true (hearth_mono_ms () - start >= 3 * 4 + 5 - 1);
    assert_int_equal (c.fired[1], 3);
    assert_int_equal (c.fired[2], 1);
    assert_int_equal (c.fired[3], 3);
    /* timer 0 ran at least as often as timer 1 (every 1 ms against 4),
       and not after its end, though timer 2 came 5 ms later */
    assert_true (c.fired[0] >= 3);
    assert_int_equal (c.fired[0], c.fired0_at_end);
    hearth_loop_timer_end (c.loop, c.ids[0]); /* ended already: nothing */
    hearth_loop_timer_end (c.loop, c.ids[3]); /* ended on its own */
    hearth_loop_timer_end (c.loop, 12345);    /* never was: nothing */
    hearth_loop_destroy (&c.loop);
    assert_null (c.loop);
    hearth_loop_destroy (&c.loop);
    hearth_loop_destroy (NULL);
}

/* ---- descriptors ------------------------------------------------------ */

typedef struct {
    int fds[2];
    int reads;
    bool ended_self;
} s_fd_ctx_t;

static int
s_on_stop (hearth_loop_t *loop, int id, void *arg)
{
    (void) loop;
    (void) id;
    (void) arg;
    return -1;
}

static int
s_on_fd (hearth_loop_t *loop, int fd, void *arg)
{
    s_fd_ctx_t *c = arg;
    char byte;
    assert_int_equal (read (fd, &byte, 1), 1);
    c->reads++;
    if (c->reads == 2) {
        /* ended inside its own handler: never called again, though a
           byte still waits (the loop runs on for 30 ms to see) */
        hearth_loop_fd_end (loop, fd);
        c->ended_self = true;
        assert_true (hearth_loop_timer (loop, 30, 1, s_on_stop, NULL) > 0);
    }
    return 0;
}

static void
test_fd (void **state)
{
    (void) state;
    s_fd_ctx_t c = {.reads = 0};
    assert_int_equal (pipe (c.fds), 0);
    hearth_loop_t *loop = hearth_loop_new ();
    assert_int_equal (hearth_loop_fd (loop, c.fds[0], s_on_fd, &c), 0);
    assert_int_equal (write (c.fds[1], "abc", 3), 3);
    s_run_guarded (loop);
    assert_int_equal (c.reads, 2);
    assert_true (c.ended_self);
    char rest[4];
    assert_int_equal (read (c.fds[0], rest, sizeof rest), 1);
    hearth_loop_fd_end (loop, c.fds[0]); /* ended already: nothing */
    hearth_loop_destroy (&loop);
    close (c.fds[0]);
    close (c.fds[1]);
}

/* ---- readers ---------------------------------------------------------- */

static void
test_reader_drains (void **state)
{
    (void) state;
    s_ctx_t c = {.loop = hearth_loop_new (), .want = 10, .per_call = 3};
    s_pair (&c, "drain");
    /* waiting before the loop starts: taken, three a call, without the
       descriptor firing again */
    for (int i = 0; i < 10; i++)
        s_send (c.peer, "m");
    s_sleep_ms (20);
    assert_int_equal (hearth_loop_reader (c.loop, c.watched, s_on_reader, &c),
                      0);
    s_run_guarded (c.loop);
    assert_int_equal (c.received, 10);
    assert_int_equal (c.calls, 4);
    s_unpair (&c);
    hearth_loop_destroy (&c.loop);
}

/* The peer's message arrives while the loop waits: the descriptor wakes
   it. */
static int
s_on_send_later (hearth_loop_t *loop, int id, void *arg)
{
    (void) loop;
    (void) id;
    s_ctx_t *c = arg;
    s_send (c->peer, "late");
    c->sent_ms = hearth_mono_ms ();
    return 0;
}

static void
test_reader_wakes (void **state)
{
    (void) state;
    s_ctx_t c = {.loop = hearth_loop_new (), .want = 1};
    s_pair (&c, "wake");
    hearth_loop_reader (c.loop, c.watched, s_on_reader, &c);
    hearth_loop_timer (c.loop, 30, 1, s_on_send_later, &c);
    s_run_guarded (c.loop);
    assert_int_equal (c.received, 1);
    s_unpair (&c);
    hearth_loop_destroy (&c.loop);
}

/* The lost wake-up: the peer's message reaches the watched socket's
   mailbox (its descriptor fires), then a send on the watched socket, a
   while later, takes that command in.  The message is ready, the
   descriptor quiet: a loop that only waited on it would sleep until the
   guard.  hearth_loop_sent has the loop read the socket first. */
static int
s_on_send_then_use (hearth_loop_t *loop, int id, void *arg)
{
    (void) id;
    s_ctx_t *c = arg;
    s_send (c->peer, "for the watched");
    c->sent_ms = hearth_mono_ms ();
    s_sleep_ms (10); /* libzmq looks at a mailbox on a send once in 1 ms */
    s_send (c->watched, "to the peer");
    hearth_loop_sent (loop, c->watched);
    int fd = zsock_fd (c->watched);
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    /* the case this test is for: the descriptor no longer tells */
    assert_int_equal (poll (&pfd, 1, 0), 0);
    return 0;
}

static void
test_reader_after_own_send (void **state)
{
    (void) state;
    s_ctx_t c = {.loop = hearth_loop_new (), .want = 1};
    s_pair (&c, "own-send");
    hearth_loop_reader (c.loop, c.watched, s_on_reader, &c);
    hearth_loop_timer (c.loop, 20, 1, s_on_send_then_use, &c);
    s_run_guarded (c.loop);
    assert_int_equal (c.received, 1);
    assert_true (c.got_ms - c.sent_ms < (int64_t) s_guard_ms / 2);
    s_unpair (&c);
    hearth_loop_destroy (&c.loop);
}

/* A reader ended by another handler is not called again, though its
   socket gets a message (the loop waits 50 ms on it: were it still
   watched, it would take the message and end the loop early); one added
   by a handler is called. */
typedef struct {
    s_ctx_t a, b;
    int a_calls_at_end;
} s_two_t;

static int
s_on_end_a (hearth_loop_t *loop, int id, void *arg)
{
    (void) id;
    s_two_t *t = arg;
    hearth_loop_reader_end (loop, t->a.watched);
    t->a_calls_at_end = t->a.calls;
    s_send (t->a.peer, "unseen");
    return 0;
}

static int
s_on_add_b (hearth_loop_t *loop, int id, void *arg)
{
    (void) id;
    s_two_t *t = arg;
    hearth_loop_reader (loop, t->b.watched, s_on_reader, &t->b);
    s_send (t->b.peer, "seen");
    return 0;
}

static void
test_reader_end_and_add (void **state)
{
    (void) state;
    s_two_t t = {.a = {.want = 1}, .b = {.want = 1}};
    hearth_loop_t *loop = hearth_loop_new ();
    t.a.loop = t.b.loop = loop;
    s_pair (&t.a, "end-a");
    s_pair (&t.b, "end-b");
    hearth_loop_reader (loop, t.a.watched, s_on_reader, &t.a);
    hearth_loop_timer (loop, 10, 1, s_on_end_a, &t);
    hearth_loop_timer (loop, 60, 1, s_on_add_b, &t);
    s_run_guarded (loop);
    assert_int_equal (t.b.received, 1);
    assert_int_equal (t.a.received, 0);
    assert_int_equal (t.a.calls, t.a_calls_at_end);
    hearth_loop_reader_end (loop, t.a.watched); /* ended already: nothing */
    s_unpair (&t.a);
    s_unpair (&t.b);
    hearth_loop_destroy (&loop);
}

/* ---- timer ids -------------------------------------------------------- */

/* Ids wrap (after 16 in this test's build of loop.c, INT_MAX in Hearth's)
   without reusing the id of a timer still running: the executor's tick,
   made first, lives as long as the process, and a later timer given its
   id would have the tick ended in its place. */
typedef struct {
    int tick_id; /* the long-lived timer */
    int ticks;   /* its calls */
    int made;    /* short timers made and ended */
    bool clash;  /* a short timer got the tick's id */
} s_wrap_t;

static int
s_on_tick (hearth_loop_t *loop, int id, void *arg)
{
    s_wrap_t *w = arg;
    (void) id;
    w->ticks++;
    /* make and end short timers, three rounds of ids past the wrap */
    for (int i = 0; i < 20 && w->made < 50; i++, w->made++) {
        int short_id = hearth_loop_timer (loop, 1000, 1, s_on_stop, NULL);
        assert_true (short_id > 0);
        w->clash = w->clash || short_id == w->tick_id;
        hearth_loop_timer_end (loop, short_id);
    }
    return w->ticks == 5 ? -1 : 0;
}

static void
test_timer_id_wrap (void **state)
{
    (void) state;
    s_wrap_t w = {.ticks = 0};
    hearth_loop_t *loop = hearth_loop_new ();
    w.tick_id = hearth_loop_timer (loop, 1, 0, s_on_tick, &w);
    assert_int_equal (w.tick_id, 1);
    s_run_guarded (loop);
    assert_int_equal (w.made, 50);
    assert_false (w.clash);
    /* the tick ran on: none of those ends was its */
    assert_int_equal (w.ticks, 5);
    hearth_loop_destroy (&loop);
}

int
main (void)
{
    zsys_init ();
    zsys_handler_set (NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_timers),
        cmocka_unit_test (test_fd),
        cmocka_unit_test (test_reader_drains),
        cmocka_unit_test (test_reader_wakes),
        cmocka_unit_test (test_reader_after_own_send),
        cmocka_unit_test (test_reader_end_and_add),
        cmocka_unit_test (test_timer_id_wrap),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

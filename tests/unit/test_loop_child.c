/*  test_loop_child.c - unit tests of the loop's children
    (libcore/loop_child.c) on real child processes: exit codes and
    signals reach each child's handler with its resource use, TERM then
    KILL after a grace (asynchronous, and waited for without the loop), a
    child that ignores TERM killed, many children at once, a child that
    exited before its watch, handlers that watch and kill others, and the
    errors (not our child, watched twice, not watched), a child
    started and watched at once (hearth_loop_spawn), and the sweep of
    unwatched children that never reaps a watched one.

    Each test arms a guard timer that fails it rather than let a lost
    wake-up hang the run.
*/
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/loop.h"
#include "tests/unit/testutil.h"

/* Long enough for any of these on a loaded machine, short enough that a
   lost wake-up fails the test quickly. */
static const size_t s_guard_ms = 10000;
/* Children of the many-children test. */
enum { s_many = 64 };

typedef struct {
    int ended;               /* handlers called */
    int want;                /* the loop ends at this many */
    hearth_loop_exit_t last; /* the last exit seen */
    pid_t pids[s_many];      /* the children, in order */
    int status[s_many];      /* each one's status, -2: not seen */
    bool guard_fired;        /* the guard timer fired */
    hearth_loop_t *loop;     /* the loop under test */
} s_ctx_t;

/* A child that does what: "exit:N", "signal:N", "pause" (until a
   signal), "stubborn" (ignores SIGTERM, then pauses), "cpu" (spins a
   little, then exits 0).  A pausing one is set up when this returns. */
static pid_t
s_child (const char *what, int n)
{
    int ready[2];
    assert_int_equal (pipe (ready), 0);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid > 0) {
        char c;
        close (ready[1]);
        assert_true (read (ready[0], &c, 1) >= 0); /* 1, or 0 at its exit */
        close (ready[0]);
        return pid;
    }
    close (ready[0]);
    prctl (PR_SET_PDEATHSIG, SIGKILL); /* a test that aborts leaves none */
    if (strcmp (what, "exit") == 0)
        _exit (n);
    if (strcmp (what, "signal") == 0) {
        signal (n, SIG_DFL);
        raise (n);
        _exit (100);
    }
    if (strcmp (what, "cpu") == 0) {
        volatile uint64_t x = 0;
        for (uint64_t i = 0; i < 50000000ULL; i++)
            x += i;
        _exit (0);
    }
    signal (SIGTERM, strcmp (what, "stubborn") == 0 ? SIG_IGN : SIG_DFL);
    if (write (ready[1], "r", 1) != 1)
        _exit (1);
    for (;;)
        pause ();
}

static int
s_on_guard (hearth_loop_t *loop, int id, void *arg)
{
    (void) loop;
    (void) id;
    ((s_ctx_t *) arg)->guard_fired = true;
    return -1;
}

static int
s_on_exit (hearth_loop_t *loop, const hearth_loop_exit_t *exit, void *arg)
{
    (void) loop;
    s_ctx_t *ctx = arg;
    ctx->last = *exit;
    for (int i = 0; i < s_many; i++)
        if (ctx->pids[i] == exit->pid)
            ctx->status[i] = exit->status;
    return ++ctx->ended == ctx->want ? -1 : 0;
}

static void
s_ctx_init (s_ctx_t *ctx, int want)
{
    memset (ctx, 0, sizeof *ctx);
    ctx->want = want;
    for (int i = 0; i < s_many; i++)
        ctx->status[i] = -2;
    ctx->loop = hearth_loop_new ();
    assert_non_null (ctx->loop);
    assert_true (hearth_loop_timer (ctx->loop, s_guard_ms, 1, s_on_guard, ctx)
                 > 0);
}

/* Run the loop until ctx->want handlers were called. */
static void
s_run (s_ctx_t *ctx)
{
    assert_int_equal (hearth_loop_start (ctx->loop), -1);
    if (ctx->guard_fired) /* none is left behind, stubborn or not */
        for (int i = 0; i < s_many; i++)
            if (ctx->pids[i] > 0)
                kill (ctx->pids[i], SIGKILL);
    assert_false (ctx->guard_fired);
    assert_int_equal (ctx->ended, ctx->want);
}

static void
s_watch (s_ctx_t *ctx, int i, pid_t pid, bool group)
{
    ctx->pids[i] = pid;
    assert_int_equal (hearth_loop_child (ctx->loop, pid, group, s_on_exit, ctx),
                      0);
}

static void
test_exit_codes (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 3);
    s_watch (&ctx, 0, s_child ("exit", 0), false);
    s_watch (&ctx, 1, s_child ("exit", 3), false);
    s_watch (&ctx, 2, s_child ("exit", 255), false);
    assert_int_equal (hearth_loop_children (ctx.loop), 3);
    s_run (&ctx);
    for (int i = 0; i < 3; i++)
        assert_true (WIFEXITED (ctx.status[i]));
    assert_int_equal (WEXITSTATUS (ctx.status[0]), 0);
    assert_int_equal (WEXITSTATUS (ctx.status[1]), 3);
    assert_int_equal (WEXITSTATUS (ctx.status[2]), 255);
    assert_int_equal (hearth_loop_children (ctx.loop), 0);
    /* reaped: no child of ours is left to wait for */
    assert_int_equal (waitpid (ctx.pids[1], NULL, WNOHANG), -1);
    assert_int_equal (errno, ECHILD);
    hearth_loop_destroy (&ctx.loop);
}

static void
test_signals_and_rusage (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 2);
    s_watch (&ctx, 0, s_child ("signal", SIGUSR1), false);
    s_watch (&ctx, 1, s_child ("cpu", 0), false);
    s_run (&ctx);
    assert_true (WIFSIGNALED (ctx.status[0]));
    assert_int_equal (WTERMSIG (ctx.status[0]), SIGUSR1);
    assert_true (WIFEXITED (ctx.status[1]));
    /* its resource use is its own: memory, and the CPU it spun */
    assert_int_equal (ctx.last.pid, ctx.pids[1]);
    assert_true (ctx.last.ru.ru_maxrss > 0);
    assert_true (ctx.last.ru.ru_utime.tv_sec > 0
                 || ctx.last.ru.ru_utime.tv_usec > 0);
    assert_false (ctx.last.killed);
    hearth_loop_destroy (&ctx.loop);
}

/* TERM ends a child that takes it; one that ignores it gets KILL after
   its grace; a grace of 0 is KILL at once. */
static void
test_kill_after_grace (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 3);
    s_watch (&ctx, 0, s_child ("pause", 0), false);
    s_watch (&ctx, 1, s_child ("stubborn", 0), false);
    s_watch (&ctx, 2, s_child ("stubborn", 0), false);
    assert_int_equal (hearth_loop_child_kill (ctx.loop, ctx.pids[0], 5000), 0);
    assert_int_equal (hearth_loop_child_kill (ctx.loop, ctx.pids[1], 200), 0);
    assert_int_equal (hearth_loop_child_kill (ctx.loop, ctx.pids[2], 0), 0);
    s_run (&ctx);
    assert_true (WIFSIGNALED (ctx.status[0]));
    assert_int_equal (WTERMSIG (ctx.status[0]), SIGTERM);
    assert_true (WIFSIGNALED (ctx.status[1]));
    assert_int_equal (WTERMSIG (ctx.status[1]), SIGKILL);
    assert_true (WIFSIGNALED (ctx.status[2]));
    assert_int_equal (WTERMSIG (ctx.status[2]), SIGKILL);
    hearth_loop_destroy (&ctx.loop);
}

/* A kill with a grace, then one without: KILL at once, and the first
   grace's timer, which would fire after the child is gone (200 ms,
   while another child's grace of 600 ms keeps the loop running), is
   ended with it (ASan: no use after free). */
static void
test_kill_again (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 2);
    s_watch (&ctx, 0, s_child ("stubborn", 0), false);
    s_watch (&ctx, 1, s_child ("stubborn", 0), false);
    assert_int_equal (hearth_loop_child_kill (ctx.loop, ctx.pids[0], 200), 0);
    assert_int_equal (hearth_loop_child_kill (ctx.loop, ctx.pids[0], 0), 0);
    assert_int_equal (hearth_loop_child_kill (ctx.loop, ctx.pids[1], 600), 0);
    s_run (&ctx);
    assert_int_equal (WTERMSIG (ctx.status[0]), SIGKILL);
    assert_int_equal (WTERMSIG (ctx.status[1]), SIGKILL);
    hearth_loop_destroy (&ctx.loop);
}

/* A process group: the signal reaches the child's own child too. */
static void
test_group_kill (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 1);
    int p[2];
    assert_int_equal (pipe (p), 0);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        prctl (PR_SET_PDEATHSIG, SIGKILL);
        setpgid (0, 0);
        close (p[0]);
        signal (SIGTERM, SIG_IGN);
        pid_t grandchild = fork ();
        if (grandchild == 0) { /* in the group; says so once it takes TERM */
            prctl (PR_SET_PDEATHSIG, SIGKILL);
            signal (SIGTERM, SIG_DFL);
            if (write (p[1], "g", 1) != 1)
                _exit (1);
            for (;;)
                pause ();
        }
        close (p[1]);
        int status;
        waitpid (grandchild, &status, 0);
        _exit (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM ? 7 : 1);
    }
    close (p[1]);
    char c;
    assert_int_equal (read (p[0], &c, 1), 1);
    close (p[0]);
    s_watch (&ctx, 0, pid, true);
    assert_int_equal (hearth_loop_child_kill (ctx.loop, pid, 5000), 0);
    s_run (&ctx);
    /* it ignored TERM, its child died of it, then it exited 7 */
    assert_true (WIFEXITED (ctx.status[0]));
    assert_int_equal (WEXITSTATUS (ctx.status[0]), 7);
    hearth_loop_destroy (&ctx.loop);
}

static void
test_many_children (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, s_many);
    for (int i = 0; i < s_many; i++)
        s_watch (&ctx, i, s_child ("exit", i), false);
    s_run (&ctx);
    for (int i = 0; i < s_many; i++) {
        assert_true (WIFEXITED (ctx.status[i]));
        assert_int_equal (WEXITSTATUS (ctx.status[i]), i);
    }
    assert_int_equal (hearth_loop_children (ctx.loop), 0);
    hearth_loop_destroy (&ctx.loop);
}

/* Exited, a zombie, before it is watched. */
static void
test_exited_before_watch (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 1);
    pid_t pid = s_child ("exit", 9);
    siginfo_t info;
    assert_int_equal (waitid (P_PID, (id_t) pid, &info, WEXITED | WNOWAIT), 0);
    s_watch (&ctx, 0, pid, false);
    s_run (&ctx);
    assert_true (WIFEXITED (ctx.status[0]));
    assert_int_equal (WEXITSTATUS (ctx.status[0]), 9);
    hearth_loop_destroy (&ctx.loop);
}

/* Without the loop: a child that ends within its grace, one killed
   after it; their handlers are not called. */
static void
test_end_waits (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 1);
    pid_t quick = s_child ("exit", 4), stubborn = s_child ("stubborn", 0);
    s_watch (&ctx, 0, quick, false);
    s_watch (&ctx, 1, stubborn, false);
    hearth_loop_exit_t ex;
    assert_int_equal (hearth_loop_child_end (ctx.loop, quick, 5000, &ex), 0);
    assert_true (WIFEXITED (ex.status));
    assert_int_equal (WEXITSTATUS (ex.status), 4);
    assert_false (ex.killed);
    assert_int_equal (hearth_loop_child_signal (ctx.loop, stubborn, SIGTERM),
                      0);
    assert_int_equal (hearth_loop_child_end (ctx.loop, stubborn, 100, &ex), 0);
    assert_true (WIFSIGNALED (ex.status));
    assert_int_equal (WTERMSIG (ex.status), SIGKILL);
    assert_true (ex.killed);
    assert_int_equal (hearth_loop_children (ctx.loop), 0);
    assert_int_equal (ctx.ended, 0);
    hearth_loop_destroy (&ctx.loop);
}

/* A handler watches a new child and kills another: the loop goes on. */
typedef struct {
    s_ctx_t *ctx;  /* the counts */
    pid_t victim;  /* killed by the first handler */
    pid_t started; /* the child the first handler watched */
} s_chain_t;

static int
s_on_first (hearth_loop_t *loop, const hearth_loop_exit_t *exit, void *arg)
{
    s_chain_t *chain = arg;
    assert_int_equal (hearth_loop_child_kill (loop, chain->victim, 0), 0);
    chain->started = s_child ("exit", 5);
    chain->ctx->pids[2] = chain->started;
    assert_int_equal (
        hearth_loop_child (loop, chain->started, false, s_on_exit, chain->ctx),
        0);
    return s_on_exit (loop, exit, chain->ctx);
}

static void
test_handlers_change_the_watch (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 3);
    s_chain_t chain = {.ctx = &ctx, .victim = s_child ("stubborn", 0)};
    pid_t first = s_child ("exit", 1);
    ctx.pids[0] = first;
    ctx.pids[1] = chain.victim;
    assert_int_equal (
        hearth_loop_child (ctx.loop, chain.victim, false, s_on_exit, &ctx), 0);
    assert_int_equal (
        hearth_loop_child (ctx.loop, first, false, s_on_first, &chain), 0);
    s_run (&ctx);
    assert_int_equal (WEXITSTATUS (ctx.status[0]), 1);
    assert_int_equal (WTERMSIG (ctx.status[1]), SIGKILL);
    assert_int_equal (WEXITSTATUS (ctx.status[2]), 5);
    hearth_loop_destroy (&ctx.loop);
}

static void
test_errors (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 1);
    /* not a child of ours: our parent, and nonsense */
    assert_int_equal (
        hearth_loop_child (ctx.loop, getppid (), false, s_on_exit, &ctx), -1);
    assert_int_equal (errno, ECHILD);
    assert_int_equal (hearth_loop_child (ctx.loop, 0, false, s_on_exit, &ctx),
                      -1);
    assert_int_equal (errno, ECHILD);
    pid_t pid = s_child ("pause", 0);
    s_watch (&ctx, 0, pid, false);
    assert_int_equal (hearth_loop_child (ctx.loop, pid, false, s_on_exit, &ctx),
                      -1);
    assert_int_equal (errno, EEXIST);
    assert_int_equal (hearth_loop_child_kill (ctx.loop, pid + 100000, 10), -1);
    assert_int_equal (errno, ESRCH);
    assert_int_equal (hearth_loop_child_signal (ctx.loop, getppid (), 0), -1);
    assert_int_equal (errno, ESRCH);
    assert_false (hearth_loop_child_exited (ctx.loop, getppid ()));
    assert_int_equal (hearth_loop_child_kill (ctx.loop, pid, 5000), 0);
    s_run (&ctx);
    assert_int_equal (WTERMSIG (ctx.status[0]), SIGTERM);
    assert_int_equal (hearth_loop_child_end (ctx.loop, pid, 0, NULL), -1);
    assert_int_equal (errno, ESRCH);
    hearth_loop_destroy (&ctx.loop);
}

/* Started and watched at once; a program that cannot start is an
   error, and nothing is watched. */
static void
test_spawn (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 1);
    const char *argv[] = {"sh", "-c", "exit 6", NULL};
    hearth_spawn_opts_t opts = {.argv = argv,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stdout_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_DEVNULL,
                                .new_pgroup = true};
    hearth_error_t err;
    ctx.pids[0] =
        hearth_loop_spawn (ctx.loop, &opts, true, s_on_exit, &ctx, &err);
    assert_true (ctx.pids[0] > 0);
    const char *bad[] = {"/nonexistent/hearth-no-such-program", NULL};
    opts.argv = bad;
    assert_int_equal (
        hearth_loop_spawn (ctx.loop, &opts, false, s_on_exit, &ctx, &err), -1);
    assert_contains (err.text, "hearth-no-such-program");
    assert_int_equal (hearth_loop_children (ctx.loop), 1);
    s_run (&ctx);
    assert_true (WIFEXITED (ctx.status[0]));
    assert_int_equal (WEXITSTATUS (ctx.status[0]), 6);
    hearth_loop_destroy (&ctx.loop);
}

/* A loop freed with a child still watched leaves it running, to its
   owner; the watch's thread is stopped (no leak: ASan says). */
static void
test_destroy_leaves_children (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 1);
    pid_t pid = s_child ("pause", 0);
    s_watch (&ctx, 0, pid, false);
    hearth_loop_destroy (&ctx.loop);
    assert_int_equal (waitpid (pid, NULL, WNOHANG), 0); /* still running */
    kill (pid, SIGKILL);
    int status;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_int_equal (WTERMSIG (status), SIGKILL);
}

/* Unwatched children reaped by hearth_loop_reap_unwatched (the sweep of
   a subreaper's strays, after hearth_loop_start's handler of the watched
   one when it stops there). */
static size_t s_swept;

static int
s_on_exit_sweep (hearth_loop_t *loop, const hearth_loop_exit_t *exit, void *arg)
{
    s_swept += hearth_loop_reap_unwatched (loop);
    return s_on_exit (loop, exit, arg);
}

/* Wait until pid has exited, leaving it a zombie. */
static void
s_await_zombie (pid_t pid)
{
    siginfo_t info;
    assert_int_equal (waitid (P_PID, (id_t) pid, &info, WEXITED | WNOWAIT), 0);
}

/* The sweep of unwatched children reaps the strays, exited with a
   watched child, and never a watched one: the exited one's handler
   still gets its real status, the running one stays watched. */
static void
test_reap_unwatched (void **state)
{
    (void) state;
    s_ctx_t ctx;
    s_ctx_init (&ctx, 1);
    s_swept = 0;
    pid_t strays[2] = {s_child ("exit", 3), s_child ("exit", 4)};
    pid_t done = s_child ("exit", 7), running = s_child ("pause", 0);
    ctx.pids[0] = done;
    assert_int_equal (
        hearth_loop_child (ctx.loop, done, false, s_on_exit_sweep, &ctx), 0);
    s_watch (&ctx, 1, running, false);
    ctx.want = 1; /* only the one that exited */
    for (int i = 0; i < 2; i++)
        s_await_zombie (strays[i]);
    s_await_zombie (done);
    s_swept = hearth_loop_reap_unwatched (ctx.loop); /* 0, 1 or 2 */
    s_run (&ctx);
    assert_int_equal (s_swept, 2);
    assert_true (WIFEXITED (ctx.status[0]));
    assert_int_equal (WEXITSTATUS (ctx.status[0]), 7);
    for (int i = 0; i < 2; i++) {
        assert_int_equal (waitpid (strays[i], NULL, WNOHANG), -1);
        assert_int_equal (errno, ECHILD);
    }
    assert_int_equal (hearth_loop_reap_unwatched (ctx.loop), 0);
    hearth_loop_exit_t x;
    assert_false (hearth_loop_child_exited (ctx.loop, running));
    assert_int_equal (hearth_loop_child_end (ctx.loop, running, 0, &x), 0);
    assert_true (WIFSIGNALED (x.status));
    assert_int_equal (WTERMSIG (x.status), SIGKILL);
    hearth_loop_destroy (&ctx.loop);
}

int
main (void)
{
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_exit_codes),
        cmocka_unit_test (test_signals_and_rusage),
        cmocka_unit_test (test_kill_after_grace),
        cmocka_unit_test (test_kill_again),
        cmocka_unit_test (test_group_kill),
        cmocka_unit_test (test_many_children),
        cmocka_unit_test (test_exited_before_watch),
        cmocka_unit_test (test_end_waits),
        cmocka_unit_test (test_handlers_change_the_watch),
        cmocka_unit_test (test_errors),
        cmocka_unit_test (test_spawn),
        cmocka_unit_test (test_destroy_leaves_children),
        cmocka_unit_test (test_reap_unwatched),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

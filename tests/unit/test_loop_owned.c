/*  test_loop_owned.c - unit tests of owned children
    (libcore/loop_child.c, hearth_loop_child_own): a thread waits for
    its own child through the loop's watch, without the loop running.
    The exit status reaches the owner; a non-blocking look leaves a
    running child alone; a signal from another thread reaches the child
    while it runs and is refused once it is reaped; what a child leaves
    in its process group is killed at its reap; the sweep of unwatched
    children never takes an owned one; one reaped by someone else ends
    with an unknown status; and the errors (no shared watch,
    no owner, not our child, owned twice, the loop's own calls refused,
    an unknown owner).

    Children are real processes (sh); each blocking wait is bounded by
    the child itself (a sleep that a test kills, or an exit).
*/
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/loop.h"
#include "tests/unit/testutil.h"

/* Start `sh -c script` in its own process group, owned by owner; its
   stdout to out_fd (or /dev/null when < 0). */
static pid_t
s_spawn (hearth_loop_t *loop, const char *script, const void *owner, int out_fd)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    hearth_spawn_opts_t opts = {.argv = argv,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stdout_fd =
                                    out_fd >= 0 ? out_fd : HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_DEVNULL,
                                .new_pgroup = true};
    hearth_error_t err;
    pid_t pid = hearth_loop_spawn_owned (loop, &opts, owner, &err);
    assert_true (pid > 0);
    return pid;
}

static hearth_loop_t *
s_loop (void)
{
    hearth_loop_t *loop = hearth_loop_new ();
    assert_non_null (loop);
    assert_int_equal (hearth_loop_child_shared (loop), 0);
    return loop;
}

/* The owner gets the exit status; a second wait finds nothing. */
static void
test_exit_status (void **state)
{
    (void) state;
    hearth_loop_t *loop = s_loop ();
    int owner;
    pid_t pid = s_spawn (loop, "exit 7", &owner, -1);
    assert_int_equal (hearth_loop_children (loop), 1);
    hearth_loop_exit_t exit;
    assert_int_equal (hearth_loop_child_wait (loop, &owner, true, &exit), 1);
    assert_int_equal (exit.pid, pid);
    assert_true (WIFEXITED (exit.status));
    assert_int_equal (WEXITSTATUS (exit.status), 7);
    assert_int_equal (hearth_loop_children (loop), 0);
    assert_int_equal (hearth_loop_child_wait (loop, &owner, true, &exit), -1);
    assert_int_equal (errno, ESRCH);
    assert_int_equal (waitpid (pid, NULL, WNOHANG), -1); /* reaped */
    hearth_loop_destroy (&loop);
}

typedef struct {
    hearth_loop_t *loop;
    const void *owner;
    int rc;
} s_killer_t;

static void *
s_kill_from_thread (void *arg)
{
    s_killer_t *k = arg;
    k->rc = hearth_loop_child_signal_owned (k->loop, k->owner, SIGTERM);
    return NULL;
}

/* A look without waiting leaves a running child alone; a signal from
   another thread ends it; once reaped, a signal is refused. */
static void
test_signal_from_another_thread (void **state)
{
    (void) state;
    hearth_loop_t *loop = s_loop ();
    int owner;
    s_spawn (loop, "exec sleep 60", &owner, -1);
    hearth_loop_exit_t exit;
    assert_int_equal (hearth_loop_child_wait (loop, &owner, false, &exit), 0);
    assert_int_equal (hearth_loop_children (loop), 1);
    s_killer_t k = {loop, &owner, -2};
    pthread_t thread;
    assert_int_equal (pthread_create (&thread, NULL, s_kill_from_thread, &k),
                      0);
    pthread_join (thread, NULL);
    assert_int_equal (k.rc, 0);
    assert_int_equal (hearth_loop_child_wait (loop, &owner, true, &exit), 1);
    assert_true (WIFSIGNALED (exit.status));
    assert_int_equal (WTERMSIG (exit.status), SIGTERM);
    assert_int_equal (hearth_loop_child_signal_owned (loop, &owner, SIGTERM),
                      -1);
    assert_int_equal (errno, ESRCH);
    hearth_loop_destroy (&loop);
}

/* What the child left running in its group (a sleep holding its stdout)
   is killed at its reap: the pipe reaches its end at once, not in 60 s. */
static void
test_group_swept_at_reap (void **state)
{
    (void) state;
    hearth_loop_t *loop = s_loop ();
    int pipe_fds[2];
    assert_int_equal (pipe (pipe_fds), 0);
    int owner;
    s_spawn (loop, "sleep 60 & exit 3", &owner, pipe_fds[1]);
    close (pipe_fds[1]);
    hearth_loop_exit_t exit;
    assert_int_equal (hearth_loop_child_wait (loop, &owner, true, &exit), 1);
    assert_int_equal (WEXITSTATUS (exit.status), 3);
    struct pollfd p = {pipe_fds[0], POLLIN, 0};
    assert_int_equal (poll (&p, 1, 10000), 1); /* the sleep is gone */
    char c;
    assert_int_equal (read (pipe_fds[0], &c, 1), 0);
    close (pipe_fds[0]);
    hearth_loop_destroy (&loop);
}

/* The sweep of unwatched children leaves an exited owned child to its
   owner, whose wait still gets its status. */
static void
test_sweep_leaves_owned (void **state)
{
    (void) state;
    hearth_loop_t *loop = s_loop ();
    int owner;
    pid_t pid = s_spawn (loop, "exit 5", &owner, -1);
    siginfo_t info;
    assert_int_equal (waitid (P_PID, (id_t) pid, &info, WEXITED | WNOWAIT), 0);
    assert_int_equal (hearth_loop_reap_unwatched (loop), 0);
    hearth_loop_exit_t exit;
    assert_int_equal (hearth_loop_child_wait (loop, &owner, false, &exit), 1);
    assert_int_equal (WEXITSTATUS (exit.status), 5);
    hearth_loop_destroy (&loop);
}

/* A child someone else reaped (against the watch's rule): the owner's
   wait ends its entry with an unknown status (-1), and sends nothing to
   its group, whose id may be another's by then (not observable here:
   the path is). */
static void
test_reaped_by_someone_else (void **state)
{
    (void) state;
    hearth_loop_t *loop = s_loop ();
    int owner;
    pid_t pid = s_spawn (loop, "exit 4", &owner, -1);
    int status;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    hearth_loop_exit_t exit;
    assert_int_equal (hearth_loop_child_wait (loop, &owner, true, &exit), 1);
    assert_int_equal (exit.status, -1);
    assert_int_equal (hearth_loop_children (loop), 0);
    hearth_loop_destroy (&loop);
}

/* The errors, each with its errno. */
static void
test_errors (void **state)
{
    (void) state;
    hearth_loop_t *loop = hearth_loop_new ();
    int owner, other;
    pid_t self_pid = getpid ();
    assert_int_equal (hearth_loop_child_own (loop, self_pid, false, &owner),
                      -1);
    assert_int_equal (errno, EINVAL); /* no shared watch yet */
    assert_int_equal (hearth_loop_child_shared (loop), 0);
    assert_int_equal (hearth_loop_child_own (loop, self_pid, false, &owner),
                      -1);
    assert_int_equal (errno, ECHILD);
    pid_t pid = s_spawn (loop, "exec sleep 60", &owner, -1);
    assert_int_equal (hearth_loop_child_own (loop, pid, false, NULL), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (hearth_loop_child_own (loop, pid, false, &other), -1);
    assert_int_equal (errno, EEXIST);
    assert_int_equal (hearth_loop_child_kill (loop, pid, 0), -1);
    assert_int_equal (errno, EINVAL); /* its owner ends it */
    assert_int_equal (hearth_loop_child_end (loop, pid, 0, NULL), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (hearth_loop_child_signal_owned (loop, &other, SIGKILL),
                      -1);
    assert_int_equal (errno, ESRCH);
    assert_int_equal (hearth_loop_child_wait (loop, &other, false, NULL), -1);
    assert_int_equal (errno, ESRCH);
    assert_int_equal (hearth_loop_child_signal (loop, pid, SIGKILL), 0);
    assert_int_equal (hearth_loop_child_wait (loop, &owner, true, NULL), 1);
    hearth_loop_destroy (&loop);
}

int
main (void)
{
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_exit_status),
        cmocka_unit_test (test_signal_from_another_thread),
        cmocka_unit_test (test_group_swept_at_reap),
        cmocka_unit_test (test_sweep_leaves_owned),
        cmocka_unit_test (test_reaped_by_someone_else),
        cmocka_unit_test (test_errors),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

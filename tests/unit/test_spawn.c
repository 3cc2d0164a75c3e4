/*  test_spawn.c - unit tests of child processes and signals
    (libcore/spawn.c): what a spawned child sees (stdout, stdin, working
    directory, process group, environment, signal mask), exec failures,
    where Hearth programs are looked for, wait statuses in words, a
    signalfd that receives a signal, and (as root) a child run as another
    user: its ids and groups, and its directory reached as that user.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/spawn.h"
#include "tests/unit/testutil.h"

/* Read fd to its end into a new string. */
static char *
s_read_all (int fd)
{
    size_t size = 0, alloc = 256;
    char *buf = malloc (alloc);
    assert_non_null (buf);
    for (;;) {
        if (size + 1 >= alloc)
            assert_non_null (buf = realloc (buf, alloc *= 2));
        ssize_t n = read (fd, buf + size, alloc - size - 1);
        if (n < 0 && errno == EINTR)
            continue;
        assert_true (n >= 0);
        if (n == 0)
            break;
        size += (size_t) n;
    }
    buf[size] = '\0';
    return buf;
}

static int
s_wait (pid_t pid)
{
    int status;
    while (waitpid (pid, &status, 0) < 0)
        assert_int_equal (errno, EINTR);
    return status;
}

/* Run opts->argv with its stdout to a pipe; return what it wrote and,
   through *status, how it ended. */
static char *
s_run (hearth_spawn_opts_t *opts, int *status)
{
    int fds[2];
    assert_int_equal (pipe2 (fds, O_CLOEXEC), 0);
    opts->stdout_fd = fds[1];
    hearth_error_t err;
    pid_t pid = hearth_spawn (opts, &err);
    if (pid < 0)
        fail_msg ("spawn failed: %s", err.text);
    close (fds[1]);
    char *out = s_read_all (fds[0]);
    close (fds[0]);
    *status = s_wait (pid);
    return out;
}

/* The same for /bin/sh -c script. */
static char *
s_run_sh (hearth_spawn_opts_t *opts, const char *script, int *status)
{
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    opts->argv = argv;
    char *out = s_run (opts, status);
    opts->argv = NULL;
    return out;
}

static void
test_spawn_sh (void **state)
{
    (void) state;
    char dir[] = "test_spawn.XXXXXX", real[PATH_MAX];
    hearth_test_tmpdir (dir);
    assert_non_null (realpath (dir, real));
    hearth_spawn_opts_t opts = {.cwd = dir,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_INHERIT,
                                .new_pgroup = true};
    int status;
    char *out = s_run_sh (&opts,
                          "pwd -P; echo $$; "
                          "read -r _ _ _ _ pgid _ < /proc/$$/stat; "
                          "echo $pgid; readlink /proc/$$/fd/0; "
                          "if read line; then echo data; else echo eof; fi",
                          &status);
    char cwd[PATH_MAX], in[PATH_MAX], eof[16];
    long pid, pgid;
    if (sscanf (out, "%s %ld %ld %s %15s", cwd, &pid, &pgid, in, eof) != 5)
        fail_msg ("unexpected output: %s", out);
    assert_string_equal (cwd, real);
    assert_int_equal (pgid, pid); /* leads its own process group */
    assert_true (pgid != (long) getpgrp ());
    assert_string_equal (in, "/dev/null");
    assert_string_equal (eof, "eof");
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    free (out);
    assert_int_equal (rmdir (dir), 0);
}

static void
test_spawn_env_inherit (void **state)
{
    (void) state;
    const char *envp[] = {"HEARTH_SPAWN_TEST=42", "PATH=/usr/bin:/bin", NULL};
    hearth_spawn_opts_t opts = {.envp = envp,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_DEVNULL};
    int status;
    char *out =
        s_run_sh (&opts, "echo \"$HEARTH_SPAWN_TEST\"; echo $HOME", &status);
    assert_string_equal (out, "42\n\n");
    free (out);

    /* without new_pgroup the child stays in ours; no cwd: ours */
    char cwd[PATH_MAX];
    assert_non_null (getcwd (cwd, sizeof cwd));
    hearth_spawn_opts_t plain = {.stdin_fd = HEARTH_SPAWN_DEVNULL,
                                 .stderr_fd = HEARTH_SPAWN_INHERIT};
    out = s_run_sh (
        &plain, "read -r _ _ _ _ pgid _ < /proc/$$/stat; echo $pgid; pwd -P",
        &status);
    char want[PATH_MAX + 32];
    snprintf (want, sizeof want, "%ld\n%s\n", (long) getpgrp (), cwd);
    assert_string_equal (out, want);
    free (out);
}

/* A child starts with no blocked signals even when its parent blocks
   some (daemons block the signals they read from a signalfd).  grep is
   spawned directly: a shell blocks signals around its own forks, so what
   its children see of it is racy. */
static void
test_spawn_signal_mask (void **state)
{
    (void) state;
    sigset_t set, old;
    sigemptyset (&set);
    sigaddset (&set, SIGTERM);
    sigaddset (&set, SIGCHLD);
    assert_int_equal (sigprocmask (SIG_BLOCK, &set, &old), 0);
    const char *argv[] = {"grep", "SigBlk", "/proc/self/status", NULL};
    hearth_spawn_opts_t opts = {.argv = argv,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_INHERIT};
    int status;
    char *out = s_run (&opts, &status);
    assert_string_equal (out, "SigBlk:\t0000000000000000\n");
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    free (out);
    assert_int_equal (sigprocmask (SIG_SETMASK, &old, NULL), 0);
}

static void
test_exec_failure (void **state)
{
    (void) state;
    hearth_error_t err;
    const char *missing[] = {"hearth-no-such-program", "x", NULL};
    hearth_spawn_opts_t opts = {.argv = missing,
                                .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stdout_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_DEVNULL};
    assert_int_equal (hearth_spawn (&opts, &err), -1);
    assert_string_equal (err.text, "cannot run hearth-no-such-program: No "
                                   "such file or directory");
    assert_int_equal (errno, ENOENT);

    const char *absent[] = {"/nonexistent/bin/tool", NULL};
    opts.argv = absent;
    assert_int_equal (hearth_spawn (&opts, &err), -1);
    assert_contains (err.text, "cannot run /nonexistent/bin/tool: ");

    const char *sh[] = {"/bin/sh", "-c", "true", NULL};
    opts.argv = sh;
    opts.cwd = "/nonexistent/dir";
    assert_int_equal (hearth_spawn (&opts, &err), -1);
    assert_contains (err.text, "cannot run /bin/sh: ");

    const char *empty[] = {NULL};
    opts.argv = empty;
    assert_int_equal (hearth_spawn (&opts, &err), -1);
    assert_string_equal (err.text, "nothing to run (empty argv)");
}

/* As root: a child run as nobody (65534) has its uid, gid and groups
   only, and reaches its directory with that user's rights. */
static void
test_spawn_as_user (void **state)
{
    (void) state;
    if (geteuid () != 0) {
        skip ();
        return;
    }
    const gid_t groups[] = {65534, 4242};
    hearth_spawn_ids_t ids = {
        .uid = 65534, .gid = 65534, .groups = groups, .ngroups = 2};
    hearth_spawn_opts_t opts = {.stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_INHERIT,
                                .ids = &ids};
    int status;
    char *out = s_run_sh (&opts, "echo $(id -u) $(id -g) $(id -G)", &status);
    assert_int_equal (status, 0);
    assert_string_equal (out, "65534 65534 65534 4242\n");
    free (out);
    /* a directory only root may enter: refused to the user, saying so */
    char dir[] = "/tmp/hearth-spawn-XXXXXX";
    assert_non_null (mkdtemp (dir));
    assert_int_equal (chmod (dir, 0700), 0);
    const char *sh[] = {"/bin/sh", "-c", "true", NULL};
    opts.argv = sh;
    opts.cwd = dir;
    opts.stdout_fd = HEARTH_SPAWN_DEVNULL;
    hearth_error_t err;
    assert_int_equal (hearth_spawn (&opts, &err), -1);
    assert_contains (err.text, "cannot run /bin/sh in /tmp/hearth-spawn-");
    assert_contains (err.text, ": Permission denied");
    assert_int_equal (errno, EACCES);
    /* as root it may */
    opts.ids = NULL;
    opts.njoin_fds = 0;
    opts.die_with_parent = true; /* the fork path, as with ids */
    pid_t pid = hearth_spawn (&opts, &err);
    assert_true (pid > 0);
    assert_int_equal (s_wait (pid), 0);
    assert_int_equal (rmdir (dir), 0);
}

static void
test_program_path (void **state)
{
    (void) state;
    char buf[PATH_MAX];
    setenv ("HEARTH_BIN_DIR", "/opt/hearth/bin", 1);
    assert_string_equal (
        hearth_program_path ("hearth-executor", buf, sizeof buf),
        "/opt/hearth/bin/hearth-executor");
    unsetenv ("HEARTH_BIN_DIR");

    /* beside the running program when it is there ... */
    char self[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
    assert_true (n > 0);
    self[n] = '\0';
    const char *base = strrchr (self, '/') + 1;
    assert_string_equal (hearth_program_path (base, buf, sizeof buf), self);

    /* ... else in the installed bindir; an empty variable counts as unset */
    setenv ("HEARTH_BIN_DIR", "", 1);
    assert_string_equal (
        hearth_program_path ("hearth-no-such", buf, sizeof buf),
        HEARTH_BINDIR "/hearth-no-such");
    unsetenv ("HEARTH_BIN_DIR");
}

static void
test_wait_status_text (void **state)
{
    (void) state;
    hearth_spawn_opts_t opts = {.stdin_fd = HEARTH_SPAWN_DEVNULL,
                                .stderr_fd = HEARTH_SPAWN_INHERIT};
    char buf[64];
    int status;
    free (s_run_sh (&opts, "exit 3", &status));
    assert_string_equal (hearth_wait_status_text (status, buf, sizeof buf),
                         "exited with status 3");
    free (s_run_sh (&opts, "exit 0", &status));
    assert_string_equal (hearth_wait_status_text (status, buf, sizeof buf),
                         "exited with status 0");
    free (s_run_sh (&opts, "kill -KILL $$", &status));
    assert_string_equal (hearth_wait_status_text (status, buf, sizeof buf),
                         "killed by signal 9 (Killed)");
    free (s_run_sh (&opts, "kill -TERM $$", &status));
    assert_string_equal (hearth_wait_status_text (status, buf, sizeof buf),
                         "killed by signal 15 (Terminated)");
    /* a stopped child (WIFSTOPPED) is neither */
    assert_string_equal (hearth_wait_status_text (0x137f, buf, sizeof buf),
                         "ended with wait status 4991");
}

static void
test_signalfd (void **state)
{
    (void) state;
    static const int sigs[] = {SIGUSR1, SIGUSR2, 0};
    int fd = hearth_signalfd_open (sigs);
    assert_true (fd >= 0);
    assert_true (fcntl (fd, F_GETFD) & FD_CLOEXEC);
    assert_true (fcntl (fd, F_GETFL) & O_NONBLOCK);
    assert_int_equal (hearth_signalfd_read (fd), 0); /* none pending */

    assert_int_equal (raise (SIGUSR1), 0); /* blocked: does not kill us */
    assert_int_equal (hearth_signalfd_read (fd), SIGUSR1);
    assert_int_equal (hearth_signalfd_read (fd), 0);
    assert_int_equal (kill (getpid (), SIGUSR2), 0);
    assert_int_equal (hearth_signalfd_read (fd), SIGUSR2);

    sigset_t mask;
    assert_int_equal (sigprocmask (SIG_BLOCK, NULL, &mask), 0);
    assert_true (sigismember (&mask, SIGUSR1));
    close (fd);
    assert_int_equal (hearth_signalfd_read (fd), 0); /* closed: nothing */
    sigprocmask (SIG_UNBLOCK, &mask, NULL);
}

int
main (void)
{
    alarm (120);
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_spawn_sh),
        cmocka_unit_test (test_spawn_env_inherit),
        cmocka_unit_test (test_spawn_signal_mask),
        cmocka_unit_test (test_exec_failure),
        cmocka_unit_test (test_spawn_as_user),
        cmocka_unit_test (test_program_path),
        cmocka_unit_test (test_wait_status_text),
        cmocka_unit_test (test_signalfd),
    };
    return cmocka_run_group_tests_name ("spawn", tests, NULL, NULL);
}

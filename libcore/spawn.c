/*  spawn.c - posix_spawn with Hearth's defaults, and signalfds; see
    spawn.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#if __has_include(<linux/close_range.h>)
#include <linux/close_range.h>
#endif

#include "libcore/spawn.h"

extern char **environ;

/* clone3's arguments (the kernel's struct clone_args, version 2, with
   the cgroup field of Linux 5.7), declared here: <linux/sched.h> would
   redefine the CLONE_ flags of <sched.h>. */
struct s_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
    uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

static int
s_add_fd (posix_spawn_file_actions_t *fa, int fd, int target)
{
    if (fd == HEARTH_SPAWN_INHERIT || fd == target)
        return 0;
    if (fd == HEARTH_SPAWN_DEVNULL)
        return posix_spawn_file_actions_addopen (
            fa, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0);
    return posix_spawn_file_actions_adddup2 (fa, fd, target);
}

static int
s_setup_attr (posix_spawnattr_t *attr, bool new_pgroup)
{
    sigset_t none, all;
    sigemptyset (&none);
    sigfillset (&all);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (new_pgroup)
        flags |= POSIX_SPAWN_SETPGROUP;
    int rc = posix_spawnattr_setflags (attr, flags);
    if (!rc)
        rc = posix_spawnattr_setsigmask (attr, &none);
    if (!rc)
        rc = posix_spawnattr_setsigdefault (attr, &all);
    if (!rc && new_pgroup)
        rc = posix_spawnattr_setpgroup (attr, 0);
    return rc;
}

/* In the child of fork(): only async-signal-safe calls from here on. */
static void
s_child_fd (int fd, int target)
{
    if (fd == HEARTH_SPAWN_INHERIT || fd == target)
        return;
    if (fd == HEARTH_SPAWN_DEVNULL) {
        fd = open ("/dev/null", target == 0 ? O_RDONLY : O_WRONLY);
        if (fd < 0)
            return;
        dup2 (fd, target);
        close (fd);
        return;
    }
    dup2 (fd, target);
}

/* The credential system calls with 32-bit ids (i386's plain ones take
   16-bit ids). */
#ifdef SYS_setresuid32
#define S_SYS_SETGROUPS SYS_setgroups32
#define S_SYS_SETRESGID SYS_setresgid32
#define S_SYS_SETRESUID SYS_setresuid32
#else
#define S_SYS_SETGROUPS SYS_setgroups
#define S_SYS_SETRESGID SYS_setresgid
#define S_SYS_SETRESUID SYS_setresuid
#endif

/* Where a child that could not exec stopped (its report's stage). */
enum { S_JOIN = 1, S_IDS, S_CWD, S_EXEC };

/* What the child writes on the report pipe when it could not exec. */
typedef struct {
    int stage; /* S_* */
    int error; /* its errno */
} s_report_t;

/* Become opts->ids's user: groups, then gid, then uid (the last one
   drops the privilege of the others).  The raw system calls change this
   thread's credentials only, which are the process's: the child is
   single-threaded. */
static int
s_child_ids (const hearth_spawn_ids_t *ids)
{
    if (syscall (S_SYS_SETGROUPS, ids->ngroups, ids->groups) < 0
        || syscall (S_SYS_SETRESGID, ids->gid, ids->gid, ids->gid) < 0
        || syscall (S_SYS_SETRESUID, ids->uid, ids->uid, ids->uid) < 0)
        return -1;
    return 0;
}

/* Every fd from 3 up closes at exec, so that a child run as another user
   gets none of what its parent inherited or opened (a starter's log or
   lock file); the report pipe and the cgroup files stay usable until
   then.  Kernels before close_range's CLOEXEC (5.11): fd by fd, below
   max_fd. */
static void
s_child_cloexec (int max_fd)
{
#if defined(SYS_close_range) && defined(CLOSE_RANGE_CLOEXEC)
    if (syscall (SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
        return;
#endif
    for (int fd = 3; fd < max_fd; fd++)
        fcntl (fd, F_SETFD, FD_CLOEXEC);
}

static void __attribute__ ((noreturn))
s_child (const hearth_spawn_opts_t *opts, pid_t parent, bool in_group,
         int report_fd, int max_fd)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    for (int sig = 1; sig < NSIG; sig++)
        sigaction (sig, &dfl, NULL);
    if (opts->die_with_parent) {
        prctl (PR_SET_PDEATHSIG, SIGTERM);
        if (getppid () != parent) /* the parent died before prctl */
            _exit (127);
    }
    if (opts->new_pgroup)
        setpgid (0, 0);
    s_report_t r = {0, 0};
    /* into its groups before anything else runs in it (unless it was
       created there) */
    for (size_t i = 0; !in_group && i < opts->njoin_fds && !r.stage; i++)
        if (write (opts->join_fds[i], "0", 1) != 1)
            r = (s_report_t){S_JOIN, errno ? errno : EIO};
    s_child_fd (opts->stdin_fd, 0);
    s_child_fd (opts->stdout_fd, 1);
    s_child_fd (opts->stderr_fd, 2);
    if (opts->ids)
        s_child_cloexec (max_fd);
    if (!r.stage && opts->ids && s_child_ids (opts->ids) < 0)
        r = (s_report_t){S_IDS, errno};
    /* the kernel drops the parent-death signal with the credentials: set
       again, and checked again, since the parent may have died between
       the two (a child left running as its user, reparented) */
    if (!r.stage && opts->ids && opts->die_with_parent) {
        prctl (PR_SET_PDEATHSIG, SIGTERM);
        if (getppid () != parent)
            _exit (127);
    }
    if (!r.stage && opts->cwd && chdir (opts->cwd) < 0)
        r = (s_report_t){S_CWD, errno};
    sigset_t none;
    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
    char *const *argv = (char *const *) opts->argv;
    char *const *envp = opts->envp ? (char *const *) opts->envp : environ;
    if (!r.stage) {
        if (strchr (opts->argv[0], '/'))
            execve (opts->argv[0], argv, envp);
        else
            execvpe (opts->argv[0], argv, envp);
        r = (s_report_t){S_EXEC, errno};
    }
    ssize_t n = write (report_fd, &r, sizeof r);
    (void) n;
    _exit (127);
}

/* The error of a child that could not exec (r: where and why; opts, when
   known, for the details).  Returns -1. */
static int
s_exec_error (const s_report_t *r, const char *what,
              const hearth_spawn_opts_t *opts, hearth_error_t *err)
{
    errno = r->error;
    const char *why = strerror (r->error);
    switch (r->stage) {
    case S_JOIN:
        return hearth_errprintf (err, "cannot put %s into its cgroup: %s", what,
                                 why);
    case S_IDS:
        if (opts && opts->ids)
            return hearth_errprintf (err, "cannot run %s as uid %u: %s", what,
                                     (unsigned) opts->ids->uid, why);
        return hearth_errprintf (err, "cannot run %s as its user: %s", what,
                                 why);
    case S_CWD:
        if (opts && opts->cwd)
            return hearth_errprintf (err, "cannot run %s in %s: %s", what,
                                     opts->cwd, why);
        return hearth_errprintf (err, "cannot run %s in its directory: %s",
                                 what, why);
    default:
        return hearth_errprintf (err, "cannot run %s: %s", what, why);
    }
}

/* A child created in the cgroup v2 group of dir_fd: 0 in the child, its
   pid in the parent, or -1 when clone3 cannot (the caller forks).  The
   raw system call runs no fork handlers: the child, like fork's, calls
   only async-signal-safe functions before it execs. */
static pid_t
s_clone_into (int dir_fd)
{
#ifdef SYS_clone3
    struct s_clone_args args = {.flags = CLONE_INTO_CGROUP,
                                .exit_signal = SIGCHLD,
                                .cgroup = (uint64_t) dir_fd};
    return (pid_t) syscall (SYS_clone3, &args, sizeof args);
#else
    (void) dir_fd;
    errno = ENOSYS;
    return -1;
#endif
}

/* fork+exec the libuv way: signals blocked around fork, reset in the
   child, an exec failure reported through a close-on-exec pipe. */
static pid_t
s_spawn_fork (const hearth_spawn_opts_t *opts, hearth_error_t *err)
{
    int report[2];
    if (pipe2 (report, O_CLOEXEC) < 0)
        return hearth_errprintf (err, "pipe: %s", strerror (errno));
    sigset_t all, old;
    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    pid_t parent = getpid ();
    int max_fd = (int) sysconf (_SC_OPEN_MAX);
    pid_t pid = opts->cgroup_fd ? s_clone_into (*opts->cgroup_fd) : -1;
    if (pid == 0)
        s_child (opts, parent, true, report[1], max_fd);
    /* no clone3, or not into that group: fork, and the child joins */
    if (pid < 0)
        pid = fork ();
    if (pid == 0)
        s_child (opts, parent, false, report[1], max_fd);
    int fork_errno = errno;
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    close (report[1]);
    if (pid < 0) {
        close (report[0]);
        return hearth_errprintf (err, "cannot run %s: fork: %s", opts->argv[0],
                                 strerror (fork_errno));
    }
    if (opts->exec_report_fd) {
        /* the caller reads the outcome later (hearth_spawn_report) and
           reaps the child itself */
        fcntl (report[0], F_SETFL, O_NONBLOCK);
        *opts->exec_report_fd = report[0];
        return pid;
    }
    s_report_t r;
    ssize_t n;
    do
        n = read (report[0], &r, sizeof r);
    while (n < 0 && errno == EINTR);
    close (report[0]);
    if (n == (ssize_t) sizeof r) {
        waitpid (pid, NULL, 0);
        return s_exec_error (&r, opts->argv[0], opts, err);
    }
    return pid;
}

int
hearth_spawn_report (int fd, const char *what, hearth_error_t *err)
{
    s_report_t r;
    ssize_t n;
    do
        n = read (fd, &r, sizeof r);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 1;
    if (n == (ssize_t) sizeof r)
        return s_exec_error (&r, what, NULL, err);
    return 0;
}

pid_t
hearth_spawn (const hearth_spawn_opts_t *opts, hearth_error_t *err)
{
    if (opts->argv && opts->argv[0]
        && (opts->die_with_parent || opts->njoin_fds || opts->cgroup_fd
            || opts->ids))
        return s_spawn_fork (opts, err);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    pid_t pid = -1;
    int rc;
    if (!opts->argv || !opts->argv[0])
        return hearth_errprintf (err, "nothing to run (empty argv)");
    posix_spawn_file_actions_init (&fa);
    posix_spawnattr_init (&attr);
    rc = s_add_fd (&fa, opts->stdin_fd, 0);
    if (!rc)
        rc = s_add_fd (&fa, opts->stdout_fd, 1);
    if (!rc)
        rc = s_add_fd (&fa, opts->stderr_fd, 2);
    if (!rc && opts->cwd)
        rc = posix_spawn_file_actions_addchdir_np (&fa, opts->cwd);
    if (!rc)
        rc = s_setup_attr (&attr, opts->new_pgroup);
    if (!rc) {
        char *const *argv = (char *const *) opts->argv;
        char *const *envp = opts->envp ? (char *const *) opts->envp : environ;
        if (strchr (opts->argv[0], '/'))
            rc = posix_spawn (&pid, opts->argv[0], &fa, &attr, argv, envp);
        else
            rc = posix_spawnp (&pid, opts->argv[0], &fa, &attr, argv, envp);
    }
    posix_spawn_file_actions_destroy (&fa);
    posix_spawnattr_destroy (&attr);
    if (rc) {
        errno = rc;
        return hearth_errprintf (err, "cannot run %s: %s", opts->argv[0],
                                 strerror (rc));
    }
    return pid;
}

/* True if entry (NAME=...) names a variable that extra sets. */
static bool
s_overridden (const char *const *extra, const char *entry)
{
    const char *eq = strchr (entry, '=');
    size_t klen = eq ? (size_t) (eq - entry) : strlen (entry);
    for (size_t i = 0; extra && extra[i]; i++)
        if (strncmp (extra[i], entry, klen) == 0 && extra[i][klen] == '=')
            return true;
    return false;
}

const char **
hearth_env_merge (const char *const *base, const char *const *extra)
{
    if (!base)
        base = (const char *const *) environ;
    size_t n = 0, m = 0;
    while (base[n])
        n++;
    while (extra && extra[m])
        m++;
    const char **out = calloc (n + m + 1, sizeof *out);
    if (!out)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!s_overridden (extra, base[i]))
            out[k++] = base[i];
    for (size_t i = 0; i < m; i++)
        out[k++] = extra[i];
    return out;
}

static bool
s_executable (const char *path)
{
    return access (path, X_OK) == 0;
}

char *
hearth_program_path (const char *name, char *buf, size_t size)
{
    const char *dir = getenv ("HEARTH_BIN_DIR");
    if (dir && *dir) {
        snprintf (buf, size, "%s/%s", dir, name);
        return buf;
    }
    char self[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr (self, '/');
        if (slash) {
            *slash = '\0';
            snprintf (buf, size, "%s/%s", self, name);
            if (s_executable (buf))
                return buf;
        }
    }
    snprintf (buf, size, "%s/%s", HEARTH_BINDIR, name);
    return buf;
}

int
hearth_signalfd_open (const int *sigs)
{
    sigset_t set;
    sigemptyset (&set);
    for (; *sigs; sigs++)
        sigaddset (&set, *sigs);
    if (pthread_sigmask (SIG_BLOCK, &set, NULL) != 0)
        return -1;
    return signalfd (-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int
hearth_signalfd_read (int fd)
{
    struct signalfd_siginfo info;
    ssize_t n = read (fd, &info, sizeof info);
    if (n != (ssize_t) sizeof info)
        return 0;
    return (int) info.ssi_signo;
}

char *
hearth_wait_status_text (int status, char *buf, size_t size)
{
    if (WIFEXITED (status))
        snprintf (buf, size, "exited with status %d", WEXITSTATUS (status));
    else if (WIFSIGNALED (status))
        snprintf (buf, size, "killed by signal %d (%s)", WTERMSIG (status),
                  strsignal (WTERMSIG (status)));
    else
        snprintf (buf, size, "ended with wait status %d", status);
    return buf;
}

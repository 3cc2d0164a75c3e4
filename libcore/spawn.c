/*  spawn.c - posix_spawn with Hearth's defaults, and signalfds; see
    spawn.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libcore/spawn.h"

extern char **environ;

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

pid_t
hearth_spawn (const hearth_spawn_opts_t *opts, hearth_error_t *err)
{
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

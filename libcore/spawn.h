/*  spawn.h - starting child processes, and the signals of a daemon.

    Children are started with posix_spawn (vfork-fast, and exec failures come
    back as errors), with every signal unblocked and handled signals reset
    to their defaults in the child, optionally in their own process group
    and working directory.  They never see a ZeroMQ socket: every fd Hearth
    opens is close-on-exec.

    Daemons block the signals they care about before starting any thread
    and read them from a signalfd inside their event loop.
*/
#ifndef HEARTH_SPAWN_H
#define HEARTH_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "libcore/error.h"

/* For the fd fields of hearth_spawn_opts_t. */
#define HEARTH_SPAWN_INHERIT (-1) /* the child shares the parent's fd */
#define HEARTH_SPAWN_DEVNULL (-2) /* the child gets /dev/null */

/* A user to run a child as (hearth_spawn_opts_t's ids). */
typedef struct {
    uid_t uid;           /* its user id */
    gid_t gid;           /* its primary group */
    const gid_t *groups; /* its supplementary groups (getgrouplist's) */
    size_t ngroups;      /* entries of groups */
} hearth_spawn_ids_t;

typedef struct {
    const char *const *argv; /* argv[0] is run; searched in PATH if no '/' */
    const char *const *envp; /* the environment, or NULL to inherit */
    const char *cwd;         /* working directory, or NULL to inherit */
    int stdin_fd;            /* fd, or HEARTH_SPAWN_INHERIT / _DEVNULL */
    int stdout_fd;           /* likewise */
    int stderr_fd;           /* likewise */
    bool new_pgroup;         /* child leads a new process group */
    bool die_with_parent;    /* SIGTERM to the child when the calling thread
                                exits (PR_SET_PDEATHSIG); uses fork+exec */
    const int *join_fds;     /* files (cgroup.procs, or v1's tasks: the
                                child is single-threaded) it writes "0" to
                                before it execs, so that it runs in those
                                groups from its first instruction; a write
                                that fails fails the spawn; uses fork+exec */
    size_t njoin_fds;        /* entries of join_fds */
    const int *cgroup_fd;    /* a cgroup v2 group's directory (open), or
                                NULL: the child is created in that group
                                (clone3's CLONE_INTO_CGROUP), so that it
                                needs no join, whose write to v2's
                                cgroup.procs waits for an RCU grace period
                                (10 to 15 ms); where the kernel (before
                                5.7), a seccomp filter or valgrind refuses
                                clone3, join_fds are written instead.
                                Uses fork+exec */
    const hearth_spawn_ids_t *ids; /* the user to run it as, or NULL: the
                                caller's.  The child sets its groups, gid
                                and uid (setgroups, setresgid, setresuid,
                                as raw system calls: a child of clone3
                                runs no fork handler) once in its cgroups
                                and before it changes directory (so the
                                directory is reached as that user) and
                                execs; the caller needs the privilege to
                                (root).  Uses fork+exec */
    int *exec_report_fd;           /* fork+exec only: when set, the parent does
                                      not wait for the child's exec: it gets in
                                      *exec_report_fd the read end (non-blocking,
                                      close-on-exec; the caller closes it) of the
                                      pipe on which the child says why it could
                                      not exec, read with hearth_spawn_report */
} hearth_spawn_opts_t;

/* Start a child.  Returns its pid, or -1 with err (e.g. "cannot run
   foo: No such file or directory", "cannot run foo as uid 1001: ...",
   "cannot run foo in DIR: ..."). */
pid_t hearth_spawn (const hearth_spawn_opts_t *opts, hearth_error_t *err);

/* What the child of a spawn with exec_report_fd says on fd (named what
   in the error): 1 while it has not exec'd yet, 0 once it has (the fd
   can be closed), -1 with err when it could not (it exits 127). */
int hearth_spawn_report (int fd, const char *what, hearth_error_t *err);

/* base (NULL: this process's environment) with extra "NAME=VALUE"
   entries added, replacing base's entries of the same names.  The array
   is the caller's to free(); the strings stay borrowed.  NULL on no
   memory. */
const char **hearth_env_merge (const char *const *base,
                               const char *const *extra);

/* Path of a Hearth program (e.g. "hearth-executor") into buf: from
   $HEARTH_BIN_DIR if set, else beside the running program, else the
   installed bindir.  Returns buf. */
char *hearth_program_path (const char *name, char *buf, size_t size);

/* Block sigs (a 0-terminated list) in the calling thread and return a
   non-blocking, close-on-exec signalfd that reads them, or -1. */
int hearth_signalfd_open (const int *sigs);

/* Read one signal from a signalfd.  Returns the signal number, or 0 when
   none is pending. */
int hearth_signalfd_read (int fd);

/* Describe a wait() status: "exited with status 3", "killed by signal 9
   (Killed)".  Returns buf. */
char *hearth_wait_status_text (int status, char *buf, size_t size);

#endif

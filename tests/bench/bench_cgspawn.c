/*  bench_cgspawn.c - what putting a child into its cgroup costs at its
    start (docs/performance.md, "A child created in its group"):
    hearth_spawn of /bin/true into a scratch cgroup v2 group, until it
    has exited, with the two ways the worker has of placing a child:

      join: the child writes "0" to the group's cgroup.procs between fork
            and exec (the only way on cgroup v1, and v2's before);
      into: the child is created in the group (clone3, CLONE_INTO_CGROUP).

    The launches alternate and are spaced (--gap-ms, default 100), as an
    executor's launch comes after a quiet spell: the join's wait is the
    kernel's RCU grace period, which a burst of joins shares.

    Then, where a cgroup v1 memory hierarchy is mounted, the two joins of
    v1 into a scratch group there (docs/performance.md, "The v1 join
    without the grace period"):

      v1procs: "0" to cgroup.procs (the worker's way until 2026-12-06);
      v1tasks: "0" to tasks, the child moving its only thread (the
               worker's way since);
      v1tasks_asuser: the same, the child then running as nobody
               (setgroups, setresgid, setresuid: a root worker's launch
               of a task's user, docs/security.md).

    Usage: bench-cgspawn [--reps N] [--gap-ms MS].  Prints FIGURE lines
    cgspawn.join_us and cgspawn.into_us (microseconds a launch), or
    cgspawn.skipped with the reason when there is no writable cgroup2
    hierarchy (needs root), cgspawn.into_asuser_us (into, as nobody);
    cgspawn.v1procs_us, cgspawn.v1tasks_us and
    cgspawn.v1tasks_asuser_us, or cgspawn.v1.skipped.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcore/spawn.h"
#include "tests/bench/benchutil.h"
#include "tests/lib/scratchcg.h"

/* nobody, for the launches as another user. */
static const gid_t s_nogroup[] = {65534};
static const hearth_spawn_ids_t s_nobody = {65534, 65534, s_nogroup, 1};

/* One launch of /bin/true, which writes "0" to join_fd before it execs
   (unless created in the group of dir_fd), as ids (NULL: as this
   process); its microseconds, or -1. */
static double
s_launch_fds (int join_fd, const int *dir_fd, const hearth_spawn_ids_t *ids)
{
    const char *argv[] = {"/bin/true", NULL};
    hearth_spawn_opts_t o = {.argv = argv,
                             .stdin_fd = HEARTH_SPAWN_DEVNULL,
                             .stdout_fd = HEARTH_SPAWN_DEVNULL,
                             .stderr_fd = HEARTH_SPAWN_INHERIT,
                             .join_fds = &join_fd,
                             .njoin_fds = 1,
                             .cgroup_fd = dir_fd,
                             .ids = ids};
    hearth_error_t err;
    double t0 = bench_now_us ();
    pid_t pid = hearth_spawn (&o, &err);
    int status;
    if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status)
        || WEXITSTATUS (status) != 0) {
        fprintf (stderr, "bench-cgspawn: launch failed: %s\n",
                 pid < 0 ? err.text : "exit status");
        return -1;
    }
    return bench_now_us () - t0;
}

/* One launch of /bin/true into the v2 group g, placed as asked, as ids
   (or NULL). */
static double
s_launch (scratchcg_t *g, bool into, const hearth_spawn_ids_t *ids)
{
    return s_launch_fds (g->procs_fd, into ? &g->dir_fd : NULL, ids);
}

/* The first line of path holding needle (and, if not NULL, needle2),
   into buf.  0 or -1. */
static int
s_find_line (const char *path, const char *needle, const char *needle2,
             char *buf, size_t size)
{
    FILE *f = fopen (path, "re");
    int rc = -1;
    while (f && rc < 0 && fgets (buf, (int) size, f))
        if (strstr (buf, needle) && (!needle2 || strstr (buf, needle2)))
            rc = 0;
    if (f)
        fclose (f);
    buf[strcspn (buf, "\n")] = '\0';
    return rc;
}

/* A scratch group in the v1 memory hierarchy, under our own group: its
   directory into dir, its cgroup.procs and tasks open.  0, or -1 with
   why (nothing left made). */
static int
s_v1_make (char *dir, size_t size, int *procs_fd, int *tasks_fd, char *why,
           size_t why_size)
{
    char info[4096], mnt[4096], own[4096];
    if (geteuid () != 0)
        return snprintf (why, why_size, "not root"), -1;
    const char *at;
    if (s_find_line ("/proc/self/mountinfo", " - cgroup ", ",memory", info,
                     sizeof info)
            < 0
        || sscanf (info, "%*s %*s %*s %*s %4095s", mnt) != 1
        || s_find_line ("/proc/self/cgroup", ":memory:", NULL, own, sizeof own)
               < 0
        || !(at = strstr (own, ":memory:")))
        return snprintf (why, why_size, "no cgroup v1 memory hierarchy"), -1;
    at += strlen (":memory:");
    snprintf (dir, size, "%s%s/hearth-bench-cgspawn-v1-%d", mnt,
              strcmp (at, "/") == 0 ? "" : at, (int) getpid ());
    if (mkdir (dir, 0755) < 0)
        return snprintf (why, why_size, "cannot make %.150s: %s", dir,
                         strerror (errno)),
               -1;
    char path[4400];
    snprintf (path, sizeof path, "%s/cgroup.procs", dir);
    *procs_fd = open (path, O_WRONLY | O_CLOEXEC);
    snprintf (path, sizeof path, "%s/tasks", dir);
    *tasks_fd = open (path, O_WRONLY | O_CLOEXEC);
    if (*procs_fd < 0 || *tasks_fd < 0) {
        snprintf (why, why_size, "cannot open %.150s: %s", path,
                  strerror (errno));
        if (*procs_fd >= 0)
            close (*procs_fd);
        if (*tasks_fd >= 0)
            close (*tasks_fd);
        rmdir (dir);
        return -1;
    }
    return 0;
}

/* The v1 joins, alternating.  0 or -1. */
static int
s_v1 (long reps, const struct timespec *gap)
{
    char dir[4200], why[256];
    int procs_fd = -1, tasks_fd = -1;
    if (s_v1_make (dir, sizeof dir, &procs_fd, &tasks_fd, why, sizeof why)
        < 0) {
        printf ("bench-cgspawn: v1 skipped: %s\n", why);
        printf ("FIGURE cgspawn.v1.skipped 1 1 1 flag 1\n");
        return 0;
    }
    double procs[BENCH_MAX_REPS], tasks[BENCH_MAX_REPS], user[BENCH_MAX_REPS];
    int rc = 0;
    for (long r = 0; r < reps && rc == 0; r++) {
        nanosleep (gap, NULL);
        procs[r] = s_launch_fds (procs_fd, NULL, NULL);
        nanosleep (gap, NULL);
        tasks[r] = s_launch_fds (tasks_fd, NULL, NULL);
        nanosleep (gap, NULL);
        user[r] = s_launch_fds (tasks_fd, NULL, &s_nobody);
        if (procs[r] < 0 || tasks[r] < 0 || user[r] < 0)
            rc = 1;
    }
    if (rc == 0) {
        printf ("# in %s\n", dir);
        bench_figure ("cgspawn.v1procs_us", procs, (size_t) reps, "us");
        bench_figure ("cgspawn.v1tasks_us", tasks, (size_t) reps, "us");
        bench_figure ("cgspawn.v1tasks_asuser_us", user, (size_t) reps, "us");
    }
    close (procs_fd);
    close (tasks_fd);
    if (rmdir (dir) < 0)
        fprintf (stderr, "bench-cgspawn: cannot remove %s\n", dir);
    return rc;
}

int
main (int argc, char **argv)
{
    long reps = 20, gap_ms = 100;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--reps") == 0 && i + 1 < argc)
            reps = bench_arg_long ("--reps", argv[++i]);
        else if (strcmp (argv[i], "--gap-ms") == 0 && i + 1 < argc)
            gap_ms = bench_arg_long ("--gap-ms", argv[++i]);
        else {
            fprintf (stderr, "usage: bench-cgspawn [--reps N] [--gap-ms MS]\n");
            return 2;
        }
    }
    if (reps > BENCH_MAX_REPS)
        reps = BENCH_MAX_REPS;
    scratchcg_t g;
    char why[256];
    struct timespec gap = {gap_ms / 1000, (gap_ms % 1000) * 1000000};
    if (s_v1 (reps, &gap) < 0)
        return 1;
    if (scratchcg_make (&g, "hearth-bench-cgspawn", why, sizeof why) < 0) {
        printf ("bench-cgspawn: skipped: %s\n", why);
        printf ("FIGURE cgspawn.skipped 1 1 1 flag 1\n");
        return 0;
    }
    double join[BENCH_MAX_REPS], into[BENCH_MAX_REPS], user[BENCH_MAX_REPS];
    int rc = 0;
    for (long r = 0; r < reps && rc == 0; r++) {
        nanosleep (&gap, NULL);
        join[r] = s_launch (&g, false, NULL);
        nanosleep (&gap, NULL);
        into[r] = s_launch (&g, true, NULL);
        nanosleep (&gap, NULL);
        user[r] = s_launch (&g, true, &s_nobody);
        if (join[r] < 0 || into[r] < 0 || user[r] < 0)
            rc = 1;
    }
    if (rc == 0) {
        printf ("# in %s\n", g.rel);
        bench_figure ("cgspawn.join_us", join, (size_t) reps, "us");
        bench_figure ("cgspawn.into_us", into, (size_t) reps, "us");
        bench_figure ("cgspawn.into_asuser_us", user, (size_t) reps, "us");
    }
    if (scratchcg_remove (&g) < 0)
        fprintf (stderr, "bench-cgspawn: cannot remove %s\n", g.dir);
    return rc;
}

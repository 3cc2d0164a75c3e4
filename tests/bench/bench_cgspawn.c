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

    Usage: bench-cgspawn [--reps N] [--gap-ms MS].  Prints FIGURE lines
    cgspawn.join_us and cgspawn.into_us (microseconds a launch), or
    cgspawn.skipped with the reason when there is no writable cgroup2
    hierarchy (needs root).
*/
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcore/spawn.h"
#include "tests/bench/benchutil.h"
#include "tests/lib/scratchcg.h"

/* One launch of /bin/true, placed as asked; its microseconds, or -1. */
static double
s_launch (scratchcg_t *g, bool into)
{
    const char *argv[] = {"/bin/true", NULL};
    hearth_spawn_opts_t o = {.argv = argv,
                             .stdin_fd = HEARTH_SPAWN_DEVNULL,
                             .stdout_fd = HEARTH_SPAWN_DEVNULL,
                             .stderr_fd = HEARTH_SPAWN_INHERIT,
                             .join_fds = &g->procs_fd,
                             .njoin_fds = 1,
                             .cgroup_fd = into ? &g->dir_fd : NULL};
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
    if (scratchcg_make (&g, "hearth-bench-cgspawn", why, sizeof why) < 0) {
        printf ("bench-cgspawn: skipped: %s\n", why);
        printf ("FIGURE cgspawn.skipped 1 1 1 flag 1\n");
        return 0;
    }
    double join[BENCH_MAX_REPS], into[BENCH_MAX_REPS];
    struct timespec gap = {gap_ms / 1000, (gap_ms % 1000) * 1000000};
    int rc = 0;
    for (long r = 0; r < reps && rc == 0; r++) {
        nanosleep (&gap, NULL);
        join[r] = s_launch (&g, false);
        nanosleep (&gap, NULL);
        into[r] = s_launch (&g, true);
        if (join[r] < 0 || into[r] < 0)
            rc = 1;
    }
    if (rc == 0) {
        printf ("# in %s\n", g.rel);
        bench_figure ("cgspawn.join_us", join, (size_t) reps, "us");
        bench_figure ("cgspawn.into_us", into, (size_t) reps, "us");
    }
    if (scratchcg_remove (&g) < 0)
        fprintf (stderr, "bench-cgspawn: cannot remove %s\n", g.dir);
    return rc;
}

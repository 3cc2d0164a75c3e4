/*  bench_startup.c - benchmark 6: the wall time of a whole command, from
    its start to its exit (daemons started and stopped), repeated.

        bench-startup [--reps N] [--key KEY] -- COMMAND [ARGS...]

    Runs COMMAND --reps times (stdout to /dev/null, stderr kept) after one
    untimed run that warms the page cache, and prints the FIGURE KEY of the
    wall times in milliseconds.  A run that fails stops the benchmark.
*/
#include "config.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/bench/benchutil.h"

extern char **environ;

/* One run of argv; its wall time in ms, or exit on failure. */
static double
s_once (char **argv)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init (&fa);
    posix_spawn_file_actions_addopen (&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = bench_now_us ();
    if (posix_spawnp (&pid, argv[0], &fa, NULL, argv, environ) != 0) {
        fprintf (stderr, "bench-startup: cannot run %s\n", argv[0]);
        exit (1);
    }
    int status;
    waitpid (pid, &status, 0);
    double t1 = bench_now_us ();
    posix_spawn_file_actions_destroy (&fa);
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
        fprintf (stderr, "bench-startup: %s failed (status %d)\n", argv[0],
                 status);
        exit (1);
    }
    return (t1 - t0) / 1000.0;
}

int
main (int argc, char **argv)
{
    long reps = 5;
    const char *key = "startup";
    int i = 1;
    for (; i < argc && strcmp (argv[i], "--") != 0; i++) {
        if (i + 1 < argc && strcmp (argv[i], "--reps") == 0)
            reps = bench_arg_long (argv[i], argv[i + 1]), i++;
        else if (i + 1 < argc && strcmp (argv[i], "--key") == 0)
            key = argv[++i];
        else
            break;
    }
    if (i >= argc - 1 || strcmp (argv[i], "--") != 0) {
        fprintf (stderr,
                 "usage: bench-startup [--reps N] [--key KEY] -- COMMAND...\n");
        return 2;
    }
    char **cmd = argv + i + 1;
    if (reps > BENCH_MAX_REPS)
        reps = BENCH_MAX_REPS;
    double ms[BENCH_MAX_REPS];
    s_once (cmd);
    for (long r = 0; r < reps; r++)
        ms[r] = s_once (cmd);
    printf ("# wall time of:");
    for (char **a = cmd; *a; a++)
        printf (" %s", *a);
    printf ("\n");
    bench_figure (key, ms, reps, "ms");
    return 0;
}

/*  bench_jobparse.c - benchmark 22's parse and check of a job file
    (docs/performance.md, "Job files beside the C API"; issue 19's "≤ 50
    ms for 200,000 tasks"), measured inside one process: jobfile_load()
    of FILE, --reps times, each timed by this thread's CPU clock and by
    the wall clock.  No process start, no exec of hearth-driver, no
    library load: only the read, the params' filling and the checks.

        bench-jobparse [--reps N] [--key KEY] FILE

    Prints FIGURE KEY.cpu_ms and KEY.wall_ms (KEY: jf.parse).  The CPU
    figure is the one a loaded machine blurs least; bench-jobfile.sh runs
    it, and once under callgrind (jobfile_load's instructions alone,
    --toggle-collect) when valgrind is there.
*/
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "jobfile/jobfile.h"
#include "tests/bench/benchutil.h"

/* This thread's CPU time, microseconds. */
static double
s_cpu_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* One load of path; its CPU and wall milliseconds.  0, or -1 (said). */
static int
s_load (const char *path, double *cpu_ms, double *wall_ms)
{
    jobparams_input_t in = {.submit_dir = "/"};
    hearth_error_t err;
    double w0 = bench_now_us (), c0 = s_cpu_us ();
    jobfile_t *jf = jobfile_load (path, &in, &err);
    *cpu_ms = (s_cpu_us () - c0) / 1e3;
    *wall_ms = (bench_now_us () - w0) / 1e3;
    if (!jf) {
        fprintf (stderr, "bench-jobparse: %s\n", err.text);
        return -1;
    }
    jobfile_destroy (&jf);
    return 0;
}

int
main (int argc, char **argv)
{
    long reps = 5;
    const char *key = "jf.parse", *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--reps") == 0 && i + 1 < argc)
            reps = bench_arg_long ("--reps", argv[++i]);
        else if (strcmp (argv[i], "--key") == 0 && i + 1 < argc)
            key = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf (stderr,
                     "usage: bench-jobparse [--reps N] [--key KEY] FILE\n");
            return 2;
        }
    }
    if (!path || reps > BENCH_MAX_REPS) {
        fprintf (stderr, "bench-jobparse: a FILE and at most %d reps\n",
                 BENCH_MAX_REPS);
        return 2;
    }
    double cpu[BENCH_MAX_REPS], wall[BENCH_MAX_REPS];
    for (long r = 0; r < reps; r++)
        if (s_load (path, &cpu[r], &wall[r]) < 0)
            return 1;
    char name[128];
    snprintf (name, sizeof name, "%s.cpu_ms", key);
    bench_figure (name, cpu, (size_t) reps, "ms");
    snprintf (name, sizeof name, "%s.wall_ms", key);
    bench_figure (name, wall, (size_t) reps, "ms");
    return 0;
}

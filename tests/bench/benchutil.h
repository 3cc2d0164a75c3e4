/*  benchutil.h - what every benchmark of tests/bench/ shares: a clock,
    medians of repetitions, and the one output format run-bench.sh reads.

    A benchmark prints, for each figure, one line

        FIGURE <key> <median> <min> <max> <unit> <repetitions>

    (numbers with a dot, no thousands separators) and may print anything
    else on lines that do not start with FIGURE.  The script puts each
    figure beside its reference and target (docs/performance.md).

    Header-only: each benchmark is one .c file plus this.
*/
#ifndef HEARTH_BENCHUTIL_H
#define HEARTH_BENCHUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Most repetitions of one figure. */
#define BENCH_MAX_REPS 64

/* Monotonic microseconds, as a double for arithmetic. */
static inline double
bench_now_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int
bench_cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Sort v[0..n) in place. */
static inline void
bench_sort (double *v, size_t n)
{
    qsort (v, n, sizeof *v, bench_cmp_double);
}

/* The q-quantile (0..1) of sorted v[0..n), nearest rank. */
static inline double
bench_quantile (const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t rank = (size_t) (q * (double) n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

/* Print the FIGURE line of n repetitions v (reordered). */
static inline void
bench_figure (const char *key, double *v, size_t n, const char *unit)
{
    if (n == 0) {
        printf ("FIGURE %s nan nan nan %s 0\n", key, unit);
        return;
    }
    bench_sort (v, n);
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    printf ("FIGURE %s %.6g %.6g %.6g %s %zu\n", key, median, v[0], v[n - 1],
            unit, n);
    fflush (stdout);
}

/* A positive integer option value, or exit with usage status 2. */
static inline long
bench_arg_long (const char *name, const char *text)
{
    char *end;
    long v = strtol (text, &end, 10);
    if (!*text || *end || v < 1) {
        fprintf (stderr, "%s: expected a positive integer, got '%s'\n", name,
                 text);
        exit (2);
    }
    return v;
}

/* Kilobytes of a "Name:   N kB" line of /proc/PID/status (pid 0: self),
   or -1. */
static inline long
bench_proc_status_kb (int pid, const char *name)
{
    char path[64], line[256];
    if (pid)
        snprintf (path, sizeof path, "/proc/%d/status", pid);
    else
        snprintf (path, sizeof path, "/proc/self/status");
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    long kb = -1;
    size_t len = strlen (name);
    while (fgets (line, sizeof line, f))
        if (strncmp (line, name, len) == 0 && line[len] == ':') {
            kb = strtol (line + len + 1, NULL, 10);
            break;
        }
    fclose (f);
    return kb;
}

#endif

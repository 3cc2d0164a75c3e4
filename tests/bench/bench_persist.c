/*  bench_persist.c - benchmark 28, persisted stages (bench-persist.sh).

    bench-persist gen FILE BYTES
        BYTES (rounded down to whole lines) of points (points.h), seeded.
    bench-persist run FILE PASSES MAPS PARTS
        through hearth-submit with --lib libbenchtasks.so: job "load" of
        MAPS points_parse tasks over slices of FILE into PARTS partitions,
        persisted, and PARTS points_pass tasks reading them; then PASSES
        - 1 jobs of PARTS points_pass tasks reading the persisted stage
        again.  Prints "pass K MS SUM COUNT" (K from 1; the first
        includes reading and parsing FILE), SUM and COUNT over all keys.
    bench-persist ref FILE PASSES
        the same passes in one process: FILE read and parsed into records
        in memory once (not timed), then PASSES passes over them, each
        timed; prints the same lines.
*/
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hearth.h>

#include "tests/bench/points.h"

static double
s_now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
s_gen (const char *path, uint64_t bytes)
{
    FILE *f = fopen (path, "w");
    if (!f)
        return perror (path), 1;
    uint64_t x = 88172645463325252ull; /* xorshift64, seeded */
    for (uint64_t i = 0; i < bytes / POINTS_LINE; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        fprintf (f, "%08u,%06u,%07u\n", (unsigned) (i % 100000000),
                 (unsigned) (x % 1000000), (unsigned) ((x >> 20) % 10000000));
    }
    return fclose (f) == 0 ? 0 : 1;
}

/* Sum a pass's "K SUM COUNT" lines (or a stage's results) into totals. */
static void
s_totals (const char *text, size_t len, uint64_t *sum, uint64_t *count)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        unsigned k;
        uint64_t s, c;
        if (sscanf (p, "%u %" SCNu64 " %" SCNu64, &k, &s, &c) == 3)
            *sum += s, *count += c;
        const char *nl = memchr (p, '\n', (size_t) (end - p));
        p = nl ? nl + 1 : end;
    }
}

/* A stage of parts points_pass tasks reading in, in job. */
static hearth_stage_t *
s_pass_stage (hearth_job_t *job, hearth_stage_t *in, uint32_t parts)
{
    hearth_stage_t *st = hearth_job_stage (job, "pass");
    hearth_stage_input (st, in);
    hearth_stage_add_functions (st, "points_pass", "", parts);
    return st;
}

static int
s_report (hearth_job_t *job, hearth_stage_t *pass, uint32_t parts, int k,
          double ms)
{
    if (hearth_job_state (job) != HEARTH_JOB_SUCCEEDED)
        return fprintf (stderr, "bench-persist: pass %d: %s\n", k,
                        hearth_job_error (job)),
               -1;
    uint64_t sum = 0, count = 0;
    for (uint32_t i = 0; i < parts; i++) {
        size_t len;
        const char *r = hearth_stage_result (pass, i, &len);
        s_totals (r, len, &sum, &count);
    }
    printf ("pass %d %.1f %" PRIu64 " %" PRIu64 "\n", k, ms, sum, count);
    fflush (stdout);
    return 0;
}

static int
s_run (const char *path, int passes, uint32_t maps, uint32_t parts)
{
    struct stat sb;
    if (stat (path, &sb) < 0)
        return perror (path), 1;
    uint64_t lines = (uint64_t) sb.st_size / POINTS_LINE;
    char err[512];
    hearth_opts_t *opts = hearth_opts_new (err, sizeof err);
    hearth_ctx_t *ctx = opts ? hearth_ctx_new (opts, err, sizeof err) : NULL;
    hearth_opts_destroy (&opts);
    if (!ctx)
        return fprintf (stderr, "bench-persist: %s\n", err), 1;
    double t0 = s_now_ms ();
    hearth_job_t *load = hearth_job_new (ctx, "load");
    hearth_stage_t *points = hearth_job_stage (load, "points");
    for (uint32_t m = 0; m < maps; m++) {
        uint64_t a = lines * m / maps, b = lines * (m + 1) / maps;
        char arg[4200];
        snprintf (arg, sizeof arg, "%s %" PRIu64 " %" PRIu64, path,
                  a * POINTS_LINE, (b - a) * POINTS_LINE);
        hearth_stage_add_function (points, "points_parse", arg);
    }
    hearth_stage_set_partitions (points, parts, 0);
    hearth_stage_persist (points, HEARTH_PERSIST_MEMORY_AND_DISK);
    hearth_stage_t *pass = s_pass_stage (load, points, parts);
    hearth_job_run (load);
    int rc = s_report (load, pass, parts, 1, s_now_ms () - t0);
    for (int k = 2; rc == 0 && k <= passes; k++) {
        t0 = s_now_ms ();
        hearth_job_t *job = hearth_job_new (ctx, "again");
        pass = s_pass_stage (job, points, parts);
        hearth_job_run (job);
        rc = s_report (job, pass, parts, k, s_now_ms () - t0);
        hearth_job_destroy (&job);
    }
    hearth_job_destroy (&load);
    hearth_ctx_destroy (&ctx);
    return rc == 0 ? 0 : 1;
}

static int
s_ref (const char *path, int passes)
{
    FILE *f = fopen (path, "r");
    struct stat sb;
    if (!f || fstat (fileno (f), &sb) < 0)
        return perror (path), 1;
    size_t len = (size_t) sb.st_size / POINTS_LINE * POINTS_LINE;
    char *raw = malloc (len + 1), *rec = malloc (len + 1);
    if (!raw || !rec || fread (raw, 1, len, f) != len)
        return fprintf (stderr, "bench-persist: cannot read %s\n", path), 1;
    fclose (f);
    size_t n = points_parse_lines (raw, len, rec);
    free (raw);
    for (int k = 1; k <= passes; k++) {
        static uint64_t sum[POINTS_KEYS], count[POINTS_KEYS];
        memset (sum, 0, sizeof sum);
        memset (count, 0, sizeof count);
        double t0 = s_now_ms ();
        points_sum (rec, n, sum, count);
        double ms = s_now_ms () - t0;
        uint64_t s = 0, c = 0;
        for (unsigned i = 0; i < POINTS_KEYS; i++)
            s += sum[i], c += count[i];
        printf ("pass %d %.1f %" PRIu64 " %" PRIu64 "\n", k, ms, s, c);
    }
    free (rec);
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc == 4 && strcmp (argv[1], "gen") == 0)
        return s_gen (argv[2], strtoull (argv[3], NULL, 10));
    if (argc == 6 && strcmp (argv[1], "run") == 0)
        return s_run (argv[2], atoi (argv[3]), (uint32_t) atoi (argv[4]),
                      (uint32_t) atoi (argv[5]));
    if (argc == 4 && strcmp (argv[1], "ref") == 0)
        return s_ref (argv[2], atoi (argv[3]));
    fprintf (stderr, "usage: bench-persist gen FILE BYTES | run FILE PASSES "
                     "MAPS PARTS | ref FILE PASSES\n");
    return 2;
}

/*  bench_evlog.c - the event log's own CPU a task, without the rest of the
    driver: what the engine thread spends storing a no-op task's
    task_start and task_end (in batches sharing a clock read, as
    launch.c's offers and status messages do) and what the writer thread
    spends making and writing their lines.  Both are CPU time, so a busy
    machine changes them less than it changes the no-op task rate
    (benchmark 2), whose event-log pairs they explain
    (docs/performance.md, "The event log's cost").

        bench-evlog --dir DIR [--tasks N] [--reps N] [--key PREFIX]

    Figures: KEY.engine_ns_per_task, KEY.writer_ns_per_task (the
    process's CPU but the engine thread's, from the first event to the
    writer's end: formatting, write(2), the final fdatasync),
    KEY.bytes_per_task.
*/
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libhearth/eventlog.h"
#include "libhearth/evtask.h"
#include "tests/bench/benchutil.h"

/* Tasks a batch: launch.c's offers are of at most this many. */
static const int s_batch = 64;

static double
s_cpu_ns (clockid_t clock)
{
    struct timespec ts;
    clock_gettime (clock, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* Bytes of the files in dir, each removed. */
static double
s_take_files (const char *dir)
{
    double bytes = 0;
    DIR *d = opendir (dir);
    struct dirent *e;
    while (d && (e = readdir (d))) {
        char path[4096];
        struct stat st;
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat (path, &st) == 0) {
            bytes += (double) st.st_size;
            unlink (path);
        }
    }
    if (d)
        closedir (d);
    return bytes;
}

/* One repetition: n tasks' events; engine and writer ns a task. */
static void
s_run (const char *dir, long n, double *engine, double *writer, double *bytes)
{
    hearth_error_t err;
    eventlog_t *el = eventlog_new (dir, "app-bench", 0, &err);
    if (!el) {
        fprintf (stderr, "bench-evlog: %s\n", err.text);
        exit (1);
    }
    double p0 = s_cpu_ns (CLOCK_PROCESS_CPUTIME_ID);
    double t0 = s_cpu_ns (CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < n; i += s_batch) {
        long end = i + s_batch < n ? i + s_batch : n;
        eventlog_hold_clock (el);
        for (long j = i; j < end; j++)
            evtask_start (
                el, 0, &(hearth_assign_t){.stage = 1, .index = (uint64_t) j});
        eventlog_release_clock (el);
        eventlog_hold_clock (el);
        for (long j = i; j < end; j++)
            evtask_end (el, &(evtask_end_t){.exec_id = 0,
                                            .stage = 1,
                                            .index = (uint64_t) j,
                                            .state = "FINISHED",
                                            .out = HEARTH_TS_ACCEPT,
                                            .run_us = 37 + j % 50,
                                            .result_bytes = 2});
        eventlog_release_clock (el);
    }
    double t1 = s_cpu_ns (CLOCK_THREAD_CPUTIME_ID);
    eventlog_destroy (&el); /* joins the writer: its CPU is in p1 */
    double p1 = s_cpu_ns (CLOCK_PROCESS_CPUTIME_ID);
    double t2 = s_cpu_ns (CLOCK_THREAD_CPUTIME_ID);
    *engine = (t1 - t0) / (double) n;
    *writer = ((p1 - p0) - (t2 - t0)) / (double) n;
    *bytes = s_take_files (dir) / (double) n;
}

int
main (int argc, char **argv)
{
    const char *dir = NULL, *key = "evlog";
    long tasks = 1000000, reps = 5;
    for (int i = 1; i + 1 < argc; i += 2)
        if (strcmp (argv[i], "--dir") == 0)
            dir = argv[i + 1];
        else if (strcmp (argv[i], "--tasks") == 0)
            tasks = bench_arg_long ("--tasks", argv[i + 1]);
        else if (strcmp (argv[i], "--reps") == 0)
            reps = bench_arg_long ("--reps", argv[i + 1]);
        else if (strcmp (argv[i], "--key") == 0)
            key = argv[i + 1];
        else
            dir = NULL, i = argc;
    if (!dir || argc % 2 == 0 || reps > BENCH_MAX_REPS) {
        fprintf (stderr, "usage: bench-evlog --dir DIR [--tasks N] "
                         "[--reps N] [--key PREFIX]\n");
        return 2;
    }
    double engine[BENCH_MAX_REPS], writer[BENCH_MAX_REPS],
        bytes[BENCH_MAX_REPS];
    for (long r = 0; r < reps; r++)
        s_run (dir, tasks, &engine[r], &writer[r], &bytes[r]);
    char k[256];
    printf ("# the event log's CPU for %ld no-op tasks\n", tasks);
    snprintf (k, sizeof k, "%s.engine_ns_per_task", key);
    bench_figure (k, engine, (size_t) reps, "ns");
    snprintf (k, sizeof k, "%s.writer_ns_per_task", key);
    bench_figure (k, writer, (size_t) reps, "ns");
    snprintf (k, sizeof k, "%s.bytes_per_task", key);
    bench_figure (k, bytes, (size_t) reps, "B");
    return 0;
}

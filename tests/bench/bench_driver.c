/*  bench_driver.c - benchmarks 2 to 5 and 8: a driver program (libhearth)
    that times jobs on a warm application.

        throughput --tasks N   one stage of N no-op function tasks; tasks/s
                               from submission to the last result (bench 2,
                               and bench 8 with --tasks 1000000, which also
                               reports the driver's peak RSS per task)
        latency --jobs N       N sequential one-task jobs; p50 and p99 of
                               submit-to-result, and as many raw ZeroMQ
                               round trips (zmqref.h), the two alternating
                               in blocks of 100 so that both see the same
                               load; each repetition's p50 ratio (bench 3)
        commands --tasks N     N /bin/true command tasks, and beside them
                               posix_spawn and waitpid of /bin/true on as
                               many threads as there are cores (bench 4)
        sleep --tasks N        N function tasks sleeping --ms each; the
                               efficiency ideal/measured, and beside it the
                               same sleeps on plain threads (bench 5)
        cold --tasks N --kind fn|cmd
                               N distinct tasks, a context made and
                               destroyed around them, timed whole: the API's
                               side of bench-jobfile.sh (bench 22)
        first --tasks N        a new application's first job of N no-op
                               tasks, then --reps warm ones (bench 23)

    Common options: --master URL (default local[2]), --lib FILE (the
    benchmark tasks, libbenchtasks.so), --reps N (default 3), --cores N
    (cores in all, for the ideal and the references; default 2); latency's
    --ref ENDPOINT [--ref-key Z85] measures the round trips against a
    bench-zmq --serve on another host instead of a forked local one
    (benchmark 21, bench-netns.sh).  Before
    the timed repetitions a warm-up job makes sure every executor has
    registered.  Output: FIGURE lines (benchutil.h).
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libhearth/hearth.h"
#include "tests/bench/benchutil.h"
#include "tests/bench/zmqref.h"

extern char **environ;

typedef struct {
    const char *mode;    /* throughput, latency, commands, sleep */
    const char *master;  /* --master */
    const char *lib;     /* --lib */
    const char *key;     /* prefix of the figures' keys */
    const char *evlog;   /* --event-log DIR, or NULL */
    const char *ref;     /* --ref ENDPOINT: latency's reference server on
                            another host (bench-zmq --serve), or NULL */
    const char *ref_key; /* --ref-key Z85: that server's CURVE key */
    long reps;           /* repetitions */
    long tasks;          /* tasks per job (jobs for latency) */
    long cores;          /* cores in all */
    long ms;             /* sleep: milliseconds per task */
    const char *kind;    /* cold: "fn" or "cmd" */
} s_args_t;

static hearth_ctx_t *
s_context (const s_args_t *a)
{
    char err[512];
    hearth_opts_t *opts = hearth_opts_new (err, sizeof err);
    if (!opts || hearth_opts_set (opts, "master", a->master, err, sizeof err)
        || hearth_opts_set (opts, "name", "bench", err, sizeof err)
        || (a->lib && hearth_opts_set (opts, "lib", a->lib, err, sizeof err))
        || (a->evlog
            && hearth_opts_set (opts, "event-log", a->evlog, err,
                                sizeof err))) {
        fprintf (stderr, "bench-driver: %s\n", err);
        exit (1);
    }
    hearth_ctx_t *ctx = hearth_ctx_new (opts, err, sizeof err);
    hearth_opts_destroy (&opts);
    if (!ctx) {
        fprintf (stderr, "bench-driver: %s\n", err);
        exit (1);
    }
    return ctx;
}

/* Run a job; exit on failure.  Returns its wall time in microseconds from
   submission to its end (every result delivered). */
static double
s_run (hearth_job_t *job)
{
    double t0 = bench_now_us ();
    int rc = hearth_job_run (job);
    double t1 = bench_now_us ();
    if (rc != 0) {
        fprintf (stderr, "bench-driver: job failed: %s\n",
                 hearth_job_error (job));
        exit (1);
    }
    return t1 - t0;
}

static hearth_job_t *
s_functions (hearth_ctx_t *ctx, const char *fn, const char *arg, long n)
{
    hearth_job_t *job = hearth_job_new (ctx, fn);
    hearth_stage_t *st = job ? hearth_job_stage (job, "s") : NULL;
    if (!st || hearth_stage_add_functions (st, fn, arg, (uint64_t) n) < 0) {
        fprintf (stderr, "bench-driver: cannot build a job of %ld tasks\n", n);
        exit (1);
    }
    return job;
}

/* Long enough for every executor to register and run something. */
static void
s_warm_up (hearth_ctx_t *ctx, const s_args_t *a)
{
    hearth_job_t *job = s_functions (ctx, "sleep_ms", "50", 8 * a->cores);
    s_run (job);
    hearth_job_destroy (&job);
    job = s_functions (ctx, "noop", NULL, 10000);
    s_run (job);
    hearth_job_destroy (&job);
}

static void
s_key (char *buf, size_t size, const s_args_t *a, const char *what)
{
    snprintf (buf, size, "%s.%s", a->key, what);
}

/* ---- throughput (benchmarks 2 and 8) ------------------------------------ */

static void
s_throughput (hearth_ctx_t *ctx, const s_args_t *a)
{
    double rate[BENCH_MAX_REPS], bytes[BENCH_MAX_REPS];
    for (long r = 0; r < a->reps; r++) {
        /* The peak RSS of this repetition alone: reset the high-water
           mark, then measure from the resident size before the job. */
        int fd = open ("/proc/self/clear_refs", O_WRONLY);
        if (fd >= 0) {
            if (write (fd, "5", 1) < 0)
                bytes[r] = -1;
            close (fd);
        }
        long before_kb = bench_proc_status_kb (0, "VmRSS");
        hearth_job_t *job = s_functions (ctx, "noop", NULL, a->tasks);
        double us = s_run (job);
        long peak_kb = bench_proc_status_kb (0, "VmHWM");
        rate[r] = (double) a->tasks / (us / 1e6);
        bytes[r] = (double) (peak_kb - before_kb) * 1024.0 / (double) a->tasks;
        hearth_job_destroy (&job);
    }
    char key[128];
    printf ("# %ld no-op function tasks, master %s\n", a->tasks, a->master);
    s_key (key, sizeof key, a, "tasks_per_s");
    bench_figure (key, rate, a->reps, "tasks/s");
    s_key (key, sizeof key, a, "peak_rss_per_task");
    bench_figure (key, bytes, a->reps, "B");
}

/* ---- latency (benchmark 3) ---------------------------------------------- */

/* The raw ZeroMQ reference of the latency mode, forked before the
   application's context exists. */
static zmqref_t s_ref;
/* Jobs and round trips alternate in blocks of this many, so that both
   see the same moments of a machine whose speed moves (the reference
   measured whole before each repetition drifted by 20 % from it). */
enum { s_lat_block = 100 };

static void
s_latency (hearth_ctx_t *ctx, const s_args_t *a)
{
    double p50[BENCH_MAX_REPS], p99[BENCH_MAX_REPS], ratio[BENCH_MAX_REPS];
    double ref50[BENCH_MAX_REPS], ref99[BENCH_MAX_REPS];
    double *us = calloc (a->tasks, sizeof *us);
    double *ref = calloc (a->tasks, sizeof *ref);
    for (long r = 0; r < a->reps; r++) {
        for (long done = 0; done < a->tasks; done += s_lat_block) {
            long n =
                a->tasks - done < s_lat_block ? a->tasks - done : s_lat_block;
            zmqref_rtt_warm (s_ref.dealer, ref + done, (int) n,
                             done == 0 ? ZMQREF_WARMUP : 0);
            for (long i = done; i < done + n; i++) {
                hearth_job_t *job = s_functions (ctx, "noop", NULL, 1);
                us[i] = s_run (job);
                hearth_job_destroy (&job);
            }
        }
        bench_sort (ref, a->tasks);
        ref50[r] = bench_quantile (ref, a->tasks, 0.50);
        ref99[r] = bench_quantile (ref, a->tasks, 0.99);
        bench_sort (us, a->tasks);
        p50[r] = bench_quantile (us, a->tasks, 0.50);
        p99[r] = bench_quantile (us, a->tasks, 0.99);
        ratio[r] = p50[r] / ref50[r];
    }
    free (us);
    free (ref);
    char key[128];
    printf ("# %ld sequential one-task jobs, master %s; reference: as many "
            "64 B ZeroMQ round trips, the two alternating in blocks of %d\n",
            a->tasks, a->master, s_lat_block);
    s_key (key, sizeof key, a, "p50");
    bench_figure (key, p50, a->reps, "us");
    s_key (key, sizeof key, a, "p99");
    bench_figure (key, p99, a->reps, "us");
    s_key (key, sizeof key, a, "rtt64_p50");
    bench_figure (key, ref50, a->reps, "us");
    s_key (key, sizeof key, a, "rtt64_p99");
    bench_figure (key, ref99, a->reps, "us");
    s_key (key, sizeof key, a, "ratio");
    bench_figure (key, ratio, a->reps, "ratio");
}

/* ---- cold (benchmark 22) ------------------------------------------------- */

/* What a job file of N distinct tasks does, built with the API instead:
   a new context (local[2]'s executors started), N tasks each with its
   own argument ("noop" with "task-I", or /bin/true I), run, the context
   destroyed; timed whole, as hearth-submit of the file is.  One
   repetition per process (a context per run); the driver's peak RSS
   (VmHWM) less what it was before, per task. */
static void
s_cold (const s_args_t *a)
{
    bool cmd = a->kind && strcmp (a->kind, "cmd") == 0;
    long before_kb = bench_proc_status_kb (0, "VmRSS");
    double t0 = bench_now_us ();
    hearth_ctx_t *ctx = s_context (a);
    hearth_job_t *job = hearth_job_new (ctx, "cold");
    hearth_stage_t *st = job ? hearth_job_stage (job, "s") : NULL;
    char arg[32];
    for (long i = 0; st && i < a->tasks; i++) {
        snprintf (arg, sizeof arg, cmd ? "%ld" : "task-%ld", i);
        const char *const argv[] = {"/bin/true", arg, NULL};
        int rc = cmd ? hearth_stage_add_command (st, argv)
                     : hearth_stage_add_function (st, "noop", arg);
        if (rc < 0)
            st = NULL;
    }
    if (!st) {
        fprintf (stderr, "bench-driver: cannot build the job\n");
        exit (1);
    }
    s_run (job);
    hearth_job_destroy (&job);
    hearth_ctx_destroy (&ctx);
    double us = bench_now_us () - t0;
    long peak_kb = bench_proc_status_kb (0, "VmHWM");
    double rate = (double) a->tasks / (us / 1e6);
    double bytes = (double) (peak_kb - before_kb) * 1024.0 / (double) a->tasks;
    char key[128];
    printf ("# %ld distinct %s tasks built with the API, master %s, timed "
            "from the context's creation to its end\n",
            a->tasks, cmd ? "command" : "function", a->master);
    s_key (key, sizeof key, a, "tasks_per_s");
    bench_figure (key, &rate, 1, "tasks/s");
    s_key (key, sizeof key, a, "rss_per_task");
    bench_figure (key, &bytes, 1, "B");
}

/* ---- first (benchmark 23) ------------------------------------------------ */

/* A new application's first job against its next ones: a context made,
   at once a job of N no-op tasks (its executors still starting: timed
   from its submission as every job is), then --reps warm jobs of the same
   size.  One cold job per process: a context per run.  Beside the
   ratio, the context's creation and the whole from it to the first
   job's end: what the user waits in all, wherever the start-up is. */
static void
s_first (const s_args_t *a)
{
    double t0 = bench_now_us ();
    hearth_ctx_t *ctx = s_context (a);
    double ctx_ms = (bench_now_us () - t0) / 1e3;
    hearth_job_t *job = s_functions (ctx, "noop", NULL, a->tasks);
    double cold = (double) a->tasks / (s_run (job) / 1e6);
    double total_ms = (bench_now_us () - t0) / 1e3;
    hearth_job_destroy (&job);
    double warm[BENCH_MAX_REPS];
    for (long r = 0; r < a->reps; r++) {
        job = s_functions (ctx, "noop", NULL, a->tasks);
        warm[r] = (double) a->tasks / (s_run (job) / 1e6);
        hearth_job_destroy (&job);
    }
    hearth_ctx_destroy (&ctx);
    bench_sort (warm, a->reps);
    double ratio = cold / bench_quantile (warm, a->reps, 0.5);
    char key[128];
    printf ("# %ld no-op tasks, master %s: a new application's first job, "
            "then %ld warm ones\n",
            a->tasks, a->master, a->reps);
    s_key (key, sizeof key, a, "cold_tasks_per_s");
    bench_figure (key, &cold, 1, "tasks/s");
    s_key (key, sizeof key, a, "warm_tasks_per_s");
    bench_figure (key, warm, a->reps, "tasks/s");
    s_key (key, sizeof key, a, "ratio");
    bench_figure (key, &ratio, 1, "ratio");
    s_key (key, sizeof key, a, "ctx_ms");
    bench_figure (key, &ctx_ms, 1, "ms");
    s_key (key, sizeof key, a, "ctx_to_first_end_ms");
    bench_figure (key, &total_ms, 1, "ms");
}

/* ---- commands (benchmark 4) --------------------------------------------- */

typedef struct {
    long n; /* spawns for this thread */
} s_spawner_t;

/* One of the reference's threads: posix_spawn and wait, n times. */
static void *
s_spawner (void *arg)
{
    const s_spawner_t *sp = arg;
    char *const argv[] = {"/bin/true", NULL};
    for (long i = 0; i < sp->n; i++) {
        pid_t pid;
        int status;
        if (posix_spawn (&pid, argv[0], NULL, NULL, argv, environ) != 0) {
            perror ("bench-driver: posix_spawn");
            exit (1);
        }
        while (waitpid (pid, &status, 0) < 0)
            ;
    }
    return NULL;
}

/* posix_spawn /bin/true n times, inflight at a time (one thread each, as
   an executor has one per core).  Returns spawns/s. */
static double
s_spawn_rate (long n, long inflight)
{
    pthread_t th[256];
    s_spawner_t sp[256];
    long nth = inflight < 256 ? inflight : 256;
    double t0 = bench_now_us ();
    for (long i = 0; i < nth; i++) {
        sp[i].n = n / nth + (i < n % nth);
        pthread_create (&th[i], NULL, s_spawner, &sp[i]);
    }
    for (long i = 0; i < nth; i++)
        pthread_join (th[i], NULL);
    return (double) n / ((bench_now_us () - t0) / 1e6);
}

static void
s_commands (hearth_ctx_t *ctx, const s_args_t *a)
{
    double rate[BENCH_MAX_REPS], ref[BENCH_MAX_REPS], ratio[BENCH_MAX_REPS];
    const char *const argv[] = {"/bin/true", NULL};
    for (long r = 0; r < a->reps; r++) {
        ref[r] = s_spawn_rate (a->tasks, a->cores);
        hearth_job_t *job = hearth_job_new (ctx, "true");
        hearth_stage_t *st = hearth_job_stage (job, "s");
        hearth_stage_add_commands (st, argv, NULL, (uint64_t) a->tasks);
        rate[r] = (double) a->tasks / (s_run (job) / 1e6);
        ratio[r] = rate[r] / ref[r];
        hearth_job_destroy (&job);
    }
    char key[128];
    printf ("# %ld /bin/true command tasks, master %s; reference: "
            "posix_spawn with %ld in flight\n",
            a->tasks, a->master, a->cores);
    s_key (key, sizeof key, a, "commands_per_s");
    bench_figure (key, rate, a->reps, "cmd/s");
    s_key (key, sizeof key, a, "posix_spawn_per_s");
    bench_figure (key, ref, a->reps, "cmd/s");
    /* each repetition's ratio: on a shared machine, the load moves between
       repetitions more than within one */
    s_key (key, sizeof key, a, "ratio");
    bench_figure (key, ratio, a->reps, "ratio");
}

/* ---- sleep (benchmark 5) ------------------------------------------------ */

typedef struct {
    long n;  /* sleeps */
    long ms; /* each */
} s_sleeper_t;

static void *
s_sleeper (void *arg)
{
    const s_sleeper_t *s = arg;
    for (long i = 0; i < s->n; i++) {
        struct timespec ts = {s->ms / 1000, (s->ms % 1000) * 1000000};
        while (nanosleep (&ts, &ts) != 0)
            ;
    }
    return NULL;
}

/* The same sleeps on cores plain threads: the efficiency of the OS. */
static double
s_thread_efficiency (const s_args_t *a, double ideal_us)
{
    pthread_t th[256];
    long nth = a->cores < 256 ? a->cores : 256;
    s_sleeper_t s = {a->tasks / nth, a->ms};
    double t0 = bench_now_us ();
    for (long i = 0; i < nth; i++)
        pthread_create (&th[i], NULL, s_sleeper, &s);
    for (long i = 0; i < nth; i++)
        pthread_join (th[i], NULL);
    return ideal_us / (bench_now_us () - t0);
}

static void
s_sleep (hearth_ctx_t *ctx, const s_args_t *a)
{
    double eff[BENCH_MAX_REPS], ref[BENCH_MAX_REPS];
    double ideal_us =
        (double) a->tasks * (double) a->ms * 1000.0 / (double) a->cores;
    char arg[32];
    snprintf (arg, sizeof arg, "%ld", a->ms);
    for (long r = 0; r < a->reps; r++) {
        ref[r] = s_thread_efficiency (a, ideal_us);
        hearth_job_t *job = s_functions (ctx, "sleep_ms", arg, a->tasks);
        eff[r] = ideal_us / s_run (job);
        hearth_job_destroy (&job);
    }
    char key[128];
    printf ("# %ld function tasks of %ld ms on %ld cores, master %s; ideal "
            "%.3f s; reference: the same sleeps on %ld plain threads\n",
            a->tasks, a->ms, a->cores, a->master, ideal_us / 1e6, a->cores);
    s_key (key, sizeof key, a, "efficiency");
    bench_figure (key, eff, a->reps, "ratio");
    s_key (key, sizeof key, a, "threads_efficiency");
    bench_figure (key, ref, a->reps, "ratio");
}

/* ---- main --------------------------------------------------------------- */

static void
s_usage (void)
{
    fprintf (stderr,
             "usage: bench-driver throughput|latency|commands|sleep|cold|first "
             "[--master URL] [--lib FILE] [--reps N] [--tasks N] [--jobs N] "
             "[--cores N] [--ms N] [--key PREFIX] [--event-log DIR] "
             "[--ref ENDPOINT [--ref-key Z85]]\n");
    exit (2);
}

int
main (int argc, char **argv)
{
    s_args_t a = {.master = "local[2]", .reps = 3, .cores = 2, .ms = 10};
    if (argc < 2)
        s_usage ();
    a.mode = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value)
            s_usage ();
        if (strcmp (name, "--master") == 0)
            a.master = value;
        else if (strcmp (name, "--lib") == 0)
            a.lib = value;
        else if (strcmp (name, "--key") == 0)
            a.key = value;
        else if (strcmp (name, "--event-log") == 0)
            a.evlog = value;
        else if (strcmp (name, "--ref") == 0)
            a.ref = value;
        else if (strcmp (name, "--ref-key") == 0)
            a.ref_key = value;
        else if (strcmp (name, "--reps") == 0)
            a.reps = bench_arg_long (name, value);
        else if (strcmp (name, "--tasks") == 0 || strcmp (name, "--jobs") == 0)
            a.tasks = bench_arg_long (name, value);
        else if (strcmp (name, "--cores") == 0)
            a.cores = bench_arg_long (name, value);
        else if (strcmp (name, "--ms") == 0)
            a.ms = bench_arg_long (name, value);
        else if (strcmp (name, "--kind") == 0)
            a.kind = value;
        else
            s_usage ();
        i++;
    }
    if (a.reps > BENCH_MAX_REPS)
        a.reps = BENCH_MAX_REPS;
    if (!a.key)
        a.key = a.mode;
    void (*run) (hearth_ctx_t *, const s_args_t *) = NULL;
    long dflt = 0;
    if (strcmp (a.mode, "throughput") == 0)
        run = s_throughput, dflt = 200000;
    else if (strcmp (a.mode, "latency") == 0)
        run = s_latency, dflt = 2000;
    else if (strcmp (a.mode, "commands") == 0)
        run = s_commands, dflt = 20000;
    else if (strcmp (a.mode, "sleep") == 0)
        run = s_sleep, dflt = 2000;
    else if (strcmp (a.mode, "first") == 0) {
        if (!a.tasks)
            a.tasks = 200000;
        s_first (&a);
        return 0;
    }
    else if (strcmp (a.mode, "cold") == 0) {
        if (!a.tasks)
            a.tasks = 200000;
        s_cold (&a);
        return 0;
    }
    else
        s_usage ();
    if (!a.tasks)
        a.tasks = dflt;
    if (run == s_latency && a.ref) { /* the reference over the same link */
        s_ref.pid = -1;
        s_ref.ctx = zmq_ctx_new ();
        s_ref.dealer = zmqref_connect (s_ref.ctx, a.ref, a.ref_key);
        if (!s_ref.dealer)
            return 1;
    }
    else if (run == s_latency && zmqref_start (&s_ref) < 0)
        return 1;
    hearth_ctx_t *ctx = s_context (&a);
    s_warm_up (ctx, &a);
    run (ctx, &a);
    hearth_ctx_destroy (&ctx);
    if (run == s_latency)
        zmqref_stop (&s_ref);
    return 0;
}

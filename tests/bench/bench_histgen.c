/*  bench_histgen.c - synthetic event logs for hearth-history's benchmarks
    (tests/bench/bench-history.sh), in the format of docs/event-log.md with
    the fields of web-wire §5 (host, memory_mb, lifetime_ms, app_end's
    totals), lines as libhearth/eventlog.c writes them.

        bench-histgen dir DIR N TASKS SEED   N logs of TASKS tasks each
        bench-histgen one FILE EVENTS SEED   one log of EVENTS task events
                                             (EVENTS / 2 tasks: a start and
                                             an end each)

    Seeded (a 64-bit LCG), so two runs write the same bytes.  Of the dir
    logs, about 1 in 10 fails (a task gives up), 1 in 20 is killed and 1
    in 20 has no app_end (a driver pid that does not exist: FAILED).  In
    both modes 1 task in 50 fails its first attempt and is retried.
*/
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A month of start times before this one (2026-11-01). */
static const int64_t s_base_ms = 1793491200000LL;
static const int64_t s_spread_ms = 30LL * 86400 * 1000;
/* A pid above the kernel's pid_max: never alive. */
static const long s_dead_pid = 2147483600L;

static uint64_t s_seed;

static uint32_t
s_rand (void)
{
    s_seed = s_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t) (s_seed >> 33);
}

typedef struct {
    FILE *f;         /* the log */
    int64_t now;     /* its clock */
    int64_t run_us;  /* attempts' run time so far */
    long ok, failed; /* tasks accepted, attempts failed */
} gen_t;

static void
s_task (gen_t *g, int stage, long index, int executor, bool fail_first,
        bool give_up)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int64_t run = 1000 + s_rand () % 200000;
        bool failed = (attempt == 0 && fail_first) || give_up;
        fprintf (g->f,
                 "{\"event\":\"task_start\",\"time_ms\":%lld,\"stage\":%d,"
                 "\"index\":%ld,\"attempt\":%d,\"executor\":%d,"
                 "\"speculative\":false}\n",
                 (long long) g->now, stage, index, attempt, executor);
        g->now += run / 1000;
        g->run_us += run;
        fprintf (g->f,
                 "{\"event\":\"task_end\",\"time_ms\":%lld,\"stage\":%d,"
                 "\"index\":%ld,\"attempt\":%d,\"executor\":%d,\"state\":"
                 "\"%s\",\"outcome\":\"%s\",\"run_us\":%lld,\"error\":%s,"
                 "\"result_bytes\":%d}\n",
                 (long long) g->now, stage, index, attempt, executor,
                 failed ? "FAILED" : "FINISHED",
                 !failed   ? "accepted"
                 : give_up ? "gave_up"
                           : "retried",
                 (long long) run,
                 failed ? "\"sh exited with status 3: synthetic failure\""
                        : "null",
                 failed ? 0 : 12);
        if (failed)
            g->failed++;
        else
            g->ok++;
        if (!failed || give_up)
            return;
    }
}

static void
s_head (gen_t *g, const char *id, long pid, long tasks)
{
    fprintf (g->f,
             "{\"event\":\"log_start\",\"time_ms\":%lld,\"format\":1,"
             "\"app_id\":\"%s\",\"name\":\"etl-%u\",\"user\":\"bench\","
             "\"settings\":{\"master\":\"local[2]\",\"name\":\"etl\","
             "\"max-failures\":\"4\",\"event-log\":\"/tmp/ev\","
             "\"event-log-roll\":\"128M\"}}\n"
             "{\"event\":\"app_start\",\"time_ms\":%lld,\"app_id\":\"%s\","
             "\"master\":\"local[2]\",\"pid\":%ld,\"host\":\"benchhost\"}\n"
             "{\"event\":\"job_start\",\"time_ms\":%lld,\"job\":1,\"name\":"
             "\"etl\",\"stages\":1}\n"
             "{\"event\":\"stage_start\",\"time_ms\":%lld,\"job\":1,\"stage\":"
             "1,\"name\":\"s\",\"tasks\":%ld,\"attempt\":0}\n",
             (long long) g->now, id, s_rand () % 100, (long long) g->now, id,
             pid, (long long) g->now, (long long) g->now, tasks);
    for (int x = 0; x < 2; x++)
        fprintf (g->f,
                 "{\"event\":\"executor_added\",\"time_ms\":%lld,\"executor\":"
                 "%d,\"host\":\"benchhost\",\"cores\":1,\"memory_mb\":512}\n",
                 (long long) g->now, x);
}

/* The end: executors removed, stage, job and app_end (unless none). */
static void
s_tail (gen_t *g, int64_t start, long tasks, const char *state)
{
    bool failed = strcmp (state, "FINISHED") != 0;
    fprintf (g->f,
             "{\"event\":\"stage_end\",\"time_ms\":%lld,\"job\":1,\"stage\":1,"
             "\"name\":\"s\",\"state\":\"%s\",\"tasks\":%ld,\"finished\":%ld,"
             "\"failed_attempts\":%ld,\"attempt\":0}\n"
             "{\"event\":\"job_end\",\"time_ms\":%lld,\"job\":1,\"name\":"
             "\"etl\",\"state\":\"%s\",\"error\":%s}\n",
             (long long) g->now, failed ? "FAILED" : "SUCCEEDED", tasks, g->ok,
             g->failed, (long long) g->now, failed ? "FAILED" : "SUCCEEDED",
             failed ? "\"stage s, task 0 failed\"" : "null");
    int64_t life = g->now - start;
    for (int x = 0; x < 2; x++)
        fprintf (g->f,
                 "{\"event\":\"executor_removed\",\"time_ms\":%lld,"
                 "\"executor\":%d,\"reason\":\"the application is over\","
                 "\"tasks_lost\":0,\"cores\":1,\"memory_mb\":512,"
                 "\"peak_rss_bytes\":%u,\"lifetime_ms\":%lld}\n",
                 (long long) g->now, x, 20000000 + s_rand () % 100000000,
                 (long long) life);
    fprintf (g->f,
             "{\"event\":\"app_end\",\"time_ms\":%lld,\"state\":\"%s\","
             "\"reason\":\"%s\",\"duration_ms\":%lld,\"tasks_succeeded\":%ld,"
             "\"tasks_failed\":%ld,\"executors\":2,\"core_ms_reserved\":%lld,"
             "\"core_ms_used\":%lld}\n",
             (long long) g->now, state,
             failed ? "job etl failed" : "its driver finished",
             (long long) (g->now - start), g->ok, g->failed,
             (long long) (2 * life), (long long) (g->run_us / 1000));
}

/* One log of tasks tasks; state "" : no app_end. */
static int
s_log (const char *path, const char *id, long tasks, const char *state,
       int64_t start)
{
    gen_t g = {.f = fopen (path, "w"), .now = start};
    if (!g.f) {
        perror (path);
        return -1;
    }
    bool failing = strcmp (state, "FAILED") == 0;
    s_head (&g, id, *state ? 4242 : s_dead_pid, tasks);
    for (long i = 0; i < tasks; i++)
        s_task (&g, 1, i, (int) (i % 2), s_rand () % 50 == 0,
                failing && i == tasks / 2);
    if (*state)
        s_tail (&g, start, tasks, state);
    if (fclose (g.f) != 0)
        return -1;
    /* modified when its last event was written, as a real log */
    struct timespec t[2] = {{g.now / 1000, g.now % 1000 * 1000000},
                            {g.now / 1000, g.now % 1000 * 1000000}};
    return utimensat (AT_FDCWD, path, t, 0);
}

int
main (int argc, char **argv)
{
    if (argc != 6 && !(argc == 5 && strcmp (argv[1], "one") == 0)) {
        fprintf (stderr, "usage: bench-histgen dir DIR N TASKS SEED\n"
                         "       bench-histgen one FILE EVENTS SEED\n");
        return 2;
    }
    s_seed = strtoull (argv[argc - 1], NULL, 10);
    if (strcmp (argv[1], "one") == 0)
        return s_log (argv[2], "app-bench-one", atol (argv[3]) / 2, "FINISHED",
                      s_base_ms)
               < 0;
    long n = atol (argv[3]), tasks = atol (argv[4]);
    for (long i = 0; i < n; i++) {
        char id[64], path[4096];
        uint32_t r = s_rand () % 20;
        const char *state = r < 2   ? "FAILED"
                            : r < 3 ? "KILLED"
                            : r < 4 ? ""
                                    : "FINISHED";
        snprintf (id, sizeof id, "app-bench-%06ld", i);
        snprintf (path, sizeof path, "%s/%s.events", argv[2], id);
        if (s_log (path, id, tasks, state,
                   s_base_ms
                       + (int64_t) (s_rand () % (uint32_t) (s_spread_ms / 1000))
                             * 1000)
            < 0)
            return 1;
    }
    return 0;
}

/*  test_shuffle_api.c - the C API of data between stages, for
    test-shuffle-api.sh; run through hearth-submit (which passes the
    settings, the library included: libtesttasks.so).

    test-shuffle-api wordcount R
        map: 4 function tasks `echo` of "w{i}\n..." lines; a partitioned
        stage of R sorted partitions; reduce: R command tasks `uniq -c`.
        Prints the reduce results (every line of them), sorted by the test.
    test-shuffle-api stream N
        N function tasks `echo` "{i}" whose results go only to a
        HEARTH_RESULT_DISCARD callback: prints how many calls, the sum of
        the indexes, whether each index came once, and whether
        hearth_stage_result kept anything.
    test-shuffle-api output DIR
        3 command tasks written to DIR by hearth_stage_set_output.
    test-shuffle-api shared-output DIR
        two output stages on one directory: in one job (DIR/one), then
        in two jobs at once (DIR/two; the first 3 tasks `sleep 1; echo
        first {i}`, the second 2):
        each refusal printed as "refused: WHAT" (or "ACCEPTED: WHAT")
        with the job's error, and "first: succeeded" for the first.
    test-shuffle-api whole N DIR
        two jobs in one context, each N function tasks `echo` "JOB {i}"
        read whole by a command that first writes how many map outputs
        are on disk under DIR to DIR/ondisk.JOB: the second submitted
        once the first ended, the first not destroyed yet (the driver
        keeps their outputs: N of 64 KiB fill what it may keep).  Prints
        each reader's result.
    test-shuffle-api refusals
        the API's refusals: each printed as "refused: WHAT".

    Exits 0 unless something unexpected happened.
*/
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hearth.h>

#include "tests/driver/apictx.h"

static int
s_wordcount (hearth_ctx_t *ctx, uint32_t r)
{
    static const char *const uniq[] = {"uniq", "-c", NULL};
    hearth_job_t *job = hearth_job_new (ctx, "wordcount");
    hearth_stage_t *map = hearth_job_stage (job, "map");
    hearth_stage_add_functions (map, "echo", "apple\nw{i}\npear\napple", 4);
    hearth_stage_set_partitions (map, r, HEARTH_PARTITION_SORT);
    hearth_stage_t *reduce = hearth_job_stage (job, "reduce");
    hearth_stage_input (reduce, map);
    hearth_stage_add_commands (reduce, uniq, NULL, r);
    int rc = hearth_job_run (job);
    if (rc < 0)
        fprintf (stderr, "test-shuffle-api: %s\n", hearth_job_error (job));
    for (uint32_t i = 0; rc == 0 && i < r; i++) {
        size_t len;
        const char *res = hearth_stage_result (reduce, i, &len);
        fwrite (res, 1, len, stdout);
    }
    size_t len = 1;
    if (hearth_stage_result (map, 0, &len) || len != 0)
        rc = -1, fprintf (stderr, "a map stage kept a result\n");
    hearth_job_destroy (&job);
    return rc;
}

typedef struct {
    uint64_t calls, sum, n;
    unsigned char *seen;
    bool twice;
} s_tally_t;

static void
s_count (hearth_stage_t *stage, uint64_t index, const void *data, size_t len,
         void *user)
{
    (void) stage;
    s_tally_t *t = user;
    char text[32];
    snprintf (text, sizeof text, "%llu\n", (unsigned long long) index);
    if (len != strlen (text) || memcmp (data, text, len) != 0)
        t->twice = true; /* a wrong result counts as a defect too */
    t->calls++;
    t->sum += index;
    if (index < t->n && t->seen[index]++)
        t->twice = true;
}

static int
s_stream (hearth_ctx_t *ctx, uint64_t n)
{
    s_tally_t t = {.n = n, .seen = calloc (n, 1)};
    hearth_job_t *job = hearth_job_new (ctx, "stream");
    hearth_stage_t *st = hearth_job_stage (job, "s");
    hearth_stage_add_functions (st, "echo", "{i}", n);
    hearth_stage_on_result (st, s_count, &t, HEARTH_RESULT_DISCARD);
    int rc = t.seen ? hearth_job_run (job) : -1;
    size_t len = 1;
    bool kept = hearth_stage_result (st, 0, &len) != NULL || len != 0;
    printf ("calls %llu sum %llu once %s kept %s\n",
            (unsigned long long) t.calls, (unsigned long long) t.sum,
            t.twice ? "no" : "yes", kept ? "yes" : "no");
    hearth_job_destroy (&job);
    free (t.seen);
    return rc;
}

static int
s_output (hearth_ctx_t *ctx, const char *dir)
{
    static const char *const argv[] = {"echo", "line {i}", NULL};
    hearth_job_t *job = hearth_job_new (ctx, "output");
    hearth_stage_t *st = hearth_job_stage (job, "s");
    hearth_stage_add_commands (st, argv, NULL, 3);
    hearth_stage_set_output (st, dir);
    int rc = hearth_job_run (job);
    if (rc < 0)
        fprintf (stderr, "test-shuffle-api: %s\n", hearth_job_error (job));
    hearth_job_destroy (&job);
    return rc;
}

/* One job of s_whole, its reader's result printed; the job stays. */
static hearth_job_t *
s_whole_job (hearth_ctx_t *ctx, const char *name, uint64_t n, const char *dir)
{
    char arg[64], count[8192];
    snprintf (arg, sizeof arg, "%s {i}", name);
    snprintf (count, sizeof count,
              "find '%s' -path '*shuffle*' -name '*.index' | wc -l "
              "> '%s/ondisk.%s'; cat",
              dir, dir, name);
    const char *const argv[] = {"sh", "-c", count, NULL};
    hearth_job_t *job = hearth_job_new (ctx, name);
    hearth_stage_t *gen = hearth_job_stage (job, "gen");
    hearth_stage_add_functions (gen, "echo", arg, n);
    hearth_stage_t *all = hearth_job_stage (job, "all");
    hearth_stage_input (all, gen);
    hearth_stage_add_command (all, argv);
    if (hearth_job_run (job) < 0) {
        fprintf (stderr, "test-shuffle-api: %s\n", hearth_job_error (job));
        hearth_job_destroy (&job);
        return NULL;
    }
    size_t len;
    const char *res = hearth_stage_result (all, 0, &len);
    fwrite (res, 1, len, stdout);
    return job;
}

static int
s_whole (hearth_ctx_t *ctx, uint64_t n, const char *dir)
{
    hearth_job_t *one = s_whole_job (ctx, "one", n, dir);
    hearth_job_t *two = one ? s_whole_job (ctx, "two", n, dir) : NULL;
    int rc = two ? 0 : -1;
    hearth_job_destroy (&two);
    hearth_job_destroy (&one);
    return rc;
}

static void
s_refused (bool refused, const char *what)
{
    printf ("%s: %s\n", refused ? "refused" : "ACCEPTED", what);
}

/* A job of n tasks `sleep S; echo NAME {i}` into dir, submitted. */
static hearth_job_t *
s_output_job (hearth_ctx_t *ctx, const char *name, const char *dir, uint64_t n,
              const char *sleep_s)
{
    char cmd[64];
    snprintf (cmd, sizeof cmd, "sleep %s; echo %s {i}", sleep_s, name);
    const char *const argv[] = {"sh", "-c", cmd, NULL};
    hearth_job_t *job = hearth_job_new (ctx, name);
    hearth_stage_t *st = hearth_job_stage (job, name);
    hearth_stage_add_commands (st, argv, NULL, n);
    hearth_stage_set_output (st, dir);
    if (hearth_job_submit (job) < 0)
        fprintf (stderr, "test-shuffle-api: %s\n", hearth_job_error (job));
    return job;
}

/* The job's outcome once it ended: 0 if it succeeded. */
static int
s_ended (hearth_job_t *job)
{
    hearth_job_wait (job, -1);
    return hearth_job_state (job) == HEARTH_JOB_SUCCEEDED ? 0 : -1;
}

/* Two output stages on one directory: in one job, in DIR/one (the
   second one's parts would replace the first's), and in two jobs
   running at once, in DIR/two (the second refused, the first's parts
   kept). */
static int
s_shared_output (hearth_ctx_t *ctx, const char *dir)
{
    static const char *const echo[] = {"echo", "x", NULL};
    char one[4096], two[4096];
    snprintf (one, sizeof one, "%s/one", dir);
    snprintf (two, sizeof two, "%s/two", dir);
    hearth_job_t *job = hearth_job_new (ctx, "twice");
    hearth_stage_t *a = hearth_job_stage (job, "a");
    hearth_stage_add_commands (a, echo, NULL, 2);
    hearth_stage_set_output (a, one);
    hearth_stage_t *b = hearth_job_stage (job, "b");
    hearth_stage_add_commands (b, echo, NULL, 2);
    hearth_stage_set_output (b, one);
    int rc = hearth_job_run (job);
    s_refused (rc < 0 && strstr (hearth_job_error (job), "also the output"),
               "two stages of a job, one output");
    printf ("%s\n", rc < 0 ? hearth_job_error (job) : "twice: succeeded");
    hearth_job_destroy (&job);
    hearth_job_t *first = s_output_job (ctx, "first", two, 3, "1");
    hearth_job_t *second = s_output_job (ctx, "second", two, 2, "0");
    rc = s_ended (second);
    s_refused (rc < 0 && strstr (hearth_job_error (second), "also the output"),
               "a running job's output");
    printf ("%s\n", rc < 0 ? hearth_job_error (second) : "second: succeeded");
    rc = s_ended (first);
    printf ("first: %s\n", rc < 0 ? hearth_job_error (first) : "succeeded");
    hearth_job_destroy (&second);
    hearth_job_destroy (&first);
    return rc;
}

static int
s_refusals (hearth_ctx_t *ctx)
{
    static const char *const cat[] = {"cat", NULL};
    hearth_job_t *job = hearth_job_new (ctx, "bad");
    hearth_stage_t *map = hearth_job_stage (job, "map");
    hearth_stage_add_command (map, cat);
    s_refused (hearth_stage_set_partitions (map, 0, 0) < 0 && errno == EINVAL,
               "0 partitions");
    s_refused (hearth_stage_set_partitions (map, 100001, 0) < 0,
               "100001 partitions");
    s_refused (hearth_stage_set_partitions (map, 4, 0x80) < 0, "unknown flags");
    s_refused (hearth_stage_set_output (map, "") < 0, "an empty output");
    hearth_stage_set_partitions (map, 4, 0);
    hearth_stage_t *reduce = hearth_job_stage (job, "reduce");
    hearth_stage_input (reduce, map);
    hearth_stage_add_commands (reduce, cat, NULL, 3);
    s_refused (hearth_job_submit (job) < 0
                   && strstr (hearth_job_error (job), "has 3 tasks")
                   && strstr (hearth_job_error (job), "4 partitions"),
               "3 reducers of 4 partitions");
    hearth_job_destroy (&job);
    job = hearth_job_new (ctx, "bad2");
    map = hearth_job_stage (job, "map");
    hearth_stage_add_command (map, cat);
    hearth_stage_set_partitions (map, 2, 0);
    hearth_stage_set_output (map, "/tmp/x");
    s_refused (hearth_job_submit (job) < 0
                   && strstr (hearth_job_error (job), "do not go together"),
               "output with partitions");
    hearth_job_destroy (&job);
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc < 2)
        return 2;
    hearth_ctx_t *ctx = apictx_new ("test-shuffle-api");
    if (!ctx)
        return 1;
    int rc = 2;
    if (strcmp (argv[1], "wordcount") == 0 && argc == 3)
        rc = s_wordcount (ctx, (uint32_t) atoi (argv[2])) == 0 ? 0 : 1;
    else if (strcmp (argv[1], "stream") == 0 && argc == 3)
        rc = s_stream (ctx, strtoull (argv[2], NULL, 10)) == 0 ? 0 : 1;
    else if (strcmp (argv[1], "output") == 0 && argc == 3)
        rc = s_output (ctx, argv[2]) == 0 ? 0 : 1;
    else if (strcmp (argv[1], "shared-output") == 0 && argc == 3)
        rc = s_shared_output (ctx, argv[2]) == 0 ? 0 : 1;
    else if (strcmp (argv[1], "whole") == 0 && argc == 4)
        rc = s_whole (ctx, strtoull (argv[2], NULL, 10), argv[3]) == 0 ? 0 : 1;
    else if (strcmp (argv[1], "refusals") == 0)
        rc = s_refusals (ctx);
    hearth_ctx_destroy (&ctx);
    return rc;
}

/*  test_persist_lineage.c - persisted stages and their lineage (issue
    38), for test-persist-lineage.sh; run through hearth-submit, whose
    settings it takes.  Every map task appends its index to a file of
    DIR as it runs ("ran.STAGE"), and every job prints "job NAME" then,
    for each of its counting stages, "stage NAME" and its 3 `uniq -c`
    results.

    test-persist-lineage lineage N DIR
        job "load": stage "src", 4 command tasks writing
        "apple w{i} pear apple" one a line into 4 partitions (not
        persisted); stage "words", 4 `cat` tasks reading it into 3 sorted
        partitions, persisted on disk; stage "count" reading words.  Then
        N jobs "pass" whose stage "count" reads load's words; before pass
        K, with DIR/pause, it writes DIR/ready.K and waits for DIR/go.K.
    test-persist-lineage shared DIR
        job "load": "words", 4 command tasks into 3 sorted partitions,
        persisted; jobs "a" and "b": a stage "x" of 3 `cat` tasks reading
        load's words into 3 sorted partitions, persisted; then job "all"
        with 3 counting stages, reading a's x, b's x and load's words.

    Exits 0 unless something unexpected happened.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hearth.h>

#include "tests/driver/apictx.h"
#include "tests/driver/apipause.h"

static const char *const s_uniq[] = {"uniq", "-c", NULL};

/* A stage name of job, its name in the output. */
typedef struct {
    hearth_stage_t *stage;
    const char *name;
} s_counted_t;

/* Run job, then print its counting stages' results; -1 when it failed. */
static int
s_run (hearth_job_t *job, const char *name, const s_counted_t *c, size_t n)
{
    if (hearth_job_run (job) < 0) {
        fprintf (stderr, "test-persist-lineage: job %s: %s\n", name,
                 hearth_job_error (job));
        return -1;
    }
    printf ("job %s\n", name);
    for (size_t k = 0; k < n; k++) {
        printf ("stage %s\n", c[k].name);
        for (uint64_t i = 0; i < 3; i++) {
            size_t len;
            const char *res = hearth_stage_result (c[k].stage, i, &len);
            fwrite (res, 1, len, stdout);
        }
    }
    fflush (stdout);
    return 0;
}

/* A stage of job named name, of count tasks of sh -c "echo {i} >>
   DIR/ran.NAME; then" into partitions sorted ones, persisted or not. */
static hearth_stage_t *
s_maps (hearth_job_t *job, const char *name, const char *dir, const char *then,
        int count, uint32_t partitions, bool persisted)
{
    char script[4096];
    snprintf (script, sizeof script, "echo {i} >> %s/ran.%s; %s", dir, name,
              then);
    const char *const argv[] = {"sh", "-c", script, NULL};
    hearth_stage_t *st = hearth_job_stage (job, name);
    hearth_stage_add_commands (st, argv, NULL, count);
    hearth_stage_set_partitions (st, partitions,
                                 partitions == 3 ? HEARTH_PARTITION_SORT : 0);
    if (persisted && hearth_stage_persist (st, HEARTH_PERSIST_DISK) < 0)
        return NULL;
    return st;
}

/* A counting stage of job reading in. */
static hearth_stage_t *
s_count (hearth_job_t *job, const char *name, hearth_stage_t *in)
{
    hearth_stage_t *c = hearth_job_stage (job, name);
    if (hearth_stage_input (c, in) < 0)
        return NULL;
    hearth_stage_add_commands (c, s_uniq, NULL, 3);
    return c;
}

static const char s_words[] = "printf 'apple\\nw{i}\\npear\\napple\\n'";

static int
s_lineage (hearth_ctx_t *ctx, int n, const char *dir)
{
    hearth_job_t *load = hearth_job_new (ctx, "load");
    hearth_stage_t *src = s_maps (load, "src", dir, s_words, 4, 4, false);
    hearth_stage_t *words = s_maps (load, "words", dir, "cat", 4, 3, true);
    hearth_stage_input (words, src);
    s_counted_t c = {s_count (load, "count", words), "count"};
    int rc = s_run (load, "load", &c, 1);
    for (int k = 1; rc == 0 && k <= n; k++) {
        apipause (dir, k);
        hearth_job_t *pass = hearth_job_new (ctx, "pass");
        c.stage = s_count (pass, "count", words);
        rc = c.stage ? s_run (pass, "pass", &c, 1) : -1;
        hearth_job_destroy (&pass);
    }
    hearth_job_destroy (&load);
    return rc;
}

static int
s_shared (hearth_ctx_t *ctx, const char *dir)
{
    hearth_job_t *load = hearth_job_new (ctx, "load");
    hearth_stage_t *words = s_maps (load, "words", dir, s_words, 4, 3, true);
    hearth_job_t *a = hearth_job_new (ctx, "a");
    hearth_stage_t *xa = s_maps (a, "x", dir, "cat", 3, 3, true);
    hearth_job_t *b = hearth_job_new (ctx, "b");
    hearth_stage_t *xb = s_maps (b, "x", dir, "cat", 3, 3, true);
    int rc = s_run (load, "load", NULL, 0);
    if (rc == 0
        && (hearth_stage_input (xa, words) < 0 || s_run (a, "a", NULL, 0) < 0
            || hearth_stage_input (xb, words) < 0
            || s_run (b, "b", NULL, 0) < 0))
        rc = -1;
    hearth_job_t *all = hearth_job_new (ctx, "all");
    s_counted_t c[] = {{s_count (all, "from-a", xa), "from-a"},
                       {s_count (all, "from-b", xb), "from-b"},
                       {s_count (all, "from-load", words), "from-load"}};
    if (rc == 0)
        rc = s_run (all, "all", c, 3);
    hearth_job_destroy (&all);
    hearth_job_destroy (&b);
    hearth_job_destroy (&a);
    hearth_job_destroy (&load);
    return rc;
}

int
main (int argc, char **argv)
{
    if (argc < 3) {
        fprintf (stderr, "usage: test-persist-lineage lineage N DIR | "
                         "shared DIR\n");
        return 2;
    }
    hearth_ctx_t *ctx = apictx_new ("test-persist-lineage");
    if (!ctx)
        return 1;
    int rc = -1;
    if (strcmp (argv[1], "lineage") == 0 && argc == 4)
        rc = s_lineage (ctx, atoi (argv[2]), argv[3]);
    else if (strcmp (argv[1], "shared") == 0)
        rc = s_shared (ctx, argv[2]);
    hearth_ctx_destroy (&ctx);
    return rc == 0 ? 0 : 1;
}

/*  test_locality_api.c - hearth_stage_prefer, for test-locality.sh; run
    through hearth-submit (which passes the settings).

    test-locality-api HOST
        one stage of 8 command tasks `echo NAME{i}`: near0, near1 prefer
        HOST; gone0, gone1 prefer "nowhere.invalid" (no executor there);
        w0, w1 prefer "worker:none"; free0, free1 prefer nothing.
        Prints the results in task order, and to stderr "locality: node
        N rack R any A" (hearth_stage_locality).
    test-locality-api refusals
        hearth_stage_prefer's refusals, each printed as "refused: WHAT".

    Exits 0 unless something unexpected happened.
*/
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hearth.h>

#include "tests/driver/apictx.h"

/* Two tasks `echo NAME{i}` preferring where (NULL: nothing). */
static int
s_add (hearth_stage_t *st, const char *name, const char *where)
{
    char text[64];
    snprintf (text, sizeof text, "%s{i}", name);
    const char *argv[] = {"echo", text, NULL};
    if (hearth_stage_add_commands (st, argv, NULL, 2) < 0)
        return -1;
    return where ? hearth_stage_prefer (st, where) : 0;
}

static int
s_run (hearth_ctx_t *ctx, const char *host)
{
    hearth_job_t *job = hearth_job_new (ctx, "locality");
    hearth_stage_t *st = hearth_job_stage (job, "s");
    if (s_add (st, "near", host) < 0
        || s_add (st, "gone", "nowhere.invalid") < 0
        || s_add (st, "w", "worker:none") < 0 || s_add (st, "free", NULL) < 0) {
        fprintf (stderr, "test-locality-api: %s\n", strerror (errno));
        return 1;
    }
    if (hearth_job_run (job) < 0) {
        fprintf (stderr, "test-locality-api: %s\n", hearth_job_error (job));
        return 1;
    }
    for (uint64_t i = 0; i < hearth_stage_size (st); i++) {
        size_t len;
        const char *r = hearth_stage_result (st, i, &len);
        fwrite (r, 1, len, stdout);
    }
    uint64_t node, rack, any;
    if (hearth_stage_locality (st, &node, &rack, &any) < 0)
        return 1;
    fprintf (stderr, "locality: node %llu rack %llu any %llu\n",
             (unsigned long long) node, (unsigned long long) rack,
             (unsigned long long) any);
    return 0;
}

/* Print "refused: what" for a refusal (-1 EINVAL), "ACCEPTED: what"
   otherwise. */
static void
s_expect_refused (int rc, const char *what)
{
    printf ("%s: %s\n", rc < 0 && errno == EINVAL ? "refused" : "ACCEPTED",
            what);
}

static int
s_refusals (hearth_ctx_t *ctx)
{
    hearth_job_t *job = hearth_job_new (ctx, "refusals");
    hearth_stage_t *st = hearth_job_stage (job, "s");
    s_expect_refused (hearth_stage_prefer (st, "a"), "before any task");
    const char *argv[] = {"true", NULL};
    hearth_stage_add_command (st, argv);
    s_expect_refused (hearth_stage_prefer (st, ""), "an empty place");
    s_expect_refused (hearth_stage_prefer (st, NULL), "no place");
    s_expect_refused (hearth_stage_prefer (NULL, "a"), "no stage");
    if (hearth_stage_prefer (st, "a") < 0 || hearth_job_run (job) < 0)
        printf ("UNEXPECTED: a job preferring a missing host failed\n");
    s_expect_refused (hearth_stage_prefer (st, "b"), "after submission");
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc != 2) {
        fprintf (stderr, "usage: test-locality-api HOST|refusals\n");
        return 2;
    }
    hearth_ctx_t *ctx = apictx_new ("test-locality-api");
    if (!ctx)
        return 1;
    int rc = strcmp (argv[1], "refusals") == 0 ? s_refusals (ctx)
                                               : s_run (ctx, argv[1]);
    hearth_ctx_destroy (&ctx);
    return rc;
}

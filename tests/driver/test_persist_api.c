/*  test_persist_api.c - persisted stages read by later jobs (issue 38),
    for test-persist.sh; run through hearth-submit, whose settings it
    takes.

    test-persist-api iterate N DIR [memory]
        job "load": stage "words", 4 command tasks that each (after 0.2 s)
        append their index to DIR/ran and write "apple w{i} pear apple"
        one a line,
        into 3 sorted partitions, persisted on disk (in memory with
        "memory"); stage "count" of 3
        `uniq -c` tasks reading it.  Then N jobs "pass" whose one stage
        "count" reads load's "words" (across jobs).  Before pass K (1..N)
        it writes DIR/ready.K and waits (60 s at most) for DIR/go.K when
        DIR/pause exists.  Prints "job K" then each reducer's result, for
        the load (K = 0) and every pass.
    test-persist-api refusals DIR
        the API's refusals, each printed as "refused: WHAT" (or
        "ACCEPTED: WHAT"): reading across jobs a stage not persisted, a
        persisted stage whose job has not run, one unpersisted since,
        one whose job was destroyed since, persisting an output stage or
        a level that is none, unpersisting while the stage's job runs
        (and, as a check, once it ended: "ACCEPTED").

    Exits 0 unless something unexpected happened.
*/
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hearth.h>

#include "tests/driver/apictx.h"
#include "tests/driver/apipause.h"

static const char *const s_uniq[] = {"uniq", "-c", NULL};

/* Print job K's reducer results; -1 when it failed. */
static int
s_print (hearth_job_t *job, hearth_stage_t *count, int k)
{
    if (hearth_job_state (job) != HEARTH_JOB_SUCCEEDED) {
        fprintf (stderr, "test-persist-api: job %d: %s\n", k,
                 hearth_job_error (job));
        return -1;
    }
    printf ("job %d\n", k);
    for (uint64_t i = 0; i < 3; i++) {
        size_t len;
        const char *res = hearth_stage_result (count, i, &len);
        fwrite (res, 1, len, stdout);
    }
    fflush (stdout);
    return 0;
}

static int
s_iterate (hearth_ctx_t *ctx, int n, const char *dir, hearth_persist_t level)
{
    char script[4096];
    snprintf (script, sizeof script,
              "sleep 0.2; echo {i} >> %s/ran; printf "
              "'apple\\nw{i}\\npear\\napple\\n'",
              dir);
    const char *const argv[] = {"sh", "-c", script, NULL};
    hearth_job_t *load = hearth_job_new (ctx, "load");
    hearth_stage_t *words = hearth_job_stage (load, "words");
    hearth_stage_add_commands (words, argv, NULL, 4);
    hearth_stage_set_partitions (words, 3, HEARTH_PARTITION_SORT);
    if (hearth_stage_persist (words, level) < 0)
        return perror ("hearth_stage_persist"), -1;
    hearth_stage_t *count = hearth_job_stage (load, "count");
    hearth_stage_input (count, words);
    hearth_stage_add_commands (count, s_uniq, NULL, 3);
    hearth_job_run (load);
    int rc = s_print (load, count, 0);
    for (int k = 1; rc == 0 && k <= n; k++) {
        apipause (dir, k);
        hearth_job_t *pass = hearth_job_new (ctx, "pass");
        hearth_stage_t *c = hearth_job_stage (pass, "count");
        if (hearth_stage_input (c, words) < 0)
            return perror ("hearth_stage_input across jobs"), -1;
        hearth_stage_add_commands (c, s_uniq, NULL, 3);
        hearth_job_run (pass);
        rc = s_print (pass, c, k);
        hearth_job_destroy (&pass);
    }
    hearth_job_destroy (&load);
    return rc;
}

static void
s_say (bool refused, const char *what, const char *error)
{
    printf ("%s: %s%s%s\n", refused ? "refused" : "ACCEPTED", what,
            error ? " -- " : "", error ? error : "");
}

static int
s_refusals (hearth_ctx_t *ctx, const char *dir)
{
    static const char *const echo[] = {"echo", "x", NULL};
    hearth_job_t *a = hearth_job_new (ctx, "a");
    hearth_stage_t *plain = hearth_job_stage (a, "plain");
    hearth_stage_add_commands (plain, echo, NULL, 1);
    hearth_stage_t *kept = hearth_job_stage (a, "kept");
    hearth_stage_add_commands (kept, echo, NULL, 2);
    hearth_stage_persist (kept, HEARTH_PERSIST_MEMORY_AND_DISK);
    hearth_stage_t *out = hearth_job_stage (a, "out");
    hearth_stage_add_commands (out, echo, NULL, 1);
    hearth_stage_set_output (out, dir);
    s_say (hearth_stage_persist (out, HEARTH_PERSIST_DISK) < 0
               && errno == EINVAL,
           "an output stage persisted", NULL);
    s_say (hearth_stage_persist (plain, (hearth_persist_t) 7) < 0
               && errno == EINVAL,
           "a level that is none", NULL);

    hearth_job_t *b = hearth_job_new (ctx, "b");
    hearth_stage_t *rd = hearth_job_stage (b, "read");
    hearth_stage_add_commands (rd, s_uniq, NULL, 1);
    s_say (hearth_stage_input (rd, plain) < 0 && errno == EINVAL,
           "a stage not persisted read across jobs", NULL);
    hearth_stage_input (rd, kept);
    bool refused = hearth_job_submit (b) < 0; /* before its error is read */
    s_say (refused, "a persisted stage whose job has not run",
           hearth_job_error (b));
    hearth_job_destroy (&b);

    if (hearth_job_run (a) < 0)
        return fprintf (stderr, "job a: %s\n", hearth_job_error (a)), -1;
    hearth_job_t *c = hearth_job_new (ctx, "c");
    hearth_stage_t *rc = hearth_job_stage (c, "read");
    hearth_stage_add_commands (rc, s_uniq, NULL, 1);
    hearth_stage_input (rc, kept);
    hearth_stage_unpersist (kept);
    refused = hearth_job_submit (c) < 0;
    s_say (refused, "a stage unpersisted since", hearth_job_error (c));
    hearth_job_destroy (&c);
    hearth_job_destroy (&a);

    /* a job built to read a persisted stage whose job is destroyed
       before it is submitted */
    hearth_job_t *e = hearth_job_new (ctx, "e");
    hearth_stage_t *held = hearth_job_stage (e, "held");
    hearth_stage_add_commands (held, echo, NULL, 2);
    hearth_stage_persist (held, HEARTH_PERSIST_DISK);
    if (hearth_job_run (e) < 0)
        return fprintf (stderr, "job e: %s\n", hearth_job_error (e)), -1;
    hearth_job_t *d = hearth_job_new (ctx, "d");
    hearth_stage_t *rd2 = hearth_job_stage (d, "read");
    hearth_stage_add_commands (rd2, s_uniq, NULL, 1);
    hearth_stage_input (rd2, held);
    hearth_job_destroy (&e);
    refused = hearth_job_submit (d) < 0;
    s_say (refused, "a stage whose job was destroyed since",
           hearth_job_error (d));
    hearth_job_destroy (&d);

    static const char *const nap[] = {"sleep", "1", NULL};
    hearth_job_t *busy = hearth_job_new (ctx, "busy");
    hearth_stage_t *slow = hearth_job_stage (busy, "slow");
    hearth_stage_add_commands (slow, nap, NULL, 1);
    hearth_stage_persist (slow, HEARTH_PERSIST_DISK);
    hearth_job_submit (busy);
    s_say (hearth_stage_unpersist (slow) < 0 && errno == EBUSY,
           "unpersist while its job runs", NULL);
    hearth_job_wait (busy, -1);
    s_say (hearth_stage_unpersist (slow) < 0, "unpersist once it ended", NULL);
    hearth_job_destroy (&busy);
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc < 3) {
        fprintf (stderr, "usage: test-persist-api iterate N DIR | refusals "
                         "DIR\n");
        return 2;
    }
    hearth_ctx_t *ctx = apictx_new ("test-persist-api");
    if (!ctx)
        return 1;
    int rc = -1;
    if (strcmp (argv[1], "iterate") == 0 && (argc == 4 || argc == 5))
        rc = s_iterate (ctx, atoi (argv[2]), argv[3],
                        argc == 5 && strcmp (argv[4], "memory") == 0
                            ? HEARTH_PERSIST_MEMORY
                            : HEARTH_PERSIST_DISK);
    else if (strcmp (argv[1], "refusals") == 0)
        rc = s_refusals (ctx, argv[2]);
    hearth_ctx_destroy (&ctx);
    return rc == 0 ? 0 : 1;
}

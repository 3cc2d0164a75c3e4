/*  test_ctx.c - a libhearth driver program for the tests of how an
    application ends (test-app-final-state.sh).

    test-ctx MODE, run through hearth-submit (which passes the settings):

    sleep          one job of two `sleep 60` tasks: for a signal to stop
    fail-then-ok   a job that fails, then one that succeeds
    ok-then-fail   a job that succeeds, then one that fails
    explicit       a job that succeeds, then hearth_ctx_set_final_state
                   (FAILED, "the answer was wrong")
    cancel         a job of `sleep 60` tasks given up (destroyed while it
                   runs), then nothing
    files LIST NAME
                   the "files" setting set to LIST through hearth_opts_set
                   (test-files.sh): one task `cat NAME`, its result
                   printed; a refused LIST ends with the context's error
    resources N    hearth_stage_set_resource: bad calls refused (EINVAL),
                   then a job of 4 tasks asking gpu=1 then gpu=N (the
                   second call replaces the first), each printing
                   "result: $HEARTH_RESOURCE_GPU" (test-task-resources.sh);
                   a failed job ends with its error
    big-args       the limits of a task at hearth_job_submit
                   (test-big-args.sh): a command with a 70,000-byte
                   argument, and 1,001 copies of one whose "{i}" makes
                   task 1000's argument 65,537 bytes, are refused
                   ("refused: ERROR"); then a job of an 8 MiB function
                   argument (echo_all, shipped with --lib) and a small
                   one runs ("job 1: succeeded", "result 0: N bytes,
                   exact")

    names          names with control characters refused: a job's, a
                   stage's, a pool's (EINVAL) and the "name" setting
                   (its message printed); then "names refused" and a
                   job of good names runs (test-bad-jobs.sh)

    Prints "job N: succeeded|failed" per job; exits 0 unless something
    unexpected happened.
*/
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hearth.h>

/* Run a one-task job of argv; prints how it ended.  Returns 0 if it
   succeeded. */
static int
s_job (hearth_ctx_t *ctx, int n, const char *const *argv)
{
    hearth_job_t *job = hearth_job_new (ctx, "job");
    hearth_stage_t *st = hearth_job_stage (job, "s");
    hearth_stage_add_command (st, argv);
    int rc = hearth_job_run (job);
    printf ("job %d: %s\n", n, rc == 0 ? "succeeded" : "failed");
    fflush (stdout);
    hearth_job_destroy (&job);
    return rc;
}

static int
s_cancel (hearth_ctx_t *ctx)
{
    static const char *const sleep60[] = {"sleep", "60", NULL};
    hearth_job_t *job = hearth_job_new (ctx, "given-up");
    hearth_stage_t *st = hearth_job_stage (job, "s");
    hearth_stage_add_commands (st, sleep60, NULL, 2);
    if (hearth_job_submit (job) < 0)
        return 1;
    hearth_job_wait (job, 1500); /* its tasks start */
    hearth_job_destroy (&job);
    printf ("job 1: given up\n");
    return 0;
}

/* files LIST NAME: ship LIST, cat NAME in a task. */
static int
s_files (const char *list, const char *name)
{
    char err[512];
    hearth_opts_t *opts = hearth_opts_new (err, sizeof err);
    if (!opts || hearth_opts_set (opts, "files", list, err, sizeof err) < 0) {
        fprintf (stderr, "test-ctx: %s\n", err);
        hearth_opts_destroy (&opts);
        return 1;
    }
    hearth_ctx_t *ctx = hearth_ctx_new (opts, err, sizeof err);
    hearth_opts_destroy (&opts);
    if (!ctx) {
        fprintf (stderr, "test-ctx: %s\n", err);
        return 1;
    }
    const char *const argv[] = {"cat", name, NULL};
    hearth_job_t *job = hearth_job_new (ctx, "files");
    hearth_stage_t *st = hearth_job_stage (job, "cat");
    hearth_stage_add_command (st, argv);
    int rc = hearth_job_run (job);
    size_t len = 0;
    const char *r = rc == 0 ? hearth_stage_result (st, 0, &len) : NULL;
    if (r)
        fwrite (r, 1, len, stdout);
    else
        fprintf (stderr, "test-ctx: %s\n", hearth_job_error (job));
    hearth_ctx_destroy (&ctx);
    return rc == 0 ? 0 : 1;
}

/* resources N: the per-task resource call, bad and good. */
static int
s_resources (hearth_ctx_t *ctx, int amount)
{
    static const char *const show[] = {"sh", "-c", "echo $HEARTH_RESOURCE_GPU",
                                       NULL};
    hearth_job_t *job = hearth_job_new (ctx, "resources");
    hearth_stage_t *st = hearth_job_stage (job, "gpu");
    const struct {
        const char *name;
        int amount;
    } bad[] = {{"g pu", 1}, {"gpu", 0}, {"gpu", 1025}, {NULL, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        errno = 0;
        if (hearth_stage_set_resource (st, bad[i].name, bad[i].amount) != -1
            || errno != EINVAL) {
            fprintf (stderr, "test-ctx: %s=%d accepted\n",
                     bad[i].name ? bad[i].name : "NULL", bad[i].amount);
            return 1;
        }
    }
    printf ("bad calls refused\n");
    if (hearth_stage_set_resource (st, "gpu", 1) < 0
        || hearth_stage_set_resource (st, "gpu", amount) < 0
        || hearth_stage_add_commands (st, show, NULL, 4) < 0)
        return 1;
    int rc = hearth_job_run (job);
    printf ("job 1: %s\n", rc == 0 ? "succeeded" : "failed");
    for (uint64_t i = 0; rc == 0 && i < 4; i++) {
        size_t len = 0;
        const char *r = hearth_stage_result (st, i, &len);
        printf ("result: %.*s", (int) len, r ? r : "");
    }
    if (rc != 0)
        fprintf (stderr, "test-ctx: %s\n", hearth_job_error (job));
    hearth_job_destroy (&job);
    return rc == 0 ? 0 : 1;
}

/* A job of a stage of count copies of argv, or of fn with arg: submitted,
   or refused with its error printed.  Returns the job (NULL: refused). */
static hearth_job_t *
s_submit (hearth_ctx_t *ctx, const char *const *argv, const char *fn,
          const char *arg, uint64_t count)
{
    hearth_job_t *job = hearth_job_new (ctx, "big");
    hearth_stage_t *st = hearth_job_stage (job, "s");
    if (argv)
        hearth_stage_add_commands (st, argv, NULL, count);
    else {
        hearth_stage_add_functions (st, fn, arg, count);
        hearth_stage_add_function (st, fn, "small");
    }
    if (hearth_job_submit (job) == 0)
        return job;
    printf ("refused: %s\n", hearth_job_error (job));
    hearth_job_destroy (&job);
    return NULL;
}

/* big-args: a task over the limits refused, a big argument carried. */
static int
s_big_args (hearth_ctx_t *ctx)
{
    size_t big = 8u << 20;
    char *arg = malloc (big + 1);
    memset (arg, 'a', big);
    arg[big] = '\0';
    memcpy (arg + 70000, "{i}", 4); /* 70,003 bytes, then 65,536 + "{i}" */
    const char *const cmd[] = {"echo", arg, NULL};
    int rc = s_submit (ctx, cmd, NULL, NULL, 1) != NULL;
    memcpy (arg + 65533, "{i}", 4); /* 65,533 + the index */
    rc |= s_submit (ctx, cmd, NULL, NULL, 1001) != NULL;
    memset (arg, 'a', big); /* 8 MiB, no "{i}" */
    hearth_job_t *job = s_submit (ctx, NULL, "echo_all", arg, 1);
    rc |= !job || hearth_job_wait (job, -1) < 0;
    bool ok = job && hearth_job_state (job) == HEARTH_JOB_SUCCEEDED;
    printf ("job 1: %s\n", ok ? "succeeded" : "failed");
    size_t len = 0;
    const char *r =
        ok ? hearth_stage_result (hearth_job_find_stage (job, "s"), 0, &len)
           : NULL;
    printf ("result 0: %zu bytes, %s\n", len,
            r && len == big + 1 && memcmp (r, arg, big) == 0 ? "exact"
                                                             : "not exact");
    if (job && !ok)
        fprintf (stderr, "test-ctx: %s\n", hearth_job_error (job));
    hearth_job_destroy (&job);
    free (arg);
    return rc || !ok;
}

/* names: a newline, an ESC, a C1 CSI in a name are refused. */
static int
s_names (hearth_ctx_t *ctx)
{
    static const char *const bad[] = {"a\nb", "red\x1b[31m",
                                      "csi\xc2\x9b"
                                      "2J",
                                      "del\x7f"};
    char err[512];
    hearth_opts_t *opts = hearth_opts_new (err, sizeof err);
    if (!opts
        || hearth_opts_set (opts, "name", "evil\nforged", err, sizeof err)
               != -1) {
        hearth_opts_destroy (&opts);
        return fprintf (stderr, "test-ctx: --name with a newline taken\n"), 1;
    }
    hearth_opts_destroy (&opts);
    printf ("name setting: %s\n", err);
    hearth_job_t *job = hearth_job_new (ctx, "caf\xc3\xa9 nightly");
    hearth_stage_t *st = hearth_job_stage (job, "s");
    for (size_t i = 0; st && i < sizeof bad / sizeof bad[0]; i++) {
        errno = 0;
        hearth_job_t *j = hearth_job_new (ctx, bad[i]);
        bool job_ok = !j && errno == EINVAL;
        hearth_job_destroy (&j);
        errno = 0;
        bool stage_ok = !hearth_job_stage (job, bad[i]) && errno == EINVAL;
        errno = 0;
        bool pool_ok =
            hearth_stage_set_pool (st, bad[i], 1) == -1 && errno == EINVAL;
        if (!job_ok || !stage_ok || !pool_ok)
            return fprintf (stderr, "test-ctx: name %zu taken\n", i), 1;
    }
    printf ("names refused\n");
    static const char *const ok[] = {"true", NULL};
    int rc = !st || hearth_stage_set_pool (st, "p\xc3\xa9", 1) < 0
             || hearth_stage_add_command (st, ok) < 0 || hearth_job_run (job);
    printf ("job 1: %s\n", rc == 0 ? "succeeded" : "failed");
    hearth_job_destroy (&job);
    return rc;
}

int
main (int argc, char **argv)
{
    static const char *const ok[] = {"true", NULL};
    static const char *const bad[] = {"false", NULL};
    static const char *const sleep60[] = {"sleep", "60", NULL};
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp (mode, "files") == 0 && argc == 4)
        return s_files (argv[2], argv[3]);
    char err[512];
    hearth_ctx_t *ctx = hearth_ctx_new (NULL, err, sizeof err);
    if (!ctx) {
        fprintf (stderr, "test-ctx: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (strcmp (mode, "sleep") == 0)
        s_job (ctx, 1, sleep60);
    else if (strcmp (mode, "fail-then-ok") == 0)
        rc = s_job (ctx, 1, bad) == 0 || s_job (ctx, 2, ok) != 0;
    else if (strcmp (mode, "ok-then-fail") == 0)
        rc = s_job (ctx, 1, ok) != 0 || s_job (ctx, 2, bad) == 0;
    else if (strcmp (mode, "explicit") == 0)
        rc = s_job (ctx, 1, ok) != 0
             || hearth_ctx_set_final_state (ctx, (hearth_app_end_t) 7, NULL)
                    != -1
             || hearth_ctx_set_final_state (ctx, HEARTH_APP_FAILED,
                                            "the answer was wrong")
                    != 0;
    else if (strcmp (mode, "cancel") == 0)
        rc = s_cancel (ctx);
    else if (strcmp (mode, "resources") == 0 && argc == 3)
        rc = s_resources (ctx, atoi (argv[2]));
    else if (strcmp (mode, "big-args") == 0)
        rc = s_big_args (ctx);
    else if (strcmp (mode, "names") == 0)
        rc = s_names (ctx);
    else {
        fprintf (stderr, "test-ctx: unknown mode '%s'\n", mode);
        rc = 2;
    }
    hearth_ctx_destroy (&ctx);
    return rc;
}

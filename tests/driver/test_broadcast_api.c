/*  test_broadcast_api.c - broadcast files through the C API (issue 38),
    for test-broadcast.sh; run through hearth-submit, whose settings it
    takes (its --lib: libtesttasks.so).

    test-broadcast-api FILE
        hearth_broadcast_file's refusals first, each printed as
        "refused: WHAT (ERRNO NAME)": names that are not [A-Z_][A-Z0-9_]*,
        a path that is no file, a name given twice.  Then FILE as DATA,
        and one job: stage "fn" of 2 function tasks broadcast_read DATA,
        stage "cmd" of 2 command tasks printing $HEARTH_BROADCAST_DATA's
        bytes; each result printed after "fn I:" or "cmd I:".  Then
        hearth_broadcast_file once the job was submitted: refused
        (EBUSY).

    Exits 0 unless something unexpected happened.
*/
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hearth.h>

#include "tests/driver/apictx.h"

/* Try adding name as path; print the refusal; 0 when refused as
   expected (errno want). */
static int
s_refused (hearth_ctx_t *ctx, const char *name, const char *path, int want)
{
    if (hearth_broadcast_file (ctx, name, path) == 0) {
        printf ("ACCEPTED: %s\n", name);
        return -1;
    }
    int e = errno;
    printf ("refused: %s (%s): %s\n", name,
            e == EBUSY    ? "EBUSY"
            : e == EINVAL ? "EINVAL"
                          : "other",
            hearth_ctx_error (ctx));
    return e == want ? 0 : -1;
}

static void
s_print (hearth_stage_t *stage, const char *what)
{
    for (uint64_t i = 0; i < 2; i++) {
        size_t len;
        const char *res = hearth_stage_result (stage, i, &len);
        printf ("%s %d: %.*s", what, (int) i, (int) len, res ? res : "");
    }
}

int
main (int argc, char **argv)
{
    static const char *const cat[] = {"sh", "-c",
                                      "cat \"$HEARTH_BROADCAST_DATA\"", NULL};
    if (argc != 2) {
        fprintf (stderr, "usage: test-broadcast-api FILE\n");
        return 2;
    }
    hearth_ctx_t *ctx = apictx_new ("test-broadcast-api");
    if (!ctx)
        return 1;
    int rc = 0;
    rc |= s_refused (ctx, "data", argv[1], EINVAL);
    rc |= s_refused (ctx, "1DATA", argv[1], EINVAL);
    rc |= s_refused (ctx, "DA-TA", argv[1], EINVAL);
    rc |= s_refused (ctx, "", argv[1], EINVAL);
    rc |= s_refused (ctx, "NOFILE", "/nonexistent/file", EINVAL);
    if (hearth_broadcast_file (ctx, "DATA", argv[1]) < 0) {
        fprintf (stderr, "DATA: %s\n", hearth_ctx_error (ctx));
        rc = -1;
    }
    rc |= s_refused (ctx, "DATA", argv[1], EINVAL); /* twice */
    hearth_job_t *job = hearth_job_new (ctx, "read");
    hearth_stage_t *fn = hearth_job_stage (job, "fn");
    hearth_stage_t *cmd = hearth_job_stage (job, "cmd");
    hearth_stage_add_functions (fn, "broadcast_read", "DATA", 2);
    hearth_stage_add_commands (cmd, cat, NULL, 2);
    if (hearth_job_run (job) < 0
        || hearth_job_state (job) != HEARTH_JOB_SUCCEEDED) {
        fprintf (stderr, "job: %s\n", hearth_job_error (job));
        rc = -1;
    }
    else {
        s_print (fn, "fn");
        s_print (cmd, "cmd");
    }
    rc |= s_refused (ctx, "LATE", argv[1], EBUSY);
    hearth_ctx_destroy (&ctx);
    return rc ? 1 : 0;
}

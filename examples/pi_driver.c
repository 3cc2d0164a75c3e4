/*  pi-driver - the pi example as a C driver program using libhearth.

    pi-driver [TASKS [POINTS]]

    Run it with hearth-submit, which passes the master and the library:
        hearth-submit --lib examples/libpi.so examples/pi-driver 100
*/
#include <stdio.h>
#include <stdlib.h>

#include <hearth.h>

int
main (int argc, char **argv)
{
    unsigned long tasks = argc > 1 ? strtoul (argv[1], NULL, 10) : 100;
    const char *points = argc > 2 ? argv[2] : "200000";
    char err[512], arg[64];
    if (tasks == 0) {
        fprintf (stderr, "usage: pi-driver [TASKS [POINTS]]\n");
        return 2;
    }
    /* Settings come from hearth-submit through the environment. */
    hearth_opts_t *opts = hearth_opts_new (err, sizeof err);
    hearth_ctx_t *ctx = opts ? hearth_ctx_new (opts, err, sizeof err) : NULL;
    hearth_opts_destroy (&opts);
    if (!ctx) {
        fprintf (stderr, "pi-driver: %s\n", err);
        return 1;
    }
    hearth_job_t *job = hearth_job_new (ctx, "pi");
    hearth_stage_t *sample = hearth_job_stage (job, "sample");
    snprintf (arg, sizeof arg, "{i}:%s", points);
    hearth_stage_add_functions (sample, "pi_sample", arg, tasks);
    hearth_stage_t *sum = hearth_job_stage (job, "sum");
    hearth_stage_input (sum, sample);
    hearth_stage_add_function (sum, "pi_sum", NULL);
    int rc = hearth_job_run (job);
    if (rc == 0) {
        size_t len;
        const char *result = hearth_stage_result (sum, 0, &len);
        fwrite (result, 1, len, stdout);
    }
    else
        fprintf (stderr, "pi-driver: %s\n", hearth_job_error (job));
    hearth_ctx_destroy (&ctx); /* frees the job too */
    return rc == 0 ? 0 : 1;
}

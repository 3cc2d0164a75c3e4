/*  jobrun.c - runs a JSON job file (DESIGN §6) as an application: the
    whole of hearth-driver, which hearth-submit also runs in its own
    process (see jobrun.h).

    Checks the whole job file first; then registers the application, runs
    the job, prints the results of its last stage (one per line, in task
    order) and returns 0 only if the job succeeded.  A file of several
    jobs runs them one after the other in that one application, each
    printing as a job of its own would, and stops at the first that
    fails.  When stderr is a
    terminal, the progress display of progress.h runs below the messages
    there.  Its messages give the name of the program its user ran.
*/
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfile/jobfile.h"
#include "jobfile/jobnames.h"
#include "jobfile/jobrun.h"
#include "jobfile/progress.h"
#include "libcore/clock.h"
#include "libcore/ctlchars.h"
#include "libcore/labels.h"
#include "libhearth/hearth.h"
#include "libhearth/internal.h"
#include "libhearth/ship.h"

/* How often the progress display is redrawn, and how long a job runs
   before it is first drawn (a quick job shows none: no flicker). */
static const int s_redraw_ms = 200;
static const int64_t s_first_draw_ms = 500;
/* Stages the display shows at most; the others are "+N more". */
enum { s_shown_stages = 3 };

/* Say why on stderr, with the control characters of the text escaped:
   it may carry a task's error or the master's answer (ctlchars.h). */
static int
s_fail (int code, const char *fmt, const char *text)
{
    fprintf (stderr, "%s: ", program_invocation_short_name);
    hearth_ctl_fprintf (stderr, fmt, text);
    fprintf (stderr, "\n");
    return code;
}

static void
s_draw (progress_t *bar, hearth_job_t *job)
{
    hearth_stage_progress_t stages[s_shown_stages];
    size_t active = hearth_job_active_stages (job, stages, s_shown_stages);
    size_t shown = active < s_shown_stages ? active : s_shown_stages;
    char where[s_shown_stages][24];
    const char *wheres[s_shown_stages];
    for (size_t i = 0; i < shown; i++) {
        uint64_t node = 0, rack = 0, any = 0;
        hearth_stage_locality (hearth_job_find_stage (job, stages[i].name),
                               &node, &rack, &any);
        progress_where (node, rack, any, where[i], sizeof where[i]);
        wheres[i] = where[i];
    }
    char *text = progress_format_where (stages, wheres, shown, active,
                                        progress_columns (bar));
    if (text)
        progress_draw (bar, text);
    free (text);
}

/* The signal that asked us to stop, or 0. */
static volatile sig_atomic_t s_stop_signal;

static void
s_on_signal (int sig)
{
    s_stop_signal = sig;
}

/* SIGINT and SIGTERM stop the application cleanly: it ends KILLED, its
   executors and, in local-cluster mode, its master and workers go with
   it.  A second signal kills at once (the default action is back). */
static void
s_catch_signals (void)
{
    struct sigaction sa = {.sa_handler = s_on_signal, .sa_flags = SA_RESETHAND};
    sigemptyset (&sa.sa_mask);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
}

/* Wait for the job, drawing its progress on bar (NULL: none); erase it
   at the end.  Returns false if a signal cut the wait short. */
static bool
s_wait (hearth_job_t *job, progress_t *bar)
{
    int64_t first_ms = hearth_mono_ms () + s_first_draw_ms;
    while (!s_stop_signal && hearth_job_wait (job, s_redraw_ms) < 0)
        if (bar && hearth_mono_ms () >= first_ms)
            s_draw (bar, job);
    progress_clear (bar);
    return !s_stop_signal;
}

/* Print each result with one trailing newline removed, then a newline. */
static int
s_print_results (hearth_job_t *job, const char *stage_name)
{
    hearth_stage_t *stage = hearth_job_find_stage (job, stage_name);
    if (hearth_stage_output (stage)) {
        fprintf (stderr, "%s: %llu part files in %s\n",
                 program_invocation_short_name,
                 (unsigned long long) hearth_stage_size (stage),
                 hearth_stage_output (stage));
        return 0;
    }
    if (hearth_stage_partitions (stage)) { /* persisted for a later job */
        fprintf (stderr, "%s: stage %s: %llu outputs kept on the workers\n",
                 program_invocation_short_name, stage_name,
                 (unsigned long long) hearth_stage_size (stage));
        return 0;
    }
    for (uint64_t i = 0; i < hearth_stage_size (stage); i++) {
        size_t len;
        const char *r = hearth_stage_result (stage, i, &len);
        if (len && r[len - 1] == '\n')
            len--;
        if (fwrite (r, 1, len, stdout) != len || putchar ('\n') == EOF)
            return -1;
    }
    return fflush (stdout);
}

/* Run job k of the file in ctx and print its results.  Returns 0 when
   it succeeded, else 1 after saying why (a signal: s_stop_signal). */
static int
s_run_job (hearth_ctx_t *ctx, hearth_opts_t *opts, jobfile_t *jf, size_t k,
           progress_t *bar)
{
    hearth_error_t err;
    char label[1024];
    jobfile_job_label (jf, k, label, sizeof label);
    hearth_job_t *job = jobfile_build (
        jf, k, ctx, hearth_conf_str (driver_opts_conf (opts), "output"), &err);
    if (!job)
        return s_fail (1, "%s", err.text);
    if (hearth_job_submit (job) < 0)
        return s_fail (1, "%s", hearth_job_error (job));
    if (!s_wait (job, bar)) {
        char why[64];
        snprintf (why, sizeof why, "stopped by %s",
                  s_stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
        fprintf (stderr, "%s: %s\n", program_invocation_short_name, why);
        hearth_ctx_set_final_state (ctx, HEARTH_APP_KILLED, why);
        return 1;
    }
    /* the task's error keeps its lines (its stderr, issue 21), and
       nothing else that drives a terminal */
    if (hearth_job_state (job) != HEARTH_JOB_SUCCEEDED) {
        hearth_ctl_fprintf_lines (stderr, "%s: %s failed: %s\n",
                                  program_invocation_short_name, label,
                                  hearth_job_error (job));
        return 1;
    }
    if (s_print_results (job, jobfile_output_stage (jf, k)) < 0)
        return s_fail (1, "cannot write the results: %s", strerror (errno));
    return 0;
}

/* The file's jobs in order, in one application: the first that fails
   stops it (the later ones do not run). */
static int
s_run (hearth_opts_t *opts, jobfile_t *jf, progress_t *bar)
{
    char errbuf[512];
    hearth_ctx_t *ctx = hearth_ctx_new (opts, errbuf, sizeof errbuf);
    if (!ctx)
        return s_fail (1, "%s", errbuf);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < jobfile_count (jf); k++)
        rc = s_run_job (ctx, opts, jf, k, bar);
    hearth_ctx_destroy (&ctx);
    return s_stop_signal ? 128 + s_stop_signal : rc;
}

/* Add what the job file names under key ("lib", "files") to that
   setting, at the strength of what set it already (hearth-submit's
   --lib arrives as HEARTH_LIB), so that both are shipped: a stronger
   source would replace the list. */
/* Whether this driver may resume an application (resume.h): asked to
   (--resume), or a cluster-mode driver, which the master may have
   relaunched to resume its application. */
static bool
s_may_resume (const hearth_conf_t *conf)
{
    const char *resume = hearth_conf_str (conf, "resume");
    const char *driver = hearth_conf_str (conf, "driver-id");
    return (resume && *resume) || (driver && *driver);
}

static int
s_add_named (hearth_conf_t *conf, const jobfile_t *jf, const char *key,
             hearth_error_t *err)
{
    const char *const *items;
    size_t ngiven = hearth_conf_list (conf, key, &items), n = 0;
    char **split = NULL, **paths = NULL;
    if (strcmp (key, "files") == 0
        && !(split = ship_file_paths (conf, &ngiven)))
        return hearth_errprintf (err, "out of memory");
    const char *const *given = split ? (const char *const *) split : items;
    int rc = jobfile_names (jf, key, given, ngiven, &paths, &n, err);
    hearth_src_t src = hearth_conf_source (conf, key);
    if (src <= HEARTH_SRC_DEFAULT)
        src = HEARTH_SRC_FLAG;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = hearth_conf_set (conf, key, paths[i], src, err);
    jobnames_destroy (&paths);
    ship_paths_destroy (&split);
    return rc;
}

/* The job file's "broadcast" into the setting of that name ("NAME=PATH"
   each), beside what --conf broadcast gave. */
static int
s_add_broadcast (hearth_conf_t *conf, const jobfile_t *jf, hearth_error_t *err)
{
    char **entries = NULL;
    size_t n = 0;
    int rc = jobfile_broadcast (jf, &entries, &n, err);
    hearth_src_t src = hearth_conf_source (conf, "broadcast");
    if (src <= HEARTH_SRC_DEFAULT)
        src = HEARTH_SRC_FLAG;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = hearth_conf_set (conf, "broadcast", entries[i], src, err);
    jobnames_destroy (&entries);
    return rc;
}

/* A job whose every stage requires the same labels asks for its
   executors on workers carrying them (the master places them there, and
   refuses the application when no worker ever had them), unless
   --executor-label says otherwise. */
static int
s_executor_labels (hearth_conf_t *conf, const jobfile_t *jf,
                   hearth_error_t *err)
{
    const cJSON *common = jobfile_common_require (jf);
    if (!common || hearth_conf_isset (conf, "executor-label"))
        return 0;
    const cJSON *label;
    cJSON_ArrayForEach (label, common)
    {
        char spec[HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2];
        snprintf (spec, sizeof spec, "%s=%s", label->string,
                  cJSON_GetStringValue (label));
        if (hearth_conf_set (conf, "executor-label", spec, HEARTH_SRC_FLAG, err)
            < 0)
            return -1;
    }
    return 0;
}

jobfile_t *
jobrun_load (const hearth_conf_t *conf, int argc, char **argv, int first,
             bool elsewhere, hearth_error_t *err)
{
    char dir[PATH_MAX];
    size_t nparams = 0;
    if (driver_submit_dir (conf, dir, sizeof dir, err) < 0)
        return NULL;
    char **params = driver_params (conf, &nparams);
    if (!params) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    jobparams_input_t in = {.args = argv + first + 1,
                            .nargs = (size_t) (argc - first - 1),
                            .params = (const char *const *) params,
                            .nparams = nparams,
                            .submit_dir = dir,
                            .elsewhere = elsewhere};
    jobfile_t *jf = jobfile_load (argv[first], &in, err);
    driver_params_destroy (&params);
    return jf;
}

int
jobrun_main (int argc, char **argv)
{
    char errbuf[512];
    int first;
    hearth_opts_t *opts =
        driver_opts_from_argv (argc, argv, &first, errbuf, sizeof errbuf);
    if (!opts)
        return s_fail (2, "%s", errbuf);
    hearth_conf_t *conf = driver_opts_conf (opts);
    if (hearth_conf_wants_help (conf) || hearth_conf_wants_version (conf)) {
        if (hearth_conf_wants_help (conf))
            hearth_conf_usage (conf, stdout, "[OPTIONS] JOB.json [ARGS...]",
                               "Runs a JSON job file: see docs/jobs.md.");
        else
            printf ("hearth-driver %s\n", PACKAGE_VERSION);
        hearth_opts_destroy (&opts);
        return 0;
    }
    if (first >= argc) {
        hearth_opts_destroy (&opts);
        return s_fail (2, "%s", "no job file given (see --help)");
    }
    hearth_error_t err;
    jobfile_t *jf = jobrun_load (conf, argc, argv, first, false, &err);
    if (!jf || s_add_named (conf, jf, "lib", &err) < 0
        || s_add_named (conf, jf, "files", &err) < 0
        || s_add_broadcast (conf, jf, &err) < 0
        || s_executor_labels (conf, jf, &err) < 0
        || jobfile_check_outputs (jf, hearth_conf_str (conf, "output"),
                                  s_may_resume (conf), &err)
               < 0) {
        jobfile_destroy (&jf);
        hearth_opts_destroy (&opts);
        return s_fail (2, "%s", err.text);
    }
    if (!hearth_conf_isset (conf, "name"))
        hearth_opts_set (opts, "name", jobfile_name (jf), NULL, 0);
    s_catch_signals ();
    /* Before the context starts our local executors: their messages too
       pass above the display. */
    progress_t *bar = progress_new ();
    int rc = s_run (opts, jf, bar);
    progress_destroy (&bar);
    jobfile_destroy (&jf);
    hearth_opts_destroy (&opts);
    return rc;
}

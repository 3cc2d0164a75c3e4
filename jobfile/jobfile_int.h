/*  jobfile_int.h - what jobfile.c and jobouts.c share of a loaded job
    file (jobfile.h): not for other callers.
*/
#ifndef HEARTH_JOBFILE_JOBFILE_INT_H
#define HEARTH_JOBFILE_JOBFILE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "jobfile/jobfile.h"
#include "jobfile/joblist.h"
#include "jobfile/jobparams.h"
#include "jobfile/jobstore.h"

/* One job of the file, or one iteration of a repeated one. */
typedef struct {
    const cJSON *root;   /* its tree (a run's, or the file's) */
    jobitems_t *lines;   /* the lines of each "foreach": {"lines"} task */
    size_t nlines;       /* how many such tasks, in the job's order */
    bool later;          /* a "foreach": {"parts"} task of it reads an
                            earlier job's output: its lines are read, and
                            its tasks checked, when it is built */
    hearth_job_t *built; /* the job built for it (the context's), once
                            built: later jobs read its persisted stages
                            (jobcross.h) */
} jobfile_job_t;

struct jobfile {
    cJSON *root;         /* the parsed file, its strings filled
                            (jobparams.h); without its "jobs" */
    jobstore_t *store;   /* its simple tasks, out of root (jobstore.h) */
    char *path;          /* where it was read from */
    char **args;         /* the job's arguments (borrowed): "foreach":
                            "args" */
    size_t nargs;        /* how many */
    bool elsewhere;      /* it runs elsewhere (jobparams_input_t) */
    joblist_run_t *runs; /* a file of several jobs: its runs, else NULL */
    jobfile_job_t *jobs; /* the jobs to run, in order: one per run, or
                      the file itself */
    size_t njobs;        /* how many */
};

/* "jobs[2]." into buf, the place of job k's messages in a file of
   several jobs; "" in a file of one. */
static inline void
jobfile_where (const jobfile_t *self, size_t k, char *buf, size_t size)
{
    if (self->runs)
        snprintf (buf, size, "jobs[%d].", self->runs[k].job);
    else if (size)
        buf[0] = '\0';
}

/* The directory stage st of job k writes its results to: the last stage
   of the last job, output_dir when not NULL; else its "output", or
   NULL (jobouts.c). */
const char *jobfile_output_dir (const jobfile_t *self, size_t k,
                                const cJSON *st, const char *output_dir);

/* Whether a "foreach": {"parts": DIR} task of job k names, as written
   (filled), the output directory of a stage of an earlier job: DIR does
   not exist until that job has run (jobouts.c). */
bool jobfile_reads_earlier (const jobfile_t *self, size_t k);

#endif

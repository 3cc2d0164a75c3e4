/*  jobcross.h - a stage of one job of a file reading a persisted stage of
    an earlier one (docs/jobs.md "Several jobs, iterations"): "input":
    "JOB/STAGE" in a task, or "JOB/STAGE" in a stage's "after".  JOB names
    the latest run of that job before this one (the previous iteration,
    for a repeated job reading itself); the stage must be persisted.
*/
#ifndef HEARTH_JOBFILE_JOBCROSS_H
#define HEARTH_JOBFILE_JOBCROSS_H

#include <stddef.h>

#include "jobfile/jobfile_int.h"
#include "libcore/error.h"
#include "libhearth/hearth.h"

/* Check every JOB/STAGE name of job k of the file: an earlier run of
   JOB, a stage STAGE of it, persisted, not writing files, and a reader
   of a partitioned one running once per partition.  0, or -1 with err
   naming the place ("jobs[2].stages[0].tasks[0].input: ..."). */
int jobcross_check (const jobfile_t *self, size_t k, hearth_error_t *err);

/* The stage that name (a JOB/STAGE of job k, checked) names, in the job
   built for that earlier run; NULL when name is no such name or that run
   was not built. */
hearth_stage_t *jobcross_stage (const jobfile_t *self, size_t k,
                                const char *name);

#endif

/*  joblist.h - a job file of several jobs, run one after the other in
    one application (docs/jobs.md, "Several jobs, iterations"):

    {"name": "app", "lib": ..., "files": ..., "params": ..., "env": ...,
     "jobs": [{"name": "prep", "stages": [...]},
              {"name": "step", "repeat": 5, "env": {...}, "stages": [...]}]}

    The top level holds what the application shares (its name, the
    libraries and files shipped to its executors, the params, the env
    every job starts from); a job holds its name, its stages, its own
    "env" (over the file's) and "repeat".  Each job, or each iteration of
    a repeated job, becomes a run: a tree shaped as a file of one job, so
    that the checks, the placeholders and the build of one job apply to
    it unchanged (jobfile.c).  {iter} is filled here, in a run's strings,
    before the others: a run's tree then has none left, and {iter}
    outside a repeated job is an error (jobparams.c).

    The file's tree and store are jobfile.c's; these functions borrow
    them, and a run's tree is the caller's.
*/
#ifndef HEARTH_JOBFILE_JOBLIST_H
#define HEARTH_JOBFILE_JOBLIST_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "jobfile/jobstore.h"
#include "libcore/error.h"

/* Most iterations of a job, and most runs (iterations counted) in a
   file: each run is a tree held from load to the end of the
   application. */
enum { JOBLIST_MAX_REPEAT = 1000, JOBLIST_MAX_RUNS = 10000 };

/* One run of the file: a job, or one iteration of a repeated one. */
typedef struct {
    cJSON *root; /* its tree: "params" (the file's), "env" (the
                    job's), "stages", and once filled "name" */
    int job;     /* its job's index in "jobs" */
    char *name;  /* its job's name (a copy) */
    int iter;    /* its iteration, 0...repeat-1, or -1: no "repeat" */
    int repeat;  /* its job's "repeat", or 0 */
} joblist_run_t;

/* Whether root (a file's tree) has "jobs". */
bool joblist_has_jobs (const cJSON *root);

/* Check the shape of a file of several jobs, before any string is
   filled: its top-level keys ("jobs" and "stages" exclude each other),
   "jobs" a non-empty array of objects with known keys, each a "name"
   (unique, without control characters) and "stages", "repeat" a whole
   number 1...JOBLIST_MAX_REPEAT, JOBLIST_MAX_RUNS runs at most, no param
   named "iter".  What is inside a job's stages and env is checked per
   run, as a file of one job is.  0, or -1 with err ("jobs[2].repeat:
   ..."). */
int joblist_check (const cJSON *root, hearth_error_t *err);

/* The runs of jobs (a file's "jobs", checked), in order: a new array in
   *runs, *n long, for joblist_runs_destroy().  Each tree is a copy of
   its job's "env" and "stages" with params (the file's "params", or
   NULL), {iter} filled
   in its strings and in those of its stored tasks (store grows by the
   tasks whose strings change).  0, or -1 with err (no memory). */
int joblist_expand (const cJSON *jobs, const cJSON *params, jobstore_t *store,
                    joblist_run_t **runs, size_t *n, hearth_error_t *err);

/* Once a run's strings are filled and checked: its "name", and its
   "env" made the file's env (filled; NULL: none) with the job's over
   it.  0, or -1 with err (no memory). */
int joblist_finish (joblist_run_t *run, const cJSON *file_env,
                    hearth_error_t *err);

/* Free the runs and their trees (accepts NULL; nulls *runs_p). */
void joblist_runs_destroy (joblist_run_t **runs_p, size_t n);

#endif

/*  jobfile.h - JSON job files (DESIGN §6), checked and turned into a job.

    jobfile_load() reads and checks a whole file before anything runs, so
    that a mistake is reported with its place ("pi.json:7:12: ..." for bad
    JSON, "stages[1].tasks[0].fn: ..." for a bad field) and nothing starts.
    jobfile_build() then creates the job through the public API.
*/
#ifndef HEARTH_JOBFILE_H
#define HEARTH_JOBFILE_H

#include <stddef.h>

#include "jobfile/jobparams.h"
#include "libcore/error.h"
#include "libhearth/hearth.h"

typedef struct jobfile jobfile_t;

/* Load path; in (borrowed, and its args until jobfile_destroy()) fills
   its strings: jobparams.h.  NULL with err on any mistake. */
jobfile_t *jobfile_load (const char *path, const jobparams_input_t *in,
                         hearth_error_t *err);
void jobfile_destroy (jobfile_t **self_p);

/* The job's name. */
const char *jobfile_name (const jobfile_t *self);

/* The files the job names under key ("lib": its libraries, "files": the
   files shipped for its tasks), found beside the job file, then in the
   current directory, less those of the base name of one given (the
   command line's): jobnames.h.  A new array in *paths for
   jobnames_destroy(), *n long.  Returns 0, or -1 with err. */
int jobfile_names (const jobfile_t *self, const char *key,
                   const char *const *given, size_t ngiven, char ***paths,
                   size_t *n, hearth_error_t *err);

/* Create the job in ctx, the last stage's results written to files in
   output_dir when it is not NULL (hearth-submit --output).  Returns it
   (owned by ctx) or NULL with err.  Each task of the file is taken out of
   its parsed tree once it is in the job, so that the tree's copy of a
   big file's tasks does not stay beside the job's through the run, and
   the job takes over the store (jobstore.h) whose strings its function
   tasks point into instead of copies: call it once (the names and the
   output stage stay readable). */
/* Refuse, before anything starts, an output directory (the last
   stage's output_dir when not NULL, else each stage's "output") that
   already holds an output.  Returns 0, or -1 with err naming the stage
   and the directory. */
int jobfile_check_outputs (const jobfile_t *self, const char *output_dir,
                           hearth_error_t *err);

hearth_job_t *jobfile_build (jobfile_t *self, hearth_ctx_t *ctx,
                             const char *output_dir, hearth_error_t *err);

/* The stage whose results the job prints: the last one in the file. */
const char *jobfile_output_stage (const jobfile_t *self);

/* The "require" every stage of the job has, when they all have the same
   one (borrowed), else NULL: its executors then need nothing else, and
   are asked for on workers carrying those labels (--executor-label). */
const cJSON *jobfile_common_require (const jobfile_t *self);

#endif

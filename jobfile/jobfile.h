/*  jobfile.h - JSON job files (DESIGN §6), checked and turned into a job.

    jobfile_load() reads and checks a whole file before anything runs, so
    that a mistake is reported with its place ("pi.json:7:12: ..." for bad
    JSON, "stages[1].tasks[0].fn: ..." for a bad field, "jobs[2].stages[0]
    ..." in a file of several jobs) and nothing starts.  jobfile_build()
    then creates each job through the public API, when its turn comes.
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

/* The application's name: the file's "name", else "job". */
const char *jobfile_name (const jobfile_t *self);

/* The jobs the file runs, one after the other in one application: 1 for
   a file of one job ("stages"), else one per job of its "jobs", and per
   iteration of a job with "repeat" (joblist.h).  Job k's name (a
   repeated job's, without the iteration: borrowed), and a label for
   messages into buf: "job NAME", "job NAME (jobs[1])", "job NAME
   (jobs[1], iteration {iter}=2 of 0...4)". */
size_t jobfile_count (const jobfile_t *self);
const char *jobfile_job_name (const jobfile_t *self, size_t k);
void jobfile_job_label (const jobfile_t *self, size_t k, char *buf,
                        size_t size);

/* The files the job names under key ("lib": its libraries, "files": the
   files shipped for its tasks), found beside the job file, then in the
   current directory, less those of the base name of one given (the
   command line's): jobnames.h.  A new array in *paths for
   jobnames_destroy(), *n long.  Returns 0, or -1 with err. */
int jobfile_names (const jobfile_t *self, const char *key,
                   const char *const *given, size_t ngiven, char ***paths,
                   size_t *n, hearth_error_t *err);

/* The file's "broadcast" variables, "NAME=PATH" each, their files found
   beside the job file or here (jobnames.h jobnames_broadcast). */
int jobfile_broadcast (const jobfile_t *self, char ***entries, size_t *n,
                       hearth_error_t *err);

/* Refuse, before anything starts, an output directory (the last
   stage's of the last job: output_dir when not NULL, else each stage's
   "output") that already holds an output, or that an earlier job (an
   earlier iteration) writes to as well.  may_resume: the driver may
   resume an application (--resume, or a cluster-mode driver, which the
   master may relaunch): a directory holding part files may be its
   earlier driver's, and the engine refuses it at submit only for a
   stage that does not resume (libhearth/resume.h).  Returns 0, or -1
   with err naming the stage and the directory. */
int jobfile_check_outputs (const jobfile_t *self, const char *output_dir,
                           bool may_resume, hearth_error_t *err);

/* Create job k (0...jobfile_count()-1) in ctx, the last stage's results
   of the last job written to files in output_dir when it is not NULL
   (hearth-submit --output); an iteration's job is named "NAME[ITER]".
   Returns it (owned by ctx) or NULL with err.  Each task of the file is
   taken out of its parsed tree once it is in the job, so that the
   tree's copy of a big file's tasks does not stay beside the job's
   through the run; function tasks point into the store's strings
   (jobstore.h) instead of copies: a file of one job hands the store
   over to its job, a file of several lends it to each, and the file
   must then outlive ctx's jobs (destroy ctx first).  Call it once per
   job (the names and the output stage stay readable). */
hearth_job_t *jobfile_build (jobfile_t *self, size_t k, hearth_ctx_t *ctx,
                             const char *output_dir, hearth_error_t *err);

/* The stage whose results job k prints: its last one. */
const char *jobfile_output_stage (const jobfile_t *self, size_t k);

/* The "require" every stage of the job has, when they all have the same
   one (borrowed), else NULL: its executors then need nothing else, and
   are asked for on workers carrying those labels (--executor-label). */
const cJSON *jobfile_common_require (const jobfile_t *self);

#endif

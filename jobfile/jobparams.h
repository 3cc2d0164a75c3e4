/*  jobparams.h - what a job file's strings are filled with: its "params"
    (defaults in the file, --param NAME=VALUE on the command line), the
    job's arguments ({arg0}...), {submit_dir}, and per task {i} and
    {item}; the job's, a stage's and a task's "env" merged; and the lines
    of a "foreach": {"lines": FILE} task.

    Placeholders are {NAME} with NAME a C identifier; any other brace is
    text ("{ print $1 }" passes as it is), and "{{" writes a literal "{".
    An unknown NAME is an error naming it and its place.  {i} is left in
    the task's strings for the driver library to make the task's index
    (hearth.h); {item} is filled per item when the job is built; {iter},
    a repeated job's iteration, before these (joblist.h): one left is
    an error here, unless the file of one job has a param "iter".

    jobfile.c owns the JSON tree; these functions borrow it.
*/
#ifndef HEARTH_JOBFILE_JOBPARAMS_H
#define HEARTH_JOBFILE_JOBPARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "jobfile/jobstore.h"
#include "libcore/error.h"

/* What the command line gives a job file (all borrowed). */
typedef struct {
    char **args;               /* ARGS: {arg0}..., "foreach": "args" */
    size_t nargs;              /* how many */
    const char *const *params; /* --param values, "NAME=VALUE" */
    size_t nparams;            /* how many */
    const char *submit_dir;    /* {submit_dir}; NULL: the current dir */
    bool elsewhere; /* the job runs elsewhere (cluster mode: this is a
                       check before shipping it): a "foreach" lines file
                       that cannot be read here is the driver's there
                       to read, and its tasks go unchecked here */
} jobparams_input_t;

/* Check root's "params" and in's --param values against them, then fill
   every string of root in place (and of the tasks of store that root's
   placeholders name: jobstore.h), except those of a task with "foreach"
   ("cmd", "fn", "arg", "env"), which stay in an escaped form that
   jobparams_finish() completes per item.  Returns 0, or -1 with err
   naming the place ("stages[0].tasks[1].cmd[2]: unknown {nme} ..."). */
int jobparams_apply (cJSON *root, jobstore_t *store,
                     const jobparams_input_t *in, hearth_error_t *err);

/* The final text of a foreach task's string for one item: "{{" becomes
   "{", "{item}" becomes item.  A new string for the caller to free, or
   NULL on no memory. */
char *jobparams_finish (const char *text, const char *item);

/* Check an "env" object (NULL: none) at where ("env",
   "stages[1].env"...).  Returns 0, or -1 with err. */
int jobparams_check_env (const cJSON *env, const char *where,
                         hearth_error_t *err);

/* A task's environment: the job's, its stage's and its own "env" (each
   may be NULL; a later one wins for a name), as a new NULL-terminated
   array of "NAME=VALUE" for jobparams_env_destroy(), values finished
   for item when item is not NULL.  NULL in *envv when there is none.
   Returns 0, or -1 on no memory. */
int jobparams_env (const cJSON *job, const cJSON *stage, const cJSON *task,
                   const char *item, char ***envv);
void jobparams_env_destroy (char ***envv_p);

/* The items of a "foreach": {"lines": FILE} or {"parts": DIR} task, one
   buffer. */
typedef struct {
    char *text;   /* the file's bytes, each line NUL-terminated in place
                     (parts: each path and host, NUL-terminated) */
    char **lines; /* the non-empty lines (parts: DIR/NAME), pointers
                     into text */
    char **hosts; /* parts: the host of each, or NULL (not known); lines:
                     NULL */
    size_t n;     /* how many */
} jobitems_t;

/* Read path into items (zeroed or freed before).  Returns 0, or -1 with
   err: a file that cannot be read, one over the limits (lines, bytes),
   a line holding a NUL byte. */
int jobitems_read (jobitems_t *items, const char *path, hearth_error_t *err);
/* The part files of output directory dir into items (zeroed or freed
   before): their paths (absolute: a relative dir is the driver's
   current directory's, and the tasks run elsewhere) and the hosts that
   hold them, from dir's manifest (libcore/manifest.h).  Returns 0, or -1 with
   err: not a finished output, a manifest that cannot be read, more parts than a
   task list takes. */
int jobitems_parts (jobitems_t *items, const char *dir, hearth_error_t *err);
/* Free what items holds; accepts a zeroed one. */
void jobitems_free (jobitems_t *items);

#endif

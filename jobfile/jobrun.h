/*  jobrun.h - a JSON job file run as an application, from the command
    line: the body of hearth-driver.

    hearth-submit calls it in its own process rather than exec'ing
    hearth-driver: one program load fewer on every job file's start-up
    (docs/performance.md, benchmark 6), with the same options, messages,
    signals and exit status.
*/
#ifndef HEARTH_JOBFILE_JOBRUN_H
#define HEARTH_JOBFILE_JOBRUN_H

#include <stdbool.h>

#include "jobfile/jobfile.h"
#include "libcore/conf.h"
#include "libcore/error.h"

/* Runs "PROGRAM [OPTIONS] JOB.json [ARGS...]" (argv[0] is only a name):
   returns the exit status, 128 + the signal that stopped the job. */
int jobrun_main (int argc, char **argv);

/* Load (and check: jobfile.h) the job file argv[first] with the job's
   arguments after it, conf's --param values and submit directory, as
   jobrun_main does; elsewhere: for a job that runs elsewhere
   (jobparams_input_t).  NULL with err on any mistake. */
jobfile_t *jobrun_load (const hearth_conf_t *conf, int argc, char **argv,
                        int first, bool elsewhere, hearth_error_t *err);

#endif

/*  jobshuffle.h - a job file's keys for data between stages: a stage's
    "partitions" and "sort", its "output" directory, and the tasks that
    read a partitioned stage (one per partition).  jobfile.c calls these
    while it checks a file (so that a mistake is told with its place) and
    while it builds the job; docs/jobs.md "Partitioned stages" is the
    user's description. */
#ifndef HEARTH_JOBFILE_JOBSHUFFLE_H
#define HEARTH_JOBFILE_JOBSHUFFLE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "libhearth/hearth.h"

/* Check stage st (at where, e.g. "stages[2]") of stages: its own keys,
   and that each task reading a partitioned stage asks for as many copies
   as it has partitions.  Returns 0, or -1 with err. */
int jobshuffle_check_stage (const cJSON *stages, const cJSON *st,
                            const char *where, hearth_error_t *err);
/* The copies of task t that reads stage `in` (NULL: none) when it gives
   no count: one per partition of a partitioned stage, else one. */
uint64_t jobshuffle_default_count (const hearth_stage_t *in);
/* Apply st's keys to stage, and output_dir (NULL: none; hearth-submit's
   --output for the last stage) in place of its "output".  Returns 0, or
   -1 with err. */
int jobshuffle_build_stage (hearth_stage_t *stage, const cJSON *st,
                            const char *output_dir, hearth_error_t *err);

#endif

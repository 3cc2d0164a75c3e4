/*  jobcheck.h - the checks of a job file's parsed tree (DESIGN §6): every
    key known, every value of its type and range, stages named once and
    linked to earlier ones, one input per stage.
*/
#ifndef HEARTH_JOBFILE_JOBCHECK_H
#define HEARTH_JOBFILE_JOBCHECK_H

#include <cjson/cJSON.h>

#include "libcore/error.h"

/* 0, or -1 with err naming the place ("stages[1].tasks[0].fn: ..."). */
int jobcheck_job (const cJSON *root, hearth_error_t *err);

#endif

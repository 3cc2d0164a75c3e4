/*  jobcheck.h - the checks of a job file's parsed tree (DESIGN §6): every
    key known, every value of its type and range, stages named once and
    linked to earlier ones, one input per stage.
*/
#ifndef HEARTH_JOBFILE_JOBCHECK_H
#define HEARTH_JOBFILE_JOBCHECK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "libhearth/hearth.h"

/* 0, or -1 with err naming the place ("stages[1].tasks[0].fn: ..."). */
int jobcheck_job (const cJSON *root, hearth_error_t *err);

/* What jobcheck_job() checks of a job beside its stages (and its keys):
   "name", "lib", "files", "env"; the top of a file of several jobs
   (joblist.h).  0, or -1 with err. */
int jobcheck_top (const cJSON *root, hearth_error_t *err);

/* Every key of obj is one of keys (NULL-terminated), else -1 with err
   "WHERE: unknown key 'KEY'": a typo does not silently change a job. */
int jobcheck_known_keys (const cJSON *obj, const char *const *keys,
                         const char *where, hearth_error_t *err);

/* Whether name, in a stage's "after" or a task's "input", names a
   stage of another job: JOB/STAGE (a job's name holds no '/'), when no
   stage of its own job has that name. */
bool jobcheck_names_other_job (const char *name);
/* A stage's "persist" value v (NULL: absent) as a level into *level:
   true is HEARTH_PERSIST_MEMORY_AND_DISK, false none.  0, or -1 when v is
   none of true, false, "memory", "disk", "memory_and_disk". */
int jobcheck_persist_level (const cJSON *v, hearth_persist_t *level);

#endif

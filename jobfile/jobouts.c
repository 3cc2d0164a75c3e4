/*  jobouts.c - where a job file's stages write their results: the
    output directories checked before anything runs (jobfile.h).  In a
    file of several jobs, two jobs (two iterations of one) that write to
    one directory are refused: the second would find the first's output
    there and fail in the middle of the application.
*/
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobfile/jobfile.h"
#include "jobfile/jobfile_int.h"
#include "libhearth/shuffle.h"

const char *
jobfile_output_dir (const jobfile_t *self, size_t k, const cJSON *st,
                    const char *output_dir)
{
    /* the last of its array: O(1), for files of 10,000 stages */
    bool last = k + 1 == self->njobs && !st->next;
    return last && output_dir
               ? output_dir
               : cJSON_GetStringValue (
                   cJSON_GetObjectItemCaseSensitive (st, "output"));
}

/* Whether a stage of a job before k writes to dir: its place into
   place. */
static bool
s_output_before (const jobfile_t *self, size_t k, const char *dir,
                 const char *output_dir, char *place, size_t size)
{
    for (size_t j = 0; j < k; j++) {
        const cJSON *st;
        int pos = 0;
        cJSON_ArrayForEach (
            st, cJSON_GetObjectItemCaseSensitive (self->jobs[j].root, "stages"))
        {
            const char *other = jobfile_output_dir (self, j, st, output_dir);
            if (other && strcmp (other, dir) == 0) {
                char where[32];
                jobfile_where (self, j, where, sizeof where);
                snprintf (place, size, "%sstages[%d]%s", where, pos,
                          self->runs && self->runs[j].iter >= 0
                              ? ", an earlier iteration"
                              : "");
                return true;
            }
            pos++;
        }
    }
    return false;
}

/* Whether a stage of a job before k writes to dir. */
static bool
s_written_before (const jobfile_t *self, size_t k, const char *dir)
{
    char place[8];
    return s_output_before (self, k, dir, NULL, place, sizeof place);
}

bool
jobfile_reads_earlier (const jobfile_t *self, size_t k)
{
    const cJSON *st, *t;
    cJSON_ArrayForEach (
        st, cJSON_GetObjectItemCaseSensitive (self->jobs[k].root, "stages"))
        cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive (st, "tasks"))
    {
        const char *dir =
            cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (
                cJSON_GetObjectItemCaseSensitive (t, "foreach"), "parts"));
        if (dir && s_written_before (self, k, dir))
            return true;
    }
    return false;
}

/* The outputs of job k: none already there, none also an earlier
   job's. */
static int
s_check_job_outputs (const jobfile_t *self, size_t k, const char *output_dir,
                     bool may_resume, hearth_error_t *err)
{
    const cJSON *st;
    int pos = 0;
    cJSON_ArrayForEach (
        st, cJSON_GetObjectItemCaseSensitive (self->jobs[k].root, "stages"))
    {
        const char *dir = jobfile_output_dir (self, k, st, output_dir);
        const char *name = cJSON_GetStringValue (
            cJSON_GetObjectItemCaseSensitive (st, "name"));
        char where[32], place[96];
        jobfile_where (self, k, where, sizeof where);
        if (dir && !may_resume && shuffle_holds_output (dir))
            return hearth_errprintf (
                err,
                "stage %s: the output directory %s already holds an output "
                "(part files or _SUCCESS): remove it or choose another; "
                "nothing was run",
                name, dir);
        if (dir
            && s_output_before (self, k, dir, output_dir, place, sizeof place))
            return hearth_errprintf (
                err,
                "%sstages[%d] (stage %s): the output directory %s is also "
                "the output of %s: each job writes its own (a repeated "
                "job's with {iter} in it); nothing was run",
                where, pos, name, dir, place);
        pos++;
    }
    return 0;
}

int
jobfile_check_outputs (const jobfile_t *self, const char *output_dir,
                       bool may_resume, hearth_error_t *err)
{
    for (size_t k = 0; k < self->njobs; k++)
        if (s_check_job_outputs (self, k, output_dir, may_resume, err) < 0)
            return -1;
    return 0;
}

/*  jobcross.c - stages of a file's earlier jobs read by later ones; see
    jobcross.h. */
#include "config.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "jobfile/jobcheck.h"
#include "jobfile/jobcross.h"

/* The stage named name (n bytes) in a job's tree, or NULL. */
static const cJSON *
s_stage (const cJSON *root, const char *name, size_t n)
{
    const cJSON *st;
    cJSON_ArrayForEach (st, cJSON_GetObjectItemCaseSensitive (root, "stages"))
    {
        const char *s = cJSON_GetStringValue (
            cJSON_GetObjectItemCaseSensitive (st, "name"));
        if (s && strlen (s) == n && memcmp (s, name, n) == 0)
            return st;
    }
    return NULL;
}

/* The latest run before k of the job that JOB/STAGE name names, or -1. */
static long
s_run_of (const jobfile_t *self, size_t k, const char *name)
{
    const char *slash = strchr (name, '/');
    size_t n = (size_t) (slash - name);
    for (size_t j = k; self->runs && j-- > 0;)
        if (strlen (self->runs[j].name) == n
            && memcmp (self->runs[j].name, name, n) == 0)
            return (long) j;
    return -1;
}

/* Whether name, in job k's stage list, is a JOB/STAGE name: it has the
   form and no stage of job k is called so. */
static bool
s_is_cross (const jobfile_t *self, size_t k, const char *name)
{
    return jobcheck_names_other_job (name)
           && !s_stage (self->jobs[k].root, name, strlen (name));
}

/* Check one JOB/STAGE name at place where; task t reads it (NULL: an
   "after"). */
static int
s_check_name (const jobfile_t *self, size_t k, const char *name, const cJSON *t,
              const char *where, hearth_error_t *err)
{
    long j = s_run_of (self, k, name);
    const char *sname = strchr (name, '/') + 1;
    if (j < 0)
        return hearth_errprintf (err,
                                 "%s: \"%s\": no job \"%.*s\" runs before "
                                 "this one",
                                 where, name, (int) (sname - 1 - name), name);
    const cJSON *st = s_stage (self->jobs[j].root, sname, strlen (sname));
    hearth_persist_t level;
    if (!st)
        return hearth_errprintf (err, "%s: \"%s\": job %s has no stage \"%s\"",
                                 where, name, self->runs[j].name, sname);
    if (jobcheck_persist_level (
            cJSON_GetObjectItemCaseSensitive (st, "persist"), &level)
            < 0
        || level == HEARTH_PERSIST_NONE)
        return hearth_errprintf (err,
                                 "%s: \"%s\": a later job reads only a "
                                 "persisted stage: give stage %s of job %s "
                                 "\"persist\": true",
                                 where, name, sname, self->runs[j].name);
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive (st, "partitions");
    const cJSON *count =
        t ? cJSON_GetObjectItemCaseSensitive (t, "count") : NULL;
    const cJSON *each =
        t ? cJSON_GetObjectItemCaseSensitive (t, "foreach") : NULL;
    if (cJSON_IsNumber (parts)
        && (each
            || (cJSON_IsNumber (count)
                && count->valuedouble != parts->valuedouble)))
        return hearth_errprintf (err,
                                 "%s: its input \"%s\" has %.0f partitions, "
                                 "so it runs once per partition: leave "
                                 "\"count\" out or make it %.0f",
                                 where, name, parts->valuedouble,
                                 parts->valuedouble);
    return 0;
}

int
jobcross_check (const jobfile_t *self, size_t k, hearth_error_t *err)
{
    char where[256], place[32];
    jobfile_where (self, k, place, sizeof place);
    int s = 0;
    const cJSON *st;
    cJSON_ArrayForEach (
        st, cJSON_GetObjectItemCaseSensitive (self->jobs[k].root, "stages"))
    {
        const cJSON *a;
        snprintf (where, sizeof where, "%sstages[%d].after", place, s);
        cJSON_ArrayForEach (a, cJSON_GetObjectItemCaseSensitive (st, "after"))
        {
            if (s_is_cross (self, k, a->valuestring)
                && s_check_name (self, k, a->valuestring, NULL, where, err) < 0)
                return -1;
        }
        int i = 0;
        const cJSON *t;
        cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive (st, "tasks"))
        {
            const char *in = cJSON_GetStringValue (
                cJSON_GetObjectItemCaseSensitive (t, "input"));
            snprintf (where, sizeof where, "%sstages[%d].tasks[%d].input",
                      place, s, i++);
            if (in && s_is_cross (self, k, in)
                && s_check_name (self, k, in, t, where, err) < 0)
                return -1;
        }
        s++;
    }
    return 0;
}

hearth_stage_t *
jobcross_stage (const jobfile_t *self, size_t k, const char *name)
{
    if (!name || !s_is_cross (self, k, name))
        return NULL;
    long j = s_run_of (self, k, name);
    if (j < 0 || !self->jobs[j].built)
        return NULL;
    return hearth_job_find_stage (self->jobs[j].built, strchr (name, '/') + 1);
}

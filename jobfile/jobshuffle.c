/*  jobshuffle.c - a job file's keys for data between stages; see
    jobshuffle.h.

    {"name": "map", "partitions": 8, "sort": true,
     "tasks": [{"cmd": ["sh", "-c", "tr -s ' ' '\\n' < part{i}"],
                "count": 4}]},
    {"name": "reduce", "output": "counts",
     "tasks": [{"cmd": ["uniq", "-c"], "input": "map"}]}
*/
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "jobfile/jobshuffle.h"
#include "jobfile/jobstore.h"

/* The stage named name among stages, or NULL. */
static const cJSON *
s_stage_named (const cJSON *stages, const char *name)
{
    const cJSON *st;
    cJSON_ArrayForEach (st, stages)
    {
        const char *n = cJSON_GetStringValue (
            cJSON_GetObjectItemCaseSensitive (st, "name"));
        if (n && name && strcmp (n, name) == 0)
            return st;
    }
    return NULL;
}

static int
s_check_own_keys (const cJSON *st, const char *where, hearth_error_t *err)
{
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive (st, "partitions");
    const cJSON *sort = cJSON_GetObjectItemCaseSensitive (st, "sort");
    const cJSON *output = cJSON_GetObjectItemCaseSensitive (st, "output");
    double r = cJSON_IsNumber (parts) ? parts->valuedouble : 0;
    if (parts
        && (!cJSON_IsNumber (parts) || r < 1 || r > HEARTH_MAX_STAGE_PARTITIONS
            || r != (double) (uint32_t) r))
        return hearth_errprintf (err,
                                 "%s.partitions: expected a whole number "
                                 "from 1 to %d",
                                 where, HEARTH_MAX_STAGE_PARTITIONS);
    if (sort && !cJSON_IsBool (sort))
        return hearth_errprintf (err, "%s.sort: expected true or false", where);
    if (sort && !parts)
        return hearth_errprintf (err,
                                 "%s.sort: only with \"partitions\" (it "
                                 "sorts each partition by key)",
                                 where);
    if (output && (!cJSON_IsString (output) || !*output->valuestring))
        return hearth_errprintf (err, "%s.output: expected a directory", where);
    if (output && parts)
        return hearth_errprintf (err,
                                 "%s: \"output\" and \"partitions\" do not "
                                 "go together (a partitioned stage's output "
                                 "is read by the next stage)",
                                 where);
    return 0;
}

int
jobshuffle_check_stage (const cJSON *stages, const cJSON *st, const char *where,
                        hearth_error_t *err)
{
    if (s_check_own_keys (st, where, err) < 0)
        return -1;
    size_t i = 0;
    const cJSON *t;
    cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive (st, "tasks"))
    {
        const cJSON *in = s_stage_named (
            stages, cJSON_GetStringValue (
                        cJSON_GetObjectItemCaseSensitive (t, "input")));
        const cJSON *parts =
            cJSON_GetObjectItemCaseSensitive (in, "partitions");
        const cJSON *count = cJSON_GetObjectItemCaseSensitive (t, "count");
        const cJSON *each = cJSON_GetObjectItemCaseSensitive (t, "foreach");
        if (in && cJSON_GetObjectItemCaseSensitive (in, "output"))
            return hearth_errprintf (
                err,
                "%s.tasks[%zu].input: stage \"%s\" writes "
                "its results to files (\"output\"); "
                "read them from there",
                where, i,
                cJSON_GetStringValue (
                    cJSON_GetObjectItemCaseSensitive (in, "name")));
        if (cJSON_IsNumber (parts)
            && (each
                || (cJSON_IsNumber (count)
                    && count->valuedouble != parts->valuedouble)))
            return hearth_errprintf (
                err,
                "%s.tasks[%zu]: its input \"%s\" has %.0f partitions, so it "
                "runs once per partition (%s %.0f): leave \"count\" out or "
                "make it %.0f",
                where, i,
                cJSON_GetStringValue (
                    cJSON_GetObjectItemCaseSensitive (in, "name")),
                parts->valuedouble, each ? "foreach would make" : "count is",
                each ? 0.0 : count->valuedouble, parts->valuedouble);
        i += jobtask_span (t); /* a run of stored tasks: jobstore.h */
    }
    return 0;
}

uint64_t
jobshuffle_default_count (const hearth_stage_t *in)
{
    uint32_t r = in ? hearth_stage_partitions (in) : 0;
    return r ? r : 1;
}

int
jobshuffle_build_stage (hearth_stage_t *stage, const cJSON *st,
                        const char *output_dir, hearth_error_t *err)
{
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive (st, "partitions");
    const char *output =
        output_dir ? output_dir
                   : cJSON_GetStringValue (
                       cJSON_GetObjectItemCaseSensitive (st, "output"));
    bool sort = cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (st, "sort"));
    if (parts
        && hearth_stage_set_partitions (stage, (uint32_t) parts->valuedouble,
                                        sort ? HEARTH_PARTITION_SORT : 0)
               < 0)
        return hearth_errprintf (err, "stage %s: bad partitions",
                                 hearth_stage_name (stage));
    if (output && hearth_stage_set_output (stage, output) < 0)
        return hearth_errprintf (err, "stage %s: cannot set its output: %s",
                                 hearth_stage_name (stage), strerror (errno));
    return 0;
}

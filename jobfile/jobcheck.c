/*  jobcheck.c - a job file's tree checked before anything runs; see
    jobcheck.h.  Unknown keys are refused, so that a typo does not
    silently change a job.  A good task's place ("stages[0].tasks[12]") is
    never formatted: a task that fails is checked again with its place,
    for the message.
*/
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobfile/jobcheck.h"
#include "jobfile/jobparams.h"
#include "jobfile/jobshuffle.h"
#include "jobfile/jobstore.h"
#include "libcore/ctlchars.h"
#include "libcore/labels.h"
#include "libcore/resources.h"
#include "libcore/units.h"
#include "libhearth/ship.h"

/* Most stages, and most copies of one task. */
static const int s_max_stages = 10000;
static const double s_max_count = 4294967295.0;

static const char *const s_job_keys[] = {"name",   "lib", "files",     "stages",
                                         "params", "env", "broadcast", NULL};
static const char *const s_stage_keys[] = {
    "name", "after",  "tasks",     "pool",    "weight",  "env", "partitions",
    "sort", "output", "resources", "require", "persist", NULL};
static const char *const s_task_keys[] = {"cmd",     "fn",    "arg", "count",
                                          "foreach", "input", "env", "timeout",
                                          "prefer",  NULL};

int
jobcheck_known_keys (const cJSON *obj, const char *const *keys,
                     const char *where, hearth_error_t *err)
{
    const cJSON *item;
    cJSON_ArrayForEach (item, obj)
    {
        bool known = false;
        for (int i = 0; keys[i] && !known; i++)
            known = strcmp (item->string, keys[i]) == 0;
        if (!known)
            return hearth_errprintf (err, "%s: unknown key '%s'", where,
                                     item->string);
    }
    return 0;
}

/* v is an array of strings (non-empty if asked); the messages name it
   where + what (".cmd"), put together only for a message. */
static int
s_string_array (const cJSON *v, bool nonempty, const char *where,
                const char *what, hearth_error_t *err)
{
    if (!cJSON_IsArray (v) || (nonempty && !v->child))
        return hearth_errprintf (err, "%s%s: expected %s array of strings",
                                 where, what, nonempty ? "a non-empty" : "an");
    const cJSON *e;
    cJSON_ArrayForEach (e, v) if (!cJSON_IsString (e)) return hearth_errprintf (
        err, "%s%s: expected strings only", where, what);
    return 0;
}

/* Whether v is a place: a string of 1 to 300 bytes without control
   characters (a place travels to the master, hearth_stage_prefer). */
static bool
s_place (const cJSON *v)
{
    return cJSON_IsString (v) && *v->valuestring
           && strlen (v->valuestring) <= 300
           && !hearth_ctl_has (v->valuestring);
}

/* "prefer": a place, or an array of them. */
static int
s_check_prefer (const cJSON *t, const char *where, hearth_error_t *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (t, "prefer");
    if (!v || s_place (v))
        return 0;
    const cJSON *e;
    bool ok = cJSON_IsArray (v) && cJSON_GetArraySize (v) > 0;
    cJSON_ArrayForEach (e, v) ok = ok && s_place (e);
    return ok ? 0
              : hearth_errprintf (err,
                                  "%s.prefer: expected a place (a host, "
                                  "\"worker:ID\" or \"KEY=VALUE\", 1 to 300 "
                                  "bytes without control characters) or a "
                                  "non-empty array of them",
                                  where);
}

static int
s_check_timeout (const cJSON *t, const char *where, hearth_error_t *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (t, "timeout");
    int64_t ms;
    hearth_error_t perr;
    if (!v)
        return 0;
    if (cJSON_IsNumber (v) && v->valuedouble >= 0)
        return 0;
    if (cJSON_IsString (v)
        && hearth_parse_duration (v->valuestring, &ms, &perr) == 0)
        return 0;
    return hearth_errprintf (err,
                             "%s.timeout: expected a duration like \"5s\" "
                             "or milliseconds",
                             where);
}

/* "foreach": "args", {"lines": FILE} or {"parts": DIR}. */
static int
s_check_foreach (const cJSON *each, const char *where, hearth_error_t *err)
{
    const cJSON *lines = cJSON_GetObjectItemCaseSensitive (each, "lines");
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive (each, "parts");
    const cJSON *one = lines ? lines : parts;
    if (cJSON_IsString (each) && strcmp (each->valuestring, "args") == 0)
        return 0;
    if (cJSON_IsObject (each) && cJSON_GetArraySize (each) == 1
        && cJSON_IsString (one) && *one->valuestring)
        return 0;
    return hearth_errprintf (err,
                             "%s.foreach: expected \"args\", "
                             "{\"lines\": FILE} or {\"parts\": DIR}",
                             where);
}

static int
s_check_task (const cJSON *t, const char *where, hearth_error_t *err)
{
    if (jobtask_is_stored (t))
        return 0; /* a simple task, checked as it was read (jobstream.c) */
    if (!cJSON_IsObject (t))
        return hearth_errprintf (err, "%s: expected an object", where);
    if (jobcheck_known_keys (t, s_task_keys, where, err) < 0)
        return -1;
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive (t, "cmd");
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive (t, "fn");
    const cJSON *arg = cJSON_GetObjectItemCaseSensitive (t, "arg");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive (t, "count");
    const cJSON *each = cJSON_GetObjectItemCaseSensitive (t, "foreach");
    const cJSON *input = cJSON_GetObjectItemCaseSensitive (t, "input");
    if (!cmd == !fn)
        return hearth_errprintf (err,
                                 "%s: expected exactly one of \"cmd\" "
                                 "and \"fn\"",
                                 where);
    if (cmd && s_string_array (cmd, true, where, ".cmd", err) < 0)
        return -1;
    if (fn && (!cJSON_IsString (fn) || !*fn->valuestring))
        return hearth_errprintf (err, "%s.fn: expected a function name", where);
    if (arg && (!cJSON_IsString (arg) || cmd))
        return hearth_errprintf (err,
                                 "%s.arg: expected a string (and only "
                                 "with \"fn\")",
                                 where);
    if (count
        && (!cJSON_IsNumber (count) || count->valuedouble < 1
            || count->valuedouble > s_max_count
            || count->valuedouble != (double) (uint64_t) count->valuedouble))
        return hearth_errprintf (err,
                                 "%s.count: expected a whole number from "
                                 "1 to %.0f",
                                 where, s_max_count);
    if (each && s_check_foreach (each, where, err) < 0)
        return -1;
    if (each && count)
        return hearth_errprintf (err,
                                 "%s: \"count\" and \"foreach\" exclude "
                                 "each other",
                                 where);
    if (input && !cJSON_IsString (input))
        return hearth_errprintf (err, "%s.input: expected a stage name", where);
    const cJSON *env = cJSON_GetObjectItemCaseSensitive (t, "env");
    if (env) {
        char sub[256];
        snprintf (sub, sizeof sub, "%s.env", where);
        if (jobparams_check_env (env, sub, err) < 0)
            return -1;
    }
    if (s_check_prefer (t, where, err) < 0)
        return -1;
    return s_check_timeout (t, where, err);
}

static const cJSON *
s_find_stage (const cJSON *stages, const char *name, int before)
{
    int i = 0;
    const cJSON *st;
    cJSON_ArrayForEach (st, stages)
    {
        if (i++ >= before)
            break;
        const char *n = cJSON_GetStringValue (
            cJSON_GetObjectItemCaseSensitive (st, "name"));
        if (n && strcmp (n, name) == 0)
            return st;
    }
    return NULL;
}

bool
jobcheck_names_other_job (const char *name)
{
    const char *slash = name ? strchr (name, '/') : NULL;
    return slash && slash > name && slash[1];
}

int
jobcheck_persist_level (const cJSON *v, hearth_persist_t *level)
{
    static const char *const names[] = {"memory", "disk", "memory_and_disk"};
    *level = HEARTH_PERSIST_NONE;
    if (!v || cJSON_IsFalse (v))
        return 0;
    if (cJSON_IsTrue (v))
        return *level = HEARTH_PERSIST_MEMORY_AND_DISK, 0;
    for (int i = 0; cJSON_IsString (v) && i < 3; i++)
        if (strcmp (v->valuestring, names[i]) == 0)
            return *level = (hearth_persist_t) (HEARTH_PERSIST_MEMORY + i), 0;
    return -1;
}

/* A stage's "persist" (docs/jobs.md "Several jobs, iterations"): a
   level, and not with "output". */
static int
s_check_persist (const cJSON *st, const char *where, hearth_error_t *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (st, "persist");
    hearth_persist_t level;
    if (jobcheck_persist_level (v, &level) < 0)
        return hearth_errprintf (err,
                                 "%s.persist: expected true, false, "
                                 "\"memory\", \"disk\" or "
                                 "\"memory_and_disk\"",
                                 where);
    if (level != HEARTH_PERSIST_NONE
        && cJSON_GetObjectItemCaseSensitive (st, "output"))
        return hearth_errprintf (err,
                                 "%s.persist: a stage whose results go to "
                                 "files (\"output\") is not persisted: "
                                 "later jobs read the files",
                                 where);
    return 0;
}

/* "after" and "input" name earlier stages (or, as JOB/STAGE, a stage of
   an earlier job: jobfile.c checks those); one input per stage. */
static int
s_check_links (const cJSON *stages, const cJSON *st, int pos, const char *where,
               hearth_error_t *err)
{
    const cJSON *after = cJSON_GetObjectItemCaseSensitive (st, "after");
    if (after && s_string_array (after, false, where, ".after", err) < 0)
        return -1;
    const cJSON *name;
    cJSON_ArrayForEach (name, after) if (
        !s_find_stage (stages, name->valuestring, pos)
        && !jobcheck_names_other_job (
            name->valuestring)) return hearth_errprintf (err,
                                                         "%s.after: no stage "
                                                         "\"%s\" before this "
                                                         "one",
                                                         where,
                                                         name->valuestring);
    const char *input = NULL;
    const cJSON *t;
    cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive (st, "tasks"))
    {
        const char *in = cJSON_GetStringValue (
            cJSON_GetObjectItemCaseSensitive (t, "input"));
        if (!in)
            continue;
        if (!s_find_stage (stages, in, pos) && !jobcheck_names_other_job (in))
            return hearth_errprintf (err,
                                     "%s: input \"%s\" is not a stage "
                                     "before this one",
                                     where, in);
        if (input && strcmp (input, in) != 0)
            return hearth_errprintf (err,
                                     "%s: tasks take input from both "
                                     "\"%s\" and \"%s\"; use one stage "
                                     "per input",
                                     where, input, in);
        input = in;
    }
    return 0;
}

/* A stage's "resources": {"gpu": 1}, names and amounts as
   libcore/resources.h has them. */
static int
s_check_resources (const cJSON *res, const char *where, hearth_error_t *err)
{
    if (!res)
        return 0;
    hearth_error_t e;
    hearth_resource_amounts_t a = {0};
    if (!cJSON_IsObject (res))
        return hearth_errprintf (err,
                                 "%s.resources: expected an object of "
                                 "amounts, like {\"gpu\": 1}",
                                 where);
    int rc = hearth_resource_amounts_from_json (&a, res, &e);
    hearth_resource_amounts_clear (&a);
    return rc < 0 ? hearth_errprintf (err, "%s.resources: %s", where, e.text)
                  : 0;
}

static int
s_check_stage (const cJSON *stages, const cJSON *st, int pos,
               hearth_error_t *err)
{
    char where[128], sub[192];
    snprintf (where, sizeof where, "stages[%d]", pos);
    if (!cJSON_IsObject (st))
        return hearth_errprintf (err, "%s: expected an object", where);
    if (jobcheck_known_keys (st, s_stage_keys, where, err) < 0)
        return -1;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive (st, "name");
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive (st, "tasks");
    const cJSON *pool = cJSON_GetObjectItemCaseSensitive (st, "pool");
    const cJSON *weight = cJSON_GetObjectItemCaseSensitive (st, "weight");
    if (!cJSON_IsString (name) || !*name->valuestring)
        return hearth_errprintf (err, "%s.name: expected a non-empty string",
                                 where);
    snprintf (sub, sizeof sub, "%s.name", where);
    if (hearth_ctl_check (sub, name->valuestring, err) < 0)
        return -1;
    if (s_find_stage (stages, name->valuestring, pos))
        return hearth_errprintf (err, "%s.name: \"%s\" is used twice", where,
                                 name->valuestring);
    if (!cJSON_IsArray (tasks) || !tasks->child) /* not counted: 200,000 */
        return hearth_errprintf (err, "%s.tasks: expected a non-empty array",
                                 where);
    if (pool && !cJSON_IsString (pool))
        return hearth_errprintf (err, "%s.pool: expected a string", where);
    snprintf (sub, sizeof sub, "%s.pool", where);
    if (pool && hearth_ctl_check (sub, pool->valuestring, err) < 0)
        return -1;
    if (weight && (!cJSON_IsNumber (weight) || weight->valuedouble < 1))
        return hearth_errprintf (err, "%s.weight: expected a number >= 1",
                                 where);
    snprintf (sub, sizeof sub, "%s.env", where);
    if (jobparams_check_env (cJSON_GetObjectItemCaseSensitive (st, "env"), sub,
                             err)
        < 0)
        return -1;
    const cJSON *require = cJSON_GetObjectItemCaseSensitive (st, "require");
    hearth_error_t lerr;
    if (require && hearth_labels_check (require, &lerr) < 0)
        return hearth_errprintf (err,
                                 "%s.require: expected {\"KEY\": \"VALUE\"} "
                                 "of worker labels: %s",
                                 where, lerr.text);
    if (s_check_resources (cJSON_GetObjectItemCaseSensitive (st, "resources"),
                           where, err)
        < 0)
        return -1;
    if (s_check_persist (st, where, err) < 0)
        return -1;
    size_t i = 0;
    const cJSON *t;
    cJSON_ArrayForEach (t, tasks)
    {
        /* checked without its place first (no formatting for the 200,000
           good tasks of a big file), again with it for the message */
        if (s_check_task (t, "", err) < 0) {
            snprintf (sub, sizeof sub, "%s.tasks[%zu]", where, i);
            return s_check_task (t, sub, err);
        }
        i += jobtask_span (t); /* a run of stored tasks counts them all */
    }
    if (s_check_links (stages, st, pos, where, err) < 0)
        return -1;
    return jobshuffle_check_stage (stages, st, where, err);
}

/* The top-level "broadcast": {"NAME": "FILE", ...}, each NAME one a
   broadcast variable may have (ship.h). */
static int
s_check_broadcast (const cJSON *vars, hearth_error_t *err)
{
    const cJSON *v;
    hearth_error_t inner;
    if (!vars)
        return 0;
    if (!cJSON_IsObject (vars))
        return hearth_errprintf (err, "broadcast: expected an object of "
                                      "NAME: FILE");
    cJSON_ArrayForEach (v, vars)
    {
        if (ship_broadcast_name_ok (v->string, &inner) < 0)
            return hearth_errprintf (err, "broadcast: %s", inner.text);
        if (!cJSON_IsString (v) || !*v->valuestring)
            return hearth_errprintf (err, "broadcast %s: expected a file name",
                                     v->string);
    }
    return 0;
}

int
jobcheck_top (const cJSON *root, hearth_error_t *err)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive (root, "name");
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive (root, "lib");
    if (name && !cJSON_IsString (name))
        return hearth_errprintf (err, "name: expected a string");
    if (name && hearth_ctl_check ("name", name->valuestring, err) < 0)
        return -1;
    const cJSON *files = cJSON_GetObjectItemCaseSensitive (root, "files");
    if (lib && !cJSON_IsString (lib)
        && s_string_array (lib, false, "lib", "", err) < 0)
        return -1;
    if (files && !cJSON_IsString (files)
        && s_string_array (files, false, "files", "", err) < 0)
        return -1;
    if (s_check_broadcast (cJSON_GetObjectItemCaseSensitive (root, "broadcast"),
                           err)
        < 0)
        return -1;
    return jobparams_check_env (cJSON_GetObjectItemCaseSensitive (root, "env"),
                                "env", err);
}

/* The last stage's results are the job's (printed, or the part files of
   its "output"): partitioned, they would go to the workers for a reader
   that does not exist, unless it is persisted for a later job. */
static int
s_check_last (const cJSON *stages, hearth_error_t *err)
{
    int n = cJSON_GetArraySize (stages);
    const cJSON *last = cJSON_GetArrayItem (stages, n - 1);
    if (!cJSON_GetObjectItemCaseSensitive (last, "partitions")
        || cJSON_GetObjectItemCaseSensitive (last, "persist"))
        return 0;
    return hearth_errprintf (
        err,
        "stages[%d] (stage %s): the last stage has \"partitions\", which no "
        "stage reads: its results would be lost; remove \"partitions\" to "
        "have them printed (or give it \"output\"), add a stage reading "
        "it, or \"persist\" it for a later job",
        n - 1,
        cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (last, "name")));
}

int
jobcheck_job (const cJSON *root, hearth_error_t *err)
{
    const cJSON *stages = cJSON_GetObjectItemCaseSensitive (root, "stages");
    if (jobcheck_known_keys (root, s_job_keys, "the job", err) < 0
        || jobcheck_top (root, err) < 0)
        return -1;
    if (!cJSON_IsArray (stages) || cJSON_GetArraySize (stages) == 0)
        return hearth_errprintf (err, "stages: expected a non-empty array");
    if (cJSON_GetArraySize (stages) > s_max_stages)
        return hearth_errprintf (err, "stages: more than %d", s_max_stages);
    int pos = 0;
    const cJSON *st;
    cJSON_ArrayForEach (st, stages) if (s_check_stage (stages, st, pos++, err)
                                        < 0) return -1;
    return s_check_last (stages, err);
}

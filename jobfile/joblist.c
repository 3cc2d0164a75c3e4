/*  joblist.c - a job file of several jobs, and the iterations of a
    repeated job; see joblist.h.

    A job's name is taken as it is written (no placeholder is filled in
    it): it is the job's identity across its iterations, in messages and,
    later, in what other jobs name of it ("JOB/STAGE"), which is why it
    holds no '/'.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobcheck.h"
#include "jobfile/joblist.h"
#include "libcore/ctlchars.h"

/* Most jobs in a file. */
static const int s_max_jobs = 1000;

static const char *const s_file_keys[] = {"name",   "lib", "files",     "jobs",
                                          "params", "env", "broadcast", NULL};
static const char *const s_job_keys[] = {"name", "stages", "env", "repeat",
                                         NULL};

/* The placeholder this file fills. */
static const char s_iter[] = "{iter}";

bool
joblist_has_jobs (const cJSON *root)
{
    return cJSON_HasObjectItem (root, "jobs");
}

/* The name of jobs[pos]: non-empty, no control character, no '/', not
   the name of an earlier job. */
static int
s_check_name (const cJSON *jobs, const cJSON *job, int pos, hearth_error_t *err)
{
    char where[64];
    snprintf (where, sizeof where, "jobs[%d].name", pos);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive (job, "name");
    if (!cJSON_IsString (name) || !*name->valuestring)
        return hearth_errprintf (err, "%s: expected a non-empty string", where);
    if (hearth_ctl_check (where, name->valuestring, err) < 0)
        return -1;
    if (strchr (name->valuestring, '/'))
        return hearth_errprintf (err,
                                 "%s: \"%s\" holds a '/': a job's name may "
                                 "not (\"JOB/STAGE\" names a stage of a job)",
                                 where, name->valuestring);
    const cJSON *other;
    int i = 0;
    cJSON_ArrayForEach (other, jobs)
    {
        if (i++ >= pos)
            break;
        const char *n = cJSON_GetStringValue (
            cJSON_GetObjectItemCaseSensitive (other, "name"));
        if (n && strcmp (n, name->valuestring) == 0)
            return hearth_errprintf (err, "%s: \"%s\" is used twice", where, n);
    }
    return 0;
}

/* jobs[pos]'s "repeat" (absent: 0) into *repeat. */
static int
s_check_repeat (const cJSON *job, int pos, int *repeat, hearth_error_t *err)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive (job, "repeat");
    *repeat = 0;
    if (!r)
        return 0;
    if (!cJSON_IsNumber (r) || r->valuedouble < 1
        || r->valuedouble > JOBLIST_MAX_REPEAT
        || r->valuedouble != (double) (int) r->valuedouble)
        return hearth_errprintf (err,
                                 "jobs[%d].repeat: expected a whole number "
                                 "from 1 to %d",
                                 pos, JOBLIST_MAX_REPEAT);
    *repeat = (int) r->valuedouble;
    return 0;
}

static int
s_check_job (const cJSON *jobs, const cJSON *job, int pos, int *runs,
             hearth_error_t *err)
{
    char where[32];
    int repeat;
    snprintf (where, sizeof where, "jobs[%d]", pos);
    if (!cJSON_IsObject (job))
        return hearth_errprintf (err, "%s: expected an object", where);
    if (jobcheck_known_keys (job, s_job_keys, where, err) < 0
        || s_check_name (jobs, job, pos, err) < 0
        || s_check_repeat (job, pos, &repeat, err) < 0)
        return -1;
    if (!cJSON_HasObjectItem (job, "stages"))
        return hearth_errprintf (err, "%s.stages: expected a non-empty array",
                                 where);
    *runs += repeat ? repeat : 1;
    if (*runs > JOBLIST_MAX_RUNS)
        return hearth_errprintf (err,
                                 "%s: more than %d jobs in all, each "
                                 "iteration counted",
                                 where, JOBLIST_MAX_RUNS);
    return 0;
}

int
joblist_check (const cJSON *root, hearth_error_t *err)
{
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive (root, "jobs");
    if (cJSON_HasObjectItem (root, "stages"))
        return hearth_errprintf (err,
                                 "\"jobs\" and \"stages\" exclude each other: "
                                 "a file is one job (\"stages\") or a list of "
                                 "them (\"jobs\", each with its \"stages\")");
    if (jobcheck_known_keys (root, s_file_keys, "the file", err) < 0)
        return -1;
    if (cJSON_HasObjectItem (cJSON_GetObjectItemCaseSensitive (root, "params"),
                             "iter"))
        return hearth_errprintf (err, "params.iter: a name Hearth fills itself "
                                      "in a file of \"jobs\"");
    if (!cJSON_IsArray (jobs) || !jobs->child)
        return hearth_errprintf (err, "jobs: expected a non-empty array");
    if (cJSON_GetArraySize (jobs) > s_max_jobs)
        return hearth_errprintf (err, "jobs: more than %d", s_max_jobs);
    int pos = 0, runs = 0;
    const cJSON *job;
    cJSON_ArrayForEach (job, jobs)
    {
        if (s_check_job (jobs, job, pos++, &runs, err) < 0)
            return -1;
    }
    return 0;
}

/* ---- {iter} ------------------------------------------------------------- */

/* text with each {iter} made iter, read as jobparams.c reads
   placeholders ("{{" is a literal brace, kept for it to read; no other
   placeholder holds a brace): a new string in *out, or NULL there when
   text has none.  Never longer than text: iter has at most 4 digits.
   0, or -1 on no memory. */
static int
s_iter_text (const char *text, int iter, char **out)
{
    *out = NULL;
    if (!strstr (text, s_iter))
        return 0;
    char *buf = malloc (strlen (text) + 1), *o = buf;
    if (!buf)
        return -1;
    bool changed = false;
    for (const char *p = text; *p;) {
        if (p[0] == '{' && p[1] == '{') {
            *o++ = *p++;
            *o++ = *p++;
        }
        else if (strncmp (p, s_iter, sizeof s_iter - 1) == 0) {
            o += sprintf (o, "%d", iter);
            p += sizeof s_iter - 1;
            changed = true;
        }
        else
            *o++ = *p++;
    }
    *o = '\0';
    if (changed)
        *out = buf;
    else
        free (buf);
    return 0;
}

/* The run of stored tasks node stands for, with {iter} filled: written
   again at the store's end when a string changes (jobstore.h). */
static int
s_iter_stored (cJSON *node, jobstore_t *store, int iter)
{
    size_t n = jobtask_span (node), at = jobtask_first (node);
    bool any = false;
    for (size_t k = 0; k < n && !any; k++) {
        jobtask_view_t t = jobstore_view (store, &at);
        const char *s = t.first;
        for (size_t i = 0; i < t.n && !any; i++, s = jobtask_next (s))
            any = strstr (s, s_iter) != NULL;
    }
    if (!any)
        return 0;
    size_t start = jobstore_end (store);
    at = jobtask_first (node);
    for (size_t k = 0; k < n; k++) {
        size_t rec = at;
        jobtask_view_t t = jobstore_view (store, &at);
        char **strs = calloc (t.n, sizeof *strs);
        const char *s = t.first;
        int rc = strs ? 0 : -1;
        bool changed = false;
        for (size_t i = 0; rc == 0 && i < t.n; i++, s = jobtask_next (s)) {
            rc = s_iter_text (s, iter, &strs[i]);
            if (rc == 0 && strs[i])
                changed = true;
            else if (rc == 0 && !(strs[i] = strdup (s)))
                rc = -1;
        }
        if (rc == 0)
            rc = changed ? jobstore_put (store, t.kind,
                                         (const char *const *) strs, t.n)
                         : jobstore_copy (store, rec);
        for (size_t i = 0; strs && i < t.n; i++)
            free (strs[i]);
        free (strs);
        if (rc < 0)
            return -1;
    }
    jobstore_move (node, start);
    return 0;
}

/* Every string under node, and its stored tasks, with {iter} filled. */
static int
s_iter_tree (cJSON *node, jobstore_t *store, int iter)
{
    for (cJSON *c = node->child; c; c = c->next) {
        if (jobtask_is_stored (c)) {
            if (jobtask_has_braces (c) && s_iter_stored (c, store, iter) < 0)
                return -1;
            continue;
        }
        if (c->child && s_iter_tree (c, store, iter) < 0)
            return -1;
        char *filled;
        if (!cJSON_IsString (c))
            continue;
        if (s_iter_text (c->valuestring, iter, &filled) < 0)
            return -1;
        bool ok = !filled || cJSON_SetValuestring (c, filled);
        free (filled);
        if (!ok)
            return -1;
    }
    return 0;
}

/* ---- runs --------------------------------------------------------------- */

/* Add a copy of v (NULL: nothing) to to, under key. */
static int
s_add_copy (cJSON *to, const char *key, const cJSON *v)
{
    if (!v)
        return 0;
    cJSON *copy = cJSON_Duplicate (v, true);
    if (!copy || !cJSON_AddItemToObject (to, key, copy)) {
        cJSON_Delete (copy);
        return -1;
    }
    return 0;
}

/* The tree of one run of job (iter -1: not repeated), or NULL. */
static cJSON *
s_run_tree (const cJSON *params, const cJSON *job, jobstore_t *store, int iter)
{
    cJSON *tree = cJSON_CreateObject ();
    if (!tree || s_add_copy (tree, "params", params) < 0
        || s_add_copy (tree, "env",
                       cJSON_GetObjectItemCaseSensitive (job, "env"))
               < 0
        || s_add_copy (tree, "stages",
                       cJSON_GetObjectItemCaseSensitive (job, "stages"))
               < 0
        || (iter >= 0 && s_iter_tree (tree, store, iter) < 0)) {
        cJSON_Delete (tree);
        return NULL;
    }
    return tree;
}

int
joblist_expand (const cJSON *jobs, const cJSON *params, jobstore_t *store,
                joblist_run_t **runs, size_t *n, hearth_error_t *err)
{
    const cJSON *job;
    size_t total = 0;
    cJSON_ArrayForEach (job, jobs)
    {
        int r = (int) cJSON_GetNumberValue (
            cJSON_GetObjectItemCaseSensitive (job, "repeat"));
        total += r > 0 ? (size_t) r : 1;
    }
    *n = 0;
    if (!(*runs = calloc (total, sizeof **runs)))
        return hearth_errprintf (err, "out of memory");
    int pos = 0;
    cJSON_ArrayForEach (job, jobs)
    {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive (job, "repeat");
        int repeat = r ? (int) r->valuedouble : 0;
        for (int it = 0; it < (repeat ? repeat : 1); it++) {
            joblist_run_t *run = &(*runs)[(*n)++];
            run->job = pos;
            run->name = strdup (cJSON_GetStringValue (
                cJSON_GetObjectItemCaseSensitive (job, "name")));
            run->iter = repeat ? it : -1;
            run->repeat = repeat;
            if (!run->name
                || !(run->root = s_run_tree (params, job, store, run->iter))) {
                joblist_runs_destroy (runs, *n);
                *n = 0;
                return hearth_errprintf (err, "out of memory");
            }
        }
        pos++;
    }
    return 0;
}

int
joblist_finish (joblist_run_t *run, const cJSON *file_env, hearth_error_t *err)
{
    const cJSON *own = cJSON_GetObjectItemCaseSensitive (run->root, "env");
    cJSON *env = file_env ? cJSON_Duplicate (file_env, true) : NULL;
    if (!env && own)
        env = cJSON_CreateObject ();
    bool ok = file_env || own ? env != NULL : true;
    const cJSON *v;
    cJSON_ArrayForEach (v, own) if (ok) /* the job's wins */
    {
        cJSON *copy = cJSON_Duplicate (v, true);
        cJSON_DeleteItemFromObjectCaseSensitive (env, v->string);
        ok = copy && cJSON_AddItemToObject (env, v->string, copy);
        if (!ok)
            cJSON_Delete (copy);
    }
    if (ok && env) {
        cJSON_DeleteItemFromObjectCaseSensitive (run->root, "env");
        ok = cJSON_AddItemToObject (run->root, "env", env);
    }
    if (!ok)
        cJSON_Delete (env);
    if (!ok || !cJSON_AddStringToObject (run->root, "name", run->name))
        return hearth_errprintf (err, "out of memory");
    return 0;
}

void
joblist_runs_destroy (joblist_run_t **runs_p, size_t n)
{
    if (!runs_p || !*runs_p)
        return;
    for (size_t i = 0; i < n; i++) {
        cJSON_Delete ((*runs_p)[i].root);
        free ((*runs_p)[i].name);
    }
    free (*runs_p);
    *runs_p = NULL;
}

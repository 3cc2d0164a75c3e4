/*  jobfile.c - reading JSON job files; see jobfile.h.

    {"name": "pi", "lib": "libpi.so", "files": ["data.txt"],
     "stages": [{"name": "sample",
                 "tasks": [{"fn": "pi_sample", "arg": "{i}", "count": 100}]},
                {"name": "sum", "after": ["sample"],
                 "tasks": [{"fn": "pi_sum", "input": "sample"}]}]}

    A task is {"cmd": [argv...]} or {"fn": NAME, "arg": TEXT}, with
    optional "count" (copies, "{i}" = 0...count-1), "foreach": "args" (one
    copy per job argument, "{item}" = the argument) or {"lines": FILE}
    (one per line), "input" (a parent stage whose results are its input),
    "env" {NAME: VALUE}, "timeout" ("5s" or milliseconds), "prefer" (a
    place or an array of them: where the tasks would rather run,
    hearth_stage_prefer).  A stage has
    "name", "tasks", optional "after" (stage names), "pool" and "weight"
    (FAIR scheduling), "env", "resources" {NAME: AMOUNT} (custom resources
    each task needs, docs/resources.md).  The job may have "params" and
    "env".  What fills the strings ({argN}, params, {submit_dir}, {item})
    and the env merge are jobparams.c's; the checks of the tree
    jobcheck.c's.  The file is read as a stream (jobstream.h): simple
    tasks stay out of the tree, in the store (jobstore.h), each run of
    them one placeholder node of its stage's "tasks".

    A file of several jobs ("jobs", joblist.h) is a list of runs, each a
    tree shaped as a file of one job; a file of one job is one run, its
    own tree.  Every walk over stages below is over one run's.
*/
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jobfile/jobcheck.h"
#include "jobfile/jobcross.h"
#include "jobfile/jobfile.h"
#include "jobfile/jobfile_int.h"
#include "jobfile/joblist.h"
#include "jobfile/jobnames.h"
#include "jobfile/jobparams.h"
#include "jobfile/jobshuffle.h"
#include "jobfile/jobstream.h"
#include "libcore/resources.h"
#include "libcore/units.h"
#include "libhearth/internal.h"
#include "libhearth/tasklimits.h"

/* Largest job file read. */
static const size_t s_max_file_bytes = 64 * 1024 * 1024;
static int s_check_limits (const jobfile_t *self, const jobfile_job_t *job,
                           const char *where, hearth_error_t *err);

/* ---- reading ------------------------------------------------------------ */

/* ---- loading ------------------------------------------------------------ */

/* FILE of a "foreach": {"lines": FILE} task, or the part files of DIR
   of a "foreach": {"parts": DIR} one, beside the job file when
   relative. */
static int
s_read_task_lines (const jobfile_t *self, const cJSON *each, jobitems_t *items,
                   hearth_error_t *err)
{
    const char *dir =
        cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (each, "parts"));
    const char *file =
        dir ? dir
            : cJSON_GetStringValue (
                cJSON_GetObjectItemCaseSensitive (each, "lines"));
    const char *slash = strrchr (self->path, '/');
    char *path = NULL;
    if (file[0] == '/' || !slash)
        path = strdup (file);
    else if (asprintf (&path, "%.*s/%s", (int) (slash - self->path), self->path,
                       file)
             < 0)
        path = NULL;
    if (!path)
        return hearth_errprintf (err, "out of memory");
    if (self->elsewhere && access (path, R_OK) != 0) {
        memset (items, 0, sizeof *items); /* the driver's, there */
        free (path);
        return 0;
    }
    int rc = dir ? jobitems_parts (items, path, err)
                 : jobitems_read (items, path, err);
    free (path);
    return rc;
}

/* Read the lines of every "foreach": {"lines"} task, in the file's
   order, which jobfile_build() follows. */
static int
s_read_lines (const jobfile_t *self, jobfile_job_t *job, hearth_error_t *err)
{
    const cJSON *st, *t;
    cJSON_ArrayForEach (st,
                        cJSON_GetObjectItemCaseSensitive (job->root, "stages"))
        cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive (st, "tasks"))
    {
        const cJSON *each = cJSON_GetObjectItemCaseSensitive (t, "foreach");
        if (!cJSON_IsObject (each))
            continue;
        jobitems_t *more =
            realloc (job->lines, (job->nlines + 1) * sizeof *more);
        if (!more)
            return hearth_errprintf (err, "out of memory");
        job->lines = more;
        if (s_read_task_lines (self, each, &job->lines[job->nlines], err) < 0)
            return -1;
        job->nlines++;
    }
    return 0;
}

/* The "foreach" lines and parts of job k read, and its tasks held to the
   limits of a task (messages with the file's name). */
static int
s_read_items (jobfile_t *self, size_t k, hearth_error_t *err)
{
    char where[32];
    hearth_error_t inner;
    jobfile_where (self, k, where, sizeof where);
    if (s_read_lines (self, &self->jobs[k], err) < 0)
        return -1;
    if (s_check_limits (self, &self->jobs[k], where, &inner) < 0)
        return hearth_errprintf (err, "%s: %s", self->path, inner.text);
    return 0;
}

/* The file's "jobs" turned into runs (joblist.h), each filled and
   checked as a file of one job is; the file's own strings are filled
   already.  inner: the message without the file's name. */
static int
s_load_runs (jobfile_t *self, cJSON *jobs, const jobparams_input_t *in,
             hearth_error_t *inner)
{
    if (joblist_expand (jobs,
                        cJSON_GetObjectItemCaseSensitive (self->root, "params"),
                        self->store, &self->runs, &self->njobs, inner)
        < 0)
        return -1;
    if (!(self->jobs = calloc (self->njobs, sizeof *self->jobs)))
        return hearth_errprintf (inner, "out of memory");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive (self->root, "env");
    for (size_t k = 0; k < self->njobs; k++) {
        hearth_error_t e;
        char where[32];
        jobfile_where (self, k, where, sizeof where);
        self->jobs[k].root = self->runs[k].root;
        if (jobparams_apply (self->runs[k].root, self->store, in, &e) < 0
            || joblist_finish (&self->runs[k], env, &e) < 0
            || jobcheck_job (self->runs[k].root, &e) < 0)
            return hearth_errprintf (inner, "%s%s", where, e.text);
    }
    return 0;
}

/* The file's strings filled and checked: a file of one job, or the top
   of a file of several and then its runs. */
static int
s_load_tree (jobfile_t *self, const jobparams_input_t *in,
             hearth_error_t *inner)
{
    if (!joblist_has_jobs (self->root)) {
        if (jobparams_apply (self->root, self->store, in, inner) < 0
            || jobcheck_job (self->root, inner) < 0)
            return -1;
        if (!(self->jobs = calloc (1, sizeof *self->jobs)))
            return hearth_errprintf (inner, "out of memory");
        self->jobs[0].root = self->root;
        self->njobs = 1;
        return 0;
    }
    if (joblist_check (self->root, inner) < 0)
        return -1;
    cJSON *jobs = cJSON_DetachItemFromObjectCaseSensitive (self->root, "jobs");
    int rc = jobparams_apply (self->root, self->store, in, inner) < 0
                     || jobcheck_top (self->root, inner) < 0
                 ? -1
                 : s_load_runs (self, jobs, in, inner);
    cJSON_Delete (jobs);
    return rc;
}

jobfile_t *
jobfile_load (const char *path, const jobparams_input_t *in,
              hearth_error_t *err)
{
    jobfile_t *self = calloc (1, sizeof *self);
    FILE *f = self ? fopen (path, "rb") : NULL;
    if (!self)
        hearth_errprintf (err, "out of memory");
    else if (!f)
        hearth_errprintf (err, "cannot read %s: %s", path, strerror (errno));
    int rc = f ? jobstream_read (f, path, 0, s_max_file_bytes, &self->root,
                                 &self->store, err)
               : -1;
    if (f)
        fclose (f);
    if (rc < 0)
        goto error;
    hearth_error_t inner;
    if (s_load_tree (self, in, &inner) < 0) {
        hearth_errprintf (err, "%s: %s", path, inner.text);
        goto error;
    }
    for (size_t k = 0; k < self->njobs; k++)
        if (jobcross_check (self, k, &inner) < 0) {
            hearth_errprintf (err, "%s: %s", path, inner.text);
            goto error;
        }
    self->args = in->args;
    self->nargs = in->nargs;
    self->elsewhere = in->elsewhere;
    if (!(self->path = strdup (path))) {
        hearth_errprintf (err, "out of memory");
        goto error;
    }
    for (size_t k = 0; k < self->njobs; k++) {
        if ((self->jobs[k].later = jobfile_reads_earlier (self, k)))
            continue; /* jobfile_build() reads and checks it */
        if (s_read_items (self, k, err) < 0)
            goto error;
    }
    return self;
error:
    jobfile_destroy (&self);
    return NULL;
}

void
jobfile_destroy (jobfile_t **self_p)
{
    jobfile_t *self = *self_p;
    if (!self)
        return;
    cJSON_Delete (self->root);
    jobstore_destroy (&self->store);
    free (self->path);
    for (size_t k = 0; self->jobs && k < self->njobs; k++) {
        for (size_t i = 0; i < self->jobs[k].nlines; i++)
            jobitems_free (&self->jobs[k].lines[i]);
        free (self->jobs[k].lines);
    }
    free (self->jobs);
    joblist_runs_destroy (&self->runs, self->njobs);
    free (self);
    *self_p = NULL;
}

const char *
jobfile_name (const jobfile_t *self)
{
    const char *name = cJSON_GetStringValue (
        cJSON_GetObjectItemCaseSensitive (self->root, "name"));
    return name ? name : "job";
}

int
jobfile_names (const jobfile_t *self, const char *key, const char *const *given,
               size_t ngiven, char ***paths, size_t *n, hearth_error_t *err)
{
    return jobnames_resolve (self->root, key, self->path, given, ngiven, paths,
                             n, err);
}

int
jobfile_broadcast (const jobfile_t *self, char ***entries, size_t *n,
                   hearth_error_t *err)
{
    return jobnames_broadcast (self->root, self->path, entries, n, err);
}

size_t
jobfile_count (const jobfile_t *self)
{
    return self->njobs;
}

const char *
jobfile_job_name (const jobfile_t *self, size_t k)
{
    return self->runs ? self->runs[k].name : jobfile_name (self);
}

void
jobfile_job_label (const jobfile_t *self, size_t k, char *buf, size_t size)
{
    const joblist_run_t *r = self->runs ? &self->runs[k] : NULL;
    if (!r)
        snprintf (buf, size, "job %s", jobfile_name (self));
    else if (r->iter < 0)
        snprintf (buf, size, "job %s (jobs[%d])", r->name, r->job);
    else
        snprintf (buf, size, "job %s (jobs[%d], iteration {iter}=%d of 0...%d)",
                  r->name, r->job, r->iter, r->repeat - 1);
}

const char *
jobfile_output_stage (const jobfile_t *self, size_t k)
{
    const cJSON *stages =
        cJSON_GetObjectItemCaseSensitive (self->jobs[k].root, "stages");
    const cJSON *last =
        cJSON_GetArrayItem (stages, cJSON_GetArraySize (stages) - 1);
    return cJSON_GetStringValue (
        cJSON_GetObjectItemCaseSensitive (last, "name"));
}

/* ---- building ----------------------------------------------------------- */

/* What a task is built from beyond itself. */
typedef struct {
    const jobfile_job_t *job; /* the job (its "foreach" lines) */
    const cJSON *job_env;     /* the job's "env", or NULL */
    const cJSON *stage_env;   /* its stage's "env", or NULL */
    const char *item;         /* a foreach task's item, or NULL */
    const char *host;         /* where that item lies (a part file's host),
                                 or NULL */
    uint64_t count;           /* copies of a task without "count": 1, or the
                                 partitions of the stage it reads */
} s_scope_t;

/* Where a stage's tasks go: into the job being built, or (stage NULL)
   through the limits of a task only (tasklimits.h), when the file is
   loaded: so that a task over one stops the job before anything runs,
   in every deploy mode (cluster mode's hearth-submit loads the file it
   ships).  The walk over the file's tasks is the same. */
typedef struct {
    hearth_stage_t *stage; /* building: the stage; checking: NULL */
    size_t place;          /* checking: the task's place in "tasks" */
    uint64_t next;         /* checking: the stage's index of the next task */
    bool broken;           /* checking: over holds the first task over */
    tasklimit_t over;      /* what it broke (index: the stage's) */
} s_sink_t;

/* A limit broken, or not: -1 (errno E2BIG) or 0, and n tasks counted. */
static int
s_sink_checked (s_sink_t *k, int rc, uint64_t n)
{
    if (rc < 0) {
        k->broken = true;
        k->over.index += k->next;
        return errno = E2BIG, -1;
    }
    k->next += n;
    return 0;
}

static int
s_sink_commands (s_sink_t *k, const char *const *argv, const char *const *env,
                 uint64_t n)
{
    if (k->stage)
        return hearth_stage_add_commands (k->stage, argv, env, n);
    return s_sink_checked (k, tasklimits_command (argv, env, n, &k->over), n);
}

/* fn and arg lie in the job's lent strings (lent) or are copied. */
static int
s_sink_functions (s_sink_t *k, const char *fn, const char *arg, uint64_t n,
                  bool lent)
{
    if (k->stage && lent)
        return stage_add_functions_lent (k->stage, fn, arg, n);
    if (k->stage)
        return hearth_stage_add_functions (k->stage, fn, arg, n);
    return s_sink_checked (k, tasklimits_function (fn, arg, n, &k->over), n);
}

/* text of a task, finished for the scope's item (jobparams.h): a new
   string in *copy, which the caller frees, or text itself without an
   item (the library copies what it keeps). */
static const char *
s_text (const s_scope_t *sc, const char *text, char **copy)
{
    *copy = sc->item ? jobparams_finish (text, sc->item) : NULL;
    return sc->item ? *copy : text;
}

static int
s_add_function (s_sink_t *sink, const cJSON *t, const s_scope_t *sc, uint64_t n)
{
    const char *arg = NULL, *fn = NULL;
    char *arg_copy = NULL, *fn_copy = NULL;
    for (const cJSON *c = t->child; c; c = c->next) /* one pass */
        if (strcmp (c->string, "fn") == 0)
            fn = s_text (sc, c->valuestring, &fn_copy);
        else if (strcmp (c->string, "arg") == 0)
            arg = s_text (sc, c->valuestring, &arg_copy);
    if (!arg && !sc->item)
        arg = "";
    else if (!arg)
        arg = s_text (sc, "", &arg_copy);
    int rc = fn && arg ? s_sink_functions (sink, fn, arg, n, false) : -1;
    free (fn_copy);
    free (arg_copy);
    return rc;
}

/* The places the tasks just added prefer ("prefer": a string or an
   array of them, {item} filled).  0 or -1. */
static int
s_add_prefer (s_sink_t *sink, const cJSON *t, const s_scope_t *sc)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (t, "prefer");
    if (!sink->stage)
        return 0;
    /* a part file prefers the host it was committed on */
    if (sc->host && hearth_stage_prefer (sink->stage, sc->host) < 0)
        return -1;
    if (!v)
        return 0;
    const cJSON *one = cJSON_IsString (v) ? v : v->child;
    for (; one; one = cJSON_IsString (v) ? NULL : one->next) {
        char *copy;
        const char *text = s_text (sc, one->valuestring, &copy);
        int rc = text ? hearth_stage_prefer (sink->stage, text) : -1;
        free (copy);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int
s_add_task (s_sink_t *sink, const cJSON *t, const s_scope_t *sc)
{
    const cJSON *count = cJSON_GetObjectItemCaseSensitive (t, "count");
    const cJSON *timeout = cJSON_GetObjectItemCaseSensitive (t, "timeout");
    uint64_t n = count ? (uint64_t) count->valuedouble : sc->count;
    int64_t ms = 0;
    if (cJSON_IsNumber (timeout))
        ms = (int64_t) timeout->valuedouble;
    else if (cJSON_IsString (timeout))
        hearth_parse_duration (timeout->valuestring, &ms, NULL);
    if (sink->stage)
        hearth_stage_set_timeout (sink->stage, ms);
    if (cJSON_HasObjectItem (t, "fn"))
        return s_add_function (sink, t, sc, n) < 0 ? -1
                                                   : s_add_prefer (sink, t, sc);
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive (t, "cmd");
    int argc = cJSON_GetArraySize (cmd), i = 0;
    char **argv = calloc (argc + 1, sizeof *argv);
    char **envv = NULL;
    const cJSON *a;
    int rc = argv ? 0 : -1;
    char *copy;
    cJSON_ArrayForEach (a, cmd) if (rc == 0) /* argv owns its strings */
    {
        const char *text = s_text (sc, a->valuestring, &copy);
        if (!(argv[i++] = copy ? copy : strdup (text)))
            rc = -1;
    }
    if (rc == 0)
        rc = jobparams_env (sc->job_env, sc->stage_env,
                            cJSON_GetObjectItemCaseSensitive (t, "env"),
                            sc->item, &envv);
    if (rc == 0)
        rc = s_sink_commands (sink, (const char *const *) argv,
                              (const char *const *) envv, n);
    jobparams_env_destroy (&envv);
    jobparams_env_destroy (&argv);
    return rc < 0 ? -1 : s_add_prefer (sink, t, sc);
}

/* One task the store holds (jobstore.h): fn and arg, or a command with
   envv, the job's and the stage's env (NULL: none). */
static int
s_add_stored_one (s_sink_t *sink, const jobtask_view_t *v,
                  const char *const *envv, uint64_t n)
{
    if (v->kind != JOBTASK_CMD) {
        /* without "arg", the empty string that ends fn */
        const char *after_fn = jobtask_next (v->first);
        const char *arg = v->kind == JOBTASK_FN_ARG ? after_fn : after_fn - 1;
        return s_sink_functions (sink, v->first, arg, n, true);
    }
    const char **argv = malloc ((v->n + 1) * sizeof *argv);
    if (!argv)
        return -1;
    const char *a = v->first;
    for (size_t i = 0; i < v->n; i++, a = jobtask_next (a))
        argv[i] = a;
    argv[v->n] = NULL;
    int rc = s_sink_commands (sink, argv, envv, n);
    free (argv);
    return rc;
}

/* The run of stored tasks placeholder t stands for.  Their env is the
   same for all (stored tasks have none of their own): made once. */
static int
s_add_stored (const jobfile_t *self, s_sink_t *sink, const cJSON *t,
              const s_scope_t *sc)
{
    size_t at = jobtask_first (t), place = sink->place;
    char **envv = NULL;
    if (jobparams_env (sc->job_env, sc->stage_env, NULL, NULL, &envv) < 0)
        return -1;
    if (sink->stage) /* as a task without "timeout" */
        hearth_stage_set_timeout (sink->stage, 0);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < jobtask_span (t); k++) {
        jobtask_view_t v = jobstore_view (self->store, &at);
        sink->place = place + k;
        rc = s_add_stored_one (sink, &v, (const char *const *) envv, sc->count);
    }
    jobparams_env_destroy (&envv);
    return rc;
}

/* A task, or one per item of a foreach task; *lines counts the lines
   files used so far. */
static int
s_add_tasks (const jobfile_t *self, s_sink_t *sink, const cJSON *t,
             s_scope_t *sc, size_t *lines)
{
    if (jobtask_is_stored (t))
        return s_add_stored (self, sink, t, sc);
    const cJSON *each = cJSON_GetObjectItemCaseSensitive (t, "foreach");
    if (!each)
        return s_add_task (sink, t, sc);
    char **items = self->args, **hosts = NULL;
    size_t n = self->nargs;
    if (cJSON_IsObject (each)) {
        items = sc->job->lines[*lines].lines;
        hosts = sc->job->lines[*lines].hosts;
        n = sc->job->lines[(*lines)++].n;
    }
    for (size_t i = 0; i < n; i++) {
        sc->item = items[i];
        sc->host = hosts ? hosts[i] : NULL;
        if (s_add_task (sink, t, sc) < 0)
            return -1;
    }
    sc->item = sc->host = NULL;
    return 0;
}

/* The tasks of a task that reads stage input and has no "count": the
   partitions of input (checked: a stage before it), else 1, as
   jobshuffle_default_count says of the stage built. */
static uint64_t
s_input_partitions (const cJSON *root, const char *input)
{
    const cJSON *st;
    cJSON_ArrayForEach (st, cJSON_GetObjectItemCaseSensitive (root, "stages"))
    {
        const char *name = cJSON_GetStringValue (
            cJSON_GetObjectItemCaseSensitive (st, "name"));
        const cJSON *r = cJSON_GetObjectItemCaseSensitive (st, "partitions");
        if (input && name && strcmp (name, input) == 0)
            return cJSON_IsNumber (r) && r->valuedouble >= 1
                       ? (uint64_t) r->valuedouble
                       : 1;
    }
    return 1;
}

/* The scope of a stage's tasks (count: set per task). */
static s_scope_t
s_scope (const jobfile_job_t *job, const cJSON *st)
{
    return (s_scope_t){
        .job = job,
        .job_env = cJSON_GetObjectItemCaseSensitive (job->root, "env"),
        .stage_env = cJSON_GetObjectItemCaseSensitive (st, "env")};
}

/* The tasks of stages[pos] of job through the limits of a task
   (s_sink_t); where: the job's place ("jobs[1]." or ""). */
static int
s_check_stage (const jobfile_t *self, const jobfile_job_t *job, const cJSON *st,
               int pos, const char *where, size_t *lines, hearth_error_t *err)
{
    s_scope_t sc = s_scope (job, st);
    s_sink_t sink = {.stage = NULL};
    size_t place = 0;
    const cJSON *t;
    cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive (st, "tasks"))
    {
        sc.count = s_input_partitions (
            job->root, cJSON_GetStringValue (
                           cJSON_GetObjectItemCaseSensitive (t, "input")));
        sink.place = place;
        if (s_add_tasks (self, &sink, t, &sc, lines) < 0 && !sink.broken)
            return hearth_errprintf (err, "out of memory");
        if (sink.broken)
            return hearth_errprintf (
                err, "stage \"%s\", task %llu (%sstages[%d].tasks[%zu]): %s",
                cJSON_GetStringValue (
                    cJSON_GetObjectItemCaseSensitive (st, "name")),
                (unsigned long long) sink.over.index, where, pos, sink.place,
                sink.over.text);
        place += jobtask_span (t);
    }
    return 0;
}

/* Every task of the file through the limits of a task, before anything
   runs. */
static int
s_check_limits (const jobfile_t *self, const jobfile_job_t *job,
                const char *where, hearth_error_t *err)
{
    size_t lines = 0;
    int pos = 0;
    const cJSON *st;
    cJSON_ArrayForEach (st,
                        cJSON_GetObjectItemCaseSensitive (job->root, "stages"))
    {
        if (s_check_stage (self, job, st, pos++, where, &lines, err) < 0)
            return -1;
    }
    return 0;
}

/* The stage name names for job k (being built as job): one of its own,
   or a persisted stage of an earlier job (JOB/STAGE); NULL for NULL. */
static hearth_stage_t *
s_named (const jobfile_t *self, size_t k, hearth_job_t *job, const char *name)
{
    hearth_stage_t *st = name ? hearth_job_find_stage (job, name) : NULL;
    return st ? st : jobcross_stage (self, k, name);
}

static int
s_build_stage (const jobfile_t *self, const jobfile_job_t *from,
               hearth_job_t *job, const cJSON *st, size_t *lines,
               const char *output_dir, hearth_error_t *err)
{
    const char *name =
        cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (st, "name"));
    hearth_stage_t *stage = hearth_job_stage (job, name);
    if (!stage)
        return hearth_errprintf (err, "cannot create stage %s", name);
    const cJSON *pool = cJSON_GetObjectItemCaseSensitive (st, "pool");
    const cJSON *weight = cJSON_GetObjectItemCaseSensitive (st, "weight");
    if (pool)
        hearth_stage_set_pool (stage, pool->valuestring,
                               weight ? (int) weight->valuedouble : 1);
    if (jobshuffle_build_stage (stage, st, output_dir, err) < 0)
        return -1;
    const cJSON *req;
    cJSON_ArrayForEach (req, cJSON_GetObjectItemCaseSensitive (st, "require"))
    {
        char label[256];
        snprintf (label, sizeof label, "%s=%s", req->string,
                  cJSON_GetStringValue (req));
        if (hearth_stage_require (stage, label) < 0)
            return hearth_errprintf (err, "stage %s: require: %s", name,
                                     strerror (errno));
    }
    const cJSON *res;
    cJSON_ArrayForEach (res, cJSON_GetObjectItemCaseSensitive (st, "resources"))
    {
        if (hearth_stage_set_resource (stage, res->string,
                                       (int) res->valuedouble)
            < 0)
            return hearth_errprintf (err, "stage %s: resources: %s", name,
                                     strerror (errno));
    }
    size_t k = (size_t) (from - self->jobs);
    hearth_persist_t level;
    if (jobcheck_persist_level (
            cJSON_GetObjectItemCaseSensitive (st, "persist"), &level)
            == 0
        && level != HEARTH_PERSIST_NONE
        && hearth_stage_persist (stage, level) < 0)
        return hearth_errprintf (err, "stage %s: persist: %s", name,
                                 strerror (errno));
    const cJSON *a;
    cJSON_ArrayForEach (a, cJSON_GetObjectItemCaseSensitive (st, "after"))
        hearth_stage_after (stage, s_named (self, k, job, a->valuestring));
    s_scope_t sc = s_scope (from, st);
    s_sink_t sink = {.stage = stage};
    cJSON *tasks = cJSON_GetObjectItemCaseSensitive (st, "tasks");
    for (cJSON *t = tasks ? tasks->child : NULL, *next; t; t = next) {
        next = t->next;
        hearth_stage_t *in =
            s_named (self, k, job,
                     cJSON_GetStringValue (
                         cJSON_GetObjectItemCaseSensitive (t, "input")));
        if (in)
            hearth_stage_input (stage, in);
        sc.count = jobshuffle_default_count (in);
        if (s_add_tasks (self, &sink, t, &sc, lines) < 0)
            return hearth_errprintf (err, "stage %s: cannot add a task: %s",
                                     name, strerror (errno));
        cJSON_Delete (cJSON_DetachItemViaPointer (tasks, t)); /* in the job */
    }
    return 0;
}

hearth_job_t *
jobfile_build (jobfile_t *self, size_t k, hearth_ctx_t *ctx,
               const char *output_dir, hearth_error_t *err)
{
    /* the parts of an earlier job's output exist now that it has run */
    if (self->jobs[k].later && s_read_items (self, k, err) < 0)
        return NULL;
    self->jobs[k].later = false;
    /* an iteration's job is named NAME[ITER] (events, hearth-history) */
    const joblist_run_t *run = self->runs ? &self->runs[k] : NULL;
    char *name = NULL;
    if (run && run->iter >= 0
        && asprintf (&name, "%s[%d]", run->name, run->iter) < 0)
        name = NULL;
    hearth_job_t *job =
        run && run->iter >= 0 && !name
            ? NULL
            : hearth_job_new (ctx, name ? name : jobfile_job_name (self, k));
    free (name);
    if (!job) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    /* Function tasks keep their strings where the store has them, and the
       job takes the store over once built: a copy of each task's strings
       cost two allocations a task, 60 ms of 200,000 tasks on a slow
       machine (docs/performance.md, "Job files: the strings lent").  The
       jobs of a file of several are all lent the one store, which stays
       the file's. */
    size_t len;
    char *strings = jobstore_data (self->store, &len);
    job_lend_strings (job, strings, len);
    size_t lines = 0;
    const cJSON *st;
    cJSON_ArrayForEach (
        st, cJSON_GetObjectItemCaseSensitive (self->jobs[k].root, "stages"))
    {
        if (s_build_stage (self, &self->jobs[k], job, st, &lines,
                           jobfile_output_dir (self, k, st, output_dir), err)
            < 0) {
            hearth_job_destroy (&job); /* the store still owns them */
            return NULL;
        }
    }
    if (self->njobs == 1) {
        jobstore_release (self->store);
        job_own_strings (job);
    }
    self->jobs[k].built = job; /* later jobs may read its stages */
    return job;
}

const cJSON *
jobfile_common_require (const jobfile_t *self)
{
    const cJSON *common = NULL, *st;
    for (size_t k = 0; k < self->njobs; k++)
        cJSON_ArrayForEach (
            st, cJSON_GetObjectItemCaseSensitive (self->jobs[k].root, "stages"))
        {
            const cJSON *req = cJSON_GetObjectItemCaseSensitive (st, "require");
            if (!cJSON_GetArraySize (req)
                || (common && !cJSON_Compare (common, req, true)))
                return NULL;
            common = req;
        }
    return common;
}

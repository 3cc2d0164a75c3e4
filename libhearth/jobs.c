/*  jobs.c - building jobs and stages, waiting for them, reading results.

    This is the user's side of libhearth.  A job is built here, handed to
    the engine by hearth_job_submit(), and read back once it has ended.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/ctlchars.h"
#include "libcore/labels.h"
#include "libhearth/inlineout.h"
#include "libhearth/internal.h"
#include "libhearth/tasklimits.h"

/* Tasks one stage may hold: indexes must fit in 32 bits. */
static const uint64_t s_max_tasks = 0xffffffffu;

char **
job_strv_dup (const char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    char **copy = calloc (n + 1, sizeof *copy);
    for (size_t i = 0; copy && i < n; i++)
        if (!(copy[i] = strdup (v[i]))) {
            for (size_t j = 0; j < i; j++)
                free (copy[j]);
            free (copy);
            return NULL;
        }
    return copy;
}

static void
s_strv_destroy (char ***strv_p)
{
    char **v = *strv_p;
    for (size_t i = 0; v && v[i]; i++)
        free (v[i]);
    free (v);
    *strv_p = NULL;
}

hearth_job_t *
hearth_job_new (hearth_ctx_t *ctx, const char *name)
{
    if (!ctx)
        return NULL;
    if (hearth_ctl_has (name))
        return errno = EINVAL, NULL;
    hearth_job_t *job = calloc (1, sizeof *job);
    if (!job || !(job->name = strdup (name ? name : "job"))) {
        free (job);
        return NULL;
    }
    job->ctx = ctx;
    job->state = HEARTH_JOB_NEW;
    pthread_mutex_init (&job->lock, NULL);
    pthread_cond_init (&job->ended, NULL);
    job->handle = zlistx_add_end (ctx->jobs, job);
    return job;
}

/* Whether s lies in the strings lent to job (not a copy of its own). */
static bool
s_lent (const hearth_job_t *job, const char *s)
{
    return job->strings && s >= job->strings
           && s < job->strings + job->strings_len;
}

static void
s_stage_destroy (hearth_stage_t **self_p)
{
    hearth_stage_t *st = *self_p;
    for (size_t i = 0; i < st->ngroups; i++) {
        task_group_t *g = &st->groups[i];
        s_strv_destroy (&g->argv);
        s_strv_destroy (&g->env);
        s_strv_destroy (&g->prefer);
        if (!s_lent (st->job, g->fn))
            free (g->fn);
        if (!s_lent (st->job, g->arg))
            free (g->arg);
    }
    free (st->groups);
    for (uint64_t i = 0; st->results_held && i < st->ntasks; i++)
        free (st->results[i].data);
    free (st->results);
    inlineout_free (st);
    free (st->maps);
    free (st->cached_on);
    free (st->had);
    free (st->output_dir);
    hearth_manifest_free (st->parts, st->parts ? st->ntasks : 0);
    free (st->parents);
    free (st->orphaned_of);
    free (st->pool);
    hearth_resource_amounts_clear (&st->resources);
    s_strv_destroy (&st->require);
    free (st->name);
    free (st);
    *self_p = NULL;
}

void
job_destroy (hearth_job_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_job_t *job = *self_p;
    for (size_t i = 0; i < job->nstages; i++)
        s_stage_destroy (&job->stages[i]);
    free (job->stages);
    free (job->name);
    free (job->error);
    if (job->strings_owned)
        free (job->strings);
    pthread_mutex_destroy (&job->lock);
    pthread_cond_destroy (&job->ended);
    free (job);
    *self_p = NULL;
    errno = saved;
}

hearth_stage_t *
hearth_job_find_stage (hearth_job_t *job, const char *name)
{
    for (size_t i = 0; job && name && i < job->nstages; i++)
        if (strcmp (job->stages[i]->name, name) == 0)
            return job->stages[i];
    return NULL;
}

hearth_stage_t *
hearth_job_stage (hearth_job_t *job, const char *name)
{
    if (!job || !name || job->state != HEARTH_JOB_NEW
        || hearth_job_find_stage (job, name) || hearth_ctl_has (name))
        return errno = EINVAL, NULL;
    if (job->nstages == job->stages_alloc) {
        size_t n = job->stages_alloc ? job->stages_alloc * 2 : 4;
        hearth_stage_t **stages = realloc (job->stages, n * sizeof *stages);
        if (!stages)
            return NULL;
        job->stages = stages;
        job->stages_alloc = n;
    }
    hearth_stage_t *st = calloc (1, sizeof *st);
    if (!st || !(st->name = strdup (name))) {
        free (st);
        return NULL;
    }
    st->job = job;
    st->weight = 1;
    job->stages[job->nstages++] = st;
    return st;
}

int
hearth_stage_after (hearth_stage_t *stage, hearth_stage_t *parent)
{
    if (!stage || !parent || stage == parent
        || stage->job->state != HEARTH_JOB_NEW
        || (parent->job != stage->job
            && (parent->job->ctx != stage->job->ctx
                || parent->persist == HEARTH_PERSIST_NONE)))
        return errno = EINVAL, -1;
    for (size_t i = 0; i < stage->nparents; i++)
        if (stage->parents[i] == parent)
            return 0;
    hearth_stage_t **parents =
        realloc (stage->parents, (stage->nparents + 1) * sizeof *parents);
    if (!parents)
        return -1;
    stage->parents = parents;
    stage->parents[stage->nparents++] = parent;
    return 0;
}

int
hearth_stage_input (hearth_stage_t *stage, hearth_stage_t *parent)
{
    if (hearth_stage_after (stage, parent) < 0)
        return -1;
    stage->input = parent;
    return 0;
}

int
hearth_stage_persist (hearth_stage_t *stage, hearth_persist_t level)
{
    if (!stage || stage->job->state != HEARTH_JOB_NEW
        || level > HEARTH_PERSIST_MEMORY_AND_DISK || stage->output_dir
        || stage->on_result)
        return errno = EINVAL, -1;
    stage->persist = level;
    stage->keep_in_memory = level == HEARTH_PERSIST_MEMORY
                            || level == HEARTH_PERSIST_MEMORY_AND_DISK;
    return 0;
}

hearth_persist_t
hearth_stage_persisted (const hearth_stage_t *stage)
{
    return stage ? stage->persist : HEARTH_PERSIST_NONE;
}

int
hearth_stage_unpersist (hearth_stage_t *stage)
{
    if (!stage || stage->persist == HEARTH_PERSIST_NONE)
        return errno = EINVAL, -1;
    /* the engine reads it as the job ends (inlineout.c keeps the table) */
    if (hearth_job_state (stage->job) == HEARTH_JOB_RUNNING)
        return errno = EBUSY, -1;
    stage->persist = HEARTH_PERSIST_NONE;
    return 0;
}

int
hearth_stage_set_partitions (hearth_stage_t *stage, uint32_t partitions,
                             unsigned flags)
{
    if (!stage || stage->job->state != HEARTH_JOB_NEW || partitions == 0
        || partitions > HEARTH_MAX_STAGE_PARTITIONS
        || (flags & ~HEARTH_PARTITION_SORT))
        return errno = EINVAL, -1;
    stage->partitions = partitions;
    stage->sort = (flags & HEARTH_PARTITION_SORT) != 0;
    return 0;
}

uint32_t
hearth_stage_partitions (const hearth_stage_t *stage)
{
    return stage ? stage->partitions : 0;
}

int
hearth_stage_set_output (hearth_stage_t *stage, const char *dir)
{
    if (!stage || !dir || !*dir || stage->job->state != HEARTH_JOB_NEW)
        return errno = EINVAL, -1;
    char *copy = strdup (dir);
    if (!copy)
        return -1;
    free (stage->output_dir);
    stage->output_dir = copy;
    return 0;
}

const char *
hearth_stage_output (const hearth_stage_t *stage)
{
    return stage ? stage->output_dir : NULL;
}

int
hearth_stage_on_result (hearth_stage_t *stage, hearth_result_fn *fn, void *user,
                        unsigned flags)
{
    if (!stage || stage->job->state != HEARTH_JOB_NEW
        || (flags & ~HEARTH_RESULT_DISCARD))
        return errno = EINVAL, -1;
    stage->on_result = fn;
    stage->on_result_user = user;
    stage->discard_results = (flags & HEARTH_RESULT_DISCARD) != 0;
    return 0;
}

int
hearth_stage_set_pool (hearth_stage_t *stage, const char *pool, int weight)
{
    if (!stage || !pool || weight < 1 || hearth_ctl_has (pool))
        return errno = EINVAL, -1;
    char *copy = strdup (pool);
    if (!copy)
        return -1;
    free (stage->pool);
    stage->pool = copy;
    stage->weight = weight;
    return 0;
}

int
hearth_stage_set_resource (hearth_stage_t *stage, const char *name, int amount)
{
    if (!stage || !name || stage->job->state != HEARTH_JOB_NEW
        || !hearth_resource_name_valid (name) || amount < 1
        || amount > HEARTH_RESOURCE_AMOUNT_MAX)
        return errno = EINVAL, -1;
    hearth_resource_amounts_t *a = &stage->resources;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp (a->v[i].name, name) == 0) {
            a->v[i].amount = amount;
            return 0;
        }
    return hearth_resource_amounts_add (a, name, amount, NULL) < 0
               ? (errno = a->n >= HEARTH_RESOURCES_MAX ? EINVAL : ENOMEM, -1)
               : 0;
}

int
hearth_stage_set_timeout (hearth_stage_t *stage, int64_t timeout_ms)
{
    if (!stage || timeout_ms < 0)
        return errno = EINVAL, -1;
    stage->timeout_ms = timeout_ms;
    return 0;
}

static task_group_t *
s_new_group (hearth_stage_t *st, uint64_t count)
{
    if (!st || count == 0 || st->job->state != HEARTH_JOB_NEW
        || st->ntasks + count > s_max_tasks)
        return errno = EINVAL, NULL;
    if (st->ngroups == st->groups_alloc) {
        size_t n = st->groups_alloc ? st->groups_alloc * 2 : 4;
        task_group_t *groups = realloc (st->groups, n * sizeof *groups);
        if (!groups)
            return NULL;
        st->groups = groups;
        st->groups_alloc = n;
    }
    task_group_t *g = &st->groups[st->ngroups];
    memset (g, 0, sizeof *g);
    g->first = st->ntasks;
    g->count = count;
    g->timeout_ms = st->timeout_ms;
    return g;
}

/* A copy of env with, unless it sets its own, HEARTH_SUBMIT_DIR: the
   directory hearth-submit or the driver started in, which a command
   task's relative paths may be taken from (docs/jobs.md). */
static char **
s_env_dup (const hearth_stage_t *st, const char *const *env)
{
    const char *dir = hearth_conf_str (st->job->ctx->conf, "submit-dir");
    size_t n = 0;
    bool own = !dir;
    for (; env && env[n]; n++)
        own |= strncmp (env[n], "HEARTH_SUBMIT_DIR=", 18) == 0;
    const char **all = calloc (n + 2, sizeof *all);
    char *entry = NULL;
    if (!all || (!own && asprintf (&entry, "HEARTH_SUBMIT_DIR=%s", dir) < 0)) {
        free (all);
        return NULL;
    }
    all[0] = entry;
    if (n)
        memcpy (all + (entry ? 1 : 0), env, n * sizeof *all);
    char **copy = job_strv_dup (all);
    free (entry);
    free (all);
    return copy;
}

int
hearth_stage_add_commands (hearth_stage_t *stage, const char *const *argv,
                           const char *const *env, uint64_t count)
{
    if (!argv || !argv[0] || !argv[0][0])
        return errno = EINVAL, -1;
    task_group_t *g = s_new_group (stage, count);
    if (!g || !(g->argv = job_strv_dup (argv))
        || !(g->env = s_env_dup (stage, env))) {
        if (g)
            s_strv_destroy (&g->argv);
        return -1;
    }
    stage->ngroups++;
    stage->ntasks += count;
    return 0;
}

int
hearth_stage_add_functions (hearth_stage_t *stage, const char *fn,
                            const char *arg, uint64_t count)
{
    if (!fn || !*fn)
        return errno = EINVAL, -1;
    task_group_t *g = s_new_group (stage, count);
    if (!g || !(g->fn = strdup (fn)) || !(g->arg = strdup (arg ? arg : ""))) {
        if (g)
            free (g->fn);
        return -1;
    }
    stage->ngroups++;
    stage->ntasks += count;
    return 0;
}

void
job_lend_strings (hearth_job_t *job, char *strings, size_t len)
{
    job->strings = strings;
    job->strings_len = len;
    job->strings_owned = false;
}

void
job_own_strings (hearth_job_t *job)
{
    job->strings_owned = job->strings != NULL;
}

int
stage_add_functions_lent (hearth_stage_t *stage, const char *fn,
                          const char *arg, uint64_t count)
{
    if (!stage || !*fn || !s_lent (stage->job, fn) || !s_lent (stage->job, arg))
        return errno = EINVAL, -1;
    task_group_t *g = s_new_group (stage, count);
    if (!g)
        return -1;
    g->fn = (char *) fn;
    g->arg = (char *) arg;
    stage->ngroups++;
    stage->ntasks += count;
    return 0;
}

int
hearth_stage_add_command (hearth_stage_t *stage, const char *const *argv)
{
    return hearth_stage_add_commands (stage, argv, NULL, 1);
}

int
hearth_stage_add_function (hearth_stage_t *stage, const char *fn,
                           const char *arg)
{
    return hearth_stage_add_functions (stage, fn, arg, 1);
}

/* Append a copy of text to the NULL-terminated *v (NULL: empty).  0, or
   -1 (no memory; *v unchanged but for its size). */
static int
s_strv_append (char ***v, const char *text)
{
    size_t n = 0;
    while (*v && (*v)[n])
        n++;
    char **grown = realloc (*v, (n + 2) * sizeof *grown);
    if (!grown)
        return -1;
    *v = grown;
    if (!(grown[n] = strdup (text)))
        return -1;
    grown[n + 1] = NULL;
    return 0;
}

int
hearth_stage_require (hearth_stage_t *stage, const char *label)
{
    hearth_error_t err;
    if (!stage || hearth_labels_check_spec (label, &err) < 0
        || stage->job->state != HEARTH_JOB_NEW)
        return errno = EINVAL, -1;
    return s_strv_append (&stage->require, label);
}

int
hearth_stage_prefer (hearth_stage_t *stage, const char *where)
{
    /* a place travels to the master (REQUEST_EXECUTORS places), which
       takes 1 to 320 bytes without control characters */
    if (!stage || !where || !*where || strlen (where) > 300
        || hearth_ctl_has (where) || stage->ngroups == 0
        || stage->job->state != HEARTH_JOB_NEW)
        return errno = EINVAL, -1;
    return s_strv_append (&stage->groups[stage->ngroups - 1].prefer, where);
}

uint64_t
hearth_stage_size (const hearth_stage_t *stage)
{
    return stage ? stage->ntasks : 0;
}

const char *
hearth_stage_name (const hearth_stage_t *stage)
{
    return stage ? stage->name : NULL;
}

const task_group_t *
stage_group (const hearth_stage_t *stage, uint64_t index)
{
    size_t lo = 0, hi = stage->ngroups;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (stage->groups[mid].first <= index)
            lo = mid;
        else
            hi = mid;
    }
    return &stage->groups[lo];
}

int
stage_check_limits (const hearth_stage_t *stage, char *why, size_t size)
{
    for (size_t k = 0; k < stage->ngroups; k++) {
        const task_group_t *g = &stage->groups[k];
        tasklimit_t over;
        int rc = g->argv ? tasklimits_command ((const char *const *) g->argv,
                                               (const char *const *) g->env,
                                               g->count, &over)
                         : tasklimits_function (g->fn, g->arg, g->count, &over);
        if (rc < 0) {
            snprintf (why, size, "stage \"%s\", task %llu: %s", stage->name,
                      (unsigned long long) (g->first + over.index), over.text);
            return -1;
        }
    }
    return 0;
}

int
stage_check_functions (const hearth_stage_t *stage, const libfns_t *libs,
                       char *why, size_t size)
{
    for (size_t k = 0; k < stage->ngroups; k++) {
        const task_group_t *g = &stage->groups[k];
        if (g->argv || libfns_has (libs, g->fn) != 0)
            continue; /* a command, a function found, or one not knowable */
        const char *names = libfns_names (libs);
        if (*names)
            snprintf (why, size,
                      "stage \"%s\", task %llu: no function %s in the "
                      "shipped libraries (%s)",
                      stage->name, (unsigned long long) g->first, g->fn, names);
        else
            snprintf (why, size,
                      "stage \"%s\", task %llu: function %s, but the "
                      "application ships no library (--lib)",
                      stage->name, (unsigned long long) g->first, g->fn);
        return -1;
    }
    return 0;
}

void
job_end (hearth_job_t *job, hearth_job_state_t state, const char *error)
{
    pthread_mutex_lock (&job->lock);
    if (job->state == HEARTH_JOB_RUNNING) {
        job->state = state;
        if (error && !job->error)
            job->error = strdup (error);
        pthread_cond_broadcast (&job->ended);
    }
    pthread_mutex_unlock (&job->lock);
}

void
job_set_progress (hearth_job_t *job, hearth_stage_t *stage, uint64_t finished,
                  uint64_t running, bool done)
{
    pthread_mutex_lock (&job->lock);
    stage->finished = finished;
    stage->running = running;
    stage->failed = stage->failed_attempts;
    if (done && !stage->done)
        stage->done_ms = hearth_mono_ms ();
    stage->done = done;
    pthread_mutex_unlock (&job->lock);
}

hearth_job_state_t
hearth_job_state (const hearth_job_t *job)
{
    hearth_job_t *j = (hearth_job_t *) job;
    pthread_mutex_lock (&j->lock);
    hearth_job_state_t state = j->state;
    pthread_mutex_unlock (&j->lock);
    return state;
}

const char *
hearth_job_error (const hearth_job_t *job)
{
    hearth_job_t *j = (hearth_job_t *) job;
    pthread_mutex_lock (&j->lock);
    const char *error = j->error;
    pthread_mutex_unlock (&j->lock);
    return error ? error : "";
}

int
hearth_job_progress (hearth_job_t *job, const char **stage, uint64_t *finished,
                     uint64_t *running, uint64_t *total)
{
    int rc = -1;
    pthread_mutex_lock (&job->lock);
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        if (st->done)
            continue;
        *stage = st->name;
        *finished = st->finished;
        *running = st->running;
        *total = st->ntasks;
        rc = 0;
        break;
    }
    pthread_mutex_unlock (&job->lock);
    return rc;
}

/* Whether st can run: its parents are done (under the job's lock). */
static bool
s_stage_active (const hearth_stage_t *st, int64_t *since_ms)
{
    if (st->done)
        return false;
    *since_ms = st->job->submitted_ms;
    for (size_t i = 0; i < st->nparents; i++) {
        if (!st->parents[i]->done)
            return false;
        if (st->parents[i]->done_ms > *since_ms)
            *since_ms = st->parents[i]->done_ms;
    }
    return true;
}

size_t
hearth_job_active_stages (hearth_job_t *job, hearth_stage_progress_t *out,
                          size_t max)
{
    if (!job)
        return 0;
    size_t n = 0;
    int64_t now_ms = hearth_mono_ms (), since_ms;
    pthread_mutex_lock (&job->lock);
    for (size_t i = 0; job->state == HEARTH_JOB_RUNNING && i < job->nstages;
         i++) {
        const hearth_stage_t *st = job->stages[i];
        if (!s_stage_active (st, &since_ms))
            continue;
        if (n < max)
            out[n] = (hearth_stage_progress_t){.name = st->name,
                                               .finished = st->finished,
                                               .running = st->running,
                                               .total = st->ntasks,
                                               .failed = st->failed,
                                               .elapsed_ms = now_ms - since_ms};
        n++;
    }
    pthread_mutex_unlock (&job->lock);
    return n;
}

int
hearth_stage_locality (const hearth_stage_t *stage, uint64_t *node,
                       uint64_t *rack, uint64_t *any)
{
    if (!stage)
        return errno = EINVAL, -1;
    uint64_t *out[3] = {node, rack, any};
    for (size_t i = 0; i < 3; i++)
        if (out[i])
            *out[i] = __atomic_load_n (&stage->placed[i], __ATOMIC_RELAXED);
    return 0;
}

const void *
hearth_stage_result (const hearth_stage_t *stage, uint64_t index, size_t *len)
{
    *len = 0;
    if (!stage || !stage->results || index >= stage->ntasks || stage->partitions
        || stage->read_whole || stage->output_dir || stage->discard_results)
        return NULL; /* its results went elsewhere */
    hearth_job_t *job = stage->job;
    pthread_mutex_lock (&job->lock);
    bool done = stage->done; /* set by the engine under the lock */
    pthread_mutex_unlock (&job->lock);
    if (!done)
        return NULL;
    *len = stage->results[index].len;
    return stage->results[index].data ? stage->results[index].data : "";
}

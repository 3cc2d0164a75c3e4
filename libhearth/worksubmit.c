/*  worksubmit.c - a submitted job's stages entering the task set: their
    uids, result slots, preferences and requirements, the outputs an
    earlier driver left (resume.h) and those of persisted stages' copies
    (persist.h); see work.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libcore/log.h"
#include "libhearth/inlineout.h"
#include "libhearth/work_int.h"

/* ---- submission ------------------------------------------------------- */

static int
s_stage_slot (work_t *self, uint32_t uid)
{
    if (uid < self->stages_alloc)
        return 0;
    size_t n = self->stages_alloc ? self->stages_alloc * 2 : 64;
    while (n <= uid)
        n *= 2;
    hearth_stage_t **stages = realloc (self->stages, n * sizeof *stages);
    if (!stages)
        return -1;
    memset (stages + self->stages_alloc, 0,
            (n - self->stages_alloc) * sizeof *stages);
    self->stages = stages;
    self->stages_alloc = n;
    return 0;
}

/* Whether master (the "master" setting) is local[N], local[*] or local:
   one process of our own, with no custom resources. */
static bool
s_local_n (const char *master)
{
    return !master || strcmp (master, "local") == 0
           || strncmp (master, "local[", 6) == 0;
}

/* A stage's custom resources must be ones each executor gets, as much
   per task as per executor (--executor-resource), and not in local[N]:
   else the job is refused at submit, rather than wait for ever.  0, or
   -1 with err naming the stage, the resource and both numbers. */
static int
s_check_resources (const hearth_job_t *job, const hearth_stage_t *st,
                   hearth_error_t *err)
{
    const hearth_resource_amounts_t *need = &st->resources;
    if (need->n == 0)
        return 0;
    if (s_local_n (hearth_conf_str (job->ctx->conf, "master")))
        return hearth_errprintf (err,
                                 "stage %s: local[N] has no custom resources "
                                 "(%s): use local-cluster[...] "
                                 "--worker-resource or a cluster",
                                 st->name, need->v[0].name);
    const hearth_resource_amounts_t *have = opts_executor_resources (job->ctx);
    for (size_t i = 0; i < need->n; i++) {
        int per_exec = hearth_resource_amount (have, need->v[i].name);
        if (per_exec == 0)
            return hearth_errprintf (
                err,
                "stage %s: each task asks for %d %s, but the executors get "
                "no %s: ask for it with --executor-resource %s=N",
                st->name, need->v[i].amount, need->v[i].name, need->v[i].name,
                need->v[i].name);
        if (need->v[i].amount > per_exec)
            return hearth_errprintf (err,
                                     "stage %s: each task asks for %d %s, "
                                     "more than each executor gets (%d, "
                                     "--executor-resource %s=%d)",
                                     st->name, need->v[i].amount,
                                     need->v[i].name, per_exec, need->v[i].name,
                                     per_exec);
    }
    return 0;
}

/* The places the stage's tasks prefer (hearth_stage_prefer), each
   template made for each task, to the task set.  0, or -1 with errno. */
static int
s_add_prefs (work_t *self, const hearth_stage_t *st)
{
    for (size_t k = 0; k < st->ngroups; k++) {
        const task_group_t *g = &st->groups[k];
        size_t n = 0;
        while (g->prefer && g->prefer[n])
            n++;
        if (n == 0)
            continue;
        char **where = calloc (n, sizeof *where);
        if (!where)
            return -1;
        int rc = 0;
        for (uint64_t i = 0; rc == 0 && i < g->count; i++) {
            for (size_t p = 0; rc == 0 && p < n; p++)
                if (!(where[p] = render_template (g->prefer[p], i)))
                    rc = -1;
            if (rc == 0)
                rc = hearth_taskset_prefer (self->ts, st->uid, g->first + i,
                                            (const char *const *) where, n);
            for (size_t p = 0; p < n; p++) {
                free (where[p]);
                where[p] = NULL;
            }
        }
        free (where);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* st's output directory is that of a stage of a running job (an
   earlier stage of its own job included): both would write the same
   part files, each replacing the other's, and the first to end would
   remove the other's _temporary.  Returns 0, or -1 with err. */
static int
s_output_taken (const work_t *self, const hearth_job_t *job,
                const hearth_stage_t *st, hearth_error_t *err)
{
    for (uint32_t uid = 1; st->output_dir && uid < self->next_uid; uid++) {
        const hearth_stage_t *other = work_stage (self, uid);
        if (other && other != st && shuffle_same_output (st, other))
            return hearth_errprintf (
                err,
                "stage %s: the output directory %s is also the output of "
                "stage %s%s%s, still running: give each output stage its "
                "own directory",
                st->name, st->output_dir, other->name,
                other->job == job ? " of this job" : " of job ",
                other->job == job ? "" : other->job->name);
    }
    return 0;
}

/* Whether the output of task m of held st is there (a map output, or a
   resumed stage's committed part file). */
static bool
s_output_there (const hearth_stage_t *st, uint64_t m)
{
    return st->had ? st->had[m] : st->maps[m].sizes != NULL;
}

/* Whether a stage of job reads st. */
static bool
s_read_in_job (const hearth_job_t *job, const hearth_stage_t *st)
{
    for (size_t i = 0; i < job->nstages; i++)
        for (size_t k = 0; k < job->stages[i]->nparents; k++)
            if (job->stages[i]->parents[k] == st)
                return true;
    return false;
}

/* A copy of a persisted stage (persist.h), or a resumed stage
   (resume.h), into the task set: the tasks
   whose outputs are there finished, the others to run again when the
   copy remakes (st->remake); one with nothing to run is done now. */
static int
s_add_held (work_t *self, hearth_job_t *job, hearth_stage_t *st,
            const uint32_t *parents)
{
    bool *held = calloc (st->ntasks, sizeof *held);
    uint16_t *first = calloc (st->ntasks, sizeof *first);
    uint64_t missing = 0;
    for (uint64_t m = 0; held && first && m < st->ntasks; m++) {
        /* what no reader needs now is left alone: a reader that finds
           it missing later has it made then, as a lost output */
        held[m] = s_output_there (st, m) || !st->remake;
        missing += !held[m];
        /* a new attempt never writes over an output's file */
        first[m] = st->maps ? (uint16_t) (st->maps[m].attempt + 1) : 0;
    }
    int rc = held && first ? hearth_taskset_add_stage_held (
                 self->ts, st->uid, job->id, st->ntasks, parents, st->nparents,
                 st->pool, st->weight, held, first)
                           : (errno = ENOMEM, -1);
    free (held);
    free (first);
    if (rc < 0)
        return -1;
    st->cached = st->ntasks - missing;
    if (missing == 0)
        job_set_progress (job, st, st->ntasks, 0, true);
    log_debug ("stage %s: %" PRIu64 " of %" PRIu64 " outputs there, %" PRIu64
               " to make again",
               st->name, st->ntasks - missing, st->ntasks, missing);
    return 0;
}

/* Which copies of job remake their missing outputs at once: those a
   stage of the job reads, and, up their lineage, those a copy that
   remakes some reads (the stages are in topological order: readers
   after what they read). */
static void
s_mark_remakes (hearth_job_t *job)
{
    /* a resumed stage nothing reads is an output of the job: made whole */
    for (size_t i = 0; i < job->nstages; i++)
        job->stages[i]->remake =
            job->stages[i]->resumed && !s_read_in_job (job, job->stages[i]);
    for (size_t i = job->nstages; i-- > 0;) {
        hearth_stage_t *st = job->stages[i];
        bool missing = false;
        for (uint64_t m = 0; st->held && st->remake && m < st->ntasks; m++)
            missing = missing || !s_output_there (st, m);
        for (size_t k = 0; k < st->nparents; k++)
            if (!st->held || missing)
                st->parents[k]->remake = true;
    }
}

/* Give a stage its uid, result slots and a place in the task set. */
static int
s_add_stage (work_t *self, hearth_job_t *job, hearth_stage_t *st,
             hearth_error_t *err)
{
    if (self->next_uid > DRIVER_MAX_STAGES
        || s_stage_slot (self, self->next_uid) < 0)
        return hearth_errprintf (err, "too many stages in one application");
    st->uid = self->next_uid++;
    if (!st->held)
        st->shuffle_id = st->uid;
    if (s_output_taken (self, job, st, err) < 0
        || shuffle_prepare_stage (st, err) < 0)
        return -1;
    resume_fill_parts (self->resume, st);
    inlineout_reserve (st, &self->inline_left);
    st->results = calloc (st->ntasks, sizeof *st->results);
    uint32_t *parents = calloc (st->nparents + 1, sizeof *parents);
    if (!st->results || !parents) {
        free (parents);
        return hearth_errprintf (err, "out of memory for %llu tasks",
                                 (unsigned long long) st->ntasks);
    }
    for (size_t i = 0; i < st->nparents; i++)
        parents[i] = st->parents[i]->uid;
    int rc = st->held
                 ? s_add_held (self, job, st, parents)
                 : hearth_taskset_add_stage (self->ts, st->uid, job->id,
                                             st->ntasks, parents, st->nparents,
                                             st->pool, st->weight);
    free (parents);
    if (rc == 0 && st->resources.n)
        rc = hearth_taskset_set_stage_resources (self->ts, st->uid,
                                                 &st->resources);
    if (rc == 0 && st->output_dir) /* its tasks ask to commit (ASK_COMMIT) */
        rc = hearth_taskset_set_stage_commits (self->ts, st->uid);
    if (rc == 0)
        rc = s_add_prefs (self, st);
    for (size_t i = 0; rc == 0 && st->require && st->require[i]; i++)
        rc = hearth_taskset_require (self->ts, st->uid,
                                     (const char *const *) &st->require[i], 1);
    if (rc < 0)
        return hearth_errprintf (err, "cannot schedule stage %s: %s", st->name,
                                 strerror (errno));
    self->stages[st->uid] = st;
    return 0;
}

/* Every stage's fingerprint (recorded with its outputs), and, resumed,
   the stages an earlier driver's outputs spare. */
static int
s_resume (work_t *self, hearth_job_t *job, resume_match_t *out,
          hearth_error_t *err)
{
    for (size_t i = 0; i < job->nstages; i++)
        if (shuffle_absolute_output (job->stages[i], err) < 0)
            return -1;
        else if (fingerprint_stage (job->stages[i], self->files) < 0)
            return hearth_errprintf (err, "out of memory");
    if (resume_match (self->resume, job, self->servers, out) < 0)
        return hearth_errprintf (err, "out of memory for the outputs of an "
                                      "earlier driver");
    return 0;
}

void
work_submit (work_t *self, hearth_job_t *job)
{
    hearth_error_t err;
    job->id = self->next_job++;
    zlistx_add_end (self->jobs, job);
    if (self->el) {
        eventlog_begin (self->el, "job_start");
        eventlog_int (self->el, "job", (int64_t) job->id);
        eventlog_str (self->el, "name", job->name);
        eventlog_int (self->el, "stages", (int64_t) job->nstages);
        eventlog_end (self->el);
    }
    if (self->app_dead) {
        work_fail_uncounted (self, job, self->app_dead_reason);
        return;
    }
    for (size_t i = 0; i < job->nstages; i++)
        if (s_check_resources (job, job->stages[i], &err) < 0) {
            work_fail_job (self, job, err.text);
            return;
        }
    resume_match_t resumed;
    if (s_resume (self, job, &resumed, &err) < 0) {
        work_fail_job (self, job, err.text);
        return;
    }
    s_mark_remakes (job);
    for (size_t i = 0; i < job->nstages; i++)
        if (s_add_stage (self, job, job->stages[i], &err) < 0) {
            work_fail_job (self, job, err.text);
            return;
        }
    if (self->resume)
        resume_report (self->resume, self->el, job, &resumed);
    log_debug ("job %s: %zu stages submitted", job->name, job->nstages);
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        if (!st->held || !st->done)
            continue;
        /* read where they lie: said at once, in the order of the
           lineage (parents first) */
        if (st->resumed) /* its part files' manifest, when it has some */
            shuffle_stage_done (st);
        work_ev_stage_start (self, st);
        work_ev_stage_end (self, st, "SUCCEEDED", st->ntasks);
        work_place_readers (self, st);
    }
    work_ev_runnable (self, job);
}

/*  work.c - the engine's work in progress: the task set, the stages by
    uid and the running jobs, from submission to the end of each job.
*/
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libcore/log.h"
#include "libhearth/eventlog.h"
#include "libhearth/inlineout.h"
#include "libhearth/reduceplace.h"
#include "libhearth/shuffle.h"
#include "libhearth/tlfeed.h"
#include "libhearth/work.h"

struct work {
    hearth_taskset_t *ts;       /* what runs where */
    shuffle_servers_t *servers; /* block servers of the map outputs */
    hearth_stage_t **stages;    /* by uid; NULL once its job ended */
    size_t stages_alloc;        /* entries at stages */
    uint32_t next_uid;          /* next stage uid (from 1) */
    uint64_t next_job;          /* next job id (from 1) */
    zlistx_t *jobs;             /* hearth_job_t running (borrowed) */
    bool app_dead;              /* the application is over */
    char app_dead_reason[512];  /* why, for jobs submitted after */
    char last_failure[4800];    /* why the last job to end failed, or "" */
    char exec_failure[512];     /* why the executor whose end counts as
                                   its tasks' failure ended (set before
                                   its removal, read by its events) */
    work_cbs_t cbs;             /* the owner's callbacks */
    eventlog_t *el;             /* the event log (borrowed), or NULL */
    tlfeed_t *tl;               /* the live timeline's (borrowed), or NULL */
    work_totals_t ended;        /* what the jobs that ended did */
    uint64_t inline_left;       /* of the budget for outputs the driver
                                   keeps, not reserved (inlineout.h) */
    bool reduce_locality;       /* reducers prefer where their bytes are
                                   (the reduce-locality setting) */
};

static void
s_taskset_opts (hearth_conf_t *conf, hearth_taskset_opts_t *o)
{
    hearth_taskset_opts_default (o);
    const char *mode = hearth_conf_str (conf, "scheduler-mode");
    o->fair = mode && strcasecmp (mode, "FAIR") == 0;
    o->max_failures = (int) hearth_conf_int (conf, "max-failures");
    o->max_lost = (int) hearth_conf_int (conf, "max-lost");
    o->prefetch_max = (int) hearth_conf_int (conf, "task-prefetch");
    o->speculation = hearth_conf_bool (conf, "speculation");
    o->spec_multiplier =
        atof (hearth_conf_str (conf, "speculation-multiplier"));
    o->spec_quantile = atof (hearth_conf_str (conf, "speculation-quantile"));
    o->spec_min_us = hearth_conf_ms (conf, "speculation-min") * 1000;
    o->locality_wait_us = hearth_conf_ms (conf, "locality-wait") * 1000;
}

work_t *
work_new (hearth_conf_t *conf, const work_cbs_t *cbs)
{
    work_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    hearth_taskset_opts_t tso;
    s_taskset_opts (conf, &tso);
    self->ts = hearth_taskset_new (&tso);
    self->jobs = zlistx_new ();
    self->inline_left = INLINEOUT_BUDGET;
    self->reduce_locality = hearth_conf_bool (conf, "reduce-locality");
    self->servers = shuffle_servers_new ();
    self->next_uid = 1;
    self->next_job = 1;
    self->cbs = *cbs;
    if (!self->ts || !self->jobs || !self->servers)
        work_destroy (&self);
    return self;
}

void
work_destroy (work_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    work_t *self = *self_p;
    hearth_taskset_destroy (&self->ts);
    shuffle_servers_destroy (&self->servers);
    zlistx_destroy (&self->jobs);
    free (self->stages);
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
work_set_eventlog (work_t *self, eventlog_t *el)
{
    self->el = el;
}

eventlog_t *
work_eventlog (const work_t *self)
{
    return self->el;
}

void
work_set_tlfeed (work_t *self, tlfeed_t *tl)
{
    self->tl = tl;
}

tlfeed_t *
work_tlfeed (const work_t *self)
{
    return self->tl;
}

/* ---- events ------------------------------------------------------------- */

/* The tasks a stage_start or stage_end counts: in a re-run, those run
   again; in a copy of a persisted stage, those not cached. */
static uint64_t
s_ev_tasks (const hearth_stage_t *st)
{
    return st->ev_attempt ? st->ev_rerun : st->ntasks - st->cached;
}

static void
s_ev_stage_start (work_t *self, hearth_stage_t *st)
{
    if ((!self->el && !self->tl) || st->ev_started)
        return;
    st->ev_started = true;
    tlfeed_stage (self->tl, st->uid, st->name, NULL,
                  eventlog_time_ms (self->el));
    eventlog_begin (self->el, "stage_start");
    eventlog_int (self->el, "job", (int64_t) st->job->id);
    eventlog_int (self->el, "stage", st->uid);
    eventlog_str (self->el, "name", st->name);
    eventlog_int (self->el, "attempt", st->ev_attempt);
    eventlog_int (self->el, "tasks", (int64_t) s_ev_tasks (st));
    if (st->held && !st->ev_attempt)
        eventlog_int (self->el, "cached", (int64_t) st->cached);
    eventlog_end (self->el);
}

/* state: SUCCEEDED, or how its job ended before it did. */
static void
s_ev_stage_end (work_t *self, hearth_stage_t *st, const char *state,
                uint64_t finished)
{
    if ((!self->el && !self->tl) || !st->ev_started || st->ev_ended)
        return;
    st->ev_ended = true;
    tlfeed_stage (self->tl, st->uid, st->name, state,
                  eventlog_time_ms (self->el));
    eventlog_begin (self->el, "stage_end");
    eventlog_int (self->el, "job", (int64_t) st->job->id);
    eventlog_int (self->el, "stage", st->uid);
    eventlog_str (self->el, "name", st->name);
    eventlog_str (self->el, "state", state);
    eventlog_int (self->el, "attempt", st->ev_attempt);
    eventlog_int (self->el, "tasks", (int64_t) s_ev_tasks (st));
    /* a re-run, or a copy, counts its own tasks */
    uint64_t before = st->ntasks - s_ev_tasks (st);
    finished = finished > before ? finished - before : 0;
    eventlog_int (self->el, "finished", (int64_t) finished);
    eventlog_int (self->el, "failed_attempts", (int64_t) st->failed_attempts);
    eventlog_end (self->el);
}

/* The stages of job that can run now: every parent done. */
static void
s_ev_runnable (work_t *self, hearth_job_t *job)
{
    for (size_t i = 0; (self->el || self->tl) && i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        bool ready = !st->ev_started;
        for (size_t k = 0; ready && k < st->nparents; k++)
            ready = st->parents[k]->ev_ended;
        if (ready)
            s_ev_stage_start (self, st);
    }
}

static void
s_ev_job_end (work_t *self, hearth_job_t *job, hearth_job_state_t state,
              const char *error)
{
    if (!self->el)
        return;
    eventlog_begin (self->el, "job_end");
    eventlog_int (self->el, "job", (int64_t) job->id);
    eventlog_str (self->el, "name", job->name);
    eventlog_str (self->el, "state",
                  state == HEARTH_JOB_SUCCEEDED ? "SUCCEEDED" : "FAILED");
    eventlog_str (self->el, "error", error);
    eventlog_end (self->el);
}

hearth_taskset_t *
work_taskset (work_t *self)
{
    return self->ts;
}

shuffle_servers_t *
work_servers (work_t *self)
{
    return self->servers;
}

hearth_stage_t *
work_stage (const work_t *self, uint32_t uid)
{
    return uid < self->stages_alloc ? self->stages[uid] : NULL;
}

bool
work_has_jobs (const work_t *self)
{
    return zlistx_size (self->jobs) > 0;
}

/* A stage whose requirement no executor has met for this long is said
   to wait for one. */
static const int64_t s_unmet_warning_ms = 10000;

/* Whether stage st's requirement is met now; after s_unmet_warning_ms
   without, say so, once (until it is met again). */
static void
s_check_require (work_t *self, hearth_stage_t *st, int64_t now_ms)
{
    if (!st->require || st->done
        || hearth_taskset_requirement_met (self->ts, st->uid)) {
        st->unmet_ms = 0;
        st->unmet_said = false;
        return;
    }
    if (!st->unmet_ms)
        st->unmet_ms = now_ms;
    if (st->unmet_said || now_ms - st->unmet_ms < s_unmet_warning_ms)
        return;
    char labels[512] = "";
    size_t len = 0;
    for (size_t i = 0; st->require[i] && len < sizeof labels - 1; i++)
        len += (size_t) snprintf (labels + len, sizeof labels - len, "%s%s",
                                  i ? ", " : "", st->require[i]);
    log_warn ("stage %s requires %s: no executor of this application is on a "
              "worker with those labels after %lld s; its tasks wait "
              "(hearth-worker --label; hearth-tail --state shows the "
              "workers' labels)",
              st->name, labels, (long long) (now_ms - st->unmet_ms) / 1000);
    st->unmet_said = true;
}

void
work_check_requires (work_t *self, int64_t now_ms)
{
    for (hearth_job_t *j = zlistx_first (self->jobs); j;
         j = zlistx_next (self->jobs))
        for (size_t k = 0; k < j->nstages; k++)
            s_check_require (self, j->stages[k], now_ms);
}

static hearth_job_t *
s_find_job (work_t *self, uint64_t id)
{
    for (hearth_job_t *j = zlistx_first (self->jobs); j;
         j = zlistx_next (self->jobs))
        if (j->id == id)
            return j;
    return NULL;
}

/* The engine lets go of a job, then tells the user it has ended; counted:
   its end decides the application's last failure. */
static void
s_end_job (work_t *self, hearth_job_t *job, hearth_job_state_t state,
           const char *error, bool counted)
{
    void *handle = zlistx_find (self->jobs, job);
    if (!handle)
        return;
    if (counted && state == HEARTH_JOB_SUCCEEDED)
        self->last_failure[0] = '\0';
    else if (counted)
        snprintf (self->last_failure, sizeof self->last_failure,
                  "job %s failed: %s", job->name, error);
    zlistx_delete (self->jobs, handle);
    self->ended.jobs++;
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        uint64_t finished = 0, running = 0, total = 0;
        hearth_taskset_stage_counts (self->ts, st->uid, &finished, &running,
                                     &total);
        self->ended.tasks += st->ntasks;
        self->ended.finished += finished;
        self->ended.failed += st->failed_attempts;
        for (size_t l = 0; l < 3; l++)
            self->ended.placed[l] +=
                __atomic_load_n (&st->placed[l], __ATOMIC_RELAXED);
        job_set_progress (job, st, finished, 0, finished == st->ntasks);
        s_ev_stage_end (self, st,
                        state == HEARTH_JOB_SUCCEEDED ? "SUCCEEDED" : "FAILED",
                        finished);
        if (st->uid < self->stages_alloc)
            self->stages[st->uid] = NULL;
    }
    hearth_taskset_forget_job (self->ts, job->id);
    shuffle_job_ended (job);
    inlineout_release (job, &self->inline_left);
    s_ev_job_end (self, job, state, error);
    job_end (job, state, error);
}

static void
s_fail_job (work_t *self, hearth_job_t *job, const char *error, bool counted)
{
    if (!zlistx_find (self->jobs, job))
        return;
    hearth_taskset_fail_job (self->ts, job->id);
    log_info ("job %s failed: %s", job->name, error);
    s_end_job (self, job, HEARTH_JOB_FAILED, error, counted);
}

void
work_fail_job (work_t *self, hearth_job_t *job, const char *error)
{
    s_fail_job (self, job, error, true);
}

void
work_cancel_job (work_t *self, hearth_job_t *job, const char *error)
{
    s_fail_job (self, job, error, false);
}

void
work_fail_all (work_t *self, const char *reason)
{
    self->app_dead = true;
    snprintf (self->app_dead_reason, sizeof self->app_dead_reason, "%s",
              reason);
    hearth_job_t *job;
    while ((job = zlistx_first (self->jobs)))
        s_fail_job (self, job, reason, false);
}

const work_totals_t *
work_ended_totals (const work_t *self)
{
    return &self->ended;
}

hearth_job_t *
work_first_job (work_t *self)
{
    return zlistx_first (self->jobs);
}

hearth_job_t *
work_next_job (work_t *self)
{
    return zlistx_next (self->jobs);
}

const char *
work_last_failure (const work_t *self)
{
    return self->last_failure[0] ? self->last_failure : NULL;
}

void
work_stages_runnable (work_t *self, hearth_job_t *job)
{
    if (zlistx_find (self->jobs, job))
        s_ev_runnable (self, job);
}

void
work_server_lost (work_t *self, uint32_t server, const char *why)
{
    hearth_job_t *job = zlistx_first (self->jobs);
    while (job) {
        hearth_error_t err;
        if (shuffle_server_lost (self->ts, self->servers, job, server, why,
                                 &err)
            < 0) {
            work_fail_job (self, job, err.text);
            job = zlistx_first (self->jobs); /* the walk starts again: the
                                                jobs seen have nothing left
                                                there */
            continue;
        }
        s_ev_runnable (self, job); /* the map stages that run again */
        for (size_t i = 0; i < job->nstages; i++)
            work_publish (self, job->stages[i]->uid);
        job = zlistx_next (self->jobs);
    }
}

void
work_publish (work_t *self, uint32_t uid)
{
    hearth_stage_t *st = work_stage (self, uid);
    uint64_t finished, running, total;
    if (st
        && hearth_taskset_stage_counts (self->ts, uid, &finished, &running,
                                        &total)
               == 0)
        job_set_progress (st->job, st, finished, running, finished == total);
}

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

/* A copy of a persisted stage (persist.h) into the task set: the tasks
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
        held[m] = st->maps[m].sizes != NULL || !st->remake;
        missing += !held[m];
        /* a new attempt never writes over an output's file */
        first[m] = (uint16_t) (st->maps[m].attempt + 1);
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

static void s_place_readers (work_t *self, const hearth_stage_t *st);

/* Which copies of job remake their missing outputs at once: those a
   stage of the job reads, and, up their lineage, those a copy that
   remakes some reads (the stages are in topological order: readers
   after what they read). */
static void
s_mark_remakes (hearth_job_t *job)
{
    for (size_t i = 0; i < job->nstages; i++)
        job->stages[i]->remake = false;
    for (size_t i = job->nstages; i-- > 0;) {
        hearth_stage_t *st = job->stages[i];
        bool missing = false;
        for (uint64_t m = 0; st->held && st->remake && m < st->ntasks; m++)
            missing = missing || !st->maps[m].sizes;
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
        s_fail_job (self, job, self->app_dead_reason, false);
        return;
    }
    for (size_t i = 0; i < job->nstages; i++)
        if (s_check_resources (job, job->stages[i], &err) < 0) {
            work_fail_job (self, job, err.text);
            return;
        }
    s_mark_remakes (job);
    for (size_t i = 0; i < job->nstages; i++)
        if (s_add_stage (self, job, job->stages[i], &err) < 0) {
            work_fail_job (self, job, err.text);
            return;
        }
    log_debug ("job %s: %zu stages submitted", job->name, job->nstages);
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        if (!st->held || !st->done)
            continue;
        /* read where they lie: said at once, in the order of the
           lineage (parents first) */
        s_ev_stage_start (self, st);
        s_ev_stage_end (self, st, "SUCCEEDED", st->ntasks);
        s_place_readers (self, st);
    }
    s_ev_runnable (self, job);
}

/* ---- the task set's events ---------------------------------------------- */

/* st is done: the stages reading its partitions would rather run where
   their bytes are (reduceplace.h). */
static void
s_place_readers (work_t *self, const hearth_stage_t *st)
{
    hearth_job_t *job = st->job;
    /* an executor keeping a reader's input in memory is preferred
       whatever reduce-locality says: reading it elsewhere costs it all */
    if (!self->reduce_locality && !st->cached_on)
        return;
    for (size_t k = 0; shuffle_partitions (st) && k < job->nstages; k++)
        if (job->stages[k]->input == st) {
            uint64_t n = reduceplace_prefer (
                self->ts, self->servers, job->stages[k], self->reduce_locality);
            if (n)
                log_debug ("stage %s: %llu tasks prefer where their input "
                           "is",
                           job->stages[k]->name, (unsigned long long) n);
        }
}

static void
s_on_event (work_t *self, const hearth_ts_event_t *ev)
{
    hearth_stage_t *st = work_stage (self, ev->stage);
    hearth_job_t *job = s_find_job (self, ev->job);
    char error[1024];
    switch (ev->type) {
    case HEARTH_TS_EV_STAGE_DONE:
        if (!st)
            break;
        job_set_progress (st->job, st, st->ntasks, 0, true);
        shuffle_stage_done (st);
        s_ev_stage_end (self, st, "SUCCEEDED", st->ntasks);
        s_place_readers (self, st);
        s_ev_runnable (self, st->job);
        break;
    case HEARTH_TS_EV_JOB_DONE:
        if (job)
            s_end_job (self, job, HEARTH_JOB_SUCCEEDED, NULL, true);
        break;
    case HEARTH_TS_EV_JOB_FAILED:
        if (!job || !st)
            break;
        if (ev->with_executor) /* it killed its executors (out of memory) */
            snprintf (error, sizeof error,
                      "stage %s, task %llu failed %d times; last error: %s",
                      st->name, (unsigned long long) ev->index, ev->attempt + 1,
                      self->exec_failure);
        else
            snprintf (error, sizeof error,
                      "stage %s, task %llu: lost with its executor %d times",
                      st->name, (unsigned long long) ev->index,
                      ev->attempt + 1);
        work_fail_job (self, job, error);
        break;
    case HEARTH_TS_EV_KILL:
        self->cbs.kill (self->cbs.arg, ev->exec_id,
                        DRIVER_TID (ev->stage, ev->index), ev->attempt);
        break;
    }
}

void
work_set_exec_failure (work_t *self, const char *text)
{
    snprintf (self->exec_failure, sizeof self->exec_failure, "%s", text);
}

void
work_process (work_t *self)
{
    hearth_ts_event_t ev;
    while (hearth_taskset_next_event (self->ts, &ev))
        s_on_event (self, &ev);
}

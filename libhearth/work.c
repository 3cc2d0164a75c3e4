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
#include "libhearth/fingerprint.h"
#include "libhearth/inlineout.h"
#include "libhearth/record.h"
#include "libhearth/reduceplace.h"
#include "libhearth/resume.h"
#include "libhearth/shuffle.h"
#include "libhearth/tlfeed.h"
#include "libhearth/work.h"
#include "libhearth/work_int.h"

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
    resume_destroy (&self->resume);
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
work_set_resume (work_t *self, resume_t **resume_p)
{
    resume_destroy (&self->resume);
    self->resume = *resume_p;
    *resume_p = NULL;
    /* new stages' files never fall among the earlier driver's */
    uint32_t above = resume_max_shuffle_id (self->resume) + 1;
    if (self->next_uid < above)
        self->next_uid = above;
}

void
work_set_record (work_t *self, record_t *record, const char *files)
{
    self->record = record;
    snprintf (self->files, sizeof self->files, "%s", files ? files : "");
}

record_t *
work_record (const work_t *self)
{
    return self->record;
}

void
work_record_all (work_t *self)
{
    size_t n = 0;
    for (uint32_t uid = 1; self->record && uid < self->next_uid; uid++) {
        const hearth_stage_t *st = work_stage (self, uid);
        if (st) {
            record_stage (self->record, st, self->servers);
            n++;
        }
    }
    if (n)
        log_info ("the outputs of %zu stages told to the master again", n);
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

void
work_ev_stage_start (work_t *self, hearth_stage_t *st)
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
void
work_ev_stage_end (work_t *self, hearth_stage_t *st, const char *state,
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
void
work_ev_runnable (work_t *self, hearth_job_t *job)
{
    for (size_t i = 0; (self->el || self->tl) && i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        bool ready = !st->ev_started;
        for (size_t k = 0; ready && k < st->nparents; k++)
            ready = st->parents[k]->ev_ended;
        if (ready)
            work_ev_stage_start (self, st);
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
        work_ev_stage_end (
            self, st, state == HEARTH_JOB_SUCCEEDED ? "SUCCEEDED" : "FAILED",
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
work_fail_uncounted (work_t *self, hearth_job_t *job, const char *error)
{
    s_fail_job (self, job, error, false);
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
        work_ev_runnable (self, job);
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
        work_ev_runnable (self, job); /* the map stages that run again */
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

/* ---- the task set's events ---------------------------------------------- */

/* st is done: the stages reading its partitions would rather run where
   their bytes are (reduceplace.h). */
void
work_place_readers (work_t *self, const hearth_stage_t *st)
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
        work_ev_stage_end (self, st, "SUCCEEDED", st->ntasks);
        work_place_readers (self, st);
        work_ev_runnable (self, st->job);
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

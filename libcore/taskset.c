/*  taskset.c - the task set's records and status updates; see taskset.h.

    The records: stages (with their tasks), executors, the attempts in
    flight between them, and the jobs the stages belong to.  A status
    update settles an attempt: its task finishes (its stage and job
    perhaps with it), runs again, or fails its job.  Offers
    (taskset_offer.c), speculation (taskset_spec.c) and the queues
    (taskset_queue.c) are the other parts; taskset_int.h is what they
    share.
*/
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/intkeys.h"
#include "libcore/taskset.h"
#include "libcore/taskset_int.h"

/* Stage ids stay below 2^21 so that stage << 32 | index is exact in JSON. */
static const uint32_t s_max_stage = (1u << 21) - 1;
/* EWMA weight of a new run time, as 1/n. */
static const int64_t s_ewma_n = 16;

/* ---- the attempts' hash key ------------------------------------------- */

static size_t
s_akey_hash (const void *key)
{
    const ts_akey_t *k = key;
    uint64_t h = ((uint64_t) k->stage << 40)
                 ^ (k->index * 0x9E3779B97F4A7C15ull) ^ (uint64_t) k->attempt;
    return (size_t) (h ^ (h >> 29));
}

static int
s_akey_cmp (const void *a, const void *b)
{
    const ts_akey_t *x = a, *y = b;
    if (x->stage != y->stage)
        return x->stage < y->stage ? -1 : 1;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->attempt - y->attempt;
}

/* ---- life cycle ------------------------------------------------------- */

void
hearth_taskset_opts_default (hearth_taskset_opts_t *opts)
{
    *opts = (hearth_taskset_opts_t){
        .fair = false,
        .max_failures = 4,
        .max_lost = 8,
        .prefetch_max = 128,
        .prefetch_target_us = 5000,
        .speculation = false,
        .spec_multiplier = 1.5,
        .spec_quantile = 0.75,
        .spec_min_us = 100000,
        .locality_wait_us = 3000000,
    };
}

/* The attempts' destructor: plain blocks. */
static void
s_item_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

/* The executors' destructor. */
static void
s_exec_destroy (void **item)
{
    if (*item) {
        ts_res_exec_free (*item);
        ts_place_exec_free (*item);
    }
    s_item_destroy (item);
}

hearth_taskset_t *
hearth_taskset_new (const hearth_taskset_opts_t *opts)
{
    hearth_taskset_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    if (opts)
        self->opts = *opts;
    else
        hearth_taskset_opts_default (&self->opts);
    self->attempts = zhashx_new ();
    self->execs = zhashx_new ();
    if (!self->attempts || !self->execs) {
        hearth_taskset_destroy (&self);
        return NULL;
    }
    zhashx_set_key_hasher (self->attempts, s_akey_hash);
    zhashx_set_key_comparator (self->attempts, s_akey_cmp);
    zhashx_set_key_duplicator (self->attempts, NULL);
    zhashx_set_key_destructor (self->attempts, NULL);
    zhashx_set_destructor (self->attempts, s_item_destroy);
    hearth_intkeys_setup (self->execs);
    zhashx_set_destructor (self->execs, s_exec_destroy);
    return self;
}

static void
ts_stage_free (ts_stage_t **st_p)
{
    ts_stage_t *st = *st_p;
    if (!st)
        return;
    free (st->tasks);
    ts_queue_release (&st->retry);
    ts_queue_release (&st->spec);
    free (st->parents);
    free (st->pool);
    free (st->durations);
    free (st->committer);
    ts_res_stage_free (st);
    ts_place_stage_free (st);
    free (st);
    *st_p = NULL;
}

void
hearth_taskset_destroy (hearth_taskset_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_taskset_t *self = *self_p;
    for (size_t i = 0; i < self->nstages; i++)
        ts_stage_free (&self->stages[i]);
    free (self->stages);
    zhashx_destroy (&self->attempts);
    zhashx_destroy (&self->execs);
    free (self->events);
    ts_place_free (self);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* ---- stages ----------------------------------------------------------- */

static int
s_stage_init (ts_stage_t *st, uint32_t id, uint64_t job, uint64_t ntasks,
              const uint32_t *parents, size_t nparents, const char *pool,
              int weight, bool speculation)
{
    st->id = id;
    st->job = job;
    st->ntasks = ntasks;
    st->weight = weight < 1 ? 1 : weight;
    st->tasks = calloc (ntasks, sizeof *st->tasks);
    st->pool = strdup (pool ? pool : "default");
    st->parents = nparents ? malloc (nparents * sizeof *parents) : NULL;
    if (speculation)
        st->durations = malloc (ntasks * sizeof *st->durations);
    if (!st->tasks || !st->pool || (nparents && !st->parents)
        || (speculation && !st->durations))
        return -1;
    if (nparents)
        memcpy (st->parents, parents, nparents * sizeof *parents);
    st->nparents = st->parents_left = nparents;
    return 0;
}

int
hearth_taskset_add_stage (hearth_taskset_t *self, uint32_t stage, uint64_t job,
                          uint64_t ntasks, const uint32_t *parents,
                          size_t nparents, const char *pool, int weight)
{
    if (ntasks == 0 || ntasks > UINT32_MAX || stage > s_max_stage
        || (self->nstages && self->stages[self->nstages - 1]->id >= stage)) {
        errno = EINVAL;
        return -1;
    }
    size_t left = nparents;
    for (size_t i = 0; i < nparents; i++) {
        ts_stage_t *p = ts_stage (self, parents[i]);
        if (!p || p->job != job) {
            errno = EINVAL;
            return -1;
        }
        if (p->done)
            left--;
    }
    if (self->nstages == self->stages_alloc) {
        size_t n = self->stages_alloc ? self->stages_alloc * 2 : 16;
        ts_stage_t **stages = realloc (self->stages, n * sizeof *stages);
        if (!stages)
            return errno = ENOMEM, -1;
        self->stages = stages;
        self->stages_alloc = n;
    }
    ts_stage_t *st = calloc (1, sizeof *st);
    if (!st
        || s_stage_init (st, stage, job, ntasks, parents, nparents, pool,
                         weight, self->opts.speculation)
               < 0) {
        ts_stage_free (&st);
        return errno = ENOMEM, -1;
    }
    st->parents_left = left;
    self->stages[self->nstages++] = st;
    return 0;
}

/* A task of a held stage run again avoids no executor nor host: neither
   lost its output. */
static const ts_avoid_t s_avoid_nothing = {-1, -1};

int
hearth_taskset_add_stage_held (hearth_taskset_t *self, uint32_t stage,
                               uint64_t job, uint64_t ntasks,
                               const uint32_t *parents, size_t nparents,
                               const char *pool, int weight, const bool *held,
                               const uint16_t *first_attempt)
{
    if (hearth_taskset_add_stage (self, stage, job, ntasks, parents, nparents,
                                  pool, weight)
        < 0)
        return -1;
    ts_stage_t *st = self->stages[self->nstages - 1];
    /* the run times of the tasks that made the held outputs are unknown:
       no median to measure stragglers against */
    free (st->durations);
    st->durations = NULL;
    st->next_fresh = ntasks; /* every task has run once */
    for (uint64_t i = 0; i < ntasks; i++) {
        ts_task_t *t = &st->tasks[i];
        t->next_attempt = first_attempt[i];
        if (held[i]) {
            t->state = TASK_DONE;
            st->finished++;
        }
        else if (ts_queue_push (&st->retry, i, s_avoid_nothing) < 0) {
            self->nstages--; /* as if never added */
            ts_stage_free (&st);
            return errno = ENOMEM, -1;
        }
    }
    st->done = st->finished == ntasks;
    return 0;
}

/* A stage finished: release its children; maybe its job is done. */
static void
s_stage_done (hearth_taskset_t *self, ts_stage_t *st)
{
    st->done = true;
    hearth_ts_event_t ev = {
        .type = HEARTH_TS_EV_STAGE_DONE, .job = st->job, .stage = st->id};
    ts_event_push (self, &ev);
    bool job_done = true;
    for (size_t i = 0; i < self->nstages; i++) {
        ts_stage_t *other = self->stages[i];
        if (other->job != st->job)
            continue;
        for (size_t p = 0; p < other->nparents; p++)
            if (other->parents[p] == st->id) {
                other->parents_left--;
                other->fetch_round_open = false; /* its input is re-made */
            }
        if (!other->done)
            job_done = false;
    }
    if (job_done) {
        ev.type = HEARTH_TS_EV_JOB_DONE;
        ts_event_push (self, &ev);
    }
}

/* ---- executors and attempts ------------------------------------------- */

int
hearth_taskset_add_executor (hearth_taskset_t *self, int exec_id, int cores)
{
    return hearth_taskset_add_executor_on (self, exec_id, cores, NULL);
}

int
hearth_taskset_add_executor_on (hearth_taskset_t *self, int exec_id, int cores,
                                const char *host)
{
    if (ts_exec (self, exec_id) || cores < 1)
        return errno = EEXIST, -1;
    int index = host ? ts_place_index (self, host) : -1;
    ts_exec_t *e = host && index < 0 ? NULL : calloc (1, sizeof *e);
    if (!e)
        return errno = ENOMEM, -1;
    e->id = exec_id;
    e->cores = cores;
    e->host = index;
    e->rack = -1;
    ts_place_count (self, e, true);
    zhashx_insert (self->execs, hearth_intkey (exec_id), e);
    self->cores += (uint64_t) cores;
    return 0;
}

/* Take attempt a off its executor's list (taskset_offer.c links it).
   An executing one frees its core for the oldest queued one. */
static void
s_unlink (hearth_taskset_t *self, ts_exec_t *e, ts_attempt_t *a)
{
    ts_attempt_t *next_up = NULL; /* the oldest queued, if a frees a core */
    if (a->executing) {
        next_up = a == e->edge ? a->prev : e->edge->prev;
        if (a == e->edge)
            e->edge = a->next;
        e->executing--;
    }
    if (a->prev)
        a->prev->next = a->next;
    else
        e->head = a->next;
    if (a->next)
        a->next->prev = a->prev;
    e->inflight--;
    if (!next_up)
        return;
    ts_stage_t *st = ts_stage (self, next_up->key.stage);
    next_up->executing = true;
    e->executing++;
    e->edge = next_up;
    if (st)
        st->executing++;
}

/* Forget an attempt: off its executor, its task and stage counts. */
static void
s_attempt_drop (hearth_taskset_t *self, ts_attempt_t *a)
{
    ts_exec_t *e = ts_exec (self, a->exec_id);
    if (e)
        s_unlink (self, e, a);
    ts_stage_t *st = ts_stage (self, a->key.stage);
    if (e && st && a->holds)
        ts_res_release (e, st, a);
    if (st) {
        st->running--;
        if (a->executing)
            st->executing--;
        if (!a->killing) /* else no longer counted: ts_kill */
            st->tasks[a->key.index].running--;
    }
    ts_akey_t key = a->key;
    zhashx_delete (self->attempts, &key);
}

/* Fail a job: drop its stages from scheduling, kill its attempts. */
static void
s_fail_job (hearth_taskset_t *self, uint64_t job)
{
    for (size_t i = 0; i < self->nstages; i++)
        if (self->stages[i]->job == job)
            self->stages[i]->failed = true;
    for (ts_attempt_t *a = zhashx_first (self->attempts); a;
         a = zhashx_next (self->attempts)) {
        ts_stage_t *st = ts_stage (self, a->key.stage);
        if (st && st->job == job && !a->killing)
            ts_kill (self, st, a);
    }
}

/* The host of executor exec_id (an index in places), or -1. */
static int
s_exec_host (const hearth_taskset_t *self, int exec_id)
{
    ts_exec_t *e = ts_exec (self, exec_id);
    return e ? e->host : -1;
}

/* How an attempt that did not succeed ended. */
typedef enum {
    S_FAILED,           /* it failed: counts toward max_failures */
    S_LOST,             /* lost with its executor: toward max_lost */
    S_PERMANENT,        /* it failed, and a retry would too */
    S_FAILED_WITH_EXEC, /* its executor was killed for what it did (out
                           of memory): toward max_failures */
} s_miss_t;

/* A task's attempt did not succeed: run it again, or give up on its job.
   Returns true if the job was failed. */
static bool
s_requeue (hearth_taskset_t *self, ts_stage_t *st, uint64_t index, int attempt,
           int exec_id, s_miss_t miss)
{
    ts_task_t *t = &st->tasks[index];
    if (t->state == TASK_DONE || st->failed)
        return false;
    bool lost = miss == S_LOST;
    bool give_up = miss == S_PERMANENT
                   || (lost ? ++t->lost > self->opts.max_lost
                            : ++t->failures >= self->opts.max_failures);
    if (give_up) {
        hearth_ts_event_t ev = {.type = HEARTH_TS_EV_JOB_FAILED,
                                .job = st->job,
                                .stage = st->id,
                                .index = index,
                                .attempt = attempt,
                                .exec_id = exec_id,
                                .lost = lost,
                                .with_executor = miss == S_FAILED_WITH_EXEC};
        ts_event_push (self, &ev);
        s_fail_job (self, st->job);
        return true;
    }
    if (t->running == 0) {
        /* A failure may be the host's (a full disk): the retry prefers
           another host.  A loss says nothing of the host. */
        ts_avoid_t avoid = {exec_id, lost ? -1 : s_exec_host (self, exec_id)};
        t->state = TASK_PENDING;
        ts_queue_push (&st->retry, index, avoid);
    }
    return false;
}

int
hearth_taskset_remove_executor (hearth_taskset_t *self, int exec_id)
{
    return hearth_taskset_remove_executor_each (self, exec_id, NULL, NULL);
}

/* Drop every attempt on exec_id, telling fn; each not being killed is
   re-queued as miss says (S_LOST, or S_FAILED when the executor's end
   was its tasks' doing). */
static int
s_remove_executor (hearth_taskset_t *self, int exec_id,
                   hearth_ts_dropped_fn *fn, void *arg, s_miss_t miss)
{
    ts_exec_t *e = ts_exec (self, exec_id);
    if (!e)
        return -1;
    int requeued = 0;
    while (e->head) {
        ts_attempt_t *a = e->head;
        ts_akey_t key = a->key;
        bool killing = a->killing;
        hearth_assign_t as = {.stage = key.stage,
                              .index = key.index,
                              .attempt = key.attempt,
                              .speculative = a->speculative};
        int64_t start_us = a->start_us;
        s_attempt_drop (self, a);
        ts_stage_t *st = ts_stage (self, key.stage);
        bool requeue = st && !killing;
        if (fn)
            fn (arg, &as, start_us, requeue);
        if (!requeue)
            continue;
        s_requeue (self, st, key.index, key.attempt, exec_id, miss);
        requeued++;
    }
    self->cores -= (uint64_t) e->cores;
    ts_place_count (self, e, false);
    zhashx_delete (self->execs, hearth_intkey (exec_id));
    return requeued;
}

int
hearth_taskset_remove_executor_each (hearth_taskset_t *self, int exec_id,
                                     hearth_ts_dropped_fn *fn, void *arg)
{
    return s_remove_executor (self, exec_id, fn, arg, S_LOST);
}

int
hearth_taskset_remove_executor_failed (hearth_taskset_t *self, int exec_id,
                                       hearth_ts_dropped_fn *fn, void *arg)
{
    return s_remove_executor (self, exec_id, fn, arg, S_FAILED_WITH_EXEC);
}

/* ---- status updates --------------------------------------------------- */

static void
s_note_run_time (hearth_taskset_t *self, int64_t run_us)
{
    if (run_us <= 0)
        return;
    if (self->mean_run_us == 0)
        self->mean_run_us = run_us;
    else
        self->mean_run_us += (run_us - self->mean_run_us) / s_ewma_n;
    if (self->mean_run_us == 0)
        self->mean_run_us = 1;
}

/* The task has succeeded: kill its other attempts. */
static void
s_kill_others (hearth_taskset_t *self, ts_stage_t *st, uint64_t index)
{
    ts_task_t *t = &st->tasks[index];
    for (int n = 0; n < t->next_attempt && t->running > 0; n++) {
        ts_akey_t key = {st->id, n, index};
        ts_attempt_t *a = zhashx_lookup (self->attempts, &key);
        if (a && !a->killing)
            ts_kill (self, st, a);
    }
}

static hearth_ts_outcome_t
s_finished (hearth_taskset_t *self, ts_stage_t *st, uint64_t index,
            int64_t run_us)
{
    ts_task_t *t = &st->tasks[index];
    if (t->state == TASK_DONE)
        return HEARTH_TS_DUPLICATE;
    t->state = TASK_DONE;
    if (st->durations)
        st->durations[st->finished] = run_us;
    st->finished++;
    st->fetch_rounds = 0; /* the stage makes progress */
    st->fetch_round_open = false;
    s_kill_others (self, st, index);
    if (st->finished == st->ntasks)
        s_stage_done (self, st);
    return HEARTH_TS_ACCEPT;
}

hearth_ts_outcome_t
hearth_taskset_update (hearth_taskset_t *self, int exec_id, uint32_t stage,
                       uint64_t index, int attempt, hearth_ts_state_t state,
                       int64_t run_us, int64_t now_us)
{
    return hearth_taskset_update_at (self, exec_id, stage, index, attempt,
                                     state, run_us, now_us, NULL);
}

hearth_ts_outcome_t
hearth_taskset_update_at (hearth_taskset_t *self, int exec_id, uint32_t stage,
                          uint64_t index, int attempt, hearth_ts_state_t state,
                          int64_t run_us, int64_t now_us, uint8_t *locality)
{
    (void) now_us;
    ts_akey_t key = {stage, attempt, index};
    ts_attempt_t *a = zhashx_lookup (self->attempts, &key);
    if (!a || a->exec_id != exec_id)
        return HEARTH_TS_STALE;
    if (locality)
        *locality = a->locality;
    if (state == HEARTH_TS_RUNNING)
        return HEARTH_TS_NOTED;
    ts_stage_t *st = ts_stage (self, stage);
    bool killing = a->killing;
    s_attempt_drop (self, a);
    if (state != HEARTH_TS_KILLED && state != HEARTH_TS_FETCH_FAILED
        && state != HEARTH_TS_LOST)
        s_note_run_time (self, run_us); /* not a run of the task's work */
    if (!st || st->failed)
        return HEARTH_TS_RELEASED;
    if (state == HEARTH_TS_FINISHED)
        return s_finished (self, st, index, run_us);
    if (state == HEARTH_TS_FETCH_FAILED)
        return ts_fetch_failed (self, st, index, killing);
    if (killing || st->tasks[index].state == TASK_DONE)
        return HEARTH_TS_RELEASED;
    /* killed not at our request, or never launched: as if its executor
       were lost */
    s_miss_t miss = state == HEARTH_TS_KILLED || state == HEARTH_TS_LOST
                        ? S_LOST
                    : state == HEARTH_TS_FAILED_PERMANENT ? S_PERMANENT
                                                          : S_FAILED;
    return s_requeue (self, st, index, attempt, exec_id, miss)
               ? HEARTH_TS_GAVE_UP
               : HEARTH_TS_RETRY;
}

/* ---- output commits ---------------------------------------------------- */

/* Attempt of task index of st in flight, not being killed. */
static bool
s_in_flight (const hearth_taskset_t *self, const ts_stage_t *st, uint64_t index,
             int attempt)
{
    ts_akey_t key = {st->id, attempt, index};
    const ts_attempt_t *a = zhashx_lookup (self->attempts, &key);
    return a && !a->killing;
}

int
hearth_taskset_set_stage_commits (hearth_taskset_t *self, uint32_t stage)
{
    ts_stage_t *st = ts_stage (self, stage);
    if (!st)
        return errno = EINVAL, -1;
    if (st->committer)
        return 0;
    if (!(st->committer = malloc (st->ntasks * sizeof *st->committer)))
        return errno = ENOMEM, -1;
    for (uint64_t i = 0; i < st->ntasks; i++)
        st->committer[i] = -1;
    return 0;
}

bool
hearth_taskset_may_commit (hearth_taskset_t *self, int exec_id, uint32_t stage,
                           uint64_t index, int attempt)
{
    ts_akey_t key = {stage, attempt, index};
    ts_attempt_t *a = zhashx_lookup (self->attempts, &key);
    ts_stage_t *st = ts_stage (self, stage);
    if (!a || a->exec_id != exec_id || a->killing || !st || st->failed
        || !st->committer) /* nothing to commit: the attempt goes on */
        return false;
    ts_task_t *t = &st->tasks[index];
    int before = st->committer[index];
    if (t->state != TASK_DONE
        && (before < 0 || before == attempt
            || !s_in_flight (self, st, index, before))) {
        st->committer[index] = (int16_t) attempt;
        return true;
    }
    /* denied: being killed, quietly (the answer tells its executor), so
       that its KILLED end re-queues nothing */
    a->killing = true;
    t->running--;
    return false;
}

/* ---- jobs and counts -------------------------------------------------- */

void
hearth_taskset_fail_job (hearth_taskset_t *self, uint64_t job)
{
    s_fail_job (self, job);
}

void
hearth_taskset_forget_job (hearth_taskset_t *self, uint64_t job)
{
    /* A job that ended cleanly has nothing in flight: skip the walk over
       the whole attempt table (its buckets, even when empty, cost a scan
       per job: measured in the single-task latency benchmark). */
    uint64_t running = 0;
    for (size_t i = 0; i < self->nstages; i++)
        if (self->stages[i]->job == job)
            running += self->stages[i]->running;
    ts_attempt_t *a = running ? zhashx_first (self->attempts) : NULL;
    while (a) {
        ts_stage_t *st = ts_stage (self, a->key.stage);
        ts_attempt_t *next = zhashx_next (self->attempts);
        if (st && st->job == job) {
            s_attempt_drop (self, a);
            next = zhashx_first (self->attempts); /* the cursor moved */
        }
        a = next;
    }
    size_t kept = 0;
    for (size_t i = 0; i < self->nstages; i++) {
        if (self->stages[i]->job == job)
            ts_stage_free (&self->stages[i]);
        else
            self->stages[kept++] = self->stages[i];
    }
    self->nstages = kept;
}

int
hearth_taskset_stage_counts (const hearth_taskset_t *self, uint32_t stage,
                             uint64_t *finished, uint64_t *running,
                             uint64_t *total)
{
    const ts_stage_t *st = ts_stage (self, stage);
    if (!st)
        return -1;
    *finished = st->finished;
    /* attempts sent beyond an executor's cores wait in its queue */
    *running = st->executing;
    *total = st->ntasks;
    return 0;
}

size_t
hearth_taskset_inflight (const hearth_taskset_t *self)
{
    return zhashx_size (self->attempts);
}

/*  taskset.c - the driver's task-set bookkeeping; see taskset.h.

    Memory: 8 bytes per task (s_task_t), plus one s_attempt_t per attempt in
    flight (bounded by the executors' slots), so a stage of a million tasks
    costs a few megabytes.
*/
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/intkeys.h"
#include "libcore/taskset.h"

/* Stage ids stay below 2^21 so that stage << 32 | index is exact in JSON. */
static const uint32_t s_max_stage = (1u << 21) - 1;
/* Entries of a retry queue looked at to find one for an executor. */
static const size_t s_lookahead = 64;
/* EWMA weight of a new run time, as 1/n. */
static const int64_t s_ewma_n = 16;

enum { T_PENDING = 0, T_RUNNING = 1, T_DONE = 2 };

typedef struct {
    uint8_t state;         /* T_PENDING, T_RUNNING or T_DONE */
    uint8_t running;       /* attempts in flight */
    uint8_t failures;      /* attempts that failed */
    uint8_t lost;          /* attempts lost with their executor */
    uint16_t next_attempt; /* number of the next attempt */
    uint8_t speculated;    /* a copy was queued */
    uint8_t spare;
} s_task_t;

/* A queue of tasks to re-run, each avoiding the executor it last ran on. */
typedef struct {
    uint64_t *index; /* task indices */
    int *avoid;      /* executor to avoid, or -1 */
    size_t head;     /* first live entry */
    size_t tail;     /* one past the last */
    size_t alloc;    /* allocated entries */
} s_queue_t;

typedef struct {
    uint32_t id;         /* stage id */
    uint64_t job;        /* job it belongs to */
    uint64_t ntasks;     /* tasks in the stage */
    s_task_t *tasks;     /* ntasks entries */
    uint64_t next_fresh; /* tasks from here on never launched */
    s_queue_t retry;     /* failed or lost tasks to run again */
    s_queue_t spec;      /* stragglers to copy */
    uint64_t finished;   /* tasks done */
    uint64_t running;    /* attempts in flight */
    uint32_t *parents;   /* stages that must finish first */
    size_t nparents;     /* count */
    size_t parents_left; /* of them not finished yet */
    bool done;           /* every task finished */
    bool failed;         /* its job failed */
    char *pool;          /* FAIR pool */
    int weight;          /* FAIR weight */
    int64_t *durations;  /* run times of finished tasks (speculation) */
} s_stage_t;

/* Identity of an attempt: the hash key. */
typedef struct {
    uint32_t stage;
    int32_t attempt;
    uint64_t index;
} s_akey_t;

typedef struct s_attempt s_attempt_t;
struct s_attempt {
    s_akey_t key;      /* stage, index, attempt */
    int exec_id;       /* where it runs */
    int64_t start_us;  /* when it was offered */
    bool speculative;  /* a copy */
    bool killing;      /* we asked for it to be killed */
    s_attempt_t *prev; /* the executor's list */
    s_attempt_t *next;
};

typedef struct {
    int id;            /* executor id */
    int cores;         /* task slots without prefetch */
    size_t inflight;   /* attempts on it */
    s_attempt_t *head; /* them */
} s_exec_t;

struct hearth_taskset {
    hearth_taskset_opts_t opts; /* rules */
    s_stage_t **stages;         /* in id order (= submission order) */
    size_t nstages, stages_alloc;
    zhashx_t *attempts;        /* s_akey_t -> s_attempt_t in flight */
    zhashx_t *execs;           /* exec id -> s_exec_t */
    hearth_ts_event_t *events; /* FIFO of events for the engine */
    size_t ev_head, ev_tail, ev_alloc;
    int64_t mean_run_us; /* EWMA of attempt run times, 0: none yet */
    uint64_t cores;      /* of every executor: how many attempts can run */
};

/* ---- small helpers ---------------------------------------------------- */

static size_t
s_akey_hash (const void *key)
{
    const s_akey_t *k = key;
    uint64_t h = ((uint64_t) k->stage << 40)
                 ^ (k->index * 0x9E3779B97F4A7C15ull) ^ (uint64_t) k->attempt;
    return (size_t) (h ^ (h >> 29));
}

static int
s_akey_cmp (const void *a, const void *b)
{
    const s_akey_t *x = a, *y = b;
    if (x->stage != y->stage)
        return x->stage < y->stage ? -1 : 1;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->attempt - y->attempt;
}

static s_exec_t *
s_exec (const hearth_taskset_t *self, int id)
{
    return zhashx_lookup (self->execs, hearth_intkey (id));
}

static int
s_queue_push (s_queue_t *q, uint64_t index, int avoid)
{
    if (q->tail == q->alloc) {
        if (q->head > 0) { /* slide down before growing */
            size_t n = q->tail - q->head;
            memmove (q->index, q->index + q->head, n * sizeof *q->index);
            memmove (q->avoid, q->avoid + q->head, n * sizeof *q->avoid);
            q->head = 0;
            q->tail = n;
        }
        if (q->tail == q->alloc) {
            size_t n = q->alloc ? q->alloc * 2 : 16;
            uint64_t *indices = realloc (q->index, n * sizeof *indices);
            if (indices)
                q->index = indices;
            int *avoids = realloc (q->avoid, n * sizeof *avoids);
            if (avoids)
                q->avoid = avoids;
            if (!indices || !avoids)
                return -1;
            q->alloc = n;
        }
    }
    q->index[q->tail] = index;
    q->avoid[q->tail] = avoid;
    q->tail++;
    return 0;
}

static size_t
s_queue_size (const s_queue_t *q)
{
    return q->tail - q->head;
}

/* Take the first entry usable by exec_id (one not avoiding it, unless
   alone is true).  Returns true and sets *index. */
static bool
s_queue_take (s_queue_t *q, int exec_id, bool alone, uint64_t *index)
{
    size_t end =
        q->head + s_lookahead < q->tail ? q->head + s_lookahead : q->tail;
    for (size_t i = q->head; i < end; i++) {
        if (q->avoid[i] == exec_id && !alone)
            continue;
        *index = q->index[i];
        q->index[i] = q->index[q->head]; /* keep the rest, fill the hole */
        q->avoid[i] = q->avoid[q->head];
        q->head++;
        return true;
    }
    return false;
}

static void
s_queue_free (s_queue_t *q)
{
    free (q->index);
    free (q->avoid);
    memset (q, 0, sizeof *q);
}

static void
s_event (hearth_taskset_t *self, const hearth_ts_event_t *ev)
{
    if (self->ev_tail == self->ev_alloc) {
        size_t live = self->ev_tail - self->ev_head;
        if (self->ev_head > 0) {
            memmove (self->events, self->events + self->ev_head,
                     live * sizeof *self->events);
            self->ev_head = 0;
            self->ev_tail = live;
        }
        if (self->ev_tail == self->ev_alloc) {
            size_t n = self->ev_alloc ? self->ev_alloc * 2 : 64;
            hearth_ts_event_t *events =
                realloc (self->events, n * sizeof *events);
            if (!events)
                return; /* out of memory: the event is lost, not the board */
            self->events = events;
            self->ev_alloc = n;
        }
    }
    self->events[self->ev_tail++] = *ev;
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
    };
}

static void
s_attempt_free (void **item)
{
    free (*item);
    *item = NULL;
}

static void
s_exec_free (void **item)
{
    free (*item);
    *item = NULL;
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
    zhashx_set_destructor (self->attempts, s_attempt_free);
    hearth_intkeys_setup (self->execs);
    zhashx_set_destructor (self->execs, s_exec_free);
    return self;
}

static void
s_stage_free (s_stage_t *st)
{
    if (!st)
        return;
    free (st->tasks);
    s_queue_free (&st->retry);
    s_queue_free (&st->spec);
    free (st->parents);
    free (st->pool);
    free (st->durations);
    free (st);
}

void
hearth_taskset_destroy (hearth_taskset_t **self_p)
{
    hearth_taskset_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->nstages; i++)
        s_stage_free (self->stages[i]);
    free (self->stages);
    zhashx_destroy (&self->attempts);
    zhashx_destroy (&self->execs);
    free (self->events);
    free (self);
    *self_p = NULL;
}

static s_stage_t *
s_stage (const hearth_taskset_t *self, uint32_t id)
{
    size_t lo = 0, hi = self->nstages;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint32_t mid_id = self->stages[mid]->id;
        if (mid_id == id)
            return self->stages[mid];
        if (mid_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- stages ----------------------------------------------------------- */

static int
s_stage_init (s_stage_t *st, uint32_t id, uint64_t job, uint64_t ntasks,
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
        s_stage_t *p = s_stage (self, parents[i]);
        if (!p || p->job != job) {
            errno = EINVAL;
            return -1;
        }
        if (p->done)
            left--;
    }
    if (self->nstages == self->stages_alloc) {
        size_t n = self->stages_alloc ? self->stages_alloc * 2 : 16;
        s_stage_t **stages = realloc (self->stages, n * sizeof *stages);
        if (!stages)
            return errno = ENOMEM, -1;
        self->stages = stages;
        self->stages_alloc = n;
    }
    s_stage_t *st = calloc (1, sizeof *st);
    if (!st
        || s_stage_init (st, stage, job, ntasks, parents, nparents, pool,
                         weight, self->opts.speculation)
               < 0) {
        s_stage_free (st);
        return errno = ENOMEM, -1;
    }
    st->parents_left = left;
    self->stages[self->nstages++] = st;
    return 0;
}

static bool
s_stage_runnable (const s_stage_t *st)
{
    return !st->done && !st->failed && st->parents_left == 0;
}

/* A stage finished: release its children; maybe its job is done. */
static void
s_stage_done (hearth_taskset_t *self, s_stage_t *st)
{
    st->done = true;
    hearth_ts_event_t ev = {
        .type = HEARTH_TS_EV_STAGE_DONE, .job = st->job, .stage = st->id};
    s_event (self, &ev);
    bool job_done = true;
    for (size_t i = 0; i < self->nstages; i++) {
        s_stage_t *other = self->stages[i];
        if (other->job != st->job)
            continue;
        for (size_t p = 0; p < other->nparents; p++)
            if (other->parents[p] == st->id)
                other->parents_left--;
        if (!other->done)
            job_done = false;
    }
    if (job_done) {
        ev.type = HEARTH_TS_EV_JOB_DONE;
        s_event (self, &ev);
    }
}

/* ---- executors and attempts ------------------------------------------- */

int
hearth_taskset_add_executor (hearth_taskset_t *self, int exec_id, int cores)
{
    if (s_exec (self, exec_id) || cores < 1)
        return errno = EEXIST, -1;
    s_exec_t *e = calloc (1, sizeof *e);
    if (!e)
        return errno = ENOMEM, -1;
    e->id = exec_id;
    e->cores = cores;
    zhashx_insert (self->execs, hearth_intkey (exec_id), e);
    self->cores += (uint64_t) cores;
    return 0;
}

static void
s_link (s_exec_t *e, s_attempt_t *a)
{
    a->prev = NULL;
    a->next = e->head;
    if (e->head)
        e->head->prev = a;
    e->head = a;
    e->inflight++;
}

static void
s_unlink (s_exec_t *e, s_attempt_t *a)
{
    if (a->prev)
        a->prev->next = a->next;
    else
        e->head = a->next;
    if (a->next)
        a->next->prev = a->prev;
    e->inflight--;
}

/* Forget an attempt: off its executor, its task and stage counts. */
static void
s_attempt_drop (hearth_taskset_t *self, s_attempt_t *a)
{
    s_exec_t *e = s_exec (self, a->exec_id);
    if (e)
        s_unlink (e, a);
    s_stage_t *st = s_stage (self, a->key.stage);
    if (st) {
        st->running--;
        st->tasks[a->key.index].running--;
    }
    s_akey_t key = a->key;
    zhashx_delete (self->attempts, &key);
}

/* Fail a job: drop its stages from scheduling, kill its attempts. */
static void
s_fail_job (hearth_taskset_t *self, uint64_t job)
{
    for (size_t i = 0; i < self->nstages; i++)
        if (self->stages[i]->job == job)
            self->stages[i]->failed = true;
    for (s_attempt_t *a = zhashx_first (self->attempts); a;
         a = zhashx_next (self->attempts)) {
        s_stage_t *st = s_stage (self, a->key.stage);
        if (!st || st->job != job || a->killing)
            continue;
        a->killing = true;
        hearth_ts_event_t ev = {.type = HEARTH_TS_EV_KILL,
                                .job = job,
                                .stage = a->key.stage,
                                .index = a->key.index,
                                .attempt = a->key.attempt,
                                .exec_id = a->exec_id};
        s_event (self, &ev);
    }
}

/* A task's attempt did not succeed (failed or lost): run it again, or
   give up on its job.  Returns true if the job was failed. */
static bool
s_requeue (hearth_taskset_t *self, s_stage_t *st, uint64_t index, int attempt,
           int exec_id, bool lost)
{
    s_task_t *t = &st->tasks[index];
    if (t->state == T_DONE || st->failed)
        return false;
    bool give_up = lost ? ++t->lost > self->opts.max_lost
                        : ++t->failures >= self->opts.max_failures;
    if (give_up) {
        hearth_ts_event_t ev = {.type = HEARTH_TS_EV_JOB_FAILED,
                                .job = st->job,
                                .stage = st->id,
                                .index = index,
                                .attempt = attempt,
                                .exec_id = exec_id,
                                .lost = lost};
        s_event (self, &ev);
        s_fail_job (self, st->job);
        return true;
    }
    if (t->running == 0) {
        t->state = T_PENDING;
        s_queue_push (&st->retry, index, exec_id);
    }
    return false;
}

int
hearth_taskset_remove_executor (hearth_taskset_t *self, int exec_id)
{
    s_exec_t *e = s_exec (self, exec_id);
    if (!e)
        return -1;
    int requeued = 0;
    while (e->head) {
        s_attempt_t *a = e->head;
        s_akey_t key = a->key;
        bool killing = a->killing;
        s_attempt_drop (self, a);
        s_stage_t *st = s_stage (self, key.stage);
        if (!st || killing)
            continue;
        s_requeue (self, st, key.index, key.attempt, exec_id, true);
        requeued++;
    }
    self->cores -= (uint64_t) e->cores;
    zhashx_delete (self->execs, hearth_intkey (exec_id));
    return requeued;
}

size_t
hearth_taskset_slots (const hearth_taskset_t *self, int cores)
{
    int64_t mean = self->mean_run_us;
    int64_t extra = 1; /* no run time known yet: one ahead per core */
    if (mean > 0) {
        extra = (self->opts.prefetch_target_us + mean - 1) / mean;
        if (extra < 1)
            extra = 1;
        if (mean >= 1000000)
            extra = 0; /* long tasks: no tail imbalance for one round trip */
    }
    if (extra > self->opts.prefetch_max)
        extra = self->opts.prefetch_max; /* --task-prefetch 0: none, ever */
    return (size_t) cores * (size_t) (1 + extra);
}

size_t
hearth_taskset_free_slots (const hearth_taskset_t *self, int exec_id)
{
    s_exec_t *e = s_exec (self, exec_id);
    if (!e)
        return 0;
    size_t slots = hearth_taskset_slots (self, e->cores);
    return e->inflight < slots ? slots - e->inflight : 0;
}

/* ---- offers ----------------------------------------------------------- */

static bool
s_alone (const hearth_taskset_t *self)
{
    return zhashx_size (self->execs) <= 1;
}

/* The next task of st for exec e.  Returns true and fills *out. */
static bool
s_pick_task (hearth_taskset_t *self, s_stage_t *st, s_exec_t *e,
             hearth_assign_t *out)
{
    uint64_t index;
    bool speculative = false;
    if (s_queue_take (&st->retry, e->id, s_alone (self), &index))
        ;
    else if (st->next_fresh < st->ntasks)
        index = st->next_fresh++;
    else {
        for (;;) {
            if (!s_queue_take (&st->spec, e->id, false, &index))
                return false;
            if (st->tasks[index].state != T_DONE)
                break; /* a copy still worth running */
        }
        speculative = true;
    }
    s_task_t *t = &st->tasks[index];
    out->stage = st->id;
    out->index = index;
    out->attempt = t->next_attempt++;
    out->speculative = speculative;
    return true;
}

static void
s_launch (hearth_taskset_t *self, s_stage_t *st, s_exec_t *e,
          const hearth_assign_t *as, int64_t now_us)
{
    s_attempt_t *a = calloc (1, sizeof *a);
    if (!a)
        return;
    a->key = (s_akey_t){as->stage, as->attempt, as->index};
    a->exec_id = e->id;
    a->start_us = now_us;
    a->speculative = as->speculative;
    zhashx_insert (self->attempts, &a->key, a);
    s_link (e, a);
    s_task_t *t = &st->tasks[as->index];
    t->state = T_RUNNING;
    t->running++;
    st->running++;
}

static bool
s_has_work (const s_stage_t *st)
{
    return s_stage_runnable (st)
           && (s_queue_size (&st->retry) || st->next_fresh < st->ntasks
               || s_queue_size (&st->spec));
}

/* FAIR: pool_running[i] is the number of attempts running in stage i's
   pool.  Pick the stage with work whose pool has the fewest running
   attempts per unit of weight (ties: the earlier stage).  Returns its
   position in stages, or -1. */
static ssize_t
s_fair_pick (const hearth_taskset_t *self, const uint64_t *pool_running,
             const bool *tried)
{
    ssize_t best = -1;
    double best_share = 0;
    for (size_t i = 0; i < self->nstages; i++) {
        const s_stage_t *st = self->stages[i];
        if (tried[i] || !s_has_work (st))
            continue;
        double share = (double) pool_running[i] / st->weight;
        if (best < 0 || share < best_share) {
            best = (ssize_t) i;
            best_share = share;
        }
    }
    return best;
}

/* Count, for each stage, the attempts running in its pool. */
static void
s_pool_counts (const hearth_taskset_t *self, uint64_t *pool_running)
{
    for (size_t i = 0; i < self->nstages; i++) {
        pool_running[i] = 0;
        for (size_t j = 0; j < self->nstages; j++)
            if (strcmp (self->stages[j]->pool, self->stages[i]->pool) == 0)
                pool_running[i] += self->stages[j]->running;
    }
}

static size_t
s_offer_fair (hearth_taskset_t *self, s_exec_t *e, int64_t now_us,
              hearth_assign_t *out, size_t want)
{
    size_t n = 0, count = self->nstages ? self->nstages : 1;
    bool *tried = calloc (count, sizeof *tried);
    uint64_t *pool_running = calloc (count, sizeof *pool_running);
    if (tried && pool_running)
        s_pool_counts (self, pool_running);
    while (tried && pool_running && n < want) {
        ssize_t i = s_fair_pick (self, pool_running, tried);
        if (i < 0)
            break;
        s_stage_t *st = self->stages[i];
        if (!s_pick_task (self, st, e, &out[n])) {
            tried[i] = true; /* nothing there for this executor */
            continue;
        }
        s_launch (self, st, e, &out[n++], now_us);
        for (size_t j = 0; j < self->nstages; j++)
            if (strcmp (self->stages[j]->pool, st->pool) == 0)
                pool_running[j]++;
    }
    free (tried);
    free (pool_running);
    return n;
}

static size_t
s_offer_fifo (hearth_taskset_t *self, s_exec_t *e, int64_t now_us,
              hearth_assign_t *out, size_t want)
{
    size_t n = 0;
    for (size_t i = 0; i < self->nstages && n < want; i++) {
        s_stage_t *st = self->stages[i];
        while (n < want && s_has_work (st)
               && s_pick_task (self, st, e, &out[n]))
            s_launch (self, st, e, &out[n++], now_us);
    }
    return n;
}

size_t
hearth_taskset_offer (hearth_taskset_t *self, int exec_id, int64_t now_us,
                      hearth_assign_t *out, size_t max)
{
    s_exec_t *e = s_exec (self, exec_id);
    if (!e)
        return 0;
    size_t want = hearth_taskset_free_slots (self, exec_id);
    if (want > max)
        want = max;
    if (want == 0)
        return 0;
    return self->opts.fair ? s_offer_fair (self, e, now_us, out, want)
                           : s_offer_fifo (self, e, now_us, out, want);
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
s_kill_others (hearth_taskset_t *self, s_stage_t *st, uint64_t index)
{
    s_task_t *t = &st->tasks[index];
    for (int n = 0; n < t->next_attempt && t->running > 0; n++) {
        s_akey_t key = {st->id, n, index};
        s_attempt_t *a = zhashx_lookup (self->attempts, &key);
        if (!a || a->killing)
            continue;
        a->killing = true;
        hearth_ts_event_t ev = {.type = HEARTH_TS_EV_KILL,
                                .job = st->job,
                                .stage = st->id,
                                .index = index,
                                .attempt = n,
                                .exec_id = a->exec_id};
        s_event (self, &ev);
    }
}

static hearth_ts_outcome_t
s_finished (hearth_taskset_t *self, s_stage_t *st, uint64_t index,
            int64_t run_us)
{
    s_task_t *t = &st->tasks[index];
    if (t->state == T_DONE)
        return HEARTH_TS_DUPLICATE;
    t->state = T_DONE;
    if (st->durations)
        st->durations[st->finished] = run_us;
    st->finished++;
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
    (void) now_us;
    s_akey_t key = {stage, attempt, index};
    s_attempt_t *a = zhashx_lookup (self->attempts, &key);
    if (!a || a->exec_id != exec_id)
        return HEARTH_TS_STALE;
    if (state == HEARTH_TS_RUNNING)
        return HEARTH_TS_NOTED;
    s_stage_t *st = s_stage (self, stage);
    bool killing = a->killing;
    s_attempt_drop (self, a);
    if (state == HEARTH_TS_FINISHED || state == HEARTH_TS_FAILED)
        s_note_run_time (self, run_us);
    if (!st || st->failed)
        return HEARTH_TS_RELEASED;
    if (state == HEARTH_TS_FINISHED)
        return s_finished (self, st, index, run_us);
    if (killing || st->tasks[index].state == T_DONE)
        return HEARTH_TS_RELEASED;
    bool lost = state == HEARTH_TS_KILLED; /* not at our request */
    return s_requeue (self, st, index, attempt, exec_id, lost)
               ? HEARTH_TS_GAVE_UP
               : HEARTH_TS_RETRY;
}

/* ---- speculation ------------------------------------------------------ */

/* The k-th smallest of v[0..n) (reorders v). */
static int64_t
s_select (int64_t *v, ssize_t n, ssize_t k)
{
    ssize_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t pivot = v[lo + (hi - lo) / 2];
        ssize_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                int64_t tmp = v[i];
                v[i++] = v[j];
                v[j--] = tmp;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

/* The run time past which an attempt of st is a straggler, or 0. */
static int64_t
s_threshold (const hearth_taskset_t *self, const s_stage_t *st)
{
    if (!s_stage_runnable (st) || st->finished == 0 || !st->durations
        || (double) st->finished < self->opts.spec_quantile * st->ntasks)
        return 0;
    int64_t *copy = malloc (st->finished * sizeof *copy);
    if (!copy)
        return 0;
    memcpy (copy, st->durations, st->finished * sizeof *copy);
    int64_t median =
        s_select (copy, (ssize_t) st->finished, (ssize_t) st->finished / 2);
    free (copy);
    int64_t threshold = (int64_t) (self->opts.spec_multiplier * median);
    return threshold > self->opts.spec_min_us ? threshold
                                              : self->opts.spec_min_us;
}

size_t
hearth_taskset_speculate (hearth_taskset_t *self, int64_t now_us)
{
    if (!self->opts.speculation || self->nstages == 0)
        return 0;
    int64_t *threshold = calloc (self->nstages, sizeof *threshold);
    if (!threshold)
        return 0;
    bool any = false;
    for (size_t i = 0; i < self->nstages; i++)
        any |= (threshold[i] = s_threshold (self, self->stages[i])) > 0;
    size_t found = 0;
    for (s_attempt_t *a = any ? zhashx_first (self->attempts) : NULL; a;
         a = zhashx_next (self->attempts)) {
        s_stage_t *st = s_stage (self, a->key.stage);
        size_t pos = 0;
        while (pos < self->nstages && self->stages[pos] != st)
            pos++;
        if (!st || threshold[pos] == 0 || a->speculative || a->killing)
            continue;
        s_task_t *t = &st->tasks[a->key.index];
        if (t->speculated || t->running != 1 || t->state == T_DONE
            || now_us - a->start_us <= threshold[pos])
            continue;
        t->speculated = 1;
        s_queue_push (&st->spec, a->key.index, a->exec_id);
        found++;
    }
    free (threshold);
    return found;
}

/* ---- jobs and events -------------------------------------------------- */

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
    s_attempt_t *a = running ? zhashx_first (self->attempts) : NULL;
    while (a) {
        s_stage_t *st = s_stage (self, a->key.stage);
        s_attempt_t *next = zhashx_next (self->attempts);
        if (st && st->job == job) {
            s_attempt_drop (self, a);
            next = zhashx_first (self->attempts); /* the cursor moved */
        }
        a = next;
    }
    size_t kept = 0;
    for (size_t i = 0; i < self->nstages; i++) {
        if (self->stages[i]->job == job)
            s_stage_free (self->stages[i]);
        else
            self->stages[kept++] = self->stages[i];
    }
    self->nstages = kept;
}

bool
hearth_taskset_next_event (hearth_taskset_t *self, hearth_ts_event_t *ev)
{
    if (self->ev_head == self->ev_tail)
        return false;
    *ev = self->events[self->ev_head++];
    if (self->ev_head == self->ev_tail)
        self->ev_head = self->ev_tail = 0;
    return true;
}

int
hearth_taskset_stage_counts (const hearth_taskset_t *self, uint32_t stage,
                             uint64_t *finished, uint64_t *running,
                             uint64_t *total)
{
    const s_stage_t *st = s_stage (self, stage);
    if (!st)
        return -1;
    *finished = st->finished;
    /* attempts sent beyond the cores wait in the executors' queues */
    *running = st->running < self->cores ? st->running : self->cores;
    *total = st->ntasks;
    return 0;
}

size_t
hearth_taskset_inflight (const hearth_taskset_t *self)
{
    return zhashx_size (self->attempts);
}

/*  detail.c - one application's figures in one pass; see detail.h. */
#include "config.h"

#include <czmq.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history/detail.h"
#include "history/tasklog.h"

/* Ids above this are a damaged line, not a job, stage or executor. */
static const int64_t s_max_id = 1 << 20;
/* The app_end totals of web-wire §5. */
static const char *const s_end_keys[] = {"duration_ms",      "tasks_succeeded",
                                         "tasks_failed",     "executors",
                                         "core_ms_reserved", "core_ms_used"};
#define N_END (sizeof s_end_keys / sizeof s_end_keys[0])

struct hist_detail {
    hist_app_t *app;          /* the listing's summary, fed alongside */
    cJSON *settings;          /* log_start's, or NULL */
    hist_job_t *jobs;         /* by id */
    size_t njobs;             /* slots */
    hist_stage_t *stages;     /* by id */
    size_t nstages;           /* slots */
    hist_exec_t *execs;       /* by id */
    size_t nexecs;            /* slots */
    hist_attempt_t *top;      /* the slowest attempts, slowest first */
    size_t ntop, top_cap;     /* used, wanted */
    zhashx_t *fail_by_task;   /* "stage:index" -> hist_taskfail_t (owned) */
    hist_taskfail_t *fails;   /* after finish: sorted by stage, index */
    size_t nfails;            /* entries */
    hist_vec_t ok_us;         /* every FINISHED attempt's run_us */
    int64_t run_us_sum;       /* every attempt's */
    int64_t started, ended;   /* task_start, task_end events */
    int64_t dropped;          /* events_dropped counts */
    int64_t end_total[N_END]; /* app_end's, -1: absent */
    hist_tasklog_t *tasklog;  /* the timeline's attempts, or NULL */
};

hist_detail_t *
hist_detail_new (const char *id, int top)
{
    hist_detail_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->top_cap = top > 0 ? (size_t) top : 0;
    self->app = hist_app_new (id);
    self->top = calloc (self->top_cap + 1, sizeof *self->top);
    self->fail_by_task = zhashx_new ();
    for (size_t i = 0; i < N_END; i++)
        self->end_total[i] = -1;
    if (!self->app || !self->top || !self->fail_by_task)
        hist_detail_destroy (&self);
    return self;
}

static void
s_fail_destroy (void **item)
{
    hist_taskfail_t *f = *item;
    if (f) {
        free (f->last_error);
        free (f);
    }
    *item = NULL;
}

void
hist_detail_destroy (hist_detail_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    hist_detail_t *self = *self_p;
    for (size_t i = 0; i < self->njobs; i++) {
        free (self->jobs[i].name);
        free (self->jobs[i].state);
        free (self->jobs[i].error);
    }
    for (size_t i = 0; i < self->nstages; i++) {
        free (self->stages[i].name);
        free (self->stages[i].state);
        free (self->stages[i].skip_reason);
        free (self->stages[i].ok_us.v);
    }
    for (size_t i = 0; i < self->nexecs; i++) {
        free (self->execs[i].host);
        free (self->execs[i].worker);
        free (self->execs[i].reason);
    }
    if (self->fail_by_task) {
        zhashx_set_destructor (self->fail_by_task, s_fail_destroy);
        zhashx_destroy (&self->fail_by_task);
    }
    for (size_t i = 0; i < self->nfails; i++)
        free (self->fails[i].last_error);
    free (self->fails);
    free (self->jobs);
    free (self->stages);
    free (self->execs);
    free (self->top);
    free (self->ok_us.v);
    cJSON_Delete (self->settings);
    hist_tasklog_destroy (&self->tasklog);
    hist_app_destroy (&self->app);
    free (self);
    *self_p = NULL;
}

/* ---- helpers ------------------------------------------------------------- */

/* The slot id of a by-id array of elem-byte entries, grown and zeroed as
   needed; NULL for a bad id or no memory. */
static void *
s_slot (void **arr, size_t *n, size_t elem, int64_t id)
{
    if (id < 0 || id > s_max_id)
        return NULL;
    if ((size_t) id >= *n) {
        size_t m = *n ? *n : 8;
        while (m <= (size_t) id)
            m *= 2;
        char *a = realloc (*arr, m * elem);
        if (!a)
            return NULL;
        memset (a + *n * elem, 0, (m - *n) * elem);
        *arr = a;
        *n = m;
    }
    return (char *) *arr + (size_t) id * elem;
}

static int
s_push (hist_vec_t *v, int64_t x)
{
    if (v->n == v->alloc) {
        size_t m = v->alloc ? v->alloc * 2 : 64;
        int64_t *p = realloc (v->v, m * sizeof *p);
        if (!p)
            return -1;
        v->v = p;
        v->alloc = m;
    }
    v->v[v->n++] = x;
    return 0;
}

static void
s_set_str (char **dst, const hist_line_t *l, const char *key)
{
    char *s = hist_line_str (l, key);
    if (s) {
        free (*dst);
        *dst = s;
    }
}

/* ---- events -------------------------------------------------------------- */

/* Cut every string of a settings tree, keys too, to HIST_MAX_STR
   (hist_cap). */
static void
s_cap_strings (cJSON *item)
{
    for (; item; item = item->next) {
        if (item->string)
            hist_cap (item->string);
        if (cJSON_IsString (item) && item->valuestring)
            hist_cap (item->valuestring);
        s_cap_strings (item->child);
    }
}

static void
s_log_start (hist_detail_t *self, const hist_line_t *l)
{
    const hist_field_t *f = hist_line_get (l, "settings");
    if (f && !self->settings) {
        self->settings = cJSON_ParseWithLength (f->val, f->val_len);
        if (self->settings)
            s_cap_strings (self->settings->child);
    }
}

static void
s_job (hist_detail_t *self, const hist_line_t *l, bool end)
{
    hist_job_t *j = s_slot ((void **) &self->jobs, &self->njobs, sizeof *j,
                            hist_line_int_or (l, "job", -1));
    if (!j)
        return;
    if (!j->seen)
        j->start_ms = j->end_ms = -1;
    j->seen = true;
    s_set_str (&j->name, l, "name");
    if (end) {
        j->end_ms = l->time_ms;
        s_set_str (&j->state, l, "state");
        s_set_str (&j->error, l, "error");
    }
    else {
        j->start_ms = l->time_ms;
        j->stages = hist_line_int_or (l, "stages", 0);
    }
}

static hist_stage_t *
s_stage (hist_detail_t *self, int64_t id)
{
    hist_stage_t *s =
        s_slot ((void **) &self->stages, &self->nstages, sizeof *s, id);
    if (s && !s->seen) {
        s->seen = true;
        s->job = -1;
        s->finished = s->start_ms = s->end_ms = -1;
    }
    return s;
}

static void
s_stage_event (hist_detail_t *self, const hist_line_t *l, bool end)
{
    hist_stage_t *s = s_stage (self, hist_line_int_or (l, "stage", -1));
    if (!s)
        return;
    s->job = hist_line_int_or (l, "job", s->job);
    s_set_str (&s->name, l, "name");
    if (end) {
        s->end_ms = l->time_ms;
        s_set_str (&s->state, l, "state");
        s->finished = hist_line_int_or (l, "finished", s->finished);
        return;
    }
    if (s->runs++ == 0) {
        s->start_ms = l->time_ms;
        s->tasks = hist_line_int_or (l, "tasks", 0);
        s->cached = hist_line_int_or (l, "cached", 0);
    }
    else if (s->state) { /* a re-run: not over any more */
        free (s->state);
        s->state = NULL;
    }
}

/* A resumed driver's stage whose outputs an earlier driver left: its
   stage_start and stage_end come too, before or after it; their counts
   win (the counts here stand for a log cut before them). */
static void
s_stage_skipped (hist_detail_t *self, const hist_line_t *l)
{
    hist_stage_t *s = s_stage (self, hist_line_int_or (l, "stage", -1));
    if (!s)
        return;
    s->skipped = true;
    s->job = hist_line_int_or (l, "job", s->job);
    s_set_str (&s->name, l, "name");
    s_set_str (&s->skip_reason, l, "reason");
    if (s->runs == 0)
        s->tasks = s->cached = hist_line_int_or (l, "tasks", s->tasks);
}

const char *const hist_localities[HIST_LOCALITIES] = {
    "NO_PREF", "PROCESS_LOCAL", "NODE_LOCAL", "RACK_LOCAL", "ANY"};

/* The level a task_start names (0, NO_PREF, when absent or unknown). */
static size_t
s_locality (const hist_line_t *l)
{
    for (size_t i = 1; i < HIST_LOCALITIES; i++)
        if (hist_line_is (l, "locality", hist_localities[i]))
            return i;
    return 0;
}

static void
s_task_start (hist_detail_t *self, const hist_line_t *l)
{
    hist_stage_t *s = s_stage (self, hist_line_int_or (l, "stage", -1));
    self->started++;
    if (s) {
        s->started++;
        s->speculative += hist_line_true (l, "speculative");
        s->local[s_locality (l)]++;
    }
}

/* Keep a among the slowest (top is sorted slowest first). */
static void
s_top (hist_detail_t *self, const hist_attempt_t *a)
{
    if (self->top_cap == 0
        || (self->ntop == self->top_cap
            && self->top[self->ntop - 1].run_us >= a->run_us))
        return;
    size_t i = self->ntop < self->top_cap ? self->ntop++ : self->ntop - 1;
    while (i > 0 && self->top[i - 1].run_us < a->run_us) {
        self->top[i] = self->top[i - 1];
        i--;
    }
    self->top[i] = *a;
}

/* A task's failures: a failed or lost attempt counted (failure), an
   accepted one marking a task that failed before. */
static int
s_fail (hist_detail_t *self, const hist_attempt_t *a, const hist_line_t *l,
        bool failure)
{
    char key[48];
    snprintf (key, sizeof key, "%lld:%lld", (long long) a->stage,
              (long long) a->index);
    hist_taskfail_t *f = zhashx_lookup (self->fail_by_task, key);
    if (!failure) {
        if (f && strcmp (a->outcome, "accepted") == 0)
            f->succeeded = true;
        return 0;
    }
    if (!f) {
        if (!(f = calloc (1, sizeof *f)))
            return -1;
        f->stage = a->stage;
        f->index = a->index;
        zhashx_insert (self->fail_by_task, key, f);
    }
    f->failed++;
    f->last_attempt = a->attempt;
    f->last_executor = a->executor;
    f->gave_up |= strcmp (a->outcome, "gave_up") == 0;
    char *err = hist_line_str (l, "error"); /* cut to HIST_MAX_STR */
    if (err || !f->last_error) {
        free (f->last_error);
        f->last_error = err;
    }
    return 0;
}

static int
s_task_end (hist_detail_t *self, const hist_line_t *l)
{
    hist_attempt_t a = {
        .stage = hist_line_int_or (l, "stage", -1),
        .index = hist_line_int_or (l, "index", -1),
        .attempt = hist_line_int_or (l, "attempt", -1),
        .executor = hist_line_int_or (l, "executor", -1),
        .run_us = hist_line_int_or (l, "run_us", 0),
        .time_ms = l->time_ms,
    };
    hist_task_state (l, a.state, sizeof a.state);
    hist_task_outcome (l, a.outcome, sizeof a.outcome);
    self->ended++;
    self->run_us_sum += a.run_us > 0 ? a.run_us : 0;
    s_top (self, &a);
    hist_stage_t *s = s_stage (self, a.stage);
    hist_exec_t *x =
        s_slot ((void **) &self->execs, &self->nexecs, sizeof *x, a.executor);
    bool finished = strcmp (a.state, "FINISHED") == 0;
    bool failed = strcmp (a.state, "FAILED") == 0
                  && strcmp (a.outcome, "fetch_wait") != 0;
    bool lost = strcmp (a.state, "LOST") == 0;
    if (x) {
        x->attempts++;
        x->failed += failed;
    }
    if (s) {
        s->ended++;
        s->accepted += strcmp (a.outcome, "accepted") == 0;
        s->failed += failed;
        s->lost += lost;
        s->killed += strcmp (a.state, "KILLED") == 0;
        if (finished && s_push (&s->ok_us, a.run_us) < 0)
            return -1;
    }
    if (finished && s_push (&self->ok_us, a.run_us) < 0)
        return -1;
    if (self->tasklog
        && hist_tasklog_end (self->tasklog, l, a.state, a.outcome) < 0)
        return -1;
    if (failed || lost || zhashx_size (self->fail_by_task) > 0)
        return s_fail (self, &a, l, failed || lost);
    return 0;
}

static void
s_executor (hist_detail_t *self, const hist_line_t *l, bool added)
{
    hist_exec_t *x = s_slot ((void **) &self->execs, &self->nexecs, sizeof *x,
                             hist_line_int_or (l, "executor", -1));
    if (!x)
        return;
    if (!x->seen) {
        x->removed_ms = x->lifetime_ms = x->peak_rss = x->memory_mb = -1;
        x->added_ms = -1;
    }
    x->seen = true;
    x->cores = hist_line_int_or (l, "cores", x->cores);
    x->memory_mb = hist_line_int_or (l, "memory_mb", x->memory_mb);
    if (added) {
        x->added_ms = l->time_ms;
        s_set_str (&x->host, l, "host");
        s_set_str (&x->worker, l, "worker");
        return;
    }
    x->removed_ms = l->time_ms;
    s_set_str (&x->reason, l, "reason");
    x->tasks_lost = hist_line_int_or (l, "tasks_lost", 0);
    x->lifetime_ms = hist_line_int_or (l, "lifetime_ms", -1);
    x->peak_rss = hist_line_int_or (l, "peak_rss_bytes", -1);
}

static void
s_app_end (hist_detail_t *self, const hist_line_t *l)
{
    for (size_t i = 0; i < N_END; i++)
        self->end_total[i] = hist_line_int_or (l, s_end_keys[i], -1);
}

int
hist_detail_feed (hist_detail_t *self, const char *text, size_t len, bool first)
{
    hist_line_t l;
    if (hist_line_parse (text, len, &l) < 0) {
        self->app->lines++;
        self->app->bad_lines++;
        return 0;
    }
    hist_app_feed_line (self->app, &l, first);
    switch (l.kind) {
    case HIST_EV_LOG_START:
        s_log_start (self, &l);
        return 0;
    case HIST_EV_JOB_START:
    case HIST_EV_JOB_END:
        s_job (self, &l, l.kind == HIST_EV_JOB_END);
        return 0;
    case HIST_EV_STAGE_START:
    case HIST_EV_STAGE_END:
        s_stage_event (self, &l, l.kind == HIST_EV_STAGE_END);
        return 0;
    case HIST_EV_STAGE_SKIPPED:
        s_stage_skipped (self, &l);
        return 0;
    case HIST_EV_TASK_START:
        s_task_start (self, &l);
        return 0;
    case HIST_EV_TASK_END:
        return s_task_end (self, &l);
    case HIST_EV_EXEC_ADDED:
    case HIST_EV_EXEC_REMOVED:
        s_executor (self, &l, l.kind == HIST_EV_EXEC_ADDED);
        return 0;
    case HIST_EV_APP_END:
        s_app_end (self, &l);
        return 0;
    case HIST_EV_DROPPED:
        self->dropped += hist_line_int_or (&l, "count", 0);
        return 0;
    default:
        return 0;
    }
}

/* ---- the end ------------------------------------------------------------- */

static int
s_cmp_i64 (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return x < y ? -1 : x > y;
}

static void
s_sort_vec (hist_vec_t *v)
{
    if (v->n > 1)
        qsort (v->v, v->n, sizeof (int64_t), s_cmp_i64);
}

static int
s_cmp_fail (const void *a, const void *b)
{
    const hist_taskfail_t *x = a, *y = b;
    if (x->stage != y->stage)
        return x->stage < y->stage ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int
hist_detail_finish (hist_detail_t *self)
{
    s_sort_vec (&self->ok_us);
    for (size_t i = 0; i < self->nstages; i++)
        s_sort_vec (&self->stages[i].ok_us);
    size_t n = zhashx_size (self->fail_by_task);
    self->fails = calloc (n ? n : 1, sizeof *self->fails);
    if (!self->fails)
        return -1;
    for (hist_taskfail_t *f = zhashx_first (self->fail_by_task); f;
         f = zhashx_next (self->fail_by_task)) {
        self->fails[self->nfails++] = *f;
        f->last_error = NULL; /* moved */
    }
    if (self->nfails > 1)
        qsort (self->fails, self->nfails, sizeof *self->fails, s_cmp_fail);
    return 0;
}

int64_t
hist_percentile (const hist_vec_t *v, double p)
{
    if (v->n == 0)
        return -1;
    double rank = ceil (p / 100.0 * (double) v->n);
    size_t i = rank < 1 ? 0 : (size_t) rank - 1;
    return v->v[i < v->n ? i : v->n - 1];
}

/* ---- readers ------------------------------------------------------------- */

int
hist_detail_keep_timeline (hist_detail_t *self)
{
    if (!self->tasklog)
        self->tasklog = hist_tasklog_new ();
    return self->tasklog ? 0 : -1;
}

hist_tasklog_t *
hist_detail_tasklog (hist_detail_t *self)
{
    return self->tasklog;
}

hist_app_t *
hist_detail_app (hist_detail_t *self)
{
    return self->app;
}

const cJSON *
hist_detail_settings (const hist_detail_t *self)
{
    return self->settings;
}

const hist_job_t *
hist_detail_jobs (const hist_detail_t *self, size_t *n)
{
    *n = self->njobs;
    return self->jobs;
}

const hist_stage_t *
hist_detail_stages (const hist_detail_t *self, size_t *n)
{
    *n = self->nstages;
    return self->stages;
}

const hist_exec_t *
hist_detail_execs (const hist_detail_t *self, size_t *n)
{
    *n = self->nexecs;
    return self->execs;
}

const hist_attempt_t *
hist_detail_top (const hist_detail_t *self, size_t *n)
{
    *n = self->ntop;
    return self->top;
}

const hist_taskfail_t *
hist_detail_fails (const hist_detail_t *self, size_t *n)
{
    *n = self->nfails;
    return self->fails;
}

const hist_vec_t *
hist_detail_ok_us (const hist_detail_t *self)
{
    return &self->ok_us;
}

void
hist_detail_counts (const hist_detail_t *self, int64_t *run_us_sum,
                    int64_t *started, int64_t *ended, int64_t *dropped)
{
    *run_us_sum = self->run_us_sum;
    *started = self->started;
    *ended = self->ended;
    *dropped = self->dropped;
}

int64_t
hist_detail_end_total (const hist_detail_t *self, const char *key)
{
    for (size_t i = 0; i < N_END; i++)
        if (strcmp (s_end_keys[i], key) == 0)
            return self->end_total[i];
    return -1;
}

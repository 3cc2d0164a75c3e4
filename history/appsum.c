/*  appsum.c - one application's listing summary; see appsum.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "history/appsum.h"

/* Executor ids above this are not tracked for cores (a damaged line). */
static const int64_t s_max_exec_id = 1 << 20;

/* The prefix the writer gives every task_start line (eventlog.c): such
   a line changes nothing in the list, so it is not parsed. */
static const char s_task_start_prefix[] = "{\"event\":\"task_start\"";

hist_app_t *
hist_app_new (const char *id)
{
    hist_app_t *self = calloc (1, sizeof *self);
    if (!self || !(self->id = strdup (id))) {
        free (self);
        return NULL;
    }
    self->start_ms = self->last_ms = self->end_ms = -1;
    self->resumed = -1;
    return self;
}

void
hist_app_destroy (hist_app_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    hist_app_t *self = *self_p;
    free (self->id);
    free (self->app_id);
    free (self->name);
    free (self->user);
    free (self->master);
    free (self->host);
    free (self->state);
    free (self->reason);
    free (self->exec_cores);
    free (self);
    *self_p = NULL;
}

/* Replace *dst by the string member key (when present). */
static void
s_take (char **dst, const hist_line_t *l, const char *key)
{
    char *s = hist_line_str (l, key);
    if (s) {
        free (*dst);
        *dst = s;
    }
}

/* The cores slot of executor id (grown as needed), or NULL. */
static int64_t *
s_exec_slot (hist_app_t *self, int64_t id)
{
    if (id < 0 || id > s_max_exec_id)
        return NULL;
    if ((size_t) id >= self->nexec_cores) {
        size_t n = self->nexec_cores ? self->nexec_cores : 16;
        while (n <= (size_t) id)
            n *= 2;
        int64_t *c = realloc (self->exec_cores, n * sizeof *c);
        if (!c)
            return NULL;
        for (size_t i = self->nexec_cores; i < n; i++)
            c[i] = -1;
        self->exec_cores = c;
        self->nexec_cores = n;
    }
    return &self->exec_cores[id];
}

static void
s_executor (hist_app_t *self, const hist_line_t *l, bool added)
{
    int64_t *slot = s_exec_slot (self, hist_line_int_or (l, "executor", -1));
    if (added) {
        int64_t cores = hist_line_int_or (l, "cores", 0);
        self->executors++;
        self->cores_sum += cores;
        if (slot && *slot >= 0)
            self->cores_now -= *slot; /* added twice: the later one counts */
        if (slot)
            *slot = cores;
        self->cores_now += cores;
        if (self->cores_now > self->cores_max)
            self->cores_max = self->cores_now;
    }
    else if (slot && *slot >= 0) {
        self->cores_now -= *slot;
        *slot = -1;
    }
}

static void
s_task_end (hist_app_t *self, const hist_line_t *l)
{
    if (hist_task_outcome_is (l, "accepted"))
        self->tasks_ok++;
    else if (hist_task_state_is (l, "FAILED")
             && !hist_task_outcome_is (l, "fetch_wait"))
        self->tasks_failed++;
}

int
hist_app_feed_line (hist_app_t *self, const hist_line_t *l, bool first)
{
    self->lines++;
    if (first)
        self->is_log = l->kind == HIST_EV_LOG_START;
    if (l->time_ms >= 0)
        self->last_ms = l->time_ms;
    switch (l->kind) {
    case HIST_EV_LOG_START:
        if (self->start_ms < 0)
            self->start_ms = l->time_ms;
        s_take (&self->app_id, l, "app_id");
        s_take (&self->name, l, "name");
        s_take (&self->user, l, "user");
        break;
    case HIST_EV_APP_START:
        s_take (&self->master, l, "master");
        s_take (&self->host, l, "host");
        self->pid = hist_line_int_or (l, "pid", self->pid);
        break;
    case HIST_EV_APP_END:
        self->end_ms = l->time_ms;
        s_take (&self->state, l, "state");
        s_take (&self->reason, l, "reason");
        break;
    case HIST_EV_APP_RESUMED:
        self->resumed = hist_line_int_or (l, "outputs", 0);
        if (self->resumed < 0)
            self->resumed = 0; /* a damaged count: resumed still */
        break;
    case HIST_EV_JOB_START:
        self->jobs++;
        break;
    case HIST_EV_JOB_END:
        self->jobs_failed += hist_line_is (l, "state", "FAILED");
        break;
    case HIST_EV_TASK_END:
        s_task_end (self, l);
        break;
    case HIST_EV_EXEC_ADDED:
    case HIST_EV_EXEC_REMOVED:
        s_executor (self, l, l->kind == HIST_EV_EXEC_ADDED);
        break;
    default:
        break;
    }
    return 0;
}

int
hist_app_feed (hist_app_t *self, const char *text, size_t len, bool first)
{
    size_t n = sizeof s_task_start_prefix - 1;
    if (!first && len > n && memcmp (text, s_task_start_prefix, n) == 0
        && text[len - 1] == '}') {
        self->lines++; /* its time_ms is not needed: task_end follows */
        return 0;
    }
    hist_line_t l;
    if (hist_line_parse (text, len, &l) < 0) {
        self->lines++;
        self->bad_lines++;
        return 0;
    }
    return hist_app_feed_line (self, &l, first);
}

/* ---- the index's form ---------------------------------------------------- */

static const char *const s_str_keys[] = {"id",     "app_id", "name",  "user",
                                         "master", "host",   "state", "reason"};

static char **
s_str_field (hist_app_t *a, size_t i)
{
    char **f[] = {&a->id,     &a->app_id, &a->name,  &a->user,
                  &a->master, &a->host,   &a->state, &a->reason};
    return f[i];
}

static const char *const s_int_keys[] = {
    "pid",         "start_ms",  "last_ms",   "end_ms",         "cores_max",
    "cores_sum",   "executors", "tasks_ok",  "tasks_failed",   "jobs",
    "jobs_failed", "lines",     "bad_lines", "resumed_outputs"};

static int64_t *
s_int_field (hist_app_t *a, size_t i)
{
    int64_t *f[] = {&a->pid,       &a->start_ms,    &a->last_ms,
                    &a->end_ms,    &a->cores_max,   &a->cores_sum,
                    &a->executors, &a->tasks_ok,    &a->tasks_failed,
                    &a->jobs,      &a->jobs_failed, &a->lines,
                    &a->bad_lines, &a->resumed};
    return f[i];
}

#define N_STR (sizeof s_str_keys / sizeof s_str_keys[0])
#define N_INT (sizeof s_int_keys / sizeof s_int_keys[0])

cJSON *
hist_app_to_json (const hist_app_t *self)
{
    hist_app_t *a = (hist_app_t *) self; /* read only, through s_*_field */
    cJSON *o = cJSON_CreateObject ();
    bool ok = o != NULL;
    for (size_t i = 0; ok && i < N_STR; i++)
        if (*s_str_field (a, i))
            ok =
                cJSON_AddStringToObject (o, s_str_keys[i], *s_str_field (a, i));
    for (size_t i = 0; ok && i < N_INT; i++)
        ok = cJSON_AddNumberToObject (o, s_int_keys[i],
                                      (double) *s_int_field (a, i));
    ok = ok && cJSON_AddBoolToObject (o, "cut", self->cut)
         && cJSON_AddBoolToObject (o, "is_log", self->is_log);
    if (!ok)
        cJSON_Delete (o);
    return ok ? o : NULL;
}

hist_app_t *
hist_app_from_json (const cJSON *o)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive (o, "id");
    if (!cJSON_IsString (id))
        return NULL;
    hist_app_t *a = hist_app_new (id->valuestring);
    for (size_t i = 1; a && i < N_STR; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, s_str_keys[i]);
        if (cJSON_IsString (v)
            && !(*s_str_field (a, i) = strdup (v->valuestring)))
            hist_app_destroy (&a);
    }
    for (size_t i = 0; a && i < N_INT; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, s_int_keys[i]);
        if (!cJSON_IsNumber (v))
            hist_app_destroy (&a); /* every number is written: damaged */
        else
            *s_int_field (a, i) = (int64_t) v->valuedouble;
    }
    if (a) {
        a->cut = cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (o, "cut"));
        a->is_log =
            cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (o, "is_log"));
    }
    return a;
}

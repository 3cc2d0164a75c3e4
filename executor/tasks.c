/*  tasks.c - the executor's task queue and its `cores` run slots.

    Tasks arrive in LAUNCH_TASKS batches (the driver may send more than
    there are cores, so that a core never waits for a round trip); they
    wait here in FIFO order and start as slots free up.  A task that ends,
    whatever the reason, is reported exactly once through link_add_update.
*/
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "executor/executor.h"
#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/spawn.h"

void
shared_frames_release (shared_frames_t **sf_p)
{
    shared_frames_t *sf = *sf_p;
    if (!sf)
        return;
    *sf_p = NULL;
    if (--sf->refs > 0)
        return;
    for (size_t i = 0; i < sf->nframes; i++)
        zframe_destroy (&sf->frames[i]);
    free (sf->frames);
    free (sf);
}

static void
s_strv_free (char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free (v[i]);
    free (v);
}

void
task_destroy (task_t **task_p)
{
    task_t *t = *task_p;
    if (!t)
        return;
    s_strv_free (t->argv);
    s_strv_free (t->env);
    free (t->out);
    free (t->err_tail);
    free (t->run_error);
    free (t->fn_out.data);
    shared_frames_release (&t->frames);
    free (t);
    *task_p = NULL;
}

static char **
s_argv_from_json (const cJSON *array)
{
    int n = cJSON_GetArraySize (array);
    char **v = calloc (n + 1, sizeof *v);
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach (e, array)
    {
        if (v && !(v[i++] = strdup (e->valuestring))) {
            s_strv_free (v);
            return NULL;
        }
    }
    return v;
}

static char **
s_env_from_json (const cJSON *map)
{
    int n = cJSON_GetArraySize (map);
    char **v = calloc (n + 1, sizeof *v);
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach (e, map)
    {
        if (v && asprintf (&v[i++], "%s=%s", e->string, e->valuestring) < 0) {
            v[i - 1] = NULL;
            s_strv_free (v);
            return NULL;
        }
    }
    return v;
}

/* The task's input frame (index in sf, or -1), taking a reference on the
   shared frames. */
static void
s_attach_input (task_t *t, int64_t index, shared_frames_t *sf)
{
    if (index < 0 || !sf || (size_t) index >= sf->nframes)
        return;
    t->frames = sf;
    t->input = sf->frames[index];
    sf->refs++;
}

/* A new task with a copy of fn, lib and arg in the same block (fn NULL:
   a command task, no strings). */
static task_t *
s_task_new (uint64_t tid, int attempt, int64_t timeout_ms, const char *fn,
            const char *lib, const char *arg)
{
    size_t fn_size = fn ? strlen (fn) + 1 : 0;
    size_t lib_size = fn && lib ? strlen (lib) + 1 : 0;
    size_t arg_size = fn ? strlen (arg ? arg : "") + 1 : 0;
    task_t *t = calloc (1, sizeof *t + fn_size + lib_size + arg_size);
    if (!t)
        return NULL;
    t->tid = tid;
    t->attempt = attempt;
    t->timeout_ms = timeout_ms;
    t->timer_id = -1;
    char *p = (char *) (t + 1);
    if (fn) {
        t->fn = memcpy (p, fn, fn_size);
        t->arg = memcpy (p + fn_size, arg ? arg : "", arg_size);
        if (lib)
            t->lib = memcpy (p + fn_size + arg_size, lib, lib_size);
    }
    return t;
}

task_t *
task_from_json (const cJSON *json, shared_frames_t *sf)
{
    const char *fn = hearth_json_str (json, "fn");
    task_t *t = s_task_new ((uint64_t) hearth_json_int (json, "tid", 0),
                            (int) hearth_json_int (json, "attempt", 0),
                            hearth_json_int (json, "timeout_ms", 0), fn,
                            hearth_json_str (json, "lib"),
                            hearth_json_str (json, "arg"));
    if (!t)
        return NULL;
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive (json, "cmd");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive (json, "env");
    bool ok = true;
    if (cmd)
        ok = (t->argv = s_argv_from_json (cmd)) != NULL;
    if (ok && env)
        ok = (t->env = s_env_from_json (env)) != NULL;
    if (!ok) {
        task_destroy (&t);
        return NULL;
    }
    s_attach_input (t, hearth_json_int (json, "input", -1), sf);
    return t;
}

/* argv and env of a packed command (checked by the decoder). */
static int
s_command_from_packed (task_t *t, const hearth_packed_task_t *p)
{
    if (!(t->argv = calloc ((size_t) p->argc + 1, sizeof *t->argv)))
        return -1;
    if (p->envc && !(t->env = calloc ((size_t) p->envc + 1, sizeof *t->env)))
        return -1;
    const char *s = p->strings;
    for (int i = 0; i < p->argc + p->envc; i++) {
        char *copy = strdup (s);
        if (!copy)
            return -1;
        if (i < p->argc)
            t->argv[i] = copy;
        else
            t->env[i - p->argc] = copy;
        s += strlen (s) + 1;
    }
    return 0;
}

task_t *
task_from_packed (const hearth_packed_task_t *p, shared_frames_t *sf)
{
    task_t *t =
        s_task_new (p->tid, p->attempt, p->timeout_ms, p->fn, p->lib, p->arg);
    if (t && p->argc && s_command_from_packed (t, p) < 0)
        task_destroy (&t);
    if (t)
        s_attach_input (t, p->input, sf);
    return t;
}

void
tasks_enqueue (executor_t *ex, task_t *t)
{
    t->ex = ex;
    t->phase = TASK_QUEUED;
    tlist_push (&ex->queue, t);
}

size_t
tasks_running (executor_t *ex)
{
    return ex->running.size;
}

/* Report a final state once, free the slot and the task. */
static void
s_complete (executor_t *ex, task_t *t, const char *state, const char *error,
            const void *result, size_t len)
{
    if (!t->end_us)
        t->end_us = hearth_mono_us ();
    if (!t->final_sent)
        link_add_update (ex, t, state, error, result, len);
    if (t->timer_id >= 0)
        zloop_timer_end (ex->loop, t->timer_id);
    if (t->phase == TASK_RUNNING) {
        tlist_remove (&ex->running, t);
        if (t->argv)
            ex->cmd_running--;
        else
            ex->fn_in_pool--;
    }
    else
        tlist_remove (&ex->queue, t);
    task_destroy (&t);
}

/* A function ran past its time limit: it cannot be interrupted, so its
   failure is reported now and its result discarded when it returns.  (A
   command's thread kills it at its limit: cmdrun.c.) */
static int
s_on_timeout (zloop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    task_t *t = arg;
    executor_t *ex = t->ex;
    t->timer_id = -1;
    t->timed_out = true;
    if (!t->final_sent) {
        char error[128];
        snprintf (error, sizeof error, "timed out after %lld ms",
                  (long long) t->timeout_ms);
        t->end_us = hearth_mono_us ();
        link_add_update (ex, t, "FAILED", error, NULL, 0);
        t->final_sent = true;
        link_flush (ex);
    }
    return 0;
}

/* Start one task: it goes to *batch, handed to the pool by the caller.
   Returns 0, or -1 when it failed at once (already reported and freed). */
static int
s_start (executor_t *ex, task_t *t, task_t **batch, size_t *nbatch)
{
    hearth_error_t err;
    t->phase = TASK_RUNNING;
    tlist_push (&ex->running, t);
    if (t->argv) {
        /* its thread keeps its time limit (cmdrun.c) */
        batch[(*nbatch)++] = t;
        ex->cmd_running++;
        return 0;
    }
    t->func = libs_lookup (ex->libs, t->lib, t->fn, &err);
    if (!t->func) {
        s_complete (ex, t, "FAILED", err.text, NULL, 0);
        return -1;
    }
    batch[(*nbatch)++] = t;
    ex->fn_in_pool++;
    if (t->timeout_ms > 0)
        t->timer_id = zloop_timer (ex->loop, t->timeout_ms, 1, s_on_timeout, t);
    return 0;
}

/* Hand every queued task to the pool, in order: its `cores` threads take
   them first come, first served.  (A command used to wait here for a free
   core, to be started by the loop; its thread now starts it, and the
   next, without the loop in between.) */
void
tasks_dispatch (executor_t *ex)
{
    task_t *batch[256];
    size_t nbatch = 0;
    task_t *t;
    while ((t = tlist_pop (&ex->queue))) {
        s_start (ex, t, batch, &nbatch);
        if (nbatch == sizeof batch / sizeof batch[0]) {
            fnpool_submit (ex->pool, batch, nbatch);
            nbatch = 0;
        }
    }
    fnpool_submit (ex->pool, batch, nbatch);
}

/* The error text of a command that did not succeed. */
static void
s_command_error (const task_t *t, char *buf, size_t size)
{
    char status[128];
    hearth_wait_status_text (t->wait_status, status, sizeof status);
    const char *tail = t->err_tail ? t->err_tail : "";
    size_t len = t->err_tail ? t->err_len : 0;
    while (len > 0 && (tail[len - 1] == '\n' || tail[len - 1] == '\r'))
        len--;
    const char *nl = memrchr (tail, '\n', len);
    size_t start = nl ? (size_t) (nl - tail) + 1 : 0;
    if (len > start)
        snprintf (buf, size, "%s %s: %.*s", t->argv[0], status,
                  (int) (len - start), tail + start);
    else
        snprintf (buf, size, "%s %s", t->argv[0], status);
}

static void
s_finish_command (executor_t *ex, task_t *t)
{
    char error[1200];
    if (t->run_error)
        snprintf (error, sizeof error, "%s", t->run_error);
    else if (t->timed_out)
        snprintf (error, sizeof error, "timed out after %lld ms",
                  (long long) t->timeout_ms);
    else if (t->too_big)
        snprintf (error, sizeof error,
                  "output exceeded max-result-bytes (%lld bytes)",
                  (long long) ex->max_result_bytes);
    else if (WIFEXITED (t->wait_status) && WEXITSTATUS (t->wait_status) == 0) {
        s_complete (ex, t, "FINISHED", NULL, t->out, t->out_len);
        return;
    }
    else
        s_command_error (t, error, sizeof error);
    s_complete (ex, t, "FAILED", error, NULL, 0);
}

static void
s_finish_function (executor_t *ex, task_t *t)
{
    if (t->timed_out || t->fn_rc != 0) {
        char error[600];
        if (t->timed_out)
            snprintf (error, sizeof error, "timed out after %lld ms",
                      (long long) t->timeout_ms);
        else if (t->fn_out.error[0])
            snprintf (error, sizeof error, "%s: %.*s", t->fn,
                      (int) sizeof t->fn_out.error, t->fn_out.error);
        else
            snprintf (error, sizeof error, "%s returned %d", t->fn, t->fn_rc);
        s_complete (ex, t, "FAILED", error, NULL, 0);
    }
    else if ((int64_t) t->fn_out.len > ex->max_result_bytes) {
        char error[128];
        snprintf (error, sizeof error,
                  "result of %zu bytes exceeds max-result-bytes (%lld)",
                  t->fn_out.len, (long long) ex->max_result_bytes);
        s_complete (ex, t, "FAILED", error, NULL, 0);
    }
    else
        s_complete (ex, t, "FINISHED", NULL, t->fn_out.data, t->fn_out.len);
}

void
tasks_finish (executor_t *ex, task_t *t)
{
    if (t->killed)
        s_complete (ex, t, "KILLED", "killed at the driver's request", NULL, 0);
    else if (t->argv)
        s_finish_command (ex, t);
    else
        s_finish_function (ex, t);
    tasks_dispatch (ex);
}

static task_t *
s_find (tlist_t *list, uint64_t tid, int attempt)
{
    for (task_t *t = list->head; t; t = tlist_next (list, t))
        if (t->tid == tid && t->attempt == attempt)
            return t;
    return NULL;
}

int
tasks_kill (executor_t *ex, uint64_t tid, int attempt)
{
    task_t *t = s_find (&ex->queue, tid, attempt);
    if (t) {
        s_complete (ex, t, "KILLED", "killed before it started", NULL, 0);
        return 0;
    }
    if (!(t = s_find (&ex->running, tid, attempt)))
        return -1;
    t->killed = true;
    if (fnpool_cancel (ex->pool, t))
        s_complete (ex, t, "KILLED", "killed before it started", NULL, 0);
    else if (t->argv)
        cmdrun_kill (ex, t, SIGKILL); /* reported when its thread is done */
    else if (!t->final_sent) {
        /* A function cannot be interrupted: report it now, drop its
           result when it returns. */
        t->end_us = hearth_mono_us ();
        link_add_update (ex, t, "KILLED", "killed at the driver's request",
                         NULL, 0);
        t->final_sent = true;
    }
    return 0;
}

void
tasks_kill_all (executor_t *ex)
{
    task_t *t;
    while ((t = ex->queue.head))
        s_complete (ex, t, "KILLED", "the executor is stopping", NULL, 0);
    for (t = ex->running.head; t; t = tlist_next (&ex->running, t)) {
        t->killed = true;
        if (t->argv)
            cmdrun_kill (ex, t, SIGKILL);
    }
}

void
tasks_report_running (executor_t *ex, int64_t now_us)
{
    int64_t after_us = ex->running_report_ms * 1000;
    for (task_t *t = ex->running.head; t; t = tlist_next (&ex->running, t)) {
        int64_t start = __atomic_load_n (&t->start_us, __ATOMIC_RELAXED);
        if (!t->reported_running && !t->final_sent && start
            && now_us - start >= after_us) {
            link_add_update (ex, t, "RUNNING", NULL, NULL, 0);
            t->reported_running = true;
        }
    }
}

void
tasks_discard_all (executor_t *ex, bool free_them)
{
    task_t *t;
    while ((t = ex->running.head)) {
        if (!t->final_sent) {
            t->end_us = hearth_mono_us ();
            link_add_update (ex, t, "KILLED", "the executor is stopping", NULL,
                             0);
        }
        tlist_remove (&ex->running, t);
        if (t->timer_id >= 0)
            zloop_timer_end (ex->loop, t->timer_id);
        if (free_them)
            task_destroy (&t);
    }
}

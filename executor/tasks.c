/*  tasks.c - the executor's task table and its `cores` run slots; see
    tasks.h.

    Tasks arrive in LAUNCH_TASKS batches (the driver may send more than
    there are cores, so that a core never waits for a round trip); they
    wait here in FIFO order and go to the pool in that order.  A task
    that ends, whatever the reason, is reported exactly once through the
    table's update callback.
*/
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "executor/cmdrun.h"
#include "executor/fnpool.h"
#include "executor/libs.h"
#include "executor/resalloc.h"
#include "executor/shuffletask.h"
#include "executor/tasks.h"
#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/proto.h"
#include "libcore/spawn.h"

struct tasks {
    executor_t *ex;        /* the loop, libs and settings (borrowed) */
    tasks_events_t events; /* what the owner hears */
    tlist_t queue;         /* task_t waiting for a slot, FIFO */
    tlist_t running;       /* task_t started: commands running, functions
                              handed to the pool */
    tlist_t committing;    /* task_t ended well, waiting for the driver's
                              leave to commit their output (no slot) */
    int cmd_running;       /* commands handed to the pool, not done */
    size_t fn_in_pool;     /* functions handed to the pool, not done */
    fnpool_t *pool;        /* the threads that run them (owned) */
    resalloc_t *res;       /* who holds which resource address (owned) */
};

static void s_on_pool_done (void *arg, tlist_t *done);

void
shared_frames_release (shared_frames_t **sf_p)
{
    if (!sf_p || !*sf_p)
        return;
    shared_frames_t *sf = *sf_p;
    *sf_p = NULL;
    if (--sf->refs > 0)
        return;
    int saved = errno;
    for (size_t i = 0; i < sf->nframes; i++)
        zframe_destroy (&sf->frames[i]);
    free (sf->frames);
    free (sf);
    errno = saved;
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
    if (!task_p || !*task_p)
        return;
    int saved = errno;
    task_t *t = *task_p;
    s_strv_free (t->argv);
    s_strv_free (t->env);
    free (t->out);
    free (t->err_tail);
    free (t->run_error);
    free (t->fn_out.data);
    free (t->fn_resources);
    hearth_resource_amounts_clear (&t->need);
    hearth_resources_clear (&t->held);
    shuffletask_destroy (&t->roles);
    shared_frames_release (&t->frames);
    free (t);
    *task_p = NULL;
    errno = saved;
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

/* A function's argument: arg_len bytes at arg (not NUL-terminated when
   they come from a frame). */
typedef struct {
    const char *arg; /* its bytes, or NULL: "" */
    size_t arg_len;  /* how many */
} s_arg_t;

/* A new task with a copy of fn, lib and the argument (made a string:
   NUL-terminated) in the same block (fn NULL: a command task, no
   strings). */
static task_t *
s_task_new (uint64_t tid, int attempt, int64_t timeout_ms, const char *fn,
            const char *lib, s_arg_t a)
{
    size_t fn_size = fn ? strlen (fn) + 1 : 0;
    size_t lib_size = fn && lib ? strlen (lib) + 1 : 0;
    size_t arg_size = fn ? (a.arg ? a.arg_len : 0) + 1 : 0;
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
        t->arg = p + fn_size;
        if (arg_size > 1)
            memcpy (p + fn_size, a.arg, arg_size - 1);
        p[fn_size + arg_size - 1] = '\0';
        if (lib)
            t->lib = memcpy (p + fn_size + arg_size, lib, lib_size);
    }
    return t;
}

/* A JSON task's argument: "arg", or the bytes of its "arg_frame" (the
   frame's argument ends at a NUL byte it may hold). */
static s_arg_t
s_arg_of (const cJSON *json, shared_frames_t *sf)
{
    const char *arg = hearth_json_str (json, "arg");
    int64_t index = hearth_json_int (json, "arg_frame", -1);
    if (index >= 0 && sf && (size_t) index < sf->nframes)
        return (s_arg_t){zframe_size (sf->frames[index])
                             ? (const char *) zframe_data (sf->frames[index])
                             : NULL,
                         zframe_size (sf->frames[index])};
    return (s_arg_t){arg, arg ? strlen (arg) : 0};
}

task_t *
task_from_json (const cJSON *json, shared_frames_t *sf)
{
    const char *fn = hearth_json_str (json, "fn");
    task_t *t = s_task_new ((uint64_t) hearth_json_int (json, "tid", 0),
                            (int) hearth_json_int (json, "attempt", 0),
                            hearth_json_int (json, "timeout_ms", 0), fn,
                            hearth_json_str (json, "lib"), s_arg_of (json, sf));
    if (!t)
        return NULL;
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive (json, "cmd");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive (json, "env");
    bool ok = true;
    if (cmd)
        ok = (t->argv = s_argv_from_json (cmd)) != NULL;
    if (ok && env)
        ok = (t->env = s_env_from_json (env)) != NULL;
    if (ok)
        ok = shuffletask_from_json (json, sf, &t->roles) == 0;
    if (ok) /* checked by the decoder */
        ok = hearth_resource_amounts_from_json (
                 &t->need, cJSON_GetObjectItemCaseSensitive (json, "resources"),
                 NULL)
             == 0;
    if (!ok) {
        task_destroy (&t);
        return NULL;
    }
    s_attach_input (t, hearth_json_int (json, "input", -1), sf);
    const cJSON *reduce = cJSON_GetObjectItemCaseSensitive (json, "reduce");
    if (!t->frames && sf && cJSON_HasObjectItem (reduce, "inline")) {
        t->frames = sf; /* its kept blocks point into them (reducein.c) */
        sf->refs++;
    }
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
    task_t *t = s_task_new (p->tid, p->attempt, p->timeout_ms, p->fn, p->lib,
                            (s_arg_t){p->arg, p->arg ? strlen (p->arg) : 0});
    if (t && p->argc && s_command_from_packed (t, p) < 0)
        task_destroy (&t);
    if (t)
        s_attach_input (t, p->input, sf);
    return t;
}

/* --- the table --------------------------------------------------------- */

tasks_t *
tasks_new (executor_t *ex, const tasks_events_t *events, hearth_error_t *err)
{
    tasks_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->ex = ex;
    self->events = *events;
    tlist_init (&self->queue, offsetof (task_t, link));
    tlist_init (&self->running, offsetof (task_t, link));
    tlist_init (&self->committing, offsetof (task_t, link));
    if (!(self->res = resalloc_new (&ex->resources))) {
        hearth_errprintf (err, "out of memory");
        free (self);
        return NULL;
    }
    self->pool =
        fnpool_new (ex, ex->cores, hearth_conf_str (ex->conf, "pin-threads"),
                    s_on_pool_done, self, err);
    if (!self->pool) {
        resalloc_destroy (&self->res);
        free (self);
        return NULL;
    }
    return self;
}

void
tasks_enqueue (tasks_t *self, task_t *t)
{
    t->tasks = self;
    t->phase = TASK_QUEUED;
    tlist_push (&self->queue, t);
}

size_t
tasks_running (const tasks_t *self)
{
    return self->running.size;
}

size_t
tasks_held (const tasks_t *self)
{
    return self->queue.size + self->running.size;
}

/* --- starting and finishing -------------------------------------------- */

/* Take t out of its list, giving back its slot and timer. */
static void
s_release (tasks_t *self, task_t *t)
{
    if (t->timer_id >= 0)
        hearth_loop_timer_end (self->ex->loop, t->timer_id);
    t->timer_id = -1;
    if (t->phase == TASK_RUNNING) {
        resalloc_give (self->res, &t->held); /* its thread is done with
                                                them */
        tlist_remove (&self->running, t);
        if (t->argv)
            self->cmd_running--;
        else
            self->fn_in_pool--;
    }
    else if (t->phase == TASK_COMMITTING)
        tlist_remove (&self->committing, t);
    else
        tlist_remove (&self->queue, t);
}

/* Report a final state once, free the slot and the task. */
static void
s_end (tasks_t *self, task_t *t, const char *state, const char *error,
       const void *result, size_t len)
{
    if (!t->end_us)
        t->end_us = hearth_mono_us ();
    s_release (self, t);
    if (!t->final_sent)
        self->events.update (self->events.arg, t, state, error, result, len);
    task_destroy (&t);
}

/* s_end, but a FINISHED attempt with an output to commit first asks the
   driver: it waits in committing, its slot free, until
   tasks_commit_answer ends it. */
static void
s_complete (tasks_t *self, task_t *t, const char *state, const char *error,
            const void *result, size_t len)
{
    if (t->final_sent || strcmp (state, "FINISHED") != 0
        || !shuffletask_asks_commit (t)) {
        s_end (self, t, state, error, result, len);
        return;
    }
    t->end_us = hearth_mono_us ();
    s_release (self, t);
    t->phase = TASK_COMMITTING;
    tlist_push (&self->committing, t);
    self->events.ask_commit (self->events.arg, t);
}

/* Report a task's end now, ahead of its thread (a function cannot be
   interrupted): what it returns later is dropped. */
static void
s_report_early (tasks_t *self, task_t *t, const char *state, const char *error)
{
    t->end_us = hearth_mono_us ();
    self->events.update (self->events.arg, t, state, error, NULL, 0);
    t->final_sent = true;
}

/* A function ran past its time limit: it cannot be interrupted, so its
   failure is reported now and its result discarded when it returns.  (A
   command's thread kills it at its limit: cmdrun.c.)  The limit counts
   from when a task thread started it: one still waiting for a thread
   (held by an abandoned attempt, which runs on) is given its time
   again from then. */
static int
s_on_timeout (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) timer_id;
    task_t *t = arg;
    tasks_t *self = t->tasks;
    t->timer_id = -1;
    int64_t started = __atomic_load_n (&t->start_us, __ATOMIC_RELAXED);
    int64_t left_ms =
        started ? started / 1000 + t->timeout_ms - hearth_mono_us () / 1000
                : t->timeout_ms;
    if (left_ms > 0) {
        t->timer_id =
            hearth_loop_timer (loop, (size_t) left_ms, 1, s_on_timeout, t);
        if (t->timer_id >= 0)
            return 0;
    }
    t->timed_out = true;
    if (!t->final_sent) {
        char error[128];
        snprintf (error, sizeof error, "timed out after %lld ms",
                  (long long) t->timeout_ms);
        s_report_early (self, t, "FAILED", error);
        self->events.flush (self->events.arg);
    }
    return 0;
}

/* Start one task: it goes to *batch, handed to the pool by the caller.
   Returns 0, or -1 when it failed at once (already reported and freed). */
static int
s_start (tasks_t *self, task_t *t, task_t **batch, size_t *nbatch)
{
    hearth_error_t err;
    t->phase = TASK_RUNNING;
    tlist_push (&self->running, t);
    if (self->ex->ship_error) { /* a shipped file could not be had */
        t->permanent = true;
        s_complete (self, t, "FAILED", self->ex->ship_error, NULL, 0);
        return -1;
    }
    if (t->argv) {
        /* its thread keeps its time limit (cmdrun.c) */
        batch[(*nbatch)++] = t;
        self->cmd_running++;
        return 0;
    }
    t->func = libs_lookup (self->ex->libs, t->lib, t->fn, &err);
    if (!t->func) {
        t->permanent = err.code && strcmp (err.code, LIBS_NO_FUNCTION) == 0;
        s_complete (self, t, "FAILED", err.text, NULL, 0);
        return -1;
    }
    batch[(*nbatch)++] = t;
    self->fn_in_pool++;
    if (t->timeout_ms > 0)
        t->timer_id = hearth_loop_timer (self->ex->loop, t->timeout_ms, 1,
                                         s_on_timeout, t);
    return 0;
}

/* Take t's resources.  Returns 0 (it holds them, or needs none), 1 when
   not enough addresses are free now (it waits), -1 when it failed
   (already reported and freed). */
static int
s_take_resources (tasks_t *self, task_t *t)
{
    hearth_error_t err;
    int rc = t->need.n ? resalloc_acquire (self->res, t, &err) : 0;
    if (rc < 0)
        s_complete (self, t, "FAILED", err.text, NULL, 0);
    return rc;
}

/* Hand the queued tasks to the pool, in order: its `cores` threads take
   them first come, first served.  One whose resources are not free waits
   in the queue for an attempt to give its addresses back; the tasks
   behind it go on.  (A command used to wait here for a free core, to be
   started by the loop; its thread now starts it, and the next, without
   the loop in between.)  Nothing starts while the shipped files and
   libraries are being got: a task would not find them. */
void
tasks_dispatch (tasks_t *self)
{
    if (self->ex->ship_waiting)
        return; /* the shipped files first (shipfetch.h) */
    task_t *batch[256];
    size_t nbatch = 0;
    task_t *next;
    for (task_t *t = self->queue.head; t; t = next) {
        next = tlist_next (&self->queue, t);
        if (s_take_resources (self, t) != 0)
            continue; /* waits, or failed (and freed) */
        tlist_remove (&self->queue, t);
        s_start (self, t, batch, &nbatch);
        if (nbatch == sizeof batch / sizeof batch[0]) {
            fnpool_submit (self->pool, batch, nbatch);
            nbatch = 0;
        }
    }
    fnpool_submit (self->pool, batch, nbatch);
}

/* The error text of a command that did not succeed. */
/* The kept end of t's stderr, its trailing newlines left out and, when
   earlier bytes were dropped, from the start of a line; *dropped: the
   bytes before it. */
static const char *
s_err_tail (const task_t *t, size_t *len, uint64_t *dropped)
{
    const char *tail = t->err_tail ? t->err_tail : "";
    size_t n = t->err_tail ? t->err_len : 0, start = 0;
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
        n--;
    const char *nl = memchr (tail, '\n', n);
    if (t->err_total > t->err_len && nl)
        start = (size_t) (nl - tail) + 1;
    *dropped = t->err_total - t->err_len + start;
    *len = n - start;
    return tail + start;
}

/* "ARGV0 STATUS: STDERR", the end of stderr as much as the protocol's
   text carries, a line saying how much was left out before it. */
static void
s_command_error (const task_t *t, char *buf, size_t size)
{
    char status[128], marker[80] = "";
    hearth_wait_status_text (t->wait_status, status, sizeof status);
    size_t len;
    uint64_t dropped;
    const char *tail = s_err_tail (t, &len, &dropped);
    int head = snprintf (buf, size, "%.256s %s", t->argv[0], status);
    /* Room for ": ", the marker (at most 64 bytes) and the NUL. */
    size_t room = size > (size_t) head + 2 + 64 + 1
                      ? size - (size_t) head - 2 - 64 - 1
                      : 0;
    if (len > room) {
        const char *cut = tail + (len - room);
        const char *nl = memchr (cut, '\n', room);
        size_t skip =
            (size_t) ((nl && nl + 1 < tail + len ? nl + 1 : cut) - tail);
        dropped += skip;
        tail += skip;
        len -= skip;
    }
    if (len == 0)
        return;
    if (dropped)
        snprintf (marker, sizeof marker,
                  "[%llu earlier bytes of stderr left out]\n",
                  (unsigned long long) dropped);
    snprintf (buf + head, size - (size_t) head, ": %s%.*s", marker, (int) len,
              tail);
}

/* A successful command's stderr goes to our log, a line per line of its
   kept end (EXECUTOR_ERR_TAIL bytes at most), after one saying how much
   came before. */
static void
s_log_stderr (const task_t *t)
{
    size_t len;
    uint64_t dropped;
    const char *tail = s_err_tail (t, &len, &dropped);
    unsigned long long stage = t->tid >> 32, index = t->tid & 0xffffffffu;
    if (len == 0)
        return;
    if (dropped)
        log_info ("task %llu.%llu attempt %d: %llu earlier bytes of its "
                  "stderr not kept",
                  stage, index, t->attempt, (unsigned long long) dropped);
    for (const char *p = tail, *end = tail + len; p < end;) {
        const char *nl = memchr (p, '\n', (size_t) (end - p));
        size_t n = (size_t) ((nl ? nl : end) - p);
        log_info ("task %llu.%llu attempt %d stderr: %.*s", stage, index,
                  t->attempt, (int) n, p);
        p += n + 1;
    }
}

static void
s_finish_command (tasks_t *self, task_t *t)
{
    char error[EXECUTOR_ERR_TEXT];
    if (t->run_error)
        snprintf (error, sizeof error, "%s", t->run_error);
    else if (t->timed_out)
        snprintf (error, sizeof error, "timed out after %lld ms",
                  (long long) t->timeout_ms);
    else if (shuffletask_error (t))
        snprintf (error, sizeof error, "%s", shuffletask_error (t));
    else if (t->too_big)
        snprintf (error, sizeof error,
                  "output exceeded max-result-bytes (%lld bytes)",
                  (long long) self->ex->max_result_bytes);
    else if (WIFEXITED (t->wait_status) && WEXITSTATUS (t->wait_status) == 0) {
        s_log_stderr (t);
        bool back = shuffletask_returns_result (t);
        s_complete (self, t, "FINISHED", NULL, back ? t->out : NULL,
                    back ? t->out_len : 0);
        return;
    }
    else
        s_command_error (t, error, sizeof error);
    s_complete (self, t, "FAILED", error, NULL, 0);
}

static void
s_finish_function (tasks_t *self, task_t *t)
{
    if (t->timed_out || t->fn_rc != 0 || shuffletask_error (t)) {
        char error[1200];
        if (t->timed_out)
            snprintf (error, sizeof error, "timed out after %lld ms",
                      (long long) t->timeout_ms);
        else if (shuffletask_error (t))
            snprintf (error, sizeof error, "%s", shuffletask_error (t));
        else if (t->fn_out.error[0])
            snprintf (error, sizeof error, "%s: %.*s", t->fn,
                      (int) sizeof t->fn_out.error, t->fn_out.error);
        else
            snprintf (error, sizeof error, "%s returned %d", t->fn, t->fn_rc);
        s_complete (self, t, "FAILED", error, NULL, 0);
    }
    else if (!shuffletask_returns_result (t))
        s_complete (self, t, "FINISHED", NULL, NULL, 0);
    else if ((int64_t) t->fn_out.len > self->ex->max_result_bytes) {
        char error[128];
        snprintf (error, sizeof error,
                  "result of %zu bytes exceeds max-result-bytes (%lld)",
                  t->fn_out.len, (long long) self->ex->max_result_bytes);
        s_complete (self, t, "FAILED", error, NULL, 0);
    }
    else
        s_complete (self, t, "FINISHED", NULL, t->fn_out.data, t->fn_out.len);
}

/* A running task has ended: report it, free its slot. */
static void
s_finish (tasks_t *self, task_t *t)
{
    if (t->killed)
        s_complete (self, t, "KILLED", "killed at the driver's request", NULL,
                    0);
    else if (t->argv)
        s_finish_command (self, t);
    else
        s_finish_function (self, t);
}

/* The pool's done callback, on the loop: finish every task that ran,
   start what waits, and have the updates sent. */
static void
s_on_pool_done (void *arg, tlist_t *done)
{
    tasks_t *self = arg;
    task_t *t;
    while ((t = tlist_pop (done))) {
        s_finish (self, t);
        tasks_dispatch (self);
    }
    self->events.flush_soon (self->events.arg);
}

/* --- killing ----------------------------------------------------------- */

static task_t *
s_find (tlist_t *list, uint64_t tid, int attempt)
{
    for (task_t *t = list->head; t; t = tlist_next (list, t))
        if (t->tid == tid && t->attempt == attempt)
            return t;
    return NULL;
}

int
tasks_commit_answer (tasks_t *self, uint64_t tid, int attempt, bool allowed)
{
    task_t *t = s_find (&self->committing, tid, attempt);
    if (!t)
        return -1;
    char *error = NULL;
    if (!allowed) {
        shuffletask_abandon (t);
        s_end (self, t, "KILLED", "another attempt commits this task's output",
               NULL, 0);
    }
    else if (shuffletask_commit (t, &error) < 0) {
        s_end (self, t, "FAILED", error ? error : "out of memory", NULL, 0);
        free (error);
    }
    else
        s_end (self, t, "FINISHED", NULL, NULL, 0);
    self->events.flush_soon (self->events.arg);
    return 0;
}

int
tasks_kill (tasks_t *self, uint64_t tid, int attempt)
{
    task_t *t = s_find (&self->queue, tid, attempt);
    if (t) {
        s_complete (self, t, "KILLED", "killed before it started", NULL, 0);
        return 0;
    }
    if ((t = s_find (&self->committing, tid, attempt))) {
        shuffletask_abandon (t);
        s_end (self, t, "KILLED", "killed at the driver's request", NULL, 0);
        return 0;
    }
    if (!(t = s_find (&self->running, tid, attempt)))
        return -1;
    t->killed = true;
    if (fnpool_cancel (self->pool, t))
        s_complete (self, t, "KILLED", "killed before it started", NULL, 0);
    else if (t->argv)
        cmdrun_kill (self->ex, t, SIGKILL); /* reported when its thread is
                                               done */
    else if (!t->final_sent)
        s_report_early (self, t, "KILLED", "killed at the driver's request");
    return 0;
}

/* Stop: the queued tasks end now, the running ones are killed. */
static void
s_kill_all (tasks_t *self)
{
    task_t *t;
    while ((t = self->queue.head))
        s_complete (self, t, "KILLED", "the executor is stopping", NULL, 0);
    while ((t = self->committing.head)) {
        shuffletask_abandon (t);
        s_end (self, t, "KILLED", "the executor is stopping", NULL, 0);
    }
    for (t = self->running.head; t; t = tlist_next (&self->running, t)) {
        t->killed = true;
        if (t->argv)
            cmdrun_kill (self->ex, t, SIGKILL);
    }
}

void
tasks_report_running (tasks_t *self, int64_t now_us)
{
    int64_t after_us = self->ex->running_report_ms * 1000;
    for (task_t *t = self->running.head; t;
         t = tlist_next (&self->running, t)) {
        int64_t start = __atomic_load_n (&t->start_us, __ATOMIC_RELAXED);
        if (!t->reported_running && !t->final_sent && start
            && now_us - start >= after_us) {
            self->events.update (self->events.arg, t, "RUNNING", NULL, NULL, 0);
            t->reported_running = true;
        }
    }
}

/* Report every task still held as KILLED; free them if free_them (not
   when a thread may still run one). */
static void
s_discard_all (tasks_t *self, bool free_them)
{
    task_t *t;
    while ((t = self->running.head)) {
        if (!t->final_sent) {
            t->end_us = hearth_mono_us ();
            self->events.update (self->events.arg, t, "KILLED",
                                 "the executor is stopping", NULL, 0);
        }
        tlist_remove (&self->running, t);
        if (t->timer_id >= 0)
            hearth_loop_timer_end (self->ex->loop, t->timer_id);
        if (free_them)
            task_destroy (&t);
    }
}

void
tasks_destroy (tasks_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    tasks_t *self = *self_p;
    s_kill_all (self);
    bool joined = fnpool_stop (self->pool) == 0;
    fnpool_destroy (&self->pool);
    s_discard_all (self, joined);
    resalloc_destroy (&self->res);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/*  regapps.c - the registry's applications and their executors:
    registration (and a driver's return under its application's id),
    the end of an application (its executors killed), an executor's
    placement, each change of its state and what its worker reports of
    it (registry_exec_report, registry_exec_listed); see registry.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcore/clock.h"
#include "master/registry.h"
#include "master/registry_int.h"

static void
s_exec_destroy (void **item)
{
    struct reg_exec *exec = *item;
    if (exec)
        hearth_resources_clear (&exec->resources);
    free (*item);
    *item = NULL;
}

cJSON *
registry__app_event (reg_app_t *app, const char *what)
{
    cJSON *e = registry__event (what);
    if (e)
        cJSON_AddItemToObject (e, "app", registry_app_json (app));
    return e;
}

int
registry__app_fill (struct reg_app *app, const registry_app_desc_t *desc)
{
    if (registry__set_str (&app->name, desc->name) < 0
        || registry__set_str (&app->driver_url, desc->driver_url) < 0
        || registry__set_str (&app->token, desc->token) < 0
        || registry__set_str (&app->driver_key, desc->driver_key) < 0
        || registry__set_str (&app->user, desc->user) < 0
        || registry__set_str (&app->event_log, desc->event_log) < 0)
        return -1;
    if (desc->conf && !(app->conf = cJSON_Duplicate (desc->conf, 1)))
        return -1;
    if (desc->executor_labels && cJSON_GetArraySize (desc->executor_labels)
        && !(app->executor_labels = cJSON_Duplicate (desc->executor_labels, 1)))
        return -1;
    snprintf (app->owner, sizeof app->owner, "%s",
              desc->owner ? desc->owner : "");
    snprintf (app->curve_key, sizeof app->curve_key, "%s",
              desc->curve_key ? desc->curve_key : "");
    if (desc->routing_id && !(app->routing_id = zframe_dup (desc->routing_id)))
        return -1;
    if (!(app->executors = zhashx_new ()) || !(app->workers = zhashx_new ()))
        return -1;
    zhashx_set_destructor (app->executors, s_exec_destroy);
    app->max_cores = desc->max_cores;
    app->executor_target = -1; /* none asked: placed as before */
    app->cores_per_executor = desc->cores_per_executor;
    app->memory_per_executor_mb = desc->memory_per_executor_mb;
    app->next_exec_id = desc->first_exec_id;
    if (desc->executor_resources
        && hearth_resource_amounts_copy (&app->executor_resources,
                                         desc->executor_resources)
               < 0)
        return -1;
    app->hold_until_ms = desc->hold_until_ms;
    return 0;
}

static void
s_app_id (registry_t *self, struct reg_app *app, const char *wanted)
{
    if (wanted) {
        snprintf (app->id, sizeof app->id, "%s", wanted);
        return;
    }
    do
        hearth_id_format (app->id, sizeof app->id, HEARTH_ID_APP, time (NULL),
                          self->next_app_seq++ % 10000);
    while (registry_app (self, app->id));
}

void
registry_note_orphan (registry_t *self, const char *app_id, int exec_id)
{
    struct reg_app *app = registry__app_rw (registry_app (self, app_id));
    if (app) {
        if (exec_id >= app->next_exec_id)
            app->next_exec_id = exec_id + 1;
        return;
    }
    int *next = zhashx_lookup (self->orphans, app_id);
    if (!next && (next = calloc (1, sizeof *next)))
        zhashx_insert (self->orphans, app_id, next);
    if (next && exec_id >= *next)
        *next = exec_id + 1;
}

reg_app_t *
registry_app_register (registry_t *self, const registry_app_desc_t *desc,
                       int64_t now_ms)
{
    if (desc->id && registry_app (self, desc->id))
        return NULL;
    struct reg_app *app = calloc (1, sizeof *app);
    if (!app)
        return NULL;
    if (registry__app_fill (app, desc) < 0) {
        registry__app_destroy (&app);
        return NULL;
    }
    s_app_id (self, app, desc->id);
    int *orphan_next = zhashx_lookup (self->orphans, app->id);
    if (orphan_next && *orphan_next > app->next_exec_id)
        app->next_exec_id = *orphan_next;
    zhashx_delete (self->orphans, app->id);
    app->state = APP_WAITING;
    app->epoch = 1;
    app->submit_ms = app->last_heartbeat_ms = registry_wall_ms ();
    registry__watch_app (self, app, now_ms);
    app->order_handle = zlistx_add_end (self->active, app);
    zhashx_insert (self->apps, app->id, app);
    registry__peer_set (self, app->routing_id, PEER_APP, app);
    registry_change_t c = {.topic = "app",
                           .app = app,
                           .exit_status = -1,
                           .event = registry__app_event (app, "registered")};
    registry__notify (self, &c);
    return app;
}

/* Move app to the completed list, dropping the oldest beyond the limit. */
static void
s_app_complete (registry_t *self, struct reg_app *app)
{
    zlistx_detach (self->active, app->order_handle);
    app->order_handle = zlistx_add_end (self->completed, app);
    registry__completed_trim (self, true);
}

void
registry_app_end (registry_t *self, reg_app_t *a, app_state_t state,
                  const char *reason,
                  void (*kill_fn) (void *arg, reg_exec_t *exec), void *arg)
{
    struct reg_app *app = registry__app_rw (a);
    if (app->state != APP_WAITING && app->state != APP_RUNNING)
        return;
    struct reg_exec *exec;
    int64_t now = hearth_mono_ms ();
    while ((exec = zhashx_first (app->executors))) {
        if (kill_fn)
            kill_fn (arg, exec);
        /* its worker has not stopped it yet: its cores stay counted */
        registry__stopping_add (registry__worker_rw (exec->worker), exec, now);
        /* said to its driver as such: not a loss, nothing to run again */
        exec->exit_reason = "APPLICATION_ENDED";
        registry_exec_set_state (self, exec, EXEC_KILLED, "application ended",
                                 -1, false);
    }
    registry__unwatch_app (self, app);
    registry__peer_unset (self, app->routing_id, app);
    free (app->waiting);
    app->waiting = NULL;
    app->waiting_code = NULL;
    app->unplaceable_ms = 0;
    app->state = state;
    app->end_ms = registry_wall_ms ();
    registry__set_str (&app->end_reason, reason);
    if (state != APP_RELAUNCHING) { /* nothing to resume: the table goes */
        outputs_destroy (&app->outputs);
        app->resume_by_ms = 0;
    }
    registry_change_t c = {
        .topic = "app",
        .app = app,
        .exit_status = -1,
        .event = registry__app_event (
            app, state == APP_RELAUNCHING ? "relaunching" : "ended")};
    registry__notify (self, &c);
    s_app_complete (self, app);
}

void
registry_app_adopt (registry_t *self, reg_app_t *a, zframe_t *routing_id,
                    int first_exec_id, int64_t now_ms)
{
    struct reg_app *app = registry__app_rw (a);
    zframe_t *rid = zframe_dup (routing_id);
    if (!rid)
        return;
    registry__peer_unset (self, app->routing_id, app);
    zframe_destroy (&app->routing_id);
    app->routing_id = rid;
    registry__peer_set (self, rid, PEER_APP, app);
    app->recovering = false;
    if (first_exec_id > app->next_exec_id)
        app->next_exec_id = first_exec_id;
    app->last_heartbeat_ms = registry_wall_ms ();
    registry__watch_app (self, app, now_ms);
    registry_change_t c = {.topic = "app",
                           .app = app,
                           .exit_status = -1,
                           .event = registry__app_event (app, "reregistered")};
    registry__notify (self, &c);
}

void
registry_app_set_waiting (registry_t *self, reg_app_t *a, const char *code,
                          const char *why)
{
    struct reg_app *app = registry__app_rw (a);
    if (!registry__waiting_changed (app->waiting_code, app->waiting, code, why))
        return;
    if (registry__set_str (&app->waiting, why) < 0)
        return;
    app->waiting_code = why ? code : NULL;
    /* No .app: the journal has nothing to keep of it. */
    registry_change_t c = {.topic = "app",
                           .waiting = app,
                           .exit_status = -1,
                           .event = registry__app_event (app, "waiting")};
    registry__notify (self, &c);
}

int64_t
registry_app_unplaceable (registry_t *self, reg_app_t *a, bool never,
                          int64_t now_ms)
{
    (void) self;
    return registry__clock (&registry__app_rw (a)->unplaceable_ms, never,
                            now_ms);
}

int
registry_app_set_target (registry_t *self, reg_app_t *a, int total)
{
    struct reg_app *app = registry__app_rw (a);
    if (app->executor_target == total)
        return 0;
    app->executor_target = total;
    registry_change_t c = {.topic = "app",
                           .app = app,
                           .exit_status = -1,
                           .event = registry__app_event (app, "target")};
    registry__notify (self, &c); /* journals the app's record */
    return 1;
}

int
registry_app_set_places (reg_app_t *a, const cJSON *places)
{
    struct reg_app *app = registry__app_rw (a);
    if (!cJSON_GetArraySize (places))
        places = NULL;
    if (!places && !app->executor_places)
        return 0;
    if (places && app->executor_places
        && cJSON_Compare (places, app->executor_places, true))
        return 0;
    cJSON *copy = places ? cJSON_Duplicate (places, true) : NULL;
    if (places && !copy)
        return -1;
    cJSON_Delete (app->executor_places);
    app->executor_places = copy;
    return 1;
}

size_t
registry_app_executors (reg_app_t *app)
{
    return zhashx_size (app->executors);
}

int
registry_app_set_progress (reg_app_t *a, const cJSON *body, int64_t wall_ms)
{
    struct reg_app *app = registry__app_rw (a);
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive (body, "timeline");
    if (tl && !app->timeline && !(app->timeline = hearth_tllive_new ()))
        return -1;
    if (tl && hearth_tllive_merge (app->timeline, tl) < 0)
        return -1;
    cJSON *p = cJSON_CreateObject ();
    bool ok = p && cJSON_AddNumberToObject (p, "time_ms", (double) wall_ms);
    for (const cJSON *f = body->child; ok && f; f = f->next) {
        if (strcmp (f->string, "app_id") == 0
            || strcmp (f->string, "timeline") == 0)
            continue;
        cJSON *copy = cJSON_Duplicate (f, 1);
        ok = copy && cJSON_AddItemToObject (p, f->string, copy);
        if (!ok)
            cJSON_Delete (copy);
    }
    if (!ok) {
        cJSON_Delete (p);
        return -1;
    }
    cJSON_Delete (app->progress);
    app->progress = p;
    return 0;
}

static cJSON *
s_exec_event (reg_exec_t *exec, const char *what, const char *message,
              int exit_status, bool worker_lost)
{
    cJSON *e = registry__event (what);
    if (!e)
        return NULL;
    cJSON_AddItemToObject (e, "executor", registry_exec_json (exec));
    if (message)
        cJSON_AddStringToObject (e, "message", message);
    if (exit_status >= 0)
        cJSON_AddNumberToObject (e, "exit_status", exit_status);
    if (worker_lost)
        cJSON_AddBoolToObject (e, "worker_lost", true);
    return e;
}

reg_exec_t *
registry_exec_add (registry_t *self, reg_app_t *app, reg_worker_t *w, int cores,
                   int64_t memory_mb)
{
    return registry_exec_add_held (self, app, w, cores, memory_mb, NULL);
}

reg_exec_t *
registry_exec_add_held (registry_t *self, reg_app_t *a, reg_worker_t *worker,
                        int cores, int64_t memory_mb,
                        const hearth_resources_t *resources)
{
    struct reg_app *app = registry__app_rw (a);
    struct reg_worker *w = registry__worker_rw (worker);
    char key[16];
    struct reg_exec *exec = calloc (1, sizeof *exec);
    if (!exec)
        return NULL;
    *exec = (reg_exec_t){.app = app,
                         .exec_id = app->next_exec_id,
                         .worker = w,
                         .cores = cores,
                         .memory_mb = memory_mb,
                         .state = EXEC_LAUNCHING};
    if (resources && hearth_resources_copy (&exec->resources, resources) < 0) {
        free (exec);
        return NULL;
    }
    exec->worker_handle = zlistx_add_end (w->executors, exec);
    if (!exec->worker_handle) {
        hearth_resources_clear (&exec->resources);
        free (exec);
        return NULL;
    }
    app->next_exec_id++;
    if (self->journal) /* next_exec_id moved */
        registry__record (self, registry_app_record (app), false);
    zhashx_update (app->workers, w->id, (void *) "");
    snprintf (key, sizeof key, "%d", exec->exec_id);
    zhashx_insert (app->executors, key, exec);
    app->cores_granted += cores;
    if (app->cores_granted > app->cores_peak)
        app->cores_peak = app->cores_granted;
    w->cores_used += cores;
    w->memory_used_mb += memory_mb;
    registry_change_t c = {.topic = "executor",
                           .worker = w,
                           .app = app,
                           .exec = exec,
                           .exit_status = -1,
                           .event =
                               s_exec_event (exec, "added", NULL, -1, false)};
    registry__notify (self, &c);
    if (app->state == APP_WAITING) {
        app->state = APP_RUNNING;
        registry_change_t r = {.topic = "app",
                               .app = app,
                               .exit_status = -1,
                               .event = registry__app_event (app, "running")};
        registry__notify (self, &r);
    }
    return exec;
}

/* Keep how exec ended on its application's ended list (the oldest go
   beyond REGISTRY_ENDED_EXECUTORS), for its page: an executor whose
   record is gone still says why it ended.  Out of memory, it is not
   kept. */
static void
s_exec_ended (struct reg_exec *exec, const char *message, int exit_status,
              bool worker_lost)
{
    struct reg_app *app = registry__app_rw (exec->app);
    if (!app->ended && !(app->ended = cJSON_CreateArray ()))
        return;
    cJSON *o = registry_exec_json (exec);
    if (!o)
        return;
    if (exit_status >= 0)
        cJSON_AddNumberToObject (o, "exit_status", exit_status);
    if (exec->signal > 0)
        cJSON_AddNumberToObject (o, "signal", exec->signal);
    if (message)
        cJSON_AddStringToObject (o, "message", message);
    if (worker_lost)
        cJSON_AddBoolToObject (o, "worker_lost", true);
    cJSON_AddNumberToObject (o, "end_ms", (double) registry_wall_ms ());
    cJSON_AddItemToArray (app->ended, o);
    while (cJSON_GetArraySize (app->ended) > REGISTRY_ENDED_EXECUTORS)
        cJSON_DeleteItemFromArray (app->ended, 0);
}

/* Give back the executor's resources and free it. */
static void
s_exec_remove (struct reg_exec *exec)
{
    char key[16];
    struct reg_worker *w = registry__worker_rw (exec->worker);
    struct reg_app *app = registry__app_rw (exec->app);
    w->cores_used -= exec->cores;
    w->memory_used_mb -= exec->memory_mb;
    app->cores_granted -= exec->cores;
    zlistx_delete (w->executors, exec->worker_handle);
    snprintf (key, sizeof key, "%d", exec->exec_id);
    zhashx_delete (app->executors, key); /* frees exec */
}

void
registry_exec_release (registry_t *self, reg_exec_t *e, const char *reason)
{
    struct reg_exec *exec = registry__exec_rw (e);
    registry__stopping_add_released (registry__worker_rw (exec->worker), exec,
                                     hearth_mono_ms ());
    exec->exit_reason = "RELEASED";
    registry_exec_set_state (self, exec, EXEC_KILLED, reason, -1, false);
}

/* Whether two sets of addresses are the same, in the same order (a
   worker lists an executor's as the master gave them, or as it listed
   them last). */
static bool
s_resources_same (const hearth_resources_t *a, const hearth_resources_t *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const hearth_resource_t *x = &a->v[i], *y = &b->v[i];
        if (strcmp (x->name, y->name) != 0 || x->naddrs != y->naddrs)
            return false;
        for (size_t j = 0; j < x->naddrs; j++)
            if (strcmp (x->addrs[j], y->addrs[j]) != 0)
                return false;
    }
    return true;
}

void
registry_exec_listed (registry_t *self, reg_exec_t *e, int pid,
                      const hearth_resources_t *resources)
{
    struct reg_exec *exec = registry__exec_rw (e);
    bool changed = pid != exec->pid;
    exec->pid = pid;
    if (resources && !s_resources_same (resources, &exec->resources)) {
        hearth_resources_t copy = {0};
        if (hearth_resources_copy (&copy, resources) == 0) {
            hearth_resources_clear (&exec->resources);
            exec->resources = copy;
            changed = true;
        }
    }
    if (exec->state != EXEC_RUNNING) {
        registry_exec_set_state (self, exec, EXEC_RUNNING,
                                 "reported by its worker", -1, false);
        return;
    }
    if (!changed)
        return;
    registry_change_t c = {
        .topic = "executor",
        .worker = exec->worker,
        .app = exec->app,
        .exec = exec,
        .reported = true,
        .exit_status = -1,
        .event = s_exec_event (exec, "reported", NULL, -1, false)};
    registry__notify (self, &c); /* journals the executor's record */
}

void
registry_exec_set_state (registry_t *self, reg_exec_t *e, exec_state_t state,
                         const char *message, int exit_status, bool worker_lost)
{
    struct reg_exec *exec = registry__exec_rw (e);
    struct reg_app *app = registry__app_rw (exec->app);
    exec->state = state;
    if (state == EXEC_EXITED && exit_status == 0)
        app->retries = 0;
    else if (state == EXEC_FAILED || (state == EXEC_EXITED && exit_status > 0))
        app->retries++;
    registry_change_t c = {.topic = "executor",
                           .worker = exec->worker,
                           .app = exec->app,
                           .exec = exec,
                           .worker_lost = worker_lost,
                           .message = message,
                           .exit_status = exit_status,
                           .event = s_exec_event (exec, "state", message,
                                                  exit_status, worker_lost)};
    registry__notify (self, &c);
    if (registry_exec_final (state)) {
        s_exec_ended (exec, message, exit_status, worker_lost);
        s_exec_remove (exec);
    }
}

/* The application's record of its last executor killed for memory
   (MASTER_STATE's last_oom). */
static void
s_note_oom (struct reg_exec *exec, const char *message)
{
    struct reg_app *app = registry__app_rw (exec->app);
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return;
    cJSON_AddNumberToObject (o, "exec_id", exec->exec_id);
    cJSON_AddStringToObject (o, "worker_id", exec->worker->id);
    cJSON_AddNumberToObject (o, "memory_limit_bytes",
                             (double) exec->memory_limit_bytes);
    cJSON_AddNumberToObject (o, "peak_rss_bytes",
                             (double) exec->peak_rss_bytes);
    if (message)
        cJSON_AddStringToObject (o, "message", message);
    cJSON_Delete (app->last_oom);
    app->last_oom = o;
}

void
registry_exec_report (registry_t *self, reg_exec_t *e,
                      const registry_exec_report_t *report)
{
    struct reg_exec *exec = registry__exec_rw (e);
    exec->signal = report->signal;
    exec->pid = report->pid;
    exec->peak_rss_bytes = report->peak_rss_bytes;
    exec->memory_limit_bytes = report->memory_limit_bytes;
    if (report->exit_reason)
        exec->exit_reason = report->exit_reason;
    if (report->exit_reason && strcmp (report->exit_reason, "OOM_KILLED") == 0)
        s_note_oom (exec, report->message);
    registry_exec_set_state (self, exec, report->state, report->message,
                             report->exit_status, false);
}

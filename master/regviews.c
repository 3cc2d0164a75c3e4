/*  regviews.c - the JSON views of the registry's records (events,
    MASTER_STATE, hearth-tail): pure functions of one record, calling
    nothing else of the registry but regres.c's holders of a worker's
    addresses; see registry.h. */
#include "config.h"

#include <stdlib.h>

#include "libcore/proto.h"
#include "master/registry.h"

cJSON *
registry_worker_json (reg_worker_t *w, int64_t now_ms)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    int cores_used = registry_worker_cores_used (w);
    int64_t mem_used = registry_worker_memory_used (w);
    cJSON_AddStringToObject (o, "id", w->id);
    cJSON_AddStringToObject (o, "host", w->host);
    cJSON_AddStringToObject (o, "state", registry_worker_state_name (w));
    if (w->decom_reason)
        cJSON_AddStringToObject (o, "decommission_reason", w->decom_reason);
    if (w->decom_deadline_ms)
        cJSON_AddNumberToObject (o, "decommission_deadline_ms",
                                 (double) w->decom_deadline_ms);
    if (w->dead_reason)
        cJSON_AddStringToObject (o, "dead_reason", w->dead_reason);
    if (w->draining)
        cJSON_AddBoolToObject (o, "draining", true);
    if (w->drain_reason)
        cJSON_AddStringToObject (o, "drain_reason", w->drain_reason);
    cJSON_AddNumberToObject (o, "cores", w->cores);
    cJSON_AddNumberToObject (o, "cores_used", cores_used);
    cJSON_AddNumberToObject (o, "memory_mb", (double) w->memory_mb);
    cJSON_AddNumberToObject (o, "memory_used_mb", (double) mem_used);
    cJSON_AddNumberToObject (o, "shuffle_bytes", (double) w->shuffle_bytes);
    if (w->persisted_bytes)
        cJSON_AddNumberToObject (o, "persisted_bytes",
                                 (double) w->persisted_bytes);
    if (w->resources.n) { /* its addresses, and who holds which */
        cJSON_AddItemToObject (o, "resources",
                               hearth_resources_to_json (&w->resources));
        cJSON *held = registry_worker_held_json (w);
        cJSON_AddItemToObject (o, "resources_held",
                               held ? held : cJSON_CreateObject ());
    }
    if (w->web_url)
        cJSON_AddStringToObject (o, "web_url", w->web_url);
    if (w->labels)
        cJSON_AddItemToObject (o, "labels", cJSON_Duplicate (w->labels, true));
    cJSON_AddNumberToObject (o, "last_heartbeat_ms",
                             (double) w->last_heartbeat_ms);
    cJSON_AddNumberToObject (o, "heartbeat_age_ms",
                             (double) (now_ms - w->last_heartbeat_ms));
    cJSON_AddNumberToObject (o, "executors",
                             (double) zlistx_size (w->executors));
    cJSON_AddNumberToObject (o, "drivers", (double) zlistx_size (w->drivers));
    if (w->launch_failures)
        cJSON_AddNumberToObject (o, "launch_failures", w->launch_failures);
    if (w->unhealthy)
        cJSON_AddStringToObject (o, "unhealthy", w->unhealthy);
    return o;
}

/* ,"name": (name a string literal). */
#define S_KEY(b, name)                                                         \
    hearth_json_put ((b), ",\"" name "\":", sizeof (name) + 3)

/* ,"name":value for a string (borrowed) or a number. */
static bool
s_put_str (hearth_jsonbuf_t *b, const char *key, size_t key_len,
           const char *value)
{
    return hearth_json_put (b, key, key_len)
           && hearth_json_put_string (b, value);
}
#define S_STR(b, name, value)                                                  \
    s_put_str ((b), ",\"" name "\":", sizeof (name) + 3, (value))
#define S_NUM(b, name, value)                                                  \
    (S_KEY (b, name) && hearth_json_put_number ((b), (double) (value)))

/* The custom resources' part of a worker's view: trees, as they are rare
   and small. */
static bool
s_print_resources (reg_worker_t *w, hearth_jsonbuf_t *b)
{
    cJSON *res = hearth_resources_to_json (&w->resources);
    cJSON *held = registry_worker_held_json (w);
    bool ok = res && S_KEY (b, "resources") && hearth_json_put_value (b, res)
              && S_KEY (b, "resources_held")
              && (held ? hearth_json_put_value (b, held)
                       : hearth_json_put (b, "{}", 2));
    cJSON_Delete (res);
    cJSON_Delete (held);
    return ok;
}

/* Field by field in registry_worker_json's order and with its
   conditions: test_regprint compares the two. */
bool
registry_worker_print (reg_worker_t *w, int64_t now_ms, hearth_jsonbuf_t *b)
{
    bool ok = hearth_json_put (b, "{\"id\":", 6)
              && hearth_json_put_string (b, w->id)
              && (!w->host || S_STR (b, "host", w->host))
              && S_STR (b, "state", registry_worker_state_name (w));
    if (ok && w->decom_reason)
        ok = S_STR (b, "decommission_reason", w->decom_reason);
    if (ok && w->decom_deadline_ms)
        ok = S_NUM (b, "decommission_deadline_ms", w->decom_deadline_ms);
    if (ok && w->dead_reason)
        ok = S_STR (b, "dead_reason", w->dead_reason);
    if (ok && w->draining)
        ok = S_KEY (b, "draining") && hearth_json_put (b, "true", 4);
    if (ok && w->drain_reason)
        ok = S_STR (b, "drain_reason", w->drain_reason);
    ok = ok && S_NUM (b, "cores", w->cores)
         && S_NUM (b, "cores_used", registry_worker_cores_used (w))
         && S_NUM (b, "memory_mb", w->memory_mb)
         && S_NUM (b, "memory_used_mb", registry_worker_memory_used (w))
         && S_NUM (b, "shuffle_bytes", w->shuffle_bytes);
    if (ok && w->resources.n)
        ok = s_print_resources (w, b);
    if (ok && w->web_url)
        ok = S_STR (b, "web_url", w->web_url);
    if (ok && w->labels)
        ok = S_KEY (b, "labels") && hearth_json_put_value (b, w->labels);
    ok = ok && S_NUM (b, "last_heartbeat_ms", w->last_heartbeat_ms)
         && S_NUM (b, "heartbeat_age_ms", now_ms - w->last_heartbeat_ms)
         && S_NUM (b, "executors", zlistx_size (w->executors))
         && S_NUM (b, "drivers", zlistx_size (w->drivers));
    if (ok && w->launch_failures)
        ok = S_NUM (b, "launch_failures", w->launch_failures);
    if (ok && w->unhealthy)
        ok = S_STR (b, "unhealthy", w->unhealthy);
    return ok && hearth_json_put (b, "}", 1);
}

cJSON *
registry_exec_json (reg_exec_t *exec)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddStringToObject (o, "app_id", exec->app->id);
    cJSON_AddNumberToObject (o, "exec_id", exec->exec_id);
    cJSON_AddStringToObject (o, "worker_id", exec->worker->id);
    cJSON_AddStringToObject (o, "host", exec->worker->host);
    cJSON_AddNumberToObject (o, "cores", exec->cores);
    cJSON_AddNumberToObject (o, "memory_mb", (double) exec->memory_mb);
    cJSON_AddStringToObject (o, "state", hearth_executor_states[exec->state]);
    if (exec->pid > 0)
        cJSON_AddNumberToObject (o, "pid", exec->pid);
    if (exec->resources.n)
        cJSON_AddItemToObject (o, "resources",
                               hearth_resources_to_json (&exec->resources));
    if (exec->exit_reason)
        cJSON_AddStringToObject (o, "exit_reason", exec->exit_reason);
    if (exec->memory_limit_bytes > 0)
        cJSON_AddNumberToObject (o, "memory_limit_bytes",
                                 (double) exec->memory_limit_bytes);
    if (exec->peak_rss_bytes > 0)
        cJSON_AddNumberToObject (o, "peak_rss_bytes",
                                 (double) exec->peak_rss_bytes);
    return o;
}

static int
s_exec_cmp (const void *a, const void *b)
{
    reg_exec_t *x = *(reg_exec_t *const *) a;
    reg_exec_t *y = *(reg_exec_t *const *) b;
    return (x->exec_id > y->exec_id) - (x->exec_id < y->exec_id);
}

/* The app's executors in exec_id order. */
static cJSON *
s_app_executors_json (reg_app_t *app)
{
    cJSON *list = cJSON_CreateArray ();
    size_t n = zhashx_size (app->executors), i = 0;
    reg_exec_t **sorted = calloc (n ? n : 1, sizeof *sorted);
    if (!list || !sorted) {
        free (sorted);
        return list;
    }
    for (reg_exec_t *e = zhashx_first (app->executors); e && i < n;
         e = zhashx_next (app->executors))
        sorted[i++] = e;
    qsort (sorted, i, sizeof *sorted, s_exec_cmp);
    for (size_t k = 0; k < i; k++)
        cJSON_AddItemToArray (list, registry_exec_json (sorted[k]));
    free (sorted);
    return list;
}

/* "waiting": {"code", "reason"} (master/waiting.h) into o. */
static void
s_add_waiting (cJSON *o, const char *code, const char *reason)
{
    cJSON *w = cJSON_AddObjectToObject (o, "waiting");
    if (w && code)
        cJSON_AddStringToObject (w, "code", code);
    if (w)
        cJSON_AddStringToObject (w, "reason", reason);
}

cJSON *
registry_app_json (reg_app_t *app)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddStringToObject (o, "id", app->id);
    cJSON_AddStringToObject (o, "name", app->name);
    cJSON_AddStringToObject (o, "state", hearth_app_states[app->state]);
    cJSON_AddNumberToObject (o, "cores_granted", app->cores_granted);
    cJSON_AddNumberToObject (o, "cores_peak", app->cores_peak);
    if (app->max_cores)
        cJSON_AddNumberToObject (o, "max_cores", app->max_cores);
    else
        cJSON_AddNullToObject (o, "max_cores");
    if (app->cores_per_executor)
        cJSON_AddNumberToObject (o, "cores_per_executor",
                                 app->cores_per_executor);
    if (app->executor_target >= 0)
        cJSON_AddNumberToObject (o, "executor_target", app->executor_target);
    cJSON_AddNumberToObject (o, "memory_per_executor_mb",
                             (double) app->memory_per_executor_mb);
    if (app->executor_resources.n)
        cJSON_AddItemToObject (
            o, "executor_resources",
            hearth_resource_amounts_to_json (&app->executor_resources));
    if (app->executor_labels)
        cJSON_AddItemToObject (o, "executor_labels",
                               cJSON_Duplicate (app->executor_labels, true));
    cJSON_AddStringToObject (o, "driver_url", app->driver_url);
    if (app->user)
        cJSON_AddStringToObject (o, "user", app->user);
    cJSON_AddNumberToObject (o, "submit_ms", (double) app->submit_ms);
    if (app->end_ms)
        cJSON_AddNumberToObject (o, "end_ms", (double) app->end_ms);
    if (app->end_reason)
        cJSON_AddStringToObject (o, "reason", app->end_reason);
    if (app->recovering)
        cJSON_AddBoolToObject (o, "recovering", true);
    cJSON_AddNumberToObject (o, "driver_epoch", app->epoch);
    if (app->resume_by_ms)
        cJSON_AddNumberToObject (o, "resume_deadline_ms",
                                 (double) app->resume_by_ms);
    if (app->outputs)
        cJSON_AddNumberToObject (o, "outputs",
                                 (double) outputs_size (app->outputs));
    if (app->owner[0])
        cJSON_AddStringToObject (o, "owner", app->owner);
    if (app->waiting)
        s_add_waiting (o, app->waiting_code, app->waiting);
    else if (app->state == APP_RELAUNCHING && app->end_reason)
        /* it waits for a driver to resume it, and says until when */
        s_add_waiting (o, "relaunching", app->end_reason);
    if (app->event_log)
        cJSON_AddStringToObject (o, "event_log", app->event_log);
    if (app->last_oom)
        cJSON_AddItemToObject (o, "last_oom",
                               cJSON_Duplicate (app->last_oom, true));
    if (app->progress)
        cJSON_AddItemToObject (o, "progress",
                               cJSON_Duplicate (app->progress, 1));
    cJSON_AddItemToObject (o, "executors", s_app_executors_json (app));
    cJSON_AddItemToObject (o, "ended_executors",
                           app->ended ? cJSON_Duplicate (app->ended, true)
                                      : cJSON_CreateArray ());
    return o;
}

cJSON *
registry_driver_json (reg_driver_t *d)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddStringToObject (o, "id", d->id);
    if (d->name)
        cJSON_AddStringToObject (o, "name", d->name);
    cJSON_AddStringToObject (o, "app", d->app);
    cJSON_AddStringToObject (o, "kind", d->binary ? "binary" : "job");
    cJSON_AddStringToObject (o, "state", hearth_driver_states[d->state]);
    cJSON_AddNumberToObject (o, "cores", d->cores);
    cJSON_AddNumberToObject (o, "memory_mb", (double) d->memory_mb);
    cJSON_AddBoolToObject (o, "supervise", d->supervise);
    cJSON_AddNumberToObject (o, "launches", d->launches);
    cJSON_AddNumberToObject (o, "bytes", (double) d->bytes);
    if (d->worker_id[0])
        cJSON_AddStringToObject (o, "worker_id", d->worker_id);
    if (d->worker_host)
        cJSON_AddStringToObject (o, "worker_host", d->worker_host);
    if (d->worker_dir)
        cJSON_AddStringToObject (o, "work_dir", d->worker_dir);
    if (d->app_id[0])
        cJSON_AddStringToObject (o, "app_id", d->app_id);
    if (d->pid > 0)
        cJSON_AddNumberToObject (o, "pid", d->pid);
    if (d->exit_status >= 0)
        cJSON_AddNumberToObject (o, "exit_status", d->exit_status);
    if (d->error)
        cJSON_AddStringToObject (o, "error", d->error);
    if (d->waiting)
        s_add_waiting (o, d->waiting_code, d->waiting);
    cJSON_AddNumberToObject (o, "submit_ms", (double) d->submit_ms);
    if (d->end_ms)
        cJSON_AddNumberToObject (o, "end_ms", (double) d->end_ms);
    if (d->owner[0])
        cJSON_AddStringToObject (o, "owner", d->owner);
    return o;
}

/*  records.c - the journal's records of the registry (jstate.h's format):
    what a restarted master needs to rebuild a worker, an application, an
    executor or a cluster-mode driver, and nothing it can learn again from
    its peers (routing ids, heartbeat times, resources a worker reports).
    The reading side is registry_restore() in restore.c. */
#include "config.h"

#include "libcore/proto.h"
#include "master/registry.h"

static cJSON *
s_record (const char *type)
{
    cJSON *r = cJSON_CreateObject ();
    if (r)
        cJSON_AddStringToObject (r, "t", type);
    return r;
}

static void
s_add_str (cJSON *r, const char *name, const char *value)
{
    if (value)
        cJSON_AddStringToObject (r, name, value);
}

cJSON *
registry_worker_record (reg_worker_t *w)
{
    cJSON *r = s_record ("worker");
    if (!r)
        return NULL;
    cJSON_AddStringToObject (r, "id", w->id);
    s_add_str (r, "host", w->host);
    s_add_str (r, "version", w->version);
    s_add_str (r, "work_dir", w->work_dir);
    /* which work dir it holds: a worker restarted there while the master
       was down replaces this one (master/workers.c) */
    s_add_str (r, "work_dir_id", w->work_dir_id);
    /* the key its id belongs to: after a restart, or on a standby that
       takes over, only that key registers under the id (authz.c) */
    if (w->curve_key[0])
        cJSON_AddStringToObject (r, "curve_key", w->curve_key);
    cJSON_AddNumberToObject (r, "cores", w->cores);
    cJSON_AddNumberToObject (r, "memory_mb", (double) w->memory_mb);
    if (w->resources.n) /* shown until it registers again */
        cJSON_AddItemToObject (r, "resources",
                               hearth_resources_to_json (&w->resources));
    cJSON_AddStringToObject (r, "state", hearth_worker_states[w->state]);
    if (w->draining)
        cJSON_AddBoolToObject (r, "draining", true);
    s_add_str (r, "drain_reason", w->drain_reason);
    if (w->decommissioning) { /* a restarted master still knows */
        cJSON_AddBoolToObject (r, "decommissioning", true);
        cJSON_AddNumberToObject (r, "decommission_deadline_ms",
                                 (double) w->decom_deadline_ms);
    }
    s_add_str (r, "decommission_reason", w->decom_reason);
    s_add_str (r, "dead_reason", w->dead_reason);
    cJSON_AddNumberToObject (r, "registered_ms", (double) w->registered_ms);
    /* its last sign of life when the record was written: for a DEAD one
       (written as it died), what a restarted master shows */
    cJSON_AddNumberToObject (r, "last_heartbeat_ms",
                             (double) w->last_heartbeat_ms);
    return r;
}

cJSON *
registry_app_record (reg_app_t *app)
{
    cJSON *r = s_record ("app");
    if (!r)
        return NULL;
    cJSON_AddStringToObject (r, "id", app->id);
    s_add_str (r, "name", app->name);
    s_add_str (r, "driver_url", app->driver_url);
    s_add_str (r, "token", app->token);
    s_add_str (r, "driver_key", app->driver_key);
    s_add_str (r, "user", app->user);
    s_add_str (r, "event_log", app->event_log);
    if (app->owner[0])
        cJSON_AddStringToObject (r, "owner", app->owner);
    if (app->curve_key[0])
        cJSON_AddStringToObject (r, "curve_key", app->curve_key);
    if (app->conf)
        cJSON_AddItemToObject (r, "conf", cJSON_Duplicate (app->conf, true));
    cJSON_AddStringToObject (r, "state", hearth_app_states[app->state]);
    cJSON_AddNumberToObject (r, "epoch", app->epoch);
    if (app->resume_by_ms)
        cJSON_AddNumberToObject (r, "resume_deadline_ms",
                                 (double) app->resume_by_ms);
    if (app->cores_peak)
        cJSON_AddNumberToObject (r, "cores_peak", app->cores_peak);
    if (app->max_cores)
        cJSON_AddNumberToObject (r, "max_cores", app->max_cores);
    if (app->cores_per_executor)
        cJSON_AddNumberToObject (r, "cores_per_executor",
                                 app->cores_per_executor);
    cJSON_AddNumberToObject (r, "memory_per_executor_mb",
                             (double) app->memory_per_executor_mb);
    if (app->executor_resources.n)
        cJSON_AddItemToObject (
            r, "executor_resources",
            hearth_resource_amounts_to_json (&app->executor_resources));
    if (app->executor_labels)
        cJSON_AddItemToObject (r, "executor_labels",
                               cJSON_Duplicate (app->executor_labels, true));
    cJSON_AddNumberToObject (r, "next_exec_id", app->next_exec_id);
    if (app->executor_target >= 0)
        cJSON_AddNumberToObject (r, "executor_target", app->executor_target);
    cJSON *workers = cJSON_AddArrayToObject (r, "workers");
    for (void *v = zhashx_first (app->workers); workers && v;
         v = zhashx_next (app->workers))
        cJSON_AddItemToArray (
            workers, cJSON_CreateString (zhashx_cursor (app->workers)));
    cJSON_AddNumberToObject (r, "submit_ms", (double) app->submit_ms);
    if (app->end_ms)
        cJSON_AddNumberToObject (r, "end_ms", (double) app->end_ms);
    s_add_str (r, "reason", app->end_reason);
    return r;
}

cJSON *
registry_exec_record (reg_exec_t *exec)
{
    cJSON *r = s_record ("exec");
    if (!r)
        return NULL;
    cJSON_AddStringToObject (r, "app_id", exec->app->id);
    cJSON_AddNumberToObject (r, "exec_id", exec->exec_id);
    cJSON_AddStringToObject (r, "worker_id", exec->worker->id);
    cJSON_AddNumberToObject (r, "cores", exec->cores);
    cJSON_AddNumberToObject (r, "memory_mb", (double) exec->memory_mb);
    if (exec->resources.n) /* held across a restart */
        cJSON_AddItemToObject (r, "resources",
                               hearth_resources_to_json (&exec->resources));
    cJSON_AddStringToObject (r, "state", hearth_executor_states[exec->state]);
    if (exec->pid > 0)
        cJSON_AddNumberToObject (r, "pid", exec->pid);
    return r;
}

cJSON *
registry_driver_record (reg_driver_t *d)
{
    cJSON *r = s_record ("driver");
    if (!r)
        return NULL;
    cJSON_AddStringToObject (r, "id", d->id);
    s_add_str (r, "name", d->name);
    s_add_str (r, "app", d->app);
    cJSON_AddBoolToObject (r, "binary", d->binary);
    if (d->spec)
        cJSON_AddItemToObject (r, "spec", cJSON_Duplicate (d->spec, true));
    /* The files' bytes are kept beside the journal (journal_files_put),
       while the driver may be launched again. */
    cJSON_AddNumberToObject (r, "frames", (double) d->nframes);
    cJSON_AddNumberToObject (r, "bytes", (double) d->bytes);
    cJSON_AddNumberToObject (r, "cores", d->cores);
    cJSON_AddNumberToObject (r, "memory_mb", (double) d->memory_mb);
    cJSON_AddBoolToObject (r, "supervise", d->supervise);
    cJSON_AddStringToObject (r, "state", hearth_driver_states[d->state]);
    if (d->worker_id[0])
        cJSON_AddStringToObject (r, "worker_id", d->worker_id);
    cJSON_AddBoolToObject (r, "placed", d->worker != NULL);
    s_add_str (r, "worker_host", d->worker_host);
    s_add_str (r, "worker_dir", d->worker_dir);
    if (d->app_id[0])
        cJSON_AddStringToObject (r, "app_id", d->app_id);
    s_add_str (r, "error", d->error);
    cJSON_AddNumberToObject (r, "exit_status", d->exit_status);
    if (d->pid > 0)
        cJSON_AddNumberToObject (r, "pid", d->pid);
    cJSON_AddNumberToObject (r, "launches", d->launches);
    cJSON_AddNumberToObject (r, "failures", d->failures);
    cJSON_AddBoolToObject (r, "kill_requested", d->kill_requested);
    if (d->owner[0])
        cJSON_AddStringToObject (r, "owner", d->owner);
    /* its launch's public key: a restarted master admits it again while
       the driver is placed (drvkeys.h); the secret half is not kept */
    if (d->key[0])
        cJSON_AddStringToObject (r, "key", d->key);
    cJSON_AddNumberToObject (r, "submit_ms", (double) d->submit_ms);
    if (d->end_ms)
        cJSON_AddNumberToObject (r, "end_ms", (double) d->end_ms);
    return r;
}

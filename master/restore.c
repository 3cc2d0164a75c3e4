/*  restore.c - the registry and the journal: every record of the state
    for a snapshot (registry_dump), the registry rebuilt from the records
    a replay recovered (registry_restore), and how many of the restored
    peers are not back yet (registry_pending); see registry.h.

    Recovered records passed a CRC, not a schema: every value is checked
    here, and a record that makes no sense (an executor of an unknown
    application, an id that is not an id) is skipped with a warning, never
    trusted.  Nothing here tells the observer or the journal: the master
    compacts right after a restore, so the snapshot is what was restored.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/ctlchars.h"
#include "libcore/ids.h"
#include "libcore/keys.h"
#include "libcore/labels.h"
#include "libcore/log.h"
#include "libcore/proto.h"
#include "master/regdrivers.h"
#include "master/registry.h"
#include "master/registry_int.h"

void
registry_dump (registry_t *self, registry_record_fn *fn, void *arg)
{
    cJSON *r;
    for (struct reg_worker *w = zlistx_first (self->worker_order); w;
         w = zlistx_next (self->worker_order))
        if ((r = registry_worker_record (w))) {
            fn (arg, r, false);
            cJSON_Delete (r);
        }
    zlistx_t *lists[] = {self->active, self->completed};
    for (size_t i = 0; i < 2; i++)
        for (struct reg_app *a = zlistx_first (lists[i]); a;
             a = zlistx_next (lists[i]))
            if ((r = registry_app_record (a))) {
                fn (arg, r, false);
                cJSON_Delete (r);
                registry__outputs_dump (a, fn, arg);
            }
    for (struct reg_app *a = zlistx_first (self->active); a;
         a = zlistx_next (self->active))
        for (struct reg_exec *e = zhashx_first (a->executors); e;
             e = zhashx_next (a->executors))
            if ((r = registry_exec_record (e))) {
                fn (arg, r, false);
                cJSON_Delete (r);
            }
    zlistx_t *dlists[] = {self->drivers_active, self->drivers_completed};
    for (size_t i = 0; i < 2; i++)
        for (struct reg_driver *d = zlistx_first (dlists[i]); d;
             d = zlistx_next (dlists[i]))
            if ((r = registry_driver_record (d))) {
                fn (arg, r, false);
                cJSON_Delete (r);
            }
}

/* Fields of a recovered record: it passed a CRC, not a schema, so every
   value is checked here. */
static const char *
s_rec_str (const cJSON *r, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (r, name);
    return cJSON_IsString (v) && v->valuestring[0] ? v->valuestring : NULL;
}

static int64_t
s_rec_int (const cJSON *r, const char *name, int64_t lo, int64_t hi,
           int64_t dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (r, name);
    if (!cJSON_IsNumber (v) || !(v->valuedouble >= (double) lo)
        || !(v->valuedouble <= (double) hi))
        return dflt;
    return (int64_t) v->valuedouble;
}

/* A CURVE public key (Z85, 40 characters), or NULL: an owner that is
   not a key would match no sender. */
static const char *
s_rec_key (const cJSON *r, const char *name)
{
    const char *key = s_rec_str (r, name);
    return key && strlen (key) == HEARTH_KEY_TXT_LEN ? key : NULL;
}

/* A labels object that keeps the rules (libcore/labels.h), or NULL. */
static const cJSON *
s_rec_labels (const cJSON *r, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (r, name);
    return cJSON_IsObject (v) && hearth_labels_check (v, NULL) == 0 ? v : NULL;
}

static int
s_rec_state (const cJSON *r, const char *const *names)
{
    const char *s = s_rec_str (r, "state");
    for (int i = 0; s && names[i]; i++)
        if (strcmp (names[i], s) == 0)
            return i;
    return -1;
}

static const int64_t s_max_mb = (int64_t) 1 << 40;
static const int64_t s_max_ms = (int64_t) 1 << 53;

static bool
s_restore_worker (registry_t *self, const cJSON *r, int64_t now_ms)
{
    const char *id = s_rec_str (r, "id");
    hearth_resources_t offered = {0};
    if (hearth_resources_from_json (
            &offered, cJSON_GetObjectItemCaseSensitive (r, "resources"), NULL)
        < 0)
        hearth_resources_clear (&offered);
    registry_worker_desc_t desc = {
        id,
        s_rec_str (r, "host"),
        s_rec_str (r, "version") ? s_rec_str (r, "version") : "unknown",
        s_rec_str (r, "work_dir"),
        (int) s_rec_int (r, "cores", 1, 65536, 0),
        s_rec_int (r, "memory_mb", 1, s_max_mb, 0),
        NULL,
        s_rec_str (r, "work_dir_id"),
        &offered,
        s_rec_key (r, "curve_key")};
    struct reg_worker *w = NULL;
    if (id && hearth_id_valid (HEARTH_ID_WORKER, id) && desc.host && desc.cores
        && desc.memory_mb && !registry_worker (self, id))
        w = registry__worker_new (self, &desc);
    hearth_resources_clear (&offered);
    if (!w)
        return false;
    w->registered_ms =
        s_rec_int (r, "registered_ms", 0, s_max_ms, registry_wall_ms ());
    /* (a journal of an older master has no last heartbeat: its
       registration stands for it) */
    w->last_heartbeat_ms =
        s_rec_int (r, "last_heartbeat_ms", 0, s_max_ms, w->registered_ms);
    w->draining =
        cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (r, "draining"));
    if (w->draining)
        registry__set_str (&w->drain_reason, s_rec_str (r, "drain_reason"));
    w->decommissioning =
        cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (r, "decommissioning"));
    if (w->decommissioning) {
        registry__set_str (&w->decom_reason,
                           s_rec_str (r, "decommission_reason"));
        w->decom_deadline_ms =
            s_rec_int (r, "decommission_deadline_ms", 0, s_max_ms, 0);
    }
    registry__set_str (&w->dead_reason, s_rec_str (r, "dead_reason"));
    if (s_rec_state (r, hearth_worker_states) == WORKER_DEAD) {
        w->state = WORKER_DEAD;
        w->dead_ms = now_ms; /* forgotten after the retention from now */
        w->dead_handle = zlistx_add_end (self->dead, w);
    }
    else
        w->state = WORKER_UNKNOWN;
    return true;
}

/* A name restored from a journal of a master that took any string (before
   names were labels, protocol.md §4): its control characters escaped in
   place, so that what the master sends with it (LAUNCH_EXECUTOR
   app_name, LAUNCH_DRIVER name) passes the codec.  false when out of
   memory (the name kept). */
static bool
s_label (char **name)
{
    if (!*name || !hearth_ctl_has (*name))
        return true;
    char *esc = hearth_ctl_strdup (*name);
    if (!esc)
        return false;
    free (*name);
    *name = esc;
    return true;
}

static bool
s_restore_app (registry_t *self, const cJSON *r, registry_restored_t *out)
{
    const char *id = s_rec_str (r, "id");
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive (r, "conf");
    int state = s_rec_state (r, hearth_app_states);
    hearth_resource_amounts_t amounts = {0};
    if (hearth_resource_amounts_from_json (
            &amounts,
            cJSON_GetObjectItemCaseSensitive (r, "executor_resources"), NULL)
        < 0)
        hearth_resource_amounts_clear (&amounts);
    registry_app_desc_t desc = {
        .id = id,
        .name = s_rec_str (r, "name"),
        .driver_url = s_rec_str (r, "driver_url"),
        .token = s_rec_str (r, "token"),
        .driver_key = s_rec_str (r, "driver_key"),
        .user = s_rec_str (r, "user"),
        .event_log = s_rec_str (r, "event_log"),
        .owner = s_rec_key (r, "owner"),
        .curve_key = s_rec_key (r, "curve_key"),
        .conf = cJSON_IsObject (conf) ? conf : NULL,
        .max_cores = (int) s_rec_int (r, "max_cores", 1, 65536, 0),
        .cores_per_executor =
            (int) s_rec_int (r, "cores_per_executor", 1, 65536, 0),
        .memory_per_executor_mb =
            s_rec_int (r, "memory_per_executor_mb", 1, s_max_mb, 1024),
        .first_exec_id = (int) s_rec_int (r, "next_exec_id", 0, 2147483647, 0),
        .executor_resources = &amounts,
        .executor_labels = s_rec_labels (r, "executor_labels")};
    if (!id || !hearth_id_valid (HEARTH_ID_APP, id) || !desc.name
        || !desc.driver_url || state < 0 || registry_app (self, id)) {
        hearth_resource_amounts_clear (&amounts);
        return false;
    }
    struct reg_app *app = calloc (1, sizeof *app);
    if (!app || registry__app_fill (app, &desc) < 0 || !s_label (&app->name)
        || !s_label (&app->user)) {
        hearth_resource_amounts_clear (&amounts);
        registry__app_destroy (&app);
        return false;
    }
    hearth_resource_amounts_clear (&amounts);
    snprintf (app->id, sizeof app->id, "%s", id);
    app->state = state;
    app->executor_target = (int) s_rec_int (r, "executor_target", 0, 65536, -1);
    app->cores_peak = (int) s_rec_int (r, "cores_peak", 0, 1 << 30, 0);
    app->epoch = (int) s_rec_int (r, "epoch", 1, 2147483647, 1);
    if (state == APP_RELAUNCHING)
        app->resume_by_ms = s_rec_int (r, "resume_deadline_ms", 1, s_max_ms, 1);
    const cJSON *wid;
    cJSON_ArrayForEach (wid, cJSON_GetObjectItemCaseSensitive (r, "workers"))
    {
        if (cJSON_IsString (wid)
            && hearth_id_valid (HEARTH_ID_WORKER, wid->valuestring))
            zhashx_update (app->workers, wid->valuestring, (void *) "");
    }
    app->submit_ms = app->last_heartbeat_ms =
        s_rec_int (r, "submit_ms", 0, s_max_ms, registry_wall_ms ());
    zhashx_insert (self->apps, app->id, app);
    if (state <= APP_RUNNING) {
        app->recovering = true;
        app->order_handle = zlistx_add_end (self->active, app);
        out->apps++;
        return true;
    }
    app->end_ms = s_rec_int (r, "end_ms", 0, s_max_ms, app->submit_ms);
    registry__set_str (&app->end_reason, s_rec_str (r, "reason"));
    app->order_handle = zlistx_add_end (self->completed, app);
    out->finished++;
    registry__completed_trim (self, false);
    return true;
}

static bool
s_restore_exec (registry_t *self, const cJSON *r)
{
    struct reg_app *app =
        registry__app_rw (registry_app (self, s_rec_str (r, "app_id")));
    const char *wid = s_rec_str (r, "worker_id");
    struct reg_worker *w =
        wid ? registry__worker_rw (registry_worker (self, wid)) : NULL;
    int exec_id = (int) s_rec_int (r, "exec_id", 0, 2147483647, -1);
    int cores = (int) s_rec_int (r, "cores", 1, 65536, 0);
    int64_t memory = s_rec_int (r, "memory_mb", 1, s_max_mb, 0);
    int state = s_rec_state (r, hearth_executor_states);
    char key[16];
    if (!app || app->state > APP_RUNNING || !w || w->state == WORKER_DEAD
        || exec_id < 0 || !cores || !memory || state < 0
        || registry_exec_final (state)
        || registry_exec (self, app->id, exec_id))
        return false;
    struct reg_exec *exec = calloc (1, sizeof *exec);
    if (!exec)
        return false;
    *exec = (reg_exec_t){.app = app,
                         .exec_id = exec_id,
                         .worker = w,
                         .cores = cores,
                         .memory_mb = memory,
                         .state = state,
                         .pid = (int) s_rec_int (r, "pid", 1, 1000000000, 0)};
    /* Its addresses stay held: a bad list is dropped, and its worker's
       re-registration says them again (workers.c). */
    if (hearth_resources_from_json (
            &exec->resources, cJSON_GetObjectItemCaseSensitive (r, "resources"),
            NULL)
        < 0)
        hearth_resources_clear (&exec->resources);
    if (!(exec->worker_handle = zlistx_add_end (w->executors, exec))) {
        hearth_resources_clear (&exec->resources);
        free (exec);
        return false;
    }
    if (exec_id >= app->next_exec_id)
        app->next_exec_id = exec_id + 1;
    zhashx_update (app->workers, w->id, (void *) "");
    snprintf (key, sizeof key, "%d", exec_id);
    zhashx_insert (app->executors, key, exec);
    app->cores_granted += cores;
    if (app->cores_granted > app->cores_peak)
        app->cores_peak = app->cores_granted;
    w->cores_used += cores;
    w->memory_used_mb += memory;
    return true;
}

static void
s_skipped (registry_restored_t *out, const char *kind, const cJSON *r)
{
    char *text = cJSON_PrintUnformatted (r);
    log_warn ("journal: %s record skipped, it does not make sense here: %.300s",
              kind, text ? text : "?");
    free (text);
    out->skipped++;
}

static bool
s_rec_bool (const cJSON *r, const char *name)
{
    return cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (r, name));
}

/* Place a restored RUNNING driver back on its worker; false when that
   worker is gone (the driver was lost with it). */
static bool
s_restore_placement (struct reg_driver *d, struct reg_worker *w)
{
    if (!w || w->state == WORKER_DEAD
        || !(d->worker_handle = zlistx_add_end (w->drivers, d)))
        return false;
    d->worker = w;
    w->cores_used += d->cores;
    w->memory_used_mb += d->memory_mb;
    return true;
}

static bool
s_restore_driver (registry_t *self, const cJSON *r, registry_files_fn *files,
                  void *files_arg, int64_t now_ms)
{
    const char *id = s_rec_str (r, "id");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive (r, "spec");
    int state = s_rec_state (r, hearth_driver_states);
    if (!id || !hearth_id_valid (HEARTH_ID_DRIVER, id) || !s_rec_str (r, "app")
        || !cJSON_IsObject (spec) || state < 0 || registry_driver (self, id))
        return false;
    struct reg_driver *d = calloc (1, sizeof *d);
    registry_driver_desc_t desc = {
        .name = s_rec_str (r, "name"),
        .app = s_rec_str (r, "app"),
        .binary = s_rec_bool (r, "binary"),
        .spec = spec,
        .cores = (int) s_rec_int (r, "cores", 1, 65536, 1),
        .memory_mb = s_rec_int (r, "memory_mb", 1, s_max_mb, 1),
        .supervise = s_rec_bool (r, "supervise"),
        .owner = s_rec_key (r, "owner")};
    if (!d || registry__driver_fill (d, &desc) < 0 || !s_label (&d->name)) {
        registry__driver_destroy (&d);
        return false;
    }
    snprintf (d->id, sizeof d->id, "%s", id);
    const char *key = s_rec_key (r, "key");
    snprintf (d->key, sizeof d->key, "%s", key ? key : "");
    const char *wid = s_rec_str (r, "worker_id");
    if (wid && hearth_id_valid (HEARTH_ID_WORKER, wid))
        snprintf (d->worker_id, sizeof d->worker_id, "%s", wid);
    registry__set_str (&d->worker_host, s_rec_str (r, "worker_host"));
    registry__set_str (&d->worker_dir, s_rec_str (r, "worker_dir"));
    const char *app_id = s_rec_str (r, "app_id");
    if (app_id && hearth_id_valid (HEARTH_ID_APP, app_id))
        snprintf (d->app_id, sizeof d->app_id, "%s", app_id);
    registry__set_str (&d->error, s_rec_str (r, "error"));
    d->state = state;
    d->exit_status = (int) s_rec_int (r, "exit_status", -65535, 65535, -1);
    d->pid = (int) s_rec_int (r, "pid", 1, 1000000000, 0);
    d->launches = (int) s_rec_int (r, "launches", 0, 1000000000, 0);
    d->failures = (int) s_rec_int (r, "failures", 0, 1000000000, 0);
    d->kill_requested = s_rec_bool (r, "kill_requested");
    d->submit_ms = s_rec_int (r, "submit_ms", 0, s_max_ms, registry_wall_ms ());
    d->end_ms = s_rec_int (r, "end_ms", 0, s_max_ms, 0);
    d->launched_ms = d->relaunch_ms = now_ms;
    zhashx_insert (self->drivers, d->id, d);
    if (registry_driver_final (d->state)) {
        d->order_handle = zlistx_add_end (self->drivers_completed, d);
        return true;
    }
    d->order_handle = zlistx_add_end (self->drivers_active, d);
    size_t n = (size_t) s_rec_int (r, "frames", 0, 1024, 0);
    zframe_t **frames = n ? files (files_arg, d->id, n) : NULL;
    if (n && !frames) {
        d->state = DRIVER_ERROR;
        registry__set_str (&d->error,
                           "its files were lost with the master's journal");
        d->end_ms = registry_wall_ms ();
        registry__driver_complete (self, d);
        return true;
    }
    d->frames = frames;
    d->nframes = n;
    for (size_t i = 0; i < n; i++)
        d->bytes += zframe_size (frames[i]);
    if (d->state == DRIVER_RUNNING && s_rec_bool (r, "placed")
        && !s_restore_placement (
            d, registry__worker_rw (registry_worker (self, d->worker_id)))) {
        /* Its worker is gone: as registry_worker_dead would have said. */
        d->state = d->kill_requested ? DRIVER_KILLED
                   : d->supervise    ? DRIVER_RELAUNCHING
                                     : DRIVER_ERROR;
        d->pid = 0;
        registry__set_str (&d->error,
                           "its worker was lost while the master was down");
        if (registry_driver_final (d->state)) {
            d->end_ms = registry_wall_ms ();
            registry__driver_complete (self, d);
        }
    }
    return true;
}

void
registry_restore (registry_t *self, const cJSON *workers, const cJSON *apps,
                  const cJSON *execs, const cJSON *drivers,
                  registry_files_fn *files, void *files_arg, int64_t now_ms,
                  registry_restored_t *out)
{
    memset (out, 0, sizeof *out);
    const cJSON *r;
    cJSON_ArrayForEach (r, workers)
    {
        if (s_restore_worker (self, r, now_ms))
            out->workers++;
        else
            s_skipped (out, "worker", r);
    }
    cJSON_ArrayForEach (r, apps)
    {
        if (!s_restore_app (self, r, out))
            s_skipped (out, "application", r);
    }
    cJSON_ArrayForEach (r, execs)
    {
        if (s_restore_exec (self, r))
            out->execs++;
        else
            s_skipped (out, "executor", r);
    }
    cJSON_ArrayForEach (r, drivers)
    {
        if (s_restore_driver (self, r, files, files_arg, now_ms))
            out->drivers++;
        else
            s_skipped (out, "driver", r);
    }
}

size_t
registry_pending (registry_t *self)
{
    size_t n = 0;
    for (struct reg_worker *w = zlistx_first (self->worker_order); w;
         w = zlistx_next (self->worker_order))
        n += w->state == WORKER_UNKNOWN;
    for (struct reg_app *a = zlistx_first (self->active); a;
         a = zlistx_next (self->active))
        n += a->recovering;
    return n;
}

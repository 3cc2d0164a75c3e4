/*  regresume.c - the registry's resumable applications (issue 39): an
    application whose driver was lost waits RELAUNCHING for a driver to
    resume it, with its outputs table (outputs.h), until its deadline;
    see registry.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "master/registry.h"
#include "master/registry_int.h"

void
registry_app_relaunching (registry_t *self, reg_app_t *a, const char *reason,
                          int64_t deadline_ms,
                          void (*kill_fn) (void *arg, reg_exec_t *exec),
                          void *arg)
{
    struct reg_app *app = registry__app_rw (a);
    if (app->state != APP_WAITING && app->state != APP_RUNNING)
        return;
    /* journaled with the record that registry_app_end writes */
    app->resume_by_ms = deadline_ms;
    registry_app_end (self, app, APP_RELAUNCHING, reason, kill_fn, arg);
}

void
registry_app_relaunch_end (registry_t *self, reg_app_t *a, app_state_t state,
                           const char *reason)
{
    struct reg_app *app = registry__app_rw (a);
    if (app->state != APP_RELAUNCHING || state < APP_FINISHED
        || state == APP_RELAUNCHING)
        return;
    app->state = state;
    app->end_ms = registry_wall_ms ();
    app->resume_by_ms = 0;
    registry__set_str (&app->end_reason, reason);
    outputs_destroy (&app->outputs);
    app->outputs_full = false;
    /* in the order the applications ended, as a replay rebuilds it */
    zlistx_move_end (self->completed, app->order_handle);
    registry_change_t c = {.topic = "app",
                           .app = app,
                           .exit_status = -1,
                           .event = registry__app_event (app, "ended")};
    registry__notify (self, &c);
    registry__completed_trim (self, true);
}

int
registry_app_resume (registry_t *self, reg_app_t *a,
                     const registry_app_desc_t *desc, int64_t now_ms)
{
    struct reg_app *app = registry__app_rw (a);
    if (app->state != APP_RELAUNCHING || app->epoch >= 2147483647) {
        errno = EINVAL;
        return -1;
    }
    zframe_t *rid = desc->routing_id ? zframe_dup (desc->routing_id) : NULL;
    char *url = desc->driver_url ? strdup (desc->driver_url) : NULL;
    char *key = desc->driver_key ? strdup (desc->driver_key) : NULL;
    if ((desc->routing_id && !rid) || (desc->driver_url && !url)
        || (desc->driver_key && !key)) {
        zframe_destroy (&rid);
        free (url);
        free (key);
        errno = ENOMEM;
        return -1;
    }
    /* the new driver's: a new process, with its own address and key; the
       token stays (its workers know it; their block servers serve only
       to it) and exec ids go on from where they were */
    zframe_destroy (&app->routing_id);
    app->routing_id = rid;
    free (app->driver_url);
    app->driver_url = url;
    free (app->driver_key);
    app->driver_key = key;
    snprintf (app->curve_key, sizeof app->curve_key, "%s",
              desc->curve_key ? desc->curve_key : "");
    app->epoch++;
    app->state = APP_WAITING;
    app->resume_by_ms = 0;
    app->end_ms = 0;
    free (app->end_reason);
    app->end_reason = NULL;
    app->retries = 0;
    app->recovering = false;
    app->hold_until_ms = 0;
    app->executor_target = -1;
    cJSON_Delete (app->executor_places);
    app->executor_places = NULL;
    cJSON_Delete (app->progress); /* the lost driver's: the new one's come */
    app->progress = NULL;
    app->last_heartbeat_ms = registry_wall_ms ();
    zlistx_detach (self->completed, app->order_handle);
    app->order_handle = zlistx_add_end (self->active, app);
    registry__watch_app (self, app, now_ms);
    registry__peer_set (self, app->routing_id, PEER_APP, app);
    registry_change_t c = {.topic = "app",
                           .app = app,
                           .exit_status = -1,
                           .event = registry__app_event (app, "resumed")};
    registry__notify (self, &c);
    return 0;
}

int
registry_app_record_outputs (registry_t *self, reg_app_t *a,
                             const cJSON *outputs)
{
    struct reg_app *app = registry__app_rw (a);
    if (!app->outputs && !(app->outputs = outputs_new (self->outputs_max))) {
        errno = ENOMEM;
        return -1;
    }
    int n = outputs_apply (app->outputs, outputs);
    if (n < 0)
        return -1;
    cJSON *r = cJSON_CreateObject ();
    if (r) {
        cJSON_AddStringToObject (r, "t", "outs");
        cJSON_AddStringToObject (r, "app_id", app->id);
        /* a reference: the batch is the caller's, written as it is */
        cJSON_AddItemToObject (r, "outputs",
                               cJSON_CreateArrayReference (outputs->child));
    }
    registry__record (self, r, false);
    return n;
}

bool
registry_app_outputs_warn (registry_t *self, reg_app_t *a)
{
    (void) self;
    struct reg_app *app = registry__app_rw (a);
    bool first = !app->outputs_full;
    app->outputs_full = true;
    return first;
}

void
registry_set_outputs_max (registry_t *self, size_t max)
{
    self->outputs_max = max;
}

reg_app_t *
registry_relaunching_due (registry_t *self, int64_t wall_ms)
{
    for (struct reg_app *a = zlistx_first (self->completed); a;
         a = zlistx_next (self->completed))
        if (a->state == APP_RELAUNCHING && a->resume_by_ms <= wall_ms)
            return a;
    return NULL;
}

/* --- the journal ------------------------------------------------------- */

typedef struct {
    const char *app_id;     /* whose table */
    int64_t max_shuffle_id; /* said in the first record, or -1 */
    bool first;             /* the next record is the first */
    registry_record_fn *fn; /* told each record */
    void *arg;              /* passed to fn */
} s_dump_t;

static int
s_dump_batch (void *arg, cJSON *batch, bool last)
{
    (void) last;
    s_dump_t *d = arg;
    cJSON *r = cJSON_CreateObject ();
    if (!r || cJSON_GetArraySize (batch) == 0) {
        cJSON_Delete (r);
        cJSON_Delete (batch);
        return 0;
    }
    cJSON_AddStringToObject (r, "t", "outs");
    cJSON_AddStringToObject (r, "app_id", d->app_id);
    if (d->first && d->max_shuffle_id >= 0)
        cJSON_AddNumberToObject (r, "max_shuffle_id",
                                 (double) d->max_shuffle_id);
    d->first = false;
    cJSON_AddItemToObject (r, "outputs", batch);
    d->fn (d->arg, r, false);
    cJSON_Delete (r);
    return 0;
}

void
registry__outputs_dump (struct reg_app *app, registry_record_fn *fn, void *arg)
{
    if (!app->outputs)
        return;
    s_dump_t d = {.app_id = app->id,
                  .max_shuffle_id = outputs_max_shuffle_id (app->outputs),
                  .first = true,
                  .fn = fn,
                  .arg = arg};
    outputs_list (app->outputs, OUTPUTS_BATCH_MAX, NULL, NULL, s_dump_batch,
                  &d);
}

size_t
registry_restore_outputs (registry_t *self, const cJSON *outs)
{
    size_t skipped = 0;
    const cJSON *list;
    cJSON_ArrayForEach (list, outs)
    {
        struct reg_app *app =
            registry__app_rw (registry_app (self, list->string));
        bool keeps =
            app && (app->state <= APP_RUNNING || app->state == APP_RELAUNCHING);
        const cJSON *r;
        cJSON_ArrayForEach (r, list)
        {
            const cJSON *o = cJSON_GetObjectItemCaseSensitive (r, "outputs");
            if (!keeps || !cJSON_IsArray (o)
                || (!app->outputs
                    && !(app->outputs = outputs_new (self->outputs_max)))
                || outputs_apply (app->outputs, o) < 0) {
                skipped++;
                continue;
            }
            const cJSON *max =
                cJSON_GetObjectItemCaseSensitive (r, "max_shuffle_id");
            if (cJSON_IsNumber (max) && max->valuedouble >= 0
                && max->valuedouble <= 2097151)
                outputs_note_shuffle_id (app->outputs,
                                         (int64_t) max->valuedouble);
        }
    }
    return skipped;
}

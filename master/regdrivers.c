/*  regdrivers.c - the registry's records of cluster-mode drivers
    (submitted with hearth-submit --deploy-mode cluster) and every change
    to them; see registry.h.  With registry.c, the store, it is the one
    pair of the master's files that call each other: the store frees
    driver records, and every change here goes through the store. */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/proto.h"
#include "master/regdrivers.h"
#include "master/registry.h"
#include "master/registry_int.h"

reg_driver_t *
registry_driver (registry_t *self, const char *id)
{
    return zhashx_lookup (self->drivers, id);
}

zlistx_t *
registry_drivers (registry_t *self)
{
    return self->drivers_active;
}

zlistx_t *
registry_drivers_completed (registry_t *self)
{
    return self->drivers_completed;
}

void
registry__driver_destroy (struct reg_driver **d_p)
{
    if (!d_p || !*d_p)
        return;
    int saved = errno;
    struct reg_driver *d = *d_p;
    for (size_t i = 0; i < d->nframes; i++)
        zframe_destroy (&d->frames[i]);
    free (d->frames);
    cJSON_Delete (d->spec);
    free (d->name);
    free (d->app);
    free (d->worker_host);
    free (d->worker_dir);
    free (d->error);
    free (d->waiting);
    free (d);
    *d_p = NULL;
    errno = saved;
}

static void
s_driver_notify (registry_t *self, reg_driver_t *d, const char *what)
{
    cJSON *e = registry__event (what);
    if (e)
        cJSON_AddItemToObject (e, "driver", registry_driver_json (d));
    registry_change_t c = {.topic = "driver",
                           .worker = d->worker,
                           .driver = d,
                           .exit_status = d->exit_status,
                           .event = e};
    registry__notify (self, &c);
}

/* d no longer waits: placed, or ended. */
static void
s_driver_unwait (struct reg_driver *d)
{
    free (d->waiting);
    d->waiting = NULL;
    d->waiting_code = NULL;
    d->unplaceable_ms = 0;
}

void
registry_driver_set_waiting (registry_t *self, reg_driver_t *driver,
                             const char *code, const char *why)
{
    struct reg_driver *d = registry__driver_rw (driver);
    if (!registry__waiting_changed (d->waiting_code, d->waiting, code, why)
        || registry__set_str (&d->waiting, why) < 0)
        return;
    d->waiting_code = why ? code : NULL;
    cJSON *e = registry__event ("waiting");
    if (e)
        cJSON_AddItemToObject (e, "driver", registry_driver_json (d));
    /* No .driver: nothing to journal, nothing to place anew. */
    registry_change_t c = {.topic = "driver", .exit_status = -1, .event = e};
    registry__notify (self, &c);
}

/* Copy what d needs to be launched again; -1 on no memory. */
int
registry__driver_fill (struct reg_driver *d, const registry_driver_desc_t *desc)
{
    if (registry__set_str (&d->name, desc->name) < 0
        || registry__set_str (&d->app, desc->app) < 0
        || !(d->spec = cJSON_Duplicate (desc->spec, 1)))
        return -1;
    if (desc->nframes
        && !(d->frames = calloc (desc->nframes, sizeof *d->frames)))
        return -1;
    for (size_t i = 0; i < desc->nframes; i++) {
        if (!(d->frames[i] = zframe_dup (desc->frames[i])))
            return -1;
        d->nframes++;
        d->bytes += zframe_size (desc->frames[i]);
    }
    snprintf (d->owner, sizeof d->owner, "%s", desc->owner ? desc->owner : "");
    d->binary = desc->binary;
    d->cores = desc->cores;
    d->memory_mb = desc->memory_mb;
    d->supervise = desc->supervise;
    return 0;
}

reg_driver_t *
registry_driver_submit (registry_t *self, const registry_driver_desc_t *desc)
{
    struct reg_driver *d = calloc (1, sizeof *d);
    if (!d)
        return NULL;
    if (registry__driver_fill (d, desc) < 0) {
        registry__driver_destroy (&d);
        return NULL;
    }
    do
        hearth_id_format (d->id, sizeof d->id, HEARTH_ID_DRIVER, time (NULL),
                          self->next_driver_seq++ % 10000);
    while (registry_driver (self, d->id));
    d->state = DRIVER_SUBMITTED;
    d->exit_status = -1;
    d->submit_ms = registry_wall_ms ();
    d->order_handle = zlistx_add_end (self->drivers_active, d);
    if (!d->order_handle) {
        registry__driver_destroy (&d);
        return NULL;
    }
    zhashx_insert (self->drivers, d->id, d);
    s_driver_notify (self, d, "submitted");
    return d;
}

void
registry_driver_launch (registry_t *self, reg_driver_t *driver,
                        reg_worker_t *worker, int64_t now_ms, const char *key)
{
    struct reg_driver *d = registry__driver_rw (driver);
    struct reg_worker *w = registry__worker_rw (worker);
    assert (!d->worker && !registry_driver_final (d->state));
    d->worker_handle = zlistx_add_end (w->drivers, d);
    if (!d->worker_handle)
        return;
    d->worker = w;
    w->cores_used += d->cores;
    w->memory_used_mb += d->memory_mb;
    snprintf (d->worker_id, sizeof d->worker_id, "%s", w->id);
    registry__set_str (&d->worker_host, w->host);
    free (d->worker_dir);
    d->worker_dir = NULL;
    if (w->work_dir
        && asprintf (&d->worker_dir, "%s/%s", w->work_dir, d->id) < 0)
        d->worker_dir = NULL;
    d->launches++;
    snprintf (d->key, sizeof d->key, "%s", key ? key : "");
    d->pid = 0;
    d->launched_ms = now_ms;
    d->relaunch_ms = 0;
    s_driver_unwait (d);
    s_driver_notify (self, d, "launched");
}

/* Give back the resources of the worker d is placed on. */
static void
s_driver_unplace (struct reg_driver *d)
{
    struct reg_worker *w = registry__worker_rw (d->worker);
    if (!w)
        return;
    w->cores_used -= d->cores;
    w->memory_used_mb -= d->memory_mb;
    zlistx_delete (w->drivers, d->worker_handle);
    d->worker_handle = NULL;
    d->worker = NULL;
}

/* Move d to the completed list, forgetting the oldest beyond the limit.
   An ended driver is never launched again: its files go now, so that
   the retained drivers cost a few hundred bytes each, not their files. */
void
registry__driver_complete (registry_t *self, struct reg_driver *d)
{
    for (size_t i = 0; i < d->nframes; i++)
        zframe_destroy (&d->frames[i]);
    free (d->frames);
    d->frames = NULL;
    d->nframes = 0;
    zlistx_detach (self->drivers_active, d->order_handle);
    d->order_handle = zlistx_add_end (self->drivers_completed, d);
    while (zlistx_size (self->drivers_completed) > self->retained_apps) {
        struct reg_driver *old = zlistx_first (self->drivers_completed);
        if (old == d)
            break; /* the caller still holds it; it goes next time */
        registry__record_forget (self, "driver-", old->id);
        zhashx_delete (self->drivers, old->id);
        zlistx_delete (self->drivers_completed,
                       zlistx_cursor (self->drivers_completed));
    }
}

void
registry_driver_set_state (registry_t *self, reg_driver_t *driver,
                           const registry_driver_update_t *u)
{
    struct reg_driver *d = registry__driver_rw (driver);
    if (registry_driver_final (d->state))
        return;
    bool ends = registry_driver_final (u->state);
    d->state = u->state;
    if (u->error)
        registry__set_str (&d->error, u->error);
    if (u->exit_status >= 0)
        d->exit_status = u->exit_status;
    if (u->state == DRIVER_RUNNING) {
        d->pid = u->pid > 0 ? u->pid : d->pid;
        d->exit_status = -1;
    }
    if (u->state == DRIVER_RELAUNCHING) {
        d->failures += u->failure;
        d->relaunch_ms = u->relaunch_ms;
    }
    if (u->state == DRIVER_RELAUNCHING || ends) {
        s_driver_unplace (d);
        d->pid = 0;
    }
    if (ends) {
        d->end_ms = registry_wall_ms ();
        s_driver_unwait (d);
    }
    s_driver_notify (self, d, "state");
    if (ends)
        registry__driver_complete (self, d);
}

void
registry_driver_ran (registry_t *self, reg_driver_t *driver)
{
    struct reg_driver *d = registry__driver_rw (driver);
    (void) self;
    d->failures = 0;
}

void
registry_driver_kill_requested (registry_t *self, reg_driver_t *driver)
{
    struct reg_driver *d = registry__driver_rw (driver);
    if (d->kill_requested)
        return;
    d->kill_requested = true;
    s_driver_notify (self, d, "kill_requested");
}

int64_t
registry_driver_unplaceable (registry_t *self, reg_driver_t *driver, bool never,
                             int64_t now_ms)
{
    (void) self;
    return registry__clock (&registry__driver_rw (driver)->unplaceable_ms,
                            never, now_ms);
}

void
registry_driver_set_app (registry_t *self, reg_driver_t *driver,
                         const char *app_id)
{
    struct reg_driver *d = registry__driver_rw (driver);
    snprintf (d->app_id, sizeof d->app_id, "%s", app_id);
    s_driver_notify (self, d, "app");
}

void
registry__drivers_worker_dead (registry_t *self, struct reg_worker *w,
                               int64_t dead_ms)
{
    char reason[HEARTH_ID_MAX + 64];
    snprintf (reason, sizeof reason, "its worker %s was lost", w->id);
    struct reg_driver *d;
    while ((d = zlistx_first (w->drivers))) {
        registry_driver_update_t u = {
            .state = DRIVER_ERROR, .error = reason, .exit_status = -1};
        if (d->kill_requested)
            u.state = DRIVER_KILLED;
        else if (d->supervise) {
            u.state = DRIVER_RELAUNCHING;
            u.relaunch_ms = dead_ms;
        }
        registry_driver_set_state (self, d, &u);
    }
}

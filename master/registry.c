/*  registry.c - the registry's store: its lists and indexes of records
    (by id, by routing id), the destruction of records, and the one path
    every change takes (registry__notify: journal it, then tell the
    observer); see registry.h.  Who changes what: workers in regworkers.c,
    applications and executors in regapps.c, cluster-mode drivers in
    regdrivers.c, liveness in reglive.c, the journal's side in records.c
    and restore.c, JSON views in regviews.c, the executors of ended
    applications still stopping in regstopping.c. */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "libcore/log.h"
#include "libcore/proto.h"
#include "master/registry.h"
#include "master/registry_int.h"

/* What a routing id belongs to. */
typedef struct {
    peer_kind_t kind; /* worker or app */
    void *record;     /* reg_worker_t * or reg_app_t * (borrowed) */
} s_peer_ref_t;

int64_t
registry_wall_ms (void)
{
    struct timeval tv;
    gettimeofday (&tv, NULL);
    return (int64_t) tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void
s_rid_key (zframe_t *rid, char *buf, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *data = zframe_data (rid);
    size_t n = zframe_size (rid), k = 0;
    for (size_t i = 0; i < n && k + 2 < size; i++) {
        buf[k++] = hex[data[i] >> 4];
        buf[k++] = hex[data[i] & 15];
    }
    buf[k] = '\0';
}

void
registry__peer_set (registry_t *self, zframe_t *rid, peer_kind_t kind,
                    void *record)
{
    char key[520];
    if (!rid)
        return;
    s_rid_key (rid, key, sizeof key);
    s_peer_ref_t *ref = malloc (sizeof *ref);
    if (!ref)
        return;
    *ref = (s_peer_ref_t){kind, record};
    zhashx_update (self->peers, key, ref);
}

void
registry__peer_unset (registry_t *self, zframe_t *rid, void *record)
{
    char key[520];
    if (!rid)
        return;
    s_rid_key (rid, key, sizeof key);
    s_peer_ref_t *ref = zhashx_lookup (self->peers, key);
    if (ref && ref->record == record)
        zhashx_delete (self->peers, key);
}

peer_kind_t
registry_peer (registry_t *self, zframe_t *routing_id, void **record)
{
    char key[520];
    s_rid_key (routing_id, key, sizeof key);
    s_peer_ref_t *ref = zhashx_lookup (self->peers, key);
    *record = ref ? ref->record : NULL;
    return ref ? ref->kind : PEER_NONE;
}

void
registry_peer_key (registry_t *self, peer_kind_t kind, void *record,
                   const char *key)
{
    struct reg_worker *w = kind == PEER_WORKER ? record : NULL;
    struct reg_app *app = kind == PEER_APP ? record : NULL;
    char *kept = w ? w->curve_key : app ? app->curve_key : NULL;
    size_t size = w ? sizeof w->curve_key : sizeof app->curve_key;
    if (!kept || strcmp (kept, key) == 0)
        return;
    snprintf (kept, size, "%s", key);
    registry__record (
        self, w ? registry_worker_record (w) : registry_app_record (app),
        false);
}

static void
s_ref_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

void
registry__worker_destroy (struct reg_worker **w_p)
{
    if (!w_p || !*w_p)
        return;
    int saved = errno;
    struct reg_worker *w = *w_p;
    free (w->host);
    free (w->version);
    free (w->work_dir);
    free (w->work_dir_id);
    free (w->unhealthy);
    free (w->drain_reason);
    free (w->decom_reason);
    free (w->dead_reason);
    free (w->web_url);
    zframe_destroy (&w->routing_id);
    zlistx_destroy (&w->executors);
    zlistx_destroy (&w->drivers);
    zhashx_destroy (&w->stopping);
    hearth_resources_clear (&w->resources);
    hearth_resources_clear (&w->resources_foreign);
    cJSON_Delete (w->labels);
    free (w);
    *w_p = NULL;
    errno = saved;
}

void
registry__app_destroy (struct reg_app **app_p)
{
    if (!app_p || !*app_p)
        return;
    int saved = errno;
    struct reg_app *app = *app_p;
    zhashx_destroy (&app->executors);
    zhashx_destroy (&app->workers);
    free (app->name);
    free (app->driver_url);
    free (app->token);
    free (app->driver_key);
    free (app->user);
    free (app->end_reason);
    free (app->waiting);
    free (app->event_log);
    cJSON_Delete (app->conf);
    cJSON_Delete (app->executor_labels);
    cJSON_Delete (app->executor_places);
    cJSON_Delete (app->progress);
    hearth_tllive_destroy (&app->timeline);
    cJSON_Delete (app->last_oom);
    cJSON_Delete (app->ended);
    hearth_resource_amounts_clear (&app->executor_resources);
    zframe_destroy (&app->routing_id);
    outputs_destroy (&app->outputs);
    free (app);
    *app_p = NULL;
    errno = saved;
}

static void
s_driver_destructor (void **item)
{
    registry__driver_destroy ((struct reg_driver **) item);
}

static void
s_worker_destructor (void **item)
{
    registry__worker_destroy ((struct reg_worker **) item);
}

static void
s_app_destructor (void **item)
{
    registry__app_destroy ((struct reg_app **) item);
}

registry_t *
registry_new (size_t retained_apps, int64_t timeout_ms)
{
    registry_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->workers = zhashx_new ();
    self->worker_order = zlistx_new ();
    self->dead = zlistx_new ();
    self->apps = zhashx_new ();
    self->active = zlistx_new ();
    self->completed = zlistx_new ();
    self->peers = zhashx_new ();
    self->orphans = zhashx_new ();
    self->drivers = zhashx_new ();
    self->drivers_active = zlistx_new ();
    self->drivers_completed = zlistx_new ();
    self->worker_live = hearth_liveness_new (timeout_ms);
    self->app_live = hearth_liveness_new (timeout_ms);
    self->retained_apps = retained_apps;
    if (!self->workers || !self->worker_order || !self->dead || !self->apps
        || !self->active || !self->completed || !self->peers || !self->orphans
        || !self->drivers || !self->drivers_active || !self->drivers_completed
        || !self->worker_live || !self->app_live) {
        registry_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->workers, s_worker_destructor);
    zlistx_set_destructor (self->active, s_app_destructor);
    zlistx_set_destructor (self->completed, s_app_destructor);
    zhashx_set_destructor (self->peers, s_ref_destroy);
    zhashx_set_destructor (self->orphans, s_ref_destroy);
    zlistx_set_destructor (self->drivers_active, s_driver_destructor);
    zlistx_set_destructor (self->drivers_completed, s_driver_destructor);
    return self;
}

void
registry_destroy (registry_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    registry_t *self = *self_p;
    /* Applications and drivers first: they point at workers. */
    zhashx_destroy (&self->drivers);
    zlistx_destroy (&self->drivers_active);
    zlistx_destroy (&self->drivers_completed);
    zhashx_destroy (&self->apps);
    zlistx_destroy (&self->active);
    zlistx_destroy (&self->completed);
    zlistx_destroy (&self->worker_order);
    zlistx_destroy (&self->dead);
    zhashx_destroy (&self->workers);
    zhashx_destroy (&self->peers);
    zhashx_destroy (&self->orphans);
    hearth_liveness_destroy (&self->worker_live);
    hearth_liveness_destroy (&self->app_live);
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
registry_set_observer (registry_t *self, registry_observer_fn *fn, void *arg)
{
    self->observer = fn;
    self->observer_arg = arg;
}

void
registry_set_journal (registry_t *self, registry_record_fn *fn, void *arg)
{
    self->journal = fn;
    self->journal_arg = arg;
}

void
registry__record (registry_t *self, cJSON *record, bool sync)
{
    if (self->journal && record)
        self->journal (self->journal_arg, record, sync);
    cJSON_Delete (record);
}

void
registry__completed_trim (registry_t *self, bool journal)
{
    /* the oldest first; a RELAUNCHING one stays, whatever its age */
    struct reg_app *old = zlistx_first (self->completed);
    while (old && zlistx_size (self->completed) > self->retained_apps) {
        if (old->state == APP_RELAUNCHING) {
            old = zlistx_next (self->completed);
            continue;
        }
        if (journal)
            registry__record_forget (self, "app-", old->id);
        zhashx_delete (self->apps, old->id);
        zlistx_delete (self->completed, zlistx_cursor (self->completed));
        old = zlistx_first (self->completed);
    }
}

/* A record saying that a worker or application is forgotten. */
void
registry__record_forget (registry_t *self, const char *type, const char *id)
{
    cJSON *r = self->journal ? cJSON_CreateObject () : NULL;
    if (r) {
        cJSON_AddStringToObject (r, "t", type);
        cJSON_AddStringToObject (r, "id", id);
    }
    registry__record (self, r, false);
}

/* Journal what changed: the whole record of the driver, else of the
   executor, else of the application, else of the worker.  An
   application's registration and end, and a driver's submission and end,
   reach the disk before the master answers. */
static void
s_journal_change (registry_t *self, const registry_change_t *c)
{
    if (!self->journal)
        return;
    if (c->driver)
        registry__record (self, registry_driver_record (c->driver),
                          c->driver->state == DRIVER_SUBMITTED
                              || registry_driver_final (c->driver->state));
    else if (c->exec)
        registry__record (self, registry_exec_record (c->exec), false);
    else if (c->app)
        registry__record (self, registry_app_record (c->app), true);
    else if (c->worker)
        registry__record (self, registry_worker_record (c->worker), false);
}

/* Journal the change, then tell the observer; the event is consumed
   either way. */
void
registry__notify (registry_t *self, registry_change_t *change)
{
    s_journal_change (self, change);
    if (self->observer && change->event)
        self->observer (self->observer_arg, change);
    cJSON_Delete (change->event);
    change->event = NULL;
}

int64_t
registry__clock (int64_t *since, bool on, int64_t now_ms)
{
    if (!on)
        *since = 0;
    else if (!*since)
        *since = now_ms;
    return *since;
}

cJSON *
registry__event (const char *what)
{
    cJSON *e = cJSON_CreateObject ();
    if (e) {
        cJSON_AddStringToObject (e, "event", what);
        cJSON_AddNumberToObject (e, "time_ms", (double) registry_wall_ms ());
    }
    return e;
}

int
registry__set_str (char **field, const char *value)
{
    char *copy = value ? strdup (value) : NULL;
    if (value && !copy)
        return -1;
    free (*field);
    *field = copy;
    return 0;
}

/* Two strings equal, NULL equal to NULL only. */
static bool
s_same (const char *a, const char *b)
{
    return !a || !b ? a == b : strcmp (a, b) == 0;
}

bool
registry__waiting_changed (const char *code, const char *why,
                           const char *new_code, const char *new_why)
{
    if (!new_why)
        return why != NULL;
    return !s_same (why, new_why) || !s_same (code, new_code);
}

reg_worker_t *
registry_worker (registry_t *self, const char *id)
{
    return zhashx_lookup (self->workers, id);
}

reg_app_t *
registry_app (registry_t *self, const char *id)
{
    return zhashx_lookup (self->apps, id);
}

reg_exec_t *
registry_exec (registry_t *self, const char *app_id, int exec_id)
{
    reg_app_t *app = registry_app (self, app_id);
    char key[16];
    if (!app)
        return NULL;
    snprintf (key, sizeof key, "%d", exec_id);
    return zhashx_lookup (app->executors, key);
}

zlistx_t *
registry_workers (registry_t *self)
{
    return self->worker_order;
}

zlistx_t *
registry_apps (registry_t *self)
{
    return self->active;
}

zlistx_t *
registry_completed (registry_t *self)
{
    return self->completed;
}

/*  registry.c - the master's records and every change to them; see
    registry.h. */
#include "config.h"

#include <assert.h>
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

static void
s_peer_set (registry_t *self, zframe_t *rid, peer_kind_t kind, void *record)
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

static void
s_peer_unset (registry_t *self, zframe_t *rid, void *record)
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

static void
s_free_ref (void **item)
{
    free (*item);
    *item = NULL;
}

static void s_worker_free (reg_worker_t **w_p);
static void s_app_free (reg_app_t **app_p);

static void
s_driver_destructor (void **item)
{
    registry__driver_free ((reg_driver_t **) item);
}

static void
s_worker_destructor (void **item)
{
    s_worker_free ((reg_worker_t **) item);
}

static void
s_app_destructor (void **item)
{
    s_app_free ((reg_app_t **) item);
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
    zhashx_set_destructor (self->peers, s_free_ref);
    zhashx_set_destructor (self->orphans, s_free_ref);
    zlistx_set_destructor (self->drivers_active, s_driver_destructor);
    zlistx_set_destructor (self->drivers_completed, s_driver_destructor);
    return self;
}

void
registry_destroy (registry_t **self_p)
{
    if (!self_p || !*self_p)
        return;
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

/* Hand a record (consumed) to the journal. */
static void
s_record (registry_t *self, cJSON *record, bool sync)
{
    if (self->journal && record)
        self->journal (self->journal_arg, record, sync);
    cJSON_Delete (record);
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
    s_record (self, r, false);
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
        s_record (self, registry_driver_record (c->driver),
                  c->driver->state == DRIVER_SUBMITTED
                      || registry_driver_final (c->driver->state));
    else if (c->exec)
        s_record (self, registry_exec_record (c->exec), false);
    else if (c->app)
        s_record (self, registry_app_record (c->app), true);
    else if (c->worker)
        s_record (self, registry_worker_record (c->worker), false);
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

/* --- lookups ----------------------------------------------------------- */

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

bool
registry_exec_final (exec_state_t state)
{
    return state >= EXEC_EXITED;
}

/* --- JSON views -------------------------------------------------------- */

int
registry_worker_cores_used (const reg_worker_t *w)
{
    return w->cores_used + w->cores_foreign;
}

int64_t
registry_worker_memory_used (const reg_worker_t *w)
{
    return w->memory_used_mb + w->memory_foreign_mb;
}

bool
registry_worker_report (registry_t *self, reg_worker_t *w, int cores_foreign,
                        int64_t memory_foreign_mb)
{
    (void) self;
    int cores_before = registry_worker_cores_used (w);
    int64_t memory_before = registry_worker_memory_used (w);
    w->cores_foreign = cores_foreign;
    w->memory_foreign_mb = memory_foreign_mb;
    return cores_before != registry_worker_cores_used (w)
           || memory_before != registry_worker_memory_used (w);
}

cJSON *
registry_worker_json (const reg_worker_t *w, int64_t now_ms)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    int cores_used = registry_worker_cores_used (w);
    int64_t mem_used = registry_worker_memory_used (w);
    cJSON_AddStringToObject (o, "id", w->id);
    cJSON_AddStringToObject (o, "host", w->host);
    cJSON_AddStringToObject (o, "state", hearth_worker_states[w->state]);
    cJSON_AddNumberToObject (o, "cores", w->cores);
    cJSON_AddNumberToObject (o, "cores_used", cores_used);
    cJSON_AddNumberToObject (o, "memory_mb", (double) w->memory_mb);
    cJSON_AddNumberToObject (o, "memory_used_mb", (double) mem_used);
    cJSON_AddNumberToObject (o, "last_heartbeat_ms",
                             (double) w->last_heartbeat_ms);
    cJSON_AddNumberToObject (o, "heartbeat_age_ms",
                             (double) (now_ms - w->last_heartbeat_ms));
    cJSON_AddNumberToObject (o, "executors",
                             (double) zlistx_size (w->executors));
    cJSON_AddNumberToObject (o, "drivers", (double) zlistx_size (w->drivers));
    return o;
}

cJSON *
registry_exec_json (const reg_exec_t *exec)
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
    return o;
}

static int
s_exec_cmp (const void *a, const void *b)
{
    const reg_exec_t *x = *(reg_exec_t *const *) a;
    const reg_exec_t *y = *(reg_exec_t *const *) b;
    return (x->exec_id > y->exec_id) - (x->exec_id < y->exec_id);
}

/* The app's executors in exec_id order. */
static cJSON *
s_app_executors_json (const reg_app_t *app)
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

cJSON *
registry_app_json (const reg_app_t *app)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddStringToObject (o, "id", app->id);
    cJSON_AddStringToObject (o, "name", app->name);
    cJSON_AddStringToObject (o, "state", hearth_app_states[app->state]);
    cJSON_AddNumberToObject (o, "cores_granted", app->cores_granted);
    if (app->max_cores)
        cJSON_AddNumberToObject (o, "max_cores", app->max_cores);
    else
        cJSON_AddNullToObject (o, "max_cores");
    if (app->cores_per_executor)
        cJSON_AddNumberToObject (o, "cores_per_executor",
                                 app->cores_per_executor);
    cJSON_AddNumberToObject (o, "memory_per_executor_mb",
                             (double) app->memory_per_executor_mb);
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
    cJSON_AddItemToObject (o, "executors", s_app_executors_json (app));
    return o;
}

/* --- workers ----------------------------------------------------------- */

static void
s_worker_free (reg_worker_t **w_p)
{
    reg_worker_t *w = *w_p;
    if (!w)
        return;
    free (w->host);
    free (w->version);
    free (w->work_dir);
    free (w->work_dir_id);
    zframe_destroy (&w->routing_id);
    zlistx_destroy (&w->executors);
    zlistx_destroy (&w->drivers);
    free (w);
    *w_p = NULL;
}

static cJSON *
s_worker_event (reg_worker_t *w, const char *what, const char *reason)
{
    cJSON *e = registry__event (what);
    if (!e)
        return NULL;
    cJSON_AddItemToObject (e, "worker",
                           registry_worker_json (w, registry_wall_ms ()));
    if (reason)
        cJSON_AddStringToObject (e, "reason", reason);
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

/* Copy the description into w; -1 on no memory. */
static int
s_worker_fill (registry_t *self, reg_worker_t *w,
               const registry_worker_desc_t *desc)
{
    zframe_t *rid = desc->routing_id ? zframe_dup (desc->routing_id) : NULL;
    if ((desc->routing_id && !rid)
        || registry__set_str (&w->host, desc->host) < 0
        || registry__set_str (&w->version, desc->version) < 0
        || registry__set_str (&w->work_dir, desc->work_dir) < 0
        || registry__set_str (&w->work_dir_id, desc->work_dir_id) < 0) {
        zframe_destroy (&rid);
        return -1;
    }
    s_peer_unset (self, w->routing_id, w);
    zframe_destroy (&w->routing_id);
    w->routing_id = rid;
    s_peer_set (self, rid, PEER_WORKER, w);
    w->cores = desc->cores;
    w->memory_mb = desc->memory_mb;
    return 0;
}

static reg_worker_t *
s_worker_new (registry_t *self, const registry_worker_desc_t *desc)
{
    reg_worker_t *w = calloc (1, sizeof *w);
    if (!w)
        return NULL;
    snprintf (w->id, sizeof w->id, "%s", desc->id);
    w->executors = zlistx_new ();
    w->drivers = zlistx_new ();
    if (!w->executors || !w->drivers || s_worker_fill (self, w, desc) < 0) {
        s_peer_unset (self, w->routing_id, w);
        s_worker_free (&w);
        return NULL;
    }
    zhashx_insert (self->workers, w->id, w);
    w->order_handle = zlistx_add_end (self->worker_order, w);
    return w;
}

reg_worker_t *
registry_worker_register (registry_t *self, const registry_worker_desc_t *desc,
                          int64_t now_ms)
{
    reg_worker_t *w = registry_worker (self, desc->id);
    bool again = w != NULL;
    if (w && s_worker_fill (self, w, desc) < 0)
        return NULL;
    if (!w && !(w = s_worker_new (self, desc)))
        return NULL;
    if (w->dead_handle)
        zlistx_delete (self->dead, w->dead_handle);
    w->dead_handle = NULL;
    w->state = WORKER_ALIVE;
    w->dead_ms = 0;
    w->registered_ms = w->last_heartbeat_ms = registry_wall_ms ();
    if (w->peer)
        hearth_liveness_touch (self->worker_live, w->peer, now_ms);
    else
        w->peer = hearth_liveness_add (self->worker_live, w, now_ms);
    registry_change_t c = {.topic = "worker",
                           .worker = w,
                           .exit_status = -1,
                           .event = s_worker_event (
                               w, again ? "reregistered" : "registered", NULL)};
    registry__notify (self, &c);
    return w;
}

void
registry_worker_dead (registry_t *self, reg_worker_t *w, const char *reason,
                      int64_t dead_ms)
{
    if (w->state == WORKER_DEAD)
        return;
    hearth_liveness_remove (self->worker_live, &w->peer);
    w->state = WORKER_DEAD;
    w->dead_ms = dead_ms;
    w->dead_handle = zlistx_add_end (self->dead, w);
    w->cores_foreign = 0;
    w->memory_foreign_mb = 0;
    reg_exec_t *exec;
    while ((exec = zlistx_first (w->executors)))
        registry_exec_set_state (self, exec, EXEC_LOST, "worker lost", -1,
                                 true);
    registry__drivers_worker_dead (self, w, dead_ms);
    registry_change_t c = {.topic = "worker",
                           .worker = w,
                           .exit_status = -1,
                           .event = s_worker_event (w, "dead", reason)};
    registry__notify (self, &c);
}

static void
s_worker_forget (registry_t *self, reg_worker_t *w)
{
    assert (zlistx_size (w->executors) == 0);
    assert (zlistx_size (w->drivers) == 0);
    hearth_liveness_remove (self->worker_live, &w->peer);
    s_peer_unset (self, w->routing_id, w);
    if (w->dead_handle)
        zlistx_delete (self->dead, w->dead_handle);
    zlistx_delete (self->worker_order, w->order_handle);
    registry__record_forget (self, "worker-", w->id);
    zhashx_delete (self->workers, w->id);
}

size_t
registry_reap (registry_t *self, int64_t cutoff_ms, size_t max)
{
    size_t n = 0;
    reg_worker_t *w;
    while (n < max && (w = zlistx_first (self->dead))
           && w->dead_ms < cutoff_ms) {
        s_worker_forget (self, w);
        n++;
    }
    return n;
}

/* --- applications ------------------------------------------------------ */

static void
s_exec_destructor (void **item)
{
    free (*item);
    *item = NULL;
}

static void
s_app_free (reg_app_t **app_p)
{
    reg_app_t *app = *app_p;
    if (!app)
        return;
    zhashx_destroy (&app->executors);
    zhashx_destroy (&app->workers);
    free (app->name);
    free (app->driver_url);
    free (app->token);
    free (app->driver_key);
    free (app->user);
    free (app->end_reason);
    cJSON_Delete (app->conf);
    zframe_destroy (&app->routing_id);
    free (app);
    *app_p = NULL;
}

static cJSON *
s_app_event (reg_app_t *app, const char *what)
{
    cJSON *e = registry__event (what);
    if (e)
        cJSON_AddItemToObject (e, "app", registry_app_json (app));
    return e;
}

static int
s_app_fill (reg_app_t *app, const registry_app_desc_t *desc)
{
    if (registry__set_str (&app->name, desc->name) < 0
        || registry__set_str (&app->driver_url, desc->driver_url) < 0
        || registry__set_str (&app->token, desc->token) < 0
        || registry__set_str (&app->driver_key, desc->driver_key) < 0
        || registry__set_str (&app->user, desc->user) < 0)
        return -1;
    if (desc->conf && !(app->conf = cJSON_Duplicate (desc->conf, 1)))
        return -1;
    if (desc->routing_id && !(app->routing_id = zframe_dup (desc->routing_id)))
        return -1;
    if (!(app->executors = zhashx_new ()) || !(app->workers = zhashx_new ()))
        return -1;
    zhashx_set_destructor (app->executors, s_exec_destructor);
    app->max_cores = desc->max_cores;
    app->cores_per_executor = desc->cores_per_executor;
    app->memory_per_executor_mb = desc->memory_per_executor_mb;
    app->next_exec_id = desc->first_exec_id;
    app->hold_until_ms = desc->hold_until_ms;
    return 0;
}

static void
s_app_id (registry_t *self, reg_app_t *app, const char *wanted)
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
    reg_app_t *app = registry_app (self, app_id);
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
    reg_app_t *app = calloc (1, sizeof *app);
    if (!app)
        return NULL;
    if (s_app_fill (app, desc) < 0) {
        s_app_free (&app);
        return NULL;
    }
    s_app_id (self, app, desc->id);
    int *orphan_next = zhashx_lookup (self->orphans, app->id);
    if (orphan_next && *orphan_next > app->next_exec_id)
        app->next_exec_id = *orphan_next;
    zhashx_delete (self->orphans, app->id);
    app->state = APP_WAITING;
    app->submit_ms = app->last_heartbeat_ms = registry_wall_ms ();
    app->peer = hearth_liveness_add (self->app_live, app, now_ms);
    app->order_handle = zlistx_add_end (self->active, app);
    zhashx_insert (self->apps, app->id, app);
    s_peer_set (self, app->routing_id, PEER_APP, app);
    registry_change_t c = {.topic = "app",
                           .app = app,
                           .exit_status = -1,
                           .event = s_app_event (app, "registered")};
    registry__notify (self, &c);
    return app;
}

/* Move app to the completed list, dropping the oldest beyond the limit. */
static void
s_app_complete (registry_t *self, reg_app_t *app)
{
    zlistx_detach (self->active, app->order_handle);
    app->order_handle = zlistx_add_end (self->completed, app);
    while (zlistx_size (self->completed) > self->retained_apps) {
        reg_app_t *old = zlistx_first (self->completed);
        registry__record_forget (self, "app-", old->id);
        zhashx_delete (self->apps, old->id);
        zlistx_delete (self->completed, zlistx_cursor (self->completed));
    }
}

void
registry_app_end (registry_t *self, reg_app_t *app, app_state_t state,
                  const char *reason,
                  void (*kill_fn) (void *arg, reg_exec_t *exec), void *arg)
{
    if (app->state != APP_WAITING && app->state != APP_RUNNING)
        return;
    reg_exec_t *exec;
    while ((exec = zhashx_first (app->executors))) {
        if (kill_fn)
            kill_fn (arg, exec);
        registry_exec_set_state (self, exec, EXEC_KILLED, "application ended",
                                 -1, false);
    }
    hearth_liveness_remove (self->app_live, &app->peer);
    s_peer_unset (self, app->routing_id, app);
    app->state = state;
    app->end_ms = registry_wall_ms ();
    registry__set_str (&app->end_reason, reason);
    registry_change_t c = {.topic = "app",
                           .app = app,
                           .exit_status = -1,
                           .event = s_app_event (app, "ended")};
    registry__notify (self, &c);
    s_app_complete (self, app);
}

/* --- executors --------------------------------------------------------- */

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
    char key[16];
    reg_exec_t *exec = calloc (1, sizeof *exec);
    if (!exec)
        return NULL;
    *exec = (reg_exec_t){app,       app->next_exec_id, w, cores,
                         memory_mb, EXEC_LAUNCHING,    0, NULL};
    exec->worker_handle = zlistx_add_end (w->executors, exec);
    if (!exec->worker_handle) {
        free (exec);
        return NULL;
    }
    app->next_exec_id++;
    if (self->journal) /* next_exec_id moved */
        s_record (self, registry_app_record (app), false);
    zhashx_update (app->workers, w->id, (void *) "");
    snprintf (key, sizeof key, "%d", exec->exec_id);
    zhashx_insert (app->executors, key, exec);
    app->cores_granted += cores;
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
                               .event = s_app_event (app, "running")};
        registry__notify (self, &r);
    }
    return exec;
}

/* Give back the executor's resources and free it. */
static void
s_exec_remove (reg_exec_t *exec)
{
    char key[16];
    reg_worker_t *w = exec->worker;
    reg_app_t *app = exec->app;
    w->cores_used -= exec->cores;
    w->memory_used_mb -= exec->memory_mb;
    app->cores_granted -= exec->cores;
    zlistx_delete (w->executors, exec->worker_handle);
    snprintf (key, sizeof key, "%d", exec->exec_id);
    zhashx_delete (app->executors, key); /* frees exec */
}

void
registry_exec_set_state (registry_t *self, reg_exec_t *exec, exec_state_t state,
                         const char *message, int exit_status, bool worker_lost)
{
    exec->state = state;
    if (state == EXEC_EXITED && exit_status == 0)
        exec->app->retries = 0;
    else if (state == EXEC_FAILED || (state == EXEC_EXITED && exit_status > 0))
        exec->app->retries++;
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
    if (registry_exec_final (state))
        s_exec_remove (exec);
}

/* --- liveness ---------------------------------------------------------- */

void
registry_touch_worker (registry_t *self, reg_worker_t *w, int64_t now_ms)
{
    if (!w->peer)
        return;
    hearth_liveness_touch (self->worker_live, w->peer, now_ms);
    w->last_heartbeat_ms = registry_wall_ms ();
}

void
registry_touch_app (registry_t *self, reg_app_t *app, int64_t now_ms)
{
    if (!app->peer)
        return;
    hearth_liveness_touch (self->app_live, app->peer, now_ms);
    app->last_heartbeat_ms = registry_wall_ms ();
}

reg_worker_t *
registry_silent_worker (registry_t *self, int64_t now_ms)
{
    reg_worker_t *w = hearth_liveness_expire (self->worker_live, now_ms);
    if (w)
        w->peer = NULL;
    return w;
}

reg_app_t *
registry_silent_app (registry_t *self, int64_t now_ms)
{
    reg_app_t *app = hearth_liveness_expire (self->app_live, now_ms);
    if (app)
        app->peer = NULL;
    return app;
}

/* --- recovery --------------------------------------------------------- */

size_t
registry_pending (registry_t *self)
{
    size_t n = 0;
    for (reg_worker_t *w = zlistx_first (self->worker_order); w;
         w = zlistx_next (self->worker_order))
        n += w->state == WORKER_UNKNOWN;
    for (reg_app_t *a = zlistx_first (self->active); a;
         a = zlistx_next (self->active))
        n += a->recovering;
    return n;
}

void
registry_app_adopt (registry_t *self, reg_app_t *app, zframe_t *routing_id,
                    int first_exec_id, int64_t now_ms)
{
    zframe_t *rid = zframe_dup (routing_id);
    if (!rid)
        return;
    s_peer_unset (self, app->routing_id, app);
    zframe_destroy (&app->routing_id);
    app->routing_id = rid;
    s_peer_set (self, rid, PEER_APP, app);
    app->recovering = false;
    if (first_exec_id > app->next_exec_id)
        app->next_exec_id = first_exec_id;
    app->last_heartbeat_ms = registry_wall_ms ();
    if (app->peer)
        hearth_liveness_touch (self->app_live, app->peer, now_ms);
    else
        app->peer = hearth_liveness_add (self->app_live, app, now_ms);
    registry_change_t c = {.topic = "app",
                           .app = app,
                           .exit_status = -1,
                           .event = s_app_event (app, "reregistered")};
    registry__notify (self, &c);
}
/* --- for restore.c (registry_int.h) ----------------------------------- */

reg_worker_t *
registry__worker_new (registry_t *self, const registry_worker_desc_t *desc)
{
    return s_worker_new (self, desc);
}

int
registry__app_fill (reg_app_t *app, const registry_app_desc_t *desc)
{
    return s_app_fill (app, desc);
}

void
registry__app_free (reg_app_t **app_p)
{
    s_app_free (app_p);
}

/*  cluster.c - what the master does to the cluster: schedule with the
    allocator and launch what it decides, heartbeat every peer, and turn
    each change of the registry into its event and into what drivers and
    workers must hear of it; see cluster.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libcore/alloc.h"
#include "libcore/clock.h"
#include "libcore/labels.h"
#include "libcore/log.h"
#include "master/cluster.h"
#include "master/drivers.h"
#include "master/limits.h"
#include "master/regdrivers.h"
#include "master/regworkers.h"
#include "master/send.h"
#include "master/state.h"
#include "master/waiting.h"

/* xorshift64*: the allocator's shuffle source. */
static unsigned
s_rand (void *arg, unsigned bound)
{
    uint64_t *x = arg;
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return bound ? (unsigned) ((*x * 0x2545F4914F6CDD1DULL) >> 33) % bound : 0;
}

/* --- launching -------------------------------------------------------- */

/* "gpu=0,1 fpga=3" into buf, for the log. */
static void
s_resources_text (const hearth_resources_t *r, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n && n < size; i++) {
        char *spec = hearth_resource_spec (&r->v[i]);
        int k = snprintf (buf + n, size - n, "%s%s", i ? " " : "",
                          spec ? spec : r->v[i].name);
        free (spec);
        n += k > 0 ? (size_t) k : 0;
    }
}

static void
s_launch (master_t *m, reg_exec_t *exec)
{
    reg_app_t *app = exec->app;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_EXECUTOR);
    if (!msg)
        return;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", app->id);
    cJSON_AddNumberToObject (b, "exec_id", exec->exec_id);
    cJSON_AddNumberToObject (b, "cores", exec->cores);
    cJSON_AddNumberToObject (b, "memory_mb", (double) exec->memory_mb);
    cJSON_AddStringToObject (b, "driver_url", app->driver_url);
    cJSON_AddStringToObject (b, "app_name", app->name);
    if (app->token)
        cJSON_AddStringToObject (b, "token", app->token);
    if (app->driver_key)
        cJSON_AddStringToObject (b, "driver_key", app->driver_key);
    if (app->conf)
        cJSON_AddItemToObject (b, "conf", cJSON_Duplicate (app->conf, 1));
    master_add_owner (m, b, app->owner);
    char held[256] = "";
    if (exec->resources.n) {
        cJSON_AddItemToObject (b, "resources",
                               hearth_resources_to_json (&exec->resources));
        s_resources_text (&exec->resources, held, sizeof held);
    }
    log_info ("launching executor %s/%d on %s (%d cores, %lld MiB%s%s)",
              app->id, exec->exec_id, exec->worker->id, exec->cores,
              (long long) exec->memory_mb, held[0] ? ", " : "", held);
    master_send (m, exec->worker->routing_id, msg);
}

/* --- scheduling -------------------------------------------------------- */

/* The registry's alive workers, waiting drivers and apps as allocator
   input. */
typedef struct {
    hearth_alloc_worker_t *workers; /* allocator view */
    hearth_alloc_resource_t **wres; /* same index: each worker's free
                                       addresses by name (owned arrays) */
    hearth_alloc_resource_t **ares; /* per app: its amounts (owned arrays) */
    reg_worker_t **wrec;            /* same index: the records */
    size_t nworkers;                /* entries */
    hearth_alloc_driver_t *drivers; /* allocator view */
    reg_driver_t **drec;            /* same index: the records */
    size_t ndrivers;                /* entries */
    hearth_alloc_app_t *apps;       /* allocator view */
    reg_app_t **arec;               /* same index: the records */
    size_t napps;                   /* entries */
    bool **aon;                     /* per app: the workers it may be on
                                       (--executor-label; owned), or
                                       NULL: any */
    bool **apref;                   /* per app: the workers its waiting
                                       tasks prefer (owned), or NULL */
    limits_pass_t limits;           /* their keys' limits (owned) */
} s_snapshot_t;

static void
s_snapshot_clear (s_snapshot_t *s)
{
    for (size_t i = 0; s->wres && i < s->nworkers; i++)
        free (s->wres[i]);
    for (size_t i = 0; s->ares && i < s->napps; i++)
        free (s->ares[i]);
    for (size_t i = 0; s->aon && i < s->napps; i++)
        free (s->aon[i]);
    for (size_t i = 0; s->apref && i < s->napps; i++)
        free (s->apref[i]);
    free (s->aon);
    free (s->apref);
    free (s->wres);
    free (s->ares);
    free (s->workers);
    free (s->wrec);
    free (s->drivers);
    free (s->drec);
    free (s->apps);
    free (s->arec);
    limits_pass_clear (&s->limits);
}

/* Whether w takes part in a pass: the first pass has the workers whose
   launches succeed, the second (probes) those whose launches fail, once
   their hold has passed (registry.h). */
static bool
s_in_pass (master_t *m, const reg_worker_t *w, bool probes, int64_t now)
{
    if (w->state != WORKER_ALIVE || registry_worker_draining (w)
        || (w->launch_failures > 0) != probes)
        return false;
    if (probes && now < w->launch_hold_ms) {
        m->held = true; /* placeable again later: the tick looks again */
        return false;
    }
    return true;
}

/* The workers of the pass into s. */
static int
s_snapshot_workers (master_t *m, s_snapshot_t *s, bool probes, int64_t now)
{
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); w;
         w = zlistx_next (workers)) {
        if (!s_in_pass (m, w, probes, now))
            continue;
        hearth_alloc_resource_t *res = NULL; /* most workers have none */
        if (w->resources.n && !(res = calloc (w->resources.n, sizeof *res)))
            return -1;
        for (size_t i = 0; i < w->resources.n; i++)
            res[i] = (hearth_alloc_resource_t){
                w->resources.v[i].name,
                registry_worker_free_count (w, w->resources.v[i].name)};
        s->wrec[s->nworkers] = w;
        s->wres[s->nworkers] = res;
        s->workers[s->nworkers++] = (hearth_alloc_worker_t){
            true, w->cores - registry_worker_cores_used (w),
            w->memory_mb - registry_worker_memory_used (w), res,
            w->resources.n};
    }
    return 0;
}

/* Whether worker w is the place name: its host, "worker:ID", or a
   label "KEY=VALUE" it carries. */
static bool
s_worker_is (const reg_worker_t *w, const char *name)
{
    if (strcmp (w->host, name) == 0)
        return true;
    if (strncmp (name, "worker:", 7) == 0)
        return strcmp (w->id, name + 7) == 0;
    const char *eq = strchr (name, '=');
    if (!eq || eq - name > HEARTH_LABEL_KEY_MAX)
        return false; /* no label has so long a key: cut, it might match */
    char key[HEARTH_LABEL_KEY_MAX + 1];
    snprintf (key, sizeof key, "%.*s", (int) (eq - name), name);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (w->labels, key);
    return cJSON_IsString (v) && strcmp (v->valuestring, eq + 1) == 0;
}

/* The workers of the pass that app's waiting tasks prefer (rule 8), or
   NULL when none does or it asks for no executors.  -1 out of memory. */
static int
s_app_preferred (s_snapshot_t *s, size_t i)
{
    const cJSON *places = s->arec[i]->executor_places;
    if (!places || !s->apps[i].has_target)
        return 0;
    if (!(s->apref[i] = calloc (s->nworkers + 1, sizeof *s->apref[i])))
        return -1;
    bool any = false;
    for (size_t w = 0; w < s->nworkers; w++) {
        const cJSON *p;
        cJSON_ArrayForEach (p, places)
        {
            if (s_worker_is (s->wrec[w], p->string)) {
                s->apref[i][w] = any = true;
                break;
            }
        }
    }
    if (any)
        s->apps[i].prefer_workers = s->apref[i];
    return 0;
}

/* Rules 7 and 8 (alloc.h): each application with --executor-label may be
   on the workers of the pass that carry those labels only, and one whose
   waiting tasks prefer places is placed there first.  0, or -1. */
static int
s_app_workers (s_snapshot_t *s)
{
    for (size_t i = 0; i < s->napps; i++) {
        if (s_app_preferred (s, i) < 0)
            return -1;
        const cJSON *want = s->arec[i]->executor_labels;
        if (!want)
            continue;
        if (!(s->aon[i] = calloc (s->nworkers + 1, sizeof *s->aon[i])))
            return -1;
        for (size_t w = 0; w < s->nworkers; w++)
            s->aon[i][w] = hearth_labels_carry (s->wrec[w]->labels, want);
        s->apps[i].on_workers = s->aon[i];
    }
    return 0;
}

static int
s_snapshot (master_t *m, s_snapshot_t *s, bool probes)
{
    zlistx_t *workers = registry_workers (m->reg);
    zlistx_t *apps = registry_apps (m->reg);
    zlistx_t *drivers = registry_drivers (m->reg);
    size_t nw = zlistx_size (workers) + 1, na = zlistx_size (apps) + 1;
    size_t nd = zlistx_size (drivers) + 1;
    memset (s, 0, sizeof *s);
    s->workers = calloc (nw, sizeof *s->workers);
    s->wrec = calloc (nw, sizeof *s->wrec);
    s->drivers = calloc (nd, sizeof *s->drivers);
    s->drec = calloc (nd, sizeof *s->drec);
    s->apps = calloc (na, sizeof *s->apps);
    s->arec = calloc (na, sizeof *s->arec);
    s->wres = calloc (nw, sizeof *s->wres);
    s->ares = calloc (na, sizeof *s->ares);
    s->aon = calloc (na, sizeof *s->aon);
    s->apref = calloc (na, sizeof *s->apref);
    if (!s->workers || !s->wrec || !s->drivers || !s->drec || !s->apps
        || !s->arec || !s->wres || !s->ares || !s->aon || !s->apref)
        return -1;
    int64_t now = hearth_mono_ms ();
    /* A driver that cannot start is lost for good (ERROR): drivers go to
       workers whose launches succeed only. */
    for (reg_driver_t *d = probes ? NULL : zlistx_first (drivers); d;
         d = zlistx_next (drivers)) {
        if (d->worker || d->kill_requested)
            continue;
        if (d->relaunch_ms > now) {
            m->held = true; /* supervised, backing off */
            continue;
        }
        s->drec[s->ndrivers] = d;
        s->drivers[s->ndrivers++] =
            (hearth_alloc_driver_t){d->cores, d->memory_mb, NULL};
    }
    for (reg_app_t *a = zlistx_first (apps); a; a = zlistx_next (apps)) {
        if (a->hold_until_ms > now) {
            m->held = true; /* its workers may not be back yet */
            continue;
        }
        int left = a->max_cores ? a->max_cores - a->cores_granted
                                : HEARTH_ALLOC_UNLIMITED;
        const hearth_resource_amounts_t *want = &a->executor_resources;
        hearth_alloc_resource_t *res = calloc (want->n + 1, sizeof *res);
        if (!res)
            return -1;
        for (size_t i = 0; i < want->n; i++)
            res[i] =
                (hearth_alloc_resource_t){want->v[i].name, want->v[i].amount};
        s->arec[s->napps] = a;
        s->ares[s->napps] = res;
        s->apps[s->napps++] = (hearth_alloc_app_t){
            left,   a->cores_per_executor, a->memory_per_executor_mb, NULL, res,
            want->n};
        if (a->executor_target >= 0) { /* dynamic allocation: rule 6 */
            s->apps[s->napps - 1].has_target = true;
            s->apps[s->napps - 1].executors_left =
                a->executor_target - (int) registry_app_executors (a);
        }
    }
    /* No application can take a core and no driver waits: the workers
       need not be looked at (at 50,000 of them that look was most of
       the master's CPU between arrivals; docs/performance.md). */
    bool wanted = s->ndrivers > 0;
    for (size_t i = 0; !wanted && i < s->napps; i++)
        wanted = hearth_alloc_app_wants (&s->apps[i]);
    if (wanted
        && (s_snapshot_workers (m, s, probes, now) < 0
            || s_app_workers (s) < 0))
        return -1;
    return limits_pass_new (&s->limits, m->limits, m->curve.zap, m->reg,
                            s->arec, s->apps, s->napps, s->drec, s->drivers,
                            s->ndrivers);
}

/* One pass of the allocator over the workers of the pass, and the
   launches it decides: the snapshot and the allocator's result stay in
   *s and *r (the caller clears both).  A probing pass gives each worker
   one executor at most, and holds it until that launch's result.
   Returns 0, or -1 when the snapshot could not be made. */
static int
s_pass (master_t *m, bool probes, s_snapshot_t *sp, hearth_alloc_result_t *rp)
{
    s_snapshot_t s;
    hearth_alloc_result_t r = {0};
    int rc = s_snapshot (m, &s, probes);
    *sp = s;
    *rp = r;
    if (rc < 0 || (s.napps == 0 && s.ndrivers == 0) || s.nworkers == 0)
        return rc;
    hearth_alloc_input_t in = {.workers = s.workers,
                               .nworkers = s.nworkers,
                               .drivers = s.drivers,
                               .ndrivers = s.ndrivers,
                               .apps = s.apps,
                               .napps = s.napps,
                               .groups = s.limits.groups,
                               .ngroups = s.limits.ngroups,
                               .spread_out = m->spread_out,
                               .rand = s_rand,
                               .rand_arg = &m->rand_state};
    if (hearth_alloc_schedule (&in, &r) < 0)
        log_error ("allocation failed: out of memory");
    for (size_t i = 0; i < r.ndrivers; i++) {
        reg_driver_t *d = s.drec[r.drivers[i].driver];
        reg_worker_t *w = s.wrec[r.drivers[i].worker];
        master_driver_place (m, d, w);
    }
    for (size_t i = 0; i < r.nexecutors; i++) {
        const hearth_alloc_executor_t *e = &r.executors[i];
        reg_worker_t *w = s.wrec[e->worker];
        if (probes && hearth_mono_ms () < w->launch_hold_ms)
            continue; /* probed already in this pass */
        reg_app_t *app = s.arec[e->app];
        hearth_resources_t held = {0};
        if (registry_worker_pick (w, &app->executor_resources, &held) < 0) {
            /* the allocator counted them free: only no memory gets here */
            log_error ("executor of %s on %s: cannot pick its resources",
                       app->id, w->id);
            continue;
        }
        reg_exec_t *exec = registry_exec_add_held (m->reg, app, w, e->cores,
                                                   e->memory_mb, &held);
        hearth_resources_clear (&held);
        if (probes) {
            registry_worker_probe (m->reg, w, hearth_mono_ms ());
            m->held = true; /* what it could not take is placed later */
        }
        if (exec)
            s_launch (m, exec);
    }
    *rp = r;
    return 0;
}

void
master_schedule (master_t *m)
{
    if (m->recovering)
        return; /* the picture is incomplete: wait (dirty stays set) */
    if (m->role == MASTER_STANDBY || m->role == MASTER_SUSPENDED)
        return; /* not the leader now (ha.c): place nothing */
    if (master_waiting_asleep (m))
        return; /* nothing changed; an unschedulable clock is not due */
    m->dirty = false;
    m->held = false;
    /* What healthy workers cannot take goes to those whose launches
       fail, a probe at a time (issue 14: a full disk made 10,000 failed
       launches a second).  Then why the first pass's records wait. */
    s_snapshot_t first, probes;
    hearth_alloc_result_t r1, r2;
    int rc = s_pass (m, false, &first, &r1);
    s_pass (m, true, &probes, &r2);
    hearth_alloc_result_clear (&r2);
    s_snapshot_clear (&probes);
    if (rc == 0)
        master_waiting_report (
            m, &(waiting_pass_t){.arec = first.arec,
                                 .apps = first.apps,
                                 .napps = first.napps,
                                 .apps_capped = r1.apps_capped,
                                 .drec = first.drec,
                                 .drivers = first.drivers,
                                 .ndrivers = first.ndrivers,
                                 .drivers_capped = r1.drivers_capped,
                                 .limits = &first.limits});
    hearth_alloc_result_clear (&r1);
    s_snapshot_clear (&first);
    master_waiting_hold (m);
}

/* --- heartbeats -------------------------------------------------------- */

void
master_broadcast_heartbeat (master_t *m)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "status", master_status (m));
    if (hearth_msg_set_epoch (msg, m->epoch) < 0) {
        hearth_msg_destroy (&msg);
        return;
    }
    zmsg_t *wire = hearth_msg_encode (&msg, NULL);
    if (!wire)
        return;
    zlistx_t *workers = registry_workers (m->reg);
    zlistx_t *apps = registry_apps (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); w;
         w = zlistx_next (workers)) {
        if (w->state != WORKER_ALIVE)
            continue;
        zmsg_t *copy = zmsg_dup (wire);
        zframe_t *rid = zframe_dup (w->routing_id);
        zmsg_prepend (copy, &rid);
        if (zmsg_send (&copy, m->router) < 0)
            zmsg_destroy (&copy);
    }
    for (reg_app_t *a = zlistx_first (apps); a; a = zlistx_next (apps)) {
        if (!a->routing_id)
            continue; /* recovering: its driver is not back */
        zmsg_t *copy = zmsg_dup (wire);
        zframe_t *rid = zframe_dup (a->routing_id);
        zmsg_prepend (copy, &rid);
        if (zmsg_send (&copy, m->router) < 0)
            zmsg_destroy (&copy);
    }
    zmsg_destroy (&wire);
    hearth_loop_sent (m->loop, m->router); /* loop.h */
}

/* --- telling drivers --------------------------------------------------- */

static void
s_executor_added (master_t *m, reg_exec_t *exec)
{
    if (!exec->app->routing_id)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_EXECUTOR_ADDED);
    if (!msg)
        return;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", exec->app->id);
    cJSON_AddNumberToObject (b, "exec_id", exec->exec_id);
    cJSON_AddStringToObject (b, "worker_id", exec->worker->id);
    cJSON_AddStringToObject (b, "host", exec->worker->host);
    cJSON_AddNumberToObject (b, "cores", exec->cores);
    cJSON_AddNumberToObject (b, "memory_mb", (double) exec->memory_mb);
    if (exec->resources.n)
        cJSON_AddItemToObject (b, "resources",
                               hearth_resources_to_json (&exec->resources));
    if (exec->worker->labels) /* for its tasks' preferences (issue 37) */
        cJSON_AddItemToObject (b, "labels",
                               cJSON_Duplicate (exec->worker->labels, true));
    master_send (m, exec->app->routing_id, msg);
}

/* The driver hears why its application waits, and when it no longer
   does (an empty reason). */
static void
s_application_waiting (master_t *m, reg_app_t *app)
{
    if (!app->routing_id)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_APPLICATION_WAITING);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "app_id", app->id);
    cJSON_AddStringToObject (msg->body, "reason",
                             app->waiting ? app->waiting : "");
    if (app->waiting && app->waiting_code)
        cJSON_AddStringToObject (msg->body, "code", app->waiting_code);
    master_send (m, app->routing_id, msg);
}

static void
s_executor_updated (master_t *m, const registry_change_t *c)
{
    reg_exec_t *exec = c->exec;
    if (!exec->app->routing_id)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_EXECUTOR_UPDATED);
    if (!msg)
        return;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", exec->app->id);
    cJSON_AddNumberToObject (b, "exec_id", exec->exec_id);
    cJSON_AddStringToObject (b, "state", hearth_executor_states[exec->state]);
    if (c->message)
        cJSON_AddStringToObject (b, "message", c->message);
    if (c->exit_status >= 0)
        cJSON_AddNumberToObject (b, "exit_status", c->exit_status);
    cJSON_AddBoolToObject (b, "worker_lost", c->worker_lost);
    if (exec->peak_rss_bytes > 0)
        cJSON_AddNumberToObject (b, "peak_rss_bytes",
                                 (double) exec->peak_rss_bytes);
    if (exec->exit_reason)
        cJSON_AddStringToObject (b, "reason", exec->exit_reason);
    if (exec->memory_limit_bytes > 0)
        cJSON_AddNumberToObject (b, "memory_limit_bytes",
                                 (double) exec->memory_limit_bytes);
    cJSON_AddStringToObject (b, "worker_id", exec->worker->id);
    master_send (m, exec->app->routing_id, msg);
}

/* An application ended: its driver (unless it finished cleanly) and every
   worker that ran its executors hear APPLICATION_REMOVED. */
static void
s_app_removed (master_t *m, reg_app_t *app)
{
    const char *reason = app->end_reason ? app->end_reason : "ended";
    for (void *v = zhashx_first (app->workers); v;
         v = zhashx_next (app->workers)) {
        const char *wid = zhashx_cursor (app->workers);
        reg_worker_t *w = registry_worker (m->reg, wid);
        hearth_msg_t *msg =
            w && w->state == WORKER_ALIVE
                ? hearth_msg_new (HEARTH_CMD_APPLICATION_REMOVED)
                : NULL;
        if (!msg)
            continue;
        cJSON_AddStringToObject (msg->body, "app_id", app->id);
        cJSON_AddStringToObject (msg->body, "reason", reason);
        cJSON_AddStringToObject (msg->body, "state",
                                 hearth_app_states[app->state]);
        master_send (m, w->routing_id, msg);
    }
    if (app->state == APP_FINISHED || !app->routing_id)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_APPLICATION_REMOVED);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "app_id", app->id);
    cJSON_AddStringToObject (msg->body, "reason", reason);
    cJSON_AddStringToObject (msg->body, "state", hearth_app_states[app->state]);
    master_send (m, app->routing_id, msg);
}

void
master_on_change (void *arg, registry_change_t *c)
{
    master_t *m = arg;
    /* a RELAUNCHING application's workers keep its files for a driver
       that resumes it: they hear of it when it ends */
    if (c->app && !c->exec && c->app->state > APP_RUNNING
        && c->app->state != APP_RELAUNCHING)
        s_app_removed (m, c->app);
    if (c->exec && !c->reported && c->app->state <= APP_RUNNING) {
        if (c->exec->state == EXEC_LAUNCHING)
            s_executor_added (m, c->exec);
        else
            s_executor_updated (m, c);
    }
    if (c->exec && registry_exec_final (c->exec->state))
        m->dirty = true; /* resources came back */
    if (c->worker)
        m->dirty = true;
    if (c->driver)
        master_driver_changed (m, c->driver);
    if (c->waiting)
        s_application_waiting (m, c->waiting);
    master_publish (m, c->topic, c->event);
    c->event = NULL;
}

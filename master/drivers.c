/*  drivers.c - the life of cluster-mode drivers in the master: the
    launches the allocator decides (LAUNCH_DRIVER), what workers report
    (DRIVER_STATE_CHANGED, and the drivers they list when they register or
    heartbeat), the supervision of drivers that fail (relaunched with a
    doubling back-off), kills, and the end of a driver's application when
    the driver ends; see drivers.h.  The requests of hearth-submit are
    drvsubmit.c's, the relay of a driver's log drvlog.c's.

    Every change to a driver record goes through the registry, like
    applications' and workers': these functions decide, the registry
    records and reports (registry.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/keys.h"
#include "libcore/log.h"
#include "master/authz.h"
#include "master/drivers.h"
#include "master/drvkeys.h"
#include "master/regdrivers.h"
#include "master/resume.h"
#include "master/send.h"

/* An application to end because its driver ended (see
   master_drivers_settle). */
typedef struct {
    char app_id[HEARTH_ID_MAX + 1];    /* the application */
    char driver_id[HEARTH_ID_MAX + 1]; /* its driver */
    driver_state_t state;              /* how the driver ended */
} s_orphan_app_t;

static void
s_orphan_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

zlistx_t *
master_orphan_list_new (void)
{
    zlistx_t *list = zlistx_new ();
    if (list)
        zlistx_set_destructor (list, s_orphan_destroy);
    return list;
}

static int
s_state_index (const char *name)
{
    for (int i = 0; name && hearth_driver_states[i]; i++)
        if (strcmp (hearth_driver_states[i], name) == 0)
            return i;
    return -1;
}

/* --- launching --------------------------------------------------------- */

void
master_json_copy (cJSON *to, const cJSON *from, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (from, name);
    if (v)
        cJSON_AddItemToObject (to, name, cJSON_Duplicate (v, 1));
}

void
master_add_owner (master_t *m, cJSON *body, const char *owner)
{
    if (!owner || !owner[0])
        return;
    cJSON_AddStringToObject (body, "owner", owner);
    const char *name =
        m->curve.zap ? hearth_zap_name (m->curve.zap, owner) : NULL;
    const char *user =
        m->curve.zap ? hearth_zap_user (m->curve.zap, owner) : NULL;
    if (name)
        cJSON_AddStringToObject (body, "owner_name", name);
    if (user)
        cJSON_AddStringToObject (body, "user", user);
}

/* Send LAUNCH_DRIVER for d, just placed on d->worker: its spec, a copy
   of its files, and the secret key made for this launch (secret; "":
   none, without CURVE). */
static void
s_launch (master_t *m, reg_driver_t *d, const char *secret)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_DRIVER);
    if (!msg)
        return;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "driver_id", d->id);
    cJSON_AddNumberToObject (b, "cores", d->cores);
    cJSON_AddNumberToObject (b, "memory_mb", (double) d->memory_mb);
    cJSON_AddStringToObject (b, "app", d->app);
    cJSON_AddStringToObject (b, "kind", d->binary ? "binary" : "job");
    cJSON_AddStringToObject (b, "master_url", m->url);
    cJSON_AddNumberToObject (b, "launch", d->launches);
    if (d->name)
        cJSON_AddStringToObject (b, "name", d->name);
    master_add_owner (m, b, d->owner);
    master_json_copy (b, d->spec, "args");
    master_json_copy (b, d->spec, "files");
    master_json_copy (b, d->spec, "env");
    master_json_copy (b, d->spec, "conf");
    if (secret[0]) /* its own key: it speaks with no one else's */
        cJSON_AddStringToObject (b, "curve_secret", secret);
    for (size_t i = 0; i < d->nframes; i++) {
        zframe_t *copy = zframe_dup (d->frames[i]);
        if (!copy || hearth_msg_add_frame (msg, &copy) < 0) {
            log_error ("driver %s: out of memory building LAUNCH_DRIVER",
                       d->id);
            hearth_msg_destroy (&msg);
            return;
        }
    }
    log_info ("launching driver %s (launch %d) on %s (%d cores, %lld MiB)",
              d->id, d->launches, d->worker->id, d->cores,
              (long long) d->memory_mb);
    master_send (m, d->worker->routing_id, msg);
}

void
master_driver_place (master_t *m, reg_driver_t *d, reg_worker_t *w)
{
    char key[HEARTH_KEY_TXT_LEN + 1], secret[HEARTH_KEY_TXT_LEN + 1];
    if (master_driver_key_new (m, key, secret) < 0) {
        log_error ("driver %s: cannot make a key for its launch: %s", d->id,
                   zmq_strerror (errno));
        return; /* stays unplaced: tried again at the next pass */
    }
    /* the key is admitted as the registry records the launch (the
       observer: master_driver_changed), before the worker hears of it */
    registry_driver_launch (m->reg, d, w, hearth_mono_ms (), key);
    if (d->worker == w)
        s_launch (m, d, secret);
    explicit_bzero (secret, sizeof secret);
}

static void
s_send_kill (master_t *m, reg_driver_t *d, reg_worker_t *w)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_DRIVER);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "driver_id", d->id);
    master_send (m, w->routing_id, msg);
}

/* --- state changes ----------------------------------------------------- */

/* When a supervised driver that failed may run again. */
static int64_t
s_relaunch_at (master_t *m, const reg_driver_t *d, int64_t now)
{
    int64_t delay = m->relaunch_delay_ms;
    for (int i = 0; i < d->failures && delay < m->relaunch_max_ms; i++)
        delay *= 2;
    return now + (delay < m->relaunch_max_ms ? delay : m->relaunch_max_ms);
}

/* What a worker reports about d (already checked to be d's worker and
   launch), turned into the driver's next state. */
static void
s_apply (master_t *m, reg_driver_t *d, int state, const char *error,
         int exit_status, int pid)
{
    int64_t now = hearth_mono_ms ();
    registry_driver_update_t u = {
        .state = state, .error = error, .exit_status = exit_status, .pid = pid};
    char why[128];
    switch (state) {
    case DRIVER_RUNNING:
        if (d->state == DRIVER_RUNNING && (pid <= 0 || pid == d->pid))
            return;
        break;
    case DRIVER_FINISHED:
        break;
    case DRIVER_FAILED:
    case DRIVER_KILLED:
    case DRIVER_ERROR:
        if (d->kill_requested) {
            u.state = DRIVER_KILLED;
            /* Its application ended as the kill was asked, and the
               driver may exit on its own before the worker's signal:
               what happened is the kill, not a line of its log. */
            if (state != DRIVER_KILLED) {
                snprintf (why, sizeof why,
                          "killed on request (it exited with status %d as "
                          "its application was ended)",
                          exit_status);
                u.error = why;
            }
        }
        else if (d->supervise && state != DRIVER_ERROR) {
            /* A run as long as the back-off cap was not "in a row". */
            if (now - d->launched_ms >= m->relaunch_max_ms)
                registry_driver_ran (m->reg, d);
            u.state = DRIVER_RELAUNCHING;
            u.relaunch_ms = s_relaunch_at (m, d, now);
            u.failure = true;
        }
        break;
    default:
        return; /* SUBMITTED, RELAUNCHING: not a worker's to say */
    }
    log_info ("driver %s on %s: %s%s%s", d->id, d->worker_id,
              hearth_driver_states[u.state], error ? ": " : "",
              error ? error : "");
    if (u.state == DRIVER_RELAUNCHING)
        log_info ("driver %s is supervised: launching it again in %lld ms",
                  d->id, (long long) (u.relaunch_ms - now));
    registry_driver_set_state (m->reg, d, &u);
}

/* d's worker no longer runs it (it registered again without it): like a
   worker lost, supervised drivers run again at once. */
static void
s_lost (master_t *m, reg_driver_t *d, const char *reason)
{
    registry_driver_update_t u = {
        .state = DRIVER_ERROR, .error = reason, .exit_status = -1};
    if (d->kill_requested)
        u.state = DRIVER_KILLED;
    else if (d->supervise) {
        u.state = DRIVER_RELAUNCHING;
        u.relaunch_ms = hearth_mono_ms ();
    }
    log_warn ("driver %s on %s: %s: %s", d->id, d->worker_id, reason,
              hearth_driver_states[u.state]);
    registry_driver_set_state (m->reg, d, &u);
}

/* The sending worker, or NULL after answering RECONNECT_WORKER. */
void
master_driver_state_changed (void *arg, const hearth_from_t *from,
                             hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const cJSON *b = msg->body;
    reg_worker_t *w = master_sender_worker (m, rid);
    if (!w)
        return;
    const char *id = hearth_json_str (b, "driver_id");
    int64_t launch = hearth_json_int (b, "launch", 0);
    reg_driver_t *d = registry_driver (m->reg, id);
    if (!d || d->worker != w || (launch && launch != d->launches)) {
        log_debug ("state of driver %s (launch %lld) from %s ignored: not "
                   "placed there",
                   id, (long long) launch, w->id);
        return;
    }
    s_apply (m, d, s_state_index (hearth_json_str (b, "state")),
             hearth_json_str (b, "error"),
             (int) hearth_json_int (b, "exit_status", -1),
             (int) hearth_json_int (b, "pid", 0));
}

void
master_driver_app_registered (master_t *m, reg_app_t *app,
                              const char *driver_id, const char *key)
{
    reg_driver_t *d = driver_id ? registry_driver (m->reg, driver_id) : NULL;
    if (!d || registry_driver_final (d->state))
        return;
    /* Only the driver itself links its application: it registers with
       the key the master made for its launch, for its submitter.  Anyone
       else naming it (a decoy application, to have the driver killed with
       it) links nothing. */
    if (!master_sender_is_driver (m, key, d)
        || strcmp (d->owner, app->owner) != 0) {
        log_warn ("application %s names driver %s, which it is not: not "
                  "linked to it",
                  app->id, d->id);
        return;
    }
    log_info ("application %s is driver %s's", app->id, d->id);
    registry_driver_set_app (m->reg, d, app->id);
    /* its worker's pages show it beside the driver */
    hearth_msg_t *msg =
        d->worker ? hearth_msg_new (HEARTH_CMD_DRIVER_APPLICATION) : NULL;
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "driver_id", d->id);
    cJSON_AddStringToObject (msg->body, "app_id", app->id);
    master_send (m, d->worker->routing_id, msg);
}

void
master_driver_changed (master_t *m, reg_driver_t *d)
{
    master_driver_key_sync (m, d);
    bool ended =
        registry_driver_final (d->state) || d->state == DRIVER_RELAUNCHING;
    if (d->state == DRIVER_SUBMITTED || ended)
        m->dirty = true;
    if (!ended || !d->app_id[0])
        return;
    s_orphan_app_t *o = calloc (1, sizeof *o);
    if (!o)
        return;
    snprintf (o->app_id, sizeof o->app_id, "%s", d->app_id);
    snprintf (o->driver_id, sizeof o->driver_id, "%s", d->id);
    o->state = d->state;
    zlistx_add_end (m->orphan_apps, o);
}

void
master_drivers_settle (master_t *m)
{
    s_orphan_app_t *o;
    while ((o = zlistx_first (m->orphan_apps))) {
        reg_app_t *app = registry_app (m->reg, o->app_id);
        if (app && app->state <= APP_RUNNING) {
            char reason[300];
            snprintf (reason, sizeof reason, "its driver %s ended: %s",
                      o->driver_id, hearth_driver_states[o->state]);
            app_state_t state = o->state == DRIVER_FINISHED ? APP_FINISHED
                                : o->state == DRIVER_KILLED ? APP_KILLED
                                                            : APP_FAILED;
            /* a driver that failed, or stopped without a KILL_DRIVER (that
               one ended its application already), or is being relaunched,
               left its application unfinished: a driver may resume it */
            if (o->state == DRIVER_FAILED || o->state == DRIVER_KILLED
                || o->state == DRIVER_RELAUNCHING) {
                master_app_driver_lost (m, app, reason);
            }
            else {
                log_info ("application %s %s: %s", app->id,
                          hearth_app_states[state], reason);
                registry_app_end (m->reg, app, state, reason,
                                  master_kill_executor, m);
            }
        }
        zlistx_delete (m->orphan_apps, zlistx_cursor (m->orphan_apps));
    }
}

/* --- what a registering or heartbeating worker lists ------------------- */

void
master_drivers_foreign (master_t *m, reg_worker_t *w, const cJSON *drivers,
                        int *cores, int64_t *memory)
{
    const cJSON *r;
    cJSON_ArrayForEach (r, drivers)
    {
        if (hearth_json_str (r, "state"))
            continue; /* ended: holds nothing */
        reg_driver_t *d =
            registry_driver (m->reg, hearth_json_str (r, "driver_id"));
        if (d && d->worker == w)
            continue;
        *cores += (int) hearth_json_int (r, "cores", 0);
        *memory += hearth_json_int (r, "memory_mb", 0);
    }
}

/* Is d listed (running) in the worker's list? */
static bool
s_listed (const reg_driver_t *d, const cJSON *drivers)
{
    const cJSON *r;
    cJSON_ArrayForEach (r, drivers)
    {
        if (strcmp (hearth_json_str (r, "driver_id"), d->id) == 0
            && !hearth_json_str (r, "state"))
            return true;
    }
    return false;
}

void
master_drivers_reconcile (master_t *m, reg_worker_t *w, const cJSON *drivers)
{
    const cJSON *r;
    /* Ends that happened while the worker was away, then what runs. */
    cJSON_ArrayForEach (r, drivers)
    {
        reg_driver_t *d =
            registry_driver (m->reg, hearth_json_str (r, "driver_id"));
        int64_t launch = hearth_json_int (r, "launch", 0);
        const char *state = hearth_json_str (r, "state");
        bool ours = d && d->worker == w && (!launch || launch == d->launches);
        if (state) {
            if (ours)
                s_apply (m, d, s_state_index (state),
                         hearth_json_str (r, "error"),
                         (int) hearth_json_int (r, "exit_status", -1), 0);
            continue;
        }
        if (!d)
            continue; /* unknown: its resources count as foreign */
        if (!ours || d->kill_requested) {
            log_warn ("worker %s runs driver %s, which %s: killing it", w->id,
                      d->id,
                      d->kill_requested ? "was asked to stop"
                                        : "the master placed elsewhere or "
                                          "ended");
            s_send_kill (m, d, w);
            continue;
        }
        if (d->state != DRIVER_RUNNING)
            s_apply (m, d, DRIVER_RUNNING, NULL, -1,
                     (int) hearth_json_int (r, "pid", 0));
    }
    /* What the master placed there that the worker no longer runs. */
    zlistx_t *lost = zlistx_new ();
    for (reg_driver_t *d = lost ? zlistx_first (w->drivers) : NULL; d;
         d = zlistx_next (w->drivers))
        if (!s_listed (d, drivers))
            zlistx_add_end (lost, (void *) d);
    for (reg_driver_t *d = lost ? zlistx_first (lost) : NULL; d;
         d = zlistx_next (lost))
        if (d->worker == w)
            s_lost (m, d, "not reported by its worker");
    zlistx_destroy (&lost);
}

reg_driver_t *
master_driver_of_app (master_t *m, const char *app_id)
{
    zlistx_t *drivers = registry_drivers (m->reg);
    for (reg_driver_t *d = zlistx_first (drivers); d; d = zlistx_next (drivers))
        if (strcmp (d->app_id, app_id) == 0)
            return d;
    return NULL;
}

void
master_driver_kill (master_t *m, reg_driver_t *d, char *text, size_t size)
{
    log_info ("driver %s: kill requested", d->id);
    registry_driver_kill_requested (m->reg, d);
    /* Its application ends now, KILLED, whatever the driver says while it
       stops (a job file's driver unregisters as it goes). */
    reg_app_t *app = d->app_id[0] ? registry_app (m->reg, d->app_id) : NULL;
    if (app && app->state <= APP_RUNNING)
        registry_app_end (m->reg, app, APP_KILLED, "its driver was killed",
                          master_kill_executor, m);
    else if (app && app->state == APP_RELAUNCHING)
        registry_app_relaunch_end (m->reg, app, APP_KILLED,
                                   "its driver was killed");
    if (d->worker) {
        snprintf (text, size, "stopping it on %s", d->worker->id);
        s_send_kill (m, d, d->worker);
    }
    else {
        snprintf (text, size, "killed before it was launched");
        registry_driver_update_t u = {.state = DRIVER_KILLED,
                                      .error = "killed by request",
                                      .exit_status = -1};
        registry_driver_set_state (m->reg, d, &u);
    }
}

void
master_app_kill (master_t *m, reg_app_t *app)
{
    /* A cluster-mode driver's application: the driver goes too, and a
       supervised one is not relaunched (as with --kill DRIVER_ID). */
    reg_driver_t *d = master_driver_of_app (m, app->id);
    char text[300];
    if (app->state == APP_RELAUNCHING
        && (!d || registry_driver_final (d->state)))
        registry_app_relaunch_end (m->reg, app, APP_KILLED,
                                   "killed by request");
    else if (d)
        master_driver_kill (m, d, text, sizeof text);
    else
        registry_app_end (m->reg, app, APP_KILLED, "killed by request",
                          master_kill_executor, m);
}

/*  drivers.c - cluster-mode drivers in the master: SUBMIT_DRIVER,
    DRIVER_STATUS, KILL_DRIVER and DRIVER_LOG from hearth-submit; the
    launches the allocator decides (LAUNCH_DRIVER); what workers report
    (DRIVER_STATE_CHANGED, the drivers they list when they register); the
    supervision of drivers that fail; and the relay of DRIVER_LOG to the
    worker that holds a driver's output.

    Every change to a driver record goes through the registry, like
    applications' and workers': these functions decide, the registry
    records and reports (registry.h). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "master/master.h"

/* Defaults of a driver that does not say what it needs. */
static const int s_default_driver_cores = 1;
static const int64_t s_default_driver_memory_mb = 1024;
/* How long the master waits for a worker's DRIVER_LOG_RESPONSE. */
static const int64_t s_log_timeout_ms = 10000;
/* DRIVER_LOG requests relayed at once, at most. */
static const size_t s_max_log_requests = 1000;

/* A DRIVER_LOG relayed to a worker, waiting for its answer. */
typedef struct {
    zframe_t *client;                  /* who asked (owned routing id) */
    int64_t client_request_id;         /* its request_id, or -1 */
    char driver_id[HEARTH_ID_MAX + 1]; /* whose log */
    int64_t deadline_ms;               /* monotonic: answer by then */
} s_log_request_t;

/* An application to end because its driver ended (see
   master_drivers_settle). */
typedef struct {
    char app_id[HEARTH_ID_MAX + 1];    /* the application */
    char driver_id[HEARTH_ID_MAX + 1]; /* its driver */
    driver_state_t state;              /* how the driver ended */
} s_orphan_app_t;

static void
s_log_request_free (void **item)
{
    s_log_request_t *r = *item;
    if (r)
        zframe_destroy (&r->client);
    free (r);
    *item = NULL;
}

static void
s_free_item (void **item)
{
    free (*item);
    *item = NULL;
}

int
master_drivers_init (master_t *m)
{
    m->log_requests = zhashx_new ();
    m->orphan_apps = zlistx_new ();
    if (!m->log_requests || !m->orphan_apps)
        return -1;
    zhashx_set_destructor (m->log_requests, s_log_request_free);
    zlistx_set_destructor (m->orphan_apps, s_free_item);
    return 0;
}

void
master_drivers_fini (master_t *m)
{
    zhashx_destroy (&m->log_requests);
    zlistx_destroy (&m->orphan_apps);
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

static void
s_copy_member (cJSON *to, const cJSON *from, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (from, name);
    if (v)
        cJSON_AddItemToObject (to, name, cJSON_Duplicate (v, 1));
}

void
master_launch_driver (master_t *m, reg_driver_t *d)
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
    s_copy_member (b, d->spec, "args");
    s_copy_member (b, d->spec, "files");
    s_copy_member (b, d->spec, "env");
    s_copy_member (b, d->spec, "conf");
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
        if (d->kill_requested)
            u.state = DRIVER_KILLED;
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
static reg_worker_t *
s_sender_worker (master_t *m, zframe_t *rid)
{
    void *record;
    if (registry_peer (m->reg, rid, &record) == PEER_WORKER
        && ((reg_worker_t *) record)->state == WORKER_ALIVE)
        return record;
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_RECONNECT_WORKER);
    if (reply) {
        cJSON_AddStringToObject (reply->body, "reason",
                                 "the master does not know this worker");
        master_send (m, rid, reply);
    }
    return NULL;
}

void
master_driver_state_changed (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    reg_worker_t *w = s_sender_worker (m, rid);
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
                              const char *driver_id)
{
    reg_driver_t *d = driver_id ? registry_driver (m->reg, driver_id) : NULL;
    if (!d || registry_driver_final (d->state))
        return;
    log_info ("application %s is driver %s's", app->id, d->id);
    registry_driver_set_app (m->reg, d, app->id);
}

void
master_driver_changed (master_t *m, reg_driver_t *d)
{
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
            log_info ("application %s %s: %s", app->id,
                      hearth_app_states[state], reason);
            registry_app_end (m->reg, app, state, reason, master_kill_executor,
                              m);
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
            zlistx_add_end (lost, d);
    for (reg_driver_t *d = lost ? zlistx_first (lost) : NULL; d;
         d = zlistx_next (lost))
        if (d->worker == w)
            s_lost (m, d, "not reported by its worker");
    zlistx_destroy (&lost);
}

/* --- requests from hearth-submit --------------------------------------- */

static void
s_response (master_t *m, zframe_t *rid, hearth_cmd_t cmd, bool ok,
            const char *driver_id, const char *text)
{
    hearth_msg_t *reply = hearth_msg_new (cmd);
    if (!reply)
        return;
    cJSON_AddBoolToObject (reply->body, "ok", ok);
    if (driver_id)
        cJSON_AddStringToObject (reply->body, "driver_id", driver_id);
    if (text)
        cJSON_AddStringToObject (reply->body, "message", text);
    master_send (m, rid, reply);
}

/* The files' names are unique and app is one of them; their frames add
   up to at most the limit.  Returns 0, or -1 with text filled. */
static int
s_check_submission (master_t *m, hearth_msg_t *msg, char *text, size_t size)
{
    const cJSON *files = cJSON_GetObjectItem (msg->body, "files");
    const char *app = hearth_json_str (msg->body, "app");
    bool found = false;
    const cJSON *f, *g;
    cJSON_ArrayForEach (f, files)
    {
        const char *name = hearth_json_str (f, "name");
        found |= strcmp (name, app) == 0;
        if (strcmp (name, "stdout") == 0 || strcmp (name, "stderr") == 0) {
            snprintf (text, size,
                      "the file name '%s' is reserved for the driver's "
                      "output: rename the file",
                      name);
            return -1;
        }
        for (g = f->next; g; g = g->next)
            if (strcmp (name, hearth_json_str (g, "name")) == 0) {
                snprintf (text, size, "the file name '%s' is given twice",
                          name);
                return -1;
            }
    }
    if (!found) {
        snprintf (text, size, "the application '%s' is not one of the files",
                  app);
        return -1;
    }
    uint64_t bytes = 0;
    for (size_t i = 0; i < msg->nframes; i++)
        bytes += zframe_size (msg->frames[i]);
    if (bytes > (uint64_t) m->max_submit_bytes) {
        snprintf (text, size,
                  "the application's files are %" PRIu64
                  " bytes, more than this master accepts (%lld bytes, its "
                  "--max-submit-size)",
                  bytes, (long long) m->max_submit_bytes);
        return -1;
    }
    return 0;
}

void
master_submit_driver (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    char text[512];
    if (s_check_submission (m, msg, text, sizeof text) < 0) {
        log_warn ("SUBMIT_DRIVER refused: %s", text);
        s_response (m, rid, HEARTH_CMD_SUBMIT_DRIVER_RESPONSE, false, NULL,
                    text);
        return;
    }
    cJSON *spec = cJSON_CreateObject ();
    if (spec) {
        s_copy_member (spec, b, "args");
        s_copy_member (spec, b, "files");
        s_copy_member (spec, b, "env");
        s_copy_member (spec, b, "conf");
    }
    registry_driver_desc_t desc = {
        .name = hearth_json_str (b, "name"),
        .app = hearth_json_str (b, "app"),
        .binary = strcmp (hearth_json_str (b, "kind"), "binary") == 0,
        .spec = spec,
        .frames = msg->frames,
        .nframes = msg->nframes,
        .cores = (int) hearth_json_int (b, "cores", s_default_driver_cores),
        .memory_mb =
            hearth_json_int (b, "memory_mb", s_default_driver_memory_mb),
        .supervise = hearth_json_bool (b, "supervise", false)};
    reg_driver_t *d = spec ? registry_driver_submit (m->reg, &desc) : NULL;
    cJSON_Delete (spec);
    if (!d) {
        s_response (m, rid, HEARTH_CMD_SUBMIT_DRIVER_RESPONSE, false, NULL,
                    "master out of memory");
        return;
    }
    log_info ("driver %s submitted: %s %s, %d cores, %lld MiB%s, %zu bytes",
              d->id, d->binary ? "program" : "job file", d->app, d->cores,
              (long long) d->memory_mb, d->supervise ? ", supervised" : "",
              d->bytes);
    s_response (m, rid, HEARTH_CMD_SUBMIT_DRIVER_RESPONSE, true, d->id,
                "submitted");
}

void
master_driver_status (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const char *id = hearth_json_str (msg->body, "driver_id");
    reg_driver_t *d = registry_driver (m->reg, id);
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_DRIVER_STATUS_RESPONSE);
    if (!reply)
        return;
    cJSON *b = reply->body;
    cJSON_AddBoolToObject (b, "found", d != NULL);
    cJSON_AddStringToObject (b, "driver_id", id);
    if (!d) {
        cJSON_AddStringToObject (b, "message",
                                 "no such driver (never submitted here, or "
                                 "forgotten)");
        master_send (m, rid, reply);
        return;
    }
    cJSON_AddStringToObject (b, "state", hearth_driver_states[d->state]);
    if (d->worker_id[0])
        cJSON_AddStringToObject (b, "worker_id", d->worker_id);
    if (d->worker_host)
        cJSON_AddStringToObject (b, "worker_host", d->worker_host);
    if (d->worker_dir)
        cJSON_AddStringToObject (b, "work_dir", d->worker_dir);
    if (d->app_id[0])
        cJSON_AddStringToObject (b, "app_id", d->app_id);
    if (d->error)
        cJSON_AddStringToObject (b, "error", d->error);
    if (d->exit_status >= 0)
        cJSON_AddNumberToObject (b, "exit_status", d->exit_status);
    cJSON_AddNumberToObject (b, "launches", d->launches);
    cJSON_AddBoolToObject (b, "supervise", d->supervise);
    if (!d->worker && !registry_driver_final (d->state)) {
        char text[200];
        snprintf (text, sizeof text,
                  "waiting for a worker with %d free cores and %lld MiB of "
                  "free memory",
                  d->cores, (long long) d->memory_mb);
        cJSON_AddStringToObject (b, "message", text);
    }
    master_send (m, rid, reply);
}

void
master_kill_driver (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const char *id = hearth_json_str (msg->body, "driver_id");
    reg_driver_t *d = registry_driver (m->reg, id);
    char text[300];
    if (!d || registry_driver_final (d->state)) {
        snprintf (text, sizeof text, "%s%s",
                  d ? "the driver has already ended: " : "no such driver",
                  d ? hearth_driver_states[d->state] : "");
        s_response (m, rid, HEARTH_CMD_KILL_DRIVER_RESPONSE, false, id, text);
        return;
    }
    master_driver_kill (m, d, text, sizeof text);
    s_response (m, rid, HEARTH_CMD_KILL_DRIVER_RESPONSE, true, id, text);
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

/* --- DRIVER_LOG, relayed ----------------------------------------------- */

static void
s_log_refuse (master_t *m, zframe_t *rid, const cJSON *request,
              const char *driver_id, const char *text)
{
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_DRIVER_LOG_RESPONSE);
    if (!reply)
        return;
    cJSON_AddBoolToObject (reply->body, "ok", false);
    if (driver_id)
        cJSON_AddStringToObject (reply->body, "driver_id", driver_id);
    int64_t request_id = hearth_json_int (request, "request_id", -1);
    if (request_id >= 0)
        cJSON_AddNumberToObject (reply->body, "request_id",
                                 (double) request_id);
    cJSON_AddStringToObject (reply->body, "message", text);
    master_send (m, rid, reply);
}

/* Can d's log be asked of w?  Returns 0, or -1 with text filled. */
static int
s_log_check (master_t *m, const reg_driver_t *d, const reg_worker_t *w,
             char *text, size_t size)
{
    if (!d)
        snprintf (text, size, "no such driver");
    else if (!d->worker_id[0])
        snprintf (text, size,
                  "the driver has not been launched yet: no output");
    else if (!w || w->state != WORKER_ALIVE)
        snprintf (text, size,
                  "the driver's worker %s is %s: its output stays in %s on "
                  "%s",
                  d->worker_id, w ? hearth_worker_states[w->state] : "gone",
                  d->worker_dir ? d->worker_dir : "its work directory",
                  d->worker_host ? d->worker_host : "that host");
    else if (zhashx_size (m->log_requests) >= s_max_log_requests)
        snprintf (text, size, "too many log requests in flight: try again");
    else
        return 0;
    return -1;
}

void
master_driver_log (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    const char *id = hearth_json_str (b, "driver_id");
    reg_driver_t *d = registry_driver (m->reg, id);
    reg_worker_t *w = !d                ? NULL
                      : d->worker       ? d->worker
                      : d->worker_id[0] ? registry_worker (m->reg, d->worker_id)
                                        : NULL;
    char text[600];
    if (s_log_check (m, d, w, text, sizeof text) < 0) {
        s_log_refuse (m, rid, b, id, text);
        return;
    }
    s_log_request_t *r = calloc (1, sizeof *r);
    hearth_msg_t *ask = hearth_msg_new (HEARTH_CMD_DRIVER_LOG);
    if (!r || !ask || !(r->client = zframe_dup (rid))) {
        free (r);
        hearth_msg_destroy (&ask);
        s_log_refuse (m, rid, b, id, "master out of memory");
        return;
    }
    r->client_request_id = hearth_json_int (b, "request_id", -1);
    snprintf (r->driver_id, sizeof r->driver_id, "%s", id);
    r->deadline_ms = hearth_mono_ms () + s_log_timeout_ms;
    char key[32];
    uint64_t request_id = m->next_log_request++;
    snprintf (key, sizeof key, "%" PRIu64, request_id);
    zhashx_update (m->log_requests, key, r);
    s_copy_member (ask->body, b, "driver_id");
    s_copy_member (ask->body, b, "stream");
    s_copy_member (ask->body, b, "offset");
    s_copy_member (ask->body, b, "max_bytes");
    cJSON_AddNumberToObject (ask->body, "request_id", (double) request_id);
    master_send (m, w->routing_id, ask);
}

void
master_driver_log_response (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    if (!s_sender_worker (m, rid))
        return;
    char key[32];
    snprintf (key, sizeof key, "%lld",
              (long long) hearth_json_int (b, "request_id", -1));
    s_log_request_t *r = zhashx_lookup (m->log_requests, key);
    if (!r) {
        log_debug ("late DRIVER_LOG_RESPONSE %s ignored", key);
        return;
    }
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_DRIVER_LOG_RESPONSE);
    if (reply) {
        cJSON *o = reply->body;
        static const char *const copied[] = {
            "ok", "driver_id", "stream", "offset", "size", "eof", "message"};
        for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++)
            s_copy_member (o, b, copied[i]);
        if (r->client_request_id >= 0)
            cJSON_AddNumberToObject (o, "request_id",
                                     (double) r->client_request_id);
        zframe_t *data =
            hearth_msg_frame (msg, hearth_json_int (b, "data", -1));
        zframe_t *copy = data ? zframe_dup (data) : NULL;
        int index = copy ? hearth_msg_add_frame (reply, &copy) : -1;
        if (index >= 0)
            cJSON_AddNumberToObject (o, "data", index);
        master_send (m, r->client, reply);
    }
    zhashx_delete (m->log_requests, key);
}

void
master_drivers_tick (master_t *m, int64_t now)
{
    zlistx_t *expired = zlistx_new ();
    if (!expired)
        return;
    for (s_log_request_t *r = zhashx_first (m->log_requests); r;
         r = zhashx_next (m->log_requests))
        if (now >= r->deadline_ms)
            zlistx_add_end (expired, (void *) zhashx_cursor (m->log_requests));
    for (const char *key = zlistx_first (expired); key;
         key = zlistx_next (expired)) {
        s_log_request_t *r = zhashx_lookup (m->log_requests, key);
        cJSON *request = cJSON_CreateObject ();
        if (r->client_request_id >= 0)
            cJSON_AddNumberToObject (request, "request_id",
                                     (double) r->client_request_id);
        s_log_refuse (m, r->client, request, r->driver_id,
                      "the driver's worker did not answer in time");
        cJSON_Delete (request);
        zhashx_delete (m->log_requests, key);
    }
    zlistx_destroy (&expired);
    master_drivers_settle (m);
}

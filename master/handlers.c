/*  handlers.c - hearth-master's answer to each command on its ROUTER, as a
    table of {command, handler} rows.  Messages arrive decoded and checked
    against their schema (proto.h), so handlers read fields without
    re-checking types; what they check is meaning: unknown ids, senders
    that are not who they claim, states that do not allow the request. */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "master/master.h"

/* Errors from one peer are logged at most once per this period. */
static const int64_t s_error_log_period_ms = 60000;
/* Peers remembered for that; past it the memory is cleared. */
static const size_t s_error_log_peers_max = 10000;
/* Default memory of an executor when the application does not say. */
static const int64_t s_default_executor_memory_mb = 1024;

typedef void (s_handler_fn) (master_t *m, zframe_t *rid, hearth_msg_t *msg);

static void
s_peer_text (zframe_t *rid, char *buf, size_t size)
{
    char *hex = zframe_strhex (rid);
    snprintf (buf, size, "%s", hex ? hex : "?");
    free (hex);
}

void
master_reject (master_t *m, zframe_t *rid, const char *code, const char *text,
               const char *command)
{
    char peer[64];
    s_peer_text (rid, peer, sizeof peer);
    int64_t now = hearth_mono_ms ();
    int64_t *last = zhashx_lookup (m->log_limit, peer);
    if (!last || now - *last >= s_error_log_period_ms) {
        log_warn ("peer %s: %s%s%s (dropped; further errors from this peer "
                  "are not logged for a minute)",
                  peer, command ? command : "", command ? ": " : "", text);
        if (zhashx_size (m->log_limit) >= s_error_log_peers_max)
            zhashx_purge (m->log_limit);
        int64_t *stamp = malloc (sizeof *stamp);
        if (stamp) {
            *stamp = now;
            zhashx_update (m->log_limit, peer, stamp);
        }
    }
    hearth_send_error (m->router, rid, code, text, command);
}

/* --- workers ----------------------------------------------------------- */

static void
s_reply_reason (master_t *m, zframe_t *rid, hearth_cmd_t cmd,
                const char *reason)
{
    hearth_msg_t *reply = hearth_msg_new (cmd);
    if (!reply)
        return;
    cJSON_AddStringToObject (reply->body, "reason", reason);
    master_send (m, rid, reply);
}

/* The executor w reports under app_id/exec_id, or NULL. */
static const cJSON *
s_reported (const cJSON *reported, const reg_exec_t *e)
{
    const cJSON *r;
    cJSON_ArrayForEach (r, reported)
    {
        if (hearth_json_int (r, "exec_id", -1) == e->exec_id
            && strcmp (hearth_json_str (r, "app_id"), e->app->id) == 0)
            return r;
    }
    return NULL;
}

/* After a re-registration: what the master placed on w but the worker no
   longer reports is LOST; what it reports, the master keeps (re-adopts,
   after a restart), RUNNING with its pid.  restored: w was UNKNOWN (the
   master restarted), counted for the recovery's report. */
static void
s_reconcile (master_t *m, reg_worker_t *w, const cJSON *reported, bool restored)
{
    zlistx_t *lost = zlistx_new ();
    zlistx_t *running = zlistx_new ();
    if (!lost || !running) {
        zlistx_destroy (&lost);
        zlistx_destroy (&running);
        return;
    }
    for (reg_exec_t *e = zlistx_first (w->executors); e;
         e = zlistx_next (w->executors)) {
        const cJSON *r = s_reported (reported, e);
        if (!r)
            zlistx_add_end (lost, e);
        else {
            e->pid = (int) hearth_json_int (r, "pid", e->pid);
            if (e->state != EXEC_RUNNING)
                zlistx_add_end (running, e);
        }
    }
    if (restored) {
        m->rec.execs_adopted += zlistx_size (w->executors) - zlistx_size (lost);
        m->rec.execs_lost += zlistx_size (lost);
    }
    for (reg_exec_t *e = zlistx_first (running); e; e = zlistx_next (running))
        registry_exec_set_state (m->reg, e, EXEC_RUNNING,
                                 "reported by its worker", -1, false);
    for (reg_exec_t *e = zlistx_first (lost); e; e = zlistx_next (lost))
        registry_exec_set_state (m->reg, e, EXEC_LOST,
                                 "not reported by its worker", -1, true);
    zlistx_destroy (&lost);
    zlistx_destroy (&running);
}

/* Cores and memory of the executors a worker lists that the master's
   books do not have on it; executors of applications the master does not
   know are noted as orphans.  On registration (kill_ended), those of
   applications the master knows have ended are killed: they ended while
   the worker could not be told (the master restarted, or the worker was
   cut off). */
static void
s_foreign_usage (master_t *m, reg_worker_t *w, const cJSON *executors,
                 bool kill_ended, int *cores, int64_t *memory)
{
    const cJSON *e;
    *cores = 0;
    *memory = 0;
    cJSON_ArrayForEach (e, executors)
    {
        const char *app_id = hearth_json_str (e, "app_id");
        int exec_id = (int) hearth_json_int (e, "exec_id", 0);
        reg_exec_t *known = registry_exec (m->reg, app_id, exec_id);
        if (known && known->worker == w)
            continue;
        *cores += (int) hearth_json_int (e, "cores", 0);
        *memory += hearth_json_int (e, "memory_mb", 0);
        registry_note_orphan (m->reg, app_id, exec_id);
        reg_app_t *app = registry_app (m->reg, app_id);
        if (kill_ended && app && app->state > APP_RUNNING)
            master_send_kill (m, w, app_id, exec_id,
                              "its application has ended");
    }
}

/* A worker registering under a new id with the work dir of another live
   one replaced it: a worker holds its work dir's lock while it runs and
   kills what an earlier one left there, so the earlier one is gone, with
   its executors.  Say so now rather than after liveness x interval.  The
   work dir is told by work_dir_id (the machine's boot and the lock file's
   device and inode), not by host and path: two workers on one host may
   use the same path in different mount namespaces. */
static void
s_replaced (master_t *m, const char *id, const char *work_dir_id)
{
    if (!work_dir_id || !work_dir_id[0])
        return;
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); w; w = zlistx_next (workers))
        if (w->state == WORKER_ALIVE && strcmp (w->id, id) != 0
            && w->work_dir_id && strcmp (w->work_dir_id, work_dir_id) == 0) {
            char reason[HEARTH_ID_MAX + 64];
            snprintf (reason, sizeof reason, "replaced by worker %s", id);
            log_warn ("worker %s (%s) is DEAD: %s in %s", w->id, w->host,
                      reason, w->work_dir ? w->work_dir : "its work dir");
            registry_worker_dead (m->reg, w, reason, hearth_mono_ms ());
            return; /* only one can have held the lock */
        }
}

static void
s_register_worker (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    const char *id = hearth_json_str (b, "id");
    const char *host = hearth_json_str (b, "host");
    reg_worker_t *old = registry_worker (m->reg, id);
    bool restored = old && old->state == WORKER_UNKNOWN;
    if (old && old->state == WORKER_ALIVE && strcmp (old->host, host) != 0) {
        log_warn ("worker %s at %s refused: id in use by a live worker at %s",
                  id, host, old->host);
        s_reply_reason (m, rid, HEARTH_CMD_REGISTER_WORKER_FAILED,
                        "duplicate worker id");
        return;
    }
    s_replaced (m, id, hearth_json_str (b, "work_dir_id"));
    registry_worker_desc_t desc = {id,
                                   host,
                                   hearth_json_str (b, "version"),
                                   hearth_json_str (b, "work_dir"),
                                   (int) hearth_json_int (b, "cores", 1),
                                   hearth_json_int (b, "memory_mb", 1),
                                   rid,
                                   hearth_json_str (b, "work_dir_id")};
    reg_worker_t *w =
        registry_worker_register (m->reg, &desc, hearth_mono_ms ());
    if (!w) {
        s_reply_reason (m, rid, HEARTH_CMD_REGISTER_WORKER_FAILED,
                        "master out of memory");
        return;
    }
    const cJSON *execs = cJSON_GetObjectItem (b, "executors");
    const cJSON *drivers = cJSON_GetObjectItem (b, "drivers");
    int cores;
    int64_t memory;
    m->rec.workers_back += restored;
    s_reconcile (m, w, execs, restored);
    master_drivers_reconcile (m, w, drivers);
    s_foreign_usage (m, w, execs, true, &cores, &memory);
    master_drivers_foreign (m, w, drivers, &cores, &memory);
    registry_worker_report (m->reg, w, cores, memory);
    log_info ("worker %s registered%s: %s, %d cores, %lld MiB", w->id,
              restored ? " again after the master's restart"
              : old    ? " again"
                       : "",
              w->host, w->cores, (long long) w->memory_mb);
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_REGISTERED_WORKER);
    if (!reply)
        return;
    cJSON_AddNumberToObject (reply->body, "heartbeat_interval_ms",
                             (double) m->interval_ms);
    cJSON_AddNumberToObject (reply->body, "heartbeat_liveness",
                             (double) m->liveness);
    cJSON_AddStringToObject (reply->body, "master_url", m->url);
    master_send (m, rid, reply);
    m->dirty = true;
}

static void
s_worker_heartbeat (master_t *m, zframe_t *rid, const cJSON *b)
{
    const char *id = hearth_json_str (b, "id");
    reg_worker_t *w = registry_worker (m->reg, id);
    if (!w || w->state != WORKER_ALIVE || !zframe_eq (w->routing_id, rid)) {
        log_info ("heartbeat from unknown worker %s: asking it to register",
                  id);
        s_reply_reason (m, rid, HEARTH_CMD_RECONNECT_WORKER,
                        !w ? "the master does not know this worker"
                        : w->state == WORKER_UNKNOWN
                            ? "the master restarted: register again"
                        : w->state == WORKER_DEAD
                            ? "the master timed this worker out"
                            : "a new connection: register again");
        return;
    }
    /* By id too: one connection may carry many workers (load tests). */
    registry_touch_worker (m->reg, w, hearth_mono_ms ());
    /* Without a list, what it uses beyond the master's books is foreign. */
    const cJSON *execs = cJSON_GetObjectItem (b, "executors");
    int cores = (int) hearth_json_int (b, "cores_used", 0) - w->cores_used;
    int64_t memory =
        hearth_json_int (b, "memory_used_mb", 0) - w->memory_used_mb;
    if (execs)
        s_foreign_usage (m, w, execs, false, &cores, &memory);
    if (execs)
        master_drivers_foreign (m, w, cJSON_GetObjectItem (b, "drivers"),
                                &cores, &memory);
    if (registry_worker_report (m->reg, w, cores > 0 ? cores : 0,
                                memory > 0 ? memory : 0))
        m->dirty = true;
    int64_t now = registry_wall_ms ();
    cJSON *e = cJSON_CreateObject ();
    cJSON_AddStringToObject (e, "event", "heartbeat");
    cJSON_AddStringToObject (e, "kind", "worker");
    cJSON_AddNumberToObject (e, "time_ms", (double) now);
    cJSON_AddItemToObject (e, "worker", registry_worker_json (w, now));
    master_publish (m, "heartbeat", e);
}

static void
s_app_heartbeat (master_t *m, zframe_t *rid, const char *id)
{
    reg_app_t *app = registry_app (m->reg, id);
    if (!app || app->state > APP_RUNNING || app->recovering) {
        log_info ("heartbeat from %s application %s: asking it to register",
                  app && app->recovering ? "recovering" : "unknown", id);
        s_reply_reason (m, rid, HEARTH_CMD_RECONNECT_APPLICATION,
                        !app ? "the master does not know this application"
                        : app->recovering
                            ? "the master restarted: register again"
                            : "the application has ended");
        return;
    }
    registry_touch_app (m->reg, app, hearth_mono_ms ());
    cJSON *e = cJSON_CreateObject ();
    cJSON_AddStringToObject (e, "event", "heartbeat");
    cJSON_AddStringToObject (e, "kind", "driver");
    cJSON_AddStringToObject (e, "app_id", app->id);
    cJSON_AddNumberToObject (e, "time_ms", (double) registry_wall_ms ());
    master_publish (m, "heartbeat", e);
}

static void
s_heartbeat (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const char *id = hearth_json_str (msg->body, "id");
    if (id && hearth_id_valid (HEARTH_ID_WORKER, id))
        s_worker_heartbeat (m, rid, msg->body);
    else if (id && hearth_id_valid (HEARTH_ID_APP, id))
        s_app_heartbeat (m, rid, id);
    else
        master_reject (m, rid, "bad_field",
                       "HEARTBEAT needs the id of a worker or an application",
                       "HEARTBEAT");
}

static int
s_exec_state (const char *name)
{
    for (int i = 0; hearth_executor_states[i]; i++)
        if (strcmp (hearth_executor_states[i], name) == 0)
            return i;
    return -1;
}

static void
s_executor_state_changed (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    const char *app_id = hearth_json_str (b, "app_id");
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    void *record;
    if (registry_peer (m->reg, rid, &record) != PEER_WORKER
        || ((reg_worker_t *) record)->state != WORKER_ALIVE) {
        s_reply_reason (m, rid, HEARTH_CMD_RECONNECT_WORKER,
                        "the master does not know this worker");
        return;
    }
    reg_exec_t *exec = registry_exec (m->reg, app_id, exec_id);
    if (!exec || !zframe_eq (exec->worker->routing_id, rid)) {
        log_debug ("state of unknown executor %s/%d ignored", app_id, exec_id);
        return;
    }
    int state = s_exec_state (hearth_json_str (b, "state"));
    if (state < 0 || (int) exec->state == state)
        return;
    reg_app_t *app = exec->app;
    int exit_status = (int) hearth_json_int (b, "exit_status", -1);
    exec->pid = (int) hearth_json_int (b, "pid", exec->pid);
    log_info ("executor %s/%d on %s: %s%s%s", app_id, exec_id, exec->worker->id,
              hearth_executor_states[state],
              hearth_json_str (b, "message") ? ", " : "",
              hearth_json_str (b, "message") ? hearth_json_str (b, "message")
                                             : "");
    registry_exec_set_state (m->reg, exec, state,
                             hearth_json_str (b, "message"), exit_status,
                             false);
    if (registry_exec_final (state) && m->max_executor_retries >= 0
        && app->retries >= m->max_executor_retries) {
        bool running = false;
        for (reg_exec_t *e = zhashx_first (app->executors); e;
             e = zhashx_next (app->executors))
            running |= e->state == EXEC_RUNNING;
        if (!running) {
            log_warn ("application %s failed: %d executor failures in a row",
                      app->id, app->retries);
            registry_app_end (m->reg, app, APP_FAILED,
                              "too many executor failures",
                              master_kill_executor, m);
        }
    }
}

/* --- applications ------------------------------------------------------ */

static int
s_first_exec_id (const cJSON *executors)
{
    int next = 0;
    const cJSON *e;
    cJSON_ArrayForEach (e, executors)
    {
        int id = (int) hearth_json_int (e, "exec_id", -1);
        if (id >= next)
            next = id + 1;
    }
    return next;
}

static void
s_reply_registered_app (master_t *m, zframe_t *rid, reg_app_t *app)
{
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_REGISTERED_APPLICATION);
    if (!reply)
        return;
    cJSON_AddStringToObject (reply->body, "app_id", app->id);
    cJSON_AddNumberToObject (reply->body, "heartbeat_interval_ms",
                             (double) m->interval_ms);
    cJSON_AddNumberToObject (reply->body, "heartbeat_liveness",
                             (double) m->liveness);
    master_send (m, rid, reply);
}

/* The driver of a live application registers again under its id (after
   a master restart, or on a fresh socket after it found the master
   silent): the same driver if it names the same driver_url and token. */
static bool
s_same_driver (const reg_app_t *app, const cJSON *b)
{
    const char *token = hearth_json_str (b, "token");
    return app->state <= APP_RUNNING
           && strcmp (app->driver_url, hearth_json_str (b, "driver_url")) == 0
           && (!app->token
               || (token && hearth_keys_token_eq (app->token, token)));
}

static void
s_adopt_application (master_t *m, zframe_t *rid, reg_app_t *app, const cJSON *b)
{
    bool restored = app->recovering;
    registry_app_adopt (m->reg, app, rid,
                        s_first_exec_id (cJSON_GetObjectItem (b, "executors")),
                        hearth_mono_ms ());
    m->rec.apps_back += restored;
    log_info ("application %s (%s): its driver is back%s", app->id, app->name,
              restored ? " after the master's restart" : " on a new socket");
    master_driver_app_registered (m, app, hearth_json_str (b, "driver_id"));
    s_reply_registered_app (m, rid, app);
    m->dirty = true;
}

static void
s_register_application (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    const char *wanted = hearth_json_str (b, "app_id");
    reg_app_t *known = wanted ? registry_app (m->reg, wanted) : NULL;
    if (known && s_same_driver (known, b)) {
        s_adopt_application (m, rid, known, b);
        return;
    }
    if (known) {
        char text[200];
        snprintf (text, sizeof text,
                  "application %s is %s: register without an app_id", known->id,
                  hearth_app_states[known->state]);
        master_reject (m, rid, "duplicate_app", text, "REGISTER_APPLICATION");
        return;
    }
    const cJSON *conf = cJSON_GetObjectItem (b, "conf");
    registry_app_desc_t desc = {
        .id = wanted,
        .name = hearth_json_str (b, "name"),
        .driver_url = hearth_json_str (b, "driver_url"),
        .token = hearth_json_str (b, "token"),
        .driver_key = hearth_json_str (b, "driver_key"),
        .user = hearth_json_str (b, "user"),
        .conf = cJSON_IsObject (conf) ? conf : NULL,
        .max_cores = (int) hearth_json_int (b, "max_cores", 0),
        .cores_per_executor =
            (int) hearth_json_int (b, "cores_per_executor", 0),
        .memory_per_executor_mb = hearth_json_int (
            b, "memory_per_executor_mb", s_default_executor_memory_mb),
        .first_exec_id = s_first_exec_id (cJSON_GetObjectItem (b, "executors")),
        /* A driver back under its own id (after a master restart): give
           the workers that run its executors time to register again and
           report their exec ids before placing new ones. */
        .hold_until_ms =
            wanted ? hearth_mono_ms () + m->interval_ms * m->liveness : 0,
        .routing_id = rid};
    reg_app_t *app = registry_app_register (m->reg, &desc, hearth_mono_ms ());
    if (!app) {
        master_reject (m, rid, "no_memory", "master out of memory", NULL);
        return;
    }
    log_info ("application %s (%s) registered by %s", app->id, app->name,
              app->driver_url);
    master_driver_app_registered (m, app, hearth_json_str (b, "driver_id"));
    s_reply_registered_app (m, rid, app);
    m->dirty = true;
}

static int
s_app_state (const char *name, int dflt)
{
    for (int i = 0; name && hearth_app_states[i]; i++)
        if (strcmp (hearth_app_states[i], name) == 0)
            return i;
    return dflt;
}

static void
s_unregister_application (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    (void) rid;
    const char *id = hearth_json_str (msg->body, "app_id");
    reg_app_t *app = registry_app (m->reg, id);
    if (!app || app->state > APP_RUNNING)
        return;
    int state =
        s_app_state (hearth_json_str (msg->body, "state"), APP_FINISHED);
    if (state <= APP_RUNNING)
        state = APP_FINISHED;
    const char *message = hearth_json_str (msg->body, "message");
    log_info ("application %s unregistered: %s", id, hearth_app_states[state]);
    registry_app_end (m->reg, app, state,
                      message ? message : "unregistered by its driver",
                      master_kill_executor, m);
}

static void
s_kill_application (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const char *id = hearth_json_str (msg->body, "app_id");
    reg_app_t *app = registry_app (m->reg, id);
    bool ok = app && app->state <= APP_RUNNING;
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_KILL_APPLICATION_RESPONSE);
    if (reply) {
        cJSON_AddBoolToObject (reply->body, "ok", ok);
        cJSON_AddStringToObject (reply->body, "app_id", id);
        cJSON_AddStringToObject (reply->body, "message",
                                 ok    ? "application killed"
                                 : app ? "application already ended"
                                       : "no such application");
        master_send (m, rid, reply);
    }
    if (!ok)
        return;
    log_info ("application %s killed on request", id);
    /* A cluster-mode driver's application: the driver goes too, and a
       supervised one is not relaunched (as with --kill DRIVER_ID). */
    reg_driver_t *d = master_driver_of_app (m, id);
    char text[300];
    if (d)
        master_driver_kill (m, d, text, sizeof text);
    else
        registry_app_end (m->reg, app, APP_KILLED, "killed by request",
                          master_kill_executor, m);
}

/* A driver gave up on one of its executors (silent: hung, or cut off
   from it): the worker kills it, and its cores come back for another. */
static void
s_kill_executor (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    const char *app_id = hearth_json_str (msg->body, "app_id");
    int exec_id = (int) hearth_json_int (msg->body, "exec_id", -1);
    void *record;
    if (registry_peer (m->reg, rid, &record) != PEER_APP
        || strcmp (((reg_app_t *) record)->id, app_id) != 0) {
        master_reject (m, rid, "not_allowed",
                       "only the application's driver may kill its executors",
                       "KILL_EXECUTOR");
        return;
    }
    reg_exec_t *exec = registry_exec (m->reg, app_id, exec_id);
    if (!exec || exec->worker->state != WORKER_ALIVE)
        return;
    const char *reason = hearth_json_str (msg->body, "reason");
    log_info ("executor %s/%d on %s: its driver asks to kill it (%s)", app_id,
              exec_id, exec->worker->id, reason ? reason : "no reason given");
    master_send_kill (m, exec->worker, app_id, exec_id,
                      reason ? reason : "its driver gave up on it");
}

/* --- clients and the rest ---------------------------------------------- */

static void
s_master_state (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    (void) msg;
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_MASTER_STATE_RESPONSE);
    cJSON *body = master_state_json (m);
    if (!reply || !body) {
        hearth_msg_destroy (&reply);
        cJSON_Delete (body);
        return;
    }
    cJSON_Delete (reply->body);
    reply->body = body;
    master_send (m, rid, reply);
    /* The answer's JSON tree (about 1 KiB per worker) is free again: give
       its pages back, or the master keeps megabytes it rarely needs
       (bench-master: RSS per worker 1.9 KiB before the first MASTER_STATE
       at 10,000 workers, 3.6 KiB after, without this). */
    malloc_trim (0);
}

static void
s_peer_error (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    char peer[64];
    (void) m;
    s_peer_text (rid, peer, sizeof peer);
    log_warn ("peer %s reports an error: %s: %s", peer,
              hearth_json_str (msg->body, "code"),
              hearth_json_str (msg->body, "message"));
}

static const struct {
    hearth_cmd_t cmd;      /* what arrived */
    s_handler_fn *handler; /* what to do */
} s_handlers[] = {
    {HEARTH_CMD_HEARTBEAT, s_heartbeat},
    {HEARTH_CMD_REGISTER_WORKER, s_register_worker},
    {HEARTH_CMD_EXECUTOR_STATE_CHANGED, s_executor_state_changed},
    {HEARTH_CMD_REGISTER_APPLICATION, s_register_application},
    {HEARTH_CMD_UNREGISTER_APPLICATION, s_unregister_application},
    {HEARTH_CMD_KILL_APPLICATION, s_kill_application},
    {HEARTH_CMD_KILL_EXECUTOR, s_kill_executor},
    {HEARTH_CMD_MASTER_STATE, s_master_state},
    {HEARTH_CMD_SUBMIT_DRIVER, master_submit_driver},
    {HEARTH_CMD_DRIVER_STATUS, master_driver_status},
    {HEARTH_CMD_KILL_DRIVER, master_kill_driver},
    {HEARTH_CMD_DRIVER_LOG, master_driver_log},
    {HEARTH_CMD_DRIVER_LOG_RESPONSE, master_driver_log_response},
    {HEARTH_CMD_DRIVER_STATE_CHANGED, master_driver_state_changed},
    {HEARTH_CMD_ERROR, s_peer_error},
};

/* Any message from a known peer is a sign of life. */
static void
s_sign_of_life (master_t *m, zframe_t *rid)
{
    void *record;
    switch (registry_peer (m->reg, rid, &record)) {
    case PEER_WORKER:
        registry_touch_worker (m->reg, record, hearth_mono_ms ());
        break;
    case PEER_APP:
        registry_touch_app (m->reg, record, hearth_mono_ms ());
        break;
    default:
        break;
    }
}

void
master_dispatch (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    s_sign_of_life (m, rid);
    for (size_t i = 0; i < sizeof s_handlers / sizeof s_handlers[0]; i++)
        if (s_handlers[i].cmd == msg->cmd) {
            s_handlers[i].handler (m, rid, msg);
            return;
        }
    char text[128];
    snprintf (text, sizeof text, "the master does not accept %s",
              hearth_cmd_name (msg->cmd));
    master_reject (m, rid, "unexpected_command", text,
                   hearth_cmd_name (msg->cmd));
}

/*  handlers.c - hearth-master's answer to each command on its ROUTER, as a
    table of {command, handler} rows, and the handlers of what drivers
    (applications) send it; those of workers are workers.c's, of
    cluster-mode drivers drivers.c's, drvsubmit.c's and drvlog.c's, of
    MASTER_STATE state.c's, of DRAIN_WORKER and RESUME_WORKER admin.c's.
    Messages arrive decoded and checked against
    their schema (proto.h), so handlers read fields without re-checking
    types; what they check is meaning: unknown ids, senders that are not
    who they claim, states that do not allow the request. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/ctlchars.h"
#include "libcore/labels.h"
#include "libcore/log.h"
#include "libcore/zap.h"
#include "master/admin.h"
#include "master/authz.h"
#include "master/claims.h"
#include "master/drivers.h"
#include "master/drvlog.h"
#include "master/drvsubmit.h"
#include "master/handlers.h"
#include "master/regdrivers.h"
#include "master/replicate.h"
#include "master/resume.h"
#include "master/send.h"
#include "master/state.h"
#include "master/workers.h"

/* Default memory of an executor when the application does not say. */
static const int64_t s_default_executor_memory_mb = 1024;

/* --- heartbeats -------------------------------------------------------- */

/* A driver's heartbeat keeps its application alive only from the
   application's own link: from any other (a driver on a fresh socket
   that has not registered on it yet, or a stranger naming the
   application) it is asked to register, as after a restart. */
static void
s_app_heartbeat (master_t *m, zframe_t *rid, const char *id)
{
    reg_app_t *app = registry_app (m->reg, id);
    bool own = app && app->routing_id && zframe_eq (app->routing_id, rid);
    if (!app || app->state > APP_RUNNING || app->recovering || !own) {
        log_info ("heartbeat from %s application %s: asking it to register",
                  !app              ? "unknown"
                  : app->recovering ? "recovering"
                  : !own            ? "another link than"
                                    : "ended",
                  id);
        master_send_reason (m, rid, HEARTH_CMD_RECONNECT_APPLICATION,
                            !app ? "the master does not know this application"
                            : app->recovering
                                ? "the master restarted: register again"
                            : !own ? "register the application on this link"
                                   : "the application has ended");
        return;
    }
    registry_touch_app (m->reg, app, hearth_mono_ms ());
    if (!master_publishing (m, "heartbeat"))
        return;
    cJSON *e = cJSON_CreateObject ();
    cJSON_AddStringToObject (e, "event", "heartbeat");
    cJSON_AddStringToObject (e, "kind", "driver");
    cJSON_AddStringToObject (e, "app_id", app->id);
    cJSON_AddNumberToObject (e, "time_ms", (double) registry_wall_ms ());
    master_publish (m, "heartbeat", e);
}

static void
s_heartbeat (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "id");
    if (id && hearth_id_valid (HEARTH_ID_WORKER, id))
        master_worker_heartbeat (m, rid, msg->body);
    else if (id && hearth_id_valid (HEARTH_ID_APP, id))
        s_app_heartbeat (m, rid, id);
    else
        master_reject (m, rid, "bad_field",
                       "HEARTBEAT needs the id of a worker or an application",
                       "HEARTBEAT");
}

/* --- applications ------------------------------------------------------ */

/* How the sender of a message about app stands toward it, for
   authz.c's table (what: a buffer for its words).  Its driver is the
   application's own link, or with by_key any link of the key it
   registered with (a driver that ends its application on a fresh
   socket). */
static master_subject_t
s_app_subject (master_t *m, const hearth_from_t *from, const reg_app_t *app,
               bool by_key, char *what, size_t size)
{
    void *record;
    snprintf (what, size, "application %s", app->id);
    bool self = (registry_peer (m->reg, from->rid, &record) == PEER_APP
                 && record == app)
                || (by_key && m->curve.zap && app->curve_key[0]
                    && strcmp (app->curve_key, from->key) == 0);
    return (master_subject_t){.what = what, .owner = app->owner, .self = self};
}

/* The application msg's app_id names, when its sender may send cmd about
   it: the rows that name only the application's driver (authz.c).  NULL
   after refusing. */
static reg_app_t *
s_own_app (master_t *m, const hearth_from_t *from, hearth_msg_t *msg,
           hearth_cmd_t cmd)
{
    const char *app_id = hearth_json_str (msg->body, "app_id");
    void *record = NULL;
    bool self = registry_peer (m->reg, from->rid, &record) == PEER_APP
                && strcmp (((reg_app_t *) record)->id, app_id) == 0;
    char what[HEARTH_ID_MAX + 16];
    snprintf (what, sizeof what, "application %s", app_id);
    master_subject_t s = {.what = what, .self = self};
    return master_authorize_on (m, from, cmd, &s) ? record : NULL;
}

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
    hearth_msg_t *reply = master_registered_app (m, app);
    if (reply)
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

/* REGISTER_APPLICATION's executor_target (dynamic allocation): the
   first target, before the pass that follows; a driver back keeps the
   one the master has. */
static void
s_first_target (master_t *m, reg_app_t *app, const cJSON *b)
{
    const cJSON *t = cJSON_GetObjectItem (b, "executor_target");
    if (cJSON_IsNumber (t) && app->executor_target < 0)
        registry_app_set_target (m->reg, app, (int) t->valuedouble);
}

static void
s_adopt_application (master_t *m, const hearth_from_t *from, reg_app_t *app,
                     const cJSON *b)
{
    zframe_t *rid = from->rid;
    bool restored = app->recovering;
    s_first_target (m, app, b);
    registry_app_adopt (m->reg, app, rid,
                        s_first_exec_id (cJSON_GetObjectItem (b, "executors")),
                        hearth_mono_ms ());
    m->rec.apps_back += restored;
    log_info ("application %s (%s): its driver is back%s", app->id, app->name,
              restored ? " after the master's restart" : " on a new socket");
    master_driver_app_registered (m, app, hearth_json_str (b, "driver_id"),
                                  from->key);
    s_reply_registered_app (m, rid, app);
    m->dirty = true;
}

/* Whose a new application is: a cluster-mode driver's (driver_id, sent
   with that driver's own key) is its submitter's; any other is its
   sender's, who must hold a client key (authz.c's row).  NULL after
   refusing. */
static const char *
s_new_app_owner (master_t *m, const hearth_from_t *from, const cJSON *b)
{
    const char *driver_id = hearth_json_str (b, "driver_id");
    reg_driver_t *d = driver_id ? registry_driver (m->reg, driver_id) : NULL;
    char what[HEARTH_ID_MAX + 16];
    snprintf (what, sizeof what, "driver %s", d ? d->id : "");
    master_subject_t s = {
        .what = what, .self = d && master_sender_is_driver (m, from->key, d)};
    if (!master_authorize_on (m, from, HEARTH_CMD_REGISTER_APPLICATION, &s))
        return NULL;
    return s.self ? d->owner : from->key;
}

/* The event log's directory a driver names, if absolute (a relative one
   means nothing where the master is). */
static const char *
s_event_log (const cJSON *b)
{
    const char *dir = hearth_json_str (b, "event_log");
    if (dir && dir[0] != '/') {
        log_warn ("REGISTER_APPLICATION: event_log %.200s is not absolute: "
                  "not recorded",
                  dir);
        return NULL;
    }
    return dir;
}

/* A new application's executor_labels, or NULL after refusing it: they
   keep the label rules, and some worker the master knows (alive or not)
   carries them all, unless the application comes back under its own id
   (its workers may not be back yet).  *labels is NULL when none. */
static bool
s_executor_labels (master_t *m, zframe_t *rid, const cJSON *b, bool back,
                   const cJSON **labels)
{
    *labels = cJSON_GetObjectItem (b, "executor_labels");
    hearth_error_t lerr;
    char text[600], want[400];
    if (hearth_labels_check (*labels, &lerr) < 0) {
        snprintf (text, sizeof text, "REGISTER_APPLICATION executor_labels: %s",
                  lerr.text);
        master_reject (m, rid, "bad_field", text, "REGISTER_APPLICATION");
        return false;
    }
    if (!*labels || back || master_labels_known (m, *labels))
        return true;
    hearth_labels_text (*labels, want, sizeof want);
    snprintf (text, sizeof text,
              "executors asked on workers labelled %s: no worker has ever "
              "registered with %s",
              want, cJSON_GetArraySize (*labels) > 1 ? "them all" : "it");
    master_reject (m, rid, "no_such_labels", text, "REGISTER_APPLICATION");
    return false;
}

/* A driver resumes app (RELAUNCHING; resume.h): the same id, the next
   epoch, its outputs table sent. */
static void
s_resume_application (master_t *m, const hearth_from_t *from, reg_app_t *app,
                      const cJSON *b)
{
    if (master_resume_app (m, from, app, b) < 0)
        return;
    log_info ("application %s (%s) resumed by %s (driver epoch %d)", app->id,
              app->name, app->driver_url, app->epoch);
    master_driver_app_registered (m, app, hearth_json_str (b, "driver_id"),
                                  from->key);
}

static void
s_register_application (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const cJSON *b = msg->body;
    reg_app_t *resumed;
    int resume = master_resume_check (m, from, b, &resumed);
    if (resume != 0) {
        if (resume > 0)
            s_resume_application (m, from, resumed, b);
        return;
    }
    const char *wanted = hearth_json_str (b, "app_id");
    reg_app_t *known = wanted ? registry_app (m->reg, wanted) : NULL;
    if (known
        && master_resume_fenced (m, rid, known, b, "REGISTER_APPLICATION"))
        return;
    if (known && s_same_driver (known, b)) {
        /* its own driver again (its token and URL say so): the table's
           self, whatever the key it speaks with now */
        char what[HEARTH_ID_MAX + 16];
        snprintf (what, sizeof what, "application %s", known->id);
        master_subject_t s = {
            .what = what, .owner = known->owner, .self = true};
        if (master_authorize_on (m, from, HEARTH_CMD_REGISTER_APPLICATION, &s))
            s_adopt_application (m, from, known, b);
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
    const char *owner = s_new_app_owner (m, from, b);
    if (!owner)
        return;
    /* an id the master does not know: the workers say whose it is */
    if (wanted
        && (master_claim_hold (m, from, msg)
            || !master_claim_allowed (m, rid, wanted, owner)))
        return;
    const cJSON *labels;
    if (!s_executor_labels (m, rid, b, wanted != NULL, &labels))
        return;
    const cJSON *conf = cJSON_GetObjectItem (b, "conf");
    hearth_resource_amounts_t amounts = {0};
    hearth_error_t rerr;
    if (hearth_resource_amounts_from_json (
            &amounts, cJSON_GetObjectItem (b, "executor_resources"), &rerr)
        < 0) {
        char text[400];
        snprintf (text, sizeof text,
                  "REGISTER_APPLICATION executor_resources: %s", rerr.text);
        master_reject (m, rid, "bad_field", text, "REGISTER_APPLICATION");
        return;
    }
    registry_app_desc_t desc = {
        .id = wanted,
        .executor_resources = &amounts,
        .executor_labels = labels,
        .owner = owner,
        .curve_key = from->key,
        .name = hearth_json_str (b, "name"),
        .driver_url = hearth_json_str (b, "driver_url"),
        .token = hearth_json_str (b, "token"),
        .driver_key = hearth_json_str (b, "driver_key"),
        .user = hearth_json_str (b, "user"),
        .event_log = s_event_log (b),
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
    hearth_resource_amounts_clear (&amounts);
    if (!app) {
        master_reject (m, rid, "no_memory", "master out of memory", NULL);
        return;
    }
    s_first_target (m, app, b);
    if (wanted)
        master_claim_taken (m, app->id);
    log_info ("application %s (%s) registered by %s", app->id, app->name,
              app->driver_url);
    master_driver_app_registered (m, app, hearth_json_str (b, "driver_id"),
                                  from->key);
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

/* The answer to UNREGISTER_APPLICATION: APPLICATION_REMOVED, so that the
   driver knows its end is recorded (it sends it again, on a fresh
   socket, until it hears this). */
static void
s_reply_removed (master_t *m, zframe_t *rid, const char *app_id,
                 const char *state, const char *reason)
{
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_APPLICATION_REMOVED);
    if (!reply)
        return;
    cJSON_AddStringToObject (reply->body, "app_id", app_id);
    cJSON_AddStringToObject (reply->body, "reason", reason);
    if (state)
        cJSON_AddStringToObject (reply->body, "state", state);
    master_send (m, rid, reply);
}

static void
s_unregister_application (void *arg, const hearth_from_t *from,
                          hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "app_id");
    reg_app_t *app = registry_app (m->reg, id);
    if (!app) {
        s_reply_removed (m, rid, id, NULL,
                         "the master does not know this application");
        return;
    }
    if (master_resume_fenced (m, rid, app, msg->body, "UNREGISTER_APPLICATION"))
        return;
    /* a repeat, or it ended otherwise (RELAUNCHING: its driver ends it) */
    if (app->state > APP_RUNNING && app->state != APP_RELAUNCHING) {
        s_reply_removed (m, rid, id, hearth_app_states[app->state],
                         app->end_reason ? app->end_reason : "ended");
        return;
    }
    char what[HEARTH_ID_MAX + 16];
    master_subject_t s = s_app_subject (m, from, app, true, what, sizeof what);
    if (!master_authorize_on (m, from, HEARTH_CMD_UNREGISTER_APPLICATION, &s))
        return;
    int state =
        s_app_state (hearth_json_str (msg->body, "state"), APP_FINISHED);
    if (state <= APP_RUNNING || state == APP_RELAUNCHING)
        state = APP_FINISHED;
    const char *message = hearth_json_str (msg->body, "message");
    char reason[4200];
    snprintf (reason, sizeof reason, "%s",
              message && *message ? message : "unregistered by its driver");
    /* The registry's observer tells the driver of an end other than
       FINISHED, where it knows the driver (cluster.c); the rest is
       answered here.  (The record may be gone after registry_app_end.) */
    bool told = state != APP_FINISHED && app->routing_id
                && zframe_eq (app->routing_id, rid);
    log_info ("application %s unregistered: %s (%s)", id,
              hearth_app_states[state], reason);
    if (app->state == APP_RELAUNCHING)
        registry_app_relaunch_end (m->reg, app, state, reason);
    else
        registry_app_end (m->reg, app, state, reason, master_kill_executor, m);
    if (!told)
        s_reply_removed (m, rid, id, hearth_app_states[state], reason);
}

static void
s_kill_application (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "app_id");
    reg_app_t *app = registry_app (m->reg, id);
    bool ok =
        app && (app->state <= APP_RUNNING || app->state == APP_RELAUNCHING);
    char what[HEARTH_ID_MAX + 16];
    if (ok) {
        master_subject_t s =
            s_app_subject (m, from, app, false, what, sizeof what);
        if (!master_authorize_on (m, from, HEARTH_CMD_KILL_APPLICATION, &s))
            return;
    }
    const char *why = ok    ? "application killed"
                      : app ? "application already ended"
                            : "no such application";
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_KILL_APPLICATION_RESPONSE);
    if (reply) {
        cJSON_AddBoolToObject (reply->body, "ok", ok);
        cJSON_AddStringToObject (reply->body, "app_id", id);
        cJSON_AddStringToObject (reply->body, "message", why);
        master_send (m, rid, reply);
    }
    if (!ok)
        return;
    log_info ("application %s killed on request", id);
    master_app_kill (m, app);
}

/* The driver's progress summary: kept as the application's `progress`
   (MASTER_STATE), from its own connection only; a stray one is refused
   as UNREGISTER_APPLICATION's would be. */
static void
s_application_progress (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "app_id");
    reg_app_t *app = registry_app (m->reg, id);
    if (!app || app->state > APP_RUNNING) {
        master_reject (m, rid, "no_app",
                       app ? "the application has ended"
                           : "the master does not know this application",
                       "APPLICATION_PROGRESS");
        return;
    }
    if (!s_own_app (m, from, msg, HEARTH_CMD_APPLICATION_PROGRESS))
        return;
    if (registry_app_set_progress (app, msg->body, registry_wall_ms ()) < 0)
        log_warn ("application %s: no memory for its progress", id);
}

/* A driver gave up on one of its executors (silent: hung, or cut off
   from it): the worker kills it, and its cores come back for another. */
static void
s_kill_executor (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    const char *app_id = hearth_json_str (msg->body, "app_id");
    int exec_id = (int) hearth_json_int (msg->body, "exec_id", -1);
    if (!s_own_app (m, from, msg, HEARTH_CMD_KILL_EXECUTOR))
        return;
    reg_exec_t *exec = registry_exec (m->reg, app_id, exec_id);
    if (!exec || exec->worker->state != WORKER_ALIVE)
        return;
    const char *reason = hearth_json_str (msg->body, "reason");
    log_info ("executor %s/%d on %s: its driver asks to kill it (%s)", app_id,
              exec_id, exec->worker->id, reason ? reason : "no reason given");
    master_send_kill (m, exec->worker, app_id, exec_id,
                      reason ? reason : "its driver gave up on it");
}

/* --- dynamic allocation -------------------------------------------------- */

/* The driver's executor target: the allocator gives the application new
   executors only while it has fewer (alloc.h rule 6). */
/* REQUEST_EXECUTORS places: each a place's name (a host, worker:ID or
   KEY=VALUE) of 1 to 320 bytes without a control character; else
   refused. */
static bool
s_places_ok (master_t *m, zframe_t *rid, const cJSON *places)
{
    const cJSON *p;
    cJSON_ArrayForEach (p, places)
    {
        size_t len = strlen (p->string);
        if (len == 0 || len > 320 || hearth_ctl_has (p->string)) {
            master_reject (m, rid, "bad_field",
                           "REQUEST_EXECUTORS places: a place is 1 to 320 "
                           "bytes without control characters",
                           "REQUEST_EXECUTORS");
            return false;
        }
    }
    return true;
}

static void
s_request_executors (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    reg_app_t *app = s_own_app (m, from, msg, HEARTH_CMD_REQUEST_EXECUTORS);
    int total = (int) hearth_json_int (msg->body, "total", 0);
    const cJSON *places = cJSON_GetObjectItem (msg->body, "places");
    if (!app || !s_places_ok (m, from->rid, places))
        return;
    int moved = registry_app_set_places (app, places);
    if (registry_app_set_target (m->reg, app, total) == 0) {
        m->dirty |= moved > 0; /* the next pass places by them */
        return;
    }
    log_info ("application %s wants %d executors (it has %zu)", app->id, total,
              registry_app_executors (app));
    m->dirty = true; /* the pass right after this message */
}

/* The driver gives back idle executors: each is killed through its
   worker and ended at once, its cores free for the pass that follows
   this message (a waiting application gets them now). */
static void
s_kill_executors (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    static const char *const reason = "released by dynamic allocation";
    reg_app_t *app = s_own_app (m, from, msg, HEARTH_CMD_KILL_EXECUTORS);
    const cJSON *id;
    if (!app)
        return;
    cJSON_ArrayForEach (id, cJSON_GetObjectItem (msg->body, "exec_ids"))
    {
        reg_exec_t *exec =
            registry_exec (m->reg, app->id, (int) id->valuedouble);
        if (!exec) {
            log_debug ("executor %s/%d to release: already ended", app->id,
                       (int) id->valuedouble);
            continue;
        }
        if (exec->worker->state == WORKER_ALIVE)
            master_send_kill (m, exec->worker, app->id, exec->exec_id, reason);
        registry_exec_release (m->reg, exec, reason);
    }
    m->dirty = true;
}

/* --- clients and the rest ---------------------------------------------- */

static void
s_peer_error (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) arg;
    char *peer = zframe_strhex (from->rid);
    log_warn ("peer %.63s reports an error: %s: %s", peer ? peer : "?",
              hearth_json_str (msg->body, "code"),
              hearth_json_str (msg->body, "message"));
    free (peer);
}

static const hearth_handler_t s_handlers[] = {
    {HEARTH_CMD_HEARTBEAT, s_heartbeat},
    {HEARTH_CMD_REGISTER_WORKER, master_register_worker},
    {HEARTH_CMD_EXECUTOR_STATE_CHANGED, master_executor_state_changed},
    {HEARTH_CMD_REGISTER_APPLICATION, s_register_application},
    {HEARTH_CMD_UNREGISTER_APPLICATION, s_unregister_application},
    {HEARTH_CMD_KILL_APPLICATION, s_kill_application},
    {HEARTH_CMD_KILL_EXECUTOR, s_kill_executor},
    {HEARTH_CMD_APPLICATION_PROGRESS, s_application_progress},
    {HEARTH_CMD_OUTPUTS_RECORDED, master_outputs_recorded},
    {HEARTH_CMD_MASTER_STATE, master_state_request},
    {HEARTH_CMD_SUBMIT_DRIVER, master_submit_driver},
    {HEARTH_CMD_DRIVER_STATUS, master_driver_status},
    {HEARTH_CMD_KILL_DRIVER, master_kill_driver},
    {HEARTH_CMD_DRIVER_LOG, master_driver_log},
    {HEARTH_CMD_DRIVER_LOG_RESPONSE, master_driver_log_response},
    {HEARTH_CMD_DRIVER_STATE_CHANGED, master_driver_state_changed},
    {HEARTH_CMD_ERROR, s_peer_error},
    {HEARTH_CMD_WORKER_STOPPING, master_worker_stopping},
    {HEARTH_CMD_DRAIN_WORKER, master_drain_worker},
    {HEARTH_CMD_RESUME_WORKER, master_resume_worker},
    {HEARTH_CMD_REQUEST_EXECUTORS, s_request_executors},
    {HEARTH_CMD_KILL_EXECUTORS, s_kill_executors},
    {HEARTH_CMD_WORKER_DECOMMISSIONING, master_worker_decommissioning},
    {HEARTH_CMD_DECOMMISSION_WORKER, master_decommission_worker},
    {HEARTH_CMD_FOLLOW_JOURNAL, master_follow_journal},
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
master_dispatch (master_t *m, const hearth_from_t *from, hearth_msg_t *msg)
{
    /* a standby serves nobody: everyone is pointed at the leader */
    if (m->role == MASTER_STANDBY) {
        if (msg->cmd != HEARTH_CMD_ERROR)
            master_send_standby (m, from->rid, hearth_cmd_name (msg->cmd));
        return;
    }
    s_sign_of_life (m, from->rid);
    const hearth_handler_t *row =
        hearth_handler_find (HEARTH_HANDLERS (s_handlers), msg->cmd);
    if (!row) {
        char text[128];
        snprintf (text, sizeof text, "the master does not accept %s",
                  hearth_cmd_name (msg->cmd));
        master_reject (m, from->rid, "unexpected_command", text,
                       hearth_cmd_name (msg->cmd));
        return;
    }
    /* who may send it: authz.c's table, before any handler */
    if (master_authorize (m, from, msg->cmd))
        row->handler (m, from, msg);
}

void
master_dispatch_held (master_t *m, int64_t now)
{
    claim_held_t *h;
    while ((h = claims_due (m->claims, now))) {
        /* as main.c reads a message: its sender's key, still admitted */
        hearth_from_t from = {.rid = h->rid, .key = m->curve.zap ? h->key : ""};
        if (!m->curve.zap || hearth_zap_admits (m->curve.zap, h->key, ""))
            master_dispatch (m, &from, h->msg);
        claim_held_destroy (&h);
    }
}

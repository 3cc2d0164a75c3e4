/*  link.c - the worker's link to its master: libcore/uplink.c keeps it
    (the ZeroMQ guide's reliability rules, protocol.md §7: register,
    heartbeat when idle, count any message from the master as a sign of
    life, and when it falls silent for liveness intervals or says
    RECONNECT_WORKER, drop the socket and register again on a fresh one,
    doubling the wait between attempts up to --reconnect-max; with a list
    of masters, the next URL or a standby's leader).  Here: what the
    worker registers and heartbeats, and the master's commands.  Nothing
    that runs is stopped by a switch. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/dispatch.h"
#include "libcore/log.h"
#include "libcore/proto.h"
#include "libcore/readyfile.h"
#include "libcore/web.h"
#include "worker/decom.h"
#include "worker/devices.h"
#include "worker/webstate.h"
#include "worker/worker.h"

void
worker_send (worker_t *w, hearth_msg_t *msg)
{
    hearth_uplink_send (w->uplink, &msg, hearth_mono_ms ());
}

bool
worker_linked (const worker_t *w)
{
    return w->uplink && hearth_uplink_up (w->uplink);
}

const char *
worker_master_url (const worker_t *w)
{
    return hearth_uplink_url (w->uplink);
}

static void
s_add_usage (worker_t *w, cJSON *body)
{
    int cores;
    int64_t memory;
    children_usage (w->children, &cores, &memory);
    cJSON_AddNumberToObject (body, "cores_used", cores);
    cJSON_AddNumberToObject (body, "memory_used_mb", (double) memory);
    cJSON_AddItemToObject (body, "executors",
                           children_json (w->children, &execs_kind));
    cJSON_AddItemToObject (body, "drivers",
                           children_json (w->children, &drivers_kind));
    if (w->shuffle)
        cJSON_AddNumberToObject (body, "shuffle_bytes",
                                 (double) shuffle_bytes (w->shuffle));
    if (w->shuffle && shuffle_persisted_bytes (w->shuffle))
        cJSON_AddNumberToObject (body, "persisted_bytes",
                                 (double) shuffle_persisted_bytes (w->shuffle));
}

/* Drivers that ended while the worker was not registered join the list
   of a registration, with their final state. */
static void
s_add_ended_drivers (worker_t *w, cJSON *body)
{
    cJSON *list = cJSON_GetObjectItem (body, "drivers");
    for (cJSON *ref = zlistx_first (w->ended_drivers); list && ref;
         ref = zlistx_next (w->ended_drivers))
        cJSON_AddItemToArray (list, cJSON_Duplicate (ref, 1));
}

/* The registration: what the worker offers, what it runs, and the
   drivers that ended while it was not registered. */
static hearth_msg_t *
s_registration (void *arg, bool again)
{
    (void) again;
    worker_t *w = arg;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_WORKER);
    if (!msg)
        return NULL;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "id", w->id);
    cJSON_AddStringToObject (b, "host", w->host);
    cJSON_AddNumberToObject (b, "cores", w->cores);
    cJSON_AddNumberToObject (b, "memory_mb", (double) w->memory_mb);
    if (w->resources.n)
        cJSON_AddItemToObject (b, "resources",
                               hearth_resources_to_json (&w->resources));
    if (cJSON_GetArraySize (w->labels))
        cJSON_AddItemToObject (b, "labels", cJSON_Duplicate (w->labels, true));
    cJSON_AddStringToObject (b, "version", PACKAGE_VERSION);
    cJSON_AddStringToObject (b, "work_dir", w->work_dir);
    char dir_id[128];
    if (execs_work_dir_id (w->execs, dir_id, sizeof dir_id) == 0)
        cJSON_AddStringToObject (b, "work_dir_id", dir_id);
    if (w->shuffle) {
        cJSON_AddStringToObject (b, "shuffle_url", shuffle_url (w->shuffle));
        if (shuffle_key (w->shuffle))
            cJSON_AddStringToObject (b, "shuffle_key",
                                     shuffle_key (w->shuffle));
    }
    if (w->web)
        cJSON_AddStringToObject (b, "web_url", hearth_web_url (w->web));
    s_add_usage (w, b);
    s_add_ended_drivers (w, b);
    /* whose each application known here is: a master that forgot them
       gives their ids to no other key (docs/security.md) */
    cJSON_AddItemToObject (b, "apps", apps_json (w->apps));
    cJSON_DeleteItemFromObject (b, "cores_used");
    cJSON_DeleteItemFromObject (b, "memory_used_mb");
    cJSON_DeleteItemFromObject (b, "shuffle_bytes");
    cJSON_DeleteItemFromObject (b, "persisted_bytes");
    return msg;
}

static hearth_msg_t *
s_heartbeat (void *arg)
{
    worker_t *w = arg;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    if (!msg)
        return NULL;
    cJSON_AddStringToObject (msg->body, "id", w->id);
    s_add_usage (w, msg->body);
    return msg;
}

void
worker_link_tick (worker_t *w, int64_t now)
{
    if (!w->stopping)
        hearth_uplink_tick (w->uplink, now);
}

void
worker_report (void *arg, const execs_report_t *r)
{
    worker_t *w = arg;
    if (!worker_linked (w))
        return; /* the next registration lists what still runs */
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_EXECUTOR_STATE_CHANGED);
    if (!msg)
        return;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", r->app_id);
    cJSON_AddNumberToObject (b, "exec_id", r->exec_id);
    cJSON_AddStringToObject (b, "state", r->state);
    if (r->message)
        cJSON_AddStringToObject (b, "message", r->message);
    if (r->exit_status >= 0)
        cJSON_AddNumberToObject (b, "exit_status", r->exit_status);
    if (r->signal > 0)
        cJSON_AddNumberToObject (b, "signal", r->signal);
    if (r->pid > 0)
        cJSON_AddNumberToObject (b, "pid", (int) r->pid);
    if (r->peak_rss_bytes > 0)
        cJSON_AddNumberToObject (b, "peak_rss_bytes",
                                 (double) r->peak_rss_bytes);
    if (r->reason)
        cJSON_AddStringToObject (b, "reason", r->reason);
    if (r->memory_limit_bytes > 0)
        cJSON_AddNumberToObject (b, "memory_limit_bytes",
                                 (double) r->memory_limit_bytes);
    worker_send (w, msg);
}

/* What both a DRIVER_STATE_CHANGED and a registration's list of ended
   drivers say of a driver. */
static void
s_driver_fields (cJSON *o, const drivers_report_t *r)
{
    cJSON_AddStringToObject (o, "driver_id", r->driver_id);
    cJSON_AddStringToObject (o, "state", r->state);
    if (r->launch > 0)
        cJSON_AddNumberToObject (o, "launch", r->launch);
    if (r->error)
        cJSON_AddStringToObject (o, "error", r->error);
    if (r->exit_status >= 0)
        cJSON_AddNumberToObject (o, "exit_status", r->exit_status);
}

void
worker_report_driver (void *arg, const drivers_report_t *r)
{
    worker_t *w = arg;
    bool final = strcmp (r->state, "RUNNING") != 0;
    if (!worker_linked (w)) {
        /* The next registration lists what runs, and these ends. */
        cJSON *ref = final ? cJSON_CreateObject () : NULL;
        if (!ref)
            return;
        s_driver_fields (ref, r);
        zlistx_add_end (w->ended_drivers, ref);
        return;
    }
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_DRIVER_STATE_CHANGED);
    if (!msg)
        return;
    cJSON *b = msg->body;
    s_driver_fields (b, r);
    if (r->signal > 0)
        cJSON_AddNumberToObject (b, "signal", r->signal);
    if (r->pid > 0)
        cJSON_AddNumberToObject (b, "pid", (int) r->pid);
    worker_send (w, msg);
}

/* --- the master's commands --------------------------------------------- */

/* Write the ready file once, atomically. */
static void
s_ready_file (worker_t *w)
{
    const char *path = hearth_conf_str (w->conf, "ready-file");
    char text[300];
    hearth_error_t err;
    if (!path)
        return;
    snprintf (text, sizeof text, "%s\n", w->id);
    if (hearth_ready_file_write (path, text, &err) < 0)
        log_warn ("the ready file: %s", err.text);
}

/* REGISTERED_WORKER (the uplink has taken its heartbeat settings). */
static void
s_registered (void *arg, const hearth_msg_t *msg, bool again)
{
    (void) again;
    worker_t *w = arg;
    log_info ("registered with %s (heartbeat every %lld ms)",
              worker_master_url (w),
              (long long) hearth_uplink_interval (w->uplink));
    const char *web = hearth_json_str (msg->body, "master_web_url");
    snprintf (w->master_web_url, sizeof w->master_web_url, "%s",
              web ? web : "");
    /* The registration listed the drivers that ended meanwhile. */
    zlistx_purge (w->ended_drivers);
    if (!w->ever_registered)
        s_ready_file (w);
    w->ever_registered = true;
    worker_decom_tell (w); /* leaving: a restarted master hears it again */
}

static void
s_register_failed (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const char *reason = hearth_json_str (msg->body, "reason");
    if (!w->ever_registered) {
        log_error ("the master refused this worker: %s", reason);
        w->exit_code = 1;
        w->stopping = true;
        return;
    }
    log_warn ("the master refused to register this worker again: %s; "
              "retrying in %lld ms",
              reason, (long long) hearth_uplink_backoff (w->uplink));
}

/* Who submitted what a LAUNCH_EXECUTOR or LAUNCH_DRIVER starts
   (borrowed from msg). */
static runas_owner_t
s_owner (const hearth_msg_t *msg)
{
    return (runas_owner_t){hearth_json_str (msg->body, "owner"),
                           hearth_json_str (msg->body, "owner_name"),
                           hearth_json_str (msg->body, "user")};
}

static void
s_launch (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const cJSON *b = msg->body;
    const cJSON *conf = cJSON_GetObjectItem (b, "conf");
    execs_launch_t l = {
        hearth_json_str (b, "app_id"),
        (int) hearth_json_int (b, "exec_id", 0),
        (int) hearth_json_int (b, "cores", 1),
        hearth_json_int (b, "memory_mb", 1),
        hearth_json_str (b, "driver_url"),
        hearth_json_str (b, "token"),
        hearth_json_str (b, "driver_key"),
        cJSON_IsObject (conf) ? conf : NULL,
        w->shuffle ? shuffle_url (w->shuffle) : NULL,
        w->shuffle ? shuffle_key (w->shuffle) : NULL,
        NULL,
        s_owner (msg),
    };
    if (w->stopping || !worker_linked (w))
        return; /* only the master this worker registered with launches */
    if (w->decommissioning) {
        /* refused, so that the master frees the slot and places it
           elsewhere (it has heard this worker leaves: a race) */
        char why[300];
        snprintf (why, sizeof why, "the worker is decommissioning (%s)",
                  w->decom_reason);
        log_warn ("LAUNCH_EXECUTOR %s/%d refused: %s", l.app_id, l.exec_id,
                  why);
        execs_report_t r = {l.app_id, l.exec_id, "FAILED", why, -1, 0, 0};
        worker_report (w, &r);
        return;
    }
    hearth_resources_t held = {0};
    hearth_error_t err;
    if (hearth_resources_from_json (&held, cJSON_GetObjectItem (b, "resources"),
                                    &err)
            < 0
        || !devices_contains (&w->resources, &held)) {
        /* not this worker's addresses: refused, so that the master frees
           the slot (and hears why) */
        char why[300];
        if (held.n)
            snprintf (why, sizeof why, "resources not offered by this worker");
        else
            snprintf (why, sizeof why, "bad resources: %s", err.text);
        log_warn ("LAUNCH_EXECUTOR %s/%d refused: %s", l.app_id, l.exec_id,
                  why);
        execs_report_t r = {l.app_id, l.exec_id, "FAILED", why, -1, 0, 0};
        worker_report (w, &r);
        hearth_resources_clear (&held);
        return;
    }
    l.resources = &held;
    if (execs_launch (w->execs, &l, hearth_mono_ms ()) < 0) {
        /* The id is taken by an executor of an earlier master: refuse it,
           so the master frees the slot and places another. */
        log_warn ("LAUNCH_EXECUTOR %s/%d refused: already running", l.app_id,
                  l.exec_id);
        execs_report_t r = {l.app_id, l.exec_id,
                            "FAILED", "exec id already in use on this worker",
                            -1,       0,
                            0};
        worker_report (w, &r);
    }
    hearth_resources_clear (&held);
}

static void
s_kill (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const char *app_id = hearth_json_str (msg->body, "app_id");
    int exec_id = (int) hearth_json_int (msg->body, "exec_id", 0);
    if (execs_kill (w->execs, app_id, exec_id) < 0)
        log_debug ("KILL_EXECUTOR %s/%d: not running", app_id, exec_id);
}

static void
s_app_removed (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const char *app_id = hearth_json_str (msg->body, "app_id");
    if (!app_id)
        return;
    log_info ("application %s removed: stopping its executors", app_id);
    execs_app_removed (w->execs, app_id, hearth_mono_ms ());
    if (w->shuffle)
        shuffle_app_removed (w->shuffle, app_id);
    apps_removed (w->apps, app_id);
}

/* DRIVER_APPLICATION: the application one of our drivers registered,
   for the pages. */
static void
s_driver_application (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    if (w->webstate)
        webstate_driver_app (w->webstate,
                             hearth_json_str (msg->body, "driver_id"),
                             hearth_json_str (msg->body, "app_id"));
}

static void
s_launch_driver (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const cJSON *b = msg->body;
    drivers_launch_t l = {
        .driver_id = hearth_json_str (b, "driver_id"),
        .launch = (int) hearth_json_int (b, "launch", 0),
        .cores = (int) hearth_json_int (b, "cores", 1),
        .memory_mb = hearth_json_int (b, "memory_mb", 1),
        .app = hearth_json_str (b, "app"),
        .binary = strcmp (hearth_json_str (b, "kind"), "binary") == 0,
        .args = cJSON_GetObjectItem (b, "args"),
        .files = cJSON_GetObjectItem (b, "files"),
        .frames = msg->frames,
        .nframes = msg->nframes,
        .env = cJSON_GetObjectItem (b, "env"),
        .conf = cJSON_GetObjectItem (b, "conf"),
        .owner = s_owner (msg),
        .curve_secret = hearth_json_str (b, "curve_secret"),
    };
    if (w->stopping || !worker_linked (w))
        return; /* only the master this worker registered with launches */
    if (w->decommissioning) {
        /* not started: the master relaunches it elsewhere once this
           worker has left, as for a lost worker (docs/operations.md) */
        log_warn ("LAUNCH_DRIVER %s ignored: the worker is decommissioning",
                  l.driver_id);
        return;
    }
    if (drivers_launch (w->drivers, &l) < 0)
        log_warn ("LAUNCH_DRIVER %s ignored: it already runs here",
                  l.driver_id);
}

static void
s_kill_driver (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const char *id = hearth_json_str (msg->body, "driver_id");
    if (drivers_kill (w->drivers, id) == 0)
        return;
    /* Nothing of it here: the master's books say otherwise (a launch
       that never came, or ended unheard).  KILLED with no launch applies
       to whatever launch it has placed here, so that they follow. */
    log_info ("KILL_DRIVER %s: not running here; telling the master", id);
    drivers_report_t r = {.driver_id = id,
                          .state = "KILLED",
                          .error = "not running on its worker",
                          .exit_status = -1};
    worker_report_driver (w, &r);
}

/* Most bytes of a driver's output sent in one DRIVER_LOG_RESPONSE. */
static const size_t s_log_chunk_max = 4 * 1024 * 1024;

static void
s_driver_log (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const cJSON *b = msg->body;
    const char *id = hearth_json_str (b, "driver_id");
    const char *stream = hearth_json_str (b, "stream");
    int64_t max = hearth_json_int (b, "max_bytes", (int64_t) s_log_chunk_max);
    uint64_t offset = (uint64_t) hearth_json_int (b, "offset", 0);
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_DRIVER_LOG_RESPONSE);
    if (!reply)
        return;
    cJSON *o = reply->body;
    zframe_t *data = NULL;
    bool eof = false;
    hearth_error_t err;
    if (!stream)
        stream = "stdout";
    if (max > (int64_t) s_log_chunk_max)
        max = (int64_t) s_log_chunk_max;
    int rc = drivers_read_log (w->drivers, id, stream, offset, (size_t) max,
                               &data, &eof, &err);
    cJSON_AddBoolToObject (o, "ok", rc == 0);
    cJSON_AddStringToObject (o, "driver_id", id);
    cJSON_AddStringToObject (o, "stream", stream);
    if (hearth_json_int (b, "request_id", -1) >= 0)
        cJSON_AddNumberToObject (o, "request_id",
                                 (double) hearth_json_int (b, "request_id", 0));
    if (rc < 0)
        cJSON_AddStringToObject (o, "message", err.text);
    else {
        size_t size = zframe_size (data);
        int index = hearth_msg_add_frame (reply, &data);
        cJSON_AddNumberToObject (o, "offset", (double) offset);
        cJSON_AddNumberToObject (o, "size", (double) size);
        if (index >= 0)
            cJSON_AddNumberToObject (o, "data", index);
        cJSON_AddBoolToObject (o, "eof", eof);
    }
    worker_send (w, reply);
}

static void
s_decommission (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const char *reason = hearth_json_str (msg->body, "reason");
    int64_t timeout = hearth_json_int (msg->body, "timeout_ms", -1);
    if (!worker_linked (w))
        return; /* only the master this worker registered with */
    log_info ("the master asks this worker to leave: %s",
              reason ? reason : "no reason given");
    worker_decom_start (w, reason && reason[0] ? reason : "DECOMMISSION",
                        timeout >= 0
                            ? timeout
                            : hearth_conf_ms (w->conf, "decommission-timeout"));
}

static void
s_heartbeat_in (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) arg;
    (void) from; /* the master: the link's one peer */
    (void) msg;
}

/* An ERROR from the master (a standby's is the uplink's); before the
   first registration, a master that cannot read this worker's messages
   (another protocol version) will not on the next try either: a
   mistake in the set-up, said once, and the end. */
static void
s_error (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    worker_t *w = arg;
    (void) from; /* the master: the link's one peer */
    const char *code = hearth_json_str (msg->body, "code");
    const char *text = hearth_json_str (msg->body, "message");
    if (!w->ever_registered && code
        && (strcmp (code, "bad_version") == 0
            || strcmp (code, "bad_protocol") == 0)) {
        log_error ("cannot work with the master at %s: %s",
                   worker_master_url (w), text ? text : code);
        w->exit_code = 1;
        w->stopping = true;
        return;
    }
    hearth_log_limited (w->log_limit, HEARTH_LOG_WARN,
                        "error reported by the master", hearth_mono_ms (),
                        "the master reports an error: %s: %s",
                        code ? code : "?", text ? text : "");
}

static const hearth_handler_t s_handlers[] = {
    {HEARTH_CMD_HEARTBEAT, s_heartbeat_in},
    {HEARTH_CMD_REGISTER_WORKER_FAILED, s_register_failed},
    {HEARTH_CMD_LAUNCH_EXECUTOR, s_launch},
    {HEARTH_CMD_KILL_EXECUTOR, s_kill},
    {HEARTH_CMD_APPLICATION_REMOVED, s_app_removed},
    {HEARTH_CMD_LAUNCH_DRIVER, s_launch_driver},
    {HEARTH_CMD_DRIVER_APPLICATION, s_driver_application},
    {HEARTH_CMD_KILL_DRIVER, s_kill_driver},
    {HEARTH_CMD_DRIVER_LOG, s_driver_log},
    {HEARTH_CMD_ERROR, s_error},
    {HEARTH_CMD_DECOMMISSION, s_decommission},
};

/* What the uplink passes on (it handles REGISTERED_WORKER,
   RECONNECT_WORKER and a standby's ERROR). */
static void
s_on_message (void *arg, hearth_msg_t *msg)
{
    worker_t *w = arg;
    if (hearth_dispatch (HEARTH_HANDLERS (s_handlers), w, NULL, msg) == 0)
        return;
    hearth_log_limited (w->log_limit, HEARTH_LOG_WARN,
                        "unexpected command from the master", hearth_mono_ms (),
                        "unexpected %s from the master, ignored",
                        hearth_cmd_name (msg->cmd));
}

/* --- the link ----------------------------------------------------------- */

/* The master speaks another protocol: the worker stops. */
static void
s_fatal (void *arg, const char *why)
{
    worker_t *w = arg;
    log_error ("%s", why);
    w->exit_code = 1;
    w->stopping = true;
}

/* The master's messages, up to the uplink's batch (loop.h: 1 when it
   stopped with more left).  The worker's loop ends with its children,
   not here: a broken socket is the uplink's to replace. */
static int
s_on_sock (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    worker_t *w = arg;
    return hearth_uplink_on_readable (w->uplink, sock, hearth_mono_ms ()) > 0;
}

static void
s_serve (void *arg, zsock_t *sock, bool on)
{
    worker_t *w = arg;
    if (!on)
        hearth_loop_reader_end (w->loop, sock);
    else if (hearth_loop_reader (w->loop, sock, s_on_sock, w) < 0)
        log_error ("cannot watch the link to the master");
}

/* The uplink sent on sock: the loop looks at it again (loop.h). */
static void
s_sent (void *arg, zsock_t *sock)
{
    worker_t *w = arg;
    if (w->loop)
        hearth_loop_sent (w->loop, sock);
}

int
worker_link_new (worker_t *w, hearth_error_t *err)
{
    hearth_uplink_opts_t opts = {
        .url = w->master_url,
        .curve = &w->curve,
        .who = w->id,
        .registered_cmd = HEARTH_CMD_REGISTERED_WORKER,
        .reconnect_cmd = HEARTH_CMD_RECONNECT_WORKER,
        .interval_ms = hearth_conf_ms (w->conf, "heartbeat-interval"),
        .liveness = hearth_conf_int (w->conf, "heartbeat-liveness"),
        .backoff_max_ms = hearth_conf_ms (w->conf, "reconnect-max"),
        .failover = true};
    hearth_uplink_cbs_t cbs = {.registration = s_registration,
                               .heartbeat = s_heartbeat,
                               .up = s_registered,
                               .message = s_on_message,
                               .fatal = s_fatal,
                               .serve = s_serve,
                               .sent = s_sent,
                               .arg = w};
    hearth_error_t uerr;
    if (!(w->uplink = hearth_uplink_new (&opts, &cbs, &uerr)))
        return hearth_errprintf (err, "bad --master: %s", uerr.text);
    return 0;
}

int
worker_link_open (worker_t *w, hearth_error_t *err)
{
    return hearth_uplink_open (w->uplink, hearth_mono_ms (), err);
}

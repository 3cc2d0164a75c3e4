/*  master.c - the driver's link to the master (cluster and local-cluster
    modes): registering the application, heartbeats, and the executors the
    master grants or loses.

    The link follows the ZeroMQ guide's reliability rules (protocol.md §7):
    any message from the master is a sign of life; when the master has
    been silent for liveness x interval, or says RECONNECT_APPLICATION,
    the driver drops its DEALER and registers again on a fresh one, under
    the same app_id and listing the executors it has: at once, then after
    one interval, then twice that, up to s_backoff_max_ms between
    attempts.  The registration queued on the newest socket goes out as
    soon as the master is back.  Jobs go on all the while: the
    executors talk to the driver, not to the master.  A master that
    answers that the application has ended (it gave up on the driver)
    ends the jobs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/engine.h"
#include "libcore/clock.h"
#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/sock.h"

/* The longest wait between two registration attempts. */
static const int64_t s_backoff_max_ms = 32000;

static int s_on_master (zloop_t *loop, zsock_t *sock, void *arg);

static int
s_send (engine_t *e, hearth_msg_t **msg_p)
{
    hearth_error_t err;
    if (hearth_msg_send (msg_p, e->master, NULL, &err) < 0) {
        log_warn ("to the master: %s", err.text);
        return -1;
    }
    e->master_send_ms = hearth_mono_ms ();
    return 0;
}

static void
s_send_register (engine_t *e)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_APPLICATION);
    if (!msg)
        return;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "name", e->app_name);
    cJSON_AddStringToObject (b, "driver_url", e->driver_url);
    if (hearth_conf_isset (e->conf, "total-executor-cores"))
        cJSON_AddNumberToObject (
            b, "max_cores",
            (double) hearth_conf_int (e->conf, "total-executor-cores"));
    if (hearth_conf_isset (e->conf, "executor-cores"))
        cJSON_AddNumberToObject (
            b, "cores_per_executor",
            (double) hearth_conf_int (e->conf, "executor-cores"));
    int64_t memory_mb =
        (int64_t) (hearth_conf_bytes (e->conf, "executor-memory")
                   / (1024 * 1024));
    /* A local cluster's workers are small: unless told otherwise, an
       executor takes a whole worker's memory (as in local-cluster[2,1,512]). */
    if (e->mode == MODE_LOCAL_CLUSTER
        && hearth_conf_source (e->conf, "executor-memory")
               <= HEARTH_SRC_DEFAULT)
        memory_mb = e->lc_memory_mb;
    cJSON_AddNumberToObject (b, "memory_per_executor_mb",
                             (double) (memory_mb > 0 ? memory_mb : 1));
    if (e->app_id[0])
        cJSON_AddStringToObject (b, "app_id", e->app_id);
    if (e->registered) { /* again: what still runs */
        cJSON *list = cJSON_AddArrayToObject (b, "executors");
        for (exec_t *x = zhashx_first (e->execs); list && x;
             x = zhashx_next (e->execs)) {
            if (!x->registered)
                continue;
            cJSON *o = cJSON_CreateObject ();
            cJSON_AddStringToObject (o, "app_id", e->app_id);
            cJSON_AddNumberToObject (o, "exec_id", x->exec_id);
            cJSON_AddNumberToObject (o, "cores", x->cores);
            cJSON_AddItemToArray (list, o);
        }
    }
    cJSON_AddStringToObject (b, "token", e->token);
    if (e->app_cert)
        cJSON_AddStringToObject (b, "driver_key",
                                 zcert_public_txt (e->app_cert));
    /* Cluster mode: the worker that runs us says which driver we are. */
    const char *driver_id = hearth_conf_str (e->conf, "driver-id");
    if (driver_id && hearth_id_valid (HEARTH_ID_DRIVER, driver_id))
        cJSON_AddStringToObject (b, "driver_id", driver_id);
    const char *user = getenv ("USER");
    if (user && strlen (user) < 255)
        cJSON_AddStringToObject (b, "user", user);
    s_send (e, &msg);
}

/* A fresh DEALER to the master (the old one, if any, is dropped with
   whatever it still queued for a master that is gone). */
static int
s_connect (engine_t *e, hearth_error_t *err)
{
    if (e->master) {
        zloop_reader_end (e->loop, e->master);
        hearth_sock_destroy (&e->master);
    }
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&e->curve, &opts);
    if (!(e->master = hearth_sock_new (&opts, err)))
        return -1;
    if (hearth_sock_connect (e->master, e->master_url, err) < 0) {
        hearth_sock_destroy (&e->master);
        return -1;
    }
    zloop_reader (e->loop, e->master, s_on_master, e);
    return 0;
}

int
master_open (engine_t *e, const char *url, hearth_error_t *err)
{
    if (url != e->master_url) /* the same buffer in cluster mode */
        snprintf (e->master_url, sizeof e->master_url, "%s", url);
    if (s_connect (e, err) < 0)
        return -1;
    e->register_deadline =
        hearth_mono_ms () + hearth_conf_ms (e->conf, "register-timeout");
    e->master_recv_ms = hearth_mono_ms ();
    s_send_register (e);
    return 0;
}

/* Register again on a fresh socket, now and then at back-off. */
static void
s_relink (engine_t *e, int64_t now)
{
    hearth_error_t err;
    e->master_next_attempt_ms = now + e->master_backoff_ms;
    e->master_backoff_ms = e->master_backoff_ms * 2 > s_backoff_max_ms
                               ? s_backoff_max_ms
                               : e->master_backoff_ms * 2;
    if (s_connect (e, &err) < 0) {
        log_warn ("cannot reconnect to the master at %s: %s", e->master_url,
                  err.text);
        return;
    }
    log_info ("registering %s again with the master at %s (next attempt in "
              "%lld ms)",
              e->app_id, e->master_url,
              (long long) (e->master_next_attempt_ms - now));
    s_send_register (e);
}

/* The link is down: register again from the next tick on (never inside
   the socket's own reader). */
static void
s_unlink (engine_t *e, const char *why)
{
    if (!e->master_linked)
        return;
    log_warn ("the master at %s: %s; registering again (jobs go on)",
              e->master_url, why);
    e->master_linked = false;
    e->master_lost_ms = hearth_mono_ms ();
    e->master_backoff_ms = e->hb_interval_ms;
    e->master_next_attempt_ms = hearth_mono_ms ();
}

void
master_close (engine_t *e)
{
    if (!e->master)
        return;
    if (e->registered) {
        hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_UNREGISTER_APPLICATION);
        if (msg) {
            cJSON_AddStringToObject (msg->body, "app_id", e->app_id);
            cJSON_AddStringToObject (msg->body, "state", "FINISHED");
            s_send (e, &msg);
        }
    }
    if (e->loop)
        zloop_reader_end (e->loop, e->master);
    hearth_sock_destroy (&e->master);
}

static void
s_on_registered (engine_t *e, hearth_msg_t *msg)
{
    const char *id = hearth_json_str (msg->body, "app_id");
    bool again = e->registered;
    if (again && strcmp (id, e->app_id) != 0)
        log_warn ("the master registered the application as %s, not %s", id,
                  e->app_id);
    snprintf (e->app_id, sizeof e->app_id, "%s", id);
    e->registered = true;
    e->hb_interval_ms =
        hearth_json_int (msg->body, "heartbeat_interval_ms", e->hb_interval_ms);
    e->hb_liveness =
        hearth_json_int (msg->body, "heartbeat_liveness", e->hb_liveness);
    if (again && !e->master_linked)
        log_warn ("application %s registered again with %s after %lld ms",
                  e->app_id, e->master_url,
                  (long long) (hearth_mono_ms () - e->master_lost_ms));
    else
        log_info ("application %s %sregistered with %s", e->app_id,
                  again ? "re-" : "", e->master_url);
    e->master_linked = true;
    e->master_backoff_ms = e->hb_interval_ms;
    engine_signal_ready (e, NULL);
}

static void
s_on_executor_added (engine_t *e, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    log_info ("executor %d granted on %s (%lld cores)", exec_id,
              hearth_json_str (b, "host"),
              (long long) hearth_json_int (b, "cores", 0));
    execs_add (e, exec_id, (int) hearth_json_int (b, "cores", 1),
               hearth_json_str (b, "host"));
}

static void
s_on_executor_updated (engine_t *e, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    const char *state = hearth_json_str (b, "state");
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    if (streq (state, "LAUNCHING") || streq (state, "RUNNING"))
        return;
    char reason[300];
    const char *text = hearth_json_str (b, "message");
    snprintf (reason, sizeof reason, "%s%s%s%s", state,
              hearth_json_bool (b, "worker_lost", false) ? ", worker lost" : "",
              text ? ": " : "", text ? text : "");
    execs_lost (e, exec_id, reason);
}

static void
s_on_error (engine_t *e, hearth_msg_t *msg)
{
    char text[600];
    snprintf (text, sizeof text, "the master at %s says %s: %s", e->master_url,
              hearth_json_str (msg->body, "code"),
              hearth_json_str (msg->body, "message"));
    log_warn ("%s", text);
    if (!e->registered)
        engine_signal_ready (e, text);
    else if (!e->master_linked
             && streq (hearth_json_str (msg->body, "code"), "duplicate_app")) {
        /* The master ended the application while it could not hear us. */
        engine_app_dead (e, text);
    }
}

static void
s_dispatch (engine_t *e, hearth_msg_t *msg)
{
    switch (msg->cmd) {
    case HEARTH_CMD_REGISTERED_APPLICATION:
        s_on_registered (e, msg);
        break;
    case HEARTH_CMD_EXECUTOR_ADDED:
        s_on_executor_added (e, msg);
        break;
    case HEARTH_CMD_EXECUTOR_UPDATED:
        s_on_executor_updated (e, msg);
        break;
    case HEARTH_CMD_APPLICATION_REMOVED:
        log_warn ("the master removed the application: %s",
                  hearth_json_str (msg->body, "reason"));
        engine_app_dead (e, hearth_json_str (msg->body, "reason"));
        break;
    case HEARTH_CMD_RECONNECT_APPLICATION:
        if (e->registered)
            s_unlink (e, hearth_json_str (msg->body, "reason")
                             ? hearth_json_str (msg->body, "reason")
                             : "it asks to register again");
        else
            s_send_register (e);
        break;
    case HEARTH_CMD_ERROR:
        s_on_error (e, msg);
        break;
    case HEARTH_CMD_HEARTBEAT:
        break;
    default:
        log_warn ("unexpected %s from the master, ignored",
                  hearth_cmd_name (msg->cmd));
    }
}

static int
s_on_master (zloop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    engine_t *e = arg;
    hearth_error_t err;
    hearth_msg_t *msg = hearth_msg_recv (sock, NULL, &err);
    e->master_recv_ms = hearth_mono_ms ();
    if (!msg) {
        log_warn ("bad message from the master: %s", err.text);
        return 0;
    }
    s_dispatch (e, msg);
    hearth_msg_destroy (&msg);
    engine_process (e);
    return e->error[0] ? -1 : 0;
}

void
master_tick (engine_t *e)
{
    if (!e->master)
        return;
    int64_t now = hearth_mono_ms ();
    if (!e->registered) {
        if (now > e->register_deadline) {
            char text[600];
            snprintf (text, sizeof text,
                      "the master at %s did not register the application "
                      "within %lld ms",
                      e->master_url,
                      (long long) hearth_conf_ms (e->conf, "register-timeout"));
            engine_signal_ready (e, text);
        }
        return;
    }
    if (e->master_linked
        && now - e->master_recv_ms > e->hb_liveness * e->hb_interval_ms) {
        char why[128];
        snprintf (why, sizeof why, "silent for %lld ms",
                  (long long) (now - e->master_recv_ms));
        s_unlink (e, why);
    }
    if (!e->master_linked) {
        if (now >= e->master_next_attempt_ms)
            s_relink (e, now);
        return;
    }
    if (now - e->master_send_ms >= e->hb_interval_ms) {
        hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
        if (msg) {
            cJSON_AddStringToObject (msg->body, "id", e->app_id);
            s_send (e, &msg);
        }
    }
}

void
master_release_executor (engine_t *e, int exec_id, const char *reason)
{
    if (!e->master || !e->master_linked)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_EXECUTOR);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "app_id", e->app_id);
    cJSON_AddNumberToObject (msg->body, "exec_id", exec_id);
    cJSON_AddStringToObject (msg->body, "reason", reason);
    s_send (e, &msg);
}

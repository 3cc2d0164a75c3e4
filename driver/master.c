/*  master.c - the driver's link to the master (cluster and local-cluster
    modes): registering the application, heartbeats, and the executors the
    master grants or loses, dispatched by one handler table.

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
    ends the jobs.

    With a list of masters (libcore/masters.h), a registration nobody
    answered within the back-off, or a master silent for liveness
    intervals, sends the next attempt to the next URL; a standby's ERROR
    sends it to the leader it names (master_follow.c decides); messages
    of an older leader's epoch are dropped.

    At the end the driver tells the master how the application ended
    (UNREGISTER_APPLICATION) and waits for its answer (APPLICATION_REMOVED),
    up to register-timeout: a master that is down meanwhile gets the
    application registered again, then unregistered, once it is back, so
    that the end survives the master's restart.  (The message alone used
    to be lost with a master that was down, which then recorded the
    application FAILED, "driver lost".) */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/master.h"
#include "driver/master_int.h"
#include "driver/master_msgs.h"
#include "driver/master_watch.h"
#include "libcore/clock.h"
#include "libcore/curve.h"
#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/loglimit.h"
#include "libcore/masters.h"
#include "libcore/proto.h"
#include "libcore/sock.h"

/* The longest wait between two registration attempts. */
static const int64_t s_backoff_max_ms = 32000;

static int s_on_master (hearth_loop_t *loop, zsock_t *sock, void *arg);
static void s_fail (master_link_t *self, const char *text);

master_link_t *
master_link_new (const master_link_opts_t *opts, const master_link_cbs_t *cbs,
                 hearth_error_t *err)
{
    master_link_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->conf = opts->conf;
    self->loop = opts->loop;
    if (!(self->masters = hearth_masters_parse (opts->url, err))
        || !(self->log_limit = hearth_loglimit_new (60000, 16))) {
        if (self->masters)
            hearth_errprintf (err, "out of memory");
        master_link_destroy (&self);
        return NULL;
    }
    self->hb_interval_ms = opts->hb_interval_ms;
    self->hb_liveness = opts->hb_liveness;
    self->cbs = *cbs;
    /* without the settings' keys (our own local cluster's master): the
       local cookie, on loopback */
    if (opts->curve ? hearth_curve_client_setup (&self->curve, self->conf,
                                                 master_link_url (self), err)
                          < 0
                    : hearth_curve_client_local (&self->curve,
                                                 master_link_url (self), err)
                          < 0)
        master_link_destroy (&self);
    return self;
}

void
master_link_destroy (master_link_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    master_link_t *self = *self_p;
    master_watch_destroy (&self->watch, false); /* the loop may be gone */
    hearth_sock_destroy (&self->sock);
    hearth_curve_cleanup (&self->curve);
    hearth_masters_destroy (&self->masters);
    hearth_loglimit_destroy (&self->log_limit);
    free (self);
    *self_p = NULL;
    errno = saved;
}

bool
master_link_secure (const master_link_t *self)
{
    return hearth_curve_on (&self->curve);
}

const char *
master_link_waiting (const master_link_t *self)
{
    return self->waiting[0] ? self->waiting : NULL;
}

int
master_link_send (master_link_t *self, hearth_msg_t **msg_p)
{
    hearth_error_t err;
    int rc = hearth_msg_send (msg_p, self->sock, NULL, &err);
    if (self->loop) /* the socket's mailbox may have been read: loop.h */
        hearth_loop_sent (self->loop, self->sock);
    if (rc < 0) {
        log_warn ("to the master: %s", err.text);
        return -1;
    }
    self->send_ms = hearth_mono_ms ();
    return 0;
}

static void
s_send_register (master_link_t *self)
{
    master_reg_t reg = {.conf = self->conf,
                        .name = self->app_name,
                        .driver_url = self->driver_url,
                        .app_id = self->app_id,
                        .token = self->token,
                        .driver_key = self->driver_key,
                        .memory_mb = self->memory_mb};
    cJSON *executors = NULL;
    if (self->registered && (executors = cJSON_CreateArray ()))
        self->cbs.list_executors (self->cbs.arg, executors);
    hearth_msg_t *msg = master_msg_register (&reg, executors);
    if (msg)
        master_link_send (self, &msg);
    self->register_us = hearth_mono_us ();
    self->unanswered = true;
}

/* The watch found that waiting cannot help: start-up fails, unless
   another master of the list may do (the tick moves to it). */
static int
s_watch_fatal (void *arg, const char *text)
{
    master_link_t *self = arg;
    if (hearth_masters_count (self->masters) > 1) {
        log_warn ("%s", text);
        self->next_attempt_ms = hearth_mono_ms ();
        return 0;
    }
    s_fail (self, text);
    return -1;
}

/* A fresh DEALER to the master (the old one, if any, is dropped with
   whatever it still queued for a master that is gone). */
static int
s_connect (master_link_t *self, hearth_error_t *err)
{
    master_watch_destroy (&self->watch, true);
    if (self->sock) {
        hearth_loop_reader_end (self->loop, self->sock);
        hearth_sock_destroy (&self->sock);
    }
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&self->curve, &opts);
    if (!(self->sock = hearth_sock_new (&opts, err)))
        return -1;
    if (!self->registered)
        self->watch =
            master_watch_new (self->loop, self->sock, master_link_url (self),
                              &self->curve, s_watch_fatal, self);
    if (hearth_sock_connect (self->sock, master_link_url (self), err) < 0) {
        master_watch_destroy (&self->watch, true);
        hearth_sock_destroy (&self->sock);
        return -1;
    }
    if (hearth_loop_reader (self->loop, self->sock, s_on_master, self) < 0) {
        master_watch_destroy (&self->watch, true);
        hearth_sock_destroy (&self->sock);
        return hearth_errprintf (err, "out of memory");
    }
    return 0;
}

int
master_link_open (master_link_t *self, const master_link_app_t *app,
                  hearth_error_t *err)
{
    snprintf (self->app_name, sizeof self->app_name, "%s", app->name);
    snprintf (self->driver_url, sizeof self->driver_url, "%s", app->driver_url);
    snprintf (self->token, sizeof self->token, "%s", app->token);
    snprintf (self->driver_key, sizeof self->driver_key, "%s",
              app->driver_key ? app->driver_key : "");
    self->memory_mb = app->memory_mb;
    if (s_connect (self, err) < 0)
        return -1;
    self->register_deadline =
        hearth_mono_ms () + hearth_conf_ms (self->conf, "register-timeout");
    self->recv_ms = hearth_mono_ms ();
    self->backoff_ms = self->hb_interval_ms;
    self->next_attempt_ms = self->recv_ms + self->backoff_ms;
    s_send_register (self);
    return 0;
}

/* Register again on a fresh socket, now and then at back-off: with the
   next master when the current one has not answered the last attempt. */
static void
s_relink (master_link_t *self, int64_t now)
{
    hearth_error_t err;
    if (self->unanswered && !self->reopen)
        master_follow_next (self, "did not answer");
    self->reopen = false;
    self->next_attempt_ms = now + self->backoff_ms;
    self->backoff_ms = self->backoff_ms * 2 > s_backoff_max_ms
                           ? s_backoff_max_ms
                           : self->backoff_ms * 2;
    if (s_connect (self, &err) < 0) {
        log_warn ("cannot reconnect to the master at %s: %s",
                  master_link_url (self), err.text);
        return;
    }
    log_info ("registering %s%s with the master at %s (next attempt in "
              "%lld ms)",
              self->registered ? self->app_id : "the application",
              self->registered ? " again" : "", master_link_url (self),
              (long long) (self->next_attempt_ms - now));
    s_send_register (self);
}

/* The link is down: register again from the next tick on (never inside
   the socket's own reader). */
static void
s_unlink (master_link_t *self, const char *why)
{
    if (!self->linked)
        return;
    log_warn ("the master at %s: %s; registering again (jobs go on)",
              master_link_url (self), why);
    self->linked = false;
    self->lost_ms = hearth_mono_ms ();
    self->backoff_ms = self->hb_interval_ms;
    self->next_attempt_ms = hearth_mono_ms ();
}

static void
s_send_unregister (master_link_t *self)
{
    hearth_msg_t *msg =
        master_msg_unregister (self->app_id, self->end_state, self->end_reason);
    if (msg)
        master_link_send (self, &msg);
}

/* Start-up failed: the owner hears why, the loop ends. */
static void
s_fail (master_link_t *self, const char *text)
{
    self->failed = true;
    self->cbs.failed (self->cbs.arg, text);
}

/* ---- the DEALER's handlers ---------------------------------------------- */

typedef void s_handler_fn (master_link_t *self, hearth_msg_t *msg);

static void
s_registered (master_link_t *self, hearth_msg_t *msg)
{
    if (self->finishing && !self->linked) { /* back: tell it the end */
        self->linked = true;
        self->backoff_ms = self->hb_interval_ms;
        log_info ("application %s registered again with %s: unregistering",
                  self->app_id, master_link_url (self));
        s_send_unregister (self);
        return;
    }
    const char *id = hearth_json_str (msg->body, "app_id");
    bool again = self->registered;
    if (again && strcmp (id, self->app_id) != 0)
        log_warn ("the master registered the application as %s, not %s", id,
                  self->app_id);
    snprintf (self->app_id, sizeof self->app_id, "%s", id);
    self->registered = true;
    master_watch_destroy (&self->watch, true); /* the link works */
    self->hb_interval_ms = hearth_json_int (msg->body, "heartbeat_interval_ms",
                                            self->hb_interval_ms);
    self->hb_liveness =
        hearth_json_int (msg->body, "heartbeat_liveness", self->hb_liveness);
    if (again && !self->linked)
        log_warn ("application %s registered again with %s after %lld ms",
                  self->app_id, master_link_url (self),
                  (long long) (hearth_mono_ms () - self->lost_ms));
    else
        log_info ("application %s %sregistered with %s (round trip %.1f ms)",
                  self->app_id, again ? "re-" : "", master_link_url (self),
                  (double) (hearth_mono_us () - self->register_us) / 1000.0);
    self->linked = true;
    self->leader_hops = 0;
    self->backoff_ms = self->hb_interval_ms;
    self->cbs.registered (self->cbs.arg, self->app_id, self->hb_interval_ms,
                          self->hb_liveness);
}

static void
s_executor_added (master_link_t *self, hearth_msg_t *msg)
{
    if (self->finishing)
        return; /* the executors are stopping: news of them is moot */
    const cJSON *b = msg->body;
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    log_info ("executor %d granted on %s (%lld cores)", exec_id,
              hearth_json_str (b, "host"),
              (long long) hearth_json_int (b, "cores", 0));
    self->cbs.executor_added (
        self->cbs.arg, exec_id, (int) hearth_json_int (b, "cores", 1),
        hearth_json_str (b, "host"), hearth_json_str (b, "worker_id"),
        hearth_json_int (b, "memory_mb", 0));
}

static void
s_executor_updated (master_link_t *self, hearth_msg_t *msg)
{
    if (self->finishing)
        return;
    const cJSON *b = msg->body;
    const char *state = hearth_json_str (b, "state");
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    if (streq (state, "LAUNCHING") || streq (state, "RUNNING"))
        return;
    char reason[300];
    const char *text = hearth_json_str (b, "message");
    const char *why = hearth_json_str (b, "reason");
    if (why && streq (why, "APPLICATION_ENDED") && self->cbs.app_ending)
        self->cbs.app_ending (self->cbs.arg);
    if (why && streq (why, "RELEASED")) {
        /* given back by dynamic allocation: not a loss */
        self->cbs.executor_lost (self->cbs.arg, exec_id,
                                 text ? text : "released by dynamic allocation",
                                 hearth_json_int (b, "peak_rss_bytes", -1));
        return;
    }
    if (why && text) {
        /* OOM_KILLED: its worker's words ("killed: out of memory, limit
           1088 MiB, peak 1088 MiB") */
        const char *worker = hearth_json_str (b, "worker_id");
        log_warn ("executor %d on worker %s %s", exec_id, worker ? worker : "?",
                  text);
        state = why;
    }
    bool worker_lost = hearth_json_bool (b, "worker_lost", false);
    snprintf (reason, sizeof reason, "%s%s%s%s", state,
              worker_lost ? ", worker lost" : "", text ? ": " : "",
              text ? text : "");
    int64_t peak = hearth_json_int (b, "peak_rss_bytes", -1);
    if (worker_lost && self->cbs.worker_lost)
        self->cbs.worker_lost (self->cbs.arg, exec_id,
                               hearth_json_str (b, "worker_id"), reason, peak);
    else
        self->cbs.executor_lost (self->cbs.arg, exec_id, reason, peak);
}

static void
s_executor_decommissioning (master_link_t *self, hearth_msg_t *msg)
{
    if (self->finishing || !self->cbs.executor_decommissioning)
        return;
    const cJSON *b = msg->body;
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    const char *worker = hearth_json_str (b, "worker_id");
    log_info ("executor %d: its worker %s leaves (%s)", exec_id,
              worker ? worker : "?", hearth_json_str (b, "reason"));
    self->cbs.executor_decommissioning (self->cbs.arg, exec_id,
                                        hearth_json_str (b, "reason"));
}

/* The master answered UNREGISTER_APPLICATION (or had ended the
   application already): the end is recorded. */
static void
s_unregistered (master_link_t *self, const char *state, const char *reason)
{
    self->unregistered = true;
    if (!state) /* it does not know the application, or will not say */
        log_warn ("the master at %s did not record the end of %s: %s",
                  master_link_url (self), self->app_id, reason);
    else if (strcmp (state, self->end_state) != 0)
        log_warn ("the master at %s had ended application %s already: %s "
                  "(%s)",
                  master_link_url (self), self->app_id, state, reason);
    else
        log_info ("the master at %s recorded the end of %s: %s",
                  master_link_url (self), self->app_id, state);
}

static void
s_application_removed (master_link_t *self, hearth_msg_t *msg)
{
    const char *reason = hearth_json_str (msg->body, "reason");
    if (self->finishing) {
        s_unregistered (self, hearth_json_str (msg->body, "state"), reason);
        return;
    }
    log_warn ("the master removed the application: %s", reason);
    /* Its end is the master's record already: nothing to wait for at the
       close (a driver cut off, its key removed, would wait for an answer
       that cannot come). */
    self->unregistered = true;
    self->cbs.app_dead (self->cbs.arg, reason);
}

/* The master says why the application waits (docs/cluster.md "Why an
   application waits"): the user hears it, once per reason, and the
   engine's "no executor after 10 s" repeats it. */
static void
s_application_waiting (master_link_t *self, hearth_msg_t *msg)
{
    const char *reason = hearth_json_str (msg->body, "reason");
    const char *code = hearth_json_str (msg->body, "code");
    if (reason && *reason) {
        snprintf (self->waiting, sizeof self->waiting, "%s%s%s%s", reason,
                  code ? " (" : "", code ? code : "", code ? ")" : "");
        /* Waiting for workers to come, or for others' cores, is what
           every start goes through (local-cluster's workers register
           after its driver): said aloud only if it lasts, by the
           warning of no executor (starved.c), which repeats it. */
        bool passing = code
                       && (strcmp (code, "no_worker") == 0
                           || strcmp (code, "cluster_full") == 0);
        hearth_log (passing ? HEARTH_LOG_INFO : HEARTH_LOG_WARN,
                    "the master holds the application back: %s", self->waiting);
    }
    else {
        self->waiting[0] = '\0';
        log_info ("the master no longer holds the application back");
    }
}

static void
s_reconnect (master_link_t *self, hearth_msg_t *msg)
{
    const char *reason = hearth_json_str (msg->body, "reason");
    if (self->registered)
        s_unlink (self, reason ? reason : "it asks to register again");
    else
        s_send_register (self);
}

static void
s_error (master_link_t *self, hearth_msg_t *msg)
{
    char text[600];
    if (streq (hearth_json_str (msg->body, "code"), "standby")) {
        master_follow_standby (self, msg);
        return;
    }
    snprintf (text, sizeof text, "the master at %s says %s: %s",
              master_link_url (self), hearth_json_str (msg->body, "code"),
              hearth_json_str (msg->body, "message"));
    log_warn ("%s", text);
    if (self->finishing
        && streq (hearth_json_str (msg->body, "code"), "duplicate_app"))
        s_unregistered (self, NULL, hearth_json_str (msg->body, "message"));
    else if (!self->registered)
        s_fail (self, text);
    else if (!self->linked
             && streq (hearth_json_str (msg->body, "code"), "duplicate_app")) {
        /* The master ended the application while it could not hear us. */
        self->cbs.app_dead (self->cbs.arg, text);
    }
}

/* Nothing to do but the sign of life s_on_master has counted. */
static void
s_heartbeat (master_link_t *self, hearth_msg_t *msg)
{
    (void) self;
    (void) msg;
}

static const struct {
    hearth_cmd_t cmd;      /* what arrived */
    s_handler_fn *handler; /* what to do */
} s_handlers[] = {
    {HEARTH_CMD_HEARTBEAT, s_heartbeat},
    {HEARTH_CMD_REGISTERED_APPLICATION, s_registered},
    {HEARTH_CMD_EXECUTOR_ADDED, s_executor_added},
    {HEARTH_CMD_EXECUTOR_UPDATED, s_executor_updated},
    {HEARTH_CMD_APPLICATION_REMOVED, s_application_removed},
    {HEARTH_CMD_APPLICATION_WAITING, s_application_waiting},
    {HEARTH_CMD_RECONNECT_APPLICATION, s_reconnect},
    {HEARTH_CMD_ERROR, s_error},
    {HEARTH_CMD_EXECUTOR_DECOMMISSIONING, s_executor_decommissioning},
};

static void
s_dispatch (master_link_t *self, hearth_msg_t *msg)
{
    for (size_t i = 0; i < sizeof s_handlers / sizeof s_handlers[0]; i++)
        if (s_handlers[i].cmd == msg->cmd) {
            s_handlers[i].handler (self, msg);
            return;
        }
    log_warn ("unexpected %s from the master, ignored",
              hearth_cmd_name (msg->cmd));
}

static int
s_on_master (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    master_link_t *self = arg;
    /* One message a call (the master sends few); the loop calls again
       until none is left.  The socket is replaced only from the tick
       (s_relink), never under this handler. */
    hearth_error_t err;
    bool none;
    hearth_msg_t *msg =
        hearth_msg_try_recv_from (sock, NULL, NULL, &none, &err);
    if (none)
        return 0;
    if (!msg && hearth_recv_broken (&err)) {
        log_error ("the master's socket: %s", err.text);
        return -1;
    }
    if (msg && !master_follow_fence (self, msg)) {
        hearth_msg_destroy (&msg);
        return 1;
    }
    self->recv_ms = hearth_mono_ms ();
    if (!msg) {
        log_warn ("bad message from the master: %s", err.text);
        return 1;
    }
    self->unanswered = false;
    s_dispatch (self, msg);
    hearth_msg_destroy (&msg);
    return self->failed ? -1 : 1;
}

/* ---- the tick ------------------------------------------------------------ */

static void
s_heartbeat_out (master_link_t *self)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    if (msg) {
        cJSON_AddStringToObject (msg->body, "id", self->app_id);
        master_link_send (self, &msg);
    }
}

void
master_link_tick (master_link_t *self)
{
    if (!self->sock)
        return;
    int64_t now = hearth_mono_ms ();
    if (!self->registered) {
        if (self->watch)
            master_watch_tick (self->watch);
        const char *last = self->watch ? master_watch_last (self->watch) : NULL;
        bool many = hearth_masters_count (self->masters) > 1;
        if (!self->failed && now > self->register_deadline) {
            char text[HEARTH_MASTERS_MAX * (HEARTH_MASTER_URL_MAX + 2) + 1400];
            snprintf (
                text, sizeof text,
                "%s%s%s did not register the application within %lld ms%s%s",
                many ? "none of the masters (" : "the master at ",
                many ? hearth_masters_text (self->masters)
                     : master_link_url (self),
                many ? ")" : "",
                (long long) hearth_conf_ms (self->conf, "register-timeout"),
                last ? ": " : "", last ? last : "");
            s_fail (self, text);
        }
        if (!self->failed && now >= self->next_attempt_ms
            && (self->reopen || (many && self->unanswered)))
            s_relink (self, now);
        return;
    }
    if (self->linked
        && now - self->recv_ms > self->hb_liveness * self->hb_interval_ms) {
        char why[128];
        snprintf (why, sizeof why, "silent for %lld ms",
                  (long long) (now - self->recv_ms));
        s_unlink (self, why);
        master_follow_next (self, "is silent");
    }
    if (!self->linked) {
        if (now >= self->next_attempt_ms)
            s_relink (self, now);
        return;
    }
    if (now - self->send_ms >= self->hb_interval_ms)
        s_heartbeat_out (self);
}

/* ---- the end ------------------------------------------------------------- */

/* Say once that the driver waits for the master, and for how long. */
static void
s_say_waiting (master_link_t *self, int64_t wait_ms)
{
    log_warn ("the master at %s has not confirmed the end of application %s "
              "(%s): waiting up to %lld ms for the master (a second Ctrl-C "
              "stops waiting)",
              master_link_url (self), self->app_id, self->end_state,
              (long long) wait_ms);
}

/* Serve the link, alone, until the master has recorded the end or
   deadline: registering again if it is gone, then unregistering. */
static void
s_wait_unregistered (master_link_t *self, int64_t deadline, int64_t wait_ms)
{
    bool said = false;
    int64_t start = hearth_mono_ms (), now = start;
    while (!self->unregistered && now < deadline) {
        if (!said && (!self->linked || now - start >= self->hb_interval_ms)) {
            s_say_waiting (self, deadline - now);
            said = true;
        }
        int64_t wait = deadline - now < self->hb_interval_ms / 4 + 1
                           ? deadline - now
                           : self->hb_interval_ms / 4 + 1;
        zmq_pollitem_t item = {self->sock ? zsock_resolve (self->sock) : NULL,
                               0, ZMQ_POLLIN, 0};
        if (zmq_poll (&item, self->sock ? 1 : 0, (long) wait) > 0
            && (item.revents & ZMQ_POLLIN))
            s_on_master (NULL, self->sock, self);
        master_link_tick (self);
        now = hearth_mono_ms ();
    }
    if (!self->unregistered)
        log_warn ("the master at %s did not confirm the end of application %s "
                  "within %lld ms: it will record it FAILED (driver lost)",
                  master_link_url (self), self->app_id, (long long) wait_ms);
}

void
master_link_close (master_link_t *self, const char *state, const char *reason,
                   int64_t wait_ms)
{
    master_watch_destroy (&self->watch, true); /* it serves on the loop */
    if (!self->sock)
        return;
    if (!self->registered) /* a registration nobody took: do not linger */
        zsock_set_linger (self->sock, 0);
    if (self->registered) {
        self->finishing = true;
        snprintf (self->end_state, sizeof self->end_state, "%s", state);
        snprintf (self->end_reason, sizeof self->end_reason, "%s", reason);
        if (self->linked && !self->unregistered)
            s_send_unregister (self);
        if (wait_ms > 0 && !self->unregistered)
            s_wait_unregistered (self, hearth_mono_ms () + wait_ms, wait_ms);
        else /* nobody to wait for: what is queued is all there is */
            zsock_set_linger (self->sock, 0);
    }
    if (self->sock)
        hearth_loop_reader_end (self->loop, self->sock);
    hearth_sock_destroy (&self->sock);
}

/*  master.c - the driver's link to the master (cluster and local-cluster
    modes): registering the application, heartbeats, and the executors the
    master grants or loses, dispatched by one handler table.

    The link itself is libcore/uplink.h, the worker's too (protocol.md
    §7): any message from the master is a sign of life; when the master
    has been silent for liveness x interval, or says
    RECONNECT_APPLICATION, the driver drops its DEALER and registers again
    on a fresh one, under the same app_id and listing the executors it
    has, at the uplink's back-off (up to HEARTH_UPLINK_BACKOFF_MAX_MS).
    Before the first registration it holds its one registration on its
    one socket (sent twice, it would register two applications), unless
    a list of masters moves on.  Jobs go on all the while: the executors
    talk to the driver, not to the master.  A master that answers that
    the application has ended (it gave up on the driver) ends the jobs.

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

#include "libcore/clock.h"
#include "libcore/curve.h"
#include "libcore/dispatch.h"
#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "libhearth/master.h"
#include "libhearth/master_int.h"
#include "libhearth/master_msgs.h"
#include "libhearth/resume.h"

static void s_fail (master_link_t *self, const char *text);
static void s_on_message (void *arg, hearth_msg_t *msg);

/* ---- what the uplink asks and tells --------------------------------- */

static hearth_msg_t *
s_registration (void *arg, bool again)
{
    master_link_t *self = arg;
    master_reg_t reg = {.conf = self->conf,
                        .name = self->app_name,
                        .driver_url = self->driver_url,
                        .app_id = self->app_id,
                        .token = self->token,
                        .driver_key = self->driver_key,
                        .memory_mb = self->memory_mb,
                        .driver_epoch = self->driver_epoch};
    cJSON *executors = NULL;
    if (again && (executors = cJSON_CreateArray ()))
        self->cbs.list_executors (self->cbs.arg, executors);
    self->register_us = hearth_mono_us ();
    return master_msg_register (&reg, executors);
}

static hearth_msg_t *
s_heartbeat_out (void *arg)
{
    master_link_t *self = arg;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    if (msg)
        cJSON_AddStringToObject (msg->body, "id", self->app_id);
    return msg;
}

static void s_registered (void *arg, const hearth_msg_t *msg, bool again);

static void
s_down (void *arg, const char *why)
{
    (void) why;
    master_link_t *self = arg;
    if (!self->lost)
        self->lost_ms = hearth_mono_ms ();
    self->lost = true; /* the jobs go on */
}

static void
s_fatal (void *arg, const char *why)
{
    s_fail (arg, why);
}

static int
s_on_sock (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    master_link_t *self = arg;
    int rc = hearth_uplink_on_readable (self->uplink, sock, hearth_mono_ms ());
    return self->failed ? -1 : rc;
}

static void
s_serve (void *arg, zsock_t *sock, bool on)
{
    master_link_t *self = arg;
    if (!self->loop)
        return;
    if (!on)
        hearth_loop_reader_end (self->loop, sock);
    else if (hearth_loop_reader (self->loop, sock, s_on_sock, self) < 0)
        log_warn ("the link to the master: out of memory");
}

static void
s_sent (void *arg, zsock_t *sock)
{
    master_link_t *self = arg;
    if (self->loop) /* the socket's mailbox may have been read: loop.h */
        hearth_loop_sent (self->loop, sock);
}

/* ---- the link ------------------------------------------------------- */

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
    self->cbs = *cbs;
    hearth_uplink_opts_t uopts = {
        .url = opts->url,
        .curve = &self->curve,
        .who = "the application",
        .registered_cmd = HEARTH_CMD_REGISTERED_APPLICATION,
        .reconnect_cmd = HEARTH_CMD_RECONNECT_APPLICATION,
        .interval_ms = opts->hb_interval_ms,
        .liveness = opts->hb_liveness,
        .register_timeout_ms = hearth_conf_ms (self->conf, "register-timeout"),
        .failover = true,
        .hold_first = true,
        .watch_fatal = true};
    hearth_uplink_cbs_t ucbs = {s_registration, s_heartbeat_out, s_registered,
                                s_down,         s_on_message,    s_fatal,
                                s_serve,        s_sent,          self};
    if (!(self->uplink = hearth_uplink_new (&uopts, &ucbs, err))) {
        master_link_destroy (&self);
        return NULL;
    }
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
    hearth_uplink_destroy (&self->uplink); /* the loop may be gone */
    hearth_curve_cleanup (&self->curve);
    resume_destroy (&self->resume);
    free (self);
    *self_p = NULL;
    errno = saved;
}

const char *
master_link_url (const master_link_t *self)
{
    return hearth_uplink_url (self->uplink);
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

bool
master_link_up (const master_link_t *self)
{
    return self->opened && hearth_uplink_up (self->uplink);
}

int
master_link_send (master_link_t *self, hearth_msg_t **msg_p)
{
    return hearth_uplink_send (self->uplink, msg_p, hearth_mono_ms ());
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
    if (hearth_uplink_open (self->uplink, hearth_mono_ms (), err) < 0)
        return -1;
    self->opened = true;
    return 0;
}

static void
s_send_unregister (master_link_t *self)
{
    hearth_msg_t *msg = master_msg_unregister (
        self->app_id, self->end_state, self->end_reason, self->driver_epoch);
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

/* The registration is done: the owner hears it. */
static void
s_registered_done (master_link_t *self)
{
    self->cbs.registered (self->cbs.arg, self->app_id,
                          hearth_uplink_interval (self->uplink),
                          hearth_uplink_liveness (self->uplink));
}

static void
s_registered (void *arg, const hearth_msg_t *msg, bool again)
{
    master_link_t *self = arg;
    bool lost = self->lost;
    self->lost = false;
    if (self->finishing && lost) { /* back: tell it the end */
        log_info ("application %s registered again with %s: unregistering",
                  self->app_id, master_link_url (self));
        s_send_unregister (self);
        return;
    }
    const char *id = hearth_json_str (msg->body, "app_id");
    if (again && strcmp (id, self->app_id) != 0)
        log_warn ("the master registered the application as %s, not %s", id,
                  self->app_id);
    snprintf (self->app_id, sizeof self->app_id, "%s", id);
    if (master_resume_registered (self, msg))
        return; /* done once its outputs table is in */
    if (again && lost)
        log_warn ("application %s registered again with %s after %lld ms",
                  self->app_id, master_link_url (self),
                  (long long) (hearth_mono_ms () - self->lost_ms));
    else
        log_info ("application %s %sregistered with %s (round trip %.1f ms)",
                  self->app_id, again ? "re-" : "", master_link_url (self),
                  (double) (hearth_mono_us () - self->register_us) / 1000.0);
    s_registered_done (self);
}

/* APPLICATION_OUTPUTS, after a resumed registration: once its last batch
   is in, the registration is done. */
static void
s_application_outputs (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_link_t *self = arg;
    (void) from; /* the master: the link's one peer */
    if (!master_resume_outputs (self, msg))
        return;
    self->cbs.resumed (self->cbs.arg, &self->resume, self->token);
    s_registered_done (self);
}

void
master_link_send_outputs (master_link_t *self, struct record *record)
{
    hearth_msg_t *msg;
    while (master_link_up (self) && !self->finishing
           && (msg = master_resume_outputs_msg (self, record)))
        if (master_link_send (self, &msg) < 0)
            return; /* logged; those outputs are not recorded */
}

static void
s_executor_added (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_link_t *self = arg;
    (void) from; /* the master: the link's one peer */
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
        hearth_json_int (b, "memory_mb", 0),
        cJSON_GetObjectItemCaseSensitive (b, "labels"));
}

static void
s_executor_updated (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_link_t *self = arg;
    (void) from; /* the master: the link's one peer */
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
s_executor_decommissioning (void *arg, const hearth_from_t *from,
                            hearth_msg_t *msg)
{
    master_link_t *self = arg;
    (void) from; /* the master: the link's one peer */
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
s_application_removed (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_link_t *self = arg;
    (void) from; /* the master: the link's one peer */
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
s_application_waiting (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_link_t *self = arg;
    (void) from; /* the master: the link's one peer */
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
s_error (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_link_t *self = arg;
    (void) from; /* the master: the link's one peer */
    char text[600];
    snprintf (text, sizeof text, "the master at %s says %s: %s",
              master_link_url (self), hearth_json_str (msg->body, "code"),
              hearth_json_str (msg->body, "message"));
    if (master_resume_fenced (self, msg, text))
        return;
    log_warn ("%s", text);
    if (self->finishing
        && streq (hearth_json_str (msg->body, "code"), "duplicate_app"))
        s_unregistered (self, NULL, hearth_json_str (msg->body, "message"));
    else if (!hearth_uplink_ever (self->uplink))
        s_fail (self, text);
    else if (!hearth_uplink_up (self->uplink)
             && streq (hearth_json_str (msg->body, "code"), "duplicate_app")) {
        /* The master ended the application while it could not hear us. */
        self->cbs.app_dead (self->cbs.arg, text);
    }
}

/* Nothing to do but the sign of life the uplink has counted. */
static void
s_heartbeat (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) arg;
    (void) from; /* the master: the link's one peer */
    (void) msg;
}

static const hearth_handler_t s_handlers[] = {
    {HEARTH_CMD_HEARTBEAT, s_heartbeat},
    {HEARTH_CMD_EXECUTOR_ADDED, s_executor_added},
    {HEARTH_CMD_EXECUTOR_UPDATED, s_executor_updated},
    {HEARTH_CMD_APPLICATION_REMOVED, s_application_removed},
    {HEARTH_CMD_APPLICATION_WAITING, s_application_waiting},
    {HEARTH_CMD_ERROR, s_error},
    {HEARTH_CMD_EXECUTOR_DECOMMISSIONING, s_executor_decommissioning},
    {HEARTH_CMD_APPLICATION_OUTPUTS, s_application_outputs},
};

/* What the uplink passes on (it handles the registration's answer,
   RECONNECT_APPLICATION and a standby's ERROR). */
static void
s_on_message (void *arg, hearth_msg_t *msg)
{
    if (hearth_dispatch (HEARTH_HANDLERS (s_handlers), arg, NULL, msg) == 0)
        return;
    log_warn ("unexpected %s from the master, ignored",
              hearth_cmd_name (msg->cmd));
}

void
master_link_tick (master_link_t *self)
{
    if (self->opened)
        hearth_uplink_tick (self->uplink, hearth_mono_ms ());
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
        int64_t interval = hearth_uplink_interval (self->uplink);
        zsock_t *sock = hearth_uplink_sock (self->uplink);
        if (!said
            && (!hearth_uplink_up (self->uplink) || now - start >= interval)) {
            s_say_waiting (self, deadline - now);
            said = true;
        }
        int64_t wait = deadline - now < interval / 4 + 1 ? deadline - now
                                                         : interval / 4 + 1;
        zmq_pollitem_t item = {sock ? zsock_resolve (sock) : NULL, 0,
                               ZMQ_POLLIN, 0};
        if (zmq_poll (&item, sock ? 1 : 0, (long) wait) > 0
            && (item.revents & ZMQ_POLLIN))
            hearth_uplink_on_readable (self->uplink, sock, hearth_mono_ms ());
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
    if (!self->opened)
        return;
    self->opened = false; /* nothing more goes */
    bool ever = hearth_uplink_ever (self->uplink);
    int linger = ever ? -1 : 0; /* a registration nobody took: do not
                                   linger */
    if (ever) {
        self->opened = true; /* serve the end */
        self->finishing = true;
        snprintf (self->end_state, sizeof self->end_state, "%s", state);
        snprintf (self->end_reason, sizeof self->end_reason, "%s", reason);
        if (hearth_uplink_up (self->uplink) && !self->unregistered)
            s_send_unregister (self);
        if (wait_ms > 0 && !self->unregistered)
            s_wait_unregistered (self, hearth_mono_ms () + wait_ms, wait_ms);
        else /* nobody to wait for: what is queued is all there is */
            linger = 0;
        self->opened = false;
    }
    hearth_uplink_close (self->uplink, linger);
}

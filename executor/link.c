/*  link.c - the executor's connection to its driver; see link.h.

    A DEALER socket to the driver's ROUTER, kept by libcore/uplink.h (the
    link every peer that registers with another uses): registration,
    liveness, heartbeats only when nothing else was sent for an interval.
    Liveness only: the executor registers once, and a driver silent for
    liveness x interval (or that never answered) is fatal: it exits.  In:
    REGISTERED_EXECUTOR (naming the application's shipped libraries and
    files), LAUNCH_TASKS, FILE_CHUNK, KILL_TASK, STOP_EXECUTOR, ERROR,
    HEARTBEAT (orders.c's handlers).  Out: REGISTER_EXECUTOR once,
    FETCH_FILE (shipfetch.h's), STATUS_UPDATE in batches (all
    the updates that are ready when a read of the socket ends go in one
    message), HEARTBEAT, and ERROR for a LAUNCH_TASKS it cannot decode.
    The link owns the task table, which hands it the updates through the
    callbacks of tasks_events_t.
*/
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor/link.h"
#include "executor/link_int.h"
#include "executor/partcache.h"
#include "executor/peak.h"
#include "executor/shuffletask.h"
#include "executor/tasks.h"
#include "libcore/clock.h"
#include "libcore/keys.h"
#include "libcore/log.h"
#include "libcore/loglimit.h"
#include "libcore/packed.h"
#include "libcore/proto.h"
#include "libcore/sock.h"

/* Messages read per wake-up before letting the loop run other handlers. */
static const int s_max_drain = 256;
/* Flush a STATUS_UPDATE once it holds this many updates or bytes. */
static const int s_batch_max_updates = 4096;
static const size_t s_batch_max_bytes = 8 * 1024 * 1024;
/* Results up to this size travel inside the packed updates; larger ones
   get a binary frame of their own (not copied twice). */
static const size_t s_inline_result_max = 64 * 1024;
/* While the executor holds more than twice as many tasks as cores (work
   enough queued), finished tasks are reported at most this late, several
   to a message (s_flush_soon). */
static const int s_flush_delay_ms = 2;
/* What the driver sends wrong is logged once per kind per this period
   (then counted): a peer that sends garbage does not fill the log. */
static const int64_t s_log_period_ms = 60000;
/* Kinds of such lines (a few fixed keys). */
static const size_t s_log_keys_max = 16;

static void s_add_update (void *arg, const task_t *t, const char *state,
                          const char *error, const void *result, size_t len);
static void s_flush (void *arg);
static void s_flush_soon (void *arg);

static int
s_send (link_t *self, hearth_msg_t **msg_p)
{
    return hearth_uplink_send (self->uplink, msg_p, hearth_mono_ms ());
}

/* shipfetch's way to the driver. */
static int
s_ship_send (void *arg, hearth_msg_t **msg_p)
{
    return s_send (arg, msg_p);
}

/* The shipped files are in place: the tasks held back may start. */
static void
s_ship_ready (void *arg)
{
    link_t *self = arg;
    tasks_dispatch (self->tasks);
}

/* The task table's ask_commit callback: ASK_COMMIT for t, now (its
   updates before it may wait for their batch: the driver answers the
   attempt it knows from its launch). */
static void
s_ask_commit (void *arg, const task_t *t)
{
    link_t *self = arg;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_ASK_COMMIT);
    if (!msg || !cJSON_AddNumberToObject (msg->body, "tid", (double) t->tid)
        || !cJSON_AddNumberToObject (msg->body, "attempt", t->attempt)) {
        hearth_msg_destroy (&msg);
        log_error ("out of memory asking to commit task %llu's output",
                   (unsigned long long) t->tid);
        return;
    }
    if (s_send (self, &msg) < 0)
        log_warn ("cannot ask to commit task %llu's output",
                  (unsigned long long) t->tid);
}

/* ---- what the uplink asks and tells --------------------------------- */

static hearth_msg_t *
s_registration (void *arg, bool again)
{
    (void) again; /* never: the executor registers once */
    link_t *self = arg;
    executor_t *ex = self->ex;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_EXECUTOR);
    if (!msg)
        return NULL;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", ex->app_id);
    cJSON_AddNumberToObject (b, "exec_id", (double) ex->exec_id);
    cJSON_AddStringToObject (b, "host", ex->host);
    cJSON_AddNumberToObject (b, "cores", ex->cores);
    cJSON_AddNumberToObject (b, "pid", getpid ());
    if (ex->token)
        cJSON_AddStringToObject (b, "token", ex->token);
    if (ex->shuffle_url)
        cJSON_AddStringToObject (b, "shuffle_url", ex->shuffle_url);
    if (ex->shuffle_key)
        cJSON_AddStringToObject (b, "shuffle_key", ex->shuffle_key);
    cJSON *res =
        ex->resources.n ? hearth_resources_to_json (&ex->resources) : NULL;
    if (res)
        cJSON_AddItemToObject (b, "resources", res);
    return msg;
}

static hearth_msg_t *s_heartbeat (void *arg);

static void
s_registered (void *arg, const hearth_msg_t *msg, bool again)
{
    (void) again;
    link_t *self = arg;
    self->heard++;
    link_registered (self, msg);
}

static void
s_message (void *arg, hearth_msg_t *msg)
{
    link_t *self = arg;
    if (self->ex->stopping)
        return; /* the loop ends after this read: nothing more is done */
    self->heard++;
    link_dispatch (self, msg);
}

/* The driver is gone (silent, or it never answered): the executor exits,
   with status 1 when it never registered. */
static void
s_fatal (void *arg, const char *why)
{
    link_t *self = arg;
    executor_t *ex = self->ex;
    if (hearth_uplink_ever (self->uplink))
        log_warn ("%s: exiting", why);
    else {
        log_error ("%s: exiting", why);
        ex->exit_code = 1;
    }
    ex->stopping = true;
}

static void s_refuse_launch (void *arg, const hearth_msg_t *refused,
                             const hearth_error_t *err);

static int
s_on_driver (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    link_t *self = arg;
    self->heard = 0;
    int rc = hearth_uplink_on_readable (self->uplink, sock, hearth_mono_ms ());
    if (self->heard)
        s_flush (self);
    return self->ex->stopping || rc < 0 ? -1 : rc; /* 1: call again */
}

static void
s_serve (void *arg, zsock_t *sock, bool on)
{
    link_t *self = arg;
    if (!on)
        hearth_loop_reader_end (self->ex->loop, sock);
    else if (hearth_loop_reader (self->ex->loop, sock, s_on_driver, self) < 0)
        log_error ("the link to the driver: out of memory");
}

static void
s_sent (void *arg, zsock_t *sock)
{
    link_t *self = arg;
    /* the socket's mailbox may have been read: loop.h */
    hearth_loop_sent (self->ex->loop, sock);
}

/* ---- the link ------------------------------------------------------- */

/* Our throw-away CURVE keys and the driver's key, when it has one (an
   encrypted link to a driver of a secure cluster: the driver admits us
   by the application's token).  0, or -1 with err. */
static int
s_curve (link_t *self, hearth_error_t *err)
{
    const char *key = hearth_conf_str (self->ex->conf, "driver-key");
    if (!key || !*key)
        return 0;
    if (strlen (key) != HEARTH_KEY_TXT_LEN
        || !(self->curve.cert = zcert_new ()))
        return hearth_errprintf (err, "bad --driver-key");
    snprintf (self->curve.server_key, sizeof self->curve.server_key, "%s", key);
    return 0;
}

/* The uplink to the driver: one registration, liveness only; its
   deadline (liveness x interval) and its silence are fatal. */
static int
s_uplink (link_t *self, hearth_error_t *err)
{
    executor_t *ex = self->ex;
    char identity[64], who[64];
    snprintf (identity, sizeof identity, "E%lld-%d", (long long) ex->exec_id,
              (int) getpid ());
    snprintf (who, sizeof who, "executor %lld", (long long) ex->exec_id);
    hearth_uplink_opts_t opts = {
        .url = ex->driver_url,
        .curve = &self->curve,
        .who = who,
        .peer = "the driver",
        .identity = identity,
        .registered_cmd = HEARTH_CMD_REGISTERED_EXECUTOR,
        .reconnect_cmd = HEARTH_CMD_COUNT, /* none */
        .interval_ms = ex->hb_interval_ms,
        .liveness = ex->hb_liveness,
        .register_timeout_ms = ex->hb_liveness * ex->hb_interval_ms,
        .hold_first = true,
        .down_fatal = true,
        .read_batch = s_max_drain};
    hearth_uplink_cbs_t cbs = {.registration = s_registration,
                               .heartbeat = s_heartbeat,
                               .up = s_registered,
                               .message = s_message,
                               .fatal = s_fatal,
                               .serve = s_serve,
                               .sent = s_sent,
                               .arg = self,
                               .refused = s_refuse_launch};
    if (!(self->uplink = hearth_uplink_new (&opts, &cbs, err)))
        return -1;
    return hearth_uplink_open (self->uplink, hearth_mono_ms (), err);
}

link_t *
link_new (executor_t *ex, hearth_error_t *err)
{
    link_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->ex = ex;
    self->flush_timer = -1;
    self->log_limit = hearth_loglimit_new (s_log_period_ms, s_log_keys_max);
    tasks_events_t events = {.update = s_add_update,
                             .flush = s_flush,
                             .flush_soon = s_flush_soon,
                             .ask_commit = s_ask_commit,
                             .arg = self};
    if (!self->log_limit) {
        link_destroy (&self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    ex->ship_waiting = true; /* until REGISTERED_EXECUTOR's are got */
    if (!(self->tasks = tasks_new (ex, &events, err))
        || !(self->ship =
                 shipfetch_new (ex, s_ship_send, s_ship_ready, self, err))
        || s_curve (self, err) < 0 || s_uplink (self, err) < 0) {
        link_destroy (&self);
        return NULL;
    }
    return self;
}

void
link_destroy (link_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    link_t *self = *self_p;
    tasks_destroy (&self->tasks);    /* reports what it still held */
    shipfetch_destroy (&self->ship); /* no partial file left behind */
    s_flush (self);
    /* A driver silent for two intervals (gone, or the reason we stop)
       will not read what is still queued: exit now rather than linger. */
    if (self->uplink)
        hearth_uplink_close (
            self->uplink, hearth_mono_ms () - hearth_uplink_heard (self->uplink)
                                  > 2 * hearth_uplink_interval (self->uplink)
                              ? 0
                              : -1);
    hearth_uplink_destroy (&self->uplink);
    hearth_msg_destroy (&self->batch);
    hearth_packer_release (&self->updates);
    hearth_curve_cleanup (&self->curve);
    hearth_loglimit_destroy (&self->log_limit);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* The batch number a refused LAUNCH_TASKS carries (its fields are
   unchecked), or 0. */
static int64_t
s_refused_batch (const hearth_msg_t *refused)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive (refused->body, "batch");
    double v = cJSON_IsNumber (b) ? b->valuedouble : 0;
    return v >= 1 && v <= 9007199254740991.0 && v == (double) (int64_t) v
               ? (int64_t) v
               : 0;
}

/* A LAUNCH_TASKS that could not be decoded: its tasks would never start
   nor end, so the driver is told, with the batch it numbered it, and the
   last batch handled before (protocol.md "Batches": without the first,
   the second tells the driver which one it was), and fails them rather
   than wait for ever. */
static void
s_refuse_launch (void *arg, const hearth_msg_t *refused,
                 const hearth_error_t *err)
{
    link_t *self = arg;
    if (refused->cmd != HEARTH_CMD_LAUNCH_TASKS || self->ex->stopping)
        return;
    self->heard++;
    int64_t batch = s_refused_batch (refused);
    hearth_msg_t *msg = hearth_error_new (err->code, err->text, "LAUNCH_TASKS");
    if (msg && batch)
        cJSON_AddNumberToObject (msg->body, "batch", (double) batch);
    if (msg)
        cJSON_AddNumberToObject (msg->body, "launched",
                                 (double) self->launched);
    if (batch > self->launched)
        self->launched = batch;
    if (msg)
        s_send (self, &msg);
}

/* --- the tick ---------------------------------------------------------- */

/* Our peak memory (peak.h), checked each tick, sent when it grew (the
   driver's accounting: an executor that ends with its application is
   reaped only after its driver has stopped listening). */
static void
s_measure_peak (link_t *self)
{
    int64_t peak = peak_rss_bytes ();
    if (peak > self->peak_rss) {
        self->peak_rss = peak;
        self->peak_unsent = true;
    }
    /* and what persisted stages keep here, for the application's view */
    size_t cached = partcache_bytes (self->ex->partcache, NULL);
    if (cached != self->cache_told)
        self->cache_unsent = true;
}

/* The peak into a message to the driver, when it grew, and the bytes
   kept in memory, when they changed. */
static void
s_add_peak (link_t *self, hearth_msg_t *msg)
{
    if (self->cache_unsent) {
        self->cache_told = partcache_bytes (self->ex->partcache, NULL);
        cJSON_AddNumberToObject (msg->body, "cache_bytes",
                                 (double) self->cache_told);
        self->cache_unsent = false;
    }
    if (!self->peak_unsent)
        return;
    cJSON_AddNumberToObject (msg->body, "peak_rss_bytes",
                             (double) self->peak_rss);
    self->peak_unsent = false;
}

/* The last batch handled, into a message to the driver when it changed
   since the driver was last told: the batches up to it need no more of
   the driver's memory (protocol.md "Batches").  Returns it, or 0 when
   not added. */
static int64_t
s_add_launched (link_t *self, hearth_msg_t *msg)
{
    if (self->launched == self->launched_told)
        return 0;
    cJSON_AddNumberToObject (msg->body, "launched", (double) self->launched);
    return self->launched;
}

/* Send msg, which told launched (s_add_launched); once it is sent, the
   driver knows. */
static void
s_send_launched (link_t *self, hearth_msg_t **msg_p, int64_t launched)
{
    if (s_send (self, msg_p) == 0 && launched > 0)
        self->launched_told = launched;
}

/* The uplink's heartbeat callback, and the idle tick's for a peak that
   grew: sent here (what it tells is told once it has gone), so NULL. */
static hearth_msg_t *
s_heartbeat (void *arg)
{
    link_t *self = arg;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    if (!msg)
        return NULL;
    char id[32];
    snprintf (id, sizeof id, "%lld", (long long) self->ex->exec_id);
    cJSON_AddStringToObject (msg->body, "id", id);
    cJSON_AddNumberToObject (msg->body, "tasks_running",
                             (double) tasks_running (self->tasks));
    s_add_peak (self, msg);
    s_send_launched (self, &msg, s_add_launched (self, msg));
    return NULL;
}

int
link_on_tick (link_t *self)
{
    int64_t now = hearth_mono_ms ();
    bool up = hearth_uplink_up (self->uplink);
    tasks_report_running (self->tasks, hearth_mono_us ());
    if (up)
        shipfetch_tick (self->ship, now);
    s_measure_peak (self);
    if ((self->peak_unsent || self->cache_unsent) && self->batch_count == 0
        && up)
        s_heartbeat (self); /* idle: the peak (or the cache) goes now */
    s_flush (self);
    hearth_loglimit_flush (self->log_limit, HEARTH_LOG_WARN, now);
    /* liveness, and the heartbeat when nothing went for an interval */
    hearth_uplink_tick (self->uplink, now);
    return self->ex->stopping ? -1 : 0;
}

/* --- status updates ---------------------------------------------------- */

/* Exit status or signal of a command task, into the update. */
static void
s_add_exit (hearth_packed_update_t *u, const task_t *t)
{
    if (!t->argv || !t->exited)
        return;
    if (WIFEXITED (t->wait_status)) {
        u->flags |= HEARTH_PACKED_EXIT;
        u->exit_status = WEXITSTATUS (t->wait_status);
    }
    else if (WIFSIGNALED (t->wait_status)) {
        u->flags |= HEARTH_PACKED_SIGNAL;
        u->signal = WTERMSIG (t->wait_status);
    }
}

/* The index of a task state name (the packed form's state byte). */
static int
s_state_index (const char *state)
{
    for (int i = 0; hearth_task_states[i]; i++)
        if (strcmp (hearth_task_states[i], state) == 0)
            return i;
    return 0;
}

/* A STATUS_UPDATE's "updates" list (JSON form), made if missing; NULL on
   no memory. */
static cJSON *
s_updates_of (hearth_msg_t *msg)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive (msg->body, "updates");
    return list ? list : cJSON_AddArrayToObject (msg->body, "updates");
}

/* An update with a shuffle's fields (shuffletask.h), in JSON form: they
   have no packed form.  0, or -1 on no memory. */
static int
s_add_json_update (link_t *self, const task_t *t, const char *state,
                   const char *error, const void *result, size_t len)
{
    if (!self->batch
        && !(self->batch = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE)))
        return -1;
    cJSON *list = s_updates_of (self->batch);
    cJSON *u = list ? cJSON_CreateObject () : NULL;
    if (!u)
        return -1;
    cJSON_AddItemToArray (list, u);
    cJSON_AddNumberToObject (u, "tid", (double) t->tid);
    cJSON_AddNumberToObject (u, "attempt", t->attempt);
    cJSON_AddStringToObject (u, "state", state);
    hearth_packed_update_t p = {0};
    s_add_exit (&p, t);
    if (p.flags & HEARTH_PACKED_EXIT)
        cJSON_AddNumberToObject (u, "exit_status", p.exit_status);
    if (p.flags & HEARTH_PACKED_SIGNAL)
        cJSON_AddNumberToObject (u, "signal", p.signal);
    if (error) {
        char text[4096];
        snprintf (text, sizeof text, "%s", error);
        cJSON_AddStringToObject (u, "error", text);
    }
    if (t->end_us && t->start_us && t->end_us >= t->start_us)
        cJSON_AddNumberToObject (u, "run_us",
                                 (double) (t->end_us - t->start_us));
    /* a reader whose input was kept still sends its result */
    if (result && len) {
        int f = hearth_msg_add_bytes (self->batch, result, len);
        if (f < 0 || !cJSON_AddNumberToObject (u, "result", f))
            return -1;
    }
    return shuffletask_add_fields (t, state, u, self->batch);
}

/* The task table's update callback: queue one update for the next
   STATUS_UPDATE; result may be NULL. */
static void
s_add_update (void *arg, const task_t *t, const char *state, const char *error,
              const void *result, size_t len)
{
    link_t *self = arg;
    if (self->batch_count == 0)
        self->batch_bytes = 0;
    const void *kept = NULL;
    size_t kept_len = 0;
    bool packed_kept = strcmp (state, "FINISHED") == 0
                       && shuffletask_kept (t, &kept, &kept_len);
    if (packed_kept) { /* the block travels as the packed result */
        result = kept;
        len = kept_len;
    }
    else if (shuffletask_has_fields (t, state)) {
        if (s_add_json_update (self, t, state, error, result, len) < 0)
            log_error ("out of memory queueing the update of task %llu",
                       (unsigned long long) t->tid);
        if (++self->batch_count >= s_batch_max_updates)
            s_flush (self);
        return;
    }
    hearth_packed_update_t u = {.tid = t->tid,
                                .attempt = t->attempt,
                                .state = s_state_index (state),
                                .result_frame = -1};
    if (t->end_us && t->start_us && t->end_us >= t->start_us) {
        u.flags |= HEARTH_PACKED_RUN_US;
        u.run_us = t->end_us - t->start_us;
    }
    char text[4096];
    if (error) {
        snprintf (text, sizeof text, "%s", error);
        u.error = text;
    }
    s_add_exit (&u, t);
    if (t->permanent && strcmp (state, "FAILED") == 0)
        u.flags |= HEARTH_PACKED_PERMANENT;
    if (packed_kept)
        u.flags |= HEARTH_PACKED_MAP_BLOCK;
    if (result && len > s_inline_result_max) {
        if (!self->batch
            && !(self->batch = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE)))
            return;
        u.result_frame = hearth_msg_add_bytes (self->batch, result, len);
    }
    else if (result && len) {
        u.result = result;
        u.result_len = len;
    }
    if (hearth_packer_add_update (&self->updates, &u) < 0) {
        log_error ("cannot queue the update of task %llu: %s",
                   (unsigned long long) t->tid, strerror (errno));
        return;
    }
    self->batch_bytes += len;
    if (++self->batch_count >= s_batch_max_updates
        || self->batch_bytes >= s_batch_max_bytes)
        s_flush (self);
}

static int
s_on_flush_timer (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    link_t *self = arg;
    self->flush_timer = -1;
    s_flush (self);
    return 0;
}

/* The task table's flush_soon callback: send the pending STATUS_UPDATE
   now if the driver may be short of news (the executor holds few tasks),
   else within a couple of milliseconds, with what else ends meanwhile:
   one message for several short commands. */
static void
s_flush_soon (void *arg)
{
    link_t *self = arg;
    executor_t *ex = self->ex;
    if (self->batch_count == 0)
        return;
    if (tasks_held (self->tasks) <= 2 * (size_t) ex->cores || !ex->loop) {
        s_flush (self); /* the driver may be waiting to refill us */
        return;
    }
    if (self->flush_timer < 0)
        self->flush_timer = hearth_loop_timer (ex->loop, s_flush_delay_ms, 1,
                                               s_on_flush_timer, self);
}

/* Send the pending STATUS_UPDATE, if any (also the task table's flush
   callback). */
static void
s_flush (void *arg)
{
    link_t *self = arg;
    if (self->flush_timer >= 0 && self->ex->loop) {
        hearth_loop_timer_end (self->ex->loop, self->flush_timer);
        self->flush_timer = -1;
    }
    if (self->batch_count == 0 || !self->uplink
        || !hearth_uplink_sock (self->uplink))
        return;
    hearth_msg_t *msg = self->batch;
    self->batch = NULL;
    self->batch_count = 0;
    self->batch_bytes = 0;
    if (!msg && !(msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE))) {
        hearth_packer_frame (&self->updates); /* dropped: no memory */
        return;
    }
    /* updates with a shuffle's fields are in the body already */
    bool any_packed = hearth_packer_count (&self->updates) > 0;
    zframe_t *packed = hearth_packer_frame (&self->updates);
    int index = 0;
    if (any_packed)
        index = packed ? hearth_msg_add_frame (msg, &packed) : -1;
    zframe_destroy (&packed);
    if (index < 0 || !s_updates_of (msg)) {
        log_error ("out of memory sending updates");
        hearth_msg_destroy (&msg);
        return;
    }
    if (any_packed)
        cJSON_AddNumberToObject (msg->body, "packed", index);
    if (self->peak_rss == 0) /* an executor shorter than a tick: now */
        s_measure_peak (self);
    s_add_peak (self, msg);
    s_send_launched (self, &msg, s_add_launched (self, msg));
}

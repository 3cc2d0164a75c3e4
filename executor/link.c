/*  link.c - the executor's connection to its driver.

    A DEALER socket to the driver's ROUTER.  In: REGISTERED_EXECUTOR (with
    the application's shipped libraries), LAUNCH_TASKS, KILL_TASK,
    STOP_EXECUTOR, HEARTBEAT.  Out: REGISTER_EXECUTOR once, STATUS_UPDATE
    in batches (all the updates that are ready when a handler returns go
    in one message), and HEARTBEAT only when nothing else was sent for an
    interval.
*/
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor/executor.h"
#include "libcore/clock.h"
#include "libcore/keys.h"
#include "libcore/log.h"
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
   to a message (link_flush_soon). */
static const int s_flush_delay_ms = 2;

static int s_on_driver (zloop_t *loop, zsock_t *sock, void *arg);

int
link_open (executor_t *ex, hearth_error_t *err)
{
    char identity[64];
    snprintf (identity, sizeof identity, "E%lld-%d", (long long) ex->exec_id,
              (int) getpid ());
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER, .identity = identity};
    const char *key = hearth_conf_str (ex->conf, "driver-key");
    if (key && *key) {
        /* An encrypted link to a driver of a secure cluster: our keys are
           throw-away, the driver admits us by the application's token. */
        if (strlen (key) != HEARTH_KEY_TXT_LEN || !(ex->cert = zcert_new ()))
            return hearth_errprintf (err, "bad --driver-key");
        opts.curve_cert = ex->cert;
        opts.curve_server_key = key;
    }
    if (!(ex->driver = hearth_sock_new (&opts, err)))
        return -1;
    if (hearth_sock_connect (ex->driver, ex->driver_url, err) < 0)
        return -1;
    zloop_reader (ex->loop, ex->driver, s_on_driver, ex);
    return link_send_register (ex);
}

void
link_close (executor_t *ex)
{
    if (ex->driver && ex->loop)
        zloop_reader_end (ex->loop, ex->driver);
    /* A driver silent for two intervals (gone, or the reason we stop)
       will not read what is still queued: exit now rather than linger. */
    if (ex->driver
        && hearth_mono_ms () - ex->last_recv_ms > 2 * ex->hb_interval_ms)
        zsock_set_linger (ex->driver, 0);
    hearth_msg_destroy (&ex->batch);
    hearth_packer_release (&ex->updates);
    hearth_sock_destroy (&ex->driver);
    zcert_destroy (&ex->cert);
}

static int
s_send (executor_t *ex, hearth_msg_t **msg_p)
{
    hearth_error_t err;
    if (hearth_msg_send (msg_p, ex->driver, NULL, &err) < 0) {
        log_error ("%s", err.text);
        return -1;
    }
    ex->last_send_ms = hearth_mono_ms ();
    return 0;
}

int
link_send_register (executor_t *ex)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_EXECUTOR);
    if (!msg)
        return -1;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", ex->app_id);
    cJSON_AddNumberToObject (b, "exec_id", (double) ex->exec_id);
    cJSON_AddStringToObject (b, "host", ex->host);
    cJSON_AddNumberToObject (b, "cores", ex->cores);
    cJSON_AddNumberToObject (b, "pid", getpid ());
    if (ex->token)
        cJSON_AddStringToObject (b, "token", ex->token);
    return s_send (ex, &msg);
}

static void
s_on_registered (executor_t *ex, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    ex->registered = true;
    ex->hb_interval_ms =
        hearth_json_int (b, "heartbeat_interval_ms", ex->hb_interval_ms);
    ex->hb_liveness =
        hearth_json_int (b, "heartbeat_liveness", ex->hb_liveness);
    ex->max_result_bytes =
        hearth_json_int (b, "max_result_bytes", ex->max_result_bytes);
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive (b, "libs");
    const cJSON *lib;
    cJSON_ArrayForEach (lib, libs)
    {
        hearth_error_t err;
        zframe_t *frame =
            hearth_msg_frame (msg, hearth_json_int (lib, "frame", -1));
        if (libs_add (ex->libs, hearth_json_str (lib, "name"),
                      hearth_json_str (lib, "hash"), frame, &err)
            < 0)
            log_error ("%s", err.text);
    }
    log_info ("registered with the driver (%d libraries)",
              cJSON_GetArraySize (libs));
}

/* Move the message's frames into a shared block the tasks reference. */
static shared_frames_t *
s_share_frames (hearth_msg_t *msg)
{
    if (msg->nframes == 0)
        return NULL;
    shared_frames_t *sf = calloc (1, sizeof *sf);
    if (!sf)
        return NULL;
    sf->frames = msg->frames;
    sf->nframes = msg->nframes;
    msg->frames = NULL;
    msg->nframes = msg->frames_alloc = 0;
    return sf;
}

/* The packed function tasks (the decoder has checked every record). */
static void
s_launch_packed (executor_t *ex, const cJSON *index, shared_frames_t *sf)
{
    hearth_unpacker_t u;
    hearth_packed_task_t p;
    hearth_error_t err;
    if (!index || !sf || (size_t) index->valuedouble >= sf->nframes
        || hearth_unpacker_init (&u, sf->frames[(size_t) index->valuedouble],
                                 HEARTH_PACKED_TASKS, &err)
               < 0)
        return;
    while (hearth_unpack_task (&u, sf->nframes, &p, &err) > 0) {
        task_t *t = task_from_packed (&p, sf);
        if (t)
            tasks_enqueue (ex, t);
        else
            log_error ("out of memory queueing a task");
    }
}

static void
s_on_launch (executor_t *ex, hearth_msg_t *msg)
{
    shared_frames_t *sf = s_share_frames (msg);
    if (sf)
        sf->refs = 1; /* ours, while we enqueue */
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive (msg->body, "tasks");
    const cJSON *json;
    cJSON_ArrayForEach (json, tasks)
    {
        task_t *t = task_from_json (json, sf);
        if (!t) {
            log_error ("out of memory queueing a task");
            continue;
        }
        tasks_enqueue (ex, t);
    }
    s_launch_packed (ex, cJSON_GetObjectItemCaseSensitive (msg->body, "packed"),
                     sf);
    shared_frames_release (&sf);
    tasks_dispatch (ex);
}

static void
s_on_error (executor_t *ex, hearth_msg_t *msg)
{
    const char *code = hearth_json_str (msg->body, "code");
    const char *text = hearth_json_str (msg->body, "message");
    log_error ("driver says %s: %s", code, text);
    if (!ex->registered) {
        ex->stopping = true;
        ex->exit_code = 1;
    }
}

/* Handle one message from the driver. */
static void
s_dispatch (executor_t *ex, hearth_msg_t *msg)
{
    switch (msg->cmd) {
    case HEARTH_CMD_REGISTERED_EXECUTOR:
        s_on_registered (ex, msg);
        break;
    case HEARTH_CMD_LAUNCH_TASKS:
        s_on_launch (ex, msg);
        break;
    case HEARTH_CMD_KILL_TASK:
        tasks_kill (ex, hearth_json_int (msg->body, "tid", 0),
                    (int) hearth_json_int (msg->body, "attempt", 0));
        break;
    case HEARTH_CMD_STOP_EXECUTOR:
        log_info ("driver says stop: %s",
                  hearth_json_str (msg->body, "reason") ?: "no reason");
        ex->stopping = true;
        break;
    case HEARTH_CMD_ERROR:
        s_on_error (ex, msg);
        break;
    case HEARTH_CMD_HEARTBEAT:
        break;
    default:
        log_warn ("unexpected %s from the driver, ignored",
                  hearth_cmd_name (msg->cmd));
    }
}

static int
s_on_driver (zloop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    executor_t *ex = arg;
    for (int i = 0; i < s_max_drain && !ex->stopping; i++) {
        if (i > 0 && !(zsock_events (sock) & ZMQ_POLLIN))
            break;
        hearth_error_t err;
        hearth_msg_t *msg = hearth_msg_recv (sock, NULL, &err);
        ex->last_recv_ms = hearth_mono_ms ();
        if (!msg) {
            log_warn ("bad message from the driver: %s", err.text);
            continue;
        }
        s_dispatch (ex, msg);
        hearth_msg_destroy (&msg);
    }
    link_flush (ex);
    return ex->stopping ? -1 : 0;
}

static void
s_send_heartbeat (executor_t *ex)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    if (!msg)
        return;
    char id[32];
    snprintf (id, sizeof id, "%lld", (long long) ex->exec_id);
    cJSON_AddStringToObject (msg->body, "id", id);
    cJSON_AddNumberToObject (msg->body, "tasks_running",
                             (double) tasks_running (ex));
    s_send (ex, &msg);
}

int
link_on_tick (executor_t *ex)
{
    int64_t now = hearth_mono_ms ();
    int64_t deadline = ex->hb_liveness * ex->hb_interval_ms;
    if (!ex->registered && now - ex->started_ms > deadline) {
        log_error ("the driver at %s did not answer within %lld ms: exiting",
                   ex->driver_url, (long long) deadline);
        ex->exit_code = 1;
        return -1;
    }
    if (ex->registered && now - ex->last_recv_ms > deadline) {
        log_warn ("the driver has been silent for %lld ms: exiting",
                  (long long) (now - ex->last_recv_ms));
        return -1;
    }
    tasks_report_running (ex, hearth_mono_us ());
    link_flush (ex);
    if (ex->registered && now - ex->last_send_ms >= ex->hb_interval_ms)
        s_send_heartbeat (ex);
    return 0;
}

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

void
link_add_update (executor_t *ex, const task_t *t, const char *state,
                 const char *error, const void *result, size_t len)
{
    if (ex->batch_count == 0)
        ex->batch_bytes = 0;
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
    if (result && len > s_inline_result_max) {
        if (!ex->batch
            && !(ex->batch = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE)))
            return;
        u.result_frame = hearth_msg_add_bytes (ex->batch, result, len);
    }
    else if (result && len) {
        u.result = result;
        u.result_len = len;
    }
    if (hearth_packer_add_update (&ex->updates, &u) < 0) {
        log_error ("cannot queue the update of task %llu: %s",
                   (unsigned long long) t->tid, strerror (errno));
        return;
    }
    ex->batch_bytes += len;
    if (++ex->batch_count >= s_batch_max_updates
        || ex->batch_bytes >= s_batch_max_bytes)
        link_flush (ex);
}

static int
s_on_flush_timer (zloop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    executor_t *ex = arg;
    ex->flush_timer = -1;
    link_flush (ex);
    return 0;
}

void
link_flush_soon (executor_t *ex)
{
    if (ex->batch_count == 0)
        return;
    size_t held = ex->queue.size + ex->running.size;
    if (held <= 2 * (size_t) ex->cores || !ex->loop) {
        link_flush (ex); /* the driver may be waiting to refill us */
        return;
    }
    if (ex->flush_timer < 0)
        ex->flush_timer =
            zloop_timer (ex->loop, s_flush_delay_ms, 1, s_on_flush_timer, ex);
}

void
link_flush (executor_t *ex)
{
    if (ex->flush_timer >= 0 && ex->loop) {
        zloop_timer_end (ex->loop, ex->flush_timer);
        ex->flush_timer = -1;
    }
    if (ex->batch_count == 0 || !ex->driver)
        return;
    hearth_msg_t *msg = ex->batch;
    ex->batch = NULL;
    ex->batch_count = 0;
    ex->batch_bytes = 0;
    if (!msg && !(msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE))) {
        hearth_packer_frame (&ex->updates); /* dropped: no memory */
        return;
    }
    zframe_t *packed = hearth_packer_frame (&ex->updates);
    int index = packed ? hearth_msg_add_frame (msg, &packed) : -1;
    if (index < 0 || !cJSON_AddArrayToObject (msg->body, "updates")) {
        log_error ("out of memory sending updates");
        hearth_msg_destroy (&msg);
        return;
    }
    cJSON_AddNumberToObject (msg->body, "packed", index);
    s_send (ex, &msg);
}

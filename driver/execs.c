/*  execs.c - the driver's executors: their ROUTER socket, registration,
    task launches, status updates, heartbeats and losses.

    Launches go out in batches (one LAUNCH_TASKS per executor per offer
    round, each stage's input frame once per message); status updates come
    back in batches and are applied in one pass before new offers are made.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/engine.h"
#include "libcore/clock.h"
#include "libcore/intkeys.h"
#include "libcore/keys.h"
#include "libcore/log.h"
#include "libcore/sock.h"

/* Messages read per wake-up before other handlers get a turn. */
static const int s_max_drain = 256;
/* Assignments asked of the task set at a time. */
enum { s_offer_batch = 1024 };
/* Distinct stage inputs remembered per LAUNCH_TASKS message. */
enum { s_max_inputs = 8 };

static int s_on_router (zloop_t *loop, zsock_t *sock, void *arg);

static void
s_default_host (engine_t *e, char *buf, size_t size)
{
    char host[256];
    int port;
    snprintf (buf, size, "127.0.0.1");
    if (e->mode != MODE_CLUSTER
        || hearth_url_split (e->master_url, host, sizeof host, &port, NULL) < 0)
        return;
    if (hearth_address_towards (host, port, buf, size) < 0)
        snprintf (buf, size, "127.0.0.1");
}

int
execs_open (engine_t *e, hearth_error_t *err)
{
    char host[256];
    const char *h = hearth_conf_str (e->conf, "driver-host");
    if (h)
        snprintf (host, sizeof host, "%s", h);
    else
        s_default_host (e, host, sizeof host);
    /* CURVE server with the application's keys; executors are admitted
       by the token they present, not by their (throw-away) keys. */
    hearth_sock_opts_t opts = {.type = ZMQ_ROUTER, .curve_cert = e->app_cert};
    if (!(e->refusals = hearth_refusals_new ()))
        return hearth_errprintf (err, "out of memory");
    if (!(e->router = hearth_sock_new (&opts, err)))
        return -1;
    char endpoint[300];
    /* Port 0: the kernel picks a random free port; czmq's "*" would take
       the first free one from 49152, which a stale executor of an earlier
       driver may still be reconnecting to. */
    snprintf (endpoint, sizeof endpoint, "tcp://%s:0", host);
    int port = hearth_sock_bind (e->router, endpoint, err);
    if (port < 0)
        return -1;
    snprintf (e->driver_url, sizeof e->driver_url, "tcp://%s:%d", host, port);
    zloop_reader (e->loop, e->router, s_on_router, e);
    if (e->app_cert)
        log_info ("executors connect to %s (CURVE server key %s)",
                  e->driver_url, zcert_public_txt (e->app_cert));
    else
        log_info ("executors connect to %s", e->driver_url);
    return 0;
}

void
execs_close (engine_t *e)
{
    if (e->router && e->loop)
        zloop_reader_end (e->loop, e->router);
    hearth_sock_destroy (&e->router);
    hearth_refusals_destroy (&e->refusals);
}

exec_t *
execs_find (engine_t *e, int exec_id)
{
    return zhashx_lookup (e->execs, hearth_intkey (exec_id));
}

exec_t *
execs_add (engine_t *e, int exec_id, int cores, const char *host)
{
    exec_t *x = execs_find (e, exec_id);
    if (x)
        return x;
    if (!(x = calloc (1, sizeof *x)))
        return NULL;
    x->exec_id = exec_id;
    x->cores = cores;
    snprintf (x->host, sizeof x->host, "%s", host ? host : "");
    x->last_recv_ms = x->last_send_ms = hearth_mono_ms ();
    zhashx_insert (e->execs, hearth_intkey (exec_id), x);
    return x;
}

static int
s_send (engine_t *e, exec_t *x, hearth_msg_t **msg_p)
{
    hearth_error_t err;
    if (!x->rid) {
        hearth_msg_destroy (msg_p);
        return -1;
    }
    if (hearth_msg_send (msg_p, e->router, x->rid, &err) < 0) {
        log_warn ("executor %d: %s", x->exec_id, err.text);
        return -1;
    }
    x->last_send_ms = hearth_mono_ms ();
    return 0;
}

static void
s_send_simple (engine_t *e, exec_t *x, hearth_cmd_t cmd, const char *reason)
{
    hearth_msg_t *msg = hearth_msg_new (cmd);
    if (!msg)
        return;
    if (reason)
        cJSON_AddStringToObject (msg->body, "reason", reason);
    s_send (e, x, &msg);
}

void
execs_lost (engine_t *e, int exec_id, const char *reason)
{
    exec_t *x = execs_find (e, exec_id);
    if (!x)
        return;
    if (x->registered) {
        int n = hearth_taskset_remove_executor (e->ts, exec_id);
        log_warn ("executor %d lost (%s): %d tasks to run again", exec_id,
                  reason, n < 0 ? 0 : n);
        s_send_simple (e, x, HEARTH_CMD_STOP_EXECUTOR, reason);
        zhash_delete (e->by_key, x->key);
    }
    if (x->local)
        local_executor_gone (e, x);
    zhashx_delete (e->execs, hearth_intkey (exec_id));
    engine_process (e);
}

/* ---- registration ------------------------------------------------------- */

static void
s_reply_registered (engine_t *e, exec_t *x)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTERED_EXECUTOR);
    if (!msg)
        return;
    cJSON *b = msg->body;
    cJSON_AddNumberToObject (b, "heartbeat_interval_ms",
                             (double) e->hb_interval_ms);
    cJSON_AddNumberToObject (b, "heartbeat_liveness", (double) e->hb_liveness);
    cJSON_AddNumberToObject (b, "max_result_bytes",
                             (double) e->max_result_bytes);
    cJSON *libs = cJSON_AddArrayToObject (b, "libs");
    for (size_t i = 0; i < e->nlibs; i++) {
        shipped_lib_t *lib = &e->libs[i];
        int frame = hearth_msg_add_bytes (msg, zchunk_data (lib->data),
                                          zchunk_size (lib->data));
        cJSON *l = cJSON_CreateObject ();
        cJSON_AddStringToObject (l, "name", lib->name);
        cJSON_AddStringToObject (l, "hash", lib->hash);
        cJSON_AddNumberToObject (l, "frame", frame);
        cJSON_AddItemToArray (libs, l);
    }
    s_send (e, x, &msg);
}

/* Refuse a peer: ERROR code to it, and a log line naming its real
   address (the connection's, not what its message claims), once a
   minute per address however often it tries. */
static void
s_refuse (engine_t *e, zframe_t *rid, const hearth_sender_t *peer,
          const char *code, const char *why, const char *command)
{
    hearth_refusals_log (e->refusals,
                         peer->address[0] ? peer->address : "unknown address",
                         NULL, why);
    hearth_send_error (e->router, rid, code, why, command);
}

static void
s_on_register (engine_t *e, zframe_t *rid, const hearth_sender_t *peer,
               const char *key, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    const char *app = hearth_json_str (b, "app_id");
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    int cores = (int) hearth_json_int (b, "cores", 1);
    const char *token = hearth_json_str (b, "token");
    const char *cmd = "REGISTER_EXECUTOR";
    char why[256];
    if (!token || !hearth_keys_token_eq (token, e->token)) {
        snprintf (why, sizeof why,
                  "executor %d (says host %.64s, pid %lld) presented %s "
                  "token",
                  exec_id, hearth_json_str (b, "host"),
                  (long long) hearth_json_int (b, "pid", 0),
                  token ? "a wrong" : "no");
        return s_refuse (e, rid, peer, "refused", why, cmd);
    }
    if (strcmp (app, e->app_id) != 0) {
        snprintf (why, sizeof why, "executor of %s, this is %s", app,
                  e->app_id);
        return s_refuse (e, rid, peer, "refused", why, cmd);
    }
    exec_t *x = execs_find (e, exec_id);
    if (x && x->registered) {
        if (strcmp (x->key, key) == 0)
            return s_reply_registered (e, x); /* a repeat */
        snprintf (why, sizeof why, "executor %d is already registered",
                  exec_id);
        return s_refuse (e, rid, peer, "refused", why, cmd);
    }
    if (!x && !(x = execs_add (e, exec_id, cores, hearth_json_str (b, "host"))))
        return;
    x->rid = zframe_dup (rid);
    x->key = strdup (key);
    x->cores = cores;
    x->registered = true;
    snprintf (x->host, sizeof x->host, "%s", hearth_json_str (b, "host"));
    zhash_insert (e->by_key, key, x);
    hearth_taskset_add_executor (e->ts, exec_id, cores);
    log_info ("executor %d registered from %s with %d cores", exec_id, x->host,
              cores);
    s_reply_registered (e, x);
}

/* ---- status updates ----------------------------------------------------- */

static hearth_ts_state_t
s_ts_state (const char *state, bool *known)
{
    *known = true;
    if (streq (state, "RUNNING"))
        return HEARTH_TS_RUNNING;
    if (streq (state, "FINISHED"))
        return HEARTH_TS_FINISHED;
    if (streq (state, "KILLED"))
        return HEARTH_TS_KILLED;
    if (streq (state, "FAILED"))
        return HEARTH_TS_FAILED;
    *known = false;
    return HEARTH_TS_FAILED;
}

/* One update, from JSON or packed: the fields the driver uses. */
typedef struct {
    uint64_t tid;       /* task id */
    int attempt;        /* attempt */
    const char *state;  /* task state name */
    int64_t run_us;     /* run time, 0 if not given */
    const char *error;  /* or NULL */
    const void *result; /* result bytes, or NULL */
    size_t result_len;  /* bytes */
} s_update_t;

static void
s_keep_result (hearth_stage_t *st, uint64_t index, const void *data, size_t len)
{
    result_t *r = &st->results[index];
    if (!data || len == 0)
        return;
    r->data = malloc (len);
    if (!r->data)
        return;
    memcpy (r->data, data, len);
    r->len = (uint32_t) len;
}

/* Apply one update.  Returns the stage it touched, or NULL. */
static hearth_stage_t *
s_apply_update (engine_t *e, exec_t *x, const s_update_t *u)
{
    uint32_t uid = DRIVER_TID_STAGE (u->tid);
    uint64_t index = DRIVER_TID_INDEX (u->tid);
    hearth_stage_t *st = uid < e->stages_alloc ? e->stages[uid] : NULL;
    bool known;
    hearth_ts_state_t state = s_ts_state (u->state, &known);
    if (!st || !known || index >= st->ntasks)
        return NULL;
    hearth_ts_outcome_t out =
        hearth_taskset_update (e->ts, x->exec_id, uid, index, u->attempt, state,
                               u->run_us, hearth_mono_us ());
    if (out == HEARTH_TS_ACCEPT)
        s_keep_result (st, index, u->result, u->result_len);
    else if (out == HEARTH_TS_RELEASED && state == HEARTH_TS_KILLED)
        log_info ("stage %s, task %llu, attempt %d: killed as asked", st->name,
                  (unsigned long long) index, u->attempt);
    else if (out == HEARTH_TS_DUPLICATE)
        log_info ("stage %s, task %llu, attempt %d: finished after another "
                  "attempt's result; discarded (exactly once)",
                  st->name, (unsigned long long) index, u->attempt);
    else if (out == HEARTH_TS_RETRY)
        log_info ("stage %s, task %llu, attempt %d: %s; trying again", st->name,
                  (unsigned long long) index, u->attempt,
                  u->error ? u->error : u->state);
    else if (out == HEARTH_TS_GAVE_UP) {
        char text[1024];
        snprintf (text, sizeof text,
                  "stage %s, task %llu failed %d time%s; "
                  "last error: %s",
                  st->name, (unsigned long long) index, u->attempt + 1,
                  u->attempt ? "s" : "", u->error ? u->error : "none given");
        engine_fail_job (e, st->job, text);
        return NULL;
    }
    return st;
}

static s_update_t
s_update_from_json (hearth_msg_t *msg, const cJSON *json)
{
    zframe_t *frame =
        hearth_msg_frame (msg, hearth_json_int (json, "result", -1));
    return (s_update_t){.tid = (uint64_t) hearth_json_int (json, "tid", 0),
                        .attempt = (int) hearth_json_int (json, "attempt", 0),
                        .state = hearth_json_str (json, "state"),
                        .run_us = hearth_json_int (json, "run_us", 0),
                        .error = hearth_json_str (json, "error"),
                        .result = frame ? zframe_data (frame) : NULL,
                        .result_len = frame ? zframe_size (frame) : 0};
}

static s_update_t
s_update_from_packed (hearth_msg_t *msg, const hearth_packed_update_t *p)
{
    zframe_t *frame = hearth_msg_frame (msg, p->result_frame);
    return (s_update_t){
        .tid = p->tid,
        .attempt = p->attempt,
        .state = hearth_task_states[p->state],
        .run_us = p->flags & HEARTH_PACKED_RUN_US ? p->run_us : 0,
        .error = p->error,
        .result = frame ? zframe_data (frame) : p->result,
        .result_len = frame ? zframe_size (frame) : p->result_len};
}

/* Stages touched by one STATUS_UPDATE, to publish their progress once. */
typedef struct {
    hearth_stage_t *stage[16]; /* distinct, in order of first touch */
    size_t n;                  /* entries */
} s_touched_t;

static void
s_touch (s_touched_t *touched, hearth_stage_t *st)
{
    if (!st || (touched->n && touched->stage[touched->n - 1] == st))
        return;
    if (touched->n < 16)
        touched->stage[touched->n++] = st;
}

static void
s_on_status (engine_t *e, exec_t *x, hearth_msg_t *msg)
{
    s_touched_t touched = {.n = 0};
    const cJSON *updates =
        cJSON_GetObjectItemCaseSensitive (msg->body, "updates");
    const cJSON *json;
    cJSON_ArrayForEach (json, updates)
    {
        s_update_t u = s_update_from_json (msg, json);
        s_touch (&touched, s_apply_update (e, x, &u));
    }
    /* The decoder has checked every packed record. */
    const cJSON *packed =
        cJSON_GetObjectItemCaseSensitive (msg->body, "packed");
    hearth_unpacker_t unpacker;
    hearth_packed_update_t p;
    if (packed
        && hearth_unpacker_init (&unpacker,
                                 hearth_msg_frame (msg, packed->valuedouble),
                                 HEARTH_PACKED_UPDATES, NULL)
               == 0)
        while (hearth_unpack_update (&unpacker, msg->nframes, &p, NULL) > 0) {
            s_update_t u = s_update_from_packed (msg, &p);
            s_touch (&touched, s_apply_update (e, x, &u));
        }
    for (size_t i = 0; i < touched.n; i++) {
        hearth_stage_t *st = touched.stage[i];
        uint64_t finished, running, total;
        if (e->stages[st->uid] == st
            && hearth_taskset_stage_counts (e->ts, st->uid, &finished, &running,
                                            &total)
                   == 0)
            job_set_progress (st->job, st, finished, running,
                              finished == total);
    }
}

/* ---- the ROUTER ---------------------------------------------------------- */

static void
s_dispatch (engine_t *e, zframe_t *rid, const hearth_sender_t *peer,
            hearth_msg_t *msg)
{
    char *key = zframe_strhex (rid);
    exec_t *x = key ? zhash_lookup (e->by_key, key) : NULL;
    if (x)
        x->last_recv_ms = hearth_mono_ms ();
    if (msg->cmd == HEARTH_CMD_REGISTER_EXECUTOR && key)
        s_on_register (e, rid, peer, key, msg);
    else if (!x) {
        char why[128];
        snprintf (why, sizeof why,
                  "%s from an executor that has not registered: send "
                  "REGISTER_EXECUTOR first",
                  hearth_cmd_name (msg->cmd));
        s_refuse (e, rid, peer, "not_registered", why,
                  hearth_cmd_name (msg->cmd));
    }
    else if (msg->cmd == HEARTH_CMD_STATUS_UPDATE)
        s_on_status (e, x, msg);
    else if (msg->cmd == HEARTH_CMD_ERROR)
        log_warn ("executor %d says %s: %s", x->exec_id,
                  hearth_json_str (msg->body, "code"),
                  hearth_json_str (msg->body, "message"));
    else if (msg->cmd != HEARTH_CMD_HEARTBEAT)
        log_warn ("executor %d sent %s, ignored", x->exec_id,
                  hearth_cmd_name (msg->cmd));
    free (key);
}

static int
s_on_router (zloop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    engine_t *e = arg;
    /* The peer's address, for refusals: messages claim a host, the
       connection tells the real one. */
    hearth_sender_t peer;
    for (int i = 0; i < s_max_drain; i++) {
        if (i > 0 && !(zsock_events (sock) & ZMQ_POLLIN))
            break;
        zframe_t *rid = NULL;
        hearth_error_t err;
        hearth_msg_t *msg = hearth_msg_recv_from (sock, &rid, &peer, &err);
        if (msg)
            s_dispatch (e, rid, &peer, msg);
        else if (rid) {
            char why[HEARTH_ERROR_TEXT_MAX + 32];
            snprintf (why, sizeof why, "bad message from an executor: %s",
                      err.text);
            s_refuse (e, rid, &peer, err.code, why, NULL);
        }
        hearth_msg_destroy (&msg);
        zframe_destroy (&rid);
    }
    engine_process (e);
    return 0;
}

/* ---- offers ------------------------------------------------------------- */

typedef struct {
    uint32_t uid; /* stage */
    int frame;    /* its input's frame index in the message */
} s_input_t;

static int
s_input_index (hearth_msg_t *msg, hearth_stage_t *st, s_input_t *inputs,
               size_t *ninputs)
{
    if (!st->input || !st->input_frame)
        return -1;
    for (size_t i = 0; i < *ninputs; i++)
        if (inputs[i].uid == st->uid)
            return inputs[i].frame;
    zframe_t *copy = zframe_dup (st->input_frame);
    int frame = hearth_msg_add_frame (msg, &copy);
    if (*ninputs < s_max_inputs)
        inputs[(*ninputs)++] = (s_input_t){st->uid, frame};
    return frame;
}

/* One LAUNCH_TASKS for x.  Returns the number of tasks sent. */
static size_t
s_offer (engine_t *e, exec_t *x)
{
    hearth_assign_t as[s_offer_batch];
    size_t n = hearth_taskset_offer (e->ts, x->exec_id, hearth_mono_us (), as,
                                     s_offer_batch);
    if (n == 0)
        return 0;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *tasks = msg ? cJSON_AddArrayToObject (msg->body, "tasks") : NULL;
    s_input_t inputs[s_max_inputs];
    size_t ninputs = 0;
    for (size_t i = 0; tasks && i < n; i++) {
        hearth_stage_t *st = e->stages[as[i].stage];
        int input = s_input_index (msg, st, inputs, &ninputs);
        if (render_packed (&e->packer, st, as[i].index, as[i].attempt, input)
            < 0)
            render_task (tasks, st, as[i].index, as[i].attempt, input);
    }
    if (tasks && hearth_packer_count (&e->packer) > 0) {
        zframe_t *packed = hearth_packer_frame (&e->packer);
        int index = packed ? hearth_msg_add_frame (msg, &packed) : -1;
        if (index < 0 || !cJSON_AddNumberToObject (msg->body, "packed", index))
            tasks = NULL;
    }
    if (!tasks) {
        log_error ("out of memory launching tasks on executor %d", x->exec_id);
        hearth_msg_destroy (&msg);
        return 0;
    }
    s_send (e, x, &msg);
    return n;
}

/* Refill an executor once half of its slots are free, or sooner when it
   holds fewer attempts than it has cores: one LAUNCH_TASKS per several
   finished tasks rather than one per task (for 0.5 ms commands, a message
   each way per task cost the executor and the driver about as much CPU
   as the commands' own start-up; docs/performance.md). */
static bool
s_worth_offering (engine_t *e, exec_t *x)
{
    size_t slots = hearth_taskset_slots (e->ts, x->cores);
    size_t free = hearth_taskset_free_slots (e->ts, x->exec_id);
    return free > 0 && (free * 2 >= slots || slots - free < (size_t) x->cores);
}

void
execs_offer_all (engine_t *e)
{
    if (zlistx_size (e->jobs) == 0)
        return;
    for (exec_t *x = zhashx_first (e->execs); x; x = zhashx_next (e->execs))
        if (x->registered && s_worth_offering (e, x))
            while (s_offer (e, x) == s_offer_batch)
                ;
}

void
execs_send_kill (engine_t *e, int exec_id, uint64_t tid, int attempt)
{
    exec_t *x = execs_find (e, exec_id);
    if (!x || !x->registered)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_TASK);
    if (!msg)
        return;
    cJSON_AddNumberToObject (msg->body, "tid", (double) tid);
    cJSON_AddNumberToObject (msg->body, "attempt", attempt);
    s_send (e, x, &msg);
}

void
execs_stop_all (engine_t *e, const char *reason)
{
    for (exec_t *x = zhashx_first (e->execs); x; x = zhashx_next (e->execs))
        if (x->registered)
            s_send_simple (e, x, HEARTH_CMD_STOP_EXECUTOR, reason);
}

void
execs_tick (engine_t *e)
{
    int64_t now = hearth_mono_ms ();
    int64_t deadline = e->hb_liveness * e->hb_interval_ms;
    int silent[64];
    size_t nsilent = 0;
    for (exec_t *x = zhashx_first (e->execs); x; x = zhashx_next (e->execs)) {
        if (!x->registered)
            continue;
        if (now - x->last_recv_ms > deadline && nsilent < 64)
            silent[nsilent++] = x->exec_id;
        else if (now - x->last_send_ms >= e->hb_interval_ms)
            s_send_simple (e, x, HEARTH_CMD_HEARTBEAT, NULL);
    }
    for (size_t i = 0; i < nsilent; i++) {
        /* Hung or cut off: the master kills it, so its cores come back. */
        if (e->mode != MODE_LOCAL)
            master_release_executor (e, silent[i],
                                     "no heartbeat at the driver");
        execs_lost (e, silent[i], "no heartbeat");
    }
}

/*  launch.c - tasks to and from executors: LAUNCH_TASKS built from the
    task set's assignments, STATUS_UPDATE applied back to it.

    Launches go out in batches (one LAUNCH_TASKS per executor per offer
    round); status updates come
    back in batches and are applied in one pass before new offers are made.
    Consecutive tasks mostly belong to one stage: the stage of the last
    one is kept at hand rather than looked up per task.
*/
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/intkeys.h"
#include "libcore/log.h"
#include "libcore/packed.h"
#include "libcore/partfmt.h"
#include "libhearth/eventlog.h"
#include "libhearth/evtask.h"
#include "libhearth/inlineout.h"
#include "libhearth/launch.h"
#include "libhearth/record.h"
#include "libhearth/reduceplace.h"
#include "libhearth/shuffle.h"
#include "libhearth/tlfeed.h"

/* Assignments asked of the task set at a time. */
enum { s_offer_batch = 1024 };
/* A LAUNCH_TASKS ends past this many bytes of tasks, so that a message
   stays far below what a peer accepts (a 64 MiB body, 256 MiB frames):
   big tasks go a few to a message. */
static const size_t s_max_batch_bytes = 16 * 1024 * 1024;
/* Distinct stages whose progress one STATUS_UPDATE publishes. */
enum { s_max_touched = 16 };
/* Executors whose unsent batches one launch_tick fails (more: the next). */
enum { s_max_tick_execs = 64 };

struct launch {
    work_t *work;           /* stages and jobs (borrowed) */
    hearth_taskset_t *ts;   /* its task set (borrowed) */
    hearth_packer_t packer; /* scratch for packing LAUNCH_TASKS */
    zhashx_t *sent;         /* exec id -> batches_t: its LAUNCH_TASKS not
                               yet handled */
};

static void
s_batches_destroy (void **item)
{
    batches_destroy ((batches_t **) item);
}

launch_t *
launch_new (work_t *work)
{
    launch_t *self = calloc (1, sizeof *self);
    if (!self || !(self->sent = zhashx_new ())) {
        free (self);
        return NULL;
    }
    hearth_intkeys_setup (self->sent);
    zhashx_set_destructor (self->sent, s_batches_destroy);
    self->work = work;
    self->ts = work_taskset (work);
    return self;
}

void
launch_destroy (launch_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_packer_release (&(*self_p)->packer);
    zhashx_destroy (&(*self_p)->sent);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

/* ---- offers ------------------------------------------------------------- */

/* A task with shuffle roles, in JSON.  One whose input is not all there
   (a map output lost since the offer) goes back to wait for it. */
static void
s_render_shuffle (launch_t *self, hearth_msg_t *msg, cJSON *tasks,
                  hearth_stage_t *st, int exec_id, const hearth_assign_t *a,
                  size_t *bytes)
{
    int rc = render_task (msg, tasks, st, a->index, a->attempt, bytes);
    cJSON *t = cJSON_GetArrayItem (tasks, cJSON_GetArraySize (tasks) - 1);
    if (rc == 0 && t)
        rc = shuffle_render (msg, t, work_servers (self->work), st, a->index,
                             a->attempt);
    if (rc == 0)
        return;
    if (t)
        cJSON_DeleteItemFromArray (tasks, cJSON_GetArraySize (tasks) - 1);
    log_warn ("stage %s, task %llu: %s; it waits", st->name,
              (unsigned long long) a->index,
              rc > 0 ? "an output of its input stage is missing"
                     : "out of memory launching it");
    hearth_ts_outcome_t out = hearth_taskset_update (
        self->ts, exec_id, a->stage, a->index, a->attempt,
        HEARTH_TS_FETCH_FAILED, 0, hearth_mono_us ());
    eventlog_t *el = work_eventlog (self->work);
    evtask_end_t end = {.exec_id = exec_id,
                        .stage = a->stage,
                        .index = a->index,
                        .attempt = a->attempt,
                        .state = "FAILED",
                        .out = out,
                        .error = rc > 0
                                     ? "an output of its input stage is missing"
                                     : "out of memory launching it"};
    evtask_end (el, &end);
    tlfeed_attempt (work_tlfeed (self->work), &end, eventlog_time_ms (el));
}

/* Bytes of the frames msg got from a task, from frame *seen on (shared
   ones aside). */
static size_t
s_new_frame_bytes (const hearth_msg_t *msg, size_t *seen)
{
    size_t bytes = 0;
    for (; *seen < msg->nframes; (*seen)++)
        if (!msg->borrowed || !msg->borrowed[*seen])
            bytes += zframe_size (msg->frames[*seen]);
    return bytes;
}

/* The stages of one LAUNCH_TASKS whose tasks go packed with a map role
   read whole (its "whole_maps"). */
enum { s_max_whole_maps = 64 };
typedef struct {
    const hearth_stage_t *st[s_max_whole_maps];
    size_t n;
} s_whole_maps_t;

/* Whether st's task goes packed, its stage noted in w: a stage read
   whole whose outputs the driver keeps, no other role. */
static bool
s_packs_whole (s_whole_maps_t *w, const hearth_stage_t *st)
{
    if (!shuffle_packs_whole (st) || st->resources.n)
        return false;
    for (size_t i = 0; i < w->n; i++)
        if (w->st[i] == st)
            return true;
    if (w->n == s_max_whole_maps)
        return false; /* in JSON, as any task with roles */
    w->st[w->n++] = st;
    return true;
}

/* msg's "whole_maps", from w.  0 or -1. */
static int
s_add_whole_maps (hearth_msg_t *msg, const s_whole_maps_t *w)
{
    cJSON *list =
        w->n ? cJSON_AddArrayToObject (msg->body, "whole_maps") : NULL;
    if (w->n && !list)
        return -1;
    for (size_t i = 0; i < w->n; i++) {
        cJSON *m = cJSON_CreateObject ();
        cJSON_AddItemToArray (list, m);
        if (!m || !cJSON_AddNumberToObject (m, "stage", w->st[i]->uid)
            || !cJSON_AddNumberToObject (m, "inline_max", w->st[i]->inline_max))
            return -1;
    }
    return 0;
}

/* One LAUNCH_TASKS of as[first...] up to n, ending past s_max_batch_bytes
   (or NULL on no memory, logged).  *end is where it ended. */
static hearth_msg_t *
s_render_batch (launch_t *self, int exec_id, const hearth_assign_t *as,
                size_t first, size_t n, size_t *end)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *tasks = msg ? cJSON_AddArrayToObject (msg->body, "tasks") : NULL;
    size_t bytes = 0, seen = 0, i = first;
    hearth_stage_t *st = NULL; /* the stage of as[i - 1] */
    s_whole_maps_t whole = {.n = 0};
    eventlog_t *el = work_eventlog (self->work);
    while (i < n
           && (i == first
               || bytes + hearth_packer_size (&self->packer)
                      < s_max_batch_bytes)) {
        const hearth_assign_t *a = &as[i++];
        if (!st || st->uid != a->stage)
            st = work_stage (self->work, a->stage);
        evtask_start (el, exec_id, a);
        if (a->locality >= HEARTH_LOC_PROCESS) /* PROCESS counts as NODE */
            __atomic_add_fetch (
                &st->placed[(a->locality > HEARTH_LOC_NODE ? a->locality
                                                           : HEARTH_LOC_NODE)
                            - HEARTH_LOC_NODE],
                1, __ATOMIC_RELAXED);
        if (!tasks)
            continue; /* no memory: failed with the batch */
        if (s_packs_whole (&whole, st)
            && render_packed (&self->packer, st, a->index, a->attempt) == 0)
            ;
        else if (shuffle_has_roles (st))
            s_render_shuffle (self, msg, tasks, st, exec_id, a, &bytes);
        else if (st->resources.n /* the packed form has no resources */
                 || render_packed (&self->packer, st, a->index, a->attempt) < 0)
            render_task (msg, tasks, st, a->index, a->attempt, &bytes);
        bytes += s_new_frame_bytes (msg, &seen);
    }
    *end = i;
    if (tasks && hearth_packer_count (&self->packer) > 0) {
        zframe_t *packed = hearth_packer_frame (&self->packer);
        int index = packed ? hearth_msg_add_frame (msg, &packed) : -1;
        if (index < 0 || !cJSON_AddNumberToObject (msg->body, "packed", index)
            || s_add_whole_maps (msg, &whole) < 0)
            tasks = NULL;
    }
    if (!tasks && hearth_packer_count (&self->packer) > 0) {
        zframe_t *dropped = hearth_packer_frame (&self->packer);
        zframe_destroy (&dropped); /* nothing left for the next batch */
    }
    if (!tasks) {
        log_error ("out of memory launching tasks on executor %d", exec_id);
        hearth_msg_destroy (&msg);
    }
    return msg;
}

/* exec_id's batches, made when make says so; NULL if none (or no
   memory). */
static batches_t *
s_sent (launch_t *self, int exec_id, bool make)
{
    batches_t *b = zhashx_lookup (self->sent, hearth_intkey (exec_id));
    if (!b && make && (b = batches_new ())
        && zhashx_insert (self->sent, hearth_intkey (exec_id), b) < 0)
        batches_destroy (&b);
    return b;
}

bool
launch_offer (launch_t *self, int exec_id, launch_send_fn *send, void *arg)
{
    batches_t *sent = s_sent (self, exec_id, true);
    /* nothing goes out that the batches cannot remember; they make room
       for what the executor can take (its rings grow to its slots) */
    size_t want = hearth_taskset_free_slots (self->ts, exec_id);
    if (want > s_offer_batch)
        want = s_offer_batch;
    size_t room = sent && want ? batches_reserve (sent, want) : 0;
    hearth_assign_t as[s_offer_batch];
    size_t n = room ? hearth_taskset_offer (self->ts, exec_id,
                                            hearth_mono_us (), as, room)
                    : 0;
    eventlog_t *el = work_eventlog (self->work);
    eventlog_hold_clock (el); /* one clock read for the offer's events */
    for (size_t first = 0, end; first < n; first = end) {
        hearth_msg_t *msg = s_render_batch (self, exec_id, as, first, n, &end);
        uint64_t batch = batches_next (sent);
        int kept = batches_add (sent, batch, as + first, end - first);
        assert (kept == 0); /* batches_reserve made room */
        (void) kept;
        if (msg
            && !cJSON_AddNumberToObject (msg->body, "batch", (double) batch))
            hearth_msg_destroy (&msg);
        if (msg)
            send (arg, exec_id, &msg, batch);
        else /* the driver's memory, not the tasks': lost, run again */
            batches_unsent (sent, batch, true, "out of memory launching it");
    }
    eventlog_release_clock (el);
    return n == s_offer_batch;
}

void
launch_unsent (launch_t *self, int exec_id, uint64_t batch, bool lost,
               const char *why)
{
    batches_t *sent = s_sent (self, exec_id, false);
    if (sent)
        batches_unsent (sent, batch, lost, why);
}

void
launch_handled (launch_t *self, int exec_id, const hearth_msg_t *msg)
{
    int64_t launched = hearth_json_int (msg->body, "launched", 0);
    batches_t *sent = launched ? s_sent (self, exec_id, false) : NULL;
    if (sent)
        batches_ack (sent, (uint64_t) launched);
}

void
launch_forget (launch_t *self, int exec_id)
{
    zhashx_delete (self->sent, hearth_intkey (exec_id));
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
    bool permanent;     /* a failure a retry cannot change */
    bool lost;          /* the driver's own: its launch never reached the
                           executor (never from the wire) */
    const cJSON *json;  /* its JSON form, or NULL: it came packed */
    bool has_kept;      /* packed with HEARTH_PACKED_MAP_BLOCK: its output,
                           which the driver keeps as its map output (not
                           a result) */
    const void *kept;   /* that output (borrowed from the message; NULL
                           when empty) */
    size_t kept_len;    /* its bytes */
} s_update_t;

/* One STATUS_UPDATE being applied. */
typedef struct {
    int exec_id;                     /* who sent it */
    uint32_t server;                 /* its block server (shuffle.h) */
    const char *host;                /* where it runs (part files' hosts) */
    hearth_msg_t *msg;               /* the message (its frames) */
    hearth_stage_t *stage;           /* of the last update, or NULL */
    uint32_t touched[s_max_touched]; /* stages to publish, distinct */
    size_t ntouched;                 /* entries of touched */
    int64_t now_ms; /* the wall clock read once for its attempts' ends in
                       the live timeline (0: no timeline) */
} s_status_t;

static void
s_keep_result (hearth_stage_t *st, uint64_t index, const void *data, size_t len)
{
    result_t *r = &st->results[index];
    if (st->on_result)
        st->on_result (st, index, data, len, st->on_result_user);
    if (!data || len == 0 || st->discard_results)
        return;
    r->data = malloc (len);
    if (!r->data)
        return;
    memcpy (r->data, data, len);
    r->len = (uint32_t) len;
    st->results_held++;
}

static void
s_touch (s_status_t *s, uint32_t uid)
{
    if (s->ntouched && s->touched[s->ntouched - 1] == uid)
        return;
    if (s->ntouched < s_max_touched)
        s->touched[s->ntouched++] = uid;
}

/* The task gave up: its job fails, and its stages leave the table (the
   user may free them as soon as the job has ended). */
static void
s_gave_up (launch_t *self, s_status_t *s, hearth_stage_t *st, uint64_t index,
           const s_update_t *u)
{
    char text[4608]; /* a command's error is up to 4 KiB of its stderr */
    snprintf (text, sizeof text,
              "stage %s, task %llu failed %d time%s; "
              "last error: %s%s",
              st->name, (unsigned long long) index, u->attempt + 1,
              u->attempt ? "s" : "", u->error ? u->error : "none given",
              u->permanent ? " (not retried: it would fail again)" : "");
    s->stage = NULL;
    work_fail_job (self->work, st->job, text);
}

/* What the shuffle makes of the task set's outcome: a map output
   registered, an output file committed or removed, lost inputs run again.
   Returns -1 when the job has failed (st is gone). */
static int
s_shuffle_outcome (launch_t *self, s_status_t *s, hearth_stage_t *st,
                   const s_update_t *u, hearth_ts_outcome_t out)
{
    uint64_t index = DRIVER_TID_INDEX (u->tid);
    hearth_error_t err;
    int rc = 0;
    if (out == HEARTH_TS_ACCEPT && u->has_kept)
        rc = inlineout_keep (st, index, (uint32_t) u->attempt, u->kept,
                             u->kept_len)
                     < 0
                 ? hearth_errprintf (&err, "out of memory for a map output")
                 : 0;
    else if (out == HEARTH_TS_ACCEPT) {
        rc = shuffle_accepted (st, index, u->attempt, s->server, s->host,
                               s->msg, u->json, &err);
        if (rc == 0) /* what a resumed driver would find (record.h) */
            record_output (work_record (self->work), st, index,
                           work_servers (self->work));
    }
    else if (out == HEARTH_TS_FETCH_WAIT) {
        rc = shuffle_fetch_failed (self->ts, work_servers (self->work), st,
                                   u->json, u->error, &err);
        if (rc == 0)
            work_stages_runnable (self->work, st->job);
    }
    /* where its input now stays in memory, when the executor kept it */
    if (out == HEARTH_TS_ACCEPT
        && hearth_json_bool (u->json, "input_kept", false))
        reduceplace_note (st, index, s->exec_id);
    if (out != HEARTH_TS_ACCEPT && out != HEARTH_TS_NOTED)
        shuffle_discard (st, index, u->attempt);
    if (rc < 0) {
        s->stage = NULL;
        work_fail_job (self->work, st->job, err.text);
    }
    return rc;
}

/* The bytes an attempt produced, for the event log: its result, or for
   a stage read whole the bytes it left on its node for its readers (its
   result, a newline added where it ended without one). */
static size_t
s_result_bytes (const hearth_stage_t *st, const s_update_t *u)
{
    if (st->read_whole && u->has_kept)
        return inlineout_bytes (u->kept, u->kept_len);
    if (st->read_whole && u->json)
        return (size_t) hearth_json_int (u->json, "map_bytes", 0);
    return u->result_len;
}

static void
s_apply_update (launch_t *self, s_status_t *s, s_update_t *u)
{
    uint32_t uid = DRIVER_TID_STAGE (u->tid);
    uint64_t index = DRIVER_TID_INDEX (u->tid);
    if (!s->stage || s->stage->uid != uid)
        s->stage = work_stage (self->work, uid);
    hearth_stage_t *st = s->stage;
    bool known = true;
    hearth_ts_state_t state =
        u->lost ? HEARTH_TS_LOST : s_ts_state (u->state, &known);
    if (!st || !known || index >= st->ntasks)
        return;
    if (state == HEARTH_TS_FAILED && u->permanent)
        state = HEARTH_TS_FAILED_PERMANENT;
    if (u->has_kept) /* a FINISHED one fails for a stage that keeps none */
        state = inlineout_update_state (st, u->kept_len, state, &u->error);
    else if (shuffle_has_roles (st))
        state = shuffle_update_state (st, s->msg, u->json, state, &u->error);
    uint8_t locality = HEARTH_LOC_NO_PREF;
    hearth_ts_outcome_t out = hearth_taskset_update_at (
        self->ts, s->exec_id, uid, index, u->attempt, state, u->run_us,
        hearth_mono_us (), &locality);
    eventlog_t *el = work_eventlog (self->work);
    tlfeed_t *tl = work_tlfeed (self->work);
    if ((el || tl) && state != HEARTH_TS_RUNNING && out != HEARTH_TS_STALE) {
        evtask_end_t end = {.exec_id = s->exec_id,
                            .stage = uid,
                            .index = index,
                            .attempt = u->attempt,
                            .state = u->state,
                            .out = out,
                            .run_us = u->run_us,
                            .error = u->error,
                            .result_bytes = s_result_bytes (st, u),
                            .locality = locality};
        evtask_end (el, &end);
        tlfeed_attempt (tl, &end, s->now_ms);
    }
    if (shuffle_has_roles (st) && s_shuffle_outcome (self, s, st, u, out) < 0)
        return;
    /* the progress display counts failures, not kills and losses */
    if ((out == HEARTH_TS_RETRY || out == HEARTH_TS_GAVE_UP)
        && (state == HEARTH_TS_FAILED || state == HEARTH_TS_FAILED_PERMANENT))
        st->failed_attempts++;
    if (out == HEARTH_TS_ACCEPT)
        s_keep_result (st, index, u->result, u->result_len);
    else if (out == HEARTH_TS_RELEASED && state == HEARTH_TS_KILLED)
        log_info ("stage %s, task %llu, attempt %d: killed as asked", st->name,
                  (unsigned long long) index, u->attempt);
    else if (out == HEARTH_TS_DUPLICATE)
        log_info ("stage %s, task %llu, attempt %d: finished after another "
                  "attempt's result; discarded (exactly once)",
                  st->name, (unsigned long long) index, u->attempt);
    else if (out == HEARTH_TS_RETRY && state == HEARTH_TS_FAILED)
        /* a failed attempt is said where the user looks, above the
           progress display (Spark's "Lost task" lines), not only
           counted in it; a lost or killed one is the executor's story */
        log_warn ("stage %s, task %llu, attempt %d failed on executor %d: %s; "
                  "trying again",
                  st->name, (unsigned long long) index, u->attempt, s->exec_id,
                  u->error ? u->error : u->state);
    else if (out == HEARTH_TS_RETRY)
        log_info ("stage %s, task %llu, attempt %d: %s; trying again", st->name,
                  (unsigned long long) index, u->attempt,
                  u->error ? u->error : u->state);
    else if (out == HEARTH_TS_GAVE_UP) {
        s_gave_up (self, s, st, index, u);
        return;
    }
    s_touch (s, uid);
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
                        .result_len = frame ? zframe_size (frame) : 0,
                        .permanent =
                            hearth_json_bool (json, "permanent", false),
                        .json = json};
}

static s_update_t
s_update_from_packed (hearth_msg_t *msg, const hearth_packed_update_t *p)
{
    zframe_t *frame = hearth_msg_frame (msg, p->result_frame);
    s_update_t u = {.tid = p->tid,
                    .attempt = p->attempt,
                    .state = hearth_task_states[p->state],
                    .run_us = p->flags & HEARTH_PACKED_RUN_US ? p->run_us : 0,
                    .error = p->error,
                    .result = frame ? zframe_data (frame) : p->result,
                    .result_len = frame ? zframe_size (frame) : p->result_len,
                    .permanent = (p->flags & HEARTH_PACKED_PERMANENT) != 0};
    if (p->flags & HEARTH_PACKED_MAP_BLOCK) {
        /* not a result: the driver keeps it as the task's map output */
        u.has_kept = true;
        u.kept = u.result;
        u.kept_len = u.result_len;
        u.result = NULL;
        u.result_len = 0;
    }
    return u;
}

void
launch_status (launch_t *self, int exec_id, uint32_t server, const char *host,
               hearth_msg_t *msg)
{
    s_status_t s = {
        .exec_id = exec_id, .server = server, .host = host, .msg = msg};
    eventlog_t *el = work_eventlog (self->work);
    eventlog_hold_clock (el); /* one clock read for the message's events */
    if (work_tlfeed (self->work))
        s.now_ms = eventlog_time_ms (el);
    const cJSON *updates =
        cJSON_GetObjectItemCaseSensitive (msg->body, "updates");
    const cJSON *json;
    cJSON_ArrayForEach (json, updates)
    {
        s_update_t u = s_update_from_json (msg, json);
        s_apply_update (self, &s, &u);
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
            s_apply_update (self, &s, &u);
        }
    eventlog_release_clock (el);
    for (size_t i = 0; i < s.ntouched; i++)
        work_publish (self->work, s.touched[i]);
    launch_handled (self, exec_id, msg);
}

/* The attempts of a batch of exec_id, each LOST (lost: its launch never
   reached the executor) or FAILED with why. */
static void
s_end_batch (launch_t *self, int exec_id, const batches_taken_t *b, bool lost,
             const char *why)
{
    s_status_t s = {.exec_id = exec_id, .server = SHUFFLE_NO_SERVER};
    eventlog_t *el = work_eventlog (self->work);
    eventlog_hold_clock (el);
    if (work_tlfeed (self->work))
        s.now_ms = eventlog_time_ms (el);
    for (size_t i = 0; i < b->n; i++) {
        s_update_t u = {.tid = DRIVER_TID (b->as[i].stage, b->as[i].index),
                        .attempt = b->as[i].attempt,
                        .state = lost ? "LOST" : "FAILED",
                        .error = why,
                        .lost = lost};
        s_apply_update (self, &s, &u);
    }
    eventlog_release_clock (el);
    for (size_t i = 0; i < s.ntouched; i++)
        work_publish (self->work, s.touched[i]);
}

/* Take out the batch an ERROR about a LAUNCH_TASKS of exec_id refused:
   the one it names, else the one read after the last it handled (its
   "launched"), else the only one in flight.  0, or -1 when none is
   taken; *unknown then says the ERROR named none and several may be the
   one. */
static int
s_take_refused (batches_t *sent, const cJSON *body, batches_taken_t *b,
                bool *unknown)
{
    int64_t batch = hearth_json_int (body, "batch", 0);
    int64_t launched = hearth_json_int (body, "launched", -1);
    int rc = batch > 0       ? batches_take (sent, (uint64_t) batch, b)
             : launched >= 0 ? batches_take_next (sent, (uint64_t) launched, b)
                             : batches_take_pending (sent, b);
    *unknown = rc < 0 && batch <= 0 && errno == ENOTUNIQ;
    if (launched > 0) /* it handled those before */
        batches_ack (sent, (uint64_t) launched);
    return rc;
}

launch_error_t
launch_error (launch_t *self, int exec_id, const hearth_msg_t *msg)
{
    const char *command = hearth_json_str (msg->body, "command");
    if (!command || strcmp (command, "LAUNCH_TASKS") != 0)
        return LAUNCH_ERROR_OTHER;
    int64_t named = hearth_json_int (msg->body, "batch", 0);
    char why[HEARTH_ERROR_TEXT_MAX + 64];
    snprintf (why, sizeof why, "executor %d refused the task's launch: %s",
              exec_id, hearth_json_str (msg->body, "message"));
    batches_t *sent = s_sent (self, exec_id, false);
    batches_taken_t b;
    bool unknown = false;
    if (!sent || s_take_refused (sent, msg->body, &b, &unknown) < 0) {
        if (unknown)
            return LAUNCH_ERROR_UNKNOWN;
        log_warn ("%s (batch %lld, not one in flight)", why, (long long) named);
        return LAUNCH_ERROR_HANDLED;
    }
    int64_t launched = hearth_json_int (msg->body, "launched", -1);
    log_warn ("%s (batch %llu%s: %zu tasks)", why, (unsigned long long) b.batch,
              named           ? ""
              : launched >= 0 ? ", the one it read after those it handled"
                              : ", the only one in flight",
              b.n);
    s_end_batch (self, exec_id, &b, false, why);
    batches_taken_free (&b);
    return LAUNCH_ERROR_HANDLED;
}

size_t
launch_tick (launch_t *self)
{
    /* collected first: ending attempts may change the table */
    int ids[s_max_tick_execs];
    size_t nids = 0, ended = 0;
    for (batches_t *b = zhashx_first (self->sent); b && nids < s_max_tick_execs;
         b = zhashx_next (self->sent))
        if (batches_unsent_count (b))
            ids[nids++] = hearth_intkey_id (zhashx_cursor (self->sent));
    for (size_t i = 0; i < nids; i++) {
        batches_t *sent = s_sent (self, ids[i], false);
        batches_taken_t b;
        while (sent && batches_take_unsent (sent, &b) == 0) {
            const char *why = b.why ? b.why : "out of memory";
            log_warn (
                "executor %d: %zu tasks not launched: %s%s", ids[i], b.n, why,
                b.lost ? " (they run again, not counted as failures)" : "");
            s_end_batch (self, ids[i], &b, b.lost, why);
            ended += b.n;
            batches_taken_free (&b);
            sent = s_sent (self, ids[i], false);
        }
    }
    return ended;
}

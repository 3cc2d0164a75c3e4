/*  orders.c - what each command of the driver does to the executor:
    REGISTERED_EXECUTOR (the application's libraries and files, got by
    shipfetch.h, its bounds: link_registered, which the link calls once
    its uplink is up), LAUNCH_TASKS (tasks into the table), FILE_CHUNK
    (shipfetch.h), KILL_TASK, STOP_EXECUTOR, ERROR, HEARTBEAT; one
    handler table (link_int.h).
*/
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "executor/link_int.h"
#include "executor/partcache.h"
#include "executor/shipfetch.h"
#include "executor/shuffletask.h"
#include "executor/tasks.h"
#include "libcore/clock.h"
#include "libcore/dispatch.h"
#include "libcore/log.h"

/* A size the driver sets (a positive integer field of REGISTERED_EXECUTOR),
   into *bound; absent or 0: the executor's own stays. */
static void
s_bound (const cJSON *body, const char *name, size_t *bound)
{
    int64_t v = hearth_json_int (body, name, 0);
    if (v > 0)
        *bound = (size_t) v;
}

void
link_registered (link_t *self, const hearth_msg_t *msg)
{
    executor_t *ex = self->ex;
    const cJSON *b = msg->body;
    ex->max_result_bytes =
        hearth_json_int (b, "max_result_bytes", ex->max_result_bytes);
    /* the shuffle's bounds are the application's: its driver's settings
       win over this executor's own flags */
    s_bound (b, "shuffle_memory", &ex->shuffle_memory);
    s_bound (b, "fetch_max_in_flight", &ex->fetch_in_flight);
    s_bound (b, "max_input_bytes", &ex->max_input_bytes);
    if (cJSON_GetObjectItemCaseSensitive (b, "cache_memory")) {
        ex->cache_memory = executor_cache_budget (
            ex, (size_t) hearth_json_int (b, "cache_memory", 0));
        partcache_set_budget (ex->partcache, ex->cache_memory);
    }
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive (b, "libs");
    const cJSON *files = cJSON_GetObjectItemCaseSensitive (b, "files");
    log_info ("registered with the driver (%d libraries, %d files)",
              cJSON_GetArraySize (libs), cJSON_GetArraySize (files));
    shipfetch_start (self->ship, libs, files,
                     cJSON_GetObjectItemCaseSensitive (b, "broadcast"),
                     (double) hearth_json_int (b, "ship_start", 0) / 1e6);
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

/* A LAUNCH_TASKS's "whole_maps", read once for its packed tasks. */
typedef struct {
    int64_t stage;       /* a stage read whole */
    uint32_t inline_max; /* what its outputs may keep */
} s_whole_t;
typedef struct {
    s_whole_t *list; /* entries, or NULL */
    size_t n;        /* entries */
} s_whole_maps_t;

/* list read into *w.  0, or -1 on no memory. */
static int
s_whole_maps_read (const cJSON *list, s_whole_maps_t *w)
{
    const cJSON *m;
    size_t n = (size_t) cJSON_GetArraySize (list);
    *w = (s_whole_maps_t){n ? calloc (n, sizeof *w->list) : NULL, 0};
    if (n && !w->list)
        return -1;
    cJSON_ArrayForEach (m, list)
    {
        w->list[w->n++] =
            (s_whole_t){hearth_json_int (m, "stage", -1),
                        (uint32_t) hearth_json_int (m, "inline_max", 0)};
    }
    return 0;
}

/* The map role "whole_maps" gives the packed tasks of their stage (tid's
   high 32 bits).  A function task whose output may be kept gets none
   yet: its thread makes its result the output (shuffletask.h,
   shuffletask_whole_result).  0, or -1 on no memory. */
static int
s_whole_map (const s_whole_maps_t *w, task_t *t)
{
    for (size_t i = 0; i < w->n; i++) {
        if ((uint64_t) w->list[i].stage != t->tid >> 32)
            continue;
        uint32_t stage = (uint32_t) (t->tid >> 32);
        if (!t->argv && w->list[i].inline_max) {
            t->whole_shuffle = stage;
            t->whole_max = w->list[i].inline_max;
            return 0;
        }
        t->roles = shuffletask_whole_map (stage, w->list[i].inline_max);
        return t->roles ? 0 : -1;
    }
    return 0;
}

/* The packed tasks (the decoder has checked every record); those of a
   stage in whole_maps write a map output read whole. */
static void
s_launch_packed (link_t *self, const cJSON *index, const cJSON *whole_maps,
                 shared_frames_t *sf)
{
    hearth_unpacker_t u;
    hearth_packed_task_t p;
    hearth_error_t err;
    if (!index || !sf || (size_t) index->valuedouble >= sf->nframes
        || hearth_unpacker_init (&u, sf->frames[(size_t) index->valuedouble],
                                 HEARTH_PACKED_TASKS, &err)
               < 0)
        return;
    s_whole_maps_t whole;
    bool nomem = s_whole_maps_read (whole_maps, &whole) < 0;
    while (hearth_unpack_task (&u, sf->nframes, &p, &err) > 0) {
        task_t *t = nomem ? NULL : task_from_packed (&p, sf);
        if (t && whole.n && s_whole_map (&whole, t) < 0)
            task_destroy (&t);
        if (t)
            tasks_enqueue (self->tasks, t);
        else
            log_error ("out of memory queueing a task");
    }
    free (whole.list);
}

static void
s_on_launch (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
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
        tasks_enqueue (self->tasks, t);
    }
    s_launch_packed (
        self, cJSON_GetObjectItemCaseSensitive (msg->body, "packed"),
        cJSON_GetObjectItemCaseSensitive (msg->body, "whole_maps"), sf);
    int64_t batch = hearth_json_int (msg->body, "batch", 0);
    if (batch > self->launched)
        self->launched = batch;
    shared_frames_release (&sf);
    tasks_dispatch (self->tasks);
}

static void
s_on_kill (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
    tasks_kill (self->tasks, hearth_json_int (msg->body, "tid", 0),
                (int) hearth_json_int (msg->body, "attempt", 0));
}

static void
s_on_commit_answer (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
    tasks_commit_answer (self->tasks, hearth_json_int (msg->body, "tid", 0),
                         (int) hearth_json_int (msg->body, "attempt", 0),
                         hearth_json_bool (msg->body, "allowed", false));
}

static void
s_on_stop (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
    log_info ("driver says stop: %s",
              hearth_json_str (msg->body, "reason") ?: "no reason");
    self->ex->stopping = true;
}

/* A chunk of a shipped file (shipfetch.h). */
static void
s_on_chunk (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
    shipfetch_on_chunk (self->ship, msg);
    /* a chunk takes a while (written, checked, hashed): a read of many
       must not look like a silent driver */
    hearth_uplink_heard_at (self->uplink, hearth_mono_ms ());
}

/* Broadcast files added after we registered (shipfetch.h). */
static void
s_on_broadcast (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
    shipfetch_add_broadcast (
        self->ship, cJSON_GetObjectItemCaseSensitive (msg->body, "broadcast"));
}

/* Other nodes hold the chunk asked for (shipfetch.h). */
static void
s_on_holders (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
    shipfetch_on_holders (self->ship, msg);
}

static void
s_on_error (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
    if (shipfetch_on_error (self->ship, msg))
        return; /* a FETCH_FILE refused: that file failed, logged */
    const char *code = hearth_json_str (msg->body, "code");
    const char *text = hearth_json_str (msg->body, "message");
    if (hearth_uplink_ever (self->uplink)) { /* REGISTERED_EXECUTOR came */
        hearth_log_limited (self->log_limit, HEARTH_LOG_ERROR,
                            "error reported by the driver", hearth_mono_ms (),
                            "driver says %s: %s", code, text);
        return;
    }
    log_error ("driver says %s: %s", code, text);
    self->ex->stopping = true;
    self->ex->exit_code = 1;
}

/* A sign of life, which the uplink has counted already. */
static void
s_on_heartbeat (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) from;
    link_t *self = arg;
    (void) self;
    (void) msg;
}

/* The driver's commands, LAUNCH_TASKS first: by far the most frequent. */
static const hearth_handler_t s_handlers[] = {
    {HEARTH_CMD_LAUNCH_TASKS, s_on_launch},
    {HEARTH_CMD_HEARTBEAT, s_on_heartbeat},
    {HEARTH_CMD_FILE_CHUNK, s_on_chunk},
    {HEARTH_CMD_FILE_HOLDERS, s_on_holders},
    {HEARTH_CMD_BROADCAST, s_on_broadcast},
    {HEARTH_CMD_KILL_TASK, s_on_kill},
    {HEARTH_CMD_COMMIT_ANSWER, s_on_commit_answer},
    {HEARTH_CMD_STOP_EXECUTOR, s_on_stop},
    {HEARTH_CMD_ERROR, s_on_error},
};

void
link_dispatch (link_t *self, hearth_msg_t *msg)
{
    hearth_from_t from = {.key = ""}; /* the one peer of its DEALER */
    if (hearth_dispatch (HEARTH_HANDLERS (s_handlers), self, &from, msg) == 0)
        return;
    hearth_log_limited (self->log_limit, HEARTH_LOG_WARN,
                        "unexpected command from the driver", hearth_mono_ms (),
                        "unexpected %s from the driver, ignored",
                        hearth_cmd_name (msg->cmd));
}

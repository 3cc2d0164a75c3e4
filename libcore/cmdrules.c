/*  cmdrules.c - the rules of command bodies beyond their schemas; see
    cmdrules.h. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>

#include "libcore/cmdrules.h"
#include "libcore/packed.h"
#include "libcore/partfmt.h"
#include "libcore/proto.h"
#include "libcore/timeline_live.h"

/* The binary frame a body's `packed` field names, if any, checked as a
   frame of records with tag (packed.h). */
static int
s_check_packed (const cJSON *body, zframe_t *const *frames, size_t nframes,
                const char *tag, hearth_error_t *err)
{
    const cJSON *index = cJSON_GetObjectItemCaseSensitive (body, "packed");
    if (!index)
        return 0;
    /* the schema checked that it indexes one of the frames */
    return hearth_packed_check (frames[(size_t) index->valuedouble], tag,
                                nframes, err);
}

/* A little-endian u32 at p. */
static uint32_t
s_le32 (const unsigned char *p)
{
    return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
           | (uint32_t) p[3] << 24;
}

static uint64_t
s_le64 (const unsigned char *p)
{
    return (uint64_t) s_le32 (p) | (uint64_t) s_le32 (p + 4) << 32;
}

/* An update's "map_block": the output the driver keeps, as long as its
   map_sizes says, and no more than a driver may keep. */
static int
s_check_map_block (const cJSON *u, zframe_t *const *frames, int i,
                   hearth_error_t *err)
{
    const cJSON *block = cJSON_GetObjectItemCaseSensitive (u, "map_block");
    if (!block)
        return 0;
    const cJSON *sizes = cJSON_GetObjectItemCaseSensitive (u, "map_sizes");
    zframe_t *f = frames[(size_t) block->valuedouble];
    zframe_t *s = sizes ? frames[(size_t) sizes->valuedouble] : NULL;
    size_t len = zframe_size (f);
    if (!s || zframe_size (s) != 8 || s_le64 (zframe_data (s)) != len
        || len > HEARTH_INLINE_BLOCK_MAX)
        return hearth_errcode (err, "bad_field",
                               "field 'updates[%d].map_block': expected the "
                               "one partition map_sizes gives, at most %d "
                               "bytes, got %zu bytes",
                               i, HEARTH_INLINE_BLOCK_MAX, len);
    return 0;
}

int
hearth_cmdrules_updates (const cJSON *body, zframe_t *const *frames,
                         size_t nframes, hearth_error_t *err)
{
    const cJSON *updates = cJSON_GetObjectItemCaseSensitive (body, "updates");
    int i = 0;
    for (const cJSON *u = updates ? updates->child : NULL; u;
         u = u->next, i++) {
        const cJSON *sizes = cJSON_GetObjectItemCaseSensitive (u, "map_sizes");
        size_t len =
            sizes ? zframe_size (frames[(size_t) sizes->valuedouble]) : 8;
        if (len == 0 || len % 8 != 0 || len / 8 > HEARTH_MAX_PARTITIONS)
            return hearth_errcode (err, "bad_field",
                                   "field 'updates[%d].map_sizes': expected "
                                   "1..%u u64 sizes, got a frame of %zu bytes",
                                   i, HEARTH_MAX_PARTITIONS, len);
        if (s_check_map_block (u, frames, i, err) < 0)
            return -1;
    }
    return s_check_packed (body, frames, nframes, HEARTH_PACKED_UPDATES, err);
}

static int
s_inline_mismatch (int i, size_t len, hearth_error_t *err)
{
    return hearth_errcode (err, "bad_field",
                           "field 'tasks[%d].reduce.inline': %zu bytes, and "
                           "its blocks name more or fewer",
                           i, len);
}

/* A reduce role's "blocks" frame: whole records, each naming one of its
   servers (or none: HEARTH_BLOCK_LOCAL, or the driver's: HEARTH_BLOCK_INLINE,
   whose bytes fill the "inline" frame exactly) and a possible attempt. */
static int
s_check_blocks (const cJSON *reduce, zframe_t *const *frames, int i,
                hearth_error_t *err)
{
    const cJSON *index = cJSON_GetObjectItemCaseSensitive (reduce, "blocks");
    zframe_t *frame = frames[(size_t) index->valuedouble];
    size_t len = zframe_size (frame);
    const unsigned char *data = zframe_data (frame);
    int nservers = cJSON_GetArraySize (
        cJSON_GetObjectItemCaseSensitive (reduce, "servers"));
    if (len % HEARTH_BLOCK_RECORD != 0)
        return hearth_errcode (err, "bad_field",
                               "field 'tasks[%d].reduce.blocks': expected a "
                               "multiple of %d bytes, got %zu",
                               i, HEARTH_BLOCK_RECORD, len);
    const cJSON *inl = cJSON_GetObjectItemCaseSensitive (reduce, "inline");
    size_t inline_len =
               inl ? zframe_size (frames[(size_t) inl->valuedouble]) : 0,
           inline_sum = 0;
    for (size_t m = 0; m < len / HEARTH_BLOCK_RECORD; m++) {
        const unsigned char *r = data + m * HEARTH_BLOCK_RECORD;
        uint32_t server = s_le32 (r), attempt = s_le32 (r + 4);
        if (server == HEARTH_BLOCK_INLINE) {
            uint64_t n = s_le64 (r + 8);
            if (n > inline_len - inline_sum)
                return s_inline_mismatch (i, inline_len, err);
            inline_sum += (size_t) n;
        }
        else if (server != HEARTH_BLOCK_LOCAL && server >= (uint32_t) nservers)
            return hearth_errcode (err, "bad_field",
                                   "field 'tasks[%d].reduce.blocks': map %zu "
                                   "names server %u of %d",
                                   i, m, server, nservers);
        if (attempt > HEARTH_TASK_ATTEMPT_MAX)
            return hearth_errcode (err, "bad_field",
                                   "field 'tasks[%d].reduce.blocks': map %zu "
                                   "has attempt %u (at most %d)",
                                   i, m, attempt, HEARTH_TASK_ATTEMPT_MAX);
    }
    if (inline_sum != inline_len || (inl && !inline_len))
        return s_inline_mismatch (i, inline_len, err);
    return 0;
}

/* A function's argument in a frame of its own ("arg_frame"): not beside
   "arg", not for a command, not over HEARTH_TASK_ARG_FRAME_MAX. */
static int
s_check_arg_frame (const cJSON *t, zframe_t *const *frames, bool fn, int i,
                   hearth_error_t *err)
{
    const cJSON *index = cJSON_GetObjectItemCaseSensitive (t, "arg_frame");
    if (!index)
        return 0;
    size_t len = zframe_size (frames[(size_t) index->valuedouble]);
    const char *why = !fn ? "a command has no argument"
                      : cJSON_HasObjectItem (t, "arg") ? "not with 'arg'"
                      : len > HEARTH_TASK_ARG_FRAME_MAX
                          ? "over the largest argument"
                          : NULL;
    if (why)
        return hearth_errcode (err, "bad_field",
                               "field 'tasks[%d].arg_frame': %s (a frame of "
                               "%zu bytes, at most %d)",
                               i, why, len, HEARTH_TASK_ARG_FRAME_MAX);
    return 0;
}

int
hearth_cmdrules_tasks (const cJSON *body, zframe_t *const *frames,
                       size_t nframes, hearth_error_t *err)
{
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive (body, "tasks");
    int i = 0;
    for (const cJSON *t = tasks ? tasks->child : NULL; t; t = t->next, i++) {
        /* case-sensitive, as the schema: "CMD" is an unknown field */
        const cJSON *argv = cJSON_GetObjectItemCaseSensitive (t, "cmd");
        bool cmd = argv != NULL;
        bool fn = cJSON_GetObjectItemCaseSensitive (t, "fn") != NULL;
        if (cmd == fn)
            return hearth_errcode (err, "bad_field",
                                   "field 'tasks[%d]': expected exactly one "
                                   "of 'cmd' and 'fn', got %s",
                                   i, cmd ? "both" : "neither");
        if (cmd && (!argv->child || !*argv->child->valuestring))
            return hearth_errcode (err, "bad_field",
                                   "field 'tasks[%d].cmd': expected a "
                                   "non-empty argv with a non-empty "
                                   "program",
                                   i);
        if (s_check_arg_frame (t, frames, fn, i, err) < 0)
            return -1;
        if (cJSON_GetObjectItemCaseSensitive (t, "map")
            && cJSON_GetObjectItemCaseSensitive (t, "output"))
            return hearth_errcode (err, "bad_field",
                                   "field 'tasks[%d]': 'map' and 'output' "
                                   "exclude each other",
                                   i);
        const cJSON *map = cJSON_GetObjectItemCaseSensitive (t, "map");
        const cJSON *parts =
            map ? cJSON_GetObjectItemCaseSensitive (map, "partitions") : NULL;
        if (map
            && cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (map, "whole"))
            && parts && parts->valuedouble != 1)
            return hearth_errcode (err, "bad_field",
                                   "field 'tasks[%d].map': a map output "
                                   "read whole has 1 partition",
                                   i);
        const cJSON *reduce = cJSON_GetObjectItemCaseSensitive (t, "reduce");
        if (reduce && s_check_blocks (reduce, frames, i, err) < 0)
            return -1;
        if (cJSON_GetObjectItemCaseSensitive (t, "commit_to")
            && !cJSON_GetObjectItemCaseSensitive (t, "output"))
            return hearth_errcode (err, "bad_field",
                                   "field 'tasks[%d].commit_to': only with "
                                   "'output'",
                                   i);
    }
    return s_check_packed (body, frames, nframes, HEARTH_PACKED_TASKS, err);
}

/* The most each column of an attempt may hold (the schema bounds every
   one to 2^53 - 1). */
static const double s_col_max[HEARTH_TLW_COLS] = {
    [HEARTH_TLW_EXEC] = 2147483647.0,
    [HEARTH_TLW_STAGE] = 4294967295.0,
    [HEARTH_TLW_TASK] = 9007199254740991.0,
    [HEARTH_TLW_ATTEMPT] = HEARTH_TASK_ATTEMPT_MAX,
    [HEARTH_TLW_START] = 9007199254740991.0,
    [HEARTH_TLW_END] = 9007199254740991.0,
    [HEARTH_TLW_OUTCOME] = HEARTH_TL_UNUSED,
};

/* A `timeline` object's attempts: each column in range, the end not
   before the start. */
static int
s_check_timeline (const cJSON *timeline, hearth_error_t *err)
{
    const cJSON *attempts =
        cJSON_GetObjectItemCaseSensitive (timeline, "attempts");
    int i = 0;
    for (const cJSON *a = attempts ? attempts->child : NULL; a;
         a = a->next, i++) {
        double v[HEARTH_TLW_COLS];
        int c = 0;
        for (const cJSON *e = a->child; e && c < HEARTH_TLW_COLS; e = e->next)
            v[c++] = e->valuedouble;
        for (int k = 0; k < c; k++)
            if (v[k] > s_col_max[k])
                return hearth_errcode (
                    err, "bad_field",
                    "field 'timeline.attempts[%d][%d]': expected at most "
                    "%.0f, got %.0f",
                    i, k, s_col_max[k], v[k]);
        if (c == HEARTH_TLW_COLS && v[HEARTH_TLW_END] < v[HEARTH_TLW_START])
            return hearth_errcode (err, "bad_field",
                                   "field 'timeline.attempts[%d]': it ends "
                                   "(%.0f) before it starts (%.0f)",
                                   i, v[HEARTH_TLW_END], v[HEARTH_TLW_START]);
    }
    return 0;
}

int
hearth_cmdrules_progress (const cJSON *body, zframe_t *const *frames,
                          size_t nframes, hearth_error_t *err)
{
    (void) frames;
    (void) nframes;
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive (body, "timeline");
    return tl ? s_check_timeline (tl, err) : 0;
}

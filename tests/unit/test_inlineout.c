/*  test_inlineout.c - small map outputs read whole, kept by the driver
    (libhearth/inlineout.c through libhearth/shuffle.c): the budget shared
    at submit, blocks taken from updates within inline_max only, sent to
    the readers once per message and held once, forgotten when replaced,
    released with their job. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/partfmt.h"
#include "tests/unit/shuffle_fixture.h"

/* The driver's budget for the outputs it keeps, shared at submit. */
static void
test_kept_reserve (void **state)
{
    (void) state;
    s_job_t j;
    s_job_init (&j, 3, 1);
    j.map.partitions = 0;
    j.map.read_whole = true;
    uint64_t left = 1000;
    inlineout_reserve (&j.map, &left);
    assert_int_equal (j.map.inline_max, 333);
    assert_int_equal (j.map.inline_reserved, 999);
    assert_int_equal (left, 1);
    uint64_t none = INLINEOUT_MIN * 3 - 1; /* under the least share */
    inlineout_reserve (&j.reduce, &none);  /* not read whole */
    assert_int_equal (j.reduce.inline_max, 0);
    inlineout_release (&j.job, &left);
    assert_int_equal (left, 1000);
    assert_int_equal (j.map.inline_max, 0);
    inlineout_reserve (&j.map, &none);
    assert_int_equal (j.map.inline_max, 0);
    assert_int_equal (none, INLINEOUT_MIN * 3 - 1);
    left = INLINEOUT_BUDGET;
    inlineout_reserve (&j.map, &left); /* capped a task */
    assert_int_equal (j.map.inline_max, INLINEOUT_STAGE_MAX);
    assert_int_equal (left, INLINEOUT_BUDGET - 3 * INLINEOUT_STAGE_MAX);
    j.map.sort = true; /* merged from files: never kept */
    inlineout_reserve (&j.map, &left);
    assert_int_equal (j.map.inline_max, 0);
    s_job_free (&j);
}

/* A FINISHED update of a task read whole in msg: its one size, and the
   block the driver keeps when data is not NULL. */
static cJSON *
s_finished_kept (hearth_msg_t *msg, const char *data, size_t len)
{
    uint64_t size = len;
    cJSON *u = s_finished (msg, &size, 1);
    if (data) {
        zframe_t *f = zframe_new (data, len);
        cJSON_AddNumberToObject (u, "map_block",
                                 hearth_msg_add_frame (msg, &f));
    }
    return u;
}

/* A reduce task's "inline" frame (NULL: none). */
static zframe_t *
s_inline_of (hearth_msg_t *msg, const cJSON *t)
{
    const cJSON *r = cJSON_GetObjectItem (t, "reduce");
    return hearth_msg_frame (msg, hearth_json_int (r, "inline", -1));
}

/* A reading task's "input" frame (NULL: none). */
static zframe_t *
s_input_of (hearth_msg_t *msg, const cJSON *t)
{
    return hearth_msg_frame (msg, hearth_json_int (t, "input", -1));
}

/* Whether frame f holds the outputs a, then b (NULL: none), each framed
   as a block is. */
static bool
s_framed (zframe_t *f, const char *a, const char *b)
{
    unsigned char want[256], *p = want;
    for (const char *o = a; o; o = o == a ? b : NULL) {
        hearth_frames_encode (o, strlen (o), p);
        p += hearth_frames_size (strlen (o));
    }
    return f && zframe_size (f) == (size_t) (p - want)
           && memcmp (zframe_data (f), want, zframe_size (f)) == 0;
}

/* Small outputs of a stage read whole kept by the driver: taken from the
   update when shorter than inline_max only, their newline added, sent
   framed as blocks to every reader in one shared frame beside the blocks
   on disk, and forgotten when replaced. */
static void
test_kept_outputs (void **state)
{
    (void) state;
    s_job_t j;
    s_job_init (&j, 3, 1);
    j.map.partitions = 0;
    j.map.read_whole = true;
    j.reduce.ntasks = 2; /* two readers of the whole */
    uint64_t left = 3 * 100;
    inlineout_reserve (&j.map, &left);
    shuffle_servers_t *s = shuffle_servers_new ();
    uint32_t b = shuffle_servers_intern (s, "tcp://b:1", NULL);
    hearth_msg_t *launch = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (launch, t, s, &j.map, 0, 0), 0);
    cJSON *map = cJSON_GetObjectItem (t, "map");
    assert_int_equal (hearth_json_int (map, "inline_max", 0), 100);
    assert_true (hearth_json_bool (map, "whole", false));
    cJSON_Delete (t);
    /* updates: within inline_max, over it, and kept by no stage */
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    char big[100] = {0}; /* inline_max itself: no room for a newline */
    const char *error = NULL;
    cJSON *u0 = s_finished_kept (msg, "block-zero", 10);
    cJSON *u1 = s_finished_kept (msg, NULL, 500); /* on disk */
    cJSON *u2 = s_finished_kept (msg, "block-two!!", 11);
    cJSON *over = s_finished_kept (msg, big, sizeof big);
    assert_int_equal (
        shuffle_update_state (&j.map, msg, u0, HEARTH_TS_FINISHED, &error),
        HEARTH_TS_FINISHED);
    assert_int_equal (
        shuffle_update_state (&j.map, msg, over, HEARTH_TS_FINISHED, &error),
        HEARTH_TS_FAILED);
    assert_non_null (strstr (error, "map_block"));
    j.reduce.inline_max = 0;
    error = NULL;
    assert_int_equal (
        shuffle_update_state (&j.reduce, msg, u0, HEARTH_TS_FINISHED, &error),
        HEARTH_TS_FAILED);
    hearth_error_t err;
    assert_int_equal (
        shuffle_accepted (&j.map, 0, 0, b, "10.0.0.1", msg, u0, &err), 0);
    assert_int_equal (
        shuffle_accepted (&j.map, 1, 2, b, "10.0.0.1", msg, u1, &err), 0);
    assert_int_equal (
        shuffle_accepted (&j.map, 2, 1, b, "10.0.0.1", msg, u2, &err), 0);
    assert_int_equal (j.map.maps[0].server, SHUFFLE_KEPT);
    assert_int_equal (j.map.maps[1].server, b);
    assert_false (j.map.maps[1].fresh);
    /* each reader: the records, and the kept blocks in task order */
    zframe_t *first = NULL;
    for (uint64_t reader = 0; reader < 2; reader++) {
        t = cJSON_CreateObject ();
        assert_int_equal (shuffle_render (launch, t, s, &j.reduce, reader, 0),
                          0);
        zframe_t *kept = s_inline_of (launch, t);
        assert_true (s_framed (kept, "block-zero\n", "block-two!!\n"));
        if (!first)
            first = kept;
        assert_ptr_equal (zframe_data (kept), zframe_data (first));
        const cJSON *r = cJSON_GetObjectItem (t, "reduce");
        const unsigned char *p = zframe_data (
            hearth_msg_frame (launch, hearth_json_int (r, "blocks", -1)));
        uint64_t want[3][3] = {{SHUFFLE_KEPT, 0, hearth_frames_size (11)},
                               {0, 2, 500},
                               {SHUFFLE_KEPT, 1, hearth_frames_size (12)}};
        for (int m = 0; m < 3; m++) {
            assert_int_equal (s_le (p + 16 * m, 4), want[m][0]);
            assert_int_equal (s_le (p + 16 * m + 4, 4), want[m][1]);
            assert_int_equal (s_le (p + 16 * m + 8, 8), want[m][2]);
        }
        cJSON_Delete (t);
    }
    /* map 0 run again, its output on disk this time: no longer kept */
    assert_int_equal (
        shuffle_accepted (&j.map, 0, 1, b, "10.0.0.1", msg, u1, &err), 0);
    assert_int_equal (j.map.maps[0].server, b);
    assert_true (j.map.inline_stale); /* the next reader builds it again */
    t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (launch, t, s, &j.reduce, 0, 0), 0);
    assert_true (s_framed (s_inline_of (launch, t), "block-two!!\n", NULL));
    cJSON_Delete (t);
    inlineout_release (&j.job, &left);
    assert_int_equal (left, 3 * 100);
    assert_null (j.map.inline_cache);
    for (cJSON **u = (cJSON *[]){u0, u1, u2, over, NULL}; *u; u++)
        cJSON_Delete (*u);
    hearth_msg_destroy (&msg);
    hearth_msg_destroy (&launch);
    shuffle_servers_destroy (&s);
    s_job_free (&j);
}

/* A stage read whole with two outputs kept (3 and 4 bytes) by a reduce
   stage of nreaders tasks. */
static void
s_kept_job (s_job_t *j, uint64_t nreaders, uint64_t *left)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    s_job_init (j, 2, 1);
    j->map.partitions = 0;
    j->map.read_whole = true;
    j->reduce.ntasks = nreaders;
    inlineout_reserve (&j->map, left);
    cJSON *u0 = s_finished_kept (msg, "abc", 3);
    cJSON *u1 = s_finished_kept (msg, "defg", 4);
    hearth_error_t err;
    assert_int_equal (shuffle_accepted (&j->map, 0, 0, SHUFFLE_NO_SERVER, NULL,
                                        msg, u0, &err),
                      0);
    assert_int_equal (shuffle_accepted (&j->map, 1, 0, SHUFFLE_NO_SERVER, NULL,
                                        msg, u1, &err),
                      0);
    cJSON_Delete (u0);
    cJSON_Delete (u1);
    hearth_msg_destroy (&msg);
}

/* Readers of a stage whose outputs are all kept get them as their input,
   in task order, their newlines added, and launched together get one
   frame of their LAUNCH_TASKS, not one copy each: a batch of N readers
   of 64 MiB kept went out as a message of N x 64 MiB, past the batch's
   bound (its shared frames are not counted), held whole by the
   executor. */
static void
test_kept_sent_once (void **state)
{
    (void) state;
    s_job_t j;
    uint64_t left = 1000;
    s_kept_job (&j, 3, &left);
    shuffle_servers_t *s = shuffle_servers_new ();
    hearth_msg_t *launch = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *tasks = cJSON_CreateArray ();
    for (uint64_t reader = 0; reader < 3; reader++) {
        cJSON *t = cJSON_CreateObject ();
        cJSON_AddItemToArray (tasks, t);
        assert_int_equal (shuffle_render (launch, t, s, &j.reduce, reader, 0),
                          0);
        assert_null (cJSON_GetObjectItem (t, "reduce")); /* no role */
        int64_t first =
            hearth_json_int (cJSON_GetArrayItem (tasks, 0), "input", -1);
        assert_int_equal (hearth_json_int (t, "input", -1), first);
        assert_int_equal (zframe_size (s_input_of (launch, t)), 9);
    }
    size_t shared = 0;
    for (size_t i = 0; i < launch->nframes; i++)
        shared += launch->borrowed && launch->borrowed[i];
    assert_int_equal (shared, 1);
    /* the next message gets it again */
    hearth_msg_t *next = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (next, t, s, &j.reduce, 0, 0), 0);
    assert_memory_equal (zframe_data (s_input_of (next, t)), "abc\ndefg\n", 9);
    cJSON_Delete (t);
    cJSON_Delete (tasks);
    hearth_msg_destroy (&next);
    hearth_msg_destroy (&launch);
    shuffle_servers_destroy (&s);
    inlineout_release (&j.job, &left);
    s_job_free (&j);
}

/* The driver holds a kept block once: in the frame its readers share
   once that is built (it held every block twice, the blocks and their
   copy in the frame, up to twice the budget it reserved), and a block
   kept again later (a map run again) joins the others at the next
   reader. */
static void
test_kept_held_once (void **state)
{
    (void) state;
    s_job_t j;
    uint64_t left = 1000;
    s_kept_job (&j, 1, &left);
    shuffle_servers_t *s = shuffle_servers_new ();
    hearth_msg_t *launch = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (launch, t, s, &j.reduce, 0, 0), 0);
    assert_memory_equal (zframe_data (s_input_of (launch, t)), "abc\ndefg\n",
                         9);
    for (uint64_t m = 0; m < j.map.ntasks; m++)
        assert_false (j.map.maps[m].fresh); /* in the frame only */
    assert_null (j.map.kept_new);
    cJSON_Delete (t);
    hearth_msg_destroy (&launch);
    /* map 1 run again: its new block, the other's from the frame */
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    cJSON *u = s_finished_kept (msg, "XY", 2);
    hearth_error_t err;
    assert_int_equal (
        shuffle_accepted (&j.map, 1, 1, SHUFFLE_NO_SERVER, NULL, msg, u, &err),
        0);
    cJSON_Delete (u);
    hearth_msg_destroy (&msg);
    launch = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (launch, t, s, &j.reduce, 0, 0), 0);
    zframe_t *kept = s_input_of (launch, t);
    assert_int_equal (zframe_size (kept), 7);
    assert_memory_equal (zframe_data (kept), "abc\nXY\n", 7);
    assert_false (j.map.maps[1].fresh);
    assert_null (j.map.kept_new);
    cJSON_Delete (t);
    hearth_msg_destroy (&launch);
    /* map 0 lost: no frame is sent until it is back */
    inlineout_drop (&j.map, 0);
    launch = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (launch, t, s, &j.reduce, 0, 0), 1);
    cJSON_Delete (t);
    hearth_msg_destroy (&launch);
    shuffle_servers_destroy (&s);
    inlineout_release (&j.job, &left);
    s_job_free (&j);
}

/* A job's end gives its reservation back and drops what it kept: a
   finished job the user has not destroyed yet (a ctx keeps them all
   until hearth_ctx_destroy) held its kept blocks while the next job
   reserved the same budget again. */
static void
test_kept_released (void **state)
{
    (void) state;
    s_job_t j;
    uint64_t left = 1000;
    s_kept_job (&j, 1, &left);
    assert_true (j.map.maps[0].fresh);
    assert_non_null (j.map.kept_new);
    assert_int_equal (left, 0);
    inlineout_release (&j.job, &left);
    assert_int_equal (left, 1000);
    for (uint64_t m = 0; m < j.map.ntasks; m++)
        assert_null (j.map.maps[m].sizes);
    assert_null (j.map.kept_new);
    assert_null (j.map.kept_sizes);
    s_job_free (&j);
}

/* A kept output that came packed (launch.c: no JSON, no frames): the
   state it gives its update, and outputs replaced again and again (a
   task run again) never make the driver hold more than the stage
   reserved: the holes they leave are closed by moving the live ones. */
static void
test_kept_packed_replaced (void **state)
{
    (void) state;
    s_job_t j;
    s_job_init (&j, 2, 1);
    j.map.partitions = 0;
    j.map.read_whole = true;
    uint64_t left = 2 * INLINEOUT_MIN;
    inlineout_reserve (&j.map, &left);
    assert_int_equal (j.map.inline_max, INLINEOUT_MIN);
    const char *error = NULL;
    assert_int_equal (inlineout_update_state (&j.map, INLINEOUT_MIN - 1,
                                              HEARTH_TS_FINISHED, &error),
                      HEARTH_TS_FINISHED);
    assert_int_equal (inlineout_update_state (&j.map, INLINEOUT_MIN,
                                              HEARTH_TS_FINISHED, &error),
                      HEARTH_TS_FAILED); /* no room for its newline */
    assert_string_equal (error, INLINEOUT_REFUSED);
    assert_int_equal (/* an empty output: an empty line */
                      inlineout_update_state (&j.map, 0, HEARTH_TS_FINISHED,
                                              &error),
                      HEARTH_TS_FINISHED);
    assert_int_equal (inlineout_update_state (&j.map, INLINEOUT_MIN + 1,
                                              HEARTH_TS_FAILED, &error),
                      HEARTH_TS_FAILED);
    char block[40];
    memset (block, 'b', sizeof block);
    assert_int_equal (inlineout_keep (&j.map, 1, 0, block, sizeof block), 0);
    for (int attempt = 0; attempt < 10; attempt++) {
        memset (block, 'a' + attempt, sizeof block);
        assert_int_equal (
            inlineout_keep (&j.map, 0, (uint32_t) attempt, block, sizeof block),
            0);
        assert_true (j.map.kept_new_len <= j.map.inline_reserved);
    }
    assert_int_equal (j.map.maps[0].attempt, 9);
    assert_int_equal (j.map.maps[0].kept_len, sizeof block + 1);
    assert_int_equal (j.map.maps[0].sizes[0],
                      hearth_frames_size (sizeof block + 1));
    bool failed;
    zframe_t *f = inlineout_input (&j.map, &failed);
    assert_non_null (f);
    assert_int_equal (zframe_size (f), 2 * (sizeof block + 1));
    assert_int_equal (zframe_data (f)[0], 'a' + 9); /* task 0's last */
    assert_int_equal (zframe_data (f)[sizeof block], '\n');
    assert_int_equal (zframe_data (f)[sizeof block + 1], 'b');
    /* framed for readers that also fetch: each a block */
    zframe_t *framed = inlineout_frame (&j.map, &failed);
    assert_non_null (framed);
    assert_int_equal (zframe_size (framed),
                      2 * hearth_frames_size (sizeof block + 1));
    assert_int_equal (
        hearth_frames_payload (zframe_data (framed), zframe_size (framed)),
        2 * (sizeof block + 1));
    inlineout_release (&j.job, &left);
    assert_int_equal (left, 2 * INLINEOUT_MIN);
    s_job_free (&j);
}

/* The buffer of the blocks kept since the last reader is never larger
   than the stage's reservation: a small stage does not take 64 KiB, nor
   a large one the next power of two past its share of the budget. */
static void
test_kept_buffer_within_reservation (void **state)
{
    (void) state;
    static unsigned char block[INLINEOUT_STAGE_MAX];
    memset (block, 'k', sizeof block);
    const uint64_t tasks[] = {2, 3};
    /* the longest each may keep: its newline makes it inline_max */
    const size_t lens[] = {INLINEOUT_MIN - 1, INLINEOUT_STAGE_MAX - 1};
    for (int c = 0; c < 2; c++) {
        s_job_t j;
        s_job_init (&j, tasks[c], 1);
        j.map.partitions = 0;
        j.map.read_whole = true;
        uint64_t left = tasks[c] * (c ? INLINEOUT_STAGE_MAX : INLINEOUT_MIN);
        inlineout_reserve (&j.map, &left);
        for (uint64_t m = 0; m < tasks[c]; m++) {
            assert_int_equal (inlineout_keep (&j.map, m, 0, block, lens[c]), 0);
            assert_true (j.map.kept_new_cap <= j.map.inline_reserved);
        }
        bool failed;
        zframe_t *f = inlineout_input (&j.map, &failed);
        assert_non_null (f);
        assert_int_equal (zframe_size (f), tasks[c] * (lens[c] + 1));
        inlineout_release (&j.job, &left);
        s_job_free (&j);
    }
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_kept_reserve),
        cmocka_unit_test (test_kept_outputs),
        cmocka_unit_test (test_kept_sent_once),
        cmocka_unit_test (test_kept_released),
        cmocka_unit_test (test_kept_held_once),
        cmocka_unit_test (test_kept_packed_replaced),
        cmocka_unit_test (test_kept_buffer_within_reservation),
    };
    alarm (60);
    return cmocka_run_group_tests (tests, NULL, NULL);
}

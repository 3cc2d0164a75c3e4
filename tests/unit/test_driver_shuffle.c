/*  test_driver_shuffle.c - the driver's side of the shuffle
    (libhearth/shuffle.c): the block servers' table, the submit checks, a
    reduce task's block list on the wire, the states it makes of updates,
    map outputs registered and lost (with a real task set), a block
    server lost with its worker (its readers killed), and output files
    committed or discarded. */
#include "config.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/fstree.h"
#include "libhearth/shuffle.h"

#include "tests/unit/shuffle_fixture.h"

static void
test_servers (void **state)
{
    (void) state;
    shuffle_servers_t *s = shuffle_servers_new ();
    assert_non_null (s);
    assert_int_equal (shuffle_servers_intern (s, "tcp://a:1", NULL), 0);
    assert_int_equal (shuffle_servers_intern (s, "tcp://b:1", "KEY"), 1);
    assert_int_equal (shuffle_servers_intern (s, "tcp://a:1", NULL), 0);
    assert_int_equal (shuffle_servers_intern (s, NULL, NULL),
                      SHUFFLE_NO_SERVER);
    assert_int_equal (shuffle_servers_intern (s, "", NULL), SHUFFLE_NO_SERVER);
    assert_string_equal (shuffle_servers_url (s, 1), "tcp://b:1");
    assert_null (shuffle_servers_url (s, SHUFFLE_NO_SERVER));
    /* the worker of each: what a worker's loss finds */
    assert_int_equal (shuffle_servers_of_worker (s, "worker-b"),
                      SHUFFLE_NO_SERVER);
    shuffle_servers_set_worker (s, 1, "worker-b");
    shuffle_servers_set_worker (s, 1, "worker-b");
    shuffle_servers_set_worker (s, 0, "");
    shuffle_servers_set_worker (s, SHUFFLE_NO_SERVER, "worker-x");
    assert_int_equal (shuffle_servers_of_worker (s, "worker-b"), 1);
    assert_int_equal (shuffle_servers_of_worker (s, "worker-a"),
                      SHUFFLE_NO_SERVER);
    assert_int_equal (shuffle_servers_of_worker (s, NULL), SHUFFLE_NO_SERVER);
    shuffle_servers_destroy (&s);
    assert_null (s);
}

static void
test_checks (void **state)
{
    (void) state;
    s_job_t j;
    char text[512];
    s_job_init (&j, 3, 4);
    j.reduce.ntasks = 3;
    assert_int_equal (shuffle_check_stage (&j.reduce, text, sizeof text), -1);
    assert_non_null (strstr (text, "has 3 tasks"));
    assert_non_null (strstr (text, "4 partitions"));
    j.reduce.ntasks = 4;
    assert_int_equal (shuffle_check_stage (&j.reduce, text, sizeof text), 0);
    j.map.output_dir = "/x";
    assert_int_equal (shuffle_check_stage (&j.map, text, sizeof text), -1);
    assert_non_null (strstr (text, "do not go together"));
    j.map.partitions = 0;
    assert_int_equal (shuffle_check_stage (&j.reduce, text, sizeof text), -1);
    assert_non_null (strstr (text, "writes its results to files"));
    j.map.output_dir = NULL;
    s_job_free (&j);
}

static void
test_render_reduce (void **state)
{
    (void) state;
    s_job_t j;
    s_job_init (&j, 3, 2);
    shuffle_servers_t *s = shuffle_servers_new ();
    uint32_t a = shuffle_servers_intern (s, "tcp://a:1", NULL);
    uint32_t b = shuffle_servers_intern (s, "tcp://b:1", "BKEY");
    (void) a;
    /* map 0 on b, map 1 with no server, map 2 missing for now */
    uint64_t s0[] = {10, 20}, s1[] = {0, 7};
    j.map.maps[0] = (mapout_t){malloc (16), b, 3};
    memcpy (j.map.maps[0].sizes, s0, 16);
    j.map.maps[1] = (mapout_t){malloc (16), SHUFFLE_NO_SERVER, 0};
    memcpy (j.map.maps[1].sizes, s1, 16);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (msg, t, s, &j.reduce, 1, 0), 1);
    cJSON_Delete (t);
    j.map.maps[2] = (mapout_t){calloc (2, 8), b, 1};
    j.map.maps[2].sizes[1] = 5;
    t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (msg, t, s, &j.reduce, 1, 0), 0);
    cJSON *r = cJSON_GetObjectItem (t, "reduce");
    assert_int_equal (hearth_json_int (r, "shuffle", -1), 1);
    assert_int_equal (hearth_json_int (r, "partition", -1), 1);
    cJSON *servers = cJSON_GetObjectItem (r, "servers");
    assert_int_equal (cJSON_GetArraySize (servers), 1); /* only b is used */
    assert_string_equal (
        hearth_json_str (cJSON_GetArrayItem (servers, 0), "url"), "tcp://b:1");
    assert_string_equal (
        hearth_json_str (cJSON_GetArrayItem (servers, 0), "key"), "BKEY");
    zframe_t *f = hearth_msg_frame (msg, hearth_json_int (r, "blocks", -1));
    assert_non_null (f);
    assert_int_equal (zframe_size (f), 3 * 16);
    const unsigned char *p = zframe_data (f);
    uint64_t want[3][3] = {{0, 3, 20}, {SHUFFLE_NO_SERVER, 0, 7}, {0, 1, 5}};
    for (int m = 0; m < 3; m++) {
        assert_int_equal (s_le (p + 16 * m, 4), want[m][0]);
        assert_int_equal (s_le (p + 16 * m + 4, 4), want[m][1]);
        assert_int_equal (s_le (p + 16 * m + 8, 8), want[m][2]);
    }
    assert_null (cJSON_GetObjectItem (t, "map"));
    cJSON_Delete (t);
    /* the map stage's own role */
    t = cJSON_CreateObject ();
    j.map.sort = true;
    assert_int_equal (shuffle_render (msg, t, s, &j.map, 0, 0), 0);
    cJSON *map = cJSON_GetObjectItem (t, "map");
    assert_int_equal (hearth_json_int (map, "partitions", 0), 2);
    assert_true (hearth_json_bool (map, "sort", false));
    cJSON_Delete (t);
    hearth_msg_destroy (&msg);
    shuffle_servers_destroy (&s);
    s_job_free (&j);
}

static void
test_update_states (void **state)
{
    (void) state;
    s_job_t j;
    s_job_init (&j, 2, 3);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    const char *error = NULL;
    assert_int_equal (
        shuffle_update_state (&j.map, msg, NULL, HEARTH_TS_FINISHED, &error),
        HEARTH_TS_FAILED);
    assert_non_null (strstr (error, "map_sizes"));
    uint64_t two[] = {1, 2};
    cJSON *bad = s_finished (msg, two, 2); /* 2 sizes for 3 partitions */
    assert_int_equal (
        shuffle_update_state (&j.map, msg, bad, HEARTH_TS_FINISHED, &error),
        HEARTH_TS_FAILED);
    uint64_t three[] = {1, 2, 3};
    cJSON *good = s_finished (msg, three, 3);
    error = NULL;
    assert_int_equal (
        shuffle_update_state (&j.map, msg, good, HEARTH_TS_FINISHED, &error),
        HEARTH_TS_FINISHED);
    assert_null (error);
    cJSON *ff = cJSON_CreateObject ();
    cJSON_AddObjectToObject (ff, "fetch_failed");
    assert_int_equal (
        shuffle_update_state (&j.reduce, msg, ff, HEARTH_TS_FAILED, &error),
        HEARTH_TS_FETCH_FAILED);
    hearth_error_t err;
    assert_int_equal (
        shuffle_accepted (&j.map, 1, 2, 7, "10.0.0.1", msg, good, &err), 0);
    assert_int_equal (j.map.maps[1].server, 7);
    assert_int_equal (j.map.maps[1].attempt, 2);
    assert_int_equal (j.map.maps[1].sizes[2], 3);
    cJSON_Delete (bad);
    cJSON_Delete (good);
    cJSON_Delete (ff);
    hearth_msg_destroy (&msg);
    s_job_free (&j);
}

/* Run every task of stage uid on executor 1 to FINISHED. */
static void
s_finish_all (hearth_taskset_t *ts, uint32_t uid, size_t n)
{
    hearth_assign_t as[64];
    size_t got = hearth_taskset_offer (ts, 1, 0, as, 64);
    size_t done = 0;
    for (size_t i = 0; i < got; i++)
        if (as[i].stage == uid
            && hearth_taskset_update (ts, 1, uid, as[i].index, as[i].attempt,
                                      HEARTH_TS_FINISHED, 1, 1)
                   == HEARTH_TS_ACCEPT)
            done++;
    assert_int_equal (done, n);
}

/* A task set of the job: the map stage (uid 1, nmaps tasks) and its
   reader (uid 2, nred tasks), executor 1 of cores cores. */
static hearth_taskset_t *
s_taskset (uint64_t nmaps, uint64_t nred, int cores)
{
    hearth_taskset_t *ts = hearth_taskset_new (NULL);
    uint32_t parent = 1;
    assert_non_null (ts);
    assert_int_equal (
        hearth_taskset_add_stage (ts, 1, 1, nmaps, NULL, 0, NULL, 1), 0);
    assert_int_equal (
        hearth_taskset_add_stage (ts, 2, 1, nred, &parent, 1, NULL, 1), 0);
    assert_int_equal (hearth_taskset_add_executor (ts, 1, cores), 0);
    return ts;
}

/* A job of 3 maps into 2 partitions, its maps run: maps 0 and 1 on
   server a (worker-a's), map 2 on server b, of sizes (NULL: 0 bytes).
   Undone by s_fixture_free. */
static void
s_three_maps (s_job_t *j, shuffle_servers_t **s, hearth_taskset_t **ts,
              const uint64_t sizes[3][2])
{
    s_job_init (j, 3, 2);
    *s = shuffle_servers_new ();
    uint32_t a = shuffle_servers_intern (*s, "tcp://a:1", NULL);
    uint32_t b = shuffle_servers_intern (*s, "tcp://b:1", NULL);
    shuffle_servers_set_worker (*s, a, "worker-a");
    *ts = s_taskset (3, 2, 8);
    s_finish_all (*ts, 1, 3);
    uint32_t where[] = {a, a, b};
    for (int m = 0; m < 3; m++) {
        j->map.maps[m] = (mapout_t){calloc (2, 8), where[m], 0};
        if (sizes)
            memcpy (j->map.maps[m].sizes, sizes[m], 16);
    }
}

/* s_three_maps' outputs on a are gone, map 2's on b kept, and the map
   stage has 1 task finished: the two lost run again. */
static void
s_a_lost (s_job_t *j, hearth_taskset_t *ts)
{
    assert_null (j->map.maps[0].sizes);
    assert_null (j->map.maps[1].sizes);
    assert_non_null (j->map.maps[2].sizes);
    uint64_t finished = 9, running, total;
    hearth_taskset_stage_counts (ts, 1, &finished, &running, &total);
    assert_int_equal (finished, 1);
}

static void
s_fixture_free (s_job_t *j, shuffle_servers_t **s, hearth_taskset_t **ts)
{
    hearth_taskset_destroy (ts);
    shuffle_servers_destroy (s);
    s_job_free (j);
}

static void
test_fetch_failed (void **state)
{
    (void) state;
    s_job_t j;
    shuffle_servers_t *s;
    hearth_taskset_t *ts;
    s_three_maps (&j, &s, &ts, NULL);
    /* a reduce task could not fetch map 1 from a: maps 0 and 1 go */
    cJSON *u = cJSON_Parse ("{\"fetch_failed\": {\"shuffle\": 1, \"map\": 1, "
                            "\"attempt\": 0, \"url\": \"tcp://a:1\"}}");
    hearth_error_t err;
    assert_int_equal (
        shuffle_fetch_failed (ts, s, &j.reduce, u, "worker gone", &err), 0);
    s_a_lost (&j, ts);
    /* a stale report (that attempt is lost already): nothing more */
    assert_int_equal (
        shuffle_fetch_failed (ts, s, &j.reduce, u, "worker gone", &err), 0);
    s_a_lost (&j, ts);
    cJSON_Delete (u);
    s_fixture_free (&j, &s, &ts);
}

/* Offer executor 1 its tasks; finish those of stage uid (ACCEPT each),
   and return the attempt of the first task of stage other, or -1. */
static int
s_round (hearth_taskset_t *ts, uint32_t uid, uint32_t other, int *done_attempt)
{
    hearth_assign_t as[16];
    size_t n = hearth_taskset_offer (ts, 1, 0, as, 16);
    int other_attempt = -1;
    for (size_t i = 0; i < n; i++)
        if (as[i].stage == uid) {
            assert_int_equal (hearth_taskset_update (ts, 1, uid, as[i].index,
                                                     as[i].attempt,
                                                     HEARTH_TS_FINISHED, 1, 1),
                              HEARTH_TS_ACCEPT);
            *done_attempt = as[i].attempt;
        }
        else if (as[i].stage == other && other_attempt < 0)
            other_attempt = as[i].attempt;
    return other_attempt;
}

/* Kill events waiting in the task set: each one's task index counted
   in killed[] (of n), the attempt told KILLED as its executor would. */
static int
s_killed (hearth_taskset_t *ts, int *killed, size_t n)
{
    hearth_ts_event_t ev;
    int total = 0;
    while (hearth_taskset_next_event (ts, &ev))
        if (ev.type == HEARTH_TS_EV_KILL) {
            assert_true (ev.index < n);
            killed[ev.index]++;
            total++;
            assert_int_equal (hearth_taskset_update (ts, ev.exec_id, ev.stage,
                                                     ev.index, ev.attempt,
                                                     HEARTH_TS_KILLED, 0, 1),
                              HEARTH_TS_RELEASED);
        }
    return total;
}

/* A worker lost under a running reduce stage: the outputs of its block
   server go (the others stay), their maps run again, and exactly the
   reduce attempts reading some bytes from it are killed, once. */
static void
test_server_lost (void **state)
{
    (void) state;
    s_job_t j;
    shuffle_servers_t *s;
    hearth_taskset_t *ts;
    /* partition 1 has no bytes on a */
    const uint64_t sizes[3][2] = {{5, 0}, {0, 0}, {3, 4}};
    s_three_maps (&j, &s, &ts, sizes);
    uint32_t a = shuffle_servers_of_worker (s, "worker-a");
    hearth_assign_t as[8];
    assert_int_equal (hearth_taskset_offer (ts, 1, 0, as, 8), 2);
    hearth_error_t err;
    assert_int_equal (
        shuffle_server_lost (ts, s, &j.job, a, "worker A lost", &err), 0);
    s_a_lost (&j, ts);
    int killed[2] = {0};
    assert_int_equal (s_killed (ts, killed, 2), 1);
    assert_int_equal (killed[0], 1); /* reduce 1 reads nothing from a */
    assert_int_equal (hearth_taskset_fetch_failures (ts, 2), 1);
    /* told again (another executor of that worker): nothing more */
    assert_int_equal (
        shuffle_server_lost (ts, s, &j.job, a, "worker A lost", &err), 0);
    assert_int_equal (s_killed (ts, killed, 2), 0);
    s_a_lost (&j, ts);
    assert_int_equal (
        shuffle_server_lost (ts, s, &j.job, SHUFFLE_NO_SERVER, "?", &err), 0);
    s_fixture_free (&j, &s, &ts);
}

/* Reduce attempt of task 0 could not fetch map output 0 (attempt) of
   server a: its update and the driver's answer. */
static int
s_fetch_fails (hearth_taskset_t *ts, shuffle_servers_t *s, s_job_t *j,
               int reduce_attempt, int attempt, hearth_error_t *err)
{
    assert_int_equal (hearth_taskset_update (ts, 1, 2, 0, reduce_attempt,
                                             HEARTH_TS_FETCH_FAILED, 0, 1),
                      HEARTH_TS_FETCH_WAIT);
    char json[200];
    snprintf (json, sizeof json,
              "{\"fetch_failed\": {\"shuffle\": 1, \"map\": 0, "
              "\"attempt\": %d, \"url\": \"tcp://a:1\"}}",
              attempt);
    cJSON *u = cJSON_Parse (json);
    int rc = shuffle_fetch_failed (ts, s, &j->reduce, u, "no answer", err);
    cJSON_Delete (u);
    return rc;
}

/* One map (10 bytes on server a) and one reduce, round after round, the
   reduce losing its input each time: by a fetch failure, or (by_worker)
   the worker of a lost, its attempt killed.  Returns the rounds before
   the driver abandoned the stage, with the job's error in err. */
static int
s_abandon (bool by_worker, hearth_error_t *err)
{
    s_job_t j;
    s_job_init (&j, 1, 1);
    shuffle_servers_t *s = shuffle_servers_new ();
    uint32_t a = shuffle_servers_intern (s, "tcp://a:1", NULL);
    hearth_taskset_t *ts = s_taskset (1, 1, 4);
    int rc = 0, round = 0, killed[1] = {0};
    while (rc == 0 && round < 6) {
        int map_attempt = -1, reduce_attempt;
        s_round (ts, 1, 2, &map_attempt); /* the map runs (again) */
        assert_true (map_attempt >= 0);
        free (j.map.maps[0].sizes);
        j.map.maps[0] = (mapout_t){calloc (1, 8), a, (uint32_t) map_attempt};
        j.map.maps[0].sizes[0] = 10;
        reduce_attempt = s_round (ts, 1, 2, &map_attempt);
        assert_true (reduce_attempt >= 0);
        if (by_worker)
            rc = shuffle_server_lost (ts, s, &j.job, a, "worker A lost", err);
        else
            rc = s_fetch_fails (ts, s, &j, reduce_attempt, map_attempt, err);
        s_killed (ts, killed, 1);
        round++;
    }
    assert_int_equal (rc, -1);
    assert_int_equal (killed[0], by_worker ? round : 0);
    s_fixture_free (&j, &s, &ts);
    return round;
}

/* A reduce stage that loses its input round after round is abandoned at
   the 4th, with the map output, its server and the reason; the same when
   its readers are killed because their worker was lost. */
static void
test_abandon (void **state)
{
    (void) state;
    hearth_error_t err;
    assert_int_equal (s_abandon (false, &err), 4);
    assert_non_null (strstr (err.text, "stage reduce lost its input 4 times "
                                       "in a row; last: map output 0 of "
                                       "stage map on tcp://a:1: no answer"));
    assert_int_equal (s_abandon (true, &err), 4);
    assert_non_null (strstr (err.text, "stage reduce lost its input 4 times "
                                       "in a row; last: the map outputs of "
                                       "stage map on tcp://a:1: worker A "
                                       "lost"));
}

static void
test_outputs (void **state)
{
    (void) state;
    char dir[] = "/tmp/hearth-shuffle-XXXXXX", path[PATH_MAX];
    assert_non_null (mkdtemp (dir));
    s_job_t j;
    s_job_init (&j, 2, 0);
    j.map.output_dir = strdup (dir);
    hearth_error_t err;
    assert_int_equal (shuffle_prepare_stage (&j.map, &err), 0);
    snprintf (path, sizeof path, "%s/_temporary", dir);
    struct stat sb;
    assert_int_equal (stat (path, &sb), 0);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (msg, t, NULL, &j.map, 1, 2), 0);
    snprintf (path, sizeof path, "%s/_temporary/part-00001.2", dir);
    assert_string_equal (hearth_json_str (t, "output"), path);
    snprintf (path, sizeof path, "%s/part-00001", dir);
    assert_string_equal (hearth_json_str (t, "commit_to"), path);
    /* its executor commits it (ASK_COMMIT); the driver notes where */
    cJSON *u = cJSON_CreateObject ();
    cJSON_AddNumberToObject (u, "output_bytes", 5);
    assert_int_equal (
        shuffle_accepted (&j.map, 1, 2, 0, "10.0.0.7", msg, u, &err), 0);
    assert_int_equal (shuffle_accepted (&j.map, 0, 0, 0, NULL, msg, u, &err),
                      0);
    cJSON_Delete (u);
    shuffle_stage_done (&j.map);
    hearth_part_file_t *parts;
    size_t n;
    assert_int_equal (hearth_manifest_read (dir, &parts, &n, &err), 0);
    assert_int_equal (n, 2);
    assert_string_equal (parts[0].name, "part-00000");
    assert_null (parts[0].host);
    assert_string_equal (parts[1].name, "part-00001");
    assert_string_equal (parts[1].host, "10.0.0.7");
    assert_int_equal (parts[1].bytes, 5);
    hearth_manifest_free (parts, n);
    snprintf (path, sizeof path, "%s/_temporary", dir);
    assert_int_not_equal (stat (path, &sb), 0);
    /* a directory holding an output is refused */
    free (j.map.output_dir);
    j.map.output_dir = strdup (dir);
    free (j.map.maps);
    j.map.maps = NULL;
    hearth_manifest_free (j.map.parts, j.map.ntasks);
    j.map.parts = NULL;
    assert_int_equal (shuffle_prepare_stage (&j.map, &err), -1);
    assert_non_null (strstr (err.text, "already holds an output"));
    cJSON_Delete (t);
    hearth_msg_destroy (&msg);
    free (j.map.output_dir);
    j.map.output_dir = NULL;
    hearth_rm_tree (dir);
    s_job_free (&j);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_servers),
        cmocka_unit_test (test_checks),
        cmocka_unit_test (test_render_reduce),
        cmocka_unit_test (test_update_states),
        cmocka_unit_test (test_fetch_failed),
        cmocka_unit_test (test_abandon),
        cmocka_unit_test (test_server_lost),
        cmocka_unit_test (test_outputs),
    };
    alarm (60);
    return cmocka_run_group_tests (tests, NULL, NULL);
}

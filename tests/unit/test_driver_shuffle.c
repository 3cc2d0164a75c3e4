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
#include "libhearth/inlineout.h"
#include "libhearth/shuffle.h"

/* A job of a map stage (uid 1, nmaps tasks, R partitions) read by a
   reduce stage (uid 2, R tasks). */
typedef struct {
    hearth_job_t job;
    hearth_stage_t map, reduce;
    hearth_stage_t *stages[2];
} s_job_t;

static void
s_job_init (s_job_t *j, uint64_t nmaps, uint32_t r)
{
    memset (j, 0, sizeof *j);
    j->job.name = "job";
    j->map = (hearth_stage_t){.job = &j->job,
                              .name = "map",
                              .uid = 1,
                              .ntasks = nmaps,
                              .partitions = r};
    j->reduce = (hearth_stage_t){.job = &j->job,
                                 .name = "reduce",
                                 .uid = 2,
                                 .ntasks = r,
                                 .input = &j->map};
    j->stages[0] = &j->map;
    j->stages[1] = &j->reduce;
    j->job.stages = j->stages;
    j->job.nstages = 2;
    j->map.maps = calloc (nmaps, sizeof *j->map.maps);
}

static void
s_job_free (s_job_t *j)
{
    for (uint64_t m = 0; j->map.maps && m < j->map.ntasks; m++)
        inlineout_drop (&j->map, m);
    zframe_destroy (&j->map.inline_cache);
    free (j->map.maps);
    hearth_manifest_free (j->map.parts, j->map.parts ? j->map.ntasks : 0);
    j->map.parts = NULL;
}

/* A FINISHED update of a map task with sizes (R of them) in msg. */
static cJSON *
s_finished (hearth_msg_t *msg, const uint64_t *sizes, uint32_t r)
{
    zframe_t *f = zframe_new (NULL, (size_t) r * 8);
    unsigned char *p = zframe_data (f);
    for (uint32_t i = 0; i < r; i++)
        for (int b = 0; b < 8; b++)
            p[8 * i + b] = (unsigned char) (sizes[i] >> (8 * b));
    cJSON *u = cJSON_CreateObject ();
    cJSON_AddNumberToObject (u, "map_sizes", hearth_msg_add_frame (msg, &f));
    return u;
}

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

static uint64_t
s_le (const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
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

/* Small outputs of a stage read whole kept by the driver: taken from the
   update within inline_max only, sent to every reader in one shared
   frame beside the blocks on disk, and forgotten when replaced. */
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
    char big[101] = {0};
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
    assert_null (j.map.maps[1].block);
    /* each reader: the records, and the kept blocks in task order */
    zframe_t *first = NULL;
    for (uint64_t reader = 0; reader < 2; reader++) {
        t = cJSON_CreateObject ();
        assert_int_equal (shuffle_render (launch, t, s, &j.reduce, reader, 0),
                          0);
        zframe_t *kept = s_inline_of (launch, t);
        assert_non_null (kept);
        assert_int_equal (zframe_size (kept), 21);
        assert_memory_equal (zframe_data (kept), "block-zeroblock-two!!", 21);
        if (!first)
            first = kept;
        assert_ptr_equal (zframe_data (kept), zframe_data (first));
        const cJSON *r = cJSON_GetObjectItem (t, "reduce");
        const unsigned char *p = zframe_data (
            hearth_msg_frame (launch, hearth_json_int (r, "blocks", -1)));
        uint64_t want[3][3] = {
            {SHUFFLE_KEPT, 0, 10}, {0, 2, 500}, {SHUFFLE_KEPT, 1, 11}};
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
    assert_null (j.map.maps[0].block);
    assert_true (j.map.inline_stale); /* the next reader builds it again */
    t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (launch, t, s, &j.reduce, 0, 0), 0);
    assert_int_equal (zframe_size (s_inline_of (launch, t)), 11);
    assert_memory_equal (zframe_data (s_inline_of (launch, t)), "block-two!!",
                         11);
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
    assert_int_equal (
        shuffle_accepted (&j->map, 0, 0, SHUFFLE_NO_SERVER, msg, u0, &err), 0);
    assert_int_equal (
        shuffle_accepted (&j->map, 1, 0, SHUFFLE_NO_SERVER, msg, u1, &err), 0);
    cJSON_Delete (u0);
    cJSON_Delete (u1);
    hearth_msg_destroy (&msg);
}

/* Readers launched together get the kept blocks as one frame of their
   LAUNCH_TASKS, not one copy each: a batch of N readers of 64 MiB kept
   went out as a message of N x 64 MiB, past the batch's bound (its
   shared frames are not counted), held whole by the executor. */
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
        const cJSON *r = cJSON_GetObjectItem (t, "reduce");
        int64_t first = hearth_json_int (
            cJSON_GetObjectItem (cJSON_GetArrayItem (tasks, 0), "reduce"),
            "inline", -1);
        assert_int_equal (hearth_json_int (r, "inline", -1), first);
        assert_int_equal (zframe_size (s_inline_of (launch, t)), 7);
    }
    size_t shared = 0;
    for (size_t i = 0; i < launch->nframes; i++)
        shared += launch->borrowed && launch->borrowed[i];
    assert_int_equal (shared, 1);
    /* the next message gets it again */
    hearth_msg_t *next = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (next, t, s, &j.reduce, 0, 0), 0);
    assert_memory_equal (zframe_data (s_inline_of (next, t)), "abcdefg", 7);
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
    assert_memory_equal (zframe_data (s_inline_of (launch, t)), "abcdefg", 7);
    for (uint64_t m = 0; m < j.map.ntasks; m++)
        assert_null (j.map.maps[m].block);
    cJSON_Delete (t);
    hearth_msg_destroy (&launch);
    /* map 1 run again: its new block, the other's from the frame */
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    cJSON *u = s_finished_kept (msg, "XY", 2);
    hearth_error_t err;
    assert_int_equal (
        shuffle_accepted (&j.map, 1, 1, SHUFFLE_NO_SERVER, msg, u, &err), 0);
    cJSON_Delete (u);
    hearth_msg_destroy (&msg);
    launch = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    t = cJSON_CreateObject ();
    assert_int_equal (shuffle_render (launch, t, s, &j.reduce, 0, 0), 0);
    zframe_t *kept = s_inline_of (launch, t);
    assert_int_equal (zframe_size (kept), 5);
    assert_memory_equal (zframe_data (kept), "abcXY", 5);
    assert_null (j.map.maps[1].block);
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
    assert_non_null (j.map.maps[0].block);
    assert_int_equal (left, 0);
    inlineout_release (&j.job, &left);
    assert_int_equal (left, 1000);
    for (uint64_t m = 0; m < j.map.ntasks; m++) {
        assert_null (j.map.maps[m].block);
        assert_null (j.map.maps[m].sizes);
    }
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
        cmocka_unit_test (test_kept_reserve),
        cmocka_unit_test (test_kept_outputs),
        cmocka_unit_test (test_kept_sent_once),
        cmocka_unit_test (test_kept_released),
        cmocka_unit_test (test_kept_held_once),
    };
    alarm (60);
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_livetimeline.c - the live timeline of the master's application
    page: the driver's feed (libhearth/tlfeed.h: only what is new since
    the last report sent, bounded, the oldest unsent attempts cut and
    counted), the codec (APPLICATION_PROGRESS's `timeline`: a malformed or
    oversized one refused), the master's store (libcore/timeline_live.h:
    merged in order, bounded, executors and stages by id, text cut) and
    the registry (the timeline kept apart from the progress, freed with
    the application). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/log.h"
#include "libcore/proto.h"
#include "libcore/timeline_live.h"
#include "libhearth/tlfeed.h"
#include "master/registry.h"
#include "tests/unit/testutil.h"

#define APP_ID "app-20261129201435-0001"

static size_t
s_count (const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr (text, needle); p; p = strstr (p + 1, needle))
        n++;
    return n;
}

/* A progress body with the feed's news (feed may be NULL: none). */
static cJSON *
s_body (const tlfeed_t *feed, int64_t now_ms)
{
    cJSON *b = cJSON_CreateObject ();
    cJSON_AddStringToObject (b, "app_id", APP_ID);
    cJSON_AddNumberToObject (b, "jobs_active", 1);
    cJSON_AddNumberToObject (b, "tasks_total", 100);
    cJSON_AddNumberToObject (b, "tasks_finished", 40);
    cJSON_AddNumberToObject (b, "tasks_failed", 2);
    cJSON_AddNumberToObject (b, "tasks_running", 4);
    cJSON_AddArrayToObject (b, "stages");
    if (feed)
        assert_int_equal (tlfeed_add (feed, b, now_ms), 0);
    return b;
}

static int
s_check (const cJSON *body, hearth_error_t *err)
{
    return hearth_cmd_check_body (HEARTH_CMD_APPLICATION_PROGRESS, body, NULL,
                                  0, err);
}

static evtask_end_t
s_end (int exec, uint32_t stage, uint64_t index, const char *state,
       hearth_ts_outcome_t out, int64_t run_us)
{
    return (evtask_end_t){.exec_id = exec,
                          .stage = stage,
                          .index = index,
                          .state = state,
                          .out = out,
                          .run_us = run_us};
}

static const cJSON *
s_get (const cJSON *o, const char *path0, const char *path1)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, path0);
    return path1 ? cJSON_GetObjectItemCaseSensitive (v, path1) : v;
}

/* The feed sends each attempt once: what a report carried is not in
   the next; times count from the feed's start; outcomes as history's. */
static void
test_feed_cursor (void **state)
{
    (void) state;
    tlfeed_t *feed = tlfeed_new (1000000);
    assert_non_null (feed);
    assert_false (tlfeed_pending (feed));
    evexec_t x = {.exec_id = 3, .host = "h1", .cores = 2, .added_ms = 1000010};
    tlfeed_exec (feed, &x, NULL, 1000010);
    tlfeed_stage (feed, 1, "map", NULL, 1000020);
    evtask_end_t ok = s_end (3, 1, 0, "FINISHED", HEARTH_TS_ACCEPT, 30000);
    evtask_end_t bad = s_end (3, 1, 1, "FAILED", HEARTH_TS_RETRY, 5000);
    tlfeed_attempt (feed, &ok, 1000100);
    tlfeed_attempt (feed, &bad, 1000105);
    assert_true (tlfeed_pending (feed));

    cJSON *b = s_body (feed, 1000200);
    hearth_error_t err;
    assert_int_equal (s_check (b, &err), 0);
    assert_int_equal (
        hearth_json_int (s_get (b, "timeline", NULL), "now_ms", -1), 200);
    const cJSON *att = s_get (b, "timeline", "attempts");
    assert_int_equal (cJSON_GetArraySize (att), 2);
    const cJSON *a0 = cJSON_GetArrayItem (att, 0);
    assert_int_equal (cJSON_GetArrayItem (a0, HEARTH_TLW_START)->valueint, 70);
    assert_int_equal (cJSON_GetArrayItem (a0, HEARTH_TLW_END)->valueint, 100);
    assert_int_equal (cJSON_GetArrayItem (a0, HEARTH_TLW_OUTCOME)->valueint,
                      HEARTH_TL_OK);
    assert_int_equal (
        cJSON_GetArrayItem (cJSON_GetArrayItem (att, 1), HEARTH_TLW_OUTCOME)
            ->valueint,
        HEARTH_TL_FAILED);
    const cJSON *ex =
        cJSON_GetArrayItem (s_get (b, "timeline", "executors"), 0);
    assert_int_equal (hearth_json_int (ex, "added_ms", -1), 10);
    assert_null (cJSON_GetObjectItem (ex, "removed_ms"));
    assert_int_equal (cJSON_GetArraySize (s_get (b, "timeline", "stages")), 1);
    cJSON_Delete (b);

    /* not sent (the send failed): the same news wait */
    b = s_body (feed, 1000300);
    assert_int_equal (cJSON_GetArraySize (s_get (b, "timeline", "attempts")),
                      2);
    cJSON_Delete (b);
    tlfeed_sent (feed);
    assert_false (tlfeed_pending (feed));

    /* the next report: only what came since */
    tlfeed_exec (feed, &x, "worker lost", 1000400);
    tlfeed_stage (feed, 1, "map", "SUCCEEDED", 1000410);
    evtask_end_t lost = s_end (3, 1, 2, "LOST", HEARTH_TS_RETRY, 0);
    tlfeed_attempt (feed, &lost, 1000400);
    b = s_body (feed, 1000500);
    assert_int_equal (s_check (b, &err), 0);
    att = s_get (b, "timeline", "attempts");
    assert_int_equal (cJSON_GetArraySize (att), 1);
    assert_int_equal (
        cJSON_GetArrayItem (cJSON_GetArrayItem (att, 0), HEARTH_TLW_TASK)
            ->valueint,
        2);
    ex = cJSON_GetArrayItem (s_get (b, "timeline", "executors"), 0);
    assert_int_equal (hearth_json_int (ex, "removed_ms", -1), 400);
    assert_int_equal (hearth_json_int (ex, "added_ms", -1), 10);
    assert_string_equal (hearth_json_str (ex, "reason"), "worker lost");
    const cJSON *st = cJSON_GetArrayItem (s_get (b, "timeline", "stages"), 0);
    assert_null (cJSON_GetObjectItem (st, "start_ms")); /* sent before */
    assert_int_equal (hearth_json_int (st, "end_ms", -1), 410);
    assert_string_equal (hearth_json_str (st, "state"), "SUCCEEDED");
    cJSON_Delete (b);
    tlfeed_destroy (&feed);
    tlfeed_destroy (&feed); /* idempotent */
    assert_null (feed);
}

/* More attempts between two reports than the bound: the last ones are
   sent, the others counted as cut; the report stays within the codec's
   bounds. */
static void
test_feed_bound (void **state)
{
    (void) state;
    tlfeed_t *feed = tlfeed_new (0);
    assert_non_null (feed);
    size_t n = HEARTH_TL_MAX_TASKS + 1234;
    for (size_t i = 0; i < n; i++) {
        evtask_end_t e = s_end (0, 1, i, "FINISHED", HEARTH_TS_ACCEPT, 1000);
        tlfeed_attempt (feed, &e, (int64_t) i);
    }
    cJSON *b = s_body (feed, (int64_t) n);
    hearth_error_t err;
    assert_int_equal (s_check (b, &err), 0);
    const cJSON *att = s_get (b, "timeline", "attempts");
    assert_int_equal (cJSON_GetArraySize (att), HEARTH_TL_MAX_TASKS);
    assert_int_equal (hearth_json_int (s_get (b, "timeline", NULL), "cut", 0),
                      1234);
    assert_int_equal (
        cJSON_GetArrayItem (cJSON_GetArrayItem (att, 0), HEARTH_TLW_TASK)
            ->valueint,
        1234);
    cJSON_Delete (b);
    tlfeed_sent (feed);
    b = s_body (feed, (int64_t) n + 1);
    assert_null (s_get (b, "timeline", "cut"));
    assert_null (s_get (b, "timeline", "attempts"));
    cJSON_Delete (b);
    tlfeed_destroy (&feed);
}

/* A timeline body with one attempt given as JSON text. */
static cJSON *
s_with_attempt (const char *attempt)
{
    cJSON *b = s_body (NULL, 0);
    cJSON *tl = cJSON_AddObjectToObject (b, "timeline");
    cJSON_AddNumberToObject (tl, "now_ms", 10);
    cJSON *list = cJSON_AddArrayToObject (tl, "attempts");
    cJSON *a = cJSON_Parse (attempt);
    assert_non_null (a);
    cJSON_AddItemToArray (list, a);
    return b;
}

static void
s_refused (const char *attempt, const char *what)
{
    hearth_error_t err;
    cJSON *b = s_with_attempt (attempt);
    assert_int_equal (s_check (b, &err), -1);
    assert_contains (err.text, what);
    cJSON_Delete (b);
}

/* A malformed or oversized timeline is refused by the codec (an ERROR
   to the driver), never merged. */
static void
test_codec_refuses (void **state)
{
    (void) state;
    hearth_error_t err;
    cJSON *b = s_with_attempt ("[0,1,2,0,5,9,1]");
    assert_int_equal (s_check (b, &err), 0);
    cJSON_Delete (b);
    s_refused ("[0,1,2,0,5,9]", "timeline.attempts[0]"); /* a column short */
    s_refused ("[0,1,2,0,5,9,1,1]", "timeline.attempts[0]");  /* one more */
    s_refused ("[0,1,2,0,5,9,5]", "timeline.attempts[0][6]"); /* no outcome */
    s_refused ("[0,1,2,0,9,5,1]", "ends");                    /* backwards */
    s_refused ("[-1,1,2,0,5,9,1]", "timeline.attempts[0]");
    s_refused ("[0,1,2,0,5,\"9\",1]", "timeline.attempts[0]");
    s_refused ("[4294967296,1,2,0,5,9,1]", "timeline.attempts[0][0]");
    s_refused ("{\"x\":1}", "timeline.attempts[0]");

    /* oversized: one attempt more than the bound */
    b = s_body (NULL, 0);
    cJSON *tl = cJSON_AddObjectToObject (b, "timeline");
    cJSON_AddNumberToObject (tl, "now_ms", 10);
    cJSON *list = cJSON_AddArrayToObject (tl, "attempts");
    const double v[HEARTH_TLW_COLS] = {0, 1, 2, 0, 5, 9, 0};
    for (int i = 0; i <= HEARTH_TL_MAX_TASKS; i++)
        cJSON_AddItemToArray (list, cJSON_CreateDoubleArray (v, 7));
    assert_int_equal (s_check (b, &err), -1);
    assert_contains (err.text, "timeline.attempts");
    cJSON_Delete (b);

    /* an executor's host that is no label, a stage without its id */
    b = s_body (NULL, 0);
    tl = cJSON_AddObjectToObject (b, "timeline");
    cJSON_AddNumberToObject (tl, "now_ms", 10);
    cJSON *x = cJSON_CreateObject ();
    cJSON_AddNumberToObject (x, "id", 1);
    char host[300];
    memset (host, 'h', sizeof host - 1);
    host[sizeof host - 1] = '\0';
    cJSON_AddStringToObject (x, "host", host);
    cJSON_AddItemToArray (cJSON_AddArrayToObject (tl, "executors"), x);
    assert_int_equal (s_check (b, &err), -1);
    assert_contains (err.text, "timeline.executors[0].host");
    cJSON_DeleteItemFromObject (tl, "executors");
    cJSON_AddItemToArray (cJSON_AddArrayToObject (tl, "stages"),
                          cJSON_CreateObject ());
    assert_int_equal (s_check (b, &err), -1);
    assert_contains (err.text, "timeline.stages[0]");
    cJSON_DeleteItemFromObject (tl, "now_ms");
    cJSON_DeleteItemFromObject (tl, "stages");
    assert_int_equal (s_check (b, &err), -1);
    assert_contains (err.text, "now_ms");
    cJSON_Delete (b);
}

/* Reports merged in order into the store: the last attempts kept, the
   driver's cut and the store's own added up, executors and stages by id,
   a removal completing an executor, a re-run stage started again. */
static void
test_store_merge (void **state)
{
    (void) state;
    hearth_tllive_t *tl = hearth_tllive_new ();
    assert_non_null (tl);
    tlfeed_t *feed = tlfeed_new (0);
    evexec_t x = {.exec_id = 1, .host = "node<1>", .cores = 2, .added_ms = 5};
    tlfeed_exec (feed, &x, NULL, 5);
    tlfeed_stage (feed, 7, "map & <reduce>", NULL, 6);
    int64_t now = 10;
    for (int report = 0; report < 3; report++) {
        for (int i = 0; i < 2000; i++, now++) {
            evtask_end_t e = s_end (
                1, 7, (uint64_t) now, "FINISHED",
                now % 100 ? HEARTH_TS_ACCEPT : HEARTH_TS_DUPLICATE, 2000);
            if (now % 97 == 0)
                e = s_end (1, 7, (uint64_t) now, "FAILED", HEARTH_TS_RETRY,
                           1000);
            tlfeed_attempt (feed, &e, now);
        }
        cJSON *b = s_body (feed, now);
        hearth_error_t err;
        assert_int_equal (s_check (b, &err), 0);
        assert_int_equal (hearth_tllive_merge (tl, s_get (b, "timeline", NULL)),
                          0);
        cJSON_Delete (b);
        tlfeed_sent (feed);
    }
    size_t cut;
    assert_int_equal (hearth_tllive_attempts (tl, &cut), HEARTH_TL_MAX_TASKS);
    assert_int_equal (cut, 6000 - HEARTH_TL_MAX_TASKS);
    char *svg = hearth_tllive_svg (tl, 0);
    assert_non_null (svg);
    assert_contains (svg, "<svg");
    assert_int_equal (s_count (svg, "class=\"lane\""), 2);
    assert_contains (svg, "rect class=\"task failed\"");
    assert_contains (svg, "the last 5000 attempts (1000 earlier not drawn)");
    assert_contains (svg, "node&lt;1&gt;");
    assert_contains (svg, "map &amp; &lt;reduce&gt;");
    assert_null (strstr (svg, "<reduce>"));
    free (svg);

    /* the executor removed, the stage ended then run again */
    tlfeed_exec (feed, &x, "worker w1 lost", now);
    tlfeed_stage (feed, 7, "map & <reduce>", "SUCCEEDED", now + 1);
    cJSON *b = s_body (feed, now + 2);
    assert_int_equal (hearth_tllive_merge (tl, s_get (b, "timeline", NULL)), 0);
    cJSON_Delete (b);
    tlfeed_sent (feed);
    svg = hearth_tllive_svg (tl, 0);
    assert_contains (svg, "worker w1 lost");
    free (svg);
    tlfeed_destroy (&feed);
    hearth_tllive_destroy (&tl);
    hearth_tllive_destroy (&tl);
    assert_null (tl);
}

/* A hostile driver within the codec's bounds: more executors and stages
   than the store keeps (the lowest ids go), long text cut. */
/* Runs read late overlap (the driver read their ends late, so their
   starts, end less run time, come late too): a 2-core executor is
   still drawn in 2 lanes, whatever the delay (a loaded CI machine drew
   a third). */
static void
test_store_late_reads (void **state)
{
    (void) state;
    hearth_tllive_t *tl = hearth_tllive_new ();
    tlfeed_t *feed = tlfeed_new (0);
    evexec_t x = {.exec_id = 1, .host = "h", .cores = 2, .added_ms = 5};
    tlfeed_exec (feed, &x, NULL, 5);
    tlfeed_stage (feed, 7, "s", NULL, 6);
    /* three runs of 300 ms read at 400, 450 and 680 ms: as drawn
       (100-400, 150-450, 380-680) the third overlaps both lanes, by 20
       and 70 ms, more than the 10 ms hearth-history allows */
    static const int64_t read_ms[] = {400, 450, 680};
    for (int i = 0; i < 3; i++) {
        evtask_end_t e =
            s_end (1, 7, (uint64_t) i, "FINISHED", HEARTH_TS_ACCEPT, 300000);
        tlfeed_attempt (feed, &e, read_ms[i]);
    }
    cJSON *b = s_body (feed, 800);
    assert_int_equal (hearth_tllive_merge (tl, s_get (b, "timeline", NULL)), 0);
    char *svg = hearth_tllive_svg (tl, 0);
    assert_non_null (svg);
    assert_int_equal (s_count (svg, "<rect class=\"lane\""), 2);
    free (svg);
    cJSON_Delete (b);
    tlfeed_destroy (&feed);
    hearth_tllive_destroy (&tl);
}

static void
test_store_bounds (void **state)
{
    (void) state;
    hearth_tllive_t *tl = hearth_tllive_new ();
    char reason[4097];
    memset (reason, 'r', sizeof reason - 1);
    reason[sizeof reason - 1] = '\0';
    for (int round = 0; round < 4; round++) {
        cJSON *t = cJSON_CreateObject ();
        cJSON_AddNumberToObject (t, "now_ms", 1000 + round);
        cJSON *xs = cJSON_AddArrayToObject (t, "executors");
        cJSON *ss = cJSON_AddArrayToObject (t, "stages");
        for (int i = 0; i < HEARTH_TLW_MAX_EXECS; i++) {
            cJSON *x = cJSON_CreateObject ();
            cJSON_AddNumberToObject (x, "id", round * 1000 + 999 - i);
            cJSON_AddNumberToObject (x, "cores", 1);
            cJSON_AddNumberToObject (x, "added_ms", 1);
            cJSON_AddNumberToObject (x, "removed_ms", 2);
            cJSON_AddStringToObject (x, "reason", reason);
            cJSON_AddItemToArray (xs, x);
        }
        for (int i = 0; i < HEARTH_TL_MAX_STAGES; i++) {
            cJSON *s = cJSON_CreateObject ();
            cJSON_AddNumberToObject (s, "id", round * 1000 + i);
            cJSON_AddStringToObject (s, "name", "s");
            cJSON_AddItemToArray (ss, s);
        }
        cJSON *b = s_body (NULL, 0);
        cJSON_AddItemToObject (b, "timeline", t);
        hearth_error_t err;
        assert_int_equal (s_check (b, &err), 0);
        assert_int_equal (hearth_tllive_merge (tl, t), 0);
        cJSON_Delete (b);
    }
    char *svg = hearth_tllive_svg (tl, 0);
    assert_non_null (svg);
    /* the last round's executors only, each reason cut to 160 bytes */
    assert_null (strstr (svg, "executor 2999"));
    char cut[HEARTH_TL_MAX_TEXT + 2];
    memset (cut, 'r', sizeof cut - 1);
    cut[sizeof cut - 1] = '\0';
    assert_null (strstr (svg, cut));
    cut[HEARTH_TL_MAX_TEXT] = '\0';
    assert_contains (svg, cut);
    free (svg);
    hearth_tllive_destroy (&tl);
}

/* The registry: the timeline merged apart from the progress (MASTER_STATE
   never carries it), kept after the application ends, freed with it. */
static void
test_registry (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 10000);
    zframe_t *rid = zframe_new ("d", 1);
    registry_app_desc_t desc = {.name = "p",
                                .driver_url = "tcp://127.0.0.1:5000",
                                .memory_per_executor_mb = 512,
                                .routing_id = rid};
    reg_app_t *app = registry_app_register (reg, &desc, 0);
    zframe_destroy (&rid);
    assert_non_null (app);
    assert_null (app->timeline);
    tlfeed_t *feed = tlfeed_new (0);
    evexec_t x = {.exec_id = 0, .host = "h", .cores = 1, .added_ms = 1};
    tlfeed_exec (feed, &x, NULL, 1);
    evtask_end_t e = s_end (0, 1, 0, "FAILED", HEARTH_TS_RETRY, 1000);
    tlfeed_attempt (feed, &e, 20);
    cJSON *b = s_body (feed, 30);
    assert_int_equal (registry_app_set_progress (app, b, 1234), 0);
    cJSON_Delete (b);
    assert_non_null (app->timeline);
    assert_int_equal (hearth_tllive_attempts (app->timeline, NULL), 1);
    cJSON *view = registry_app_json (app);
    assert_null (s_get (view, "progress", "timeline"));
    assert_non_null (s_get (view, "progress", "tasks_total"));
    cJSON_Delete (view);
    registry_app_end (reg, app, APP_FINISHED, "done", NULL, NULL);
    assert_int_equal (app->state, APP_FINISHED);
    assert_non_null (app->timeline); /* its page keeps it */
    tlfeed_destroy (&feed);
    registry_destroy (&reg); /* the sanitizer finds a timeline not freed */
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    hearth_test_clear_env ();
    hearth_log_open ("test_livetimeline", "error", NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_feed_cursor),
        cmocka_unit_test (test_feed_bound),
        cmocka_unit_test (test_codec_refuses),
        cmocka_unit_test (test_store_merge),
        cmocka_unit_test (test_store_late_reads),
        cmocka_unit_test (test_store_bounds),
        cmocka_unit_test (test_registry),
    };
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    hearth_log_close ();
    return rc;
}

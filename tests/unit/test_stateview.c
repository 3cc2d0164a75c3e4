/*  test_stateview.c - unit tests of the state's tables (libcore/
    stateview.c): what rows a filter selects (state, name glob, a worker's
    short name), a drained worker shown DRAINING, applications' submit
    time, duration and reason, workers' short names in every table, and
    the formats of times and durations. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/stateview.h"
#include "tests/unit/testutil.h"

#define WA "worker-20261201093000-node1-4242"
#define WB "worker-20261201093000-node2-4343"
/* 2026-12-01T09:30:00Z */
#define T0 1796117400000.0

/* A MASTER_STATE body: two workers (one drained), three applications,
   one driver. */
static cJSON *
s_state (void)
{
    char text[4096];
    snprintf (
        text, sizeof text,
        "{\"status\":\"ALIVE\",\"time_ms\":%.0f,"
        "\"workers\":[{\"id\":\"" WA "\",\"host\":\"10.0.0.1\","
        "\"state\":\"ALIVE\",\"cores\":8,\"cores_used\":2,\"memory_mb\":"
        "16384,\"memory_used_mb\":2048,\"heartbeat_age_ms\":120,"
        "\"shuffle_bytes\":4096,\"persisted_bytes\":2048},"
        "{\"id\":\"" WB "\",\"host\":\"10.0.0.2\",\"state\":\"ALIVE\","
        "\"draining\":true,\"drain_reason\":\"disk swap\",\"cores\":8,"
        "\"cores_used\":0,\"memory_mb\":16384,\"memory_used_mb\":0,"
        "\"heartbeat_age_ms\":80}],"
        "\"apps\":[{\"id\":\"app-20261201093000-0002\",\"name\":\"etl-b\","
        "\"state\":\"RUNNING\",\"cores_granted\":2,\"max_cores\":null,"
        "\"submit_ms\":%.0f,\"executors\":[{\"exec_id\":0,\"worker_id\":"
        "\"" WA "\",\"cores\":2,\"memory_mb\":1024,\"state\":\"RUNNING\"}]},"
        "{\"id\":\"app-20261201093000-0000\",\"name\":\"etl-a\","
        "\"state\":\"FAILED\",\"cores_granted\":0,\"max_cores\":4,"
        "\"submit_ms\":%.0f,\"end_ms\":%.0f,\"reason\":\"job failed\","
        "\"executors\":[]},"
        "{\"id\":\"app-20261201093000-0001\",\"name\":\"quick\","
        "\"state\":\"FINISHED\",\"cores_granted\":0,\"max_cores\":null,"
        "\"submit_ms\":%.0f,\"end_ms\":%.0f,\"executors\":[]}],"
        "\"drivers\":[{\"id\":\"driver-20261201093000-0000\",\"name\":\"cm\","
        "\"state\":\"RUNNING\",\"worker_id\":\"" WA "\",\"cores\":1,"
        "\"memory_mb\":1024,\"launches\":1,\"supervise\":true,"
        "\"app_id\":\"app-20261201093000-0002\"}]}",
        T0 + 3723000, T0, T0, T0 + 65000, T0, T0 + 850);
    cJSON *state = cJSON_Parse (text);
    assert_non_null (state);
    return state;
}

/* What a table prints for v, as a string (caller frees).  Not inlined:
   gcc -O2 then takes the stream's hold on the local text for a dangling
   pointer in the caller (-Wdangling-pointer, a false alarm). */
static __attribute__ ((noinline)) char *
s_print (size_t (*table) (FILE *, const cJSON *, const hearth_view_t *),
         const cJSON *state, const hearth_view_t *v, size_t *rows)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&text, &len);
    assert_non_null (out);
    *rows = table (out, state, v);
    fclose (out);
    return text;
}

static void
test_apps (void **state)
{
    (void) state;
    cJSON *s = s_state ();
    hearth_view_t v = {.now_ms = (int64_t) (T0 + 3723000)};
    size_t rows;
    char *text = s_print (hearth_view_apps, s, &v, &rows);
    assert_int_equal (rows, 3);
    assert_contains (text, "SUBMITTED            DURATION REASON\n");
    /* submit time to the second, how long it ran, why it ended */
    assert_contains (text, "etl-a FAILED    0     4     2026-12-01T09:30:00Z "
                           "1m05s    job failed\n");
    assert_contains (text, "quick FINISHED  0     -     2026-12-01T09:30:00Z "
                           "850ms\n");
    /* running: how long so far, from the state's time */
    assert_contains (text, "etl-b RUNNING   2     -     2026-12-01T09:30:00Z "
                           "1h02m\n");
    free (text);

    v.state = "running";
    text = s_print (hearth_view_apps, s, &v, &rows);
    assert_int_equal (rows, 1);
    assert_non_null (strstr (text, "etl-b"));
    free (text);
    v.state = NULL;
    v.name = "etl-*";
    text = s_print (hearth_view_apps, s, &v, &rows);
    assert_int_equal (rows, 2);
    assert_null (strstr (text, "quick"));
    free (text);
    cJSON_Delete (s);
}

/* A waiting application and driver: "  waiting: REASON (CODE)" under
   the row; the sentence alone from a master before the codes; nothing
   for a row that does not wait. */
static void
test_waiting (void **state)
{
    (void) state;
    cJSON *s = cJSON_Parse (
        "{\"status\":\"ALIVE\",\"workers\":[],\"apps\":["
        "{\"id\":\"app-1\",\"name\":\"big\",\"state\":\"WAITING\","
        "\"waiting\":{\"code\":\"too_much_memory\",\"reason\":\"asks 64 "
        "GiB per executor; the largest worker offers 2 GiB\"}},"
        "{\"id\":\"app-2\",\"name\":\"old\",\"state\":\"WAITING\","
        "\"waiting\":\"its key k holds 1 of its 1 cores\"},"
        "{\"id\":\"app-3\",\"name\":\"runs\",\"state\":\"RUNNING\"}],"
        "\"drivers\":[{\"id\":\"driver-1\",\"name\":\"d\",\"state\":"
        "\"SUBMITTED\",\"waiting\":{\"code\":\"no_worker\",\"reason\":"
        "\"no worker is alive\"}}]}");
    assert_non_null (s);
    hearth_view_t v = {0};
    size_t rows;
    char *text = s_print (hearth_view_apps, s, &v, &rows);
    assert_int_equal (rows, 3);
    assert_contains (text, "\n  waiting: asks 64 GiB per executor; the "
                           "largest worker offers 2 GiB (too_much_memory)\n");
    assert_contains (text, "\n  waiting: its key k holds 1 of its 1 cores\n");
    assert_int_equal (strstr (strstr (text, "runs"), "waiting") == NULL, 1);
    free (text);
    text = s_print (hearth_view_drivers, s, &v, &rows);
    assert_contains (text, "\n  waiting: no worker is alive (no_worker)\n");
    free (text);
    cJSON_Delete (s);
}

static void
test_workers_and_names (void **state)
{
    (void) state;
    cJSON *s = s_state ();
    hearth_wnames_t *names = hearth_wnames_new ();
    assert_int_equal (hearth_view_learn (names, s), 0);
    hearth_view_t v = {.names = names};
    size_t rows;
    char *text = s_print (hearth_view_workers, s, &v, &rows);
    assert_int_equal (rows, 2);
    assert_contains (text, "NAME  ID ");
    assert_contains (text, "node2 " WB " 10.0.0.2 DRAINING 0/8 ");
    assert_contains (text, "(drained: disk swap)");
    assert_contains (text, "(persisted: 2K)"); /* of its 4K of shuffle */
    assert_contains (text, "node1 " WA " 10.0.0.1 ALIVE    2/8 ");
    free (text);

    /* by state as shown, by short name or id */
    static const struct {
        const char *state, *name, *worker;
    } filters[] = {{"DRAINING", NULL, WB},
                   {NULL, "node1", WA},
                   {NULL, "*-4343", WB},
                   {"alive", NULL, WA},
                   {NULL, "node*", NULL}};
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        v.state = filters[i].state;
        v.name = filters[i].name;
        text = s_print (hearth_view_workers, s, &v, &rows);
        assert_int_equal (rows, filters[i].worker ? 1 : 2);
        if (filters[i].worker)
            assert_non_null (strstr (text, filters[i].worker));
        free (text);
    }
    v.state = NULL;

    /* executors and drivers name their workers short too */
    v.name = NULL;
    text = s_print (hearth_view_executors, s, &v, &rows);
    assert_int_equal (rows, 1);
    assert_contains (text, "app-20261201093000-0002    0     node1  2      "
                           "1024     RUNNING\n");
    free (text);
    text = s_print (hearth_view_drivers, s, &v, &rows);
    assert_int_equal (rows, 1);
    assert_contains (text, "driver-20261201093000-0000   cm   RUNNING     "
                           "node1  1     1024     1 (s)    "
                           "app-20261201093000-0002\n");
    free (text);
    /* without names: ids in full, and no NAME column for workers */
    v.names = NULL;
    text = s_print (hearth_view_workers, s, &v, &rows);
    assert_null (strstr (text, "NAME"));
    assert_contains (text, WB " 10.0.0.2 DRAINING");
    free (text);
    hearth_wnames_destroy (&names);
    cJSON_Delete (s);
}

static void
test_formats (void **state)
{
    (void) state;
    char buf[64];
    static const struct {
        int64_t ms;
        const char *text;
    } durations[] = {
        {-5, "0ms"},        {0, "0ms"},          {999, "999ms"},
        {1000, "1.0s"},     {12345, "12.3s"},    {59999, "59.9s"},
        {60000, "1m00s"},   {245000, "4m05s"},   {3600000, "1h00m"},
        {7620000, "2h07m"}, {86400000, "1d00h"}, {273600000, "3d04h"}};
    for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
        hearth_view_duration (durations[i].ms, buf, sizeof buf);
        assert_string_equal (buf, durations[i].text);
    }
    hearth_view_stamp (T0 + 123, buf, sizeof buf);
    assert_string_equal (buf, "2026-12-01T09:30:00.123Z");
    cJSON *w = cJSON_Parse ("{\"state\":\"DEAD\",\"draining\":true}");
    assert_string_equal (hearth_view_worker_state (w), "DEAD");
    cJSON_Delete (w);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_apps),
        cmocka_unit_test (test_waiting),
        cmocka_unit_test (test_workers_and_names),
        cmocka_unit_test (test_formats),
    };
    return cmocka_run_group_tests_name ("stateview", tests, NULL, NULL);
}

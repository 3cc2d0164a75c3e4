/*  test_regended.c - unit tests of an application's ended executors in
    the registry (master/regapps.c, regviews.c): how each ended is kept
    (state, exit status, signal, message, worker, end time), at most
    REGISTRY_ENDED_EXECUTORS of them, the oldest dropped, still there
    once the application has completed, and shown in its JSON as
    ended_executors. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/proto.h"
#include "master/registry.h"
#include "tests/unit/testutil.h"

static reg_worker_t *
s_worker (registry_t *reg)
{
    zframe_t *rid = zframe_new ("w", 1);
    registry_worker_desc_t desc = {"node-a", "10.0.0.5", "0.1.0", "/w",
                                   64,       65536,      rid,     NULL};
    reg_worker_t *w = registry_worker_register (reg, &desc, 0);
    zframe_destroy (&rid);
    assert_non_null (w);
    return w;
}

static reg_app_t *
s_app (registry_t *reg)
{
    zframe_t *rid = zframe_new ("d", 1);
    registry_app_desc_t desc = {.name = "pi",
                                .driver_url = "tcp://127.0.0.1:5000",
                                .memory_per_executor_mb = 256,
                                .routing_id = rid};
    reg_app_t *app = registry_app_register (reg, &desc, 0);
    zframe_destroy (&rid);
    assert_non_null (app);
    return app;
}

/* The app's JSON's ended_executors (owned by *json). */
static const cJSON *
s_ended (const reg_app_t *app, cJSON **json)
{
    *json = registry_app_json (app);
    assert_non_null (*json);
    const cJSON *list = cJSON_GetObjectItem (*json, "ended_executors");
    assert_true (cJSON_IsArray (list));
    return list;
}

static void
test_ended_kept_with_reason (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_worker (reg);
    reg_app_t *app = s_app (reg);
    cJSON *json;
    assert_int_equal (cJSON_GetArraySize (s_ended (app, &json)), 0);
    cJSON_Delete (json);

    reg_exec_t *e = registry_exec_add (reg, app, w, 1, 256);
    registry_exec_set_state (reg, e, EXEC_RUNNING, NULL, -1, false);
    int64_t before = registry_wall_ms ();
    registry_exec_report_t report = {.state = EXEC_FAILED,
                                     .message = "killed by signal 9",
                                     .exit_status = -1,
                                     .signal = 9};
    registry_exec_report (reg, e, &report);
    const cJSON *list = s_ended (app, &json);
    assert_int_equal (cJSON_GetArraySize (list), 1);
    const cJSON *x = cJSON_GetArrayItem (list, 0);
    assert_int_equal (hearth_json_int (x, "exec_id", -1), 0);
    assert_string_equal (hearth_json_str (x, "worker_id"), "node-a");
    assert_string_equal (hearth_json_str (x, "state"), "FAILED");
    assert_int_equal (hearth_json_int (x, "signal", 0), 9);
    assert_null (cJSON_GetObjectItem (x, "exit_status"));
    assert_string_equal (hearth_json_str (x, "message"), "killed by signal 9");
    assert_true (hearth_json_int (x, "end_ms", 0) >= before);
    /* the live list no longer has it */
    assert_int_equal (
        cJSON_GetArraySize (cJSON_GetObjectItem (json, "executors")), 0);
    cJSON_Delete (json);

    /* an exit status, and a worker's loss */
    e = registry_exec_add (reg, app, w, 1, 256);
    registry_exec_set_state (reg, e, EXEC_EXITED, "exited with status 3", 3,
                             false);
    e = registry_exec_add (reg, app, w, 1, 256);
    registry_exec_set_state (reg, e, EXEC_LOST, "worker lost", -1, true);
    list = s_ended (app, &json);
    assert_int_equal (cJSON_GetArraySize (list), 3);
    x = cJSON_GetArrayItem (list, 1);
    assert_int_equal (hearth_json_int (x, "exit_status", -1), 3);
    assert_null (cJSON_GetObjectItem (x, "signal"));
    x = cJSON_GetArrayItem (list, 2);
    assert_string_equal (hearth_json_str (x, "state"), "LOST");
    assert_true (cJSON_IsTrue (cJSON_GetObjectItem (x, "worker_lost")));
    cJSON_Delete (json);
    registry_destroy (&reg);
}

static void
test_ended_bounded_and_kept_after_end (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_worker (reg);
    reg_app_t *app = s_app (reg);
    int n = REGISTRY_ENDED_EXECUTORS + 7;
    for (int i = 0; i < n; i++) {
        reg_exec_t *e = registry_exec_add (reg, app, w, 1, 256);
        registry_exec_set_state (reg, e, EXEC_EXITED, NULL, 1, false);
    }
    reg_exec_t *live = registry_exec_add (reg, app, w, 1, 256);
    assert_non_null (live);
    cJSON *json;
    const cJSON *list = s_ended (app, &json);
    assert_int_equal (cJSON_GetArraySize (list), REGISTRY_ENDED_EXECUTORS);
    /* the oldest went: the first kept is n - bound */
    assert_int_equal (
        hearth_json_int (cJSON_GetArrayItem (list, 0), "exec_id", -1),
        n - REGISTRY_ENDED_EXECUTORS);
    assert_int_equal (
        hearth_json_int (
            cJSON_GetArrayItem (list, -1 + (int) REGISTRY_ENDED_EXECUTORS),
            "exec_id", -1),
        n - 1);
    cJSON_Delete (json);

    /* the application ends: its live executor is KILLED and kept, and the
       completed application still lists them */
    registry_app_end (reg, app, APP_KILLED, "killed by its user", NULL, NULL);
    app = registry_app (reg, app->id);
    assert_non_null (app);
    list = s_ended (app, &json);
    assert_int_equal (cJSON_GetArraySize (list), REGISTRY_ENDED_EXECUTORS);
    const cJSON *last = cJSON_GetArrayItem (list, REGISTRY_ENDED_EXECUTORS - 1);
    assert_int_equal (hearth_json_int (last, "exec_id", -1), n);
    assert_string_equal (hearth_json_str (last, "state"), "KILLED");
    assert_string_equal (hearth_json_str (last, "message"),
                         "application ended");
    cJSON_Delete (json);
    registry_destroy (&reg);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_ended_kept_with_reason),
        cmocka_unit_test (test_ended_bounded_and_kept_after_end),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

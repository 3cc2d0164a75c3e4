/*  test_progress.c - a driver's progress summary (APPLICATION_PROGRESS):
    the codec's bounds (at most 16 stages, names of at most 255 bytes),
    the driver's cut of a long name (never inside a UTF-8 character), and
    the master's record of the last summary (registry_app_set_progress:
    shown as the app object's `progress`, its app_id left out, dated by
    the master, replaced by the next one). */
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
#include "libhearth/progress_report.h"
#include "master/registry.h"
#include "tests/unit/testutil.h"

#define APP_ID "app-20261129201435-0001"

/* A summary body with nstages stages, the first one named name. */
static cJSON *
s_body (int nstages, const char *name)
{
    cJSON *b = cJSON_CreateObject ();
    cJSON_AddStringToObject (b, "app_id", APP_ID);
    cJSON_AddNumberToObject (b, "jobs_active", 1);
    cJSON_AddNumberToObject (b, "tasks_total", 100);
    cJSON_AddNumberToObject (b, "tasks_finished", 40);
    cJSON_AddNumberToObject (b, "tasks_failed", 2);
    cJSON_AddNumberToObject (b, "tasks_running", 4);
    cJSON *stages = cJSON_AddArrayToObject (b, "stages");
    for (int i = 0; i < nstages; i++) {
        cJSON *s = cJSON_CreateObject ();
        cJSON_AddNumberToObject (s, "job", 1);
        cJSON_AddNumberToObject (s, "stage", i + 1);
        cJSON_AddStringToObject (s, "name", i == 0 ? name : "map");
        cJSON_AddNumberToObject (s, "tasks", 10);
        cJSON_AddNumberToObject (s, "finished", 4);
        cJSON_AddNumberToObject (s, "running", 1);
        cJSON_AddNumberToObject (s, "failed", 0);
        cJSON_AddItemToArray (stages, s);
    }
    return b;
}

static int
s_check (cJSON *body, hearth_error_t *err)
{
    int rc = hearth_cmd_check_body (HEARTH_CMD_APPLICATION_PROGRESS, body, NULL,
                                    0, err);
    cJSON_Delete (body);
    return rc;
}

static void
test_codec_bounds (void **state)
{
    (void) state;
    hearth_error_t err;
    char name[300];
    memset (name, 'n', sizeof name);
    name[255] = '\0';
    assert_int_equal (s_check (s_body (16, name), &err), 0);
    assert_int_equal (s_check (s_body (0, "x"), &err), 0);
    assert_int_equal (s_check (s_body (17, "x"), &err), -1);
    assert_contains (err.text, "stages");
    name[255] = 'n';
    name[256] = '\0';
    assert_int_equal (s_check (s_body (1, name), &err), -1);
    assert_contains (err.text, "stages[0].name");
    cJSON *b = s_body (1, "x");
    cJSON_DeleteItemFromObject (b, "tasks_total");
    assert_int_equal (s_check (b, &err), -1);
    b = s_body (1, "x");
    cJSON_ReplaceItemInObject (b, "tasks_finished", cJSON_CreateNumber (-1));
    assert_int_equal (s_check (b, &err), -1);
}

static void
test_name_cut (void **state)
{
    (void) state;
    char buf[HEARTH_PROGRESS_NAME_MAX + 1], name[400];
    memset (name, 'a', 254);
    strcpy (name + 254, "\xc3\xa9zz"); /* é across bytes 255 and 256 */
    progress_report_cut (buf, name, HEARTH_PROGRESS_NAME_MAX);
    assert_int_equal (strlen (buf), 254); /* not half of the é */
    memset (name, 'b', 253);
    strcpy (name + 253, "\xc3\xa9zz"); /* é at 254, 255: fits */
    progress_report_cut (buf, name, HEARTH_PROGRESS_NAME_MAX);
    assert_int_equal (strlen (buf), 255);
    assert_string_equal (buf + 253, "\xc3\xa9");
    progress_report_cut (buf, "short", HEARTH_PROGRESS_NAME_MAX);
    assert_string_equal (buf, "short");
    memset (name, 'c', 399);
    name[399] = '\0';
    progress_report_cut (buf, name, HEARTH_PROGRESS_NAME_MAX);
    assert_int_equal (strlen (buf), 255);
}

static void
test_master_record (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 10000);
    assert_non_null (reg);
    zframe_t *rid = zframe_new ("d", 1);
    registry_app_desc_t desc = {.name = "p",
                                .driver_url = "tcp://127.0.0.1:5000",
                                .memory_per_executor_mb = 512,
                                .routing_id = rid};
    reg_app_t *app = registry_app_register (reg, &desc, 0);
    zframe_destroy (&rid);
    assert_non_null (app);
    cJSON *view = registry_app_json (app);
    assert_null (cJSON_GetObjectItem (view, "progress"));
    cJSON_Delete (view);

    cJSON *b = s_body (2, "reduce");
    assert_int_equal (registry_app_set_progress (app, b, 1234), 0);
    cJSON_Delete (b);
    view = registry_app_json (app);
    cJSON *p = cJSON_GetObjectItem (view, "progress");
    assert_non_null (p);
    assert_null (cJSON_GetObjectItem (p, "app_id"));
    assert_int_equal (hearth_json_int (p, "time_ms", 0), 1234);
    assert_int_equal (hearth_json_int (p, "tasks_finished", 0), 40);
    assert_int_equal (hearth_json_int (p, "tasks_total", 0), 100);
    assert_int_equal (cJSON_GetArraySize (cJSON_GetObjectItem (p, "stages")),
                      2);
    cJSON_Delete (view);

    b = s_body (0, "x"); /* the next replaces it */
    cJSON_ReplaceItemInObject (b, "tasks_finished", cJSON_CreateNumber (100));
    assert_int_equal (registry_app_set_progress (app, b, 2000), 0);
    cJSON_Delete (b);
    view = registry_app_json (app);
    p = cJSON_GetObjectItem (view, "progress");
    assert_int_equal (hearth_json_int (p, "tasks_finished", 0), 100);
    assert_int_equal (hearth_json_int (p, "time_ms", 0), 2000);
    assert_int_equal (cJSON_GetArraySize (cJSON_GetObjectItem (p, "stages")),
                      0);
    cJSON_Delete (view);

    /* not journaled: the record has no trace of it */
    cJSON *rec = registry_app_record (app);
    assert_null (cJSON_GetObjectItem (rec, "progress"));
    cJSON_Delete (rec);
    registry_destroy (&reg);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    hearth_test_clear_env ();
    hearth_log_open ("test_progress", "error", NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_codec_bounds),
        cmocka_unit_test (test_name_cut),
        cmocka_unit_test (test_master_record),
    };
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    hearth_log_close ();
    return rc;
}

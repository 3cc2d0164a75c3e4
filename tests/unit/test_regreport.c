/*  test_regreport.c - unit tests of what the registry takes from its
    peers' reports, each change through the registry like any other
    (master/regapps.c, registry.c): an executor its worker lists again
    with another pid or other addresses (registry_exec_listed: journaled,
    an `executor` event "reported" that its driver does not hear; a
    LAUNCHING one becomes RUNNING; the same list again changes nothing),
    an executor's new state as its worker reports it (registry_exec_report:
    its details, an OOM kill noted on its application), the key a peer's
    messages come with (registry_peer_key: journaled when it changes),
    and the clock of an application's being unplaceable. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/proto.h"
#include "master/registry.h"
#include "tests/unit/testutil.h"

#define K1 "E(i7uXrv&fOgQ!Ka9[mv{S$Wh2r?0y}$v3m0Vyb("
#define K2 "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"

/* What the registry told its journal and its observer. */
typedef struct {
    cJSON *records; /* copies of the journal's records, in order */
    cJSON *events;  /* {topic, event, reported} of each observed change */
} s_seen_t;

static void
s_journal (void *arg, const cJSON *record, bool sync)
{
    (void) sync;
    s_seen_t *seen = arg;
    cJSON_AddItemToArray (seen->records, cJSON_Duplicate (record, 1));
}

static void
s_observe (void *arg, registry_change_t *change)
{
    s_seen_t *seen = arg;
    cJSON *o = cJSON_CreateObject ();
    cJSON_AddStringToObject (o, "topic", change->topic);
    cJSON_AddStringToObject (o, "event",
                             hearth_json_str (change->event, "event"));
    cJSON_AddBoolToObject (o, "reported", change->reported);
    cJSON *x = cJSON_GetObjectItem (change->event, "executor");
    if (x)
        cJSON_AddItemToObject (o, "executor", cJSON_Duplicate (x, 1));
    cJSON_AddItemToArray (seen->events, o);
}

/* Forget what was seen so far. */
static void
s_reset (s_seen_t *seen)
{
    cJSON_Delete (seen->records);
    cJSON_Delete (seen->events);
    seen->records = cJSON_CreateArray ();
    seen->events = cJSON_CreateArray ();
}

/* Each test's books: a registry telling seen, with worker "node-a" (key
   K1, routing id "w") and an application. */
typedef struct {
    s_seen_t seen;
    registry_t *reg;
    reg_worker_t *w;
    reg_app_t *app;
} s_books_t;

static int
s_setup (void **state)
{
    s_books_t *b = calloc (1, sizeof *b);
    assert_non_null (b);
    b->reg = registry_new (10, 1000);
    assert_non_null (b->reg);
    s_reset (&b->seen);
    registry_set_journal (b->reg, s_journal, &b->seen);
    registry_set_observer (b->reg, s_observe, &b->seen);
    zframe_t *rid = zframe_new ("w", 1);
    registry_worker_desc_t wd = {.id = "node-a",
                                 .host = "10.0.0.5",
                                 .version = "0.1.0",
                                 .cores = 64,
                                 .memory_mb = 65536,
                                 .routing_id = rid,
                                 .curve_key = K1};
    b->w = registry_worker_register (b->reg, &wd, 0);
    zframe_destroy (&rid);
    rid = zframe_new ("d", 1);
    registry_app_desc_t ad = {.name = "pi",
                              .driver_url = "tcp://127.0.0.1:5000",
                              .memory_per_executor_mb = 256,
                              .routing_id = rid};
    b->app = registry_app_register (b->reg, &ad, 0);
    zframe_destroy (&rid);
    assert_non_null (b->w);
    assert_non_null (b->app);
    s_reset (&b->seen);
    *state = b;
    return 0;
}

static int
s_teardown (void **state)
{
    s_books_t *b = *state;
    registry_destroy (&b->reg);
    cJSON_Delete (b->seen.records);
    cJSON_Delete (b->seen.events);
    free (b);
    return 0;
}

static void
test_listed_running (void **state)
{
    s_books_t *b = *state;
    registry_t *reg = b->reg;
    reg_app_t *app = b->app;
    s_seen_t *seen = &b->seen;
    reg_exec_t *e = registry_exec_add (reg, app, b->w, 1, 256);
    registry_exec_report_t running = {
        .state = EXEC_RUNNING, .exit_status = -1, .pid = 4111};
    registry_exec_report (reg, e, &running);
    assert_int_equal (e->pid, 4111);
    s_reset (seen);

    /* another pid and a GPU: journaled and observed as "reported" */
    hearth_resources_t gpu = {0};
    assert_int_equal (hearth_resources_add_spec (&gpu, "gpu=1", NULL), 0);
    registry_exec_listed (reg, e, 4222, &gpu);
    assert_int_equal (e->state, EXEC_RUNNING);
    assert_int_equal (e->pid, 4222);
    assert_non_null (hearth_resources_find (&e->resources, "gpu"));
    assert_int_equal (cJSON_GetArraySize (seen->events), 1);
    const cJSON *ev = cJSON_GetArrayItem (seen->events, 0);
    assert_string_equal (hearth_json_str (ev, "topic"), "executor");
    assert_string_equal (hearth_json_str (ev, "event"), "reported");
    assert_true (cJSON_IsTrue (cJSON_GetObjectItem (ev, "reported")));
    assert_int_equal (
        hearth_json_int (cJSON_GetObjectItem (ev, "executor"), "pid", 0), 4222);
    assert_int_equal (cJSON_GetArraySize (seen->records), 1);
    const cJSON *rec = cJSON_GetArrayItem (seen->records, 0);
    assert_string_equal (hearth_json_str (rec, "t"), "exec");
    assert_int_equal (hearth_json_int (rec, "pid", 0), 4222);
    assert_non_null (cJSON_GetObjectItem (rec, "resources"));

    /* the same again, or no addresses said and the same pid: nothing */
    s_reset (seen);
    registry_exec_listed (reg, e, 4222, &gpu);
    registry_exec_listed (reg, e, 4222, NULL);
    assert_int_equal (cJSON_GetArraySize (seen->events), 0);
    assert_int_equal (cJSON_GetArraySize (seen->records), 0);

    /* no addresses at all, said: the GPU is no longer held */
    hearth_resources_t none = {0};
    registry_exec_listed (reg, e, 4222, &none);
    assert_int_equal (e->resources.n, 0);
    assert_int_equal (cJSON_GetArraySize (seen->records), 1);
    hearth_resources_clear (&gpu);
}

static void
test_listed_launching (void **state)
{
    s_books_t *b = *state;
    registry_t *reg = b->reg;
    reg_app_t *app = b->app;
    s_seen_t *seen = &b->seen;
    reg_exec_t *e = registry_exec_add (reg, app, b->w, 1, 256);
    s_reset (seen);
    registry_exec_listed (reg, e, 77, NULL);
    assert_int_equal (e->state, EXEC_RUNNING);
    assert_int_equal (e->pid, 77);
    /* one change: its state, which its driver hears (not `reported`) */
    assert_int_equal (cJSON_GetArraySize (seen->events), 1);
    const cJSON *ev = cJSON_GetArrayItem (seen->events, 0);
    assert_string_equal (hearth_json_str (ev, "event"), "state");
    assert_false (cJSON_IsTrue (cJSON_GetObjectItem (ev, "reported")));
    const cJSON *x = cJSON_GetObjectItem (ev, "executor");
    assert_string_equal (hearth_json_str (x, "state"), "RUNNING");
    assert_int_equal (hearth_json_int (x, "pid", 0), 77);
}

static void
test_report_oom (void **state)
{
    s_books_t *b = *state;
    registry_t *reg = b->reg;
    reg_app_t *app = b->app;
    s_seen_t *seen = &b->seen;
    reg_exec_t *e = registry_exec_add (reg, app, b->w, 1, 256);
    registry_exec_report_t oom = {.state = EXEC_FAILED,
                                  .message = "memory limit reached",
                                  .exit_status = -1,
                                  .signal = 9,
                                  .pid = 4333,
                                  .peak_rss_bytes = 300 << 20,
                                  .memory_limit_bytes = 256 << 20,
                                  .exit_reason = "OOM_KILLED"};
    s_reset (seen);
    registry_exec_report (reg, e, &oom);
    /* the state event carries what the worker said */
    const cJSON *x =
        cJSON_GetObjectItem (cJSON_GetArrayItem (seen->events, 0), "executor");
    assert_string_equal (hearth_json_str (x, "state"), "FAILED");
    assert_int_equal (hearth_json_int (x, "pid", 0), 4333);
    assert_string_equal (hearth_json_str (x, "exit_reason"), "OOM_KILLED");
    assert_int_equal (hearth_json_int (x, "peak_rss_bytes", 0), 300 << 20);
    /* and its application keeps it as its last OOM */
    assert_non_null (app->last_oom);
    assert_int_equal (hearth_json_int (app->last_oom, "exec_id", -1), 0);
    assert_string_equal (hearth_json_str (app->last_oom, "worker_id"),
                         "node-a");
    assert_int_equal (hearth_json_int (app->last_oom, "memory_limit_bytes", 0),
                      256 << 20);
    assert_string_equal (hearth_json_str (app->last_oom, "message"),
                         "memory limit reached");
    assert_null (registry_exec (reg, app->id, 0)); /* final: gone */
}

static void
test_peer_key (void **state)
{
    s_books_t *b = *state;
    registry_t *reg = b->reg;
    s_seen_t *seen = &b->seen;
    zframe_t *rid = zframe_new ("w", 1), *other = zframe_new ("x", 1);
    void *record, *none;
    peer_kind_t kind = registry_peer (reg, rid, &record);
    assert_int_equal (kind, PEER_WORKER);
    registry_peer_key (reg, kind, record, K1); /* its own: nothing */
    kind = registry_peer (reg, other, &none);  /* no record's: nothing */
    registry_peer_key (reg, kind, none, K2);
    assert_int_equal (cJSON_GetArraySize (seen->records), 0);
    registry_peer_key (reg, PEER_WORKER, record, K2);
    assert_string_equal (b->w->curve_key, K2);
    assert_int_equal (cJSON_GetArraySize (seen->records), 1);
    const cJSON *rec = cJSON_GetArrayItem (seen->records, 0);
    assert_string_equal (hearth_json_str (rec, "t"), "worker");
    assert_string_equal (hearth_json_str (rec, "curve_key"), K2);
    zframe_destroy (&rid);
    zframe_destroy (&other);
}

static void
test_unplaceable_clock (void **state)
{
    s_books_t *b = *state;
    registry_t *reg = b->reg;
    reg_app_t *app = b->app;
    s_seen_t *seen = &b->seen;
    assert_int_equal (registry_app_unplaceable (reg, app, false, 100), 0);
    assert_int_equal (registry_app_unplaceable (reg, app, true, 200), 200);
    assert_int_equal (registry_app_unplaceable (reg, app, true, 300), 200);
    assert_int_equal (app->unplaceable_ms, 200);
    assert_int_equal (registry_app_unplaceable (reg, app, false, 400), 0);
    assert_int_equal (registry_app_unplaceable (reg, app, true, 500), 500);
    /* the master's own view: neither journaled nor published */
    assert_int_equal (cJSON_GetArraySize (seen->records), 0);
    assert_int_equal (cJSON_GetArraySize (seen->events), 0);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_listed_running, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_listed_launching, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_report_oom, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_peer_key, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_unplaceable_clock, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

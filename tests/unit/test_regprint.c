/*  test_regprint.c - a worker's view printed straight from its record
    (registry_worker_print, what MASTER_STATE sends) against the tree it
    replaces there (registry_worker_json printed by hearth_json_print):
    the same bytes for every optional field, for strings that need
    escaping, for custom resources free and held, and numbers past 32
    bits. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/jsonprint.h"
#include "master/registry.h"
#include "master/registry_int.h"
#include "tests/unit/testutil.h"

static reg_worker_t *
s_register (registry_t *reg, const char *id, const char *host,
            const hearth_resources_t *res)
{
    zframe_t *rid = zframe_new (id, strlen (id));
    registry_worker_desc_t desc = {id,    host, "0.1.0", "/w", 16,
                                   65536, rid,  NULL,    res};
    reg_worker_t *w = registry_worker_register (reg, &desc, 1000);
    zframe_destroy (&rid);
    assert_non_null (w);
    return w;
}

/* The printed view equals the printed tree, byte for byte. */
static void
s_check_same (const reg_worker_t *w, int64_t now_ms)
{
    cJSON *tree = registry_worker_json (w, now_ms);
    assert_non_null (tree);
    hearth_jsonbuf_t want, got;
    char stack[64]; /* small: the printed text moves to the heap */
    const char *want_text = hearth_json_print (tree, &want, NULL, 0);
    hearth_jsonbuf_init (&got, stack, sizeof stack);
    assert_true (registry_worker_print (w, now_ms, &got));
    const char *got_text = hearth_jsonbuf_finish (&got);
    assert_non_null (want_text);
    assert_non_null (got_text);
    assert_string_equal (got_text, want_text);
    assert_int_equal (got.len, want.len);
    hearth_jsonbuf_release (&want);
    hearth_jsonbuf_release (&got);
    cJSON_Delete (tree);
}

static void
test_plain_and_every_optional_field (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_register (reg, "worker-1", "10.0.0.5", NULL);
    s_check_same (w, 1500);
    /* every optional field at once, with strings that need escaping:
       written as only the registry does (registry_int.h), since no
       worker is ever in all those states at once */
    struct reg_worker *rw = registry__worker_rw (w);
    rw->decom_reason = strdup ("spot \"reclaim\"\n\tin 2 min\\");
    rw->decom_deadline_ms = 1764650000123;
    rw->dead_reason = strdup ("\x01silent\x1f\b\f\r");
    rw->draining = true;
    rw->drain_reason = strdup ("kernel upgrade é ✓");
    rw->shuffle_bytes = (uint64_t) 5 << 40;
    rw->web_url = strdup ("http://10.0.0.5:8081");
    rw->launch_failures = 3;
    rw->unhealthy = strdup ("cannot create /w: No space left on device");
    rw->last_heartbeat_ms = 1764650000000;
    s_check_same (w, 1764650000999);
    /* a heartbeat in the future (clock steps) gives a negative age */
    s_check_same (w, 1764649999000);
    /* the DEAD state's name */
    registry_worker_dead (reg, w, "gone", 2000);
    s_check_same (w, 1764650001000);
    registry_destroy (&reg);
}

static void
test_resources_free_and_held (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    hearth_resources_t res = {0};
    assert_int_equal (hearth_resources_add_spec (&res, "gpu=0,1,2", NULL), 0);
    assert_int_equal (hearth_resources_add_spec (&res, "fpga=a", NULL), 0);
    reg_worker_t *w = s_register (reg, "worker-2", "h2", &res);
    hearth_resources_clear (&res);
    s_check_same (w, 0); /* none held: "resources_held":{} */
    zframe_t *rid = zframe_new ("d", 1);
    registry_app_desc_t desc = {.name = "gpus",
                                .driver_url = "tcp://127.0.0.1:5000",
                                .memory_per_executor_mb = 256,
                                .routing_id = rid};
    reg_app_t *app = registry_app_register (reg, &desc, 0);
    zframe_destroy (&rid);
    assert_non_null (app);
    hearth_resources_t held = {0};
    assert_int_equal (hearth_resources_add_spec (&held, "gpu=1", NULL), 0);
    assert_non_null (registry_exec_add_held (reg, app, w, 2, 1024, &held));
    hearth_resources_clear (&held);
    s_check_same (w, 0); /* cores, memory, an executor, gpu 1 held */
    registry_destroy (&reg);
}

int
main (void)
{
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_plain_and_every_optional_field),
        cmocka_unit_test (test_resources_free_and_held),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_regworkers.c - unit tests of a worker's launch health in the
    registry (master/regworkers.c): the hold after failed launches, its
    doubling and cap, unhealthy after three in a row with the reason, the
    events, and what ends it (a launch that succeeds, a registration). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/proto.h"
#include "master/registry.h"
#include "master/regworkers.h"
#include "tests/unit/testutil.h"

/* The events the observer saw, last one kept. */
typedef struct {
    int unhealthy;    /* "unhealthy" events */
    int healthy;      /* "healthy" events */
    char reason[256]; /* the last unhealthy event's reason */
} s_seen_t;

static void
s_observe (void *arg, registry_change_t *c)
{
    s_seen_t *seen = arg;
    const char *what = hearth_json_str (c->event, "event");
    if (strcmp (what, "unhealthy") == 0) {
        seen->unhealthy++;
        snprintf (seen->reason, sizeof seen->reason, "%s",
                  hearth_json_str (c->event, "reason"));
    }
    seen->healthy += strcmp (what, "healthy") == 0;
}

static reg_worker_t *
s_register (registry_t *reg)
{
    zframe_t *rid = zframe_new ("w", 1);
    registry_worker_desc_t desc = {"node-a", "10.0.0.5", "0.1.0", "/w",
                                   4,        4096,       rid,     NULL};
    reg_worker_t *w = registry_worker_register (reg, &desc, 0);
    zframe_destroy (&rid);
    assert_non_null (w);
    return w;
}

static void
test_hold_doubles_then_unhealthy (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    s_seen_t seen = {0};
    registry_set_observer (reg, s_observe, &seen);
    reg_worker_t *w = s_register (reg);
    const char *why = "cannot create /w/app-1: No space left on device";
    assert_false (registry_worker_launch_failed (reg, w, why, 1000));
    assert_int_equal (w->launch_hold_ms, 1500);
    assert_null (w->unhealthy);
    assert_false (registry_worker_launch_failed (reg, w, why, 2000));
    assert_int_equal (w->launch_hold_ms, 3000);
    /* the third in a row: unhealthy, with the reason, said once */
    assert_true (registry_worker_launch_failed (reg, w, why, 4000));
    assert_int_equal (w->launch_hold_ms, 6000);
    assert_string_equal (w->unhealthy, why);
    assert_int_equal (seen.unhealthy, 1);
    assert_string_equal (seen.reason, why);
    assert_false (registry_worker_launch_failed (reg, w, why, 7000));
    assert_int_equal (seen.unhealthy, 1);
    /* the hold is capped at 30 s */
    for (int i = 0; i < 20; i++)
        registry_worker_launch_failed (reg, w, why, 100000);
    assert_int_equal (w->launch_hold_ms, 130000);
    /* a probe holds the worker until its result */
    registry_worker_probe (reg, w, 200000);
    assert_int_equal (w->launch_hold_ms, 230000);
    /* the views show it */
    cJSON *o = registry_worker_json (w, 0);
    assert_string_equal (hearth_json_str (o, "unhealthy"), why);
    assert_int_equal (hearth_json_int (o, "launch_failures", 0), 24);
    assert_string_equal (hearth_json_str (o, "state"), "ALIVE");
    cJSON_Delete (o);
    /* a launch that succeeds ends it all */
    assert_true (registry_worker_launch_ok (reg, w));
    assert_int_equal (seen.healthy, 1);
    assert_null (w->unhealthy);
    assert_int_equal (w->launch_failures, 0);
    assert_int_equal (w->launch_hold_ms, 0);
    o = registry_worker_json (w, 0);
    assert_null (cJSON_GetObjectItem (o, "unhealthy"));
    assert_null (cJSON_GetObjectItem (o, "launch_failures"));
    cJSON_Delete (o);
    assert_false (registry_worker_launch_ok (reg, w));
    assert_int_equal (seen.healthy, 1);
    registry_destroy (&reg);
}

static void
test_registration_starts_afresh (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_register (reg);
    for (int i = 0; i < 3; i++)
        registry_worker_launch_failed (reg, w, "no room", 10);
    assert_non_null (w->unhealthy);
    assert_ptr_equal (s_register (reg), w);
    assert_null (w->unhealthy);
    assert_int_equal (w->launch_failures, 0);
    /* no reason given: one is made up */
    for (int i = 0; i < 3; i++)
        registry_worker_launch_failed (reg, w, NULL, 10);
    assert_string_equal (w->unhealthy, "launches fail");
    registry_destroy (&reg);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_hold_doubles_then_unhealthy),
        cmocka_unit_test (test_registration_starts_afresh),
    };
    return cmocka_run_group_tests_name ("regworkers", tests, NULL, NULL);
}

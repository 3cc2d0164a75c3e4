/*  test_regres.c - unit tests of who holds a worker's custom resource
    addresses in the registry (master/regres.c, regstopping.c): the first
    free addresses picked for an executor, never one held; held ones
    named by their executor; freed when the executor ends; kept by a
    stopping entry while its worker has not said it ended; and asking
    who holds an address inside a walk of the worker's executors (as the
    re-registration's reconciliation does) leaves that walk intact. */
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
#include "tests/unit/testutil.h"

/* A worker offering gpu 0..3. */
static reg_worker_t *
s_worker (registry_t *reg)
{
    hearth_resources_t gpus = {0};
    assert_int_equal (hearth_resources_add_spec (&gpus, "gpu=0,1,2,3", NULL),
                      0);
    zframe_t *rid = zframe_new ("w", 1);
    registry_worker_desc_t desc = {"node-a", "10.0.0.5", "0.1.0", "/w", 64,
                                   65536,    rid,        NULL,    &gpus};
    reg_worker_t *w = registry_worker_register (reg, &desc, 0);
    zframe_destroy (&rid);
    hearth_resources_clear (&gpus);
    assert_non_null (w);
    return w;
}

/* An application asking gpu=N per executor. */
static reg_app_t *
s_app (registry_t *reg, int n)
{
    hearth_resource_amounts_t a = {0};
    assert_int_equal (hearth_resource_amounts_add (&a, "gpu", n, NULL), 0);
    zframe_t *rid = zframe_new ("d", 1);
    registry_app_desc_t desc = {.name = "g",
                                .driver_url = "tcp://127.0.0.1:5000",
                                .memory_per_executor_mb = 256,
                                .executor_resources = &a,
                                .routing_id = rid};
    reg_app_t *app = registry_app_register (reg, &desc, 0);
    zframe_destroy (&rid);
    hearth_resource_amounts_clear (&a);
    assert_non_null (app);
    return app;
}

/* A new executor of app on w holding the addresses the registry picks. */
static reg_exec_t *
s_place (registry_t *reg, reg_app_t *app, reg_worker_t *w)
{
    hearth_resources_t held = {0};
    if (registry_worker_pick (w, &app->executor_resources, &held) < 0)
        return NULL;
    reg_exec_t *e = registry_exec_add_held (reg, app, w, 1, 256, &held);
    hearth_resources_clear (&held);
    assert_non_null (e);
    return e;
}

static const char *
s_addr (const reg_exec_t *e, size_t i)
{
    const hearth_resource_t *r = hearth_resources_find (&e->resources, "gpu");
    assert_non_null (r);
    assert_true (i < r->naddrs);
    return r->addrs[i];
}

static void
test_pick_first_free_never_held (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_worker (reg);
    reg_app_t *app = s_app (reg, 2);
    reg_exec_t *a = s_place (reg, app, w), *b = s_place (reg, app, w);
    assert_string_equal (s_addr (a, 0), "0");
    assert_string_equal (s_addr (a, 1), "1");
    assert_string_equal (s_addr (b, 0), "2");
    assert_string_equal (s_addr (b, 1), "3");
    assert_int_equal (registry_worker_free_count (w, "gpu"), 0);
    assert_null (s_place (reg, app, w)); /* none left: refused */
    char buf[128];
    char want[HEARTH_ID_MAX + 32];
    snprintf (want, sizeof want, "%s/%d", app->id, b->exec_id);
    assert_string_equal (
        registry_worker_holder (w, "gpu", "3", buf, sizeof buf), want);
    /* an executor that ends gives its addresses back */
    registry_exec_set_state (reg, a, EXEC_EXITED, NULL, 0, false);
    assert_int_equal (registry_worker_free_count (w, "gpu"), 2);
    assert_null (registry_worker_holder (w, "gpu", "0", buf, sizeof buf));
    reg_exec_t *c = s_place (reg, app, w);
    assert_string_equal (s_addr (c, 0), "0");
    registry_destroy (&reg);
}

/* The master ends the application: its executors' addresses stay held by
   their stopping entries until the worker says they ended. */
static void
test_stopping_keeps_addresses (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_worker (reg);
    reg_app_t *app = s_app (reg, 1);
    reg_exec_t *e = s_place (reg, app, w);
    registry_exec_set_state (reg, e, EXEC_RUNNING, NULL, -1, false);
    int id = e->exec_id;
    registry_app_end (reg, app, APP_KILLED, "killed", NULL, NULL);
    char buf[128];
    assert_non_null (registry_worker_holder (w, "gpu", "0", buf, sizeof buf));
    assert_int_equal (registry_worker_free_count (w, "gpu"), 3);
    assert_true (registry_stopping_ended (w, app->id, id));
    assert_int_equal (registry_worker_free_count (w, "gpu"), 4);
    registry_destroy (&reg);
}

/* Asking who holds an address while walking w->executors: the walk still
   visits every executor once. */
static void
test_holder_inside_a_walk (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_worker (reg);
    reg_app_t *app = s_app (reg, 1);
    for (int i = 0; i < 4; i++)
        s_place (reg, app, w);
    int seen = 0;
    char buf[128];
    for (reg_exec_t *e = zlistx_first (w->executors); e && seen < 10;
         e = zlistx_next (w->executors)) {
        seen++;
        registry_worker_holder (w, "gpu", "2", buf, sizeof buf);
        registry_worker_holder (w, "gpu", "9", buf, sizeof buf); /* none */
    }
    assert_int_equal (seen, 4);
    registry_destroy (&reg);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_pick_first_free_never_held),
        cmocka_unit_test (test_stopping_keeps_addresses),
        cmocka_unit_test (test_holder_inside_a_walk),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

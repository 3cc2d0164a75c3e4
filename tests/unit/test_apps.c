/*  test_apps.c - the worker's table of applications (worker/apps.c): an
    application's first token and owner stay; a launch with another token
    is refused and changes nothing; the end of the application forgets
    them; REGISTER_WORKER's list names the owned ones.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/testutil.h"
#include "worker/apps.h"

static const char s_app[] = "app-20260101000000-0001";
static const char s_other[] = "app-20260101000000-0002";

static void
test_first_token_stays (void **state)
{
    (void) state;
    hearth_error_t err;
    apps_t *apps = apps_new ();
    assert_non_null (apps);
    assert_null (apps_token (apps, s_app));
    assert_int_equal (apps_launch (apps, s_app, "bobs", "BOBKEY", &err), 0);
    assert_string_equal (apps_token (apps, s_app), "bobs");
    /* another executor of it, from its driver */
    assert_int_equal (apps_launch (apps, s_app, "bobs", "BOBKEY", &err), 0);
    /* another token: refused, and the first one stays */
    assert_int_equal (apps_launch (apps, s_app, "alices", "ALICEKEY", &err),
                      -1);
    assert_string_equal (err.code, APPS_REFUSED);
    assert_contains (err.text, "with another token");
    assert_contains (err.text, s_app);
    assert_int_equal (apps_launch (apps, s_app, "bob", "BOBKEY", &err), -1);
    assert_int_equal (apps_launch (apps, s_app, "bobsx", "BOBKEY", &err), -1);
    assert_int_equal (apps_launch (apps, s_app, NULL, "BOBKEY", &err), -1);
    assert_string_equal (apps_token (apps, s_app), "bobs");
    /* other applications are apart */
    assert_int_equal (apps_launch (apps, s_other, "alices", "ALICEKEY", &err),
                      0);
    assert_string_equal (apps_token (apps, s_other), "alices");
    assert_string_equal (apps_token (apps, s_app), "bobs");
    /* once it ended, its id is free again */
    apps_removed (apps, s_app);
    assert_null (apps_token (apps, s_app));
    assert_int_equal (apps_launch (apps, s_app, "new", "ALICEKEY", &err), 0);
    assert_string_equal (apps_token (apps, s_app), "new");
    apps_destroy (&apps);
    assert_null (apps);
    apps_destroy (&apps);
    apps_destroy (NULL);
}

/* Launched without a token (an old master): none is served, and a token
   that comes later is not its driver's either. */
static void
test_no_token (void **state)
{
    (void) state;
    hearth_error_t err;
    apps_t *apps = apps_new ();
    assert_int_equal (apps_launch (apps, s_app, NULL, NULL, &err), 0);
    assert_null (apps_token (apps, s_app));
    assert_int_equal (apps_launch (apps, s_app, "", NULL, &err), 0);
    assert_int_equal (apps_launch (apps, s_app, "late", NULL, &err), -1);
    assert_null (apps_token (apps, s_app));
    apps_destroy (&apps);
}

static void
test_json_and_walk (void **state)
{
    (void) state;
    hearth_error_t err;
    apps_t *apps = apps_new ();
    assert_int_equal (apps_launch (apps, s_app, "t1", "BOBKEY", &err), 0);
    assert_int_equal (apps_launch (apps, s_other, "t2", NULL, &err), 0);
    cJSON *list = apps_json (apps);
    assert_non_null (list);
    /* only the owned one: without keys there is no one to name */
    assert_int_equal (cJSON_GetArraySize (list), 1);
    cJSON *a = cJSON_GetArrayItem (list, 0);
    assert_string_equal (cJSON_GetObjectItem (a, "app_id")->valuestring, s_app);
    assert_string_equal (cJSON_GetObjectItem (a, "owner")->valuestring,
                         "BOBKEY");
    assert_null (cJSON_GetObjectItem (a, "token"));
    cJSON_Delete (list);
    int seen = 0;
    for (const char *id = apps_first (apps); id; id = apps_next (apps))
        seen |= strcmp (id, s_app) == 0 ? 1 : strcmp (id, s_other) == 0 ? 2 : 4;
    assert_int_equal (seen, 3);
    apps_destroy (&apps);
}

/* LAUNCH_EXECUTOR's limits hold: what does not fit is refused, not
   cut. */
static void
test_too_long (void **state)
{
    (void) state;
    hearth_error_t err;
    char token[200];
    memset (token, 'x', sizeof token - 1);
    token[sizeof token - 1] = '\0';
    apps_t *apps = apps_new ();
    assert_int_equal (apps_launch (apps, s_app, token, "K", &err), -1);
    assert_contains (err.text, "too long");
    assert_null (apps_first (apps));
    apps_destroy (&apps);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_first_token_stays),
        cmocka_unit_test (test_no_token),
        cmocka_unit_test (test_json_and_walk),
        cmocka_unit_test (test_too_long),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

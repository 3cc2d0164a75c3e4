/*  test_labels.c - unit tests of libcore/labels.c: a worker's labels,
    KEY=VALUE, their rules, and the checks of a map received. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/labels.h"
#include "tests/unit/testutil.h"

static void
test_specs (void **state)
{
    (void) state;
    cJSON *l = cJSON_CreateObject ();
    hearth_error_t err;
    assert_int_equal (hearth_labels_add_spec (l, "rack=r1", &err), 0);
    assert_int_equal (hearth_labels_add_spec (l, "disk.kind=ssd-2", &err), 0);
    assert_int_equal (hearth_labels_add_spec (l, "rack=r2", &err), 0);
    assert_int_equal (cJSON_GetArraySize (l), 2); /* rack replaced */
    assert_string_equal (
        cJSON_GetObjectItemCaseSensitive (l, "rack")->valuestring, "r2");
    char out[HEARTH_LABELS_MAX]
            [HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2];
    assert_int_equal (hearth_labels_specs (l, out), 2);
    assert_string_equal (out[0], "disk.kind=ssd-2");
    assert_string_equal (out[1], "rack=r2");
    assert_int_equal (hearth_labels_specs (NULL, out), 0);
    assert_int_equal (hearth_labels_check (l, &err), 0);
    cJSON_Delete (l);
}

static void
test_refused (void **state)
{
    (void) state;
    static const char *const bad[] = {
        "rack",     "=r1",   "rack=",  "1rack=r1", "ra ck=r1",
        "rack=r 1", "k=a,b", "k=\x01", "k/x=1",    NULL};
    cJSON *l = cJSON_CreateObject ();
    hearth_error_t err;
    for (int i = 0; bad[i]; i++) {
        assert_int_equal (hearth_labels_add_spec (l, bad[i], &err), -1);
        assert_contains (err.text, "expected KEY=VALUE");
    }
    assert_int_equal (cJSON_GetArraySize (l), 0);
    char spec[32];
    for (int i = 0; i < HEARTH_LABELS_MAX; i++) {
        snprintf (spec, sizeof spec, "k%d=v", i);
        assert_int_equal (hearth_labels_add_spec (l, spec, &err), 0);
    }
    assert_int_equal (hearth_labels_add_spec (l, "one=more", &err), -1);
    assert_string_equal (err.text, "more than 32 labels");
    cJSON_Delete (l);
}

static void
test_check_received (void **state)
{
    (void) state;
    hearth_error_t err;
    assert_int_equal (hearth_labels_check (NULL, &err), 0);
    cJSON *ok = cJSON_Parse ("{\"rack\": \"r1\", \"disk\": \"ssd\"}");
    assert_int_equal (hearth_labels_check (ok, &err), 0);
    cJSON_Delete (ok);
    static const char *const bad[] = {"{\"ra ck\": \"r1\"}",
                                      "{\"rack\": \"r,1\"}", "{\"rack\": 7}",
                                      "[\"rack=r1\"]", NULL};
    for (int i = 0; bad[i]; i++) {
        cJSON *l = cJSON_Parse (bad[i]);
        assert_non_null (l);
        assert_int_equal (hearth_labels_check (l, &err), -1);
        cJSON_Delete (l);
    }
}

/* A worker carries what is wanted when it has every wanted label with
   the same value; nothing wanted is carried by anyone; and the text of
   a wanted set for messages. */
static void
test_carry (void **state)
{
    (void) state;
    cJSON *have = cJSON_Parse ("{\"disk\":\"ssd\",\"rack\":\"r1\"}");
    cJSON *one = cJSON_Parse ("{\"disk\":\"ssd\"}");
    cJSON *both = cJSON_Parse ("{\"rack\":\"r1\",\"disk\":\"ssd\"}");
    cJSON *other = cJSON_Parse ("{\"disk\":\"hdd\"}");
    cJSON *more = cJSON_Parse ("{\"disk\":\"ssd\",\"gpu\":\"a100\"}");
    assert_true (hearth_labels_carry (have, one));
    assert_true (hearth_labels_carry (have, both));
    assert_false (hearth_labels_carry (have, other));
    assert_false (hearth_labels_carry (have, more));
    assert_false (hearth_labels_carry (NULL, one));
    assert_true (hearth_labels_carry (NULL, NULL));
    char text[64];
    hearth_labels_text (both, text, sizeof text);
    assert_string_equal (text, "rack=r1,disk=ssd");
    hearth_labels_text (both, text, 8); /* cut, still a string */
    assert_string_equal (text, "rack=r1");
    cJSON_Delete (have);
    cJSON_Delete (one);
    cJSON_Delete (both);
    cJSON_Delete (other);
    cJSON_Delete (more);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_specs),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_check_received),
        cmocka_unit_test (test_carry),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

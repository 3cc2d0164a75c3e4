/*  test_masters.c - unit tests of master URL lists (libcore/masters.c):
    the parser's checks and errors, a list of one, moving to the next URL
    and to a named leader (only one of the list: a leader outside it is
    ignored), and the fencing by epoch. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/masters.h"
#include "tests/unit/testutil.h"

static void
test_one (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_masters_t *m = hearth_masters_parse ("tcp://m1:7077", &err);
    assert_non_null (m);
    assert_int_equal (hearth_masters_count (m), 1);
    assert_string_equal (hearth_masters_current (m), "tcp://m1:7077");
    assert_string_equal (hearth_masters_text (m), "tcp://m1:7077");
    /* the next of one is itself */
    assert_string_equal (hearth_masters_next (m), "tcp://m1:7077");
    assert_null (hearth_masters_url (m, 1));
    hearth_masters_destroy (&m);
    assert_null (m);
    hearth_masters_destroy (&m);
    hearth_masters_destroy (NULL);
}

static void
test_list (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_masters_t *m = hearth_masters_parse (
        "tcp://m1:7077, tcp://10.0.0.2:7078 ,tcp://[::1]:9", &err);
    assert_non_null (m);
    assert_int_equal (hearth_masters_count (m), 3);
    assert_string_equal (hearth_masters_url (m, 1), "tcp://10.0.0.2:7078");
    assert_string_equal (hearth_masters_text (m),
                         "tcp://m1:7077, tcp://10.0.0.2:7078, tcp://[::1]:9");
    assert_string_equal (hearth_masters_current (m), "tcp://m1:7077");
    assert_string_equal (hearth_masters_next (m), "tcp://10.0.0.2:7078");
    assert_string_equal (hearth_masters_next (m), "tcp://[::1]:9");
    assert_string_equal (hearth_masters_next (m), "tcp://m1:7077");
    hearth_masters_destroy (&m);
    /* Spark's spark://h1:7077,h2:7077: the first element's tcp:// for the
       others that have no scheme */
    m = hearth_masters_parse ("tcp://m1:7077,m2:7077, 10.0.0.3:7077", &err);
    assert_non_null (m);
    assert_int_equal (hearth_masters_count (m), 3);
    assert_string_equal (hearth_masters_text (m),
                         "tcp://m1:7077, tcp://m2:7077, tcp://10.0.0.3:7077");
    hearth_masters_destroy (&m);
}

/* Each bad list, and what its error must name. */
static void
test_bad (void **state)
{
    (void) state;
    static const struct {
        const char *list; /* given */
        const char *says; /* in the error */
    } cases[] = {
        {"", "an empty URL"},
        {"   ", "an empty URL"},
        {"tcp://a:1,", "element 2 of the list: an empty URL"},
        {"tcp://a:1,,tcp://b:2", "element 2 of the list: an empty URL"},
        {"tcp://a:1,http://b:2",
         "element 2 of the list: 'http://b:2' is not a tcp://"},
        {"tcp://a:1,tcp://b", "element 2 of the list: 'tcp://b': missing port"},
        {"tcp://a:99999", "bad port '99999'"},
        {"tcp://a:1,tcp://:2", "missing host"},
        {"tcp://a:1,tcp://a:1", "element 2 of the list: 'tcp://a:1' is "
                                "element 1 already"},
        {"local[2]", "'local[2]' is not a tcp://"},
        {"tcp://a:1,local[*]", "element 2 of the list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hearth_error_t err;
        assert_null (hearth_masters_parse (cases[i].list, &err));
        assert_contains (err.text, cases[i].says);
        assert_int_equal (hearth_masters_check (cases[i].list, &err), -1);
    }
    hearth_error_t err;
    assert_null (hearth_masters_parse (NULL, &err));
    /* a single bad URL is not called an element of a list */
    assert_null (hearth_masters_parse ("tcp://a", &err));
    assert_null (strstr (err.text, "element"));
}

static void
test_too_many (void **state)
{
    (void) state;
    char list[2048] = "";
    size_t used = 0;
    for (int i = 0; i < HEARTH_MASTERS_MAX; i++)
        used += (size_t) snprintf (list + used, sizeof list - used,
                                   "%stcp://m%d:7077", i ? "," : "", i);
    hearth_error_t err;
    assert_int_equal (hearth_masters_check (list, &err), 0);
    snprintf (list + used, sizeof list - used, ",tcp://one-more:1");
    assert_int_equal (hearth_masters_check (list, &err), -1);
    assert_contains (err.text, "at most 16");
    /* one URL over the length */
    char url[HEARTH_MASTER_URL_MAX + 40];
    memset (url, 'a', sizeof url - 1);
    url[sizeof url - 1] = '\0';
    memcpy (url, "tcp://", 6);
    assert_int_equal (hearth_masters_check (url, &err), -1);
    assert_contains (err.text, "longer than");
}

static void
test_follow (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_masters_t *m =
        hearth_masters_parse ("tcp://a:1,tcp://b:2,tcp://c:3", &err);
    assert_non_null (m);
    /* a leader in the list: its place */
    assert_int_equal (hearth_masters_follow (m, "tcp://c:3", &err), 0);
    assert_string_equal (hearth_masters_current (m), "tcp://c:3");
    assert_string_equal (hearth_masters_next (m), "tcp://a:1");
    /* a leader outside the list: ignored (whoever writes ZooKeeper's
       nodes or plays a standby must not send clients anywhere), said,
       nothing moves */
    errno = 0;
    assert_int_equal (hearth_masters_follow (m, "tcp://z:9", &err), -1);
    assert_int_equal (errno, EACCES);
    assert_contains (err.text, "tcp://z:9, which is not one of the masters "
                               "given (tcp://a:1, tcp://b:2, tcp://c:3)");
    assert_string_equal (hearth_masters_current (m), "tcp://a:1");
    assert_false (hearth_masters_has (m, "tcp://z:9"));
    assert_false (hearth_masters_has (m, NULL));
    assert_true (hearth_masters_has (m, "tcp://c:3"));
    /* spelled otherwise, it is another URL */
    assert_int_equal (hearth_masters_follow (m, "tcp://B:2", &err), -1);
    assert_string_equal (hearth_masters_next (m), "tcp://b:2");
    /* not a URL, none, or the standby itself: refused, nothing moves */
    assert_int_equal (hearth_masters_follow (m, "z:9", &err), -1);
    assert_int_equal (hearth_masters_follow (m, NULL, &err), -1);
    assert_int_equal (hearth_masters_follow (m, "tcp://b:2", &err), -1);
    assert_contains (err.text, "names itself");
    assert_string_equal (hearth_masters_current (m), "tcp://b:2");
    hearth_masters_destroy (&m);
}

static void
test_fence (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_masters_t *m = hearth_masters_parse ("tcp://a:1", &err);
    uint64_t seen = 99;
    assert_int_equal (hearth_masters_epoch (m), 0);
    assert_true (hearth_masters_fence (m, 0, &seen));
    assert_int_equal (seen, 0);
    assert_true (hearth_masters_fence (m, 5, NULL));
    assert_int_equal (hearth_masters_epoch (m), 5);
    assert_true (hearth_masters_fence (m, 5, NULL));
    assert_false (hearth_masters_fence (m, 4, &seen));
    assert_int_equal (seen, 5);
    /* no epoch: a master without --zookeeper, always kept */
    assert_true (hearth_masters_fence (m, 0, NULL));
    assert_true (hearth_masters_fence (m, 7, NULL));
    assert_false (hearth_masters_fence (m, 5, NULL));
    assert_int_equal (hearth_masters_epoch (m), 7);
    /* a switch keeps the epoch */
    hearth_masters_next (m);
    assert_int_equal (hearth_masters_epoch (m), 7);
    hearth_masters_destroy (&m);
}

/* What the clients' links share: a standby's answer and the fencing of
   a whole message (the lines they log are log.h's). */
static void
test_links (void **state)
{
    (void) state;
    hearth_error_t err;
    hearth_masters_t *m = hearth_masters_parse ("tcp://a:1,tcp://b:2", &err);
    hearth_loglimit_t *limit = hearth_loglimit_new (60000, 8);
    cJSON *body = cJSON_Parse ("{\"code\":\"standby\",\"message\":\"x\","
                               "\"leader\":\"tcp://b:2\"}");
    assert_true (hearth_masters_standby (m, body, limit, 0));
    assert_string_equal (hearth_masters_current (m), "tcp://b:2");
    /* a leader outside the list is not followed: the next URL is */
    cJSON_ReplaceItemInObject (body, "leader",
                               cJSON_CreateString ("tcp://z:9"));
    assert_false (hearth_masters_standby (m, body, limit, 1));
    assert_string_equal (hearth_masters_current (m), "tcp://a:1");
    cJSON_DeleteItemFromObject (body, "leader");
    assert_false (hearth_masters_standby (m, body, limit, 1));
    assert_string_equal (hearth_masters_current (m), "tcp://b:2");
    hearth_masters_move_on (m, "is silent");
    assert_string_equal (hearth_masters_current (m), "tcp://a:1");
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    assert_true (hearth_masters_admit (m, msg, limit, 2));
    hearth_msg_set_epoch (msg, 9);
    assert_true (hearth_masters_admit (m, msg, limit, 3));
    hearth_msg_set_epoch (msg, 8);
    assert_false (hearth_masters_admit (m, msg, limit, 4));
    assert_int_equal (hearth_masters_epoch (m), 9);
    hearth_msg_destroy (&msg);
    cJSON_Delete (body);
    hearth_loglimit_destroy (&limit);
    hearth_masters_destroy (&m);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_one),    cmocka_unit_test (test_list),
        cmocka_unit_test (test_bad),    cmocka_unit_test (test_too_many),
        cmocka_unit_test (test_follow), cmocka_unit_test (test_fence),
        cmocka_unit_test (test_links),
    };
    return cmocka_run_group_tests_name ("masters", tests, NULL, NULL);
}

/*  test_ids.c - unit tests of id formats and validation (libcore/ids.c).

    Ids name directories (WORK_DIR/APP_ID/...), so besides the formats this
    checks that nothing that could escape a directory is ever valid, and
    that every id the formatters make is one the validator accepts.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/ids.h"
#include "tests/unit/testutil.h"

/* 2026-11-29 20:14:35 UTC */
static const time_t s_when = 1795983275;

static void
test_format_app_driver (void **state)
{
    (void) state;
    char buf[HEARTH_ID_MAX + 1];
    assert_string_equal (
        hearth_id_format (buf, sizeof buf, HEARTH_ID_APP, s_when, 1),
        "app-20261129201435-0001");
    assert_string_equal (
        hearth_id_format (buf, sizeof buf, HEARTH_ID_DRIVER, s_when, 42),
        "driver-20261129201435-0042");
    assert_string_equal (
        hearth_id_format (buf, sizeof buf, HEARTH_ID_APP, 0, 0),
        "app-19700101000000-0000");
    /* the counter widens past four digits and the id stays valid */
    hearth_id_format (buf, sizeof buf, HEARTH_ID_APP, s_when, 4294967295u);
    assert_string_equal (buf, "app-20261129201435-4294967295");
    assert_true (hearth_id_valid (HEARTH_ID_APP, buf));
}

static void
test_ids_sort_by_time (void **state)
{
    (void) state;
    char a[HEARTH_ID_MAX + 1], b[HEARTH_ID_MAX + 1];
    hearth_id_format (a, sizeof a, HEARTH_ID_APP, s_when, 9);
    hearth_id_format (b, sizeof b, HEARTH_ID_APP, s_when + 1, 0);
    assert_true (strcmp (a, b) < 0);
    hearth_id_format (a, sizeof a, HEARTH_ID_APP, s_when, 9);
    hearth_id_format (b, sizeof b, HEARTH_ID_APP, s_when, 10);
    assert_true (strcmp (a, b) < 0);
}

static void
test_format_worker (void **state)
{
    (void) state;
    char buf[HEARTH_ID_MAX + 1];
    assert_string_equal (hearth_worker_id_format (buf, sizeof buf, s_when,
                                                  "node1.example.com", 4242),
                         "worker-20261129201435-node1.example.com-4242");
    assert_string_equal (
        hearth_worker_id_format (buf, sizeof buf, s_when, "my_host:7", 1),
        "worker-20261129201435-my-host-7-1");
    assert_string_equal (
        hearth_worker_id_format (buf, sizeof buf, s_when, "", 1),
        "worker-20261129201435-host-1");
    assert_string_equal (
        hearth_worker_id_format (buf, sizeof buf, s_when, NULL, 1),
        "worker-20261129201435-host-1");
    assert_string_equal (
        hearth_worker_id_format (buf, sizeof buf, s_when, ".hidden", 1),
        "worker-20261129201435-host-1");
}

/* Whatever the host name, a worker makes an id it can register with. */
static void
test_worker_ids_always_valid (void **state)
{
    (void) state;
    char long_host[300];
    memset (long_host, 'a', sizeof long_host - 1);
    long_host[sizeof long_host - 1] = '\0';
    static const char *const hosts[] = {
        "node1",
        "node1.",
        "a..b",
        "../../etc",
        "/",
        "a/../b",
        "x.y..z...w",
        "-leading",
        "..",
        "host name with spaces",
        "\xc3\xa9t\xc3\xa9",
    };
    char buf[HEARTH_ID_MAX + 1];
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
        hearth_worker_id_format (buf, sizeof buf, s_when, hosts[i], 31337);
        if (!hearth_id_valid (HEARTH_ID_WORKER, buf))
            fail_msg ("host '%s' gives the invalid worker id '%s'", hosts[i],
                      buf);
        assert_null (strchr (buf, '/'));
        assert_null (strstr (buf, ".."));
    }
    hearth_worker_id_format (buf, sizeof buf, s_when, long_host, 2147483647);
    assert_true (hearth_id_valid (HEARTH_ID_WORKER, buf));
    assert_true (strlen (buf) <= HEARTH_ID_MAX);
}

static void
test_valid (void **state)
{
    (void) state;
    assert_true (hearth_id_valid (HEARTH_ID_APP, "app-20261129201435-0001"));
    assert_true (
        hearth_id_valid (HEARTH_ID_APP, "app-20261129201435-0123456789"));
    assert_true (
        hearth_id_valid (HEARTH_ID_DRIVER, "driver-20261129201435-0001"));
    assert_true (hearth_id_valid (HEARTH_ID_WORKER,
                                  "worker-20261129201435-node1.example-com-1"));
    assert_true (hearth_id_valid (HEARTH_ID_WORKER,
                                  "worker-20261129201435-10.0.0.5-65535"));
}

/* Operators name their nodes (Slurm's NodeName, a host name): any id of
   the safe characters is a worker id (issue 13, defect 8), the
   worker-TIME-HOST-PID form being only the default. */
static void
test_free_form_worker_ids (void **state)
{
    (void) state;
    static const char *const good[] = {
        "node-a",
        "node_a",
        "NODE.A",
        "n1",
        "x",
        "9",
        "rack1.node-07_b",
        "worker-20261129201435-host", /* the old form's parts, any shape */
        "worker-20261129201435-ho_st-1",
        "app-node", /* not an app id: no stamp and counter */
        "driver-7",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (!hearth_id_valid (HEARTH_ID_WORKER, good[i]))
            fail_msg ("'%s' refused as a worker id", good[i]);
    /* A worker id never reads as an application's or a driver's: a
       HEARTBEAT's id says which of them sent it. */
    assert_false (
        hearth_id_valid (HEARTH_ID_WORKER, "app-20261129201435-0001"));
    assert_false (
        hearth_id_valid (HEARTH_ID_WORKER, "driver-20261129201435-0001"));
    /* The protocol's length limit. */
    char id[HEARTH_ID_MAX + 2];
    memset (id, 'n', HEARTH_ID_MAX);
    id[HEARTH_ID_MAX] = '\0';
    assert_true (hearth_id_valid (HEARTH_ID_WORKER, id));
    id[HEARTH_ID_MAX] = 'n';
    id[HEARTH_ID_MAX + 1] = '\0';
    assert_false (hearth_id_valid (HEARTH_ID_WORKER, id));
    /* The rule is one sentence a user can read. */
    assert_non_null (strstr (HEARTH_WORKER_ID_RULE, "letters, digits"));
}

static void
test_wrong_shape (void **state)
{
    (void) state;
    static const struct {
        hearth_id_kind_t kind;
        const char *id;
    } bad[] = {
        {HEARTH_ID_APP, "driver-20261129201435-0001"},     /* other kind */
        {HEARTH_ID_DRIVER, "app-20261129201435-0001"},     /* other kind */
        {HEARTH_ID_WORKER, "app-20261129201435-0001"},     /* other kind */
        {HEARTH_ID_APP, "app-"},                           /* no stamp */
        {HEARTH_ID_APP, "app-20261129201435"},             /* no counter */
        {HEARTH_ID_APP, "app-20261129201435-"},            /* empty counter */
        {HEARTH_ID_APP, "app-2026112920143-0001"},         /* short stamp */
        {HEARTH_ID_APP, "app-2026112920143x-0001"},        /* not digits */
        {HEARTH_ID_APP, "app-20261129201435_0001"},        /* separator */
        {HEARTH_ID_APP, "app-20261129201435-001"},         /* short counter */
        {HEARTH_ID_APP, "app-20261129201435-01234567890"}, /* long counter */
        {HEARTH_ID_APP, "app-20261129201435-00a1"},        /* not digits */
        {HEARTH_ID_APP, "APP-20261129201435-0001"},        /* case */
        {HEARTH_ID_APP, "app-20261129201435-0001 "},       /* space */
        {HEARTH_ID_APP, "app-20261129201435-0001\n"},      /* newline */
        {HEARTH_ID_WORKER, "driver-20261129201435-0042"},  /* other kind */
        {HEARTH_ID_WORKER, "-node-a"},                     /* leading - */
        {HEARTH_ID_WORKER, "node a"},                      /* space */
        {HEARTH_ID_WORKER, "node+a"},                      /* '+' */
        {HEARTH_ID_WORKER, "node:a"},                      /* ':' */
        {HEARTH_ID_WORKER, "n\xc3\xb6"
                           "de"}, /* not ASCII */
        {HEARTH_ID_WORKER, ""},
        {HEARTH_ID_WORKER, NULL},
        {HEARTH_ID_APP, ""},
        {HEARTH_ID_APP, NULL},
        {(hearth_id_kind_t) 7, "app-20261129201435-0001"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (hearth_id_valid (bad[i].kind, bad[i].id))
            fail_msg ("'%s' accepted as an id of kind %d", bad[i].id,
                      (int) bad[i].kind);
}

/* Anything that could leave the directory it names is refused. */
static void
test_path_escapes (void **state)
{
    (void) state;
    static const char *const apps[] = {
        "../app-20261129201435-0001",
        "app-20261129201435-0001/..",
        "app-20261129201435-0001/../../etc",
        "/app-20261129201435-0001",
        "app-20261129201435/0001",
        ".app-20261129201435-0001",
        "..",
        ".",
        "/",
    };
    for (size_t i = 0; i < sizeof apps / sizeof apps[0]; i++)
        if (hearth_id_valid (HEARTH_ID_APP, apps[i]))
            fail_msg ("'%s' accepted as an app id", apps[i]);
    static const char *const workers[] = {
        "worker-20261129201435-..-1",
        "worker-20261129201435-a..b-1",
        "worker-20261129201435-../../etc-1",
        "worker-20261129201435-a/b-1",
        ".worker-20261129201435-host-1",
        ".",
        "..",
        "a..b",
        ".node",
        "/",
        "node/a",
    };
    for (size_t i = 0; i < sizeof workers / sizeof workers[0]; i++)
        if (hearth_id_valid (HEARTH_ID_WORKER, workers[i]))
            fail_msg ("'%s' accepted as a worker id", workers[i]);
}

static void
test_too_long (void **state)
{
    (void) state;
    char id[HEARTH_ID_MAX + 2];
    const char *head = "worker-20261129201435-";
    size_t n = strlen (head);
    memcpy (id, head, n);
    /* exactly HEARTH_ID_MAX characters: host of 'h', then "-1" */
    memset (id + n, 'h', HEARTH_ID_MAX - n - 2);
    memcpy (id + HEARTH_ID_MAX - 2, "-1", 3);
    assert_int_equal (strlen (id), HEARTH_ID_MAX);
    assert_true (hearth_id_valid (HEARTH_ID_WORKER, id));
    /* one more */
    memmove (id + n + 1, id + n, HEARTH_ID_MAX - n + 1);
    assert_int_equal (strlen (id), HEARTH_ID_MAX + 1);
    assert_false (hearth_id_valid (HEARTH_ID_WORKER, id));
}

static void
test_name_safe (void **state)
{
    (void) state;
    static const char *const good[] = {"libpi.so", "pi.json", "a",
                                       "x-1_2+3",  "A.B.C",   "9"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true (hearth_name_safe (good[i]));
    static const char *const bad[] = {
        "",     ".",   "..",   ".hidden", "-rf",  "a/b",         "/etc",
        "../x", "a b", "a\\b", "a:b",     "a\nb", "caf\xc3\xa9", "*",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (hearth_name_safe (bad[i]))
            fail_msg ("'%s' accepted as a safe name", bad[i]);
    assert_false (hearth_name_safe (NULL));
    char name[257];
    memset (name, 'n', sizeof name - 1);
    name[255] = '\0';
    assert_true (hearth_name_safe (name));
    name[255] = 'n';
    name[256] = '\0';
    assert_false (hearth_name_safe (name));
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_format_app_driver),
        cmocka_unit_test (test_ids_sort_by_time),
        cmocka_unit_test (test_format_worker),
        cmocka_unit_test (test_worker_ids_always_valid),
        cmocka_unit_test (test_valid),
        cmocka_unit_test (test_free_form_worker_ids),
        cmocka_unit_test (test_wrong_shape),
        cmocka_unit_test (test_path_escapes),
        cmocka_unit_test (test_too_long),
        cmocka_unit_test (test_name_safe),
    };
    return cmocka_run_group_tests_name ("ids", tests, NULL, NULL);
}

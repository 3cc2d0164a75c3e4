/*  test_wnames.c - unit tests of workers' short names (libcore/wnames.c):
    a worker's host when it is the only one there, host-pid when it is
    not, the whole id when even that is shared; a name an operator chose
    shown as it is; no two known workers ever shown alike; resolving a
    short name back to its id. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/wnames.h"

#define W1 "worker-20261201093000-node1-4242"
#define W2 "worker-20261201093100-node2-17"
#define W3 "worker-20261201093200-node1-4343"
#define W4 "worker-20261201093300-node1-4242"

static void
test_host_when_unique (void **state)
{
    (void) state;
    hearth_wnames_t *n = hearth_wnames_new ();
    assert_non_null (n);
    assert_int_equal (hearth_wnames_add (n, W1), 1);
    assert_int_equal (hearth_wnames_add (n, W1), 0);
    assert_int_equal (hearth_wnames_add (n, W2), 1);
    assert_string_equal (hearth_wnames_short (n, W1), "node1");
    assert_string_equal (hearth_wnames_short (n, W2), "node2");
    /* an unknown id is shown as it is */
    assert_string_equal (hearth_wnames_short (n, "worker-x"), "worker-x");
    hearth_wnames_destroy (&n);
    assert_null (n);
    hearth_wnames_destroy (&n);
}

static void
test_longer_when_shared (void **state)
{
    (void) state;
    hearth_wnames_t *n = hearth_wnames_new ();
    hearth_wnames_add (n, W1);
    hearth_wnames_add (n, W2);
    hearth_wnames_add (n, W3); /* a second worker on node1 */
    assert_string_equal (hearth_wnames_short (n, W1), "node1-4242");
    assert_string_equal (hearth_wnames_short (n, W3), "node1-4343");
    assert_string_equal (hearth_wnames_short (n, W2), "node2");
    hearth_wnames_add (n, W4); /* node1 and pid 4242 again, later */
    assert_string_equal (hearth_wnames_short (n, W1), W1);
    assert_string_equal (hearth_wnames_short (n, W4), W4);
    assert_string_equal (hearth_wnames_short (n, W3), "node1-4343");
    hearth_wnames_destroy (&n);
}

static void
test_chosen_names (void **state)
{
    (void) state;
    hearth_wnames_t *n = hearth_wnames_new ();
    hearth_wnames_add (n, "node-a");
    assert_string_equal (hearth_wnames_short (n, "node-a"), "node-a");
    /* an id that is another worker's host: that worker shows host-pid */
    hearth_wnames_add (n, "node1");
    hearth_wnames_add (n, W1);
    assert_string_equal (hearth_wnames_short (n, "node1"), "node1");
    assert_string_equal (hearth_wnames_short (n, W1), "node1-4242");
    /* ... and one that is its host-pid: it shows in full */
    hearth_wnames_add (n, "node1-4242");
    assert_string_equal (hearth_wnames_short (n, W1), W1);
    /* not of the generated form: shown as they are */
    static const char *const odd[] = {"worker-2026-x-1", "worker-",
                                      "worker-"
                                      "20261201093000-h-",
                                      "worker-20261201093000--7"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        hearth_wnames_add (n, odd[i]);
        assert_string_equal (hearth_wnames_short (n, odd[i]), odd[i]);
    }
    hearth_wnames_destroy (&n);
}

/* Whatever the ids, no two workers are shown alike. */
static void
test_never_alike (void **state)
{
    (void) state;
    static const char *const ids[] = {W1,
                                      W2,
                                      W3,
                                      W4,
                                      "node1",
                                      "node1-4242",
                                      "node2-17",
                                      "a-1",
                                      "worker-20261201093000-a-1",
                                      "worker-20261201093000-a-2",
                                      "worker-20261201093000-a-1-5"};
    size_t n_ids = sizeof ids / sizeof ids[0];
    hearth_wnames_t *n = hearth_wnames_new ();
    for (size_t k = 0; k < n_ids; k++) {
        hearth_wnames_add (n, ids[k]);
        for (size_t i = 0; i <= k; i++)
            for (size_t j = 0; j < i; j++)
                if (strcmp (hearth_wnames_short (n, ids[i]),
                            hearth_wnames_short (n, ids[j]))
                    == 0)
                    fail_msg ("%s and %s both shown as %s", ids[i], ids[j],
                              hearth_wnames_short (n, ids[i]));
        for (size_t i = 0; i <= k; i++)
            assert_string_equal (
                hearth_wnames_resolve (n, hearth_wnames_short (n, ids[i])),
                ids[i]);
    }
    hearth_wnames_destroy (&n);
}

static void
test_resolve (void **state)
{
    (void) state;
    hearth_wnames_t *n = hearth_wnames_new ();
    hearth_wnames_add (n, W1);
    hearth_wnames_add (n, W2);
    assert_string_equal (hearth_wnames_resolve (n, "node1"), W1);
    assert_string_equal (hearth_wnames_resolve (n, W2), W2);
    assert_null (hearth_wnames_resolve (n, "node3"));
    hearth_wnames_add (n, W3);
    /* node1 no longer names one worker */
    assert_null (hearth_wnames_resolve (n, "node1"));
    assert_string_equal (hearth_wnames_resolve (n, "node1-4343"), W3);
    hearth_wnames_destroy (&n);
}

/* Many workers: names stay short where they can. */
static void
test_many (void **state)
{
    (void) state;
    hearth_wnames_t *n = hearth_wnames_new ();
    char id[128], want[64];
    for (int i = 0; i < 5000; i++) {
        snprintf (id, sizeof id, "worker-20261201093000-node%d-%d", i, 100 + i);
        assert_int_equal (hearth_wnames_add (n, id), 1);
    }
    for (int i = 0; i < 5000; i += 499) {
        snprintf (id, sizeof id, "worker-20261201093000-node%d-%d", i, 100 + i);
        snprintf (want, sizeof want, "node%d", i);
        assert_string_equal (hearth_wnames_short (n, id), want);
    }
    hearth_wnames_destroy (&n);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_host_when_unique),
        cmocka_unit_test (test_longer_when_shared),
        cmocka_unit_test (test_chosen_names),
        cmocka_unit_test (test_never_alike),
        cmocka_unit_test (test_resolve),
        cmocka_unit_test (test_many),
    };
    return cmocka_run_group_tests_name ("wnames", tests, NULL, NULL);
}

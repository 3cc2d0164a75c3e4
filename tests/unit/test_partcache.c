/*  test_partcache.c - reduce inputs kept in an executor's memory
    (executor/partcache.c): a kept input is found by its whole key only,
    the least recently used one not in use goes first when the budget is
    short, one in use never goes, one that cannot fit is not taken, a
    newer input of a partition replaces the older, and a lowered budget
    evicts. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "executor/partcache.h"

static partcache_key_t
s_key (uint32_t partition, uint64_t digest)
{
    return (partcache_key_t){
        .shuffle = 7, .partition = partition, .digest = digest};
}

/* Keep n bytes of byte c under key (in use, then released): whether
   kept. */
static bool
s_put (partcache_t *pc, partcache_key_t key, size_t n, char c)
{
    char *data = malloc (n);
    assert_non_null (data);
    memset (data, c, n);
    bool kept = partcache_put (pc, &key, data, n);
    if (kept)
        partcache_release (pc, &key);
    else
        free (data);
    return kept;
}

static bool
s_has (partcache_t *pc, partcache_key_t key, char c)
{
    const void *data;
    size_t len;
    if (!partcache_get (pc, &key, &data, &len))
        return false;
    bool same = len && ((const char *) data)[0] == c;
    partcache_release (pc, &key);
    return same;
}

static void
test_found_by_whole_key (void **state)
{
    (void) state;
    partcache_t *pc = partcache_new (1000);
    assert_true (s_put (pc, s_key (1, 11), 100, 'a'));
    assert_true (s_has (pc, s_key (1, 11), 'a'));
    assert_false (s_has (pc, s_key (1, 12), 'a')); /* other outputs */
    assert_false (s_has (pc, s_key (2, 11), 'a')); /* other partition */
    partcache_key_t other = {.shuffle = 8, .partition = 1, .digest = 11};
    assert_false (s_has (pc, other, 'a'));
    size_t count;
    assert_int_equal (partcache_bytes (pc, &count), 100);
    assert_int_equal (count, 1);
    partcache_destroy (&pc);
    assert_null (pc);
}

static void
test_least_recently_used_goes (void **state)
{
    (void) state;
    partcache_t *pc = partcache_new (300);
    assert_true (s_put (pc, s_key (1, 1), 100, 'a'));
    assert_true (s_put (pc, s_key (2, 1), 100, 'b'));
    assert_true (s_put (pc, s_key (3, 1), 100, 'c'));
    assert_true (s_has (pc, s_key (1, 1), 'a')); /* 2 is now the oldest */
    assert_true (s_put (pc, s_key (4, 1), 100, 'd'));
    assert_false (s_has (pc, s_key (2, 1), 'b'));
    assert_true (s_has (pc, s_key (1, 1), 'a'));
    assert_true (s_has (pc, s_key (3, 1), 'c'));
    assert_true (s_has (pc, s_key (4, 1), 'd'));
    assert_int_equal (partcache_bytes (pc, NULL), 300);
    partcache_destroy (&pc);
}

static void
test_in_use_stays (void **state)
{
    (void) state;
    partcache_t *pc = partcache_new (200);
    assert_true (s_put (pc, s_key (1, 1), 100, 'a'));
    assert_true (s_put (pc, s_key (2, 1), 100, 'b'));
    const void *data;
    size_t len;
    partcache_key_t k1 = s_key (1, 1);
    assert_true (partcache_get (pc, &k1, &data, &len)); /* 1 in use */
    assert_true (s_put (pc, s_key (3, 1), 100, 'c'));   /* 2 goes */
    assert_false (s_has (pc, s_key (2, 1), 'b'));
    /* 1 in use and 3 fill it: a fourth cannot fit without evicting 3 */
    assert_true (s_put (pc, s_key (4, 1), 100, 'd'));
    assert_false (s_has (pc, s_key (3, 1), 'c'));
    assert_int_equal (((const char *) data)[0], 'a');
    assert_false (s_put (pc, s_key (5, 1), 250, 'e')); /* never fits */
    partcache_release (pc, &k1);
    partcache_destroy (&pc);
}

static void
test_newer_replaces_older (void **state)
{
    (void) state;
    partcache_t *pc = partcache_new (1000);
    assert_true (s_put (pc, s_key (1, 1), 100, 'a'));
    assert_true (s_put (pc, s_key (1, 2), 100, 'b')); /* outputs remade */
    assert_false (s_has (pc, s_key (1, 1), 'a'));
    assert_true (s_has (pc, s_key (1, 2), 'b'));
    assert_int_equal (partcache_bytes (pc, NULL), 100);
    partcache_destroy (&pc);
}

static void
test_budget (void **state)
{
    (void) state;
    partcache_t *pc = partcache_new (0);
    assert_false (s_put (pc, s_key (1, 1), 1, 'a')); /* keeps nothing */
    partcache_set_budget (pc, 300);
    assert_true (s_put (pc, s_key (1, 1), 100, 'a'));
    assert_true (s_put (pc, s_key (2, 1), 100, 'b'));
    partcache_set_budget (pc, 150); /* the oldest goes */
    assert_false (s_has (pc, s_key (1, 1), 'a'));
    assert_true (s_has (pc, s_key (2, 1), 'b'));
    partcache_destroy (&pc);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_found_by_whole_key),
        cmocka_unit_test (test_least_recently_used_goes),
        cmocka_unit_test (test_in_use_stays),
        cmocka_unit_test (test_newer_replaces_older),
        cmocka_unit_test (test_budget),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

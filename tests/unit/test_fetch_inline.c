/*  test_fetch_inline.c - a reduce task's blocks that came in its launch
    message (executor/fetch.c, the reduce role's "inline" frame): written
    into its blocks file, consecutive ones read as one block where that
    cannot change the stream (unsorted, the one before ending a record),
    each its own block otherwise; empty blocks give nothing to open
    (libcore/blockmerge.c). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "executor/fetch.h"
#include "libcore/blockmerge.h"
#include "libcore/fstree.h"
#include "libcore/partfmt.h"
#include "tests/unit/testutil.h"

static char s_dir[256];

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_dir, sizeof s_dir, "/tmp/test_fetch_inline.XXXXXX");
    hearth_test_tmpdir (s_dir);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    hearth_rm_tree (s_dir);
    return 0;
}

/* The stored blocks of texts[0..n), one after the other in one buffer
   (as the driver's frame holds them), into blocks[i] (data, length). */
static unsigned char *
s_blocks (const char *const *texts, size_t n, fetch_block_t *blocks)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += hearth_frames_size (strlen (texts[i]));
    unsigned char *buf = malloc (total ? total : 1), *p = buf;
    assert_non_null (buf);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen (texts[i]);
        blocks[i] = (fetch_block_t){.url = "tcp://127.0.0.1:1",
                                    .map = (uint32_t) i,
                                    .length = hearth_frames_size (len),
                                    .data = len ? p : NULL};
        hearth_frames_encode (texts[i], len, p);
        p += blocks[i].length;
    }
    return buf;
}

/* The stream over refs, concatenated into out; the rc of its end. */
static int
s_read (const hearth_block_ref_t *refs, size_t n, bool sorted, char *out,
        size_t size, hearth_error_t *err)
{
    hearth_blockmerge_t *m =
        hearth_blockmerge_new (refs, n, sorted, 0, s_dir, err);
    assert_non_null (m);
    const char *rec;
    size_t len, at = 0;
    int rc;
    while ((rc = hearth_blockmerge_next (m, &rec, &len, err)) == 1) {
        assert_true (at + len < size);
        memcpy (out + at, rec, len);
        at += len;
    }
    out[at] = '\0';
    hearth_blockmerge_destroy (&m);
    return rc;
}

/* The references fetch_blocks gives blocks[0..n) (all inline: nothing
   is fetched), checked to succeed. */
static hearth_block_ref_t *
s_fetch (const fetch_block_t *blocks, size_t n, bool sorted)
{
    fetch_opts_t o = {.app_id = "app", .dir = s_dir, .sorted = sorted};
    hearth_block_ref_t *refs;
    fetch_failure_t f;
    hearth_error_t err;
    assert_int_equal (fetch_blocks (&o, blocks, n, &refs, &f, &err), 0);
    return refs;
}

static size_t
s_nonempty (const hearth_block_ref_t *refs, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (refs[i].length) {
            assert_non_null (refs[i].path);
            k++;
        }
        else
            assert_null (refs[i].path);
    return k;
}

/* Unsorted blocks ending their records, an empty one among them: one
   block to read, the records in map order. */
static void
test_joined (void **state)
{
    (void) state;
    const char *texts[] = {"a 1\n", "b 2\nb 3\n", "", "c 4\n"};
    fetch_block_t blocks[4];
    unsigned char *buf = s_blocks (texts, 4, blocks);
    hearth_block_ref_t *refs = s_fetch (blocks, 4, false);
    hearth_error_t err;
    assert_int_equal (s_nonempty (refs, 4), 1);
    assert_int_equal (refs[0].length,
                      blocks[0].length + blocks[1].length + blocks[3].length);
    char out[256];
    assert_int_equal (s_read (refs, 4, false, out, sizeof out, &err), 0);
    assert_string_equal (out, "a 1\nb 2\nb 3\nc 4\n");
    fetch_refs_free (refs, 4);
    free (buf);
}

/* A block whose last record has no '\n' is not joined to the next: read
   alone, it is still the error it was. */
static void
test_not_ending_a_record (void **state)
{
    (void) state;
    const char *texts[] = {"a 1\n", "b 2", "c 3\n"};
    fetch_block_t blocks[3];
    unsigned char *buf = s_blocks (texts, 3, blocks);
    hearth_block_ref_t *refs = s_fetch (blocks, 3, false);
    hearth_error_t err;
    assert_int_equal (s_nonempty (refs, 3), 2);
    assert_int_equal (refs[0].length, blocks[0].length + blocks[1].length);
    assert_int_equal (refs[2].length, blocks[2].length);
    char out[256];
    assert_int_equal (s_read (refs, 3, false, out, sizeof out, &err), -1);
    assert_string_equal (err.code, "bad_frame");
    fetch_refs_free (refs, 3);
    free (buf);
}

/* Sorted, each block stays a run of its own: merged by key. */
static void
test_sorted_apart (void **state)
{
    (void) state;
    const char *texts[] = {"a\t1\nc\t3\n", "b\t2\nd\t4\n"};
    fetch_block_t blocks[2];
    unsigned char *buf = s_blocks (texts, 2, blocks);
    hearth_block_ref_t *refs = s_fetch (blocks, 2, true);
    hearth_error_t err;
    assert_int_equal (s_nonempty (refs, 2), 2);
    char out[256];
    assert_int_equal (s_read (refs, 2, true, out, sizeof out, &err), 0);
    assert_string_equal (out, "a\t1\nb\t2\nc\t3\nd\t4\n");
    fetch_refs_free (refs, 2);
    free (buf);
}

/* Blocks apart in memory (two writes) still lie one after the other in
   the file: joined, read in order. */
static void
test_apart_in_memory (void **state)
{
    (void) state;
    const char *one[] = {"x 1\n"}, *two[] = {"y 2\n"};
    fetch_block_t blocks[2];
    unsigned char *b1 = s_blocks (one, 1, &blocks[0]);
    unsigned char *b2 = s_blocks (two, 1, &blocks[1]);
    blocks[1].map = 1;
    hearth_block_ref_t *refs = s_fetch (blocks, 2, false);
    hearth_error_t err;
    assert_int_equal (s_nonempty (refs, 2), 1);
    char out[256];
    assert_int_equal (s_read (refs, 2, false, out, sizeof out, &err), 0);
    assert_string_equal (out, "x 1\ny 2\n");
    fetch_refs_free (refs, 2);
    free (b1);
    free (b2);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_joined, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_not_ending_a_record, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_sorted_apart, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_apart_in_memory, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_reducein.c - a reduce task's input (executor/reducein.c) over map
    outputs of this node: the blocks frame read, the stream handed on in
    pieces of whole records (one longer record alone), a function's input
    gathered up to its limit, kept in memory for the next reader when its
    role says "cache", and a damaged block of this node as a fetch
    failure naming its map output; the attempt's directory removed; blocks
    the driver kept read where they lie. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "executor/partcache.h"
#include "executor/reducein.h"
#include "libcore/fstree.h"
#include "libcore/partwriter.h"
#include "libcore/proto.h"
#include "libcore/records.h"
#include "libcore/sock.h"
#include "tests/unit/testutil.h"

#define APP "app-20261129201435-0001"
#define R 2

static char s_dir[256];       /* the test's directory */
static char *s_in[2];         /* the two map tasks' outputs */
static uint64_t s_len[2][R];  /* their blocks' stored lengths */
static executor_t s_ex;       /* the settings reducein reads */
static shared_frames_t s_sf;  /* the blocks frame */
static zframe_t *s_frames[1]; /* its frame */

/* Map output M of shuffle 5 on "this node", from text. */
static void
s_write_map (int m, const char *text)
{
    char dir[400], path[420];
    snprintf (dir, sizeof dir, "%s/sh/%s/5", s_dir, APP);
    hearth_error_t err;
    assert_int_equal (hearth_mkdir_p (dir, 0755, &err), 0);
    snprintf (path, sizeof path, "%s/%d.0", dir, m);
    hearth_partwriter_opts_t o = {.path = path, .partitions = R};
    hearth_partwriter_t *w = hearth_partwriter_new (&o, &err);
    assert_non_null (w);
    assert_int_equal (hearth_partwriter_write (w, text, strlen (text), &err),
                      0);
    assert_int_equal (hearth_partwriter_finish (w, &err), 0);
    for (int p = 0; p < R; p++)
        s_len[m][p] = hearth_partwriter_parts (w)[p].length;
    hearth_partwriter_destroy (&w);
}

/* The records of text in partition p, in order. */
static void
s_expect (const char *text, uint32_t p, char *out, size_t *len)
{
    for (const char *l = text; *l;) {
        const char *nl = strchr (l, '\n');
        size_t n = (size_t) (nl - l);
        if (hearth_record_partition (l, n, R) == p) {
            memcpy (out + *len, l, n + 1);
            *len += n + 1;
        }
        l = nl + 1;
    }
}

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_dir, sizeof s_dir, "/tmp/test_reducein.XXXXXX");
    assert_non_null (mkdtemp (s_dir));
    size_t big = 100 * 1024; /* longer than a piece (64 KiB) */
    s_in[0] = calloc (1, big + 4096);
    s_in[1] = calloc (1, 4096);
    char *p = s_in[0];
    for (int i = 0; i < 50; i++)
        p += sprintf (p, "k%d\tmap0 %d\n", i % 7, i);
    p += sprintf (p, "long\t");
    memset (p, 'x', big);
    p += big;
    sprintf (p, "\nk1\tafter the long one\n");
    p = s_in[1];
    for (int i = 0; i < 50; i++)
        p += sprintf (p, "k%d\tmap1 %d\n", i % 5, i);
    s_write_map (0, s_in[0]);
    s_write_map (1, s_in[1]);
    char shuffle[300];
    snprintf (shuffle, sizeof shuffle, "%s/sh", s_dir);
    static char app[] = APP;
    s_ex = (executor_t){.app_id = app,
                        .work_dir = s_dir,
                        .shuffle_dir = strdup (shuffle),
                        .max_input_bytes = 1 << 20};
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    hearth_rm_tree (s_dir);
    free (s_in[0]);
    free (s_in[1]);
    free (s_ex.shuffle_dir);
    return 0;
}

/* The input of partition p: both blocks on this node, unserved; its
   role's "cache" as given. */
static reducein_t *
s_input_cached (uint32_t p, bool cache)
{
    unsigned char rec[2 * HEARTH_BLOCK_RECORD] = {0};
    for (int m = 0; m < 2; m++) {
        unsigned char *r = rec + m * HEARTH_BLOCK_RECORD;
        memset (r, 0xff, 4);
        for (int b = 0; b < 8; b++)
            r[8 + b] = (unsigned char) (s_len[m][p] >> (8 * b));
    }
    s_frames[0] = zframe_new (rec, sizeof rec);
    s_sf = (shared_frames_t){s_frames, 1, 1};
    char json[160];
    snprintf (json, sizeof json,
              "{\"shuffle\":5,\"partition\":%u,\"servers\":[],\"blocks\":0%s}",
              p, cache ? ",\"cache\":true" : "");
    cJSON *role = cJSON_Parse (json);
    reducein_t *in = reducein_from_json (role, &s_sf);
    cJSON_Delete (role);
    zframe_destroy (&s_frames[0]);
    assert_non_null (in);
    return in;
}

static reducein_t *
s_input (uint32_t p)
{
    return s_input_cached (p, false);
}

static bool
s_reduce_dir_gone (void)
{
    char path[400];
    snprintf (path, sizeof path, "%s/.reduce-%llu.0", s_dir,
              (unsigned long long) ((2ull << 32) + 1));
    struct stat st;
    return stat (path, &st) < 0;
}

static void
test_stream_in_pieces (void **state)
{
    (void) state;
    task_t t = {.tid = (2ull << 32) + 1};
    for (uint32_t p = 0; p < R; p++) {
        reducein_t *in = s_input (p);
        char *error = NULL;
        assert_int_equal (reducein_open (in, &s_ex, &t, false, &error), 0);
        char *want = malloc (300 * 1024), *got = malloc (300 * 1024);
        size_t want_len = 0, got_len = 0;
        s_expect (s_in[0], p, want, &want_len);
        s_expect (s_in[1], p, want, &want_len);
        const void *data;
        size_t len;
        int rc;
        while ((rc = reducein_next (in, &data, &len, &error)) == 1) {
            /* whole records; more than a piece only when one record is */
            assert_int_equal (((const char *) data)[len - 1], '\n');
            if (len > 64 * 1024)
                assert_null (memchr (data, '\n', len - 1));
            memcpy (got + got_len, data, len);
            got_len += len;
        }
        assert_int_equal (rc, 0);
        assert_int_equal (got_len, want_len);
        assert_memory_equal (got, want, want_len);
        reducein_close (in);
        assert_true (s_reduce_dir_gone ());
        reducein_destroy (&in);
        free (want);
        free (got);
    }
}

static void
test_gather_limit (void **state)
{
    (void) state;
    task_t t = {.tid = (2ull << 32) + 1};
    uint32_t p = hearth_record_partition ("long", 4, R);
    reducein_t *in = s_input (p);
    char *error = NULL;
    s_ex.max_input_bytes = 1000;
    assert_int_equal (reducein_open (in, &s_ex, &t, true, &error), -1);
    s_ex.max_input_bytes = 1 << 20;
    assert_non_null (error);
    assert_non_null (strstr (error, "over max-input-bytes (1000) of a "
                                    "function task"));
    assert_false (reducein_failure (in));
    free (error);
    reducein_destroy (&in);
    assert_true (s_reduce_dir_gone ());
}

/* Open partition p's input gathered (cache as given): 0 with a copy of
   it in *out (caller frees), or -1. */
static int
s_gather_once (uint32_t p, bool cache, char **out, size_t *out_len)
{
    task_t t = {.tid = (2ull << 32) + 1};
    reducein_t *in = s_input_cached (p, cache);
    char *error = NULL;
    int rc = reducein_open (in, &s_ex, &t, true, &error);
    const void *data;
    size_t len;
    if (rc == 0) {
        assert_true (reducein_gathered (in, &data, &len));
        *out = malloc (len + 1);
        memcpy (*out, data, len);
        *out_len = len;
    }
    free (error);
    reducein_destroy (&in);
    return rc;
}

/* A role with "cache": the gathered input is kept (partcache.h), and
   the next task reading the same blocks takes it from memory: with the
   map outputs moved away it still gets it, where a role without "cache"
   cannot read them; other partitions are not taken for it. */
static void
test_cache_hit (void **state)
{
    (void) state;
    s_ex.partcache = partcache_new (1 << 20);
    char *first, *again;
    size_t first_len, again_len;
    assert_int_equal (s_gather_once (0, true, &first, &first_len), 0);
    size_t count;
    assert_int_equal (partcache_bytes (s_ex.partcache, &count), first_len);
    assert_int_equal (count, 1);
    char dir[400], moved[420];
    snprintf (dir, sizeof dir, "%s/sh/%s/5", s_dir, APP);
    snprintf (moved, sizeof moved, "%s.away", dir);
    assert_int_equal (rename (dir, moved), 0);
    assert_int_equal (s_gather_once (0, true, &again, &again_len), 0);
    assert_int_equal (again_len, first_len);
    assert_memory_equal (again, first, first_len);
    free (again);
    assert_int_equal (s_gather_once (0, false, &again, &again_len), -1);
    assert_int_equal (s_gather_once (1, true, &again, &again_len), -1);
    assert_int_equal (rename (moved, dir), 0);
    free (first);
    partcache_destroy (&s_ex.partcache);
}

/* Read partition p's input as a stream (a command's; cache as given),
   checking its pieces are whole records: 0 with all of it in *out
   (caller frees), or -1. */
static int
s_stream_once (uint32_t p, bool cache, char **out, size_t *out_len)
{
    task_t t = {.tid = (2ull << 32) + 1};
    reducein_t *in = s_input_cached (p, cache);
    char *error = NULL;
    int rc = reducein_open (in, &s_ex, &t, false, &error);
    *out = malloc (300 * 1024);
    *out_len = 0;
    const void *data;
    size_t len;
    while (rc == 0 && (rc = reducein_next (in, &data, &len, &error)) == 1) {
        assert_int_equal (((const char *) data)[len - 1], '\n');
        memcpy (*out + *out_len, data, len);
        *out_len += len;
        rc = 0;
    }
    free (error);
    reducein_destroy (&in);
    if (rc < 0)
        free (*out);
    return rc;
}

/* A command's input (a stream) with "cache": kept as it is read when it
   is read to its end, and handed on from memory to the next reader, in
   whole records, the outputs moved away; the budget bounds it. */
static void
test_cache_stream (void **state)
{
    (void) state;
    uint32_t p = hearth_record_partition ("long", 4, R); /* a long record */
    s_ex.partcache = partcache_new (1 << 20);
    s_ex.cache_memory = 1 << 20;
    char *first, *again;
    size_t first_len, again_len;
    assert_int_equal (s_stream_once (p, true, &first, &first_len), 0);
    assert_int_equal (partcache_bytes (s_ex.partcache, NULL), first_len);
    char dir[400], moved[420];
    snprintf (dir, sizeof dir, "%s/sh/%s/5", s_dir, APP);
    snprintf (moved, sizeof moved, "%s.away", dir);
    assert_int_equal (rename (dir, moved), 0);
    assert_int_equal (s_stream_once (p, true, &again, &again_len), 0);
    assert_int_equal (again_len, first_len);
    assert_memory_equal (again, first, first_len);
    free (again);
    assert_int_equal (rename (moved, dir), 0);
    partcache_destroy (&s_ex.partcache);
    /* a budget below the input: nothing kept */
    s_ex.partcache = partcache_new (1000);
    s_ex.cache_memory = 1000;
    assert_int_equal (s_stream_once (p, true, &again, &again_len), 0);
    assert_int_equal (partcache_bytes (s_ex.partcache, NULL), 0);
    free (again);
    free (first);
    partcache_destroy (&s_ex.partcache);
    s_ex.cache_memory = 0;
}

static void
test_damaged_local_block (void **state)
{
    (void) state;
    task_t t = {.tid = (2ull << 32) + 1};
    char path[400];
    snprintf (path, sizeof path, "%s/sh/%s/5/1.0", s_dir, APP);
    FILE *f = fopen (path, "r+b");
    assert_non_null (f);
    fseek (f, 20, SEEK_SET); /* in partition 0's first frame */
    fputc ('#', f);
    fclose (f);
    assert_true (s_len[1][0] > 20);
    reducein_t *in = s_input (0);
    char *error = NULL;
    assert_int_equal (reducein_open (in, &s_ex, &t, false, &error), 0);
    const void *data;
    size_t len;
    int rc;
    while ((rc = reducein_next (in, &data, &len, &error)) == 1)
        ;
    assert_int_equal (rc, -1);
    assert_true (reducein_failure (in));
    assert_non_null (error);
    assert_non_null (strstr (error, "fetch failed: map output 5/1.0 on this "
                                    "node: "));
    cJSON *u = cJSON_CreateObject ();
    assert_int_equal (reducein_add_failure (in, u), 0);
    char *text = cJSON_PrintUnformatted (u);
    assert_string_equal (text, "{\"fetch_failed\":{\"shuffle\":5,\"map\":1,"
                               "\"attempt\":0}}");
    free (text);
    cJSON_Delete (u);
    free (error);
    reducein_destroy (&in);
    assert_true (s_reduce_dir_gone ());
}

/* An input whose blocks all came in the launch message (kept by the
   driver): texts[0..n) framed one after the other in the "inline" frame,
   damaged at byte damage of it when damage >= 0. */
static reducein_t *
s_inline_input (const char *const *texts, size_t n, long damage)
{
    unsigned char rec[8 * HEARTH_BLOCK_RECORD] = {0};
    size_t room = 0;
    for (size_t m = 0; m < n; m++)
        room += (size_t) hearth_frames_size (strlen (texts[m]));
    unsigned char *kept = malloc (room ? room : 1), *k = kept;
    assert_true (n <= 8 && kept);
    for (size_t m = 0; m < n; m++) {
        unsigned char *r = rec + m * HEARTH_BLOCK_RECORD;
        size_t len = strlen (texts[m]);
        uint64_t stored = len ? hearth_frames_size (len) : 0;
        for (int b = 0; b < 4; b++)
            r[b] = (unsigned char) (HEARTH_BLOCK_INLINE >> (8 * b));
        for (int b = 0; b < 8; b++)
            r[8 + b] = (unsigned char) (stored >> (8 * b));
        hearth_frames_encode (texts[m], len, k);
        k += stored;
    }
    if (damage >= 0)
        kept[damage] ^= 0x20;
    zframe_t *frames[2] = {zframe_new (rec, n * HEARTH_BLOCK_RECORD),
                           zframe_new (kept, (size_t) (k - kept))};
    free (kept);
    shared_frames_t sf = {frames, 2, 1};
    cJSON *role = cJSON_Parse ("{\"shuffle\":5,\"partition\":0,"
                               "\"servers\":[],\"blocks\":0,\"inline\":1}");
    reducein_t *in = reducein_from_json (role, &sf);
    cJSON_Delete (role);
    zframe_destroy (&frames[0]);
    /* the blocks point into the inline frame: it stays until the end */
    s_frames[0] = frames[1];
    assert_non_null (in);
    return in;
}

/* What an input gives in all (its rc in *rc, its error in *error). */
static char *
s_read_all (reducein_t *in, bool gather, int *rc, char **error)
{
    task_t t = {.tid = (2ull << 32) + 1};
    *error = NULL;
    char *got = calloc (1, 4096);
    size_t got_len = 0;
    *rc = reducein_open (in, &s_ex, &t, gather, error);
    const void *data;
    size_t len;
    if (*rc == 0 && gather && reducein_gathered (in, &data, &len)) {
        memcpy (got, data, len);
        return got;
    }
    while (*rc == 0 && (*rc = reducein_next (in, &data, &len, error)) == 1) {
        memcpy (got + got_len, data, len);
        got_len += len;
        *rc = 0;
    }
    return got;
}

/* Blocks the driver kept, all of them: read where they lie (no blocks
   file, no directory), streamed and gathered alike, each checked as a
   fetched block is (its frames, its last record whole). */
static void
test_all_inline (void **state)
{
    (void) state;
    const char *texts[] = {"a 1\n", "", "b 2\nb 3\n", "c 4\n"};
    for (int gather = 0; gather < 2; gather++) {
        reducein_t *in = s_inline_input (texts, 4, -1);
        int rc;
        char *error;
        char *got = s_read_all (in, gather, &rc, &error);
        assert_int_equal (rc, 0);
        assert_null (error);
        assert_string_equal (got, "a 1\nb 2\nb 3\nc 4\n");
        assert_true (s_reduce_dir_gone ()); /* none was made */
        free (got);
        reducein_destroy (&in);
        zframe_destroy (&s_frames[0]);
    }
    /* a damaged payload byte of the third block: its checksum */
    reducein_t *in = s_inline_input (texts, 4, 12 + 8 + 1);
    int rc;
    char *error;
    free (s_read_all (in, false, &rc, &error));
    assert_int_equal (rc, -1);
    assert_non_null (error);
    assert_non_null (strstr (error, "map output 5/2.0"));
    assert_non_null (strstr (error, "checksum"));
    assert_false (reducein_failure (in)); /* not a fetch failure */
    free (error);
    reducein_destroy (&in);
    zframe_destroy (&s_frames[0]);
    /* a block whose last record has no newline */
    const char *cut[] = {"a 1\n", "b 2"};
    in = s_inline_input (cut, 2, -1);
    free (s_read_all (in, true, &rc, &error));
    assert_int_equal (rc, -1);
    assert_non_null (error);
    assert_non_null (strstr (error, "map output 5/1.0: the block ends inside "
                                    "a record"));
    free (error);
    reducein_destroy (&in);
    zframe_destroy (&s_frames[0]);
}

/* A kept block larger than a reader's piece (64 KiB): the protocol lets
   a driver keep blocks up to its inline_max of 1 MiB, and a reducer
   reading them where they lie reads it whole, streamed and gathered
   alike, and the small ones around it. */
static void
test_all_inline_large_block (void **state)
{
    (void) state;
    size_t big = 100 * 1024;
    char *text = malloc (big + 1);
    assert_non_null (text);
    memset (text, 'y', big);
    text[big - 1] = '\n';
    text[big] = '\0';
    const char *texts[] = {"a 1\n", text, "c 2\n"};
    for (int gather = 0; gather < 2; gather++) {
        reducein_t *in = s_inline_input (texts, 3, -1);
        task_t t = {.tid = (2ull << 32) + 1};
        char *error = NULL;
        int rc = reducein_open (in, &s_ex, &t, gather, &error);
        char *got = malloc (big + 64);
        size_t got_len = 0;
        const void *data;
        size_t len;
        if (rc == 0 && gather && reducein_gathered (in, &data, &len)) {
            memcpy (got, data, len);
            got_len = len;
        }
        while (rc == 0 && !gather
               && (rc = reducein_next (in, &data, &len, &error)) == 1) {
            assert_true (got_len + len <= big + 64);
            memcpy (got + got_len, data, len);
            got_len += len;
            rc = 0;
        }
        if (error)
            print_message ("%s\n", error);
        assert_null (error);
        assert_int_equal (rc, 0);
        assert_int_equal (got_len, big + 8);
        assert_memory_equal (got, "a 1\n", 4);
        assert_memory_equal (got + 4, text, big);
        assert_memory_equal (got + 4 + big, "c 2\n", 4);
        free (got);
        reducein_destroy (&in);
        zframe_destroy (&s_frames[0]);
    }
    free (text);
}

int
main (void)
{
    alarm (60);
    hearth_zsys_init ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_stream_in_pieces),
        cmocka_unit_test (test_gather_limit),
        cmocka_unit_test (test_cache_hit),
        cmocka_unit_test (test_cache_stream),
        cmocka_unit_test (test_damaged_local_block),
        cmocka_unit_test (test_all_inline),
        cmocka_unit_test (test_all_inline_large_block),
    };
    return cmocka_run_group_tests_name ("reducein", tests, s_setup, s_teardown);
}

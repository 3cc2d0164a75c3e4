/*  test_partition.c - the pieces of a partitioned shuffle: keys and
    their hash (records.h), frames and the index (partfmt.h), the merge of
    sorted streams (kmerge.h), the map side's writer with its spills
    (partwriter.h) and the reduce side's stream of blocks
    (blockmerge.h), each record checked against a plain reference: its
    partition, its place in the partition's order, and every byte. */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/blockmerge.h"
#include "libcore/crc32c.h"
#include "libcore/kmerge.h"
#include "libcore/partfmt.h"
#include "libcore/partwriter.h"
#include "libcore/records.h"

static char s_dir[256]; /* this run's scratch directory */

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_dir, sizeof s_dir, "/tmp/test_partition.XXXXXX");
    return mkdtemp (s_dir) ? 0 : -1;
}

static int
s_teardown (void **state)
{
    (void) state;
    char cmd[300];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", s_dir);
    return system (cmd) == 0 ? 0 : -1;
}

/* Files in the scratch directory. */
static int
s_files (void)
{
    DIR *d = opendir (s_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir (d));)
        n += e->d_name[0] != '.' || (e->d_name[1] && e->d_name[1] != '.');
    if (d)
        closedir (d);
    return n;
}

/* --- records ---------------------------------------------------------- */

static void
test_key_hash_vectors (void **state)
{
    (void) state;
    /* FNV-1a 64 test vectors (the FNV authors' list). */
    assert_true (hearth_key_hash ("", 0) == 0xcbf29ce484222325ull);
    assert_true (hearth_key_hash ("a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true (hearth_key_hash ("foobar", 6) == 0x85944171f73967e8ull);
    assert_int_equal (hearth_record_key_len ("word\t3", 6), 4);
    assert_int_equal (hearth_record_key_len ("word", 4), 4);
    assert_int_equal (hearth_record_key_len ("\tx", 2), 0);
    /* the key decides, not the value */
    assert_int_equal (hearth_record_partition ("k\t1", 3, 7),
                      hearth_record_partition ("k\t2", 3, 7));
    assert_int_equal (hearth_record_partition ("k", 1, 7),
                      hearth_key_hash ("k", 1) % 7);
    assert_true (hearth_record_key_cmp ("a\tz", 3, "b\ta", 3) < 0);
    assert_true (hearth_record_key_cmp ("ab", 2, "a\tzz", 4) > 0);
    assert_int_equal (hearth_record_key_cmp ("a\t1", 3, "a\t2", 3), 0);
    assert_true (hearth_record_key_cmp ("\xff", 1, "a", 1) > 0); /* bytewise */
}

/* --- frames and the index --------------------------------------------- */

typedef struct {
    char *buf;  /* payload received */
    size_t len; /* bytes */
} s_sink_t;

static int
s_sink (void *arg, const void *data, size_t len, hearth_error_t *err)
{
    (void) err;
    s_sink_t *s = arg;
    s->buf = realloc (s->buf, s->len + len);
    memcpy (s->buf + s->len, data, len);
    s->len += len;
    return 0;
}

/* Frame payload into a file; the stored bytes back in *stored. */
static size_t
s_frame (const char *payload, size_t len, char **stored)
{
    char path[300];
    snprintf (path, sizeof path, "%s/frames", s_dir);
    FILE *f = fopen (path, "w+");
    assert_non_null (f);
    hearth_framer_t fr;
    assert_int_equal (hearth_framer_init (&fr, fileno (f), NULL), 0);
    /* in odd pieces, as a command's output arrives */
    for (size_t i = 0; i < len;) {
        size_t n = 1 + (i * 7919) % 5000;
        n = n < len - i ? n : len - i;
        assert_int_equal (hearth_framer_write (&fr, payload + i, n, NULL), 0);
        i += n;
    }
    assert_int_equal (hearth_framer_flush (&fr, NULL), 0);
    size_t size = fr.written;
    hearth_framer_release (&fr);
    *stored = malloc (size);
    rewind (f);
    assert_int_equal (fread (*stored, 1, size, f), size);
    fclose (f);
    unlink (path);
    return size;
}

static void
test_frames_round_trip (void **state)
{
    (void) state;
    size_t len = 3 * HEARTH_FRAME_MAX + 123;
    char *payload = malloc (len);
    for (size_t i = 0; i < len; i++)
        payload[i] = (char) (i * 31 + 7);
    char *stored;
    size_t size = s_frame (payload, len, &stored);
    assert_int_equal (size, len + 4 * HEARTH_FRAME_HEADER);
    /* framed in memory (a block the driver keeps): the same bytes */
    assert_int_equal (hearth_frames_size (len), size);
    assert_int_equal (hearth_frames_size (0), 0);
    assert_int_equal (hearth_frames_size (1), 1 + HEARTH_FRAME_HEADER);
    unsigned char *encoded = malloc (size);
    hearth_frames_encode (payload, len, encoded);
    assert_memory_equal (encoded, stored, size);
    assert_int_equal (hearth_frames_payload (encoded, size), len);
    assert_int_equal (hearth_frames_payload (encoded, 5), 0); /* cut short */
    free (encoded);
    unsigned char *scratch = malloc (HEARTH_FRAME_MAX);
    /* fed in pieces of every size from 1 byte up */
    for (size_t piece = 1; piece < 70000; piece = piece * 3 + 1) {
        hearth_unframer_t un;
        hearth_unframer_init (&un);
        s_sink_t sink = {0};
        for (size_t i = 0; i < size; i += piece) {
            size_t n = piece < size - i ? piece : size - i;
            assert_int_equal (hearth_unframer_feed (&un, stored + i, n, scratch,
                                                    s_sink, &sink, NULL),
                              0);
        }
        assert_int_equal (hearth_unframer_end (&un, NULL), 0);
        assert_int_equal (sink.len, len);
        assert_memory_equal (sink.buf, payload, len);
        free (sink.buf);
    }
    /* one flipped bit anywhere in a payload: caught, nothing of that
       frame handed out */
    hearth_error_t err;
    for (size_t at = HEARTH_FRAME_HEADER; at < size; at += 4099) {
        if ((at % (HEARTH_FRAME_HEADER + HEARTH_FRAME_MAX))
            < HEARTH_FRAME_HEADER)
            continue;
        stored[at] ^= 0x10;
        hearth_unframer_t un;
        hearth_unframer_init (&un);
        s_sink_t sink = {0};
        assert_int_equal (hearth_unframer_feed (&un, stored, size, scratch,
                                                s_sink, &sink, &err),
                          -1);
        assert_string_equal (err.code, "checksum");
        assert_true (sink.len % HEARTH_FRAME_MAX == 0 && sink.len < len);
        free (sink.buf);
        stored[at] ^= 0x10;
    }
    /* cut short: said at the end */
    hearth_unframer_t un;
    hearth_unframer_init (&un);
    s_sink_t sink = {0};
    assert_int_equal (hearth_unframer_feed (&un, stored, size - 5, scratch,
                                            s_sink, &sink, NULL),
                      0);
    assert_int_equal (hearth_unframer_end (&un, &err), -1);
    assert_string_equal (err.code, "truncated");
    free (sink.buf);
    /* a header that cannot be one */
    memset (stored, 0xff, 4);
    hearth_unframer_init (&un);
    assert_int_equal (
        hearth_unframer_feed (&un, stored, size, scratch, s_sink, &sink, &err),
        -1);
    assert_string_equal (err.code, "bad_frame");
    free (scratch);
    free (stored);
    free (payload);
}

static void
test_index_round_trip_and_damage (void **state)
{
    (void) state;
    char path[300];
    snprintf (path, sizeof path, "%s/x.index", s_dir);
    hearth_part_t parts[3] = {{0, 10, 2, 1}, {10, 0, 0, 0}, {10, 40, 32, 4}};
    assert_int_equal (hearth_partindex_write (path, 3, true, parts, NULL), 0);
    uint32_t n;
    bool sorted;
    hearth_part_t *back;
    assert_int_equal (hearth_partindex_read (path, &n, &sorted, &back, NULL),
                      0);
    assert_int_equal (n, 3);
    assert_true (sorted);
    assert_memory_equal (back, parts, sizeof parts);
    free (back);
    FILE *f = fopen (path, "r+");
    fseek (f, 30, SEEK_SET);
    fputc ('!', f);
    fclose (f);
    hearth_error_t err;
    assert_int_equal (hearth_partindex_read (path, &n, &sorted, &back, &err),
                      -1);
    assert_string_equal (err.code, "checksum");
    unlink (path);
}

/* --- the writer against a reference ------------------------------------ */

typedef struct {
    char **recs;  /* every record written, '\n' included */
    size_t *lens; /* their lengths */
    size_t n;     /* records */
} s_recs_t;

/* n records of random keys from nkeys, random values (any byte but
   '\n'), a few longer than a frame. */
static void
s_make_records (s_recs_t *r, size_t n, unsigned nkeys, unsigned seed)
{
    r->recs = calloc (n, sizeof *r->recs);
    r->lens = calloc (n, sizeof *r->lens);
    r->n = n;
    for (size_t i = 0; i < n; i++) {
        unsigned k = (unsigned) rand_r (&seed) % nkeys;
        size_t vlen = (size_t) rand_r (&seed) % 40;
        if (i % 997 == 5)
            vlen = HEARTH_FRAME_MAX + (size_t) rand_r (&seed) % 9000;
        char *rec = malloc (vlen + 32);
        size_t len = (size_t) sprintf (rec, "key%u\t", k);
        for (size_t j = 0; j < vlen; j++) {
            char c = (char) (rand_r (&seed) % 255 + 1);
            rec[len++] = c == '\n' ? ' ' : c;
        }
        rec[len++] = '\n';
        r->recs[i] = rec;
        r->lens[i] = len;
    }
}

static void
s_free_records (s_recs_t *r)
{
    for (size_t i = 0; i < r->n; i++)
        free (r->recs[i]);
    free (r->recs);
    free (r->lens);
}

/* The records of partition p in the order the writer must give them. */
static size_t *
s_expected (const s_recs_t *r, uint32_t p, uint32_t R, bool sort, size_t *n)
{
    size_t *idx = malloc ((r->n + 1) * sizeof *idx);
    *n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (hearth_record_partition (r->recs[i], r->lens[i] - 1, R) == p)
            idx[(*n)++] = i;
    if (!sort)
        return idx;
    /* a stable insertion sort by key: equal keys keep their order */
    for (size_t i = 1; i < *n; i++) {
        size_t v = idx[i], j = i;
        while (j > 0
               && hearth_record_key_cmp (r->recs[idx[j - 1]],
                                         r->lens[idx[j - 1]] - 1, r->recs[v],
                                         r->lens[v] - 1)
                      > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
    return idx;
}

/* Unsorted and not spilled, each partition of the data file at path is
   what the framer writes of its records in order, byte for byte. */
static void
s_check_framed (const s_recs_t *r, uint32_t R, const char *path,
                const hearth_part_t *parts)
{
    FILE *g = fopen (path, "r");
    assert_non_null (g);
    for (uint32_t q = 0; q < R; q++) {
        size_t n, *want = s_expected (r, q, R, false, &n);
        char *payload = malloc (parts[q].bytes + 1), *stored, *got;
        size_t len = 0;
        for (size_t k = 0; k < n; k++, len += r->lens[want[k - 1]])
            memcpy (payload + len, r->recs[want[k]], r->lens[want[k]]);
        size_t size = s_frame (payload, len, &stored);
        assert_int_equal (size, parts[q].length);
        got = malloc (size + 1);
        assert_int_equal (fread (got, 1, size, g), size);
        assert_memory_equal (got, stored, size);
        free (payload);
        free (stored);
        free (got);
        free (want);
    }
    fclose (g);
}

/* Partition p read back in runs of at most max bytes: whole records, a
   longer one alone, all of them in order (what want holds, in r). */
static void
s_check_runs (const s_recs_t *r, const char *path, const hearth_part_t *p,
              const size_t *want, size_t want_n, size_t max)
{
    hearth_partreader_t *rd =
        hearth_partreader_new (path, p->offset, p->length, NULL);
    assert_non_null (rd);
    const char *run;
    size_t len, k = 0;
    while (hearth_partreader_next_run (rd, max, &run, &len, NULL) == 1) {
        assert_int_equal (run[len - 1], '\n');
        if (len > max) /* a record longer than max, alone */
            assert_null (memchr (run, '\n', len - 1));
        for (size_t off = 0; off < len; off += r->lens[want[k++]]) {
            assert_true (k < want_n);
            assert_memory_equal (run + off, r->recs[want[k]], r->lens[want[k]]);
        }
    }
    assert_int_equal (k, want_n);
    hearth_partreader_destroy (&rd);
}

/* Write r through a writer (in pieces), then read every partition back
   and compare it with the reference. */
static void
s_check_writer (const s_recs_t *r, uint32_t R, bool sort, size_t memory,
                bool expect_spills)
{
    char path[300];
    snprintf (path, sizeof path, "%s/map-0", s_dir);
    hearth_partwriter_opts_t opts = {
        .path = path, .partitions = R, .sort = sort, .memory_bytes = memory};
    hearth_error_t err;
    hearth_partwriter_t *w = hearth_partwriter_new (&opts, &err);
    assert_non_null (w);
    /* the records as one stream, cut in pieces across record bounds */
    size_t total = 0;
    for (size_t i = 0; i < r->n; i++)
        total += r->lens[i];
    char *all = malloc (total), *p = all;
    for (size_t i = 0; i < r->n; i++) {
        memcpy (p, r->recs[i], r->lens[i]);
        p += r->lens[i];
    }
    /* the last record without its '\n': it counts all the same */
    for (size_t i = 0, n; i < total - 1; i += n) {
        n = 1 + (i * 104729) % 3000;
        n = n < total - 1 - i ? n : total - 1 - i;
        assert_int_equal (hearth_partwriter_write (w, all + i, n, &err), 0);
    }
    free (all);
    assert_int_equal (hearth_partwriter_finish (w, &err), 0);
    assert_true (!expect_spills || hearth_partwriter_spills (w) > 1);
    const hearth_part_t *parts = hearth_partwriter_parts (w);
    assert_non_null (parts);
    assert_int_equal (s_files (), 2); /* the data and the index: no spill */
    char index[320];
    snprintf (index, sizeof index, "%s.index", path);
    uint32_t n;
    bool sorted;
    hearth_part_t *back;
    assert_int_equal (hearth_partindex_read (index, &n, &sorted, &back, NULL),
                      0);
    assert_int_equal (n, R);
    assert_int_equal (sorted, sort);
    assert_memory_equal (back, parts, R * sizeof *parts);
    uint64_t records = 0;
    for (uint32_t q = 0; q < R; q++) {
        size_t want_n;
        size_t *want = s_expected (r, q, R, sort, &want_n);
        assert_int_equal (back[q].records, want_n);
        hearth_partreader_t *rd =
            hearth_partreader_new (path, back[q].offset, back[q].length, NULL);
        assert_non_null (rd);
        const char *rec;
        size_t len, k = 0;
        uint64_t bytes = 0;
        while (hearth_partreader_next (rd, &rec, &len, &err) == 1) {
            assert_true (k < want_n);
            assert_int_equal (len, r->lens[want[k]]);
            assert_memory_equal (rec, r->recs[want[k]], len);
            bytes += len;
            k++;
        }
        assert_int_equal (k, want_n);
        assert_int_equal (bytes, back[q].bytes);
        records += k;
        hearth_partreader_destroy (&rd);
        s_check_runs (r, path, &back[q], want, want_n, 1000);
        s_check_runs (r, path, &back[q], want, want_n, 64 * 1024);
        free (want);
    }
    assert_int_equal (records, r->n);
    if (!sort && !expect_spills)
        s_check_framed (r, R, path, back);
    free (back);
    hearth_partwriter_destroy (&w);
    unlink (path);
    unlink (index);
}

static void
test_writer_unsorted (void **state)
{
    (void) state;
    s_recs_t r;
    s_make_records (&r, 5000, 300, 1);
    s_check_writer (&r, 1, false, 0, false);
    s_check_writer (&r, 7, false, 0, false);
    s_check_writer (&r, 64, false, 64 * 1024, true); /* many spills */
    s_check_writer (&r, 1000, false, 0, false);      /* R > keys */
    s_check_writer (&r, 1000, false, 4096, true);    /* a small budget */
    s_free_records (&r);
}

static void
test_writer_sorted (void **state)
{
    (void) state;
    s_recs_t r;
    s_make_records (&r, 4000, 50, 2);
    s_check_writer (&r, 1, true, 0, false);
    s_check_writer (&r, 5, true, 0, false);
    s_check_writer (&r, 5, true, 48 * 1024, true); /* merged spills */
    s_check_writer (&r, 3, true, 4096, true);      /* a spill per few */
    s_free_records (&r);
}

static void
test_writer_edges (void **state)
{
    (void) state;
    char path[300];
    snprintf (path, sizeof path, "%s/edge", s_dir);
    hearth_error_t err;
    hearth_partwriter_opts_t opts = {.path = path, .partitions = 0};
    assert_null (hearth_partwriter_new (&opts, &err));
    opts.partitions = HEARTH_MAX_PARTITIONS + 1;
    assert_null (hearth_partwriter_new (&opts, &err));
    /* nothing written: R empty partitions */
    opts.partitions = 4;
    hearth_partwriter_t *w = hearth_partwriter_new (&opts, &err);
    assert_int_equal (hearth_partwriter_finish (w, &err), 0);
    for (int q = 0; q < 4; q++)
        assert_int_equal (hearth_partwriter_parts (w)[q].length, 0);
    hearth_partwriter_destroy (&w);
    assert_int_equal (s_files (), 2);
    char index[320];
    snprintf (index, sizeof index, "%s.index", path);
    unlink (path);
    unlink (index);
    /* the same, sorted (a sorted map task with no output) */
    opts.sort = true;
    w = hearth_partwriter_new (&opts, &err);
    assert_int_equal (hearth_partwriter_finish (w, &err), 0);
    for (int q = 0; q < 4; q++)
        assert_int_equal (hearth_partwriter_parts (w)[q].length, 0);
    hearth_partwriter_destroy (&w);
    assert_int_equal (s_files (), 2);
    unlink (path);
    unlink (index);
    opts.sort = false;
    /* destroyed before its end: nothing left, spills included */
    opts.memory_bytes = 4096;
    w = hearth_partwriter_new (&opts, &err);
    for (int i = 0; i < 2000; i++) {
        char line[64];
        int n = snprintf (line, sizeof line, "k%d\tsome value %d\n", i % 9, i);
        assert_int_equal (hearth_partwriter_write (w, line, (size_t) n, &err),
                          0);
    }
    assert_true (hearth_partwriter_spills (w) > 0);
    hearth_partwriter_destroy (&w);
    assert_int_equal (s_files (), 0);
    /* many partitions, the smallest budget: what a spill wrote costs
       nothing after it, so a spill holds tens of records, not one (a
       file per record, all open at the end) */
    opts.partitions = 1000;
    w = hearth_partwriter_new (&opts, &err);
    for (int i = 0; i < 2000; i++) {
        char line[64];
        int n = snprintf (line, sizeof line, "k%d\tv\n", i);
        assert_int_equal (hearth_partwriter_write (w, line, (size_t) n, &err),
                          0);
    }
    assert_true (hearth_partwriter_spills (w) < 200);
    hearth_partwriter_destroy (&w);
    assert_int_equal (s_files (), 0);
}

/* --- the merge -------------------------------------------------------- */

typedef struct {
    const char *const *recs; /* its records, '\n' included */
    size_t i;                /* the next one */
} s_list_t;

static int
s_list_next (void *src, const char **rec, size_t *len, hearth_error_t *err)
{
    (void) err;
    s_list_t *l = src;
    if (!l->recs[l->i])
        return 0;
    *rec = l->recs[l->i++];
    *len = strlen (*rec);
    return 1;
}

static void
test_kmerge_stable (void **state)
{
    (void) state;
    const char *const a[] = {"a\tA1\n", "b\tA2\n", "b\tA3\n", "d\tA4\n", NULL};
    const char *const b[] = {"b\tB1\n", "c\tB2\n", NULL};
    const char *const c[] = {NULL};
    const char *const d[] = {"a\tD1\n", "b\tD2\n", "e\tD3\n", NULL};
    s_list_t la = {a, 0}, lb = {b, 0}, lc = {c, 0}, ld = {d, 0};
    void *srcs[] = {&la, &lb, &lc, &ld};
    hearth_kmerge_t *km = hearth_kmerge_new (srcs, 4, s_list_next, NULL);
    const char *want[] = {"a\tA1\n", "a\tD1\n", "b\tA2\n", "b\tA3\n", "b\tB1\n",
                          "b\tD2\n", "c\tB2\n", "d\tA4\n", "e\tD3\n"};
    const char *rec;
    size_t len, src, k = 0;
    while (hearth_kmerge_next (km, &rec, &len, &src, NULL) == 1) {
        assert_true (k < 9);
        assert_int_equal (len, strlen (want[k]));
        assert_memory_equal (rec, want[k], len);
        k++;
    }
    assert_int_equal (k, 9);
    hearth_kmerge_destroy (&km);
    km = hearth_kmerge_new (srcs, 0, s_list_next, NULL); /* no source */
    assert_int_equal (hearth_kmerge_next (km, &rec, &len, NULL, NULL), 0);
    hearth_kmerge_destroy (&km);
    hearth_kmerge_destroy (&km);
}

/* --- the reduce side -------------------------------------------------- */

/* Map task m's block of partition q, as a fetch would bring it: the
   stored bytes of that partition, in a file of its own. */
static void
s_block_file (const char *data, const hearth_part_t *part, const char *out)
{
    FILE *in = fopen (data, "r"), *o = fopen (out, "w");
    assert_non_null (in);
    assert_non_null (o);
    fseek (in, (long) part->offset, SEEK_SET);
    char *buf = malloc (part->length + 1);
    assert_int_equal (fread (buf, 1, part->length, in), part->length);
    assert_int_equal (fwrite (buf, 1, part->length, o), part->length);
    free (buf);
    fclose (in);
    fclose (o);
}

/* M map tasks of r's records (map m takes every M-th), R partitions;
   partition q's blocks merged with fan-in fanin, against the reference:
   the maps' records of q in map order (unsorted), or by key with ties in
   map order (sorted).  The even maps' blocks are read where they lie in
   their map output (as on the map's own node), the odd maps' from a file
   of their own (as fetched). */
static void
s_check_reduce (const s_recs_t *r, size_t M, uint32_t R, uint32_t q, bool sort,
                size_t fanin, size_t want_passes)
{
    char **blocks = calloc (M, sizeof *blocks);
    hearth_block_ref_t *refs = calloc (M, sizeof *refs);
    char **maps = calloc (M, sizeof *maps);
    for (size_t m = 0; m < M; m++) {
        char *path = maps[m] = malloc (300), index[320];
        snprintf (path, 300, "%s/map-%zu", s_dir, m);
        snprintf (index, sizeof index, "%s.index", path);
        hearth_partwriter_opts_t opts = {
            .path = path, .partitions = R, .sort = sort};
        hearth_partwriter_t *w = hearth_partwriter_new (&opts, NULL);
        for (size_t i = m; i < r->n; i += M)
            assert_int_equal (
                hearth_partwriter_write (w, r->recs[i], r->lens[i], NULL), 0);
        assert_int_equal (hearth_partwriter_finish (w, NULL), 0);
        const hearth_part_t *part = &hearth_partwriter_parts (w)[q];
        blocks[m] = malloc (320);
        snprintf (blocks[m], 320, "%s/block-%zu", s_dir, m);
        s_block_file (path, part, blocks[m]);
        refs[m] = m % 2
                      ? (hearth_block_ref_t){blocks[m], 0, part->length}
                      : (hearth_block_ref_t){path, part->offset, part->length};
        hearth_partwriter_destroy (&w);
        unlink (index);
    }
    /* the reference: records of q, in map order, then sorted if asked */
    s_recs_t in_map_order = {calloc (r->n, sizeof (char *)),
                             calloc (r->n, sizeof (size_t)), 0};
    for (size_t m = 0; m < M; m++)
        for (size_t i = m; i < r->n; i += M) {
            in_map_order.recs[in_map_order.n] = r->recs[i];
            in_map_order.lens[in_map_order.n++] = r->lens[i];
        }
    size_t want_n;
    size_t *want = s_expected (&in_map_order, q, R, sort, &want_n);
    hearth_error_t err;
    hearth_blockmerge_t *bm =
        hearth_blockmerge_new (refs, M, sort, fanin, s_dir, &err);
    assert_non_null (bm);
    const char *rec;
    size_t len, k = 0;
    while (hearth_blockmerge_next (bm, &rec, &len, &err) == 1) {
        assert_true (k < want_n);
        assert_int_equal (len, in_map_order.lens[want[k]]);
        assert_memory_equal (rec, in_map_order.recs[want[k]], len);
        k++;
    }
    assert_int_equal (k, want_n);
    assert_int_equal (hearth_blockmerge_passes (bm), want_passes);
    hearth_blockmerge_destroy (&bm);
    assert_int_equal (s_files (), (int) (2 * M)); /* no merge file left */
    /* a damaged block: the stream says so */
    size_t bad = M / 2 | 1; /* a fetched one */
    FILE *f = fopen (blocks[bad], "r+");
    fseek (f, 20, SEEK_SET);
    fputc ('~', f);
    fclose (f);
    bm = hearth_blockmerge_new (refs, M, sort, fanin, s_dir, &err);
    int rc;
    while ((rc = hearth_blockmerge_next (bm, &rec, &len, &err)) == 1)
        ;
    assert_int_equal (rc, -1);
    assert_string_equal (err.code, "checksum");
    hearth_blockmerge_destroy (&bm);
    for (size_t m = 0; m < M; m++) {
        unlink (blocks[m]);
        unlink (maps[m]);
        free (blocks[m]);
        free (maps[m]);
    }
    free (blocks);
    free (maps);
    free (refs);
    free (want);
    free (in_map_order.recs);
    free (in_map_order.lens);
    assert_int_equal (s_files (), 0);
}

static void
test_reduce_blocks (void **state)
{
    (void) state;
    s_recs_t r;
    s_make_records (&r, 3000, 40, 3);
    s_check_reduce (&r, 10, 4, 1, false, 0, 0);
    s_check_reduce (&r, 10, 4, 2, true, 0, 0); /* one pass */
    s_check_reduce (&r, 10, 4, 3, true, 3, 2); /* 10 -> 4 -> 2, merged */
    s_check_reduce (&r, 7, 1, 0, true, 2, 2);  /* 7 -> 4 -> 2 */
    s_free_records (&r);
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_key_hash_vectors),
        cmocka_unit_test (test_frames_round_trip),
        cmocka_unit_test (test_index_round_trip_and_damage),
        cmocka_unit_test (test_writer_unsorted),
        cmocka_unit_test (test_writer_sorted),
        cmocka_unit_test (test_writer_edges),
        cmocka_unit_test (test_kmerge_stable),
        cmocka_unit_test (test_reduce_blocks),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}

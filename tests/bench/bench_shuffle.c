/*  bench_shuffle.c - the shuffle benchmarks' tools (benchmarks 11 to 14,
    tests/bench/bench-shuffle.sh): their data, its slices, the checksums
    that prove every record arrived once, and the single-process reference.

        bench-shuffle gen --bytes N [--seed S] [--keys K] FILE
            N bytes (rounded down to whole records) of 100-byte records
            "KEY\tVALUE\n": KEY 10 digits, one of K distinct keys (1,000,000)
            drawn uniformly with a seeded generator (1), VALUE 88 random
            letters.  Prints the file's checksum line (below).
        bench-shuffle slice FILE I N [--rss]
            Writes slice I of N of FILE to standard output, cut at record
            boundaries (a slice starts at the first record that starts at
            or after I/N of the file): what map task I reads.
        bench-shuffle check [--partition I --of R] [--sorted] [--rss]
            Reads records on standard input (a reducer's input) and prints
            one checksum line: "I RECORDS BYTES SUM MISPLACED UNSORTED",
            SUM the sum (mod 2^64) of a 64-bit hash of every record,
            MISPLACED the records whose key does not go to partition I of
            R, UNSORTED those whose key is less than the one before.
            --rss (for both): at the end, append to the line the parent's
            (the executor's) peak RSS in KiB since the last reset, then
            reset it (/proc/PPID/clear_refs): with one core per executor,
            a reducer's figure is its executor's peak from the end of the
            task before it to its own end, its fetches included.
        bench-shuffle verify EXPECTED R
            Reads reducers' checksum lines on standard input and exits 0
            when they are R lines, one per partition, whose records, bytes
            and sums add up to EXPECTED's (a gen line) with nothing
            misplaced or out of order; else says what differs, status 1.
        bench-shuffle ref FILE DIR R
            The reference: reads FILE, hashes each record's key (FNV-1a-64
            mod R, libcore/records.h, as a partitioned stage does), writes
            R partition files DIR/part-I, then reads each back and checks
            it as a reducer would.  Prints "ref SECONDS WRITE_S READ_S" and
            the combined checksum line.

    The checksum sum is order-independent, so a shuffle that loses,
    duplicates or changes any record fails verify, in whatever order the
    records come.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcore/records.h"
#include "tests/bench/benchutil.h"

/* Bytes of one generated record, its key and its value. */
#define REC_BYTES 100
#define KEY_BYTES 10
#define VALUE_BYTES (REC_BYTES - KEY_BYTES - 2)
/* Bytes read or written per system call. */
#define IO_CHUNK (4u << 20)
/* Bytes the reference buffers per partition before writing them. */
#define PART_BUFFER (256u << 10)
/* Most partitions of the reference. */
#define MAX_PARTITIONS 100000

/* A checksum line: records, their bytes (without '\n'), the sum of their
   hashes, and the records misplaced or out of order. */
typedef struct {
    long long index;    /* partition, or -1 */
    uint64_t records;   /* records seen */
    uint64_t bytes;     /* their bytes, without the '\n' */
    uint64_t sum;       /* sum of s_rec_hash, mod 2^64 */
    uint64_t misplaced; /* keys of another partition */
    uint64_t unsorted;  /* keys less than the one before */
} sums_t;

/* What check verifies as it goes. */
typedef struct {
    sums_t sums;     /* the figures so far */
    uint32_t of;     /* R, or 0: partitions not checked */
    int sorted;      /* check the key order */
    char *prev;      /* the previous record's key (sorted) */
    size_t prev_len; /* its length */
    size_t prev_cap; /* prev's allocation */
} checker_t;

static void
s_die (const char *what)
{
    fprintf (stderr, "bench-shuffle: %s: %s\n", what, strerror (errno));
    exit (1);
}

static void *
s_alloc (size_t n)
{
    void *p = malloc (n);
    if (!p)
        s_die ("malloc");
    return p;
}

static uint64_t
s_splitmix (uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A 64-bit hash of a record (without its '\n'), 8 bytes a step: the
   checksum, not the partitioning hash. */
static uint64_t
s_rec_hash (const char *p, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy (&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    w = 0;
    memcpy (&w, p + i, len - i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

static void
s_write_all (int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write (fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            s_die ("write");
        p += w;
        n -= (size_t) w;
    }
}

static void
s_print_sums (FILE *f, const sums_t *s)
{
    fprintf (f,
             "%lld %" PRIu64 " %" PRIu64 " %016" PRIx64 " %" PRIu64 " %" PRIu64
             "\n",
             s->index, s->records, s->bytes, s->sum, s->misplaced, s->unsorted);
}

static void
s_check_record (checker_t *c, const char *rec, size_t len)
{
    c->sums.records++;
    c->sums.bytes += len;
    c->sums.sum += s_rec_hash (rec, len);
    if (c->of
        && hearth_record_partition (rec, len, c->of)
               != (uint64_t) c->sums.index)
        c->sums.misplaced++;
    if (!c->sorted)
        return;
    size_t klen = hearth_record_key_len (rec, len);
    if (c->sums.records > 1
        && hearth_record_key_cmp (c->prev, c->prev_len, rec, klen) > 0)
        c->sums.unsorted++;
    if (klen > c->prev_cap) {
        c->prev_cap = klen * 2;
        c->prev = realloc (c->prev, c->prev_cap);
        if (!c->prev)
            s_die ("realloc");
    }
    memcpy (c->prev, rec, klen);
    c->prev_len = klen;
}

/* Feed every record of fd to fn (a last line without '\n' counts), in
   chunks of IO_CHUNK, growing the buffer for longer lines. */
static void
s_records (int fd, void (*fn) (void *, const char *, size_t), void *arg)
{
    size_t cap = IO_CHUNK, have = 0;
    char *buf = s_alloc (cap);
    for (;;) {
        if (have == cap) {
            cap *= 2;
            buf = realloc (buf, cap);
            if (!buf)
                s_die ("realloc");
        }
        ssize_t n = read (fd, buf + have, cap - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            s_die ("read");
        if (n == 0)
            break;
        have += (size_t) n;
        char *p = buf, *end = buf + have, *nl;
        while ((nl = memchr (p, '\n', (size_t) (end - p)))) {
            fn (arg, p, (size_t) (nl - p));
            p = nl + 1;
        }
        have = (size_t) (end - p);
        memmove (buf, p, have);
    }
    if (have)
        fn (arg, buf, have);
    free (buf);
}

/* The parent's VmHWM in KiB (-1 if unknown), then reset it to its RSS. */
static long
s_parent_hwm_reset (void)
{
    int ppid = (int) getppid ();
    long kb = bench_proc_status_kb (ppid, "VmHWM");
    char path[64];
    snprintf (path, sizeof path, "/proc/%d/clear_refs", ppid);
    int fd = open (path, O_WRONLY);
    if (fd >= 0) {
        if (write (fd, "5", 1) != 1)
            kb = -1;
        close (fd);
    }
    return kb;
}

static void
s_check_cb (void *arg, const char *rec, size_t len)
{
    s_check_record (arg, rec, len);
}

static int
s_gen (int argc, char **argv)
{
    long long bytes = -1;
    uint64_t seed = 1, keys = 1000000;
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp (argv[i], "--bytes") && i + 1 < argc)
            bytes = bench_arg_long ("--bytes", argv[++i]);
        else if (!strcmp (argv[i], "--seed") && i + 1 < argc)
            seed = (uint64_t) bench_arg_long ("--seed", argv[++i]);
        else if (!strcmp (argv[i], "--keys") && i + 1 < argc)
            keys = (uint64_t) bench_arg_long ("--keys", argv[++i]);
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else
            return 2;
    }
    if (bytes < 0 || !path)
        return 2;
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        s_die (path);
    static const char letters[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *buf = s_alloc (IO_CHUNK);
    size_t fill = 0;
    sums_t sums = {.index = -1};
    uint64_t state = seed;
    for (long long r = 0; r < bytes / REC_BYTES; r++) {
        char *rec = buf + fill;
        /* a bijection of 0..10^10-1 (the multiplier is prime to 10), so
           that distinct ids give distinct keys in no particular order */
        uint64_t id = s_splitmix (&state) % keys;
        uint64_t k = (id * 2654435761ull) % 10000000000ull;
        for (int d = KEY_BYTES - 1; d >= 0; d--, k /= 10)
            rec[d] = (char) ('0' + k % 10);
        rec[KEY_BYTES] = '\t';
        for (int v = 0; v < VALUE_BYTES; v += 8) {
            uint64_t x = s_splitmix (&state);
            for (int b = 0; b < 8 && v + b < VALUE_BYTES; b++, x >>= 6)
                rec[KEY_BYTES + 1 + v + b] = letters[x & 63];
        }
        rec[REC_BYTES - 1] = '\n';
        sums.records++;
        sums.bytes += REC_BYTES - 1;
        sums.sum += s_rec_hash (rec, REC_BYTES - 1);
        fill += REC_BYTES;
        if (fill + REC_BYTES > IO_CHUNK) {
            s_write_all (fd, buf, fill);
            fill = 0;
        }
    }
    s_write_all (fd, buf, fill);
    if (close (fd) < 0)
        s_die (path);
    free (buf);
    s_print_sums (stdout, &sums);
    return 0;
}

/* The first record boundary at or after off in fd (size bytes). */
static off_t
s_boundary (int fd, off_t off, off_t size)
{
    if (off <= 0)
        return 0;
    char buf[4096];
    for (off_t at = off - 1; at < size;) {
        ssize_t n = pread (fd, buf, sizeof buf, at);
        if (n < 0)
            s_die ("pread");
        if (n == 0)
            break;
        char *nl = memchr (buf, '\n', (size_t) n);
        if (nl)
            return at + (nl - buf) + 1;
        at += n;
    }
    return size;
}

static int
s_slice (int argc, char **argv)
{
    int rss = argc == 4 && !strcmp (argv[3], "--rss");
    if (argc != 3 && !rss)
        return 2;
    long long i = strtoll (argv[1], NULL, 10),
              n = bench_arg_long ("N", argv[2]);
    if (i < 0 || i >= n)
        return 2;
    int fd = open (argv[0], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat (fd, &st) < 0)
        s_die (argv[0]);
    off_t from =
        s_boundary (fd, (off_t) ((__int128) st.st_size * i / n), st.st_size);
    off_t to = s_boundary (fd, (off_t) ((__int128) st.st_size * (i + 1) / n),
                           st.st_size);
    char *buf = s_alloc (IO_CHUNK);
    while (from < to) {
        size_t want =
            (size_t) (to - from) < IO_CHUNK ? (size_t) (to - from) : IO_CHUNK;
        ssize_t got = pread (fd, buf, want, from);
        if (got <= 0)
            s_die ("pread");
        s_write_all (1, buf, (size_t) got);
        from += got;
    }
    free (buf);
    close (fd);
    if (rss)
        s_parent_hwm_reset ();
    return 0;
}

static int
s_check (int argc, char **argv)
{
    checker_t c = {.sums = {.index = -1}};
    int rss = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp (argv[i], "--partition") && i + 1 < argc)
            c.sums.index = strtoll (argv[++i], NULL, 10);
        else if (!strcmp (argv[i], "--of") && i + 1 < argc)
            c.of = (uint32_t) bench_arg_long ("--of", argv[++i]);
        else if (!strcmp (argv[i], "--sorted"))
            c.sorted = 1;
        else if (!strcmp (argv[i], "--rss"))
            rss = 1;
        else
            return 2;
    }
    if (c.of && (c.sums.index < 0 || c.sums.index >= c.of))
        return 2;
    s_records (0, s_check_cb, &c);
    free (c.prev);
    if (!rss) {
        s_print_sums (stdout, &c.sums);
        return 0;
    }
    char line[256];
    FILE *mem = fmemopen (line, sizeof line, "w");
    s_print_sums (mem, &c.sums);
    fclose (mem);
    line[strcspn (line, "\n")] = 0;
    printf ("%s %ld\n", line, s_parent_hwm_reset ());
    return 0;
}

static int
s_parse_sums (const char *line, sums_t *s)
{
    return sscanf (line,
                   "%lld %" SCNu64 " %" SCNu64 " %" SCNx64 " %" SCNu64
                   " %" SCNu64,
                   &s->index, &s->records, &s->bytes, &s->sum, &s->misplaced,
                   &s->unsorted)
                   == 6
               ? 0
               : -1;
}

static int
s_verify (int argc, char **argv)
{
    if (argc != 2)
        return 2;
    long long parts = bench_arg_long ("R", argv[1]);
    char line[512];
    sums_t want, got = {0}, one;
    FILE *f = fopen (argv[0], "r");
    if (!f || !fgets (line, sizeof line, f) || s_parse_sums (line, &want) < 0) {
        fprintf (stderr, "bench-shuffle verify: no checksum line in %s\n",
                 argv[0]);
        return 1;
    }
    fclose (f);
    unsigned char *seen = calloc ((size_t) parts, 1);
    long long lines = 0, dup = 0;
    while (fgets (line, sizeof line, stdin)) {
        if (s_parse_sums (line, &one) < 0)
            continue;
        lines++;
        if (one.index < 0 || one.index >= parts || seen[one.index]++)
            dup++;
        got.records += one.records;
        got.bytes += one.bytes;
        got.sum += one.sum;
        got.misplaced += one.misplaced;
        got.unsorted += one.unsorted;
    }
    free (seen);
    got.index = lines;
    if (lines != parts || dup || got.records != want.records
        || got.bytes != want.bytes || got.sum != want.sum || got.misplaced
        || got.unsorted) {
        fprintf (stderr, "bench-shuffle verify: expected %lld partitions and ",
                 parts);
        s_print_sums (stderr, &want);
        fprintf (stderr, "got (%lld repeated or out of range) ", dup);
        s_print_sums (stderr, &got);
        return 1;
    }
    return 0;
}

/* The reference's state: one write buffer and file per partition. */
typedef struct {
    uint32_t parts; /* R */
    int *fds;       /* the partition files */
    char **bufs;    /* their buffers, PART_BUFFER bytes each */
    size_t *fill;   /* bytes in each buffer */
} ref_t;

static void
s_ref_cb (void *arg, const char *rec, size_t len)
{
    ref_t *r = arg;
    uint32_t p = hearth_record_partition (rec, len, r->parts);
    if (r->fill[p] + len + 1 > PART_BUFFER) {
        s_write_all (r->fds[p], r->bufs[p], r->fill[p]);
        r->fill[p] = 0;
    }
    if (len + 1 > PART_BUFFER) {
        s_write_all (r->fds[p], rec, len);
        s_write_all (r->fds[p], "\n", 1);
        return;
    }
    memcpy (r->bufs[p] + r->fill[p], rec, len);
    r->bufs[p][r->fill[p] + len] = '\n';
    r->fill[p] += len + 1;
}

static int
s_ref (int argc, char **argv)
{
    if (argc != 3)
        return 2;
    ref_t r = {.parts = (uint32_t) bench_arg_long ("R", argv[2])};
    if (r.parts > MAX_PARTITIONS)
        return 2;
    char path[4096];
    r.fds = s_alloc (r.parts * sizeof *r.fds);
    r.bufs = s_alloc (r.parts * sizeof *r.bufs);
    r.fill = calloc (r.parts, sizeof *r.fill);
    double t0 = bench_now_us ();
    int in = open (argv[0], O_RDONLY);
    if (in < 0)
        s_die (argv[0]);
    for (uint32_t p = 0; p < r.parts; p++) {
        snprintf (path, sizeof path, "%s/part-%05u", argv[1], p);
        r.fds[p] = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (r.fds[p] < 0)
            s_die (path);
        r.bufs[p] = s_alloc (PART_BUFFER);
    }
    s_records (in, s_ref_cb, &r);
    close (in);
    for (uint32_t p = 0; p < r.parts; p++) {
        s_write_all (r.fds[p], r.bufs[p], r.fill[p]);
        if (close (r.fds[p]) < 0)
            s_die ("close");
        free (r.bufs[p]);
    }
    double t1 = bench_now_us ();
    sums_t all = {.index = r.parts};
    for (uint32_t p = 0; p < r.parts; p++) {
        checker_t c = {.sums = {.index = p}, .of = r.parts};
        snprintf (path, sizeof path, "%s/part-%05u", argv[1], p);
        int fd = open (path, O_RDONLY);
        if (fd < 0)
            s_die (path);
        s_records (fd, s_check_cb, &c);
        close (fd);
        all.records += c.sums.records;
        all.bytes += c.sums.bytes;
        all.sum += c.sums.sum;
        all.misplaced += c.sums.misplaced;
    }
    double t2 = bench_now_us ();
    printf ("ref %.6f %.6f %.6f\n", (t2 - t0) / 1e6, (t1 - t0) / 1e6,
            (t2 - t1) / 1e6);
    s_print_sums (stdout, &all);
    free (r.fds);
    free (r.bufs);
    free (r.fill);
    return 0;
}

int
main (int argc, char **argv)
{
    int rc = 2;
    if (argc >= 2 && !strcmp (argv[1], "gen"))
        rc = s_gen (argc - 2, argv + 2);
    else if (argc >= 2 && !strcmp (argv[1], "slice"))
        rc = s_slice (argc - 2, argv + 2);
    else if (argc >= 2 && !strcmp (argv[1], "check"))
        rc = s_check (argc - 2, argv + 2);
    else if (argc >= 2 && !strcmp (argv[1], "verify"))
        rc = s_verify (argc - 2, argv + 2);
    else if (argc >= 2 && !strcmp (argv[1], "ref"))
        rc = s_ref (argc - 2, argv + 2);
    if (rc == 2)
        fprintf (
            stderr,
            "usage: bench-shuffle gen --bytes N [--seed S] [--keys K] FILE\n"
            "       bench-shuffle slice FILE I N [--rss]\n"
            "       bench-shuffle check [--partition I --of R] [--sorted] "
            "[--rss]\n"
            "       bench-shuffle verify EXPECTED R\n"
            "       bench-shuffle ref FILE DIR R\n");
    return rc;
}

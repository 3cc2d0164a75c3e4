/*  partwriter.c - records routed into partitions, held, spilled and
    merged; see partwriter.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/kmerge.h"
#include "libcore/partbucket.h"
#include "libcore/partwriter.h"
#include "libcore/records.h"
#include "libcore/safefile.h"

/* Memory held before a spill, unless told otherwise. */
static const size_t s_default_memory = 64u << 20;
/* The smallest budget (a test may ask for less: it still works). */
static const size_t s_min_memory = 4096;

/* One record in memory: where its bytes are, and its partition. */
typedef struct {
    uint64_t off;  /* in the arena */
    uint32_t len;  /* bytes, '\n' included */
    uint32_t part; /* its partition */
} s_ent_t;

/* A spill on disk, in the data file's form, with its own table. */
typedef struct {
    char *path;           /* the file (removed at the end) */
    hearth_part_t *parts; /* where each partition lies in it */
} s_spill_t;

struct hearth_partwriter {
    char *path;          /* the data file */
    char *index;         /* PATH.index */
    char *spill_dir;     /* where spills go */
    uint32_t partitions; /* R */
    bool sort;           /* sort within partitions */
    size_t memory;       /* the budget */
    char *arena;         /* record bytes, then an incomplete line (unsorted:
                            the incomplete line only) */
    size_t used, cap;    /* arena bytes used, allocated */
    size_t scan;         /* where the incomplete line starts */
    size_t searched;     /* arena[scan..searched) holds no '\n' */
    s_ent_t *ents;       /* the complete records in the arena (sorted) */
    hearth_partbuckets_t *buckets; /* the held records (unsorted) */
    size_t n, ents_cap;            /* entries used, allocated */
    s_spill_t *spills;             /* on disk now */
    size_t nspills;                /* entries in spills */
    size_t spilled;                /* spills written in all */
    hearth_part_t *parts;          /* the final table, after finish */
    bool finished;                 /* DATA and its index exist */
};

/* --- in memory -------------------------------------------------------- */

/* Whether a record is over the limit (an entry's length is 32 bits), err
   saying so. */
static bool
s_too_long (size_t len, hearth_error_t *err)
{
    if (len <= UINT32_MAX)
        return false;
    hearth_errprintf (err, "a record of %zu bytes is over the limit of 4 GiB",
                      len);
    return true;
}

static int
s_add_entry (hearth_partwriter_t *self, size_t off, size_t len,
             hearth_error_t *err)
{
    if (s_too_long (len, err))
        return -1;
    if (self->n == self->ents_cap) {
        size_t cap = self->ents_cap ? self->ents_cap * 2 : 1024;
        s_ent_t *e = realloc (self->ents, cap * sizeof *e);
        if (!e)
            return hearth_errprintf (err, "out of memory");
        self->ents = e;
        self->ents_cap = cap;
    }
    const char *line = self->arena + off;
    self->ents[self->n++] =
        (s_ent_t){off, (uint32_t) len,
                  hearth_record_partition (line, len - 1, self->partitions)};
    return 0;
}

/* Make entries of the complete lines after scan. */
static int
s_scan (hearth_partwriter_t *self, hearth_error_t *err)
{
    size_t from = self->searched > self->scan ? self->searched : self->scan;
    while (from < self->used) {
        char *nl = memchr (self->arena + from, '\n', self->used - from);
        if (!nl)
            break;
        size_t end = (size_t) (nl - self->arena) + 1;
        if (s_add_entry (self, self->scan, end - self->scan, err) < 0)
            return -1;
        self->scan = from = end;
    }
    self->searched = self->used;
    return 0;
}

/* Memory the held records take. */
static size_t
s_held (const hearth_partwriter_t *self)
{
    return self->used + self->n * sizeof (s_ent_t);
}

static int
s_cmp_sorted (const void *pa, const void *pb, void *arena)
{
    const s_ent_t *a = pa, *b = pb;
    const char *base = arena;
    if (a->part != b->part)
        return a->part < b->part ? -1 : 1;
    int c = hearth_record_key_cmp (base + a->off, a->len - 1, base + b->off,
                                   b->len - 1);
    if (c)
        return c;
    return a->off < b->off ? -1 : a->off > b->off; /* arrival order */
}

/* The entries in output order: by partition, keeping arrival order (a
   counting sort), or by partition and key (a stable comparison sort).
   Returns 0, or -1 with err. */
static int
s_order (hearth_partwriter_t *self, hearth_error_t *err)
{
    if (self->sort) {
        if (self->n > 1) /* none held: ents and arena may be NULL */
            qsort_r (self->ents, self->n, sizeof *self->ents, s_cmp_sorted,
                     self->arena);
        return 0;
    }
    size_t *start = calloc ((size_t) self->partitions + 1, sizeof *start);
    s_ent_t *out = malloc ((self->n ? self->n : 1) * sizeof *out);
    if (!start || !out) {
        free (start);
        free (out);
        return hearth_errprintf (err, "out of memory");
    }
    for (size_t i = 0; i < self->n; i++)
        start[self->ents[i].part + 1]++;
    for (uint32_t p = 0; p < self->partitions; p++)
        start[p + 1] += start[p];
    for (size_t i = 0; i < self->n; i++)
        out[start[self->ents[i].part]++] = self->ents[i];
    free (start);
    free (self->ents);
    self->ents = out;
    self->ents_cap = self->n ? self->n : 1;
    return 0;
}

/* --- files ------------------------------------------------------------ */

/* A new output file, or -1 with err. */
static int
s_open_output (const char *path, hearth_error_t *err)
{
    int fd = hearth_file_create (path, O_WRONLY, 0600, true);
    if (fd < 0)
        hearth_errcode (err, "io", "cannot create %s: %s", path,
                        hearth_file_why (errno));
    return fd;
}

/* Close an output written with result rc; remove it unless all went
   well.  Returns the result. */
static int
s_close_output (int fd, const char *path, int rc, hearth_error_t *err)
{
    if (close (fd) < 0 && rc == 0)
        rc = hearth_errcode (err, "io", "cannot write %s: %s", path,
                             strerror (errno));
    if (rc < 0)
        unlink (path);
    return rc;
}

/* Write the held records, ordered, as a data file at path, its table in
   parts (R entries).  Returns 0, or -1 with err (the file removed). */
static int
s_write_held (hearth_partwriter_t *self, const char *path, hearth_part_t *parts,
              hearth_error_t *err)
{
    if (self->buckets) {
        int fd = s_open_output (path, err);
        if (fd < 0)
            return -1;
        int rc = hearth_partbuckets_write (self->buckets, fd, parts, err);
        return s_close_output (fd, path, rc, err);
    }
    if (s_order (self, err) < 0)
        return -1;
    int fd = s_open_output (path, err);
    if (fd < 0)
        return -1;
    hearth_framer_t fr;
    int rc = hearth_framer_init (&fr, fd, err);
    size_t i = 0;
    for (uint32_t p = 0; rc == 0 && p < self->partitions; p++) {
        parts[p] = (hearth_part_t){.offset = fr.written};
        for (; rc == 0 && i < self->n && self->ents[i].part == p; i++) {
            const s_ent_t *e = &self->ents[i];
            rc = hearth_framer_write (&fr, self->arena + e->off, e->len, err);
            parts[p].bytes += e->len;
            parts[p].records++;
        }
        if (rc == 0)
            rc = hearth_framer_flush (&fr, err);
        parts[p].length = fr.written - parts[p].offset;
    }
    hearth_framer_release (&fr);
    return s_close_output (fd, path, rc, err);
}

/* Forget the held records, keeping the incomplete line. */
static void
s_drop_held (hearth_partwriter_t *self)
{
    size_t tail = self->used - self->scan;
    memmove (self->arena, self->arena + self->scan, tail);
    self->searched -= self->scan;
    self->used = tail;
    self->scan = 0;
    self->n = 0;
}

/* Records held, ready for a spill. */
static size_t
s_records (const hearth_partwriter_t *self)
{
    return self->buckets ? hearth_partbuckets_records (self->buckets) : self->n;
}

static int
s_spill (hearth_partwriter_t *self, hearth_error_t *err)
{
    s_spill_t *sp =
        realloc (self->spills, (self->nspills + 1) * sizeof *self->spills);
    if (!sp)
        return hearth_errprintf (err, "out of memory");
    self->spills = sp;
    s_spill_t *s = &sp[self->nspills];
    s->parts = calloc (self->partitions, sizeof *s->parts);
    size_t size = strlen (self->spill_dir) + strlen (self->path) + 64;
    s->path = malloc (size);
    if (!s->parts || !s->path) {
        free (s->parts);
        free (s->path);
        return hearth_errprintf (err, "out of memory");
    }
    char *base = strdup (self->path);
    snprintf (s->path, size, "%s/.%s.spill%zu", self->spill_dir,
              base ? basename (base) : "out", self->nspills);
    free (base);
    if (s_write_held (self, s->path, s->parts, err) < 0) {
        free (s->parts);
        free (s->path);
        return -1;
    }
    self->nspills++;
    self->spilled++;
    s_drop_held (self);
    return 0;
}

/* Copy length bytes at offset of from onto to's end.  0 or -1. */
static int
s_copy_range (int from, uint64_t offset, uint64_t length, int to,
              hearth_error_t *err)
{
    loff_t in = (loff_t) offset;
    while (length > 0) {
        ssize_t n = copy_file_range (from, &in, to, NULL, (size_t) length, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* Not there (an old kernel, another file system): read. */
            char buf[64 * 1024];
            size_t want = length < sizeof buf ? (size_t) length : sizeof buf;
            ssize_t r = pread (from, buf, want, (off_t) in);
            if (r <= 0)
                return hearth_errcode (err, "io", "cannot read a spill: %s",
                                       r < 0 ? strerror (errno) : "cut short");
            if (write (to, buf, (size_t) r) != r)
                return hearth_errcode (err, "io", "cannot write: %s",
                                       strerror (errno));
            n = r;
            in += r;
        }
        length -= (uint64_t) n;
    }
    return 0;
}

/* Merge the spills' partition p by key onto fr.  0 or -1. */
static int
s_merge_sorted (hearth_partwriter_t *self, uint32_t p, hearth_framer_t *fr,
                hearth_part_t *out, hearth_error_t *err)
{
    hearth_partreader_t **readers = calloc (self->nspills, sizeof *readers);
    if (!readers)
        return hearth_errprintf (err, "out of memory");
    int rc = 0;
    for (size_t s = 0; rc == 0 && s < self->nspills; s++) {
        const hearth_part_t *sp = &self->spills[s].parts[p];
        readers[s] = hearth_partreader_new (self->spills[s].path, sp->offset,
                                            sp->length, err);
        rc = readers[s] ? 0 : -1;
    }
    hearth_kmerge_t *km =
        rc == 0 ? hearth_kmerge_new (
            (void *const *) readers, self->nspills,
            (hearth_kmerge_next_fn *) hearth_partreader_next, err)
                : NULL;
    const char *rec;
    size_t len;
    while (km && (rc = hearth_kmerge_next (km, &rec, &len, NULL, err)) > 0) {
        out->bytes += len;
        out->records++;
        if (hearth_framer_write (fr, rec, len, err) < 0)
            rc = -1;
    }
    if (!km)
        rc = -1;
    hearth_kmerge_destroy (&km);
    for (size_t s = 0; s < self->nspills; s++)
        hearth_partreader_destroy (&readers[s]);
    free (readers);
    return rc < 0 ? -1 : 0;
}

/* The final data file from the spills, at path.  0 or -1. */
static int
s_merge_spills (hearth_partwriter_t *self, const char *path,
                hearth_error_t *err)
{
    int fd = s_open_output (path, err);
    if (fd < 0)
        return -1;
    int *in = malloc (self->nspills * sizeof *in);
    hearth_framer_t fr = {.buf = NULL};
    int rc = in ? hearth_framer_init (&fr, fd, err)
                : hearth_errprintf (err, "out of memory");
    for (size_t s = 0; in && s < self->nspills; s++)
        in[s] = -1;
    for (size_t s = 0; rc == 0 && s < self->nspills; s++) {
        in[s] = open (self->spills[s].path, O_RDONLY | O_CLOEXEC);
        if (in[s] < 0)
            rc = hearth_errcode (err, "io", "cannot open a spill: %s",
                                 strerror (errno));
    }
    for (uint32_t p = 0; rc == 0 && p < self->partitions; p++) {
        hearth_part_t *out = &self->parts[p];
        out->offset = fr.written;
        if (self->sort)
            rc = s_merge_sorted (self, p, &fr, out, err);
        else
            for (size_t s = 0; rc == 0 && s < self->nspills; s++) {
                const hearth_part_t *sp = &self->spills[s].parts[p];
                rc = s_copy_range (in[s], sp->offset, sp->length, fd, err);
                fr.written += sp->length; /* frames copied whole */
                out->bytes += sp->bytes;
                out->records += sp->records;
            }
        if (rc == 0)
            rc = hearth_framer_flush (&fr, err);
        out->length = fr.written - out->offset;
    }
    for (size_t s = 0; in && s < self->nspills; s++)
        if (in[s] >= 0)
            close (in[s]);
    free (in);
    hearth_framer_release (&fr);
    return s_close_output (fd, path, rc, err);
}

static void
s_remove_spills (hearth_partwriter_t *self)
{
    for (size_t s = 0; s < self->nspills; s++) {
        unlink (self->spills[s].path);
        free (self->spills[s].path);
        free (self->spills[s].parts);
    }
    free (self->spills);
    self->spills = NULL;
    self->nspills = 0;
}

/* --- the API ---------------------------------------------------------- */

hearth_partwriter_t *
hearth_partwriter_new (const hearth_partwriter_opts_t *opts,
                       hearth_error_t *err)
{
    if (!opts->path || opts->partitions < 1
        || opts->partitions > HEARTH_MAX_PARTITIONS) {
        hearth_errprintf (err, "partitions must be 1..%u, not %u",
                          HEARTH_MAX_PARTITIONS, opts->partitions);
        return NULL;
    }
    hearth_partwriter_t *self = calloc (1, sizeof *self);
    if (!self)
        goto nomem;
    self->partitions = opts->partitions;
    self->sort = opts->sort;
    self->memory = opts->memory_bytes ? opts->memory_bytes : s_default_memory;
    if (self->memory < s_min_memory)
        self->memory = s_min_memory;
    self->path = strdup (opts->path);
    self->index = malloc (strlen (opts->path) + 8);
    if (opts->spill_dir)
        self->spill_dir = strdup (opts->spill_dir);
    else if (self->path) {
        char *copy = strdup (opts->path);
        self->spill_dir = copy ? strdup (dirname (copy)) : NULL;
        free (copy);
    }
    self->cap = self->memory / 2 > 4096 ? self->memory / 2 : 4096;
    if (!self->sort) { /* the arena holds an incomplete line only */
        self->buckets = hearth_partbuckets_new (self->partitions);
        self->cap = 4096;
    }
    self->arena = malloc (self->cap);
    self->parts = calloc (self->partitions, sizeof *self->parts);
    if (!self->path || !self->index || !self->spill_dir || !self->arena
        || !self->parts || (!self->sort && !self->buckets))
        goto nomem;
    sprintf (self->index, "%s.index", opts->path);
    return self;
nomem:
    hearth_partwriter_destroy (&self);
    hearth_errprintf (err, "out of memory");
    return NULL;
}

/* An arena of at least need bytes (doubled at least).  0 or -1. */
static int
s_grow_arena (hearth_partwriter_t *self, size_t need, hearth_error_t *err)
{
    size_t cap = self->cap * 2 > need ? self->cap * 2 : need;
    char *a = realloc (self->arena, cap);
    if (!a)
        return hearth_errprintf (err, "out of memory (a line of %zu bytes)",
                                 need);
    self->arena = a;
    self->cap = cap;
    return 0;
}

/* Room for len more bytes in the arena: spill what is held when the
   budget would pass, grow for a line longer than the arena. */
static int
s_make_room (hearth_partwriter_t *self, size_t len, hearth_error_t *err)
{
    if (self->used + len <= self->cap && s_held (self) + len <= self->memory)
        return 0;
    if (s_records (self) > 0 && s_spill (self, err) < 0)
        return -1;
    if (self->used + len <= self->cap)
        return 0;
    return s_grow_arena (self, self->used + len, err);
}

/* Unsorted: the incomplete line grown by len bytes at data. */
static int
s_carry (hearth_partwriter_t *self, const char *data, size_t len,
         hearth_error_t *err)
{
    if (self->used + len > self->cap
        && s_grow_arena (self, self->used + len, err) < 0)
        return -1;
    memcpy (self->arena + self->used, data, len);
    self->used += len;
    return 0;
}

/* Unsorted: one record into its partition's frames, after a spill when
   it would pass the budget (half of it, as the sorted arena). */
static int
s_route (hearth_partwriter_t *self, const char *rec, size_t len,
         hearth_error_t *err)
{
    if (s_too_long (len, err))
        return -1;
    size_t budget = self->memory / 2 > 4096 ? self->memory / 2 : 4096;
    if (hearth_partbuckets_held (self->buckets) + len > budget
        && hearth_partbuckets_records (self->buckets) > 0
        && s_spill (self, err) < 0)
        return -1;
    uint32_t part = hearth_record_partition (rec, len - 1, self->partitions);
    return hearth_partbuckets_add (self->buckets, part, rec, len, err);
}

/* Unsorted: the lines of data routed as they come, the incomplete one
   carried in the arena to the next write. */
static int
s_route_all (hearth_partwriter_t *self, const char *p, size_t len,
             hearth_error_t *err)
{
    const char *end = p + len;
    while (p < end) {
        const char *nl = memchr (p, '\n', (size_t) (end - p));
        if (!nl)
            return s_carry (self, p, (size_t) (end - p), err);
        size_t n = (size_t) (nl + 1 - p);
        if (self->used > 0) { /* the end of the carried line */
            if (s_carry (self, p, n, err) < 0
                || s_route (self, self->arena, self->used, err) < 0)
                return -1;
            self->used = 0;
        }
        else if (s_route (self, p, n, err) < 0)
            return -1;
        p += n;
    }
    return 0;
}

int
hearth_partwriter_write (hearth_partwriter_t *self, const void *data,
                         size_t len, hearth_error_t *err)
{
    if (self->buckets)
        return s_route_all (self, data, len, err);
    const char *p = data;
    while (len > 0) {
        /* Whatever fits of the budget, at least what makes progress. */
        size_t room = self->cap - self->used;
        size_t n = len < room ? len : room;
        if (n == 0 || s_held (self) + n > self->memory) {
            n = len < s_min_memory ? len : s_min_memory;
            if (s_make_room (self, n, err) < 0)
                return -1;
        }
        memcpy (self->arena + self->used, p, n);
        self->used += n;
        p += n;
        len -= n;
        if (s_scan (self, err) < 0)
            return -1;
    }
    return 0;
}

int
hearth_partwriter_finish (hearth_partwriter_t *self, hearth_error_t *err)
{
    if (self->finished)
        return 0;
    if (self->buckets && self->used > 0) { /* a last line without '\n' */
        if (s_route_all (self, "\n", 1, err) < 0)
            return -1;
    }
    else if (self->scan < self->used) { /* a last line without its '\n' */
        if (s_make_room (self, 1, err) < 0)
            return -1;
        self->arena[self->used++] = '\n';
        if (s_scan (self, err) < 0)
            return -1;
    }
    char *tmp = malloc (strlen (self->path) + 8);
    if (!tmp)
        return hearth_errprintf (err, "out of memory");
    sprintf (tmp, "%s.tmp", self->path);
    int rc;
    if (self->nspills == 0)
        rc = s_write_held (self, tmp, self->parts, err);
    else {
        rc = s_records (self) > 0 ? s_spill (self, err) : 0;
        if (rc == 0)
            rc = s_merge_spills (self, tmp, err);
    }
    if (rc == 0 && rename (tmp, self->path) < 0)
        rc = hearth_errcode (err, "io", "cannot rename %s: %s", tmp,
                             strerror (errno));
    if (rc == 0)
        rc = hearth_partindex_write (self->index, self->partitions, self->sort,
                                     self->parts, err);
    if (rc < 0) {
        unlink (tmp);
        unlink (self->path);
    }
    free (tmp);
    s_remove_spills (self);
    self->finished = rc == 0;
    return rc;
}

const hearth_part_t *
hearth_partwriter_parts (const hearth_partwriter_t *self)
{
    return self->finished ? self->parts : NULL;
}

size_t
hearth_partwriter_spills (const hearth_partwriter_t *self)
{
    return self->spilled;
}

void
hearth_partwriter_destroy (hearth_partwriter_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_partwriter_t *self = *self_p;
    s_remove_spills (self);
    free (self->path);
    free (self->index);
    free (self->spill_dir);
    free (self->arena);
    free (self->ents);
    hearth_partbuckets_destroy (&self->buckets);
    free (self->parts);
    free (self);
    *self_p = NULL;
    errno = saved;
}

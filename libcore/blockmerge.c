/*  blockmerge.c - a reduce task's blocks as one stream, merged in passes
    of bounded fan-in when sorted; see blockmerge.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/blockmerge.h"
#include "libcore/kmerge.h"
#include "libcore/partfmt.h"
#include "libcore/safefile.h"

/* Blocks open at once unless told otherwise. */
static const size_t s_default_fanin = 64;

/* A block of the current level (its path owned). */
typedef struct {
    char *path;      /* the file */
    uint64_t offset; /* of its first frame */
    uint64_t length; /* stored bytes */
} s_block_t;

struct hearth_blockmerge {
    s_block_t *blocks;             /* the blocks of the current level */
    size_t n;                      /* entries in blocks */
    bool sorted;                   /* merge by key */
    size_t fanin;                  /* blocks open at once, at most */
    char *tmp_dir;                 /* where intermediate files go */
    char **temps;                  /* intermediate files made */
    size_t ntemps;                 /* entries in temps */
    size_t passes;                 /* merge passes before the final one */
    bool started;                  /* the final pass is open */
    size_t next_block;             /* unsorted: the next block to open */
    hearth_partreader_t *reader;   /* unsorted: the block being read */
    hearth_partreader_t **readers; /* sorted: the final pass's blocks */
    hearth_kmerge_t *merge;        /* sorted: their merge */
};

/* A reader of one block.  NULL with err. */
static hearth_partreader_t *
s_open (const s_block_t *b, hearth_error_t *err)
{
    return hearth_partreader_new (b->path, b->offset, b->length, err);
}

static void
s_close_all (hearth_partreader_t **readers, size_t n)
{
    for (size_t i = 0; readers && i < n; i++)
        hearth_partreader_destroy (&readers[i]);
}

/* Readers of blocks[0..n) and their merge, into *readers and *merge.
   0, or -1 with err (nothing left open). */
static int
s_open_merge (const s_block_t *blocks, size_t n, hearth_partreader_t ***readers,
              hearth_kmerge_t **merge, hearth_error_t *err)
{
    *readers = calloc (n ? n : 1, sizeof **readers);
    if (!*readers)
        return hearth_errprintf (err, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (!((*readers)[i] = s_open (&blocks[i], err)))
            goto error;
    *merge = hearth_kmerge_new (
        (void *const *) *readers, n,
        (hearth_kmerge_next_fn *) hearth_partreader_next, err);
    if (*merge)
        return 0;
error:
    s_close_all (*readers, n);
    free (*readers);
    *readers = NULL;
    return -1;
}

/* Merge blocks[0..n) into a new intermediate file, the block it is in
 *out.  0, or -1 with err. */
static int
s_merge_group (hearth_blockmerge_t *self, const s_block_t *blocks, size_t n,
               s_block_t *out, hearth_error_t *err)
{
    char **t = realloc (self->temps, (self->ntemps + 1) * sizeof *t);
    if (!t)
        return hearth_errprintf (err, "out of memory");
    self->temps = t;
    size_t size = strlen (self->tmp_dir) + 48;
    char *path = malloc (size);
    if (!path)
        return hearth_errprintf (err, "out of memory");
    snprintf (path, size, "%s/.merge%zu", self->tmp_dir, self->ntemps);
    t[self->ntemps++] = path; /* removed by destroy, whatever happens */
    hearth_partreader_t **readers;
    hearth_kmerge_t *merge;
    if (s_open_merge (blocks, n, &readers, &merge, err) < 0)
        return -1;
    int fd = hearth_file_create (path, O_WRONLY, 0600, true);
    hearth_framer_t fr = {.buf = NULL};
    int rc = fd < 0 ? hearth_errcode (err, "io", "cannot create %s: %s", path,
                                      hearth_file_why (errno))
                    : hearth_framer_init (&fr, fd, err);
    const char *rec;
    size_t len;
    while (rc == 0
           && (rc = hearth_kmerge_next (merge, &rec, &len, NULL, err)) > 0)
        rc = hearth_framer_write (&fr, rec, len, err);
    if (rc == 0)
        rc = hearth_framer_flush (&fr, err);
    uint64_t written = fr.written;
    hearth_framer_release (&fr);
    if (fd >= 0 && close (fd) < 0 && rc == 0)
        rc = hearth_errcode (err, "io", "cannot write %s: %s", path,
                             strerror (errno));
    hearth_kmerge_destroy (&merge);
    s_close_all (readers, n);
    free (readers);
    *out = (s_block_t){path, 0, written};
    return rc < 0 ? -1 : 0;
}

/* Merge passes until at most fanin files are left.  0 or -1. */
static int
s_reduce_fanin (hearth_blockmerge_t *self, hearth_error_t *err)
{
    while (self->n > self->fanin) {
        size_t groups = (self->n + self->fanin - 1) / self->fanin;
        s_block_t *next = calloc (groups, sizeof *next);
        if (!next)
            return hearth_errprintf (err, "out of memory");
        for (size_t g = 0; g < groups; g++) {
            size_t first = g * self->fanin;
            size_t count =
                self->n - first < self->fanin ? self->n - first : self->fanin;
            if (s_merge_group (self, self->blocks + first, count, &next[g], err)
                < 0) {
                free (next);
                return -1;
            }
        }
        /* The level's files are done with: the blocks' copied paths are
           freed (the blocks stay the caller's), a former level's
           intermediate files removed (their paths stay in temps). */
        for (size_t i = 0; i < self->n; i++) {
            if (self->passes == 0)
                free (self->blocks[i].path);
            else
                unlink (self->blocks[i].path);
        }
        free (self->blocks);
        self->blocks = next;
        self->n = groups;
        self->passes++;
    }
    return 0;
}

hearth_blockmerge_t *
hearth_blockmerge_new (const hearth_block_ref_t *blocks, size_t n, bool sorted,
                       size_t max_fanin, const char *tmp_dir,
                       hearth_error_t *err)
{
    hearth_blockmerge_t *self = calloc (1, sizeof *self);
    if (!self)
        goto nomem;
    self->blocks = calloc (n ? n : 1, sizeof *self->blocks);
    self->tmp_dir = strdup (tmp_dir ? tmp_dir : ".");
    if (!self->blocks || !self->tmp_dir)
        goto nomem;
    self->sorted = sorted;
    self->fanin = max_fanin >= 2 ? max_fanin : s_default_fanin;
    for (size_t i = 0; i < n; i++) {
        if (blocks[i].length == 0)
            continue; /* nothing to open */
        s_block_t *b = &self->blocks[self->n++];
        *b = (s_block_t){strdup (blocks[i].path), blocks[i].offset,
                         blocks[i].length};
        if (!b->path)
            goto nomem;
    }
    return self;
nomem:
    hearth_blockmerge_destroy (&self);
    hearth_errprintf (err, "out of memory");
    return NULL;
}

/* Unsorted: the blocks one after the other, a record at a time (max 0)
   or runs of up to max bytes. */
static int
s_next_unsorted (hearth_blockmerge_t *self, size_t max, const char **data,
                 size_t *len, hearth_error_t *err)
{
    for (;;) {
        if (self->reader) {
            int rc =
                max ? hearth_partreader_next_run (self->reader, max, data, len,
                                                  err)
                    : hearth_partreader_next (self->reader, data, len, err);
            if (rc != 0)
                return rc;
            hearth_partreader_destroy (&self->reader);
        }
        if (self->next_block == self->n)
            return 0;
        if (!(self->reader = s_open (&self->blocks[self->next_block++], err)))
            return -1;
    }
}

int
hearth_blockmerge_next (hearth_blockmerge_t *self, const char **rec,
                        size_t *len, hearth_error_t *err)
{
    if (!self->started) {
        self->started = true;
        if (self->sorted
            && (s_reduce_fanin (self, err) < 0
                || s_open_merge (self->blocks, self->n, &self->readers,
                                 &self->merge, err)
                       < 0))
            return -1;
    }
    if (self->sorted)
        return hearth_kmerge_next (self->merge, rec, len, NULL, err);
    return s_next_unsorted (self, 0, rec, len, err);
}

int
hearth_blockmerge_next_run (hearth_blockmerge_t *self, size_t max,
                            const char **data, size_t *len, hearth_error_t *err)
{
    if (self->sorted)
        return hearth_blockmerge_next (self, data, len, err);
    self->started = true;
    return s_next_unsorted (self, max ? max : 1, data, len, err);
}

size_t
hearth_blockmerge_passes (const hearth_blockmerge_t *self)
{
    return self->passes;
}

void
hearth_blockmerge_destroy (hearth_blockmerge_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_blockmerge_t *self = *self_p;
    hearth_kmerge_destroy (&self->merge);
    s_close_all (self->readers, self->n);
    free (self->readers);
    hearth_partreader_destroy (&self->reader);
    /* the current level's files are copies (the blocks) or temps (their
       paths owned by temps): free only the copies */
    if (self->passes == 0)
        for (size_t i = 0; self->blocks && i < self->n; i++)
            free (self->blocks[i].path);
    free (self->blocks);
    for (size_t i = 0; i < self->ntemps; i++) {
        unlink (self->temps[i]);
        free (self->temps[i]);
    }
    free (self->temps);
    free (self->tmp_dir);
    free (self);
    *self_p = NULL;
    errno = saved;
}

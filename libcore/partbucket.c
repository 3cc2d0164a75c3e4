/*  partbucket.c - an unsorted map output's records held in their
    partitions' frames; see partbucket.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/crc32c.h"
#include "libcore/fstree.h"
#include "libcore/partbucket.h"

/* A partition's first frame starts this small (payload bytes) and
   doubles: with a thousand partitions of a few records each, a full
   frame apiece would be most of the budget. */
enum { s_first_cap = 64 };

/* One partition's frames. */
typedef struct {
    unsigned char **frames; /* header room, then payload; all but the last
                               full */
    size_t n, cap;          /* frames used, table entries allocated */
    size_t last_used;       /* payload bytes in the last frame */
    size_t last_cap;        /* payload bytes the last frame has room for */
    uint64_t bytes;         /* record bytes held */
    uint64_t records;       /* records held */
} s_bucket_t;

struct hearth_partbuckets {
    s_bucket_t *b;       /* R buckets */
    uint32_t partitions; /* R */
    size_t held;         /* bytes allocated for frames and tables */
    size_t records;      /* records held, all partitions */
};

hearth_partbuckets_t *
hearth_partbuckets_new (uint32_t partitions)
{
    hearth_partbuckets_t *self = calloc (1, sizeof *self);
    if (!self || !(self->b = calloc (partitions, sizeof *self->b))) {
        free (self);
        return NULL;
    }
    self->partitions = partitions;
    return self;
}

/* A new last frame for b, of payload room cap.  0 or -1. */
static int
s_new_frame (hearth_partbuckets_t *self, s_bucket_t *b, size_t cap)
{
    if (b->n == b->cap) {
        size_t n = b->cap ? b->cap * 2 : 4;
        unsigned char **f = realloc (b->frames, n * sizeof *f);
        if (!f)
            return -1;
        self->held += (n - b->cap) * sizeof *f;
        b->frames = f;
        b->cap = n;
    }
    if (!(b->frames[b->n] = malloc (HEARTH_FRAME_HEADER + cap)))
        return -1;
    b->n++;
    b->last_used = 0;
    b->last_cap = cap;
    self->held += HEARTH_FRAME_HEADER + cap;
    return 0;
}

/* Room for want more payload bytes (at most what the last frame lacks
   of a full one) in b's last frame.  0 or -1. */
static int
s_grow_last (hearth_partbuckets_t *self, s_bucket_t *b, size_t want)
{
    size_t cap = b->last_cap;
    while (cap < b->last_used + want)
        cap *= 2;
    cap = cap < HEARTH_FRAME_MAX ? cap : HEARTH_FRAME_MAX;
    unsigned char *f = realloc (b->frames[b->n - 1], HEARTH_FRAME_HEADER + cap);
    if (!f)
        return -1;
    self->held += cap - b->last_cap;
    b->frames[b->n - 1] = f;
    b->last_cap = cap;
    return 0;
}

int
hearth_partbuckets_add (hearth_partbuckets_t *self, uint32_t part,
                        const char *rec, size_t len, hearth_error_t *err)
{
    s_bucket_t *b = &self->b[part];
    b->bytes += len;
    b->records++;
    self->records++;
    while (len > 0) {
        if (b->n == 0 || b->last_used == HEARTH_FRAME_MAX) {
            /* the first frame small; after a full one, full ones */
            size_t cap = b->n ? HEARTH_FRAME_MAX : s_first_cap;
            if (s_new_frame (self, b, cap) < 0)
                return hearth_errprintf (err, "out of memory");
        }
        size_t room = HEARTH_FRAME_MAX - b->last_used;
        size_t n = len < room ? len : room;
        if (b->last_used + n > b->last_cap && s_grow_last (self, b, n) < 0)
            return hearth_errprintf (err, "out of memory");
        memcpy (b->frames[b->n - 1] + HEARTH_FRAME_HEADER + b->last_used, rec,
                n);
        b->last_used += n;
        rec += n;
        len -= n;
    }
    return 0;
}

size_t
hearth_partbuckets_held (const hearth_partbuckets_t *self)
{
    return self->held;
}

size_t
hearth_partbuckets_records (const hearth_partbuckets_t *self)
{
    return self->records;
}

static void
s_put32 (unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char) (v >> (8 * i));
}

/* Free b's frames and their table: after a spill, what a partition
   held costs nothing (with many partitions and a small budget, tables
   kept would be the budget). */
static void
s_empty (hearth_partbuckets_t *self, s_bucket_t *b)
{
    for (size_t f = 0; f < b->n; f++)
        free (b->frames[f]);
    self->held -= b->n ? (b->n - 1) * (HEARTH_FRAME_HEADER + HEARTH_FRAME_MAX)
                             + HEARTH_FRAME_HEADER + b->last_cap
                       : 0;
    self->held -= b->cap * sizeof *b->frames;
    free (b->frames);
    *b = (s_bucket_t){.frames = NULL};
}

int
hearth_partbuckets_write (hearth_partbuckets_t *self, int fd,
                          hearth_part_t *parts, hearth_error_t *err)
{
    uint64_t written = 0;
    int rc = 0;
    for (uint32_t p = 0; p < self->partitions; p++) {
        s_bucket_t *b = &self->b[p];
        parts[p] = (hearth_part_t){
            .offset = written, .bytes = b->bytes, .records = b->records};
        for (size_t f = 0; rc == 0 && f < b->n; f++) {
            unsigned char *frame = b->frames[f];
            size_t used = f + 1 < b->n ? HEARTH_FRAME_MAX : b->last_used;
            s_put32 (frame, (uint32_t) used);
            s_put32 (frame + 4,
                     hearth_crc32c (frame + HEARTH_FRAME_HEADER, used));
            if (hearth_write_all (fd, frame, HEARTH_FRAME_HEADER + used) < 0)
                rc = hearth_errcode (err, "io", "cannot write: %s",
                                     strerror (errno));
            written += HEARTH_FRAME_HEADER + used;
        }
        parts[p].length = written - parts[p].offset;
        s_empty (self, b);
    }
    self->records = 0;
    return rc;
}

void
hearth_partbuckets_destroy (hearth_partbuckets_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    hearth_partbuckets_t *self = *self_p;
    for (uint32_t p = 0; p < self->partitions; p++)
        s_empty (self, &self->b[p]);
    free (self->b);
    free (self);
    *self_p = NULL;
}

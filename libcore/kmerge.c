/*  kmerge.c - a binary heap of sorted record streams; see kmerge.h. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "libcore/kmerge.h"
#include "libcore/records.h"

/* One source's current record. */
typedef struct {
    const char *rec; /* its bytes, '\n' included (the source's) */
    size_t len;      /* with the '\n' */
    size_t source;   /* index of its source */
} s_head_t;

struct hearth_kmerge {
    void *const *sources;        /* borrowed */
    hearth_kmerge_next_fn *next; /* reads a source */
    s_head_t *heap;              /* the live sources' current records */
    size_t n;                    /* live sources in the heap */
    bool started;                /* every source has been read once */
    bool advance;                /* the top was handed out: read its next */
};

/* a goes before b: smaller key, or the same key from an earlier source. */
static bool
s_before (const s_head_t *a, const s_head_t *b)
{
    int c = hearth_record_key_cmp (a->rec, a->len - 1, b->rec, b->len - 1);
    return c < 0 || (c == 0 && a->source < b->source);
}

static void
s_sift_down (hearth_kmerge_t *self, size_t i)
{
    s_head_t *h = self->heap;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < self->n && s_before (&h[l], &h[m]))
            m = l;
        if (r < self->n && s_before (&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        s_head_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

hearth_kmerge_t *
hearth_kmerge_new (void *const *sources, size_t n, hearth_kmerge_next_fn *next,
                   hearth_error_t *err)
{
    hearth_kmerge_t *self = calloc (1, sizeof *self);
    if (self)
        self->heap = calloc (n ? n : 1, sizeof *self->heap);
    if (!self || !self->heap) {
        free (self);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->sources = sources;
    self->next = next;
    /* The heap fills on the first call, so that a source's error is the
       caller's to see there. */
    self->n = n;
    return self;
}

/* Read source into slot, or drop the slot at its end.  0 or -1. */
static int
s_read (hearth_kmerge_t *self, size_t slot, size_t source, hearth_error_t *err)
{
    s_head_t *h = &self->heap[slot];
    int rc = self->next (self->sources[source], &h->rec, &h->len, err);
    if (rc < 0)
        return -1;
    if (rc > 0 && h->len > 0 && h->rec[h->len - 1] == '\n') {
        h->source = source;
        return 0;
    }
    if (rc > 0)
        return hearth_errcode (err, "bad_frame",
                               "a record without its newline");
    self->heap[slot] = self->heap[--self->n];
    return 1; /* slot now holds another source's record, or none */
}

static int
s_start (hearth_kmerge_t *self, hearth_error_t *err)
{
    size_t total = self->n;
    self->n = 0;
    for (size_t s = 0; s < total; s++) {
        self->n++;
        int rc = s_read (self, self->n - 1, s, err);
        if (rc < 0)
            return -1;
    }
    for (size_t i = self->n; i-- > 0;)
        s_sift_down (self, i);
    self->started = true;
    return 0;
}

int
hearth_kmerge_next (hearth_kmerge_t *self, const char **rec, size_t *len,
                    size_t *source, hearth_error_t *err)
{
    if (!self->started && s_start (self, err) < 0)
        return -1;
    if (self->advance && self->n > 0) {
        self->advance = false;
        if (s_read (self, 0, self->heap[0].source, err) < 0)
            return -1;
        s_sift_down (self, 0);
    }
    if (self->n == 0)
        return 0;
    *rec = self->heap[0].rec;
    *len = self->heap[0].len;
    if (source)
        *source = self->heap[0].source;
    self->advance = true;
    return 1;
}

void
hearth_kmerge_destroy (hearth_kmerge_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    free ((*self_p)->heap);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

/*  partfmt.c - frames, the index and the record reader of a map
    output; see partfmt.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/crc32c.h"
#include "libcore/fstree.h"
#include "libcore/partfmt.h"
#include "libcore/safefile.h"

static const char s_index_magic[8] = {'H', 'R', 'T', 'H', 'I', 'D', 'X', '1'};
/* Stored bytes a reader asks of the file at a time. */
static const size_t s_read_chunk = 64 * 1024;

static void
s_put32 (unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char) (v >> (8 * i));
}

static uint32_t
s_get32 (const unsigned char *p)
{
    return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
           | (uint32_t) p[3] << 24;
}

static void
s_put64 (unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char) (v >> (8 * i));
}

static uint64_t
s_get64 (const unsigned char *p)
{
    return (uint64_t) s_get32 (p) | (uint64_t) s_get32 (p + 4) << 32;
}

/* Write all of len bytes, or -1 with err. */
static int
s_write_all (int fd, const void *data, size_t len, hearth_error_t *err)
{
    if (hearth_write_all (fd, data, len) < 0)
        return hearth_errcode (err, "io", "cannot write: %s", strerror (errno));
    return 0;
}

/* --- writing frames --------------------------------------------------- */

int
hearth_framer_init (hearth_framer_t *self, int fd, hearth_error_t *err)
{
    memset (self, 0, sizeof *self);
    self->fd = fd;
    self->buf = malloc (HEARTH_FRAME_HEADER + HEARTH_FRAME_MAX);
    if (!self->buf)
        return hearth_errprintf (err, "out of memory");
    return 0;
}

int
hearth_framer_flush (hearth_framer_t *self, hearth_error_t *err)
{
    if (self->used == 0)
        return 0;
    unsigned char *payload = self->buf + HEARTH_FRAME_HEADER;
    s_put32 (self->buf, (uint32_t) self->used);
    s_put32 (self->buf + 4, hearth_crc32c (payload, self->used));
    size_t stored = HEARTH_FRAME_HEADER + self->used;
    if (s_write_all (self->fd, self->buf, stored, err) < 0)
        return -1;
    self->written += stored;
    self->used = 0;
    return 0;
}

int
hearth_framer_write (hearth_framer_t *self, const void *data, size_t len,
                     hearth_error_t *err)
{
    const char *p = data;
    while (len > 0) {
        size_t room = HEARTH_FRAME_MAX - self->used;
        size_t n = len < room ? len : room;
        memcpy (self->buf + HEARTH_FRAME_HEADER + self->used, p, n);
        self->used += n;
        p += n;
        len -= n;
        if (self->used == HEARTH_FRAME_MAX
            && hearth_framer_flush (self, err) < 0)
            return -1;
    }
    return 0;
}

void
hearth_framer_release (hearth_framer_t *self)
{
    free (self->buf);
    self->buf = NULL;
    self->used = 0;
}

uint64_t
hearth_frames_size (uint64_t len)
{
    uint64_t frames = (len + HEARTH_FRAME_MAX - 1) / HEARTH_FRAME_MAX;
    return len + frames * HEARTH_FRAME_HEADER;
}

uint64_t
hearth_frames_payload (const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t payload = 0;
    size_t at = 0;
    while (len - at >= HEARTH_FRAME_HEADER) {
        uint32_t n = s_get32 (p + at);
        payload += n;
        at += HEARTH_FRAME_HEADER + n;
        if (at > len)
            break;
    }
    return payload;
}

void
hearth_frames_encode (const void *payload, size_t len, unsigned char *out)
{
    const unsigned char *p = payload;
    while (len > 0) {
        size_t n = len < HEARTH_FRAME_MAX ? len : HEARTH_FRAME_MAX;
        s_put32 (out, (uint32_t) n);
        s_put32 (out + 4, hearth_crc32c (p, n));
        memcpy (out + HEARTH_FRAME_HEADER, p, n);
        out += HEARTH_FRAME_HEADER + n;
        p += n;
        len -= n;
    }
}

/* --- reading frames --------------------------------------------------- */

void
hearth_unframer_init (hearth_unframer_t *self)
{
    memset (self, 0, sizeof *self);
}

/* The header is whole: check it and start its payload. */
static int
s_start_frame (hearth_unframer_t *self, hearth_error_t *err)
{
    self->want = s_get32 (self->header);
    self->crc = s_get32 (self->header + 4);
    self->got = 0;
    if (self->want == 0 || self->want > HEARTH_FRAME_MAX)
        return hearth_errcode (
            err, "bad_frame", "frame %llu claims %u payload bytes (1..%u)",
            (unsigned long long) self->frames, self->want, HEARTH_FRAME_MAX);
    return 0;
}

int
hearth_unframer_feed (hearth_unframer_t *self, const void *data, size_t len,
                      unsigned char *scratch, hearth_payload_fn *fn, void *arg,
                      hearth_error_t *err)
{
    const unsigned char *p = data;
    while (len > 0) {
        if (self->header_used < HEARTH_FRAME_HEADER) {
            size_t n = HEARTH_FRAME_HEADER - self->header_used;
            n = n < len ? n : len;
            memcpy (self->header + self->header_used, p, n);
            self->header_used += n;
            p += n;
            len -= n;
            if (self->header_used == HEARTH_FRAME_HEADER
                && s_start_frame (self, err) < 0)
                return -1;
            continue;
        }
        size_t n = self->want - self->got;
        if (self->got == 0 && len >= n) {
            /* the whole payload is in data: check and hand it in place */
            if (hearth_crc32c (p, n) != self->crc)
                return hearth_errcode (err, "checksum",
                                       "frame %llu: checksum mismatch",
                                       (unsigned long long) self->frames);
            self->frames++;
            self->header_used = 0;
            if (fn (arg, p, n, err) < 0)
                return -1;
            p += n;
            len -= n;
            continue;
        }
        n = n < len ? n : len;
        memcpy (scratch + self->got, p, n);
        self->got += (uint32_t) n;
        p += n;
        len -= n;
        if (self->got < self->want)
            continue;
        if (hearth_crc32c (scratch, self->want) != self->crc)
            return hearth_errcode (err, "checksum",
                                   "frame %llu: checksum mismatch",
                                   (unsigned long long) self->frames);
        self->frames++;
        self->header_used = 0;
        if (fn (arg, scratch, self->want, err) < 0)
            return -1;
    }
    return 0;
}

int
hearth_unframer_end (const hearth_unframer_t *self, hearth_error_t *err)
{
    if (self->header_used == 0)
        return 0;
    return hearth_errcode (err, "truncated",
                           "the stream ends inside frame %llu",
                           (unsigned long long) self->frames);
}

/* --- the index -------------------------------------------------------- */

enum { s_index_head = 16, s_index_entry = 32 };

int
hearth_partindex_write (const char *path, uint32_t partitions, bool sorted,
                        const hearth_part_t *parts, hearth_error_t *err)
{
    size_t size = s_index_head + (size_t) partitions * s_index_entry + 4;
    unsigned char *buf = malloc (size);
    if (!buf)
        return hearth_errprintf (err, "out of memory");
    memcpy (buf, s_index_magic, 8);
    s_put32 (buf + 8, partitions);
    s_put32 (buf + 12, sorted ? 1u : 0u);
    for (uint32_t i = 0; i < partitions; i++) {
        unsigned char *e = buf + s_index_head + (size_t) i * s_index_entry;
        s_put64 (e, parts[i].offset);
        s_put64 (e + 8, parts[i].length);
        s_put64 (e + 16, parts[i].bytes);
        s_put64 (e + 24, parts[i].records);
    }
    s_put32 (buf + size - 4, hearth_crc32c (buf, size - 4));
    char tmp[4200];
    int rc = -1;
    if (snprintf (tmp, sizeof tmp, "%s.tmp", path) >= (int) sizeof tmp) {
        hearth_errprintf (err, "path too long: %s", path);
        goto done;
    }
    int fd = hearth_file_create (tmp, O_WRONLY, 0600, true);
    if (fd < 0) {
        hearth_errcode (err, "io", "cannot create %s: %s", tmp,
                        hearth_file_why (errno));
        goto done;
    }
    rc = s_write_all (fd, buf, size, err);
    if (close (fd) < 0 && rc == 0)
        rc = hearth_errcode (err, "io", "cannot write %s: %s", tmp,
                             strerror (errno));
    if (rc == 0 && rename (tmp, path) < 0)
        rc = hearth_errcode (err, "io", "cannot rename %s: %s", tmp,
                             strerror (errno));
    if (rc < 0)
        unlink (tmp);
done:
    free (buf);
    return rc;
}

int
hearth_partindex_read (const char *path, uint32_t *partitions, bool *sorted,
                       hearth_part_t **parts, hearth_error_t *err)
{
    FILE *f = fopen (path, "rbe");
    if (!f)
        return hearth_errcode (err, "io", "cannot open %s: %s", path,
                               strerror (errno));
    unsigned char head[s_index_head];
    unsigned char *buf = NULL;
    int rc = -1;
    if (fread (head, 1, sizeof head, f) != sizeof head
        || memcmp (head, s_index_magic, 8) != 0) {
        hearth_errcode (err, "checksum", "%s is not a map output index", path);
        goto done;
    }
    uint32_t n = s_get32 (head + 8);
    if (n == 0 || n > HEARTH_MAX_PARTITIONS) {
        hearth_errcode (err, "checksum", "%s names %u partitions", path, n);
        goto done;
    }
    size_t size = s_index_head + (size_t) n * s_index_entry + 4;
    buf = malloc (size);
    *parts = calloc (n, sizeof **parts);
    if (!buf || !*parts) {
        hearth_errprintf (err, "out of memory");
        goto done;
    }
    memcpy (buf, head, sizeof head);
    size_t rest = size - sizeof head;
    if (fread (buf + sizeof head, 1, rest, f) != rest
        || s_get32 (buf + size - 4) != hearth_crc32c (buf, size - 4)) {
        hearth_errcode (err, "checksum", "%s is damaged (its checksum)", path);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *e =
            buf + s_index_head + (size_t) i * s_index_entry;
        (*parts)[i] = (hearth_part_t){s_get64 (e), s_get64 (e + 8),
                                      s_get64 (e + 16), s_get64 (e + 24)};
    }
    *partitions = n;
    *sorted = (s_get32 (head + 12) & 1u) != 0;
    rc = 0;
done:
    if (rc < 0) {
        free (*parts);
        *parts = NULL;
    }
    free (buf);
    fclose (f);
    return rc;
}

/* --- reading records back --------------------------------------------- */

struct hearth_partreader {
    int fd;                   /* the data file */
    uint64_t left;            /* stored bytes of the segment not yet read */
    hearth_unframer_t frames; /* checks what is read */
    unsigned char *scratch;   /* one frame's payload */
    unsigned char *chunk;     /* stored bytes as read */
    char *pending;            /* checked payload not yet handed out */
    size_t start, end, cap;   /* pending[start..end) is unread */
    bool eof;                 /* the segment is all read and checked */
};

/* The unframer's callback: append checked payload to pending. */
static int
s_append (void *arg, const void *data, size_t len, hearth_error_t *err)
{
    hearth_partreader_t *self = arg;
    if (self->start > 0 && self->end + len > self->cap) {
        memmove (self->pending, self->pending + self->start,
                 self->end - self->start);
        self->end -= self->start;
        self->start = 0;
    }
    if (self->end + len > self->cap) {
        size_t cap =
            self->cap * 2 > self->end + len ? self->cap * 2 : self->end + len;
        char *p = realloc (self->pending, cap);
        if (!p)
            return hearth_errprintf (err, "out of memory");
        self->pending = p;
        self->cap = cap;
    }
    memcpy (self->pending + self->end, data, len);
    self->end += len;
    return 0;
}

/* Read and check the next chunk of the segment.  0, or -1 with err. */
static int
s_fill (hearth_partreader_t *self, hearth_error_t *err)
{
    if (self->left == 0) {
        self->eof = true;
        return hearth_unframer_end (&self->frames, err);
    }
    size_t want =
        self->left < s_read_chunk ? (size_t) self->left : s_read_chunk;
    ssize_t n;
    do
        n = read (self->fd, self->chunk, want);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return hearth_errcode (err, "io", "cannot read: %s", strerror (errno));
    if (n == 0)
        return hearth_errcode (err, "truncated",
                               "the file ends %llu bytes before its block",
                               (unsigned long long) self->left);
    self->left -= (uint64_t) n;
    return hearth_unframer_feed (&self->frames, self->chunk, (size_t) n,
                                 self->scratch, s_append, self, err);
}

hearth_partreader_t *
hearth_partreader_new (const char *path, uint64_t offset, uint64_t length,
                       hearth_error_t *err)
{
    hearth_partreader_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->fd = -1;
    self->scratch = malloc (HEARTH_FRAME_MAX);
    self->chunk = malloc (s_read_chunk);
    if (!self->scratch || !self->chunk) {
        hearth_errprintf (err, "out of memory");
        goto error;
    }
    hearth_unframer_init (&self->frames);
    self->left = length;
    self->fd = open (path, O_RDONLY | O_CLOEXEC);
    if (self->fd < 0) {
        hearth_errcode (err, "io", "cannot open %s: %s", path,
                        strerror (errno));
        goto error;
    }
    if (offset > 0 && lseek (self->fd, (off_t) offset, SEEK_SET) < 0) {
        hearth_errcode (err, "io", "cannot seek in %s: %s", path,
                        strerror (errno));
        goto error;
    }
    return self;
error:
    hearth_partreader_destroy (&self);
    return NULL;
}

int
hearth_partreader_next (hearth_partreader_t *self, const char **rec,
                        size_t *len, hearth_error_t *err)
{
    size_t scanned = self->start;
    for (;;) {
        char *nl = self->end > scanned ? memchr (self->pending + scanned, '\n',
                                                 self->end - scanned)
                                       : NULL;
        if (nl) {
            *rec = self->pending + self->start;
            *len = (size_t) (nl + 1 - *rec);
            self->start += *len;
            return 1;
        }
        if (self->eof) {
            if (self->end > self->start)
                return hearth_errcode (err, "bad_frame",
                                       "the block ends inside a record");
            return 0;
        }
        /* s_fill may move pending: keep the scan position relative. */
        size_t from = self->end - self->start;
        if (s_fill (self, err) < 0)
            return -1;
        scanned = self->start + from;
    }
}

int
hearth_partreader_next_run (hearth_partreader_t *self, size_t max,
                            const char **data, size_t *len, hearth_error_t *err)
{
    for (;;) {
        size_t avail = self->end - self->start;
        size_t window = avail < max ? avail : max;
        char *at = self->pending + self->start;
        /* the last record that ends within max, else the first one */
        char *nl = window ? memrchr (at, '\n', window) : NULL;
        if (!nl && avail > window)
            nl = memchr (at + window, '\n', avail - window);
        if (nl) {
            *data = at;
            *len = (size_t) (nl + 1 - at);
            self->start += *len;
            return 1;
        }
        if (self->eof) {
            if (avail > 0)
                return hearth_errcode (err, "bad_frame",
                                       "the block ends inside a record");
            return 0;
        }
        if (s_fill (self, err) < 0)
            return -1;
    }
}

void
hearth_partreader_destroy (hearth_partreader_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_partreader_t *self = *self_p;
    if (self->fd >= 0)
        close (self->fd);
    free (self->scratch);
    free (self->chunk);
    free (self->pending);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/*  scan.c - the logs of a directory, and the lines of one log; see
    scan.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history/scan.h"
#include "libcore/safefile.h"

/* The read buffer's first size (most logs are smaller; a line longer
   than the buffer doubles it). */
static const size_t s_read_bytes = 256 << 10;
/* Rolled files are numbered below this (a damaged name is not a log). */
static const unsigned long s_max_file_no = 1000000;

bool
hist_log_name (const char *name, size_t *stem_len, unsigned *no)
{
    static const char ext[] = ".events";
    if (name[0] == '.')
        return false;
    const char *e = strstr (name, ext);
    while (e && e[sizeof ext - 1] != '\0' && e[sizeof ext - 1] != '.')
        e = strstr (e + 1, ext);
    if (!e || e == name)
        return false;
    const char *tail = e + sizeof ext - 1;
    unsigned long n = 0;
    if (*tail == '.') {
        char *end;
        if (tail[1] < '1' || tail[1] > '9')
            return false;
        n = strtoul (tail + 1, &end, 10);
        if (*end || n >= s_max_file_no)
            return false;
    }
    *stem_len = (size_t) (e - name);
    *no = (unsigned) n;
    return true;
}

static int
s_by_id (const void *a, const void *b)
{
    return strcmp (((const hist_log_t *) a)->id, ((const hist_log_t *) b)->id);
}

static int
s_by_no (const void *a, const void *b)
{
    unsigned x = ((const hist_file_t *) a)->no,
             y = ((const hist_file_t *) b)->no;
    return x < y ? -1 : x > y;
}

/* The log of stem in d, added at the end when new (d unsorted while
   scanning: the last one is the likely match, files coming in order). */
static hist_log_t *
s_log_of (hist_dir_t *d, size_t *alloc, const char *stem, size_t len)
{
    for (size_t i = d->n; i-- > 0 && i + 8 >= d->n;)
        if (strlen (d->logs[i].id) == len
            && memcmp (d->logs[i].id, stem, len) == 0)
            return &d->logs[i];
    if (d->n == *alloc) {
        size_t n = *alloc ? *alloc * 2 : 64;
        hist_log_t *l = realloc (d->logs, n * sizeof *l);
        if (!l)
            return NULL;
        d->logs = l;
        *alloc = n;
    }
    hist_log_t *log = &d->logs[d->n];
    *log = (hist_log_t){.id = strndup (stem, len)};
    if (!log->id)
        return NULL;
    d->n++;
    return log;
}

static int
s_add_file (hist_log_t *log, const char *name, unsigned no,
            const struct stat *st)
{
    hist_file_t *f = realloc (log->files, (log->nfiles + 1) * sizeof *f);
    if (!f)
        return -1;
    log->files = f;
    f = &log->files[log->nfiles];
    *f = (hist_file_t){strdup (name), no, (uint64_t) st->st_size,
                       st->st_mtim.tv_sec, st->st_mtim.tv_nsec};
    if (!f->name)
        return -1;
    log->nfiles++;
    log->bytes += f->size;
    int64_t ms =
        (int64_t) st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
    if (ms > log->mtime_ms)
        log->mtime_ms = ms;
    return 0;
}

/* Merge the entries of one stem that were not adjacent in readdir's
   order (s_log_of only looks back a little). */
static int
s_merge_dups (hist_dir_t *d)
{
    size_t w = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (w > 0 && strcmp (d->logs[w - 1].id, d->logs[i].id) == 0) {
            hist_log_t *to = &d->logs[w - 1], *from = &d->logs[i];
            hist_file_t *f =
                realloc (to->files, (to->nfiles + from->nfiles) * sizeof *f);
            if (!f)
                return -1;
            memcpy (f + to->nfiles, from->files, from->nfiles * sizeof *f);
            to->files = f;
            to->nfiles += from->nfiles;
            to->bytes += from->bytes;
            if (from->mtime_ms > to->mtime_ms)
                to->mtime_ms = from->mtime_ms;
            free (from->files);
            free (from->id);
            continue;
        }
        d->logs[w++] = d->logs[i];
    }
    d->n = w;
    return 0;
}

int
hist_dir_scan (const char *dir, hist_dir_t *out, hearth_error_t *err)
{
    *out = (hist_dir_t){0};
    DIR *dh = opendir (dir);
    if (!dh)
        return hearth_errprintf (err, "cannot read the directory %s: %s", dir,
                                 strerror (errno));
    size_t alloc = 0;
    struct dirent *de;
    errno = 0;
    while ((de = readdir (dh))) {
        size_t len;
        unsigned no;
        struct stat st;
        if (!hist_log_name (de->d_name, &len, &no))
            continue;
        /* a link is listed, not followed: reading it says so (the
           directory may be shared, the link lead where its maker may not
           read and this reader may) */
        if (fstatat (dirfd (dh), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0
            || !(S_ISREG (st.st_mode) || S_ISLNK (st.st_mode)))
            continue; /* gone since readdir, or not a file */
        hist_log_t *log = s_log_of (out, &alloc, de->d_name, len);
        if (!log || s_add_file (log, de->d_name, no, &st) < 0)
            goto nomem;
    }
    closedir (dh);
    if (out->n > 1)
        qsort (out->logs, out->n, sizeof *out->logs, s_by_id);
    if (s_merge_dups (out) < 0)
        goto nomem_closed;
    for (size_t i = 0; i < out->n; i++)
        qsort (out->logs[i].files, out->logs[i].nfiles, sizeof (hist_file_t),
               s_by_no);
    return 0;
nomem:
    closedir (dh);
nomem_closed:
    hist_dir_release (out);
    return hearth_errprintf (err, "out of memory");
}

void
hist_dir_release (hist_dir_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        for (size_t k = 0; k < d->logs[i].nfiles; k++)
            free (d->logs[i].files[k].name);
        free (d->logs[i].files);
        free (d->logs[i].id);
    }
    free (d->logs);
    *d = (hist_dir_t){0};
}

const hist_log_t *
hist_dir_find (const hist_dir_t *d, const char *id)
{
    hist_log_t key = {.id = (char *) id};
    return d->n ? bsearch (&key, d->logs, d->n, sizeof key, s_by_id) : NULL;
}

/* ---- the logs of a resumed application's drivers ------------------------ */

/* The driver epoch of stem id (N of APP_ID.driverN; 1 for any other
   stem) and the length of its APP_ID. */
static unsigned long
s_epoch (const char *id, size_t *app_len)
{
    static const char tag[] = ".driver";
    const char *t = strstr (id, tag), *last = NULL;
    for (; t; t = strstr (t + 1, tag))
        last = t;
    *app_len = strlen (id);
    if (!last || last == id)
        return 1;
    const char *n = last + sizeof tag - 1;
    char *end;
    if (*n < '1' || *n > '9')
        return 1;
    unsigned long epoch = strtoul (n, &end, 10);
    if (*end || epoch < 2 || epoch >= s_max_file_no)
        return 1;
    *app_len = (size_t) (last - id);
    return epoch;
}

/* The stem of the log in d of id's application whose epoch is the
   nearest above id's (next) or below it, or NULL. */
static const char *
s_driver_log (const hist_dir_t *d, const char *id, bool next)
{
    size_t len, n_len;
    unsigned long mine = s_epoch (id, &len), best = next ? ULONG_MAX : 0;
    const char *found = NULL;
    size_t lo = 0, hi = d->n; /* the first log not before the APP_ID */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strncmp (d->logs[mid].id, id, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < d->n && strncmp (d->logs[i].id, id, len) == 0;
         i++) {
        unsigned long e = s_epoch (d->logs[i].id, &n_len);
        if (n_len == len
            && (next ? e > mine && e < best : e < mine && e > best)) {
            best = e;
            found = d->logs[i].id;
        }
    }
    return found;
}

unsigned long
hist_driver_epoch (const char *id)
{
    size_t len;
    return s_epoch (id, &len);
}

const char *
hist_dir_next_driver (const hist_dir_t *d, const char *id)
{
    return s_driver_log (d, id, true);
}

const char *
hist_dir_prev_driver (const hist_dir_t *d, const char *id)
{
    return s_driver_log (d, id, false);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct {
    char *buf;         /* bytes read, not yet given as lines */
    size_t alloc;      /* its size */
    size_t have;       /* bytes in it */
    bool first;        /* no line given yet */
    uint64_t skipping; /* bytes of a line too long seen so far, 0: none */
    const char *file;  /* the file being read */
    hist_read_t *rd;   /* what is counted */
} s_reader_t;

/* A line of len bytes skipped: counted. */
static void
s_skipped (s_reader_t *r, uint64_t len)
{
    hist_read_t *rd = r->rd;
    if (rd->long_lines++ == 0)
        snprintf (rd->long_file, sizeof rd->long_file, "%.*s",
                  (int) sizeof rd->long_file - 1, r->file);
    if (len > rd->longest)
        rd->longest = len;
    r->first = false;
}

/* The end of a line being skipped, in r->buf's first bytes: dropped with
   it.  Returns false when the line goes on past the buffer. */
static bool
s_skip_end (s_reader_t *r)
{
    char *nl = memchr (r->buf, '\n', r->have);
    if (!nl) {
        r->skipping += r->have;
        r->have = 0;
        return false;
    }
    size_t n = (size_t) (nl - r->buf);
    s_skipped (r, r->skipping + n);
    r->skipping = 0;
    r->have -= n + 1;
    memmove (r->buf, nl + 1, r->have);
    return true;
}

/* Give the whole lines of r->buf to fn (those too long skipped); keep
   the rest at its start, or start skipping it when it is too long
   already. */
static int
s_lines (s_reader_t *r, hist_line_fn *fn, void *arg)
{
    if (r->skipping && !s_skip_end (r))
        return 0;
    char *p = r->buf, *end = r->buf + r->have;
    char *nl;
    while (p < end && (nl = memchr (p, '\n', (size_t) (end - p)))) {
        size_t len = (size_t) (nl - p);
        int rc = 0;
        if (len > HIST_MAX_LINE)
            s_skipped (r, len);
        else
            rc = fn (arg, p, len, r->first);
        r->first = false;
        if (rc)
            return rc;
        p = nl + 1;
    }
    r->have = (size_t) (end - p);
    if (r->have > HIST_MAX_LINE) {
        r->skipping = r->have;
        r->have = 0;
    }
    memmove (r->buf, p, r->have);
    return 0;
}

static int
s_read_file (s_reader_t *r, const char *path, hist_line_fn *fn, void *arg,
             hearth_error_t *err)
{
    r->file = path;
    /* DIR may be shared (drivers of several users write their logs
       there): a link left at a log's name is not followed, a FIFO does
       not block the reader (safefile.h) */
    int fd = hearth_file_open_regular_at (AT_FDCWD, path, O_RDONLY | O_NOFOLLOW,
                                          0, NULL);
    if (fd < 0)
        return hearth_errprintf (err, "cannot open %s: %s", path,
                                 hearth_file_why (errno));
    int rc = 0;
    for (;;) {
        if (r->have == r->alloc) {
            size_t n = r->alloc ? r->alloc * 2 : s_read_bytes;
            char *b = realloc (r->buf, n);
            if (!b) {
                rc = hearth_errprintf (err, "out of memory reading %s", path);
                break;
            }
            r->buf = b;
            r->alloc = n;
        }
        ssize_t got = read (fd, r->buf + r->have, r->alloc - r->have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = hearth_errprintf (err, "cannot read %s: %s", path,
                                   strerror (errno));
            break;
        }
        if (got == 0)
            break;
        r->have += (size_t) got;
        if ((rc = s_lines (r, fn, arg)))
            break;
    }
    close (fd);
    return rc;
}

int
hist_log_read (const char *dir, const hist_log_t *log, hist_line_fn *fn,
               void *arg, hist_read_t *rd, hearth_error_t *err)
{
    s_reader_t r = {.first = true, .rd = rd};
    int rc = 0;
    *rd = (hist_read_t){.cut = false};
    for (size_t i = 0; i < log->nfiles && !rc; i++) {
        char path[4096];
        snprintf (path, sizeof path, "%s/%s", dir, log->files[i].name);
        rc = s_read_file (&r, path, fn, arg, err);
        if (!rc && r.skipping && i + 1 < log->nfiles) {
            s_skipped (&r, r.skipping); /* a rolled file's long last bytes */
            r.skipping = 0;
        }
        else if (!rc && r.have && i + 1 < log->nfiles) {
            /* a rolled file not ending in a newline: its last bytes are
               given alone (they will not parse) */
            rc = fn (arg, r.buf, r.have, r.first);
            r.first = false;
            r.have = 0;
        }
        r.file = NULL;
    }
    if (!rc && (r.have || r.skipping))
        rd->cut = true;
    free (r.buf);
    return rc;
}

void
hist_read_warn (FILE *out, const char *dir, const hist_read_t *rd)
{
    if (rd->long_lines == 0)
        return;
    const char *name = strrchr (rd->long_file, '/');
    fprintf (out,
             "hearth-history: %s/%s: skipped %llu line%s over 1 MiB (the "
             "longest %llu bytes), counted as bad lines\n",
             dir, name ? name + 1 : rd->long_file,
             (unsigned long long) rd->long_lines,
             rd->long_lines == 1 ? "" : "s", (unsigned long long) rd->longest);
}

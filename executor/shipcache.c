/*  shipcache.c - the node's cache of shipped files; see shipcache.h.

    Every name is reached through the cache directory's descriptor,
    opened O_DIRECTORY | O_NOFOLLOW: a link planted at the directory's
    own name is refused, and one at an entry's is never followed (opened
    O_NOFOLLOW, replaced by renameat, unlinked as a link).
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <czmq.h>

#include "executor/shipcache.h"
#include "libcore/log.h"
#include "libcore/safefile.h"

/* The longest entry name (HASH-NAME) and what is made of it. */
enum { s_name_max = 512 };

struct shipcache {
    char *dir;        /* absolute path */
    int fd;           /* the directory, O_NOFOLLOW */
    int64_t stale_ms; /* a claim untouched this long is taken over */
    zhashx_t *claims; /* entry -> what our claim of it holds (owned) */
    uint64_t made;    /* claims made, for their contents */
};

/* What a claim holds: who made it (a pid alone would not tell two
   claims of one process apart, nor an inode number, which is reused). */
enum { s_mark_max = 64 };

static void
s_free_mark (void **item)
{
    free (*item);
    *item = NULL;
}

shipcache_t *
shipcache_new (const char *dir, int64_t stale_ms, hearth_error_t *err)
{
    shipcache_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->stale_ms = stale_ms;
    self->fd = hearth_dir_open_at (AT_FDCWD, dir, 0700);
    if (self->fd < 0) {
        hearth_errprintf (err, "cannot use the files' cache %s: %s", dir,
                          hearth_file_why (errno));
        shipcache_destroy (&self);
        return NULL;
    }
    self->dir = realpath (dir, NULL);
    self->claims = zhashx_new ();
    if (!self->dir || !self->claims) {
        hearth_errprintf (err, "cannot use the files' cache %s: %s", dir,
                          strerror (errno ? errno : ENOMEM));
        shipcache_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->claims, s_free_mark);
    return self;
}

void
shipcache_destroy (shipcache_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    shipcache_t *self = *self_p;
    if (self->fd >= 0)
        close (self->fd);
    zhashx_destroy (&self->claims);
    free (self->dir);
    free (self);
    *self_p = NULL;
    errno = saved;
}

const char *
shipcache_dir (const shipcache_t *self)
{
    return self->dir;
}

bool
shipcache_has (const shipcache_t *self, const char *entry, uint64_t size)
{
    struct stat st;
    int fd = hearth_file_open_regular_at (self->fd, entry,
                                          O_RDONLY | O_NOFOLLOW, 0, &st);
    if (fd < 0)
        return false; /* nothing, or a link, a FIFO...: not followed */
    close (fd);
    return (uint64_t) st.st_size == size;
}

/* The names of entry's claim and of our part file. */
static void
s_claim_name (const char *entry, char *buf, size_t size)
{
    snprintf (buf, size, ".%s.claim", entry);
}

static void
s_part_name (const char *entry, char *buf, size_t size)
{
    snprintf (buf, size, ".%s.%d.part", entry, (int) getpid ());
}

/* Whether the claim at name was last touched over stale_ms ago (a
   claim that is not a regular file is stale at once). */
static bool
s_stale (const shipcache_t *self, const char *name)
{
    struct stat st;
    if (fstatat (self->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT;
    if (!S_ISREG (st.st_mode))
        return true;
    struct timespec now;
    clock_gettime (CLOCK_REALTIME, &now);
    int64_t age_ms = (int64_t) (now.tv_sec - st.st_mtim.tv_sec) * 1000
                     + (now.tv_nsec - st.st_mtim.tv_nsec) / 1000000;
    return age_ms > self->stale_ms;
}

int
shipcache_claim (shipcache_t *self, const char *entry, hearth_error_t *err)
{
    char name[s_name_max];
    s_claim_name (entry, name, sizeof name);
    int fd = hearth_file_create_at (self->fd, name, O_WRONLY, 0600, false);
    if (fd < 0 && errno == EEXIST && s_stale (self, name)) {
        unlinkat (self->fd, name, 0); /* its holder is gone: ours */
        fd = hearth_file_create_at (self->fd, name, O_WRONLY, 0600, false);
    }
    if (fd < 0 && errno == EEXIST)
        return 0;
    char *mark = fd >= 0 ? malloc (s_mark_max) : NULL;
    int len = mark
                  ? snprintf (mark, s_mark_max, "%d %p %llu\n", (int) getpid (),
                              (void *) self, (unsigned long long) ++self->made)
                  : 0;
    if (!mark || write (fd, mark, (size_t) len) != len) {
        int saved = fd < 0 ? errno : mark ? errno : ENOMEM;
        if (fd >= 0) {
            close (fd);
            unlinkat (self->fd, name, 0);
        }
        free (mark);
        return hearth_errprintf (err, "cannot claim %s in %s: %s", entry,
                                 self->dir, hearth_file_why (saved));
    }
    close (fd);
    zhashx_update (self->claims, entry, mark);
    return 1;
}

void
shipcache_touch (const shipcache_t *self, const char *entry)
{
    char name[s_name_max];
    s_claim_name (entry, name, sizeof name);
    utimensat (self->fd, name, NULL, AT_SYMLINK_NOFOLLOW);
}

int
shipcache_part (shipcache_t *self, const char *entry, hearth_error_t *err)
{
    char name[s_name_max];
    s_part_name (entry, name, sizeof name);
    int fd = hearth_file_create_at (self->fd, name, O_RDWR, 0600, true);
    if (fd < 0)
        hearth_errprintf (err, "cannot write %s/%s: %s", self->dir, name,
                          hearth_file_why (errno));
    return fd;
}

static void
s_have_name (const char *entry, char *buf, size_t size)
{
    snprintf (buf, size, ".%s.have", entry);
}

int
shipcache_have (shipcache_t *self, const char *entry, size_t nchunks,
                hearth_error_t *err)
{
    char name[s_name_max], header[SHIPCACHE_HAVE_HEADER] = "";
    s_have_name (entry, name, sizeof name);
    snprintf (header, sizeof header, "%d", (int) getpid ());
    int fd = hearth_file_create_at (self->fd, name, O_RDWR, 0600, true);
    if (fd >= 0
        && (write (fd, header, sizeof header) != (ssize_t) sizeof header
            || ftruncate (fd, (off_t) (sizeof header + nchunks)) < 0)) {
        int saved = errno;
        close (fd);
        unlinkat (self->fd, name, 0);
        errno = saved;
        fd = -1;
    }
    if (fd < 0)
        hearth_errprintf (err, "cannot write %s/%s: %s", self->dir, name,
                          hearth_file_why (errno));
    return fd;
}

void
shipcache_have_mark (int fd, size_t c)
{
    const unsigned char one = 1;
    if (pwrite (fd, &one, 1, (off_t) (SHIPCACHE_HAVE_HEADER + c)) != 1)
        log_warn ("cannot mark a chunk held: %s", strerror (errno));
}

/* Our progress file of entry goes, if it is still ours (its header names
   our pid: one that took our claim over made its own). */
static void
s_unhave (shipcache_t *self, const char *entry)
{
    char name[s_name_max], header[SHIPCACHE_HAVE_HEADER + 1] = "";
    s_have_name (entry, name, sizeof name);
    int fd = hearth_file_open_regular_at (self->fd, name, O_RDONLY | O_NOFOLLOW,
                                          0, NULL);
    if (fd < 0)
        return;
    ssize_t n = read (fd, header, SHIPCACHE_HAVE_HEADER);
    close (fd);
    if (n > 0 && strtol (header, NULL, 10) == (long) getpid ())
        unlinkat (self->fd, name, 0);
}

/* Remove our claim of entry, if it is still ours (not taken over). */
static void
s_unclaim (shipcache_t *self, const char *entry)
{
    const char *mark = zhashx_lookup (self->claims, entry);
    char name[s_name_max], held[s_mark_max] = "";
    s_claim_name (entry, name, sizeof name);
    int fd = mark ? hearth_file_open_regular_at (self->fd, name,
                                                 O_RDONLY | O_NOFOLLOW, 0, NULL)
                  : -1;
    ssize_t n = fd >= 0 ? read (fd, held, sizeof held - 1) : -1;
    if (fd >= 0)
        close (fd);
    if (n > 0) {
        held[n] = '\0';
        if (strcmp (held, mark) == 0)
            unlinkat (self->fd, name, 0);
    }
    zhashx_delete (self->claims, entry);
}

int
shipcache_commit (shipcache_t *self, const char *entry, int mode,
                  hearth_error_t *err)
{
    char name[s_name_max];
    s_part_name (entry, name, sizeof name);
    int fd = hearth_file_open_regular_at (self->fd, name, O_RDONLY | O_NOFOLLOW,
                                          0, NULL);
    int rc = fd < 0 ? -1 : fchmod (fd, (mode_t) mode);
    if (fd >= 0)
        close (fd);
    if (rc < 0 || renameat (self->fd, name, self->fd, entry) < 0) {
        int saved = errno;
        unlinkat (self->fd, name, 0);
        s_unhave (self, entry);
        s_unclaim (self, entry);
        return hearth_errprintf (err, "cannot keep %s in %s: %s", entry,
                                 self->dir, hearth_file_why (saved));
    }
    s_unhave (self, entry);
    s_unclaim (self, entry);
    return 0;
}

void
shipcache_abandon (shipcache_t *self, const char *entry)
{
    char name[s_name_max];
    s_part_name (entry, name, sizeof name);
    unlinkat (self->fd, name, 0);
    s_unhave (self, entry);
    s_unclaim (self, entry);
}

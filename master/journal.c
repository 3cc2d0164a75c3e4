/*  journal.c - the master's journal files; see journal.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "libcore/log.h"
#include "libcore/pidfile.h"
#include "master/jio.h"
#include "master/journal.h"

/* The journal directory and its files are private to the master's user. */
static const mode_t s_dir_mode = JIO_DIR_MODE, s_file_mode = JIO_FILE_MODE;

struct journal {
    char *dir;         /* the directory */
    int dir_fd;        /* open on it, to fsync renames */
    int lock_fd;       /* DIR/lock, flock()ed */
    int fd;            /* DIR/journal.GEN, appended to */
    int64_t gen;       /* current generation */
    size_t size;       /* bytes in journal.GEN */
    bool dirty;        /* appended since the last fsync */
    bool behind;       /* a record was not written (or not synced) since
                          the last snapshot: the files hold a prefix of the
                          changes, until the next snapshot */
    int64_t repair_ms; /* when the last snapshot was tried while behind */
    size_t appended;   /* records appended since open */
    size_t snap_bytes; /* bytes of the last snapshot written (0
                          before the first) */
};

/* While behind, a snapshot is tried at most this often. */
static const int64_t s_repair_every_ms = 1000;

static int64_t
s_wall_ms (void)
{
    struct timeval tv;
    gettimeofday (&tv, NULL);
    return (int64_t) tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void
s_path (const journal_t *self, char *buf, size_t size, const char *name)
{
    snprintf (buf, size, "%s/%s", self->dir, name);
}

static void
s_journal_path (const journal_t *self, char *buf, size_t size, int64_t gen)
{
    snprintf (buf, size, "%s/journal.%lld", self->dir, (long long) gen);
}

/* --- opening ----------------------------------------------------------- */

static int
s_lock (journal_t *self, hearth_error_t *err)
{
    char path[4200];
    bool held;
    s_path (self, path, sizeof path, "lock");
    self->lock_fd = hearth_pid_lock (path, "", s_file_mode, &held, err);
    if (self->lock_fd < 0 && held)
        return hearth_errprintf (err,
                                 "journal %s is in use by another master "
                                 "(pid %d)",
                                 self->dir, (int) hearth_pidfile_read (path));
    return self->lock_fd < 0 ? -1 : 0;
}

static void
s_warn_skipped (const char *path, const jload_t *rep)
{
    if (rep->status == JREC_OK)
        return;
    if (rep->bad_bytes == rep->tail_bytes)
        log_warn ("journal file %s: %s at line %zu (byte %zu): skipped the "
                  "last %zu bytes; the %zu records before it are kept",
                  path, jstate_status_text (rep->status), rep->bad_line,
                  rep->bad_at, rep->tail_bytes, rep->records);
    else
        log_warn ("journal file %s: %s at line %zu (byte %zu): skipped %zu "
                  "bad bytes in %zu stretches (the last %zu bytes of them "
                  "after the last good record); the %zu good records around "
                  "them are kept",
                  path, jstate_status_text (rep->status), rep->bad_line,
                  rep->bad_at, rep->bad_bytes, rep->skipped, rep->tail_bytes,
                  rep->records);
}

/* Load the snapshot, if any, into state; sets self->gen (-1 when unknown). */
static void
s_load_snapshot (journal_t *self, jstate_t *state)
{
    char path[4200];
    size_t len;
    s_path (self, path, sizeof path, "snapshot");
    self->gen = -1;
    char *buf = jio_read_file (path, &len);
    if (!buf) {
        if (errno != ENOENT)
            log_warn ("cannot read %s: %s", path, strerror (errno));
        return;
    }
    jload_t rep;
    jstate_load (state, buf, len, &rep);
    free (buf);
    s_warn_skipped (path, &rep);
    if (!rep.header || strcmp (rep.header, "snapshot") != 0 || rep.gen < 0)
        log_warn ("%s has no snapshot header: its generation is unknown", path);
    else
        self->gen = rep.gen;
    if (rep.status == JREC_OK && !rep.ended)
        log_warn ("%s has no end record: it may be incomplete", path);
    log_info ("snapshot %s: %zu records (generation %lld)", path, rep.applied,
              (long long) self->gen);
}

/* The highest N of the journal.N files in the directory, or -1. */
static int64_t
s_latest_journal (journal_t *self)
{
    int64_t best = -1;
    DIR *d = opendir (self->dir);
    struct dirent *ent;
    while (d && (ent = readdir (d))) {
        char *end;
        if (strncmp (ent->d_name, "journal.", 8) != 0)
            continue;
        long long n = strtoll (ent->d_name + 8, &end, 10);
        if (*end == '\0' && end != ent->d_name + 8 && n >= 0 && n > best)
            best = n;
    }
    if (d)
        closedir (d);
    return best;
}

/* Remove journal.N files of other generations and a snapshot.tmp. */
static void
s_remove_stale (journal_t *self)
{
    DIR *d = opendir (self->dir);
    struct dirent *ent;
    char path[4200];
    while (d && (ent = readdir (d))) {
        char *end;
        bool stale = strcmp (ent->d_name, "snapshot.tmp") == 0;
        if (strncmp (ent->d_name, "journal.", 8) == 0) {
            long long n = strtoll (ent->d_name + 8, &end, 10);
            stale = *end == '\0' && end != ent->d_name + 8 && n != self->gen;
        }
        if (!stale)
            continue;
        s_path (self, path, sizeof path, ent->d_name);
        log_info ("removing stale journal file %s", path);
        unlink (path);
    }
    if (d)
        closedir (d);
}

/* Where the skipped bytes of a replay are kept for whoever investigates:
   DIR/journal.GEN.bad, every stretch in order. */
typedef struct {
    journal_t *journal; /* whose file is replayed */
    int fd;             /* journal.GEN.bad, opened at the first stretch */
    bool failed;        /* it could not be written (logged) */
} s_bad_t;

static void
s_keep_skipped (void *arg, const char *bytes, size_t n, jrec_status_t status)
{
    (void) status;
    s_bad_t *bad = arg;
    char path[4200];
    snprintf (path, sizeof path, "%s/journal.%lld.bad", bad->journal->dir,
              (long long) bad->journal->gen);
    if (bad->fd < 0 && !bad->failed)
        bad->fd =
            open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, s_file_mode);
    if (!bad->failed
        && (bad->fd < 0 || hearth_write_all (bad->fd, bytes, n) < 0)) {
        log_warn ("cannot keep the skipped bytes in %s: %s", path,
                  strerror (errno));
        bad->failed = true;
    }
}

static void
s_bad_close (s_bad_t *bad)
{
    if (bad->fd < 0)
        return;
    close (bad->fd);
    if (!bad->failed)
        log_warn ("the skipped bytes are kept in %s/journal.%lld.bad",
                  bad->journal->dir, (long long) bad->journal->gen);
}

static int
s_write_header (int fd, const char *type, int64_t gen, size_t *len)
{
    cJSON *h = cJSON_CreateObject ();
    char *line = NULL;
    if (h) {
        cJSON_AddStringToObject (h, "t", type);
        cJSON_AddNumberToObject (h, "gen", (double) gen);
        cJSON_AddNumberToObject (h, "version", JSTATE_VERSION);
        cJSON_AddNumberToObject (h, "time_ms", (double) s_wall_ms ());
        line = jstate_encode (h, len);
    }
    cJSON_Delete (h);
    int rc = line ? hearth_write_all (fd, line, *len) : -1;
    free (line);
    return rc;
}

/* Replay journal.GEN into state and open it for appending, cutting a bad
   tail off (what was skipped is saved aside first; bad stretches in the
   middle stay until the compaction that follows a recovery). */
static int
s_open_journal (journal_t *self, jstate_t *state, hearth_error_t *err)
{
    char path[4200];
    size_t len = 0;
    s_journal_path (self, path, sizeof path, self->gen);
    char *buf = jio_read_file (path, &len);
    if (!buf && errno != ENOENT)
        return hearth_errprintf (err, "cannot read %s: %s", path,
                                 strerror (errno));
    jload_t rep = {.status = JREC_OK};
    s_bad_t bad = {.journal = self, .fd = -1};
    if (buf) {
        jstate_load_skips (state, buf, len, &rep, s_keep_skipped, &bad);
        s_bad_close (&bad);
        s_warn_skipped (path, &rep);
        if (rep.records
            && (!rep.header || strcmp (rep.header, "journal") != 0
                || rep.gen != self->gen))
            log_warn ("%s: header says generation %lld, not %lld: replayed "
                      "anyway",
                      path, (long long) rep.gen, (long long) self->gen);
        log_info ("journal %s: %zu records replayed", path, rep.applied);
    }
    free (buf);
    self->fd =
        open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, s_file_mode);
    if (self->fd < 0)
        return hearth_errprintf (err, "cannot open %s: %s", path,
                                 strerror (errno));
    self->size = rep.good_bytes;
    if (rep.tail_bytes && ftruncate (self->fd, (off_t) rep.good_bytes) < 0)
        return hearth_errprintf (err, "cannot cut the bad tail of %s: %s", path,
                                 strerror (errno));
    if (self->size == 0
        && s_write_header (self->fd, "journal", self->gen, &self->size) < 0)
        return hearth_errprintf (err, "cannot write %s: %s", path,
                                 strerror (errno));
    return 0;
}

journal_t *
journal_open (const char *dir, jstate_t **state, hearth_error_t *err)
{
    journal_t *self = calloc (1, sizeof *self);
    *state = jstate_new ();
    if (!self || !*state || !(self->dir = strdup (dir))) {
        hearth_errprintf (err, "out of memory");
        goto error;
    }
    self->dir_fd = self->lock_fd = self->fd = -1;
    if (mkdir (dir, s_dir_mode) < 0 && errno != EEXIST) {
        hearth_errprintf (err, "cannot create %s: %s", dir, strerror (errno));
        goto error;
    }
    self->dir_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (self->dir_fd < 0) {
        hearth_errprintf (err, "cannot open %s: %s", dir, strerror (errno));
        goto error;
    }
    if (s_lock (self, err) < 0)
        goto error;
    s_load_snapshot (self, *state);
    if (self->gen < 0) {
        int64_t latest = s_latest_journal (self);
        self->gen = latest < 0 ? 0 : latest;
    }
    s_remove_stale (self);
    if (s_open_journal (self, *state, err) < 0)
        goto error;
    fsync (self->dir_fd);
    return self;
error:
    journal_destroy (&self);
    jstate_destroy (state);
    return NULL;
}

void
journal_destroy (journal_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    journal_t *self = *self_p;
    int saved = errno;
    if (self->fd >= 0) {
        journal_sync (self);
        close (self->fd);
    }
    if (self->lock_fd >= 0)
        close (self->lock_fd); /* releases the flock */
    if (self->dir_fd >= 0)
        close (self->dir_fd);
    free (self->dir);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* --- appending --------------------------------------------------------- */

/* After a failed compaction: start journal.GEN again. */
static int
s_reopen (journal_t *self)
{
    char path[4200];
    s_journal_path (self, path, sizeof path, self->gen);
    self->fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
                     s_file_mode);
    if (self->fd < 0)
        return -1;
    if (s_write_header (self->fd, "journal", self->gen, &self->size) < 0) {
        close (self->fd);
        self->fd = -1;
        return -1;
    }
    fsync (self->dir_fd);
    return 0;
}

/* A record could not be written or synced: the journal is behind until a
   snapshot (journal_compact) holds the whole state again.  A write cut
   short is cut off first, so that no torn record is ever followed by
   good ones; the cut is synced, as any write would be. */
static void
s_fall_behind (journal_t *self, const char *why)
{
    struct stat st;
    char cut[96] = "nothing was cut short";
    if (self->fd >= 0 && fstat (self->fd, &st) == 0
        && (size_t) st.st_size > self->size) {
        bool ok = ftruncate (self->fd, (off_t) self->size) == 0
                  && fdatasync (self->fd) == 0;
        snprintf (cut, sizeof cut,
                  ok ? "the %zu bytes written of a record were cut off"
                     : "the %zu bytes written of a record could not be cut "
                       "off: a torn tail",
                  (size_t) st.st_size - self->size);
    }
    if (!self->behind)
        log_error ("cannot write to the journal in %s: %s (%s; the master "
                   "goes on, and writes a snapshot of its whole state as "
                   "soon as the disk takes one)",
                   self->dir, why, cut);
    self->behind = true;
    self->dirty = false;
}

int
journal_append (journal_t *self, const cJSON *record, bool sync)
{
    /* Behind, a record would follow a missing one: the snapshot that ends
       it will hold this change too. */
    if (self->behind)
        return -1;
    size_t len;
    char *line = jstate_encode (record, &len);
    if (!line) {
        s_fall_behind (self, "out of memory");
        return -1;
    }
    int rc = self->fd < 0 && s_reopen (self) < 0
                 ? -1
                 : hearth_write_all (self->fd, line, len);
    free (line);
    if (rc < 0) {
        s_fall_behind (self, strerror (errno));
        return -1;
    }
    self->size += len;
    self->appended++;
    self->dirty = true;
    return sync ? journal_sync (self) : 0;
}

int
journal_sync (journal_t *self)
{
    if (!self->dirty || self->fd < 0)
        return 0;
    if (fdatasync (self->fd) < 0) {
        /* What the kernel lost is not known: start again from a snapshot. */
        s_fall_behind (self, strerror (errno));
        return -1;
    }
    self->dirty = false;
    return 0;
}

bool
journal_dirty (const journal_t *self)
{
    return self->dirty && self->fd >= 0;
}

bool
journal_behind (const journal_t *self)
{
    return self->behind;
}

bool
journal_repair_due (journal_t *self, int64_t now_ms)
{
    if (!self->behind || now_ms - self->repair_ms < s_repair_every_ms)
        return false;
    self->repair_ms = now_ms;
    return true;
}

size_t
journal_snapshot_size (const journal_t *self)
{
    return self->snap_bytes;
}

size_t
journal_size (const journal_t *self)
{
    return self->size;
}

int64_t
journal_gen (const journal_t *self)
{
    return self->gen;
}

const char *
journal_dir (const journal_t *self)
{
    return self->dir;
}

/* --- compaction -------------------------------------------------------- */

/* The snapshot being written. */
typedef struct {
    FILE *f;        /* snapshot.tmp */
    size_t records; /* written */
    size_t bytes;   /* written */
    bool failed;    /* a write failed */
} s_snap_t;

static void
s_emit (void *arg, const cJSON *record, bool sync)
{
    (void) sync;
    s_snap_t *s = arg;
    size_t len;
    char *line = s->failed ? NULL : jstate_encode (record, &len);
    if (!s->failed && (!line || fwrite (line, 1, len, s->f) != len))
        s->failed = true;
    free (line);
    s->records++;
    s->bytes += s->failed ? 0 : len;
}

static void
s_emit_marker (s_snap_t *s, const char *type, const char *key, int64_t v)
{
    cJSON *r = cJSON_CreateObject ();
    if (!r) {
        s->failed = true;
        return;
    }
    cJSON_AddStringToObject (r, "t", type);
    cJSON_AddNumberToObject (r, key, (double) v);
    if (strcmp (type, "snapshot") == 0) {
        cJSON_AddNumberToObject (r, "version", JSTATE_VERSION);
        cJSON_AddNumberToObject (r, "time_ms", (double) s_wall_ms ());
    }
    s_emit (s, r, false);
    cJSON_Delete (r);
}

/* Write snapshot.tmp for generation gen and rename it into place. */
static int
s_write_snapshot (journal_t *self, int64_t gen, journal_dump_fn *dump,
                  void *dump_arg, hearth_error_t *err)
{
    char tmp[4200], path[4200];
    s_path (self, tmp, sizeof tmp, "snapshot.tmp");
    s_path (self, path, sizeof path, "snapshot");
    int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, s_file_mode);
    s_snap_t s = {.f = fd >= 0 ? fdopen (fd, "w") : NULL};
    if (!s.f) {
        if (fd >= 0)
            close (fd);
        return hearth_errprintf (err, "cannot write %s: %s", tmp,
                                 strerror (errno));
    }
    s_emit_marker (&s, "snapshot", "gen", gen);
    dump (dump_arg, s_emit, &s);
    s_emit_marker (&s, "end", "records", (int64_t) s.records - 1);
    bool ok = !s.failed && fflush (s.f) == 0 && fsync (fileno (s.f)) == 0;
    ok = fclose (s.f) == 0 && ok;
    if (!ok || rename (tmp, path) < 0) {
        hearth_errprintf (err, "cannot write %s: %s", tmp, strerror (errno));
        unlink (tmp);
        return -1;
    }
    fsync (self->dir_fd);
    self->snap_bytes = s.bytes;
    return 0;
}

/* A snapshot of the whole state is on disk: the journal is whole again. */
static void
s_caught_up (journal_t *self)
{
    if (self->behind)
        log_info ("the journal in %s is written again: a snapshot of the "
                  "whole state (generation %lld) holds what could not be "
                  "written",
                  self->dir, (long long) self->gen);
    self->behind = false;
}

int
journal_compact (journal_t *self, journal_dump_fn *dump, void *dump_arg,
                 hearth_error_t *err)
{
    char path[4200], old[4200];
    int64_t gen = self->gen + 1;
    journal_sync (self);
    if (s_write_snapshot (self, gen, dump, dump_arg, err) < 0)
        return -1;
    /* From here the new snapshot is the truth: journal.GEN must follow. */
    s_journal_path (self, path, sizeof path, gen);
    s_journal_path (self, old, sizeof old, self->gen);
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
                   s_file_mode);
    size_t size = 0;
    if (fd < 0 || s_write_header (fd, "journal", gen, &size) < 0
        || fdatasync (fd) < 0) {
        /* Recovery reads the new snapshot and no journal: still right.
           Appends try to start journal.GEN again. */
        hearth_errprintf (err, "cannot start %s: %s", path, strerror (errno));
        if (fd >= 0)
            close (fd);
        unlink (path);
        if (self->fd >= 0)
            close (self->fd);
        self->fd = -1;
        unlink (old);
        self->gen = gen;
        self->size = 0;
        self->dirty = false;
        s_caught_up (self); /* the snapshot holds everything */
        return -1;
    }
    fsync (self->dir_fd);
    if (self->fd >= 0)
        close (self->fd);
    self->fd = fd;
    unlink (old);
    self->gen = gen;
    self->size = size;
    self->dirty = false;
    s_caught_up (self);
    log_debug ("journal compacted: generation %lld", (long long) gen);
    return 0;
}

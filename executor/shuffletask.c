/*  shuffletask.c - a task's shuffle roles around its command or function:
    the map output and the output file it writes, the reduce input it
    reads (reducein.c), and the fields of its final update; see
    shuffletask.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "executor/reducein.h"
#include "executor/shuffletask.h"
#include "libcore/fstree.h"
#include "libcore/log.h"
#include "libcore/partfmt.h"
#include "libcore/partwriter.h"
#include "libcore/safefile.h"

/* Directories made for map outputs and output files. */
static const unsigned s_dir_mode = 0755;

struct shuffletask {
    /* map */
    bool map;            /* has the role */
    uint32_t shuffle;    /* its shuffle id */
    uint32_t partitions; /* R */
    bool sort;           /* sort each partition */
    bool whole;          /* the output is read whole (one partition): an
                            empty one is an empty line */
    uint32_t inline_max; /* whole: an output shorter than this (room
                            for the newline the driver may add) goes to
                            the driver, not to disk (0: never) */
    bool persist;        /* a persisted stage's: its shuffle's directory is
                            marked for the worker (worker/shuffle.h) */
    /* output */
    char *output;    /* the file, or NULL */
    char *commit_to; /* what it becomes once the driver allows, or NULL:
                        the driver moves it */
    /* reduce */
    reducein_t *in; /* the input, or NULL */
    /* while it runs (its thread's) */
    hearth_partwriter_t *writer; /* the map output being written */
    const char *root;            /* SHUFFLE_ROOT (the executor's) */
    const char *app_id;          /* the application (the executor's) */
    uint32_t map_index;          /* the task's index in its stage */
    int attempt;                 /* its attempt */
    char *path;                  /* ROOT/APP_ID/S/M.A, the map output's data
                                    file, once its writer starts (an output
                                    held for the driver has none: a path
                                    formatted per tiny task cost more than
                                    its output) */
    size_t memory;               /* the writer's budget */
    bool holding;                /* the output is held in memory (held),
                                    still small enough for the driver */
    char *held;                  /* the output so far, while holding */
    size_t held_len, held_cap;   /* its bytes, its room */
    int out_fd;                  /* the output file, or -1 */
    bool out_made;               /* the output file exists: remove it if
                                    the attempt does not succeed */
    bool stopped;                /* a write failed: drop the rest */
    /* the outcome, read by the loop after the thread */
    char *error;          /* why the attempt failed, or NULL */
    uint64_t *map_sizes;  /* R stored lengths, once finished: &one_size
                             when R is 1 (no allocation for the common
                             tiny task), else allocated */
    uint64_t one_size;    /* the one length when R is 1 */
    bool kept;            /* the output goes to the driver (block), not
                             to disk */
    unsigned char *block; /* kept: the output as the task wrote it (the
                             driver adds the newline it may need), or
                             NULL when empty */
    size_t block_len;     /* its bytes */
    uint64_t map_bytes;   /* record bytes written */
    uint64_t taken;       /* bytes of the task's output taken */
    uint64_t out_bytes;   /* bytes written to the output file */
    bool finished;        /* the map output or output file is whole */
};

static void s_fail (shuffletask_t *self, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Keep the first error (later ones follow from it). */
static void
s_fail (shuffletask_t *self, const char *fmt, ...)
{
    if (self->error)
        return;
    va_list ap;
    va_start (ap, fmt);
    if (vasprintf (&self->error, fmt, ap) < 0)
        self->error = NULL;
    va_end (ap);
    if (!self->error)
        self->error = strdup ("out of memory");
}

/* --- from the wire ---------------------------------------------------- */

static int
s_map_from_json (shuffletask_t *self, const cJSON *map)
{
    self->map = true;
    self->shuffle = (uint32_t) hearth_json_int (map, "shuffle", 0);
    self->partitions = (uint32_t) hearth_json_int (map, "partitions", 1);
    self->sort = hearth_json_bool (map, "sort", false);
    self->whole =
        hearth_json_bool (map, "whole", false); /* R = 1: cmdrules.c */
    self->inline_max = (uint32_t) hearth_json_int (map, "inline_max", 0);
    self->persist = hearth_json_bool (map, "persist", false);
    return 0;
}

shuffletask_t *
shuffletask_whole_map (uint32_t shuffle, uint32_t inline_max)
{
    shuffletask_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->out_fd = -1;
    self->map = true;
    self->shuffle = shuffle;
    self->partitions = 1;
    self->whole = true;
    self->inline_max = inline_max;
    return self;
}

bool
shuffletask_kept (const task_t *t, const void **block, size_t *len)
{
    const shuffletask_t *self = t->roles;
    if (t->fn_kept) {
        *block = t->fn_out.data;
        *len = t->fn_out.len;
        return true;
    }
    if (!self || !self->finished || !self->kept)
        return false;
    *block = self->block;
    *len = self->block_len;
    return true;
}

int
shuffletask_from_json (const cJSON *json, const shared_frames_t *sf,
                       shuffletask_t **roles)
{
    const cJSON *map = cJSON_GetObjectItemCaseSensitive (json, "map");
    const cJSON *reduce = cJSON_GetObjectItemCaseSensitive (json, "reduce");
    const char *output = hearth_json_str (json, "output");
    const char *commit_to = hearth_json_str (json, "commit_to"); /* with
                                                                   output */
    *roles = NULL;
    if (!map && !reduce && !output)
        return 0;
    shuffletask_t *self = calloc (1, sizeof *self);
    if (!self)
        return -1;
    self->out_fd = -1;
    if ((map && s_map_from_json (self, map) < 0)
        || (output && !(self->output = strdup (output)))
        || (commit_to && !(self->commit_to = strdup (commit_to)))
        || (reduce && !(self->in = reducein_from_json (reduce, sf)))) {
        shuffletask_destroy (&self);
        return -1;
    }
    *roles = self;
    return 0;
}

/* Remove what an attempt that did not succeed wrote. */
static void
s_discard (shuffletask_t *self)
{
    hearth_partwriter_destroy (&self->writer); /* removes its files */
    free (self->held);
    self->held = NULL;
    self->holding = false;
    if (self->out_fd >= 0)
        close (self->out_fd);
    self->out_fd = -1;
    if (self->out_made && !self->finished
        && hearth_file_unlink_below (self->output) < 0 && errno != ENOENT)
        log_warn ("cannot remove %s: %s", self->output,
                  hearth_file_why (errno));
    self->out_made = false;
}

void
shuffletask_destroy (shuffletask_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    shuffletask_t *self = *self_p;
    s_discard (self);
    reducein_destroy (&self->in);
    free (self->output);
    free (self->commit_to);
    free (self->path);
    free (self->error);
    if (self->map_sizes != &self->one_size)
        free (self->map_sizes);
    free (self->block);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* --- opening ---------------------------------------------------------- */

/* The writer of the map output at self->path, its directory made. */
/* Mark the shuffle's directory (the one of self->path) as a persisted
   stage's for the worker (HEARTH_PERSISTED_MARK, worker/shuffle.h): its
   outputs count against --cache-disk.  Made new, never through a link;
   one there already is enough. */
static void
s_mark_persisted (shuffletask_t *self)
{
    char mark[PATH_MAX];
    const char *slash = strrchr (self->path, '/');
    snprintf (mark, sizeof mark, "%.*s/%s", (int) (slash - self->path),
              self->path, HEARTH_PERSISTED_MARK);
    int fd = hearth_file_create (mark, O_WRONLY, 0644, false);
    if (fd >= 0)
        close (fd);
    else if (errno != EEXIST)
        log_warn ("map output %s: cannot mark it persisted: %s", self->path,
                  strerror (errno));
}

static int
s_start_writer (shuffletask_t *self)
{
    hearth_error_t err;
    if (asprintf (&self->path, "%s/%s/%u/%u.%d", self->root, self->app_id,
                  self->shuffle, self->map_index, self->attempt)
        < 0) {
        self->path = NULL;
        s_fail (self, "out of memory");
        return -1;
    }
    char *slash = strrchr (self->path, '/');
    *slash = '\0';
    int rc = hearth_mkdir_p (self->path, s_dir_mode, &err);
    *slash = '/';
    if (rc < 0) {
        s_fail (self, "map output %s: %s", self->path, err.text);
        return -1;
    }
    if (self->persist)
        s_mark_persisted (self);
    hearth_partwriter_opts_t opts = {.path = self->path,
                                     .partitions = self->partitions,
                                     .sort = self->sort,
                                     .memory_bytes = self->memory};
    if (!(self->writer = hearth_partwriter_new (&opts, &err))) {
        s_fail (self, "map output %s: %s", self->path, err.text);
        return -1;
    }
    return 0;
}

/* Map output SHUFFLE_ROOT/APP_ID/S/M.A: its writer, or, when the driver
   may keep the output, nothing yet (it is held until it outgrows
   inline_max: s_hold). */
static int
s_open_map (executor_t *ex, task_t *t)
{
    shuffletask_t *self = t->roles;
    if (!ex->shuffle_dir) {
        s_fail (self, "a map task, and this executor has no --shuffle-dir");
        return -1;
    }
    self->root = ex->shuffle_dir;
    self->app_id = ex->app_id;
    self->map_index = (uint32_t) (t->tid & 0xffffffffu);
    self->attempt = t->attempt;
    self->memory = ex->shuffle_memory;
    self->holding = self->whole && !self->sort && self->inline_max > 0;
    return self->holding ? 0 : s_start_writer (self);
}

/* dir (an output's DIR/_temporary) noted for shuffletask_remove_outdirs,
   once.  On no memory it is not: it then stays, as before. */
static void
s_note_outdir (executor_t *ex, const char *dir)
{
    pthread_mutex_lock (&ex->outdirs_lock);
    bool known = false;
    for (size_t i = 0; i < ex->noutdirs && !known; i++)
        known = strcmp (ex->outdirs[i], dir) == 0;
    char **more =
        known ? NULL
              : realloc (ex->outdirs, (ex->noutdirs + 1) * sizeof *ex->outdirs);
    if (more) {
        ex->outdirs = more;
        if ((more[ex->noutdirs] = strdup (dir)))
            ex->noutdirs++;
    }
    pthread_mutex_unlock (&ex->outdirs_lock);
}

void
shuffletask_remove_outdirs (executor_t *ex)
{
    for (size_t i = 0; i < ex->noutdirs; i++) {
        /* rmdir removes no link and no directory that still holds a file */
        if (rmdir (ex->outdirs[i]) < 0 && errno != ENOENT)
            log_debug ("%s stays: %s", ex->outdirs[i], strerror (errno));
        free (ex->outdirs[i]);
    }
    free (ex->outdirs);
    ex->outdirs = NULL;
    ex->noutdirs = 0;
}

/* The output file, its parent directory made if missing. */
static int
s_open_output (executor_t *ex, shuffletask_t *self)
{
    hearth_error_t err;
    char *slash = strrchr (self->output, '/');
    if (slash && slash != self->output) {
        *slash = '\0';
        int rc = hearth_mkdir_p (self->output, s_dir_mode, &err);
        if (rc == 0 && self->commit_to)
            s_note_outdir (ex, self->output); /* DIR/_temporary */
        *slash = '/';
        if (rc < 0) {
            s_fail (self, "output %s: %s", self->output, err.text);
            return -1;
        }
    }
    /* the job's output directory may be shared: the driver's _temporary
       entered without following a link, the file created new (whatever
       was left at its name removed, never followed: safefile.h) */
    self->out_fd =
        hearth_file_create_below (self->output, O_WRONLY, 0644, true);
    if (self->out_fd < 0) {
        s_fail (self, "output %s: %s", self->output, hearth_file_why (errno));
        return -1;
    }
    self->out_made = true;
    return 0;
}

int
shuffletask_begin (executor_t *ex, task_t *t)
{
    shuffletask_t *self = t->roles;
    char *error = NULL;
    if (self->in && reducein_open (self->in, ex, t, !t->argv, &error) < 0) {
        s_fail (self, "%s", error ? error : "out of memory");
        free (error);
        return -1;
    }
    if ((self->map && s_open_map (ex, t) < 0)
        || (self->output && s_open_output (ex, self) < 0)) {
        s_discard (self);
        return -1;
    }
    return 0;
}

/* --- while it runs ---------------------------------------------------- */

bool
shuffletask_fn_input (const task_t *t, const void **data, size_t *len)
{
    return t->roles && t->roles->in
           && reducein_gathered (t->roles->in, data, len);
}

bool
shuffletask_feeds_stdin (const task_t *t)
{
    return t->roles && t->roles->in;
}

int
shuffletask_stdin (task_t *t, const void **data, size_t *len)
{
    shuffletask_t *self = t->roles;
    char *error = NULL;
    int rc = reducein_next (self->in, data, len, &error);
    if (rc < 0) {
        s_fail (self, "%s", error ? error : "out of memory");
        free (error);
    }
    return rc;
}

bool
shuffletask_takes_stdout (const task_t *t)
{
    return t->roles && (t->roles->map || t->roles->output);
}

/* Stop holding: what was held goes to a map output on disk, and what
   follows to its writer.  0 or -1 (the error kept). */
static int
s_spill (shuffletask_t *self)
{
    hearth_error_t err;
    self->holding = false;
    int rc = s_start_writer (self) < 0
                     || hearth_partwriter_write (self->writer, self->held,
                                                 self->held_len, &err)
                            < 0
                 ? -1
                 : 0;
    if (rc < 0 && !self->error)
        s_fail (self, "map output %s: %s", self->path, err.text);
    free (self->held);
    self->held = NULL;
    return rc;
}

/* Hold len more bytes of the output while it stays shorter than
   inline_max (room for the newline the driver may add); past that,
   spill.  0 when held, 1 when the writer takes them, -1. */
static int
s_hold (shuffletask_t *self, const void *data, size_t len)
{
    if (len == 0) /* a function's empty result: nothing to copy */
        return 0;
    if (self->held_len + len >= self->inline_max) /* room for its '\n' */
        return s_spill (self) < 0 ? -1 : 1;
    if (self->held_len + len > self->held_cap) {
        size_t cap = (self->held_len + len) * 2;
        char *p = realloc (self->held, cap);
        if (!p) {
            s_fail (self, "out of memory");
            return -1;
        }
        self->held = p;
        self->held_cap = cap;
    }
    memcpy (self->held + self->held_len, data, len);
    self->held_len += len;
    return 0;
}

/* Whether the whole output, len bytes malloc'ed at data, is taken as
   the held output itself (then it is self's). */
static bool
s_adopt (shuffletask_t *self, char *data, size_t len)
{
    if (!self->holding || self->held_len || self->output || !data || !len
        || len >= self->inline_max)
        return false;
    free (self->held);
    self->held = data;
    self->held_len = self->held_cap = len;
    self->taken = len;
    return true;
}

int
shuffletask_stdout (task_t *t, const void *data, size_t len)
{
    shuffletask_t *self = t->roles;
    hearth_error_t err;
    if (self->stopped)
        return -1;
    int held = self->holding ? s_hold (self, data, len) : 1;
    if (held < 0) {
        self->stopped = true;
        return -1;
    }
    if (held == 1 && self->writer
        && hearth_partwriter_write (self->writer, data, len, &err) < 0) {
        s_fail (self, "map output %s: %s", self->path, err.text);
        self->stopped = true;
        return -1;
    }
    self->taken += len;
    if (self->out_fd >= 0) {
        if (hearth_write_all (self->out_fd, data, len) < 0) {
            s_fail (self, "output %s: %s", self->output, strerror (errno));
            self->stopped = true;
            return -1;
        }
        self->out_bytes += len;
    }
    return 0;
}

/* --- the end ---------------------------------------------------------- */

/* Finish an output held in memory: it goes to the driver as the task
   wrote it (shorter than inline_max: s_hold), the driver adding the
   newline its end may need.  0. */
static int
s_finish_held (shuffletask_t *self)
{
    self->kept = true;
    self->block = (unsigned char *) self->held;
    self->block_len = self->held_len;
    self->held = NULL;
    self->one_size = self->block_len;
    self->map_sizes = &self->one_size;
    /* what its readers get of it: the newline the driver adds counted,
       as a packed update's output is (launch.c, s_result_bytes) */
    self->map_bytes = self->block_len;
    if (!self->block_len || self->block[self->block_len - 1] != '\n')
        self->map_bytes++;
    self->holding = false;
    return 0;
}

/* Finish the map output: its sizes kept.  0 or -1 (the error kept). */
static int
s_finish_map (shuffletask_t *self)
{
    hearth_error_t err;
    /* Read whole, a task's output is its result with one trailing
       newline removed and one added (docs/jobs.md): an empty one is an
       empty line.  The writer ends a last line that has no '\n' itself. */
    if (self->whole && self->taken == 0
        && hearth_partwriter_write (self->writer, "\n", 1, &err) < 0) {
        s_fail (self, "map output %s: %s", self->path, err.text);
        return -1;
    }
    if (hearth_partwriter_finish (self->writer, &err) < 0) {
        s_fail (self, "map output %s: %s", self->path, err.text);
        return -1;
    }
    const hearth_part_t *parts = hearth_partwriter_parts (self->writer);
    self->map_sizes = self->partitions == 1
                          ? &self->one_size
                          : calloc (self->partitions, sizeof (uint64_t));
    if (!self->map_sizes) {
        s_fail (self, "out of memory");
        return -1;
    }
    for (uint32_t p = 0; p < self->partitions; p++) {
        self->map_sizes[p] = parts[p].length;
        self->map_bytes += parts[p].bytes;
    }
    hearth_partwriter_destroy (&self->writer); /* finished: files stay */
    return 0;
}

/* Close the output file.  0 or -1 (the error kept). */
static int
s_finish_output (shuffletask_t *self)
{
    int fd = self->out_fd;
    self->out_fd = -1;
    if (close (fd) < 0) {
        s_fail (self, "output %s: %s", self->output, strerror (errno));
        return -1;
    }
    return 0;
}

void
shuffletask_end (executor_t *ex, task_t *t, bool ok)
{
    (void) ex;
    shuffletask_t *self = t->roles;
    ok = ok && !self->error;
    if (ok && !t->argv && shuffletask_takes_stdout (t)) {
        /* a function's result: where a command's stdout would go (held
           as it is when the driver may keep it: no copy) */
        if (s_adopt (self, t->fn_out.data, t->fn_out.len))
            t->fn_out.data = NULL;
        else
            ok = shuffletask_stdout (t, t->fn_out.data, t->fn_out.len) == 0;
        free (t->fn_out.data);
        t->fn_out.data = NULL;
        t->fn_out.len = 0;
    }
    if (ok && self->holding && s_finish_held (self) < 0)
        ok = false;
    if (ok && self->writer && s_finish_map (self) < 0)
        ok = false;
    if (ok && self->out_fd >= 0 && s_finish_output (self) < 0)
        ok = false;
    self->finished = ok;
    if (!ok)
        s_discard (self);
    if (self->in)
        reducein_close (self->in);
}

void
shuffletask_whole_result (executor_t *ex, task_t *t, bool ok)
{
    if (!ok)
        return;
    if (t->fn_out.len < t->whole_max) { /* room for its '\n' */
        t->fn_kept = true;              /* sent as it is: the driver keeps it */
        return;
    }
    /* too large to keep: a map output on disk, as a role would have made
       (none may be kept now: inline_max 0) */
    if ((t->roles = shuffletask_whole_map (t->whole_shuffle, 0))) {
        shuffletask_end (ex, t, shuffletask_begin (ex, t) == 0);
        return;
    }
    t->fn_rc = -1;
    snprintf (t->fn_out.error, sizeof t->fn_out.error, "out of memory");
}

bool
shuffletask_asks_commit (const task_t *t)
{
    return t->roles && t->roles->commit_to && t->roles->finished;
}

/* Rename from (in fromfd) to to (in tofd), never over a part file
   there: one is there only when an earlier driver of a resumed
   application granted its commit and died before it could record it
   (docs/failures.md, "Resuming"); the task's output, made by the same
   definition, is then dropped, and the part committed once stands.  A
   filesystem without RENAME_NOREPLACE (NFS) renames as before.  0, or
   -1 with errno. */
static int
s_commit_once (int fromfd, const char *from, int tofd, const char *to,
               const char *path)
{
    if (renameat2 (fromfd, from, tofd, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno == EEXIST) {
        log_info ("%s was committed already (by an earlier driver of the "
                  "application): kept, this attempt's output dropped",
                  path);
        return unlinkat (fromfd, from, 0) == 0 || errno == ENOENT ? 0 : -1;
    }
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    return renameat (fromfd, from, tofd, to);
}

int
shuffletask_commit (task_t *t, char **error)
{
    shuffletask_t *self = t->roles;
    *error = NULL;
    /* output is DIR/_temporary/NAME.A (the driver's form): its directory
       entered without following a link, as when it was made */
    char *tmp_dir = strdup (self->output);
    char *slash = tmp_dir ? strrchr (tmp_dir, '/') : NULL;
    const char *to_name = strrchr (self->commit_to, '/');
    if (!slash || !to_name) {
        free (tmp_dir);
        if (asprintf (error, "output %s: not a path in a directory",
                      self->output)
            < 0)
            *error = NULL;
        return -1;
    }
    *slash = '\0';
    char *to_dir =
        strndup (self->commit_to, (size_t) (to_name - self->commit_to));
    int tmpfd = hearth_dir_open_at (AT_FDCWD, tmp_dir, 0);
    int tofd = to_dir ? open (*to_dir ? to_dir : "/",
                              O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                      : -1;
    int rc = tmpfd >= 0 && tofd >= 0 ? s_commit_once (
                 tmpfd, slash + 1, tofd, to_name + 1, self->commit_to)
                                     : -1;
    if (rc < 0
        && asprintf (error, "cannot commit %s to %s: %s", self->output,
                     self->commit_to, strerror (errno))
               < 0)
        *error = NULL;
    if (tmpfd >= 0)
        close (tmpfd);
    if (tofd >= 0)
        close (tofd);
    free (tmp_dir);
    free (to_dir);
    return rc;
}

void
shuffletask_abandon (task_t *t)
{
    shuffletask_t *self = t->roles;
    if (self && self->output && hearth_file_unlink_below (self->output) < 0
        && errno != ENOENT)
        log_warn ("cannot remove %s: %s", self->output,
                  hearth_file_why (errno));
}

const char *
shuffletask_error (const task_t *t)
{
    if (!t->roles)
        return NULL;
    return t->roles->error;
}

bool
shuffletask_returns_result (const task_t *t)
{
    return !shuffletask_takes_stdout (t) && !t->whole_max;
}

bool
shuffletask_has_fields (const task_t *t, const char *state)
{
    const shuffletask_t *self = t->roles;
    if (!self)
        return false;
    if (strcmp (state, "FINISHED") == 0)
        return self->finished
               && (self->map || self->output
                   || (self->in && reducein_kept (self->in)));
    return strcmp (state, "FAILED") == 0 && self->in
           && reducein_failure (self->in);
}

/* map_sizes as R little-endian u64, a frame of msg. */
static int
s_add_sizes (const shuffletask_t *self, cJSON *update, hearth_msg_t *msg)
{
    size_t len = (size_t) self->partitions * 8;
    unsigned char *le = malloc (len);
    if (!le)
        return -1;
    for (uint32_t p = 0; p < self->partitions; p++)
        for (int b = 0; b < 8; b++)
            le[p * 8 + b] = (unsigned char) (self->map_sizes[p] >> (8 * b));
    int index = hearth_msg_add_bytes (msg, le, len);
    free (le);
    if (index < 0 || !cJSON_AddNumberToObject (update, "map_sizes", index)
        || !cJSON_AddNumberToObject (update, "map_bytes",
                                     (double) self->map_bytes))
        return -1;
    if (self->kept) { /* the driver keeps it: nothing on disk */
        int b = hearth_msg_add_bytes (
            msg, self->block ? (const void *) self->block : "",
            self->block_len);
        if (b < 0 || !cJSON_AddNumberToObject (update, "map_block", b))
            return -1;
    }
    return 0;
}

int
shuffletask_add_fields (const task_t *t, const char *state, cJSON *update,
                        hearth_msg_t *msg)
{
    const shuffletask_t *self = t->roles;
    if (!shuffletask_has_fields (t, state))
        return 0;
    if (strcmp (state, "FAILED") == 0)
        return reducein_add_failure (self->in, update);
    /* the driver sends the next reader of its partition here */
    if (self->in && reducein_kept (self->in)
        && !cJSON_AddBoolToObject (update, "input_kept", true))
        return -1;
    if (self->map)
        return s_add_sizes (self, update, msg);
    if (!self->output)
        return 0;
    return cJSON_AddNumberToObject (update, "output_bytes",
                                    (double) self->out_bytes)
               ? 0
               : -1;
}

/*  index.c - the listing's cache of summaries; see index.h. */
#include "config.h"

#include <czmq.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history/index.h"
#include "libcore/fstree.h"
#include "libcore/safefile.h"

/* The first line's key and the format it names (2: a summary says
   whether its driver resumed the application; format 1's summaries do
   not, so such an index is read afresh). */
static const char s_magic[] = "hearth_history_index";
static const int s_format = 2;
/* An index file larger than this is not read (not ours). */
static const off_t s_max_index_bytes = (off_t) 1 << 30;

typedef struct {
    hist_file_t *files; /* the signature: names, sizes, times (owned) */
    size_t nfiles;      /* entries in files */
    hist_app_t *app;    /* the summary (owned) */
} s_entry_t;

struct hist_index {
    char *dir;          /* DIR (owned) */
    zhashx_t *entries;  /* id -> s_entry_t (owned) */
    bool changed;       /* something put since the load */
    bool link;          /* DIR/.hearth-history is a symbolic link */
    size_t loaded;      /* entries read at load */
    size_t refreshed;   /* puts */
    char warning[4200]; /* what the listing should say, or "" */
};

static void
s_entry_destroy (void **item)
{
    s_entry_t *e = *item;
    if (!e)
        return;
    for (size_t i = 0; i < e->nfiles; i++)
        free (e->files[i].name);
    free (e->files);
    hist_app_destroy (&e->app);
    free (e);
    *item = NULL;
}

/* A copy of log's file signature into e.  0 or -1 (no memory). */
static int
s_sign (s_entry_t *e, const hist_file_t *files, size_t n)
{
    e->files = calloc (n ? n : 1, sizeof *e->files);
    if (!e->files)
        return -1;
    for (size_t i = 0; i < n; i++) {
        e->files[i] = files[i];
        e->files[i].name = strdup (files[i].name);
        if (!e->files[i].name)
            return -1;
        e->nfiles = i + 1;
    }
    return 0;
}

/* ---- reading the file ---------------------------------------------------- */

static s_entry_t *
s_entry_from_json (const cJSON *o)
{
    const cJSON *files = cJSON_GetObjectItemCaseSensitive (o, "files");
    const cJSON *app = cJSON_GetObjectItemCaseSensitive (o, "app");
    if (!cJSON_IsArray (files) || !cJSON_IsObject (app))
        return NULL;
    s_entry_t *e = calloc (1, sizeof *e);
    int n = cJSON_GetArraySize (files);
    if (!e || !(e->files = calloc (n ? (size_t) n : 1, sizeof *e->files)))
        goto error;
    const cJSON *f;
    cJSON_ArrayForEach (f, files)
    {
        const cJSON *v[4];
        for (int i = 0; i < 4; i++)
            v[i] = cJSON_GetArrayItem (f, i);
        if (!cJSON_IsString (v[0]) || !cJSON_IsNumber (v[1])
            || !cJSON_IsNumber (v[2]) || !cJSON_IsNumber (v[3]))
            goto error;
        hist_file_t *hf = &e->files[e->nfiles];
        *hf = (hist_file_t){
            strdup (v[0]->valuestring), 0, (uint64_t) v[1]->valuedouble,
            (int64_t) v[2]->valuedouble, (int64_t) v[3]->valuedouble};
        if (!hf->name)
            goto error;
        e->nfiles++;
    }
    if (!(e->app = hist_app_from_json (app)))
        goto error;
    return e;
error:
    if (e) {
        void *p = e;
        s_entry_destroy (&p);
    }
    return NULL;
}

/* The bytes of name in the directory dirfd (new, NUL-terminated), or
   NULL; a link at name is not followed, a FIFO there neither blocks nor
   is read (safefile.h). */
static char *
s_slurp (int dirfd, const char *name, size_t *len)
{
    struct stat st;
    int fd = hearth_file_open_regular_at (dirfd, name, O_RDONLY | O_NOFOLLOW, 0,
                                          &st);
    char *buf = NULL;
    if (fd < 0)
        return NULL;
    if (st.st_size < s_max_index_bytes
        && (buf = malloc ((size_t) st.st_size + 1))) {
        size_t have = 0;
        ssize_t got;
        while (have < (size_t) st.st_size
               && (got = read (fd, buf + have, (size_t) st.st_size - have)) > 0)
            have += (size_t) got;
        buf[have] = '\0';
        *len = have;
    }
    close (fd);
    return buf;
}

/* The index's directory in DIR, opened (not made) without following a
   link; -1 when it is not there or is not a directory of its own (a
   link: self->link and the warning set). */
static int
s_open_index_dir (hist_index_t *self, mode_t make_mode)
{
    int dfd = open (self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    int fd = hearth_dir_open_at (dfd, HIST_INDEX_DIR, make_mode);
    int saved = errno;
    struct stat st;
    if (fd < 0 && fstatat (dfd, HIST_INDEX_DIR, &st, AT_SYMLINK_NOFOLLOW) == 0
        && S_ISLNK (st.st_mode) && !self->link) {
        self->link = true;
        snprintf (self->warning, sizeof self->warning,
                  "%s/%s is a symbolic link: the index is neither read nor "
                  "written through it (the logs are read instead)",
                  self->dir, HIST_INDEX_DIR);
    }
    close (dfd);
    errno = saved;
    return fd;
}

static void
s_load_lines (hist_index_t *self, char *text, size_t len)
{
    char *p = text, *end = text + len, *nl;
    bool header = false;
    for (; p < end && (nl = memchr (p, '\n', (size_t) (end - p))); p = nl + 1) {
        cJSON *o = cJSON_ParseWithLength (p, (size_t) (nl - p));
        if (!header) {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive (o, s_magic);
            header = cJSON_IsNumber (f) && f->valueint == s_format;
            cJSON_Delete (o);
            if (!header)
                return; /* not an index of this format: start afresh */
            continue;
        }
        const cJSON *id = cJSON_GetObjectItemCaseSensitive (o, "id");
        s_entry_t *e = cJSON_IsString (id) ? s_entry_from_json (o) : NULL;
        if (e) {
            zhashx_update (self->entries, id->valuestring, e);
            self->loaded++;
        }
        cJSON_Delete (o);
    }
}

hist_index_t *
hist_index_load (const char *dir)
{
    hist_index_t *self = calloc (1, sizeof *self);
    if (!self || !(self->dir = strdup (dir))
        || !(self->entries = zhashx_new ())) {
        hist_index_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->entries, s_entry_destroy);
    int idir = s_open_index_dir (self, 0);
    size_t len = 0;
    char *text = idir >= 0 ? s_slurp (idir, HIST_INDEX_FILE, &len) : NULL;
    if (text)
        s_load_lines (self, text, len);
    free (text);
    if (idir >= 0)
        close (idir);
    return self;
}

void
hist_index_destroy (hist_index_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    hist_index_t *self = *self_p;
    zhashx_destroy (&self->entries);
    free (self->dir);
    free (self);
    *self_p = NULL;
}

/* ---- use ----------------------------------------------------------------- */

static bool
s_same_files (const s_entry_t *e, const hist_log_t *log)
{
    if (e->nfiles != log->nfiles)
        return false;
    for (size_t i = 0; i < e->nfiles; i++) {
        const hist_file_t *a = &e->files[i], *b = &log->files[i];
        if (strcmp (a->name, b->name) || a->size != b->size
            || a->mtime_s != b->mtime_s || a->mtime_ns != b->mtime_ns)
            return false;
    }
    return true;
}

const hist_app_t *
hist_index_get (hist_index_t *self, const hist_log_t *log)
{
    s_entry_t *e = zhashx_lookup (self->entries, log->id);
    return e && s_same_files (e, log) ? e->app : NULL;
}

int
hist_index_put (hist_index_t *self, const hist_log_t *log, hist_app_t *app)
{
    s_entry_t *e = calloc (1, sizeof *e);
    if (!e || s_sign (e, log->files, log->nfiles) < 0) {
        void *p = e;
        s_entry_destroy (&p);
        hist_app_destroy (&app);
        return -1;
    }
    e->app = app;
    zhashx_update (self->entries, log->id, e);
    self->changed = true;
    self->refreshed++;
    return 0;
}

/* ---- writing ------------------------------------------------------------- */

static cJSON *
s_entry_json (const char *id, const s_entry_t *e)
{
    cJSON *o = cJSON_CreateObject (), *files = cJSON_CreateArray ();
    cJSON *app = hist_app_to_json (e->app);
    bool ok = o && files && app && cJSON_AddStringToObject (o, "id", id);
    for (size_t i = 0; ok && i < e->nfiles; i++) {
        const hist_file_t *f = &e->files[i];
        cJSON *row = cJSON_CreateArray ();
        ok =
            row && cJSON_AddItemToArray (files, row)
            && cJSON_AddItemToArray (row, cJSON_CreateString (f->name))
            && cJSON_AddItemToArray (row, cJSON_CreateNumber ((double) f->size))
            && cJSON_AddItemToArray (row,
                                     cJSON_CreateNumber ((double) f->mtime_s))
            && cJSON_AddItemToArray (row,
                                     cJSON_CreateNumber ((double) f->mtime_ns));
    }
    if (ok && cJSON_AddItemToObject (o, "files", files)) {
        files = NULL;
        ok = cJSON_AddItemToObject (o, "app", app);
        app = ok ? NULL : app;
    }
    cJSON_Delete (files);
    cJSON_Delete (app);
    if (!ok)
        cJSON_Delete (o);
    return ok ? o : NULL;
}

static int
s_write_entries (hist_index_t *self, const hist_dir_t *current, FILE *f)
{
    if (fprintf (f, "{\"%s\":%d}\n", s_magic, s_format) < 0)
        return -1;
    for (size_t i = 0; i < current->n; i++) {
        const char *id = current->logs[i].id;
        s_entry_t *e = zhashx_lookup (self->entries, id);
        if (!e)
            continue;
        cJSON *o = s_entry_json (id, e);
        char *text = o ? cJSON_PrintUnformatted (o) : NULL;
        cJSON_Delete (o);
        int rc = text ? fprintf (f, "%s\n", text) : -1;
        free (text);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Write the index to a new temporary file in the directory idir and
   rename it over the index: 0, or -1 with errno. */
static int
s_save_in (hist_index_t *self, const hist_dir_t *current, int idir,
           const char *tmp)
{
    /* a new file, never through a link someone left at its name */
    int fd = hearth_file_create_at (idir, tmp, O_WRONLY, 0644, true);
    FILE *f = fd >= 0 ? fdopen (fd, "w") : NULL;
    if (!f) {
        int saved = errno;
        if (fd >= 0)
            close (fd);
        errno = saved;
        return -1;
    }
    errno = 0;
    int rc = s_write_entries (self, current, f);
    if (fflush (f) != 0 || fsync (fileno (f)) != 0)
        rc = -1;
    int saved = errno ? errno : EIO;
    if (fclose (f) != 0)
        rc = -1;
    if (rc == 0 && renameat (idir, tmp, idir, HIST_INDEX_FILE) < 0) {
        saved = errno;
        rc = -1;
    }
    if (rc < 0) {
        unlinkat (idir, tmp, 0);
        errno = saved;
    }
    return rc;
}

int
hist_index_save (hist_index_t *self, const hist_dir_t *current,
                 hearth_error_t *err)
{
    bool gone = zhashx_size (self->entries) > current->n;
    if (!self->changed && !gone)
        return 0;
    if (self->link)
        return hearth_errprintf (err, "%s", self->warning);
    char tmp[64];
    snprintf (tmp, sizeof tmp, "%s.tmp.%ld", HIST_INDEX_FILE, (long) getpid ());
    /* DIR/.hearth-history made if missing and opened without following a
       link: the temporary file and the rename are relative to it */
    int idir = s_open_index_dir (self, 0755);
    if (idir < 0)
        return hearth_errprintf (err, "cannot use %s/%s: %s", self->dir,
                                 HIST_INDEX_DIR, hearth_file_why (errno));
    int rc = s_save_in (self, current, idir, tmp);
    int saved = errno;
    close (idir);
    if (rc < 0)
        return hearth_errprintf (err, "cannot write %s/%s/%s: %s", self->dir,
                                 HIST_INDEX_DIR, HIST_INDEX_FILE,
                                 strerror (saved));
    self->changed = false;
    return 0;
}

const char *
hist_index_warning (const hist_index_t *self)
{
    return self->warning[0] ? self->warning : NULL;
}

size_t
hist_index_loaded (const hist_index_t *self)
{
    return self->loaded;
}

size_t
hist_index_refreshed (const hist_index_t *self)
{
    return self->refreshed;
}

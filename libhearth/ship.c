/*  ship.c - the libraries and files shipped to every executor; see
    ship.h.

    Both kinds travel alike (bytes in a frame, name and SHA-1 in the body)
    and are read alike; they differ in where the executor puts them (its
    libraries' cache, its work dir) and in their checks: a file's base
    name is its name in the work dir, so it must be safe, free and unique.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <czmq.h>

#include "libcore/ids.h"
#include "libcore/sock.h"
#include "libhearth/ship.h"

/* Names an executor's work dir holds already: executor/libs.c's cache,
   the output a worker keeps there (worker/children.c).  The files'
   cache, ".files", cannot clash: a safe name never starts with a dot. */
static const char *const s_taken_names[] = {"libs", "stdout", "stderr", NULL};
/* Permission bits a file arrives with: executable by its owner or not. */
static const int s_exec_mode = 0700, s_plain_mode = 0600;

/* One library or file. */
typedef struct {
    char *name;     /* base name, e.g. "libpi.so" */
    char hash[64];  /* SHA-1, hex */
    int mode;       /* s_exec_mode or s_plain_mode */
    zchunk_t *data; /* its bytes */
} s_item_t;

/* Items of one kind. */
typedef struct {
    s_item_t *items; /* in the order of the setting */
    size_t n;        /* entries at items */
} s_list_t;

struct ship {
    s_list_t libs;  /* the "lib" setting */
    s_list_t files; /* the "files" setting */
};

uint64_t
ship_max_bytes (void)
{
    return (uint64_t) HEARTH_SOCK_MAX_MSG_BYTES;
}

static const char *
s_basename (const char *path)
{
    const char *slash = strrchr (path, '/');
    return slash ? slash + 1 : path;
}

/* ---- the paths ------------------------------------------------------ */

void
ship_paths_destroy (char ***paths_p)
{
    if (!paths_p || !*paths_p)
        return;
    for (char **p = *paths_p; *p; p++)
        free (*p);
    free (*paths_p);
    *paths_p = NULL;
}

/* Append the comma-separated paths of item to *paths (*n used). */
static int
s_split_into (const char *item, char ***paths, size_t *n)
{
    for (const char *p = item; *p;) {
        size_t len = strcspn (p, ",");
        if (len > 0) {
            char **grown = realloc (*paths, (*n + 2) * sizeof *grown);
            if (!grown)
                return -1;
            *paths = grown;
            if (!((*paths)[*n] = strndup (p, len)))
                return -1;
            (*paths)[++*n] = NULL;
        }
        p += len + (p[len] == ',');
    }
    return 0;
}

char **
ship_file_paths (const hearth_conf_t *conf, size_t *count)
{
    const char *const *items;
    size_t nitems = hearth_conf_list (conf, "files", &items), n = 0;
    char **paths = calloc (1, sizeof *paths);
    for (size_t i = 0; paths && i < nitems; i++)
        if (s_split_into (items[i], &paths, &n) < 0)
            ship_paths_destroy (&paths);
    *count = paths ? n : 0;
    return paths;
}

/* ---- the checks -------------------------------------------------------- */

bool
ship_name_ok (const char *name)
{
    if (!hearth_name_safe (name))
        return false;
    for (int i = 0; s_taken_names[i]; i++)
        if (strcmp (name, s_taken_names[i]) == 0)
            return false;
    return true;
}

/* One path: a regular file of a name ship_name_ok() takes. */
static int
s_check_one (const char *path, uint64_t *bytes, hearth_error_t *err)
{
    struct stat st;
    const char *name = s_basename (path);
    if (stat (path, &st) < 0)
        return hearth_errprintf (err, "%s: %s", path, strerror (errno));
    if (!S_ISREG (st.st_mode))
        return hearth_errprintf (err, "%s: not a regular file", path);
    if (!ship_name_ok (name))
        return hearth_errprintf (
            err,
            "%s: '%s' cannot be shipped under that name (it is its name "
            "in the executors' work dir: use letters, digits and ._+- , "
            "not starting with . or -; not libs, stdout or stderr): "
            "rename it",
            path, name);
    if (bytes)
        *bytes += (uint64_t) st.st_size;
    return 0;
}

int
ship_check_files (const char *const *paths, size_t n, uint64_t *bytes,
                  hearth_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        if (s_check_one (paths[i], bytes, err) < 0)
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp (s_basename (paths[i]), s_basename (paths[j])) == 0)
                return hearth_errprintf (
                    err,
                    "%s and %s are both called %s in the executors' work "
                    "dir: rename one",
                    paths[j], paths[i], s_basename (paths[i]));
    }
    return 0;
}

/* ---- reading ------------------------------------------------------------ */

static int
s_load (s_list_t *list, const char *path, const char *what, hearth_error_t *err)
{
    zfile_t *file = zfile_new (NULL, path);
    zchunk_t *data = NULL;
    if (!file || zfile_input (file) < 0
        || !(data = zfile_read (file, zfile_cursize (file), 0))) {
        zfile_destroy (&file);
        return hearth_errprintf (err, "cannot read %s %s: %s", what, path,
                                 strerror (errno));
    }
    struct stat st;
    bool executable = stat (path, &st) == 0 && (st.st_mode & S_IXUSR);
    zfile_destroy (&file);
    s_item_t *items = realloc (list->items, (list->n + 1) * sizeof *items);
    char *name = strdup (s_basename (path));
    if (!items || !name) {
        if (items)
            list->items = items;
        free (name);
        zchunk_destroy (&data);
        return hearth_errprintf (err, "out of memory");
    }
    list->items = items;
    s_item_t *item = &list->items[list->n++];
    item->name = name;
    item->data = data;
    item->mode = executable ? s_exec_mode : s_plain_mode;
    snprintf (item->hash, sizeof item->hash, "%s", zchunk_digest (data));
    return 0;
}

/* The libraries' sizes, added to *bytes; -1 when one is not a file. */
static int
s_lib_bytes (const char *const *paths, size_t n, uint64_t *bytes,
             hearth_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat (paths[i], &st) < 0)
            return hearth_errprintf (err, "cannot read library %s: %s",
                                     paths[i], strerror (errno));
        *bytes += (uint64_t) st.st_size;
    }
    return 0;
}

/* Check everything, the total included, before reading anything. */
static int
s_check (const char *const *libs, size_t nlibs, const char *const *files,
         size_t nfiles, hearth_error_t *err)
{
    uint64_t bytes = 0;
    hearth_error_t inner;
    if (s_lib_bytes (libs, nlibs, &bytes, err) < 0)
        return -1;
    if (ship_check_files (files, nfiles, &bytes, &inner) < 0)
        return hearth_errprintf (err, "files: %s", inner.text);
    if (bytes > ship_max_bytes ())
        return hearth_errprintf (err,
                                 "the libraries and files to ship are %llu "
                                 "bytes, more than one message carries "
                                 "(%llu bytes: REGISTERED_EXECUTOR takes "
                                 "them to every executor)",
                                 (unsigned long long) bytes,
                                 (unsigned long long) ship_max_bytes ());
    return 0;
}

ship_t *
ship_new (hearth_conf_t *conf, hearth_error_t *err)
{
    const char *const *libs;
    size_t nlibs = hearth_conf_list (conf, "lib", &libs), nfiles = 0;
    char **files = ship_file_paths (conf, &nfiles);
    ship_t *self = files ? calloc (1, sizeof *self) : NULL;
    if (!self) {
        ship_paths_destroy (&files);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    if (s_check (libs, nlibs, (const char *const *) files, nfiles, err) < 0)
        ship_destroy (&self);
    for (size_t i = 0; self && i < nlibs; i++)
        if (s_load (&self->libs, libs[i], "library", err) < 0)
            ship_destroy (&self);
    for (size_t i = 0; self && i < nfiles; i++)
        if (s_load (&self->files, files[i], "file", err) < 0)
            ship_destroy (&self);
    ship_paths_destroy (&files);
    return self;
}

static void
s_list_release (s_list_t *list)
{
    for (size_t i = 0; i < list->n; i++) {
        free (list->items[i].name);
        zchunk_destroy (&list->items[i].data);
    }
    free (list->items);
}

void
ship_destroy (ship_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    ship_t *self = *self_p;
    s_list_release (&self->libs);
    s_list_release (&self->files);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* ---- sending ------------------------------------------------------------ */

static void
s_add_list (const s_list_t *list, hearth_msg_t *msg, cJSON *array,
            bool with_mode)
{
    for (size_t i = 0; array && i < list->n; i++) {
        const s_item_t *item = &list->items[i];
        int frame = hearth_msg_add_bytes (msg, zchunk_data (item->data),
                                          zchunk_size (item->data));
        cJSON *o = cJSON_CreateObject ();
        cJSON_AddStringToObject (o, "name", item->name);
        cJSON_AddStringToObject (o, "hash", item->hash);
        cJSON_AddNumberToObject (o, "frame", frame);
        if (with_mode)
            cJSON_AddNumberToObject (o, "mode", item->mode);
        cJSON_AddItemToArray (array, o);
    }
}

void
ship_add (const ship_t *self, hearth_msg_t *msg)
{
    s_add_list (&self->libs, msg, cJSON_AddArrayToObject (msg->body, "libs"),
                false);
    if (self->files.n)
        s_add_list (&self->files, msg,
                    cJSON_AddArrayToObject (msg->body, "files"), true);
}

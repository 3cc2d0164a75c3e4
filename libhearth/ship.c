/*  ship.c - the libraries and files shipped to every executor; see
    ship.h.

    Both kinds are named alike (name, size, SHA-1 in REGISTERED_EXECUTOR)
    and served alike (FILE_CHUNK, from the file kept open since start-up);
    they differ in where the executor puts them (its libraries, its work
    dir) and in their checks: a file's base name is its name in the work
    dir, so it must be safe, free and unique.

    The descriptor opened at start-up is the file that was hashed: a file
    replaced since (a new one renamed over its name) is still served as
    it was.  One written over in place is no longer the one hashed: its
    size or its modification time says so at the next chunk, which is
    refused (file_changed); the executor's check of the whole against the
    hash would refuse it anyway.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/filechunk.h"
#include "libcore/ids.h"
#include "libcore/log.h"
#include "libhearth/fingerprint.h"
#include "libhearth/ship.h"

/* Names an executor's work dir holds already: executor/libs.c's cache,
   the output a worker keeps there (worker/children.c).  The files'
   cache, ".files", cannot clash: a safe name never starts with a dot. */
static const char *const s_taken_names[] = {"libs", "stdout", "stderr", NULL};
/* Permission bits a file arrives with: executable by its owner or not. */
static const int s_exec_mode = 0700, s_plain_mode = 0600;
/* Bytes read at a time while hashing. */
enum { s_hash_buffer = 1024 * 1024 };

/* One library or file. */
typedef struct {
    char *name;           /* base name, e.g. "libpi.so" */
    char hash[64];        /* SHA-1, hex */
    int mode;             /* s_exec_mode or s_plain_mode */
    int fd;               /* open since start-up, read-only, or -1 */
    uint64_t size;        /* bytes, as hashed */
    struct timespec mtim; /* its modification time, as hashed */
} s_item_t;

/* Items of one kind. */
typedef struct {
    s_item_t *items; /* in the order of the setting */
    size_t n;        /* entries at items */
} s_list_t;

struct ship {
    s_list_t libs;        /* the "lib" setting */
    s_list_t files;       /* the "files" setting */
    s_list_t bcast;       /* broadcast files: the "broadcast" setting, then
                             hearth_broadcast_file's (each named by its
                             variable's NAME); grows while the driver runs */
    size_t announced;     /* of bcast, told to the executors registered
                             (ship_broadcast_news) */
    pthread_mutex_t lock; /* bcast and announced: the API's thread adds,
                             the engine's reads */
    uint64_t bytes_sent;  /* in FILE_CHUNK answers */
};

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

/* The SHA-1 of what fd holds (from its start) into hash (hex); its size
   into *size.  0, or -1 with errno. */
static int
s_hash_fd (int fd, char *hash, size_t hash_size, uint64_t *size)
{
    zdigest_t *digest = zdigest_new ();
    char *buf = malloc (s_hash_buffer);
    ssize_t n = 0;
    uint64_t total = 0;
    while (digest && buf
           && (n = pread (fd, buf, s_hash_buffer, (off_t) total)) > 0) {
        zdigest_update (digest, (byte *) buf, (size_t) n);
        total += (uint64_t) n;
    }
    int saved = !digest || !buf ? ENOMEM : errno;
    if (digest && buf && n == 0)
        snprintf (hash, hash_size, "%s", zdigest_string (digest));
    zdigest_destroy (&digest);
    bool ok = buf && n == 0;
    free (buf);
    *size = total;
    errno = saved;
    return ok ? 0 : -1;
}

/* Open path, note what it is and hash it: a new item of list. */
static int
s_load (s_list_t *list, const char *path, const char *what, hearth_error_t *err)
{
    s_item_t item = {.fd = open (path, O_RDONLY | O_CLOEXEC)};
    struct stat st;
    if (item.fd < 0 || fstat (item.fd, &st) < 0
        || s_hash_fd (item.fd, item.hash, sizeof item.hash, &item.size) < 0) {
        int saved = errno;
        if (item.fd >= 0)
            close (item.fd);
        return hearth_errprintf (err, "cannot read %s %s: %s", what, path,
                                 strerror (saved));
    }
    item.mtim = st.st_mtim;
    item.mode = st.st_mode & S_IXUSR ? s_exec_mode : s_plain_mode;
    s_item_t *items = realloc (list->items, (list->n + 1) * sizeof *items);
    if (items)
        list->items = items;
    if (!items || !(item.name = strdup (s_basename (path)))) {
        close (item.fd);
        return hearth_errprintf (err, "out of memory");
    }
    list->items[list->n++] = item;
    return 0;
}

/* The libraries must be files that can be read (their sizes do not
   matter: they are fetched in chunks). */
static int
s_check (const char *const *libs, size_t nlibs, const char *const *files,
         size_t nfiles, hearth_error_t *err)
{
    hearth_error_t inner;
    for (size_t i = 0; i < nlibs; i++) {
        struct stat st;
        if (stat (libs[i], &st) < 0)
            return hearth_errprintf (err, "cannot read library %s: %s", libs[i],
                                     strerror (errno));
    }
    if (ship_check_files (files, nfiles, NULL, &inner) < 0)
        return hearth_errprintf (err, "files: %s", inner.text);
    return 0;
}

static int s_broadcast_setting (ship_t *self, const char *entry,
                                hearth_error_t *err);

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
    pthread_mutex_init (&self->lock, NULL);
    if (s_check (libs, nlibs, (const char *const *) files, nfiles, err) < 0)
        ship_destroy (&self);
    for (size_t i = 0; self && i < nlibs; i++)
        if (s_load (&self->libs, libs[i], "library", err) < 0)
            ship_destroy (&self);
    for (size_t i = 0; self && i < nfiles; i++)
        if (s_load (&self->files, files[i], "file", err) < 0)
            ship_destroy (&self);
    ship_paths_destroy (&files);
    const char *const *bcast;
    size_t nbcast = hearth_conf_list (conf, "broadcast", &bcast);
    for (size_t i = 0; self && i < nbcast; i++)
        if (s_broadcast_setting (self, bcast[i], err) < 0)
            ship_destroy (&self);
    if (self) /* named at registration */
        self->announced = self->bcast.n;
    return self;
}

static void
s_list_release (s_list_t *list)
{
    for (size_t i = 0; i < list->n; i++) {
        free (list->items[i].name);
        if (list->items[i].fd >= 0)
            close (list->items[i].fd);
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
    s_list_release (&self->bcast);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* ---- broadcast files ---------------------------------------------------- */

int
ship_broadcast_name_ok (const char *name, hearth_error_t *err)
{
    size_t len = name ? strlen (name) : 0;
    bool ok = len > 0 && len <= SHIP_BROADCAST_NAME_MAX
              && (name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z'));
    for (size_t i = 0; ok && i < len; i++)
        ok = name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z')
             || (name[i] >= '0' && name[i] <= '9');
    if (!ok)
        return hearth_errprintf (
            err,
            "broadcast variable '%s': a name is upper-case letters, digits "
            "and _, not starting with a digit, at most %d of them (it "
            "becomes HEARTH_BROADCAST_NAME)",
            name ? name : "", SHIP_BROADCAST_NAME_MAX);
    return 0;
}

int
ship_broadcast_add (ship_t *self, const char *name, const char *path,
                    hearth_error_t *err)
{
    struct stat st;
    if (ship_broadcast_name_ok (name, err) < 0)
        return -1;
    if (!path || stat (path, &st) < 0)
        return hearth_errprintf (err, "broadcast %s: %s: %s", name,
                                 path ? path : "", strerror (errno));
    if (!S_ISREG (st.st_mode))
        return hearth_errprintf (err, "broadcast %s: %s: not a regular file",
                                 name, path);
    pthread_mutex_lock (&self->lock);
    bool taken = false;
    for (size_t i = 0; i < self->bcast.n; i++)
        taken = taken || strcmp (self->bcast.items[i].name, name) == 0;
    pthread_mutex_unlock (&self->lock);
    if (taken)
        return hearth_errprintf (err, "broadcast %s: named twice", name);
    /* hashed outside the lock (it reads the whole file); its item is
       added under it */
    s_list_t one = {0};
    int rc = s_load (&one, path, "broadcast file", err);
    if (rc == 0) {
        free (one.items[0].name);
        if (!(one.items[0].name = strdup (name))) {
            s_list_release (&one);
            return hearth_errprintf (err, "out of memory");
        }
        pthread_mutex_lock (&self->lock);
        s_item_t *items =
            realloc (self->bcast.items, (self->bcast.n + 1) * sizeof *items);
        if (items) {
            self->bcast.items = items;
            items[self->bcast.n++] = one.items[0];
            one.n = 0;
        }
        pthread_mutex_unlock (&self->lock);
        if (!items)
            rc = hearth_errprintf (err, "out of memory");
    }
    s_list_release (&one);
    return rc;
}

/* One entry of the "broadcast" setting, NAME=PATH. */
static int
s_broadcast_setting (ship_t *self, const char *entry, hearth_error_t *err)
{
    const char *eq = strchr (entry, '=');
    char name[SHIP_BROADCAST_NAME_MAX + 2];
    if (!eq || (size_t) (eq - entry) > SHIP_BROADCAST_NAME_MAX)
        return hearth_errprintf (
            err, "broadcast: '%s' is not NAME=FILE (a NAME of at most %d)",
            entry, SHIP_BROADCAST_NAME_MAX);
    snprintf (name, sizeof name, "%.*s", (int) (eq - entry), entry);
    return ship_broadcast_add (self, name, eq + 1, err);
}

/* ---- naming ------------------------------------------------------------- */

static void
s_add_list (const s_list_t *list, cJSON *array, bool with_mode)
{
    for (size_t i = 0; array && i < list->n; i++) {
        const s_item_t *item = &list->items[i];
        cJSON *o = cJSON_CreateObject ();
        cJSON_AddStringToObject (o, "name", item->name);
        cJSON_AddStringToObject (o, "hash", item->hash);
        cJSON_AddNumberToObject (o, "size", (double) item->size);
        if (with_mode)
            cJSON_AddNumberToObject (o, "mode", item->mode);
        cJSON_AddItemToArray (array, o);
    }
}

void
ship_add (ship_t *self, hearth_msg_t *msg)
{
    s_add_list (&self->libs, cJSON_AddArrayToObject (msg->body, "libs"), false);
    if (self->files.n)
        s_add_list (&self->files, cJSON_AddArrayToObject (msg->body, "files"),
                    true);
    pthread_mutex_lock (&self->lock);
    if (self->bcast.n)
        s_add_list (&self->bcast,
                    cJSON_AddArrayToObject (msg->body, "broadcast"), false);
    pthread_mutex_unlock (&self->lock);
}

size_t
ship_broadcast_news (ship_t *self, hearth_msg_t *msg)
{
    pthread_mutex_lock (&self->lock);
    size_t n = self->bcast.n - self->announced;
    if (n) {
        s_list_t news = {.items = self->bcast.items + self->announced, .n = n};
        s_add_list (&news, cJSON_AddArrayToObject (msg->body, "broadcast"),
                    false);
        self->announced = self->bcast.n;
    }
    pthread_mutex_unlock (&self->lock);
    return n;
}

/* ---- serving ------------------------------------------------------------ */

static s_item_t *
s_find (s_list_t *list, const char *hash)
{
    for (size_t i = 0; hash && i < list->n; i++)
        if (strcasecmp (list->items[i].hash, hash) == 0)
            return &list->items[i];
    return NULL;
}

/* Whether the file on disk is still the one hashed at start-up. */
static bool
s_unchanged (const s_item_t *item)
{
    struct stat st;
    return fstat (item->fd, &st) == 0 && (uint64_t) st.st_size == item->size
           && st.st_mtim.tv_sec == item->mtim.tv_sec
           && st.st_mtim.tv_nsec == item->mtim.tv_nsec;
}

/* A FILE_CHUNK of len bytes of item from offset; NULL with *code set. */
static hearth_msg_t *
s_chunk (const s_item_t *item, uint64_t offset, size_t len, int64_t request,
         const char **code)
{
    hearth_msg_t *msg =
        hearth_file_chunk_read (item->fd, item->hash, offset, len, request);
    *code = !msg && errno == ENOMEM    ? "nomem"
            : !msg && errno != ENODATA ? "io"
                                       : "file_changed";
    if (msg && !s_unchanged (item))
        hearth_msg_destroy (&msg);
    return msg;
}

hearth_msg_t *
ship_serve (ship_t *self, const cJSON *body)
{
    const char *hash = hearth_json_str (body, "hash");
    int64_t request = hearth_json_int (body, "request", 0);
    uint64_t offset = (uint64_t) hearth_json_int (body, "offset", 0);
    uint64_t length = (uint64_t) hearth_json_int (body, "length", 1);
    s_item_t *item = s_find (&self->files, hash);
    if (!item)
        item = s_find (&self->libs, hash);
    if (!item) { /* the list grows, never moves what it served */
        pthread_mutex_lock (&self->lock);
        item = s_find (&self->bcast, hash);
        pthread_mutex_unlock (&self->lock);
    }
    if (!item)
        return hearth_file_chunk_refusal (
            "no_file", request, "no shipped file or library has the hash %.64s",
            hash);
    if (!s_unchanged (item))
        return hearth_file_chunk_refusal (
            "file_changed", request,
            "%s changed on the driver's disk since the "
            "application started: its bytes are no longer "
            "those of hash %s",
            item->name, item->hash);
    if (offset >= item->size)
        return hearth_file_chunk_refusal (
            "bad_offset", request, "%s has %llu bytes: none at offset %llu",
            item->name, (unsigned long long) item->size,
            (unsigned long long) offset);
    size_t len =
        (size_t) (length < item->size - offset ? length : item->size - offset);
    const char *code;
    hearth_msg_t *msg = s_chunk (item, offset, len, request, &code);
    if (msg)
        self->bytes_sent += len;
    else if (strcmp (code, "nomem") != 0)
        msg = hearth_file_chunk_refusal (
            code, request, "%s: cannot read %zu bytes at %llu: %s", item->name,
            len, (unsigned long long) offset,
            strcmp (code, "io") == 0
                ? strerror (errno)
                : "it changed on the driver's disk since the "
                  "application started");
    return msg;
}

uint64_t
ship_bytes_sent (const ship_t *self)
{
    return self->bytes_sent;
}

/* ---- what a stage's fingerprint holds ------------------------------- */

/* "KIND NAME HASH" of each item of list into items[*n...]. */
static void
s_digest_items (const s_list_t *list, const char *kind, char **items, size_t *n)
{
    for (size_t i = 0; i < list->n; i++)
        if (asprintf (&items[*n], "%s %s %s", kind, list->items[i].name,
                      list->items[i].hash)
            >= 0)
            (*n)++;
}

void
ship_digest (ship_t *self, char *out)
{
    pthread_mutex_lock (&self->lock);
    size_t cap = self->libs.n + self->files.n + self->bcast.n, n = 0;
    char **items = calloc (cap ? cap : 1, sizeof *items);
    if (items) {
        s_digest_items (&self->libs, "lib", items, &n);
        s_digest_items (&self->files, "file", items, &n);
        s_digest_items (&self->bcast, "broadcast", items, &n);
    }
    pthread_mutex_unlock (&self->lock);
    fingerprint_files ((const char *const *) items, n, out);
    for (size_t i = 0; i < n; i++)
        free (items[i]);
    free (items);
}

/*  reducein.c - a reduce task's input, fetched, merged and read back; see
    reducein.h. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "executor/fetch.h"
#include "executor/partcache.h"
#include "executor/reducein.h"
#include "libcore/blockmerge.h"
#include "libcore/fstree.h"
#include "libcore/log.h"
#include "libcore/partfmt.h"
#include "libcore/proto.h"

/* Records are handed on in chunks of about this many bytes (one record
   longer than that goes alone). */
enum { s_chunk_bytes = 64 * 1024 };

/* A block server of the role. */
typedef struct {
    char *url; /* or NULL: none (local[N]) */
    char *key; /* its CURVE key, or NULL */
} s_server_t;

struct reducein {
    uint32_t shuffle;      /* the map stage's shuffle id */
    uint32_t partition;    /* ours */
    bool sort;             /* merge by key */
    s_server_t *servers;   /* the role's servers */
    size_t nservers;       /* entries */
    fetch_block_t *blocks; /* one per map task, in map order */
    bool *local;           /* blocks[i] is on this node, unserved */
    size_t nblocks;        /* entries */
    /* while it is read (the task's thread) */
    char dir[4200];             /* where fetched blocks go, or "" */
    hearth_block_ref_t *refs;   /* the blocks to read, from fetch */
    hearth_blockmerge_t *merge; /* the stream */
    char *chunk;                /* records gathered for one piece */
    size_t chunk_len;           /* bytes in it */
    const char *held;           /* a record that did not fit, or NULL */
    size_t held_len;            /* its bytes */
    bool at_end;                /* the stream ended (or failed) */
    bool in_memory;             /* every block came in the launch
                                   message, unsorted: read where it lies
                                   (no refs, no merge) */
    size_t next_block;          /* in_memory: the next block to read */
    size_t chunk_cap;           /* in_memory: the chunk's room, its
                                   largest block's at least (a driver
                                   may keep blocks up to 1 MiB) */
    unsigned char *scratch;     /* in_memory: the unframer's */
    char *gathered;             /* a function's whole input, or NULL */
    size_t gathered_len;        /* its bytes */
    bool is_gathered;           /* it was read into gathered */
    bool cache;                 /* the role's "cache": a gathered input
                                   may be kept (partcache.h) */
    partcache_key_t key;        /* what names it there */
    partcache_t *cached;        /* gathered is the cache's, in use, or
                                   NULL: ours */
    bool kept;                  /* the input is in the cache (found there
                                   or put there): its next reader is best
                                   here; kept past reducein_close */
    size_t cached_at;           /* a command's kept input: bytes of it
                                   handed on */
    partcache_t *collect_to;    /* a command's input being kept as it is
                                   read, for this cache; or NULL */
    char *collect;              /* what was read of it so far */
    size_t collect_len, collect_cap, collect_max;
    /* the outcome */
    bool failed;             /* a map output could not be had (atomic:
                                set on the task's thread, read on the
                                loop) */
    fetch_failure_t failure; /* which, and why */
};

static int s_error (char **error, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* *error = the text (NULL on no memory).  Returns -1. */
static int
s_error (char **error, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    if (vasprintf (error, fmt, ap) < 0)
        *error = NULL;
    va_end (ap);
    return -1;
}

/* --- from the wire ---------------------------------------------------- */

static uint64_t
s_le (const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int
s_servers_from_json (reducein_t *self, const cJSON *servers)
{
    size_t n = (size_t) cJSON_GetArraySize (servers);
    if (!(self->servers = calloc (n ? n : 1, sizeof *self->servers)))
        return -1;
    const cJSON *s;
    cJSON_ArrayForEach (s, servers)
    {
        s_server_t *v = &self->servers[self->nservers++];
        const char *url = hearth_json_str (s, "url");
        const char *key = hearth_json_str (s, "key");
        if ((url && *url && !(v->url = strdup (url)))
            || (key && *key && !(v->key = strdup (key))))
            return -1;
    }
    return 0;
}

/* The records of the blocks frame (whole, with servers in range, and
   the inline blocks filling inline exactly: the decoder checked).  The
   inline blocks point into the frame, which stays while the task holds
   its message's frames (tasks.c takes them for a role with "inline"). */
static int
s_blocks_from_frame (reducein_t *self, zframe_t *frame, zframe_t *inl)
{
    const unsigned char *next = inl ? zframe_data (inl) : NULL;
    size_t n = frame ? zframe_size (frame) / HEARTH_BLOCK_RECORD : 0;
    const unsigned char *data = frame ? zframe_data (frame) : NULL;
    self->blocks = calloc (n ? n : 1, sizeof *self->blocks);
    self->local = calloc (n ? n : 1, sizeof *self->local);
    if (!self->blocks || !self->local)
        return -1;
    for (size_t m = 0; m < n; m++) {
        const unsigned char *r = data + m * HEARTH_BLOCK_RECORD;
        uint32_t server = (uint32_t) s_le (r, 4);
        fetch_block_t *b = &self->blocks[m];
        *b = (fetch_block_t){.map = (uint32_t) m,
                             .attempt = (uint32_t) s_le (r + 4, 4),
                             .length = s_le (r + 8, 8)};
        if (server == HEARTH_BLOCK_INLINE) {
            b->data = next;
            next += b->length;
            b->url = "the driver"; /* for messages */
        }
        else if (server < self->nservers && self->servers[server].url) {
            b->url = self->servers[server].url;
            b->server_key = self->servers[server].key;
        }
        else
            self->local[m] = true; /* no server: on this node */
    }
    self->nblocks = n;
    return 0;
}

/* The frame a field of the role names, or NULL. */
static zframe_t *
s_frame (const cJSON *reduce, const char *field, const shared_frames_t *sf)
{
    int64_t index = hearth_json_int (reduce, field, -1);
    return sf && index >= 0 && (size_t) index < sf->nframes ? sf->frames[index]
                                                            : NULL;
}

static int s_next_raw (reducein_t *self, const void **data, size_t *len,
                       char **error);

/* FNV-1a 64 of len bytes at p, on from h. */
static uint64_t
s_fnv (uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The input's name in the cache: its shuffle, partition, and a digest of
   its block list (which map outputs, attempts, sizes) and servers. */
static void
s_key (reducein_t *self, zframe_t *blocks)
{
    uint64_t h = 14695981039346656037ull;
    if (blocks)
        h = s_fnv (h, zframe_data (blocks), zframe_size (blocks));
    for (size_t i = 0; i < self->nservers; i++)
        if (self->servers[i].url)
            h = s_fnv (h, self->servers[i].url,
                       strlen (self->servers[i].url) + 1);
    self->key = (partcache_key_t){
        .shuffle = self->shuffle, .partition = self->partition, .digest = h};
}

reducein_t *
reducein_from_json (const cJSON *reduce, const shared_frames_t *sf)
{
    reducein_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->shuffle = (uint32_t) hearth_json_int (reduce, "shuffle", 0);
    self->partition = (uint32_t) hearth_json_int (reduce, "partition", 0);
    self->sort = hearth_json_bool (reduce, "sort", false);
    self->cache = hearth_json_bool (reduce, "cache", false);
    if (s_servers_from_json (
            self, cJSON_GetObjectItemCaseSensitive (reduce, "servers"))
            < 0
        || s_blocks_from_frame (self, s_frame (reduce, "blocks", sf),
                                s_frame (reduce, "inline", sf))
               < 0)
        reducein_destroy (&self);
    else if (self->cache)
        s_key (self, s_frame (reduce, "blocks", sf));
    return self;
}

void
reducein_destroy (reducein_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    reducein_t *self = *self_p;
    reducein_close (self);
    for (size_t i = 0; i < self->nservers; i++) {
        free (self->servers[i].url);
        free (self->servers[i].key);
    }
    free (self->servers);
    free (self->blocks);
    free (self->local);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* --- fetching --------------------------------------------------------- */

/* Keep a fetch failure; its text into *error. */
static int
s_fetch_failed (reducein_t *self, const fetch_failure_t *f, char **error)
{
    self->failure = *f;
    /* released after the failure it names: the loop may read it while a
       function task's early report (a timeout) races this thread */
    __atomic_store_n (&self->failed, true, __ATOMIC_RELEASE);
    if (f->url[0])
        return s_error (error, "fetch failed: map output %u/%u.%u of %s: %s",
                        self->shuffle, f->map, f->attempt, f->url, f->reason);
    return s_error (error, "fetch failed: map output %u/%u.%u on this node: %s",
                    self->shuffle, f->map, f->attempt, f->reason);
}

/* Fetch the blocks of t into self->dir: the references to read.  0 or
   -1.  A kill of t stops the fetch. */
static int
s_fetch (reducein_t *self, executor_t *ex, const task_t *t, char **error)
{
    char local_dir[4200];
    const char *local_url = ex->shuffle_url ? ex->shuffle_url : "";
    for (size_t m = 0; m < self->nblocks; m++)
        if (self->local[m])
            self->blocks[m].url = local_url;
    if (ex->shuffle_dir)
        snprintf (local_dir, sizeof local_dir, "%s/%s", ex->shuffle_dir,
                  ex->app_id);
    fetch_opts_t o = {.app_id = ex->app_id,
                      .token = ex->token ? ex->token : "",
                      .shuffle = self->shuffle,
                      .partition = self->partition,
                      .dir = self->dir,
                      .local_url = ex->shuffle_dir ? local_url : NULL,
                      .local_dir = ex->shuffle_dir ? local_dir : NULL,
                      .max_in_flight = ex->fetch_in_flight,
                      .sorted = self->sort,
                      .cancel = &t->killed};
    fetch_failure_t f;
    hearth_error_t err;
    int rc =
        fetch_blocks (&o, self->blocks, self->nblocks, &self->refs, &f, &err);
    if (rc == 1)
        return s_fetch_failed (self, &f, error);
    if (rc < 0)
        return s_error (error, "reduce input: %s", err.text);
    return 0;
}

/* Read the whole stream into self->gathered, at most max bytes; past
   that, count the rest to say how large it was. */
static int
s_gather (reducein_t *self, size_t max, char **error)
{
    const void *data;
    size_t len, total = 0, cap = 0;
    int rc;
    while ((rc = s_next_raw (self, &data, &len, error)) == 1) {
        total += len;
        if (total > max)
            continue;
        if (total > cap) {
            size_t grown = cap ? cap * 2 : s_chunk_bytes;
            while (grown < total)
                grown *= 2;
            char *p = realloc (self->gathered, grown > max ? max : grown);
            if (!p)
                return -1;
            self->gathered = p;
            cap = grown > max ? max : grown;
        }
        memcpy (self->gathered + self->gathered_len, data, len);
        self->gathered_len += len;
    }
    if (rc < 0)
        return -1;
    if (total > max)
        return s_error (error,
                        "the reduce input of partition %u is %zu bytes, over "
                        "max-input-bytes (%zu) of a function task",
                        self->partition, total, max);
    self->is_gathered = true;
    return 0;
}

/* Whether every block of an unsorted input came in the launch message
   (kept by the driver: the reduce role's "inline"), none to fetch or
   read from a file. */
static bool
s_all_inline (const reducein_t *self)
{
    if (self->sort)
        return false;
    for (size_t m = 0; m < self->nblocks; m++)
        if (self->blocks[m].length && !self->blocks[m].data)
            return false;
    return true;
}

int
reducein_open (reducein_t *self, executor_t *ex, const task_t *t, bool gather,
               char **error)
{
    hearth_error_t err;
    *error = NULL;
    self->kept = false;
    if (self->cache && ex->partcache
        && partcache_get (ex->partcache, &self->key,
                          (const void **) &self->gathered,
                          &self->gathered_len)) {
        /* read by this executor before: nothing to fetch, check or copy
           (a command's is handed on from it a chunk at a time) */
        self->cached = ex->partcache;
        self->is_gathered = gather;
        self->cached_at = 0;
        self->kept = true;
        log_debug ("task %llu: partition %u of shuffle %u from memory, %zu "
                   "bytes",
                   (unsigned long long) t->tid, self->partition, self->shuffle,
                   self->gathered_len);
        return 0;
    }
    if (s_all_inline (self)) {
        /* read where they lie: through a file (fetch.c, blockmerge.h)
           each block cost a write and a read, a tenth of a second for a
           stage of 400,000 one-line tasks */
        self->in_memory = true;
        self->chunk_cap = s_chunk_bytes;
        for (size_t m = 0; m < self->nblocks; m++)
            if (self->blocks[m].length > self->chunk_cap)
                self->chunk_cap = (size_t) self->blocks[m].length;
        self->chunk = malloc (self->chunk_cap);
        self->scratch = malloc (HEARTH_FRAME_MAX);
        if (!self->chunk || !self->scratch)
            return s_error (error, "reduce input: out of memory");
        return gather ? s_gather (self, ex->max_input_bytes, error) : 0;
    }
    snprintf (self->dir, sizeof self->dir, "%s/.reduce-%llu.%d", ex->work_dir,
              (unsigned long long) t->tid, t->attempt);
    if (hearth_mkdir_p (self->dir, 0700, &err) < 0) {
        self->dir[0] = '\0';
        return s_error (error, "reduce input: %s", err.text);
    }
    if (s_fetch (self, ex, t, error) < 0)
        return -1;
    self->merge = hearth_blockmerge_new (self->refs, self->nblocks, self->sort,
                                         0, self->dir, &err);
    if (!self->merge || !(self->chunk = malloc (s_chunk_bytes)))
        return -1;
    if (!gather) {
        /* a command's input is kept as it is read (reducein_next) */
        if (self->cache && ex->partcache && ex->cache_memory) {
            self->collect_to = ex->partcache;
            self->collect_max = ex->cache_memory;
        }
        return 0;
    }
    if (s_gather (self, ex->max_input_bytes, error) < 0)
        return -1;
    /* kept for the next task reading it here, when it fits */
    if (self->cache && self->gathered_len && ex->partcache
        && partcache_put (ex->partcache, &self->key, self->gathered,
                          self->gathered_len)) {
        self->cached = ex->partcache;
        self->kept = true;
    }
    return 0;
}

bool
reducein_gathered (const reducein_t *self, const void **data, size_t *len)
{
    if (!self->is_gathered)
        return false;
    *data = self->gathered ? self->gathered : "";
    *len = self->gathered_len;
    return true;
}

/* --- reading ---------------------------------------------------------- */

/* The stream failed with err: a damaged block of this node is a fetch
   failure (the others were checked as they arrived); find which. */
static int
s_read_failed (reducein_t *self, const hearth_error_t *err, char **error)
{
    self->at_end = true;
    bool damaged = err->code
                   && (strcmp (err->code, "checksum") == 0
                       || strcmp (err->code, "truncated") == 0);
    size_t dir_len = strlen (self->dir);
    for (size_t m = 0; damaged && m < self->nblocks; m++) {
        const hearth_block_ref_t *r = &self->refs[m];
        /* read in place: not one of ours in dir (nor an empty block) */
        if (r->length == 0 || strncmp (r->path, self->dir, dir_len) == 0)
            continue;
        hearth_error_t e;
        hearth_partreader_t *pr =
            hearth_partreader_new (r->path, r->offset, r->length, &e);
        const char *rec;
        size_t len;
        int rc = pr ? 1 : -1;
        while (rc == 1)
            rc = hearth_partreader_next (pr, &rec, &len, &e);
        hearth_partreader_destroy (&pr);
        if (rc < 0) {
            fetch_failure_t f = {.map = self->blocks[m].map,
                                 .attempt = self->blocks[m].attempt};
            snprintf (f.url, sizeof f.url, "%s", self->blocks[m].url);
            snprintf (f.reason, sizeof f.reason, "%s", e.text);
            return s_fetch_failed (self, &f, error);
        }
    }
    return s_error (error, "reduce input: %s", err->text);
}

/* Append a record to the chunk if it fits.  Returns whether it did. */
static bool
s_take (reducein_t *self, const char *rec, size_t len)
{
    if (self->chunk_len + len > s_chunk_bytes)
        return false;
    memcpy (self->chunk + self->chunk_len, rec, len);
    self->chunk_len += len;
    return true;
}

/* Checked payload of a block read where it lies, onto the chunk. */
static int
s_append_payload (void *arg, const void *data, size_t len, hearth_error_t *err)
{
    reducein_t *self = arg;
    if (self->chunk_len + len > self->chunk_cap)
        return hearth_errcode (err, "bad_frame",
                               "a payload longer than its stored block");
    memcpy (self->chunk + self->chunk_len, data, len);
    self->chunk_len += len;
    return 0;
}

/* in_memory: the next blocks' records, whole blocks up to a chunk (the
   chunk holds the largest), each checked as a fetched one is. */
static int
s_next_in_memory (reducein_t *self, const void **data, size_t *len,
                  char **error)
{
    hearth_error_t err;
    self->chunk_len = 0;
    for (; self->next_block < self->nblocks; self->next_block++) {
        const fetch_block_t *b = &self->blocks[self->next_block];
        if (b->length == 0)
            continue;
        if (self->chunk_len && self->chunk_len + b->length > self->chunk_cap)
            break; /* (stored bytes: at least its payload) */
        hearth_unframer_t u;
        hearth_unframer_init (&u);
        size_t before = self->chunk_len;
        if (hearth_unframer_feed (&u, b->data, (size_t) b->length,
                                  self->scratch, s_append_payload, self, &err)
                < 0
            || hearth_unframer_end (&u, &err) < 0)
            return s_error (error, "reduce input: map output %u/%u.%u: %s",
                            self->shuffle, b->map, b->attempt, err.text);
        if (self->chunk_len == before
            || self->chunk[self->chunk_len - 1] != '\n')
            return s_error (error,
                            "reduce input: map output %u/%u.%u: the block "
                            "ends inside a record",
                            self->shuffle, b->map, b->attempt);
    }
    *data = self->chunk;
    *len = self->chunk_len;
    return self->chunk_len > 0 ? 1 : 0;
}

/* The next piece of the stream as it is read (reducein_next without the
   cache). */
static int
s_next_raw (reducein_t *self, const void **data, size_t *len, char **error)
{
    hearth_error_t err;
    *error = NULL;
    if (self->in_memory)
        return s_next_in_memory (self, data, len, error);
    if (!self->sort) {
        /* unsorted: the blocks' records as they were read, a chunk at a
           time, not one by one through the chunk */
        const char *run = NULL;
        size_t n = 0;
        int rc = self->at_end ? 0
                              : hearth_blockmerge_next_run (
                                  self->merge, s_chunk_bytes, &run, &n, &err);
        if (rc < 0)
            return s_read_failed (self, &err, error);
        self->at_end = rc == 0;
        *data = run;
        *len = n;
        return rc;
    }
    self->chunk_len = 0;
    if (self->held) {
        const char *rec = self->held;
        self->held = NULL;
        if (!s_take (self, rec, self->held_len)) {
            *data = rec; /* longer than a chunk: alone (still borrowed
                            from the merge: nothing was read since) */
            *len = self->held_len;
            return 1;
        }
    }
    while (!self->at_end) {
        const char *rec;
        size_t n;
        int rc = hearth_blockmerge_next (self->merge, &rec, &n, &err);
        if (rc < 0) {
            s_read_failed (self, &err, error);
            return -1;
        }
        if (rc == 0) {
            self->at_end = true;
            break;
        }
        if (!s_take (self, rec, n)) {
            self->held = rec;
            self->held_len = n;
            break;
        }
    }
    if (self->chunk_len == 0 && self->held) /* a long record first */
        return s_next_raw (self, data, len, error);
    *data = self->chunk;
    *len = self->chunk_len;
    return self->chunk_len > 0 ? 1 : 0;
}

/* The next piece of a kept input: up to a chunk of whole records, or
   one longer record. */
static int
s_next_cached (reducein_t *self, const void **data, size_t *len)
{
    size_t left = self->gathered_len - self->cached_at;
    if (left == 0)
        return 0;
    const char *p = self->gathered + self->cached_at;
    size_t n = left < s_chunk_bytes ? left : s_chunk_bytes;
    if (n < left) { /* back to a record's end, or on to one */
        const char *nl = memrchr (p, '\n', n);
        nl = nl ? nl : memchr (p + n, '\n', left - n);
        n = nl ? (size_t) (nl - p) + 1 : left;
    }
    self->cached_at += n;
    *data = p;
    *len = n;
    return 1;
}

/* A piece of a command's input read: kept in collect while it fits the
   cache's budget; at the end the whole goes to the cache. */
static void
s_collect (reducein_t *self, int rc, const void *data, size_t len)
{
    if (!self->collect_to)
        return;
    if (rc == 1 && self->collect_len + len <= self->collect_max) {
        if (self->collect_len + len > self->collect_cap) {
            size_t cap = self->collect_cap ? self->collect_cap * 2 : 1 << 20;
            while (cap < self->collect_len + len)
                cap *= 2;
            char *p = realloc (self->collect, cap);
            if (p) {
                self->collect = p;
                self->collect_cap = cap;
            }
        }
        if (self->collect_len + len <= self->collect_cap) {
            memcpy (self->collect + self->collect_len, data, len);
            self->collect_len += len;
            return;
        }
    }
    if (rc == 0 && self->collect_len
        && partcache_put (self->collect_to, &self->key, self->collect,
                          self->collect_len)) {
        partcache_release (self->collect_to, &self->key); /* not ours */
        self->collect = NULL;
        self->kept = true;
    }
    /* too big, no memory, an error or the end: collected no more */
    free (self->collect);
    self->collect = NULL;
    self->collect_len = self->collect_cap = 0;
    self->collect_to = NULL;
}

int
reducein_next (reducein_t *self, const void **data, size_t *len, char **error)
{
    if (self->cached && !self->is_gathered) {
        *error = NULL;
        return s_next_cached (self, data, len);
    }
    int rc = s_next_raw (self, data, len, error);
    s_collect (self, rc, rc == 1 ? *data : NULL, rc == 1 ? *len : 0);
    return rc;
}

void
reducein_close (reducein_t *self)
{
    hearth_blockmerge_destroy (&self->merge);
    fetch_refs_free (self->refs, self->nblocks);
    self->refs = NULL;
    free (self->chunk);
    self->chunk = NULL;
    free (self->scratch);
    self->scratch = NULL;
    self->in_memory = false;
    self->next_block = 0;
    if (self->cached) /* the cache's: given back, not freed */
        partcache_release (self->cached, &self->key);
    else
        free (self->gathered);
    self->cached = NULL;
    free (self->collect); /* a command that did not read it all */
    self->collect = NULL;
    self->collect_to = NULL;
    self->collect_len = self->collect_cap = 0;
    self->gathered = NULL;
    self->is_gathered = false;
    self->held = NULL;
    if (self->dir[0])
        hearth_rm_tree (self->dir);
    self->dir[0] = '\0';
}

bool
reducein_kept (const reducein_t *self)
{
    return self->kept;
}

bool
reducein_failure (const reducein_t *self)
{
    return __atomic_load_n (&self->failed, __ATOMIC_ACQUIRE);
}

int
reducein_add_failure (const reducein_t *self, cJSON *update)
{
    cJSON *f = cJSON_AddObjectToObject (update, "fetch_failed");
    if (!f || !cJSON_AddNumberToObject (f, "shuffle", self->shuffle)
        || !cJSON_AddNumberToObject (f, "map", self->failure.map)
        || !cJSON_AddNumberToObject (f, "attempt", self->failure.attempt)
        || (self->failure.url[0]
            && !cJSON_AddStringToObject (f, "url", self->failure.url)))
        return -1;
    return 0;
}

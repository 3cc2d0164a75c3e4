/*  shipfetch.c - shipped libraries and files, got by hash from the
    node's cache or from the driver in checked chunks; see shipfetch.h.

    An item goes NEW -> (in the cache: DONE) | (claimed by us: FETCHING)
    | (claimed by another executor: WAITING, until the entry appears or
    the claim goes stale and we take it over) -> DONE | FAILED.  The
    chunks of the items being fetched share one window of asks; a chunk
    arriving in order is hashed at once (the usual case: one connection
    answers in order), one out of order is hashed from the part file when
    its turn comes.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <czmq.h>

#include "executor/files.h"
#include "executor/libs.h"
#include "executor/shipcache.h"
#include "executor/shipfetch.h"
#include "libcore/clock.h"
#include "libcore/crc32c.h"
#include "libcore/ids.h"
#include "libcore/log.h"

/* Bytes asked for in one FETCH_FILE. */
static const uint64_t s_chunk_bytes = 4 * 1024 * 1024;
/* Chunks asked for and not yet received, at most. */
enum { s_max_in_flight = 4 };
/* A chunk not answered this long is asked for again... */
static const int64_t s_ask_timeout_ms = 15000;
/* ...and a chunk is asked for at most this many times. */
enum { s_max_tries = 4 };
/* Another executor's claim untouched this long (or 2 x the driver's
   liveness window, when longer) is taken over. */
static const int64_t s_min_stale_ms = 10000;
/* Our claims are touched this often. */
static const int64_t s_touch_every_ms = 1000;
/* Modes of what lands in the cache: read-only (the node's executors
   share the bytes), executable by its owner or not. */
static const int s_exec_mode = 0500, s_plain_mode = 0400;

typedef enum { S_NEW, S_WAITING, S_FETCHING, S_DONE, S_FAILED } s_state_t;

/* A chunk's state. */
enum { C_MISSING, C_ASKED, C_GOT };

/* One library or file. */
typedef struct {
    char *name;        /* as shipped, e.g. "libpi.so" */
    char hash[129];    /* SHA-1, hex, as the driver names it */
    char entry[400];   /* HASH-NAME, its name in the cache */
    uint64_t size;     /* bytes */
    int mode;          /* s_exec_mode or s_plain_mode */
    bool lib;          /* a library, not a file */
    s_state_t state;   /* where it is */
    int fd;            /* our part file while FETCHING, or -1 */
    size_t nchunks;    /* chunks of s_chunk_bytes (the last shorter) */
    size_t ndone;      /* of them received */
    uint8_t *chunks;   /* C_MISSING, C_ASKED, C_GOT each (owned) */
    uint8_t *tries;    /* asks of each (owned) */
    zdigest_t *digest; /* SHA-1 of the bytes before `hashed` (owned) */
    uint64_t hashed;   /* bytes hashed so far, from the start */
} s_item_t;

/* A chunk asked for. */
typedef struct {
    bool used;       /* this slot is in flight */
    size_t item;     /* index in items */
    size_t chunk;    /* chunk index */
    int64_t request; /* the FETCH_FILE's number */
    int64_t sent_ms; /* when */
} s_ask_t;

struct shipfetch {
    executor_t *ex;                /* the context (borrowed) */
    shipcache_t *cache;            /* the node's cache (owned) */
    shipfetch_send_fn *send;       /* to the driver */
    shipfetch_ready_fn *ready;     /* everything is in place */
    void *arg;                     /* of both */
    s_item_t *items;               /* libraries, then files (owned) */
    size_t n;                      /* entries of items */
    s_ask_t asks[s_max_in_flight]; /* in flight */
    int64_t next_request;          /* the next FETCH_FILE's number */
    int64_t touched_ms;            /* when our claims were last touched */
    bool started;                  /* shipfetch_start was called */
    bool told_ready;               /* ready was called */
};

shipfetch_t *
shipfetch_new (executor_t *ex, shipfetch_send_fn *send,
               shipfetch_ready_fn *ready, void *arg, hearth_error_t *err)
{
    shipfetch_t *self = calloc (1, sizeof *self);
    char dir[4200];
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    *self = (shipfetch_t){.ex = ex, .send = send, .ready = ready, .arg = arg};
    if (ex->ship_dir)
        snprintf (dir, sizeof dir, "%s", ex->ship_dir);
    else
        snprintf (dir, sizeof dir, "%s/.files", ex->work_dir);
    int64_t stale = 2 * ex->hb_liveness * ex->hb_interval_ms;
    if (!(self->cache = shipcache_new (
              dir, stale > s_min_stale_ms ? stale : s_min_stale_ms, err))) {
        free (self);
        return NULL;
    }
    return self;
}

/* Stop fetching item: its asks dropped, its part file and claim gone. */
static void
s_stop_fetch (shipfetch_t *self, s_item_t *item)
{
    for (size_t i = 0; i < s_max_in_flight; i++)
        if (self->asks[i].used && &self->items[self->asks[i].item] == item)
            self->asks[i].used = false;
    if (item->state == S_FETCHING)
        shipcache_abandon (self->cache, item->entry);
    if (item->fd >= 0)
        close (item->fd);
    item->fd = -1;
    zdigest_destroy (&item->digest);
    free (item->chunks);
    free (item->tries);
    item->chunks = item->tries = NULL;
}

void
shipfetch_destroy (shipfetch_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    shipfetch_t *self = *self_p;
    for (size_t i = 0; i < self->n; i++) {
        s_stop_fetch (self, &self->items[i]);
        free (self->items[i].name);
    }
    free (self->items);
    shipcache_destroy (&self->cache);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* ---- the end of an item ------------------------------------------------ */

/* All items in place or failed: the tasks may go (once). */
static void
s_check_ready (shipfetch_t *self)
{
    if (self->told_ready)
        return;
    for (size_t i = 0; i < self->n; i++)
        if (self->items[i].state != S_DONE && self->items[i].state != S_FAILED)
            return;
    self->told_ready = true;
    self->ex->ship_waiting = false;
    if (self->n)
        log_info ("shipped libraries and files in place (%zu)", self->n);
    self->ready (self->arg);
}

/* item cannot be had, for why: its tasks will fail with that. */
static void
s_fail (shipfetch_t *self, s_item_t *item, const char *why)
{
    executor_t *ex = self->ex;
    char text[1024];
    snprintf (text, sizeof text, "%s %s: %s", item->lib ? "library" : "file",
              item->name, why);
    log_error ("%s", text);
    s_stop_fetch (self, item);
    item->state = S_FAILED;
    if (item->lib) { /* the tasks that need it get the error */
        hearth_error_t err;
        hearth_errprintf (&err, "%s", text);
        libs_add (ex->libs, item->name, NULL, &err);
    }
    else if (!ex->ship_error)
        ex->ship_error = strdup (text);
}

/* item is in the cache: into the work dir, or loaded. */
static void
s_place (shipfetch_t *self, s_item_t *item)
{
    char path[4800];
    hearth_error_t err;
    snprintf (path, sizeof path, "%s/%s", shipcache_dir (self->cache),
              item->entry);
    item->state = S_DONE;
    if (item->lib) {
        if (libs_add (self->ex->libs, item->name, path, &err) < 0)
            log_error ("%s", err.text);
    }
    else if (files_place (self->ex->work_dir, item->name, path, item->mode,
                          &err)
             < 0)
        s_fail (self, item, err.text);
}

/* Hash what is received in order from item->hashed on: data (len bytes
   at offset) from memory, later chunks received before from the part
   file.  0, or -1 (a read error: errno). */
static int
s_hash_forward (s_item_t *item, const void *data, uint64_t offset, size_t len)
{
    void *buf = NULL;
    int rc = 0;
    while (rc == 0 && item->hashed < item->size) {
        size_t c = (size_t) (item->hashed / s_chunk_bytes);
        if (item->chunks[c] != C_GOT)
            break;
        uint64_t left = item->size - item->hashed;
        size_t n = (size_t) (left < s_chunk_bytes ? left : s_chunk_bytes);
        const void *bytes = data;
        if (offset != item->hashed || len != n) { /* received earlier */
            if (!buf)
                buf = malloc (s_chunk_bytes);
            rc = buf
                         && pread (item->fd, buf, n, (off_t) item->hashed)
                                == (ssize_t) n
                     ? 0
                     : -1;
            bytes = buf;
        }
        if (rc == 0)
            zdigest_update (item->digest, (const byte *) bytes, n);
        item->hashed += n;
    }
    free (buf);
    return rc;
}

/* Every chunk of item is here: its hash checked, it becomes the cache's
   entry, and is placed. */
static void
s_finish (shipfetch_t *self, s_item_t *item)
{
    hearth_error_t err;
    if (item->hashed != item->size) {
        s_fail (self, item, "cannot read back what was received");
        return;
    }
    if (strcasecmp (zdigest_string (item->digest), item->hash) != 0) {
        s_fail (self, item,
                "what the driver sent does not match its hash (did the file "
                "change on the driver's disk since the application "
                "started?): not used");
        return;
    }
    close (item->fd);
    item->fd = -1;
    if (shipcache_commit (self->cache, item->entry, item->mode, &err) < 0) {
        item->state = S_NEW; /* nothing of ours is left to abandon */
        s_fail (self, item, err.text);
        return;
    }
    item->state = S_DONE; /* committed: nothing to abandon */
    s_stop_fetch (self, item);
    log_info ("%s %s: %llu bytes fetched from the driver",
              item->lib ? "library" : "file", item->name,
              (unsigned long long) item->size);
    s_place (self, item);
}

/* ---- asking -------------------------------------------------------------- */

/* Ask the driver for chunk c of item, in slot. */
static void
s_ask (shipfetch_t *self, s_ask_t *slot, size_t index, size_t c)
{
    s_item_t *item = &self->items[index];
    uint64_t offset = (uint64_t) c * s_chunk_bytes;
    uint64_t left = item->size - offset;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FETCH_FILE);
    *slot = (s_ask_t){true, index, c, self->next_request++, hearth_mono_ms ()};
    item->chunks[c] = C_ASKED;
    item->tries[c]++;
    if (msg) {
        cJSON_AddStringToObject (msg->body, "hash", item->hash);
        cJSON_AddNumberToObject (msg->body, "offset", (double) offset);
        cJSON_AddNumberToObject (
            msg->body, "length",
            (double) (left < s_chunk_bytes ? left : s_chunk_bytes));
        cJSON_AddNumberToObject (msg->body, "request", (double) slot->request);
    }
    /* not sent (no memory): asked again at its timeout */
    if (!msg || self->send (self->arg, &msg) < 0)
        log_warn ("cannot ask the driver for %s: asked again later",
                  item->name);
    hearth_msg_destroy (&msg);
}

/* Ask for the next missing chunks while the window has room. */
static void
s_fill (shipfetch_t *self)
{
    for (size_t s = 0; s < s_max_in_flight; s++) {
        if (self->asks[s].used)
            continue;
        for (size_t i = 0; i < self->n && !self->asks[s].used; i++) {
            s_item_t *item = &self->items[i];
            for (size_t c = 0; item->state == S_FETCHING && c < item->nchunks;
                 c++)
                if (item->chunks[c] == C_MISSING) {
                    s_ask (self, &self->asks[s], i, c);
                    break;
                }
        }
    }
}

/* The chunk of slot must be asked for again (lost, late, corrupted):
   once more, unless it has had its tries. */
static void
s_retry (shipfetch_t *self, s_ask_t *slot, const char *why)
{
    s_item_t *item = &self->items[slot->item];
    size_t c = slot->chunk;
    slot->used = false;
    if (item->tries[c] >= s_max_tries) {
        char text[256];
        snprintf (text, sizeof text, "chunk %zu: %s, %d times", c, why,
                  s_max_tries);
        s_fail (self, item, text);
        return;
    }
    log_warn ("%s %s: chunk %zu %s: asked for again",
              item->lib ? "library" : "file", item->name, c, why);
    s_ask (self, slot, slot->item, c);
}

/* ---- starting ------------------------------------------------------------ */

/* Fetch item ourselves: a new part file, its chunks all missing. */
static void
s_begin_fetch (shipfetch_t *self, s_item_t *item)
{
    hearth_error_t err;
    item->state = S_FETCHING; /* the claim is ours: abandoned on failure */
    item->nchunks = (size_t) ((item->size + s_chunk_bytes - 1) / s_chunk_bytes);
    item->chunks = calloc (item->nchunks + 1, 1);
    item->tries = calloc (item->nchunks + 1, 1);
    item->digest = zdigest_new ();
    if (!item->chunks || !item->tries || !item->digest) {
        s_fail (self, item, "out of memory");
        return;
    }
    if ((item->fd = shipcache_part (self->cache, item->entry, &err)) < 0)
        s_fail (self, item, err.text);
    else if (item->nchunks == 0)
        s_finish (self, item);
}

/* Find item in the cache, or claim it, or wait for another's claim. */
static void
s_resolve (shipfetch_t *self, s_item_t *item)
{
    hearth_error_t err;
    if (shipcache_has (self->cache, item->entry, item->size)) {
        log_info ("%s %s: found in the node's cache",
                  item->lib ? "library" : "file", item->name);
        s_place (self, item);
        return;
    }
    int rc = shipcache_claim (self->cache, item->entry, &err);
    if (rc < 0)
        s_fail (self, item, err.text);
    else if (rc > 0)
        s_begin_fetch (self, item);
    else
        item->state = S_WAITING; /* another executor of the node fetches it */
}

/* An item of REGISTERED_EXECUTOR's list, into items[n] (its state S_NEW,
   or S_FAILED when its name or hash cannot be a file name). */
static void
s_add (shipfetch_t *self, const cJSON *o, bool lib)
{
    s_item_t *item = &self->items[self->n++];
    const char *name = hearth_json_str (o, "name");
    const char *hash = hearth_json_str (o, "hash");
    int mode = (int) hearth_json_int (o, "mode", lib ? 0700 : 0600);
    *item = (s_item_t){.name = strdup (name ? name : "?"),
                       .size = (uint64_t) hearth_json_int (o, "size", 0),
                       .mode = mode & 0100 ? s_exec_mode : s_plain_mode,
                       .lib = lib,
                       .fd = -1};
    snprintf (item->hash, sizeof item->hash, "%s", hash ? hash : "");
    int len = snprintf (item->entry, sizeof item->entry, "%s-%s", item->hash,
                        item->name);
    if (!item->name || !hearth_name_safe (item->name)
        || !hearth_name_safe (item->hash) || len >= (int) sizeof item->entry)
        s_fail (self, item, "a bad name or hash from the driver");
}

void
shipfetch_start (shipfetch_t *self, const cJSON *libs, const cJSON *files)
{
    if (self->started)
        return;
    self->started = true;
    size_t n = (size_t) cJSON_GetArraySize (libs)
               + (size_t) cJSON_GetArraySize (files);
    self->items = n ? calloc (n, sizeof *self->items) : NULL;
    if (n && !self->items) {
        self->ex->ship_error = strdup ("out of memory fetching the files");
        n = 0;
    }
    const cJSON *o;
    const cJSON *lists[2] = {n ? libs : NULL, n ? files : NULL};
    for (int k = 0; k < 2; k++)
        cJSON_ArrayForEach (o, lists[k]) s_add (self, o, k == 0);
    for (size_t i = 0; i < self->n; i++)
        if (self->items[i].state == S_NEW)
            s_resolve (self, &self->items[i]);
    s_fill (self);
    s_check_ready (self);
}

/* ---- answers ------------------------------------------------------------- */

/* Tell the node's waiting executors that our claims are alive, at most
   every s_touch_every_ms: from the tick, and from the chunks (a read of
   many of them may keep the loop from its tick for seconds). */
static void
s_touch_claims (shipfetch_t *self, int64_t now_ms)
{
    if (now_ms - self->touched_ms < s_touch_every_ms)
        return;
    self->touched_ms = now_ms;
    for (size_t i = 0; i < self->n; i++)
        if (self->items[i].state == S_FETCHING)
            shipcache_touch (self->cache, self->items[i].entry);
}

static s_ask_t *
s_find_ask (shipfetch_t *self, int64_t request)
{
    for (size_t i = 0; i < s_max_in_flight; i++)
        if (self->asks[i].used && self->asks[i].request == request)
            return &self->asks[i];
    return NULL;
}

/* Check and keep the chunk of slot: data, len bytes, its CRC-32C crc. */
static void
s_take (shipfetch_t *self, s_ask_t *slot, const void *data, size_t len,
        uint32_t crc)
{
    s_item_t *item = &self->items[slot->item];
    uint64_t offset = (uint64_t) slot->chunk * s_chunk_bytes;
    uint64_t left = item->size - offset;
    if (len != (left < s_chunk_bytes ? left : s_chunk_bytes)
        || hearth_crc32c (data, len) != crc) {
        s_retry (self, slot, "arrived corrupted (its CRC-32C or length)");
        return;
    }
    if (pwrite (item->fd, data, len, (off_t) offset) != (ssize_t) len) {
        s_fail (self, item, strerror (errno));
        return;
    }
    slot->used = false;
    item->chunks[slot->chunk] = C_GOT;
    item->ndone++;
    if (s_hash_forward (item, data, offset, len) < 0)
        s_fail (self, item, "cannot read back what was received");
    else if (item->ndone == item->nchunks)
        s_finish (self, item);
}

void
shipfetch_on_chunk (shipfetch_t *self, const hearth_msg_t *msg)
{
    s_ask_t *slot =
        s_find_ask (self, hearth_json_int (msg->body, "request", -1));
    zframe_t *data =
        hearth_msg_frame (msg, hearth_json_int (msg->body, "data", -1));
    if (!slot || !data)
        return; /* an answer to an ask given up on (late) */
    s_item_t *item = &self->items[slot->item];
    const char *hash = hearth_json_str (msg->body, "hash");
    if (!hash || strcasecmp (hash, item->hash) != 0
        || (uint64_t) hearth_json_int (msg->body, "offset", -1)
               != (uint64_t) slot->chunk * s_chunk_bytes)
        s_retry (self, slot, "came back for another file or offset");
    else
        s_take (self, slot, zframe_data (data), zframe_size (data),
                (uint32_t) hearth_json_int (msg->body, "crc32c", 0));
    s_touch_claims (self, hearth_mono_ms ());
    s_fill (self);
    s_check_ready (self);
}

bool
shipfetch_on_error (shipfetch_t *self, const hearth_msg_t *msg)
{
    const char *command = hearth_json_str (msg->body, "command");
    if (!command || strcmp (command, "FETCH_FILE") != 0)
        return false;
    s_ask_t *slot =
        s_find_ask (self, hearth_json_int (msg->body, "request", -1));
    if (slot) {
        char why[HEARTH_ERROR_TEXT_MAX + 64];
        snprintf (why, sizeof why, "the driver refused it: %s: %s",
                  hearth_json_str (msg->body, "code"),
                  hearth_json_str (msg->body, "message"));
        s_fail (self, &self->items[slot->item], why);
        s_fill (self);
        s_check_ready (self);
    }
    return true;
}

/* ---- the tick ------------------------------------------------------------ */

void
shipfetch_tick (shipfetch_t *self, int64_t now_ms)
{
    for (size_t i = 0; i < s_max_in_flight; i++)
        if (self->asks[i].used
            && now_ms - self->asks[i].sent_ms > s_ask_timeout_ms)
            s_retry (self, &self->asks[i], "was not answered in time");
    s_touch_claims (self, now_ms);
    for (size_t i = 0; i < self->n; i++)
        if (self->items[i].state == S_WAITING) /* there now, or stale */
            s_resolve (self, &self->items[i]);
    s_fill (self);
    s_check_ready (self);
}

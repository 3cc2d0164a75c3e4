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
#include "executor/shippeers.h"
#include "libcore/clock.h"
#include "libcore/crc32c.h"
#include "libcore/ids.h"
#include "libcore/log.h"

/* Bytes asked for in one FETCH_FILE: a chunk, as holders serve them. */
static const uint64_t s_chunk_bytes = HEARTH_FILE_CHUNK_BYTES;
/* Chunks asked for and not yet received, at most, from all sources... */
enum { s_max_in_flight = 8 };
/* ...and of the driver (every chunk is asked of it first): as many as
   when it was the only source, so that a node alone (or the first)
   loads the driver's loop no more than before; the rest of the window
   is for the chunks it redirected to other nodes. */
enum { s_max_driver_asks = 4 };
/* A chunk the driver does not answer this long is asked for again... */
static const int64_t s_ask_timeout_ms = 15000;
/* ...and a chunk fails after this many failed asks of the driver. */
enum { s_max_tries = 4 };
/* A holder that answers nothing this long while a chunk asked of it
   waits is dropped (its node died, or hangs): the chunk goes to another
   holder or the driver.  A holder answering other asks is alive, only
   busy (a node serving several others from a slow disk). */
static const int64_t s_holder_timeout_ms = 5000;
/* A holder that has not got a chunk yet (it is on its way to it) is
   asked again after this... */
static const int64_t s_not_yet_wait_ms = 50;
/* ...for at most this long, then another holder or the driver is. */
static const int64_t s_not_yet_patience_ms = 10000;
/* Chunks received out of order that are read back and hashed in one
   turn of the loop, at most: a node that starts in the middle of a file
   has half of it to hash once the first half arrives, seconds of work
   that must not keep the driver's link unread (the rest is hashed at
   the next turns, s_on_timer). */
enum { s_hash_reads_per_turn = 2 };
/* How often the waits and the holders' silences are looked at. */
static const size_t s_timer_ms = 25;
/* The driver, as the source of an ask (the peers are 0...). */
enum { S_DRIVER = -1 };
/* Another executor's claim untouched this long (or 2 x the driver's
   liveness window, when longer) is taken over. */
static const int64_t s_min_stale_ms = 10000;
/* Our claims are touched this often. */
static const int64_t s_touch_every_ms = 1000;
/* Modes of what lands in the cache: read-only (the node's executors
   share the bytes), executable by its owner or not. */
static const int s_exec_mode = 0500, s_plain_mode = 0400;

typedef enum { S_NEW, S_WAITING, S_FETCHING, S_DONE, S_FAILED } s_state_t;

/* What an item is: a library (loaded), a file (linked into the work
   dir) or a broadcast file (left in the cache, named by the task's
   environment). */
typedef enum { K_LIB, K_FILE, K_BCAST } s_kind_t;
static const char *const s_kind_names[] = {"library", "file", "broadcast file"};

/* A chunk's state. */
enum { C_MISSING, C_ASKED, C_GOT };

/* One library or file. */
typedef struct {
    char *name;        /* as shipped, e.g. "libpi.so" */
    char hash[129];    /* SHA-1, hex, as the driver names it */
    char entry[400];   /* HASH-NAME, its name in the cache */
    uint64_t size;     /* bytes */
    int mode;          /* s_exec_mode or s_plain_mode */
    s_kind_t kind;     /* a library, a file or a broadcast file */
    s_state_t state;   /* where it is */
    int fd;            /* our part file while FETCHING, or -1 */
    size_t nchunks;    /* chunks of s_chunk_bytes (the last shorter) */
    size_t ndone;      /* of them received */
    uint8_t *chunks;   /* C_MISSING, C_ASKED, C_GOT each (owned) */
    uint8_t *tries;    /* asks of each (owned) */
    zdigest_t *digest; /* SHA-1 of the bytes before `hashed` (owned) */
    uint64_t hashed;   /* bytes hashed so far, from the start */
    int have;          /* our progress file while FETCHING (shipcache.h),
                          or -1 */
    size_t first;      /* the chunk asked for first (ship_start) */
    size_t cursor;     /* chunks looked at from first on, for asking */
} s_item_t;

/* A chunk asked for. */
typedef struct {
    bool used;       /* this slot is in flight */
    size_t item;     /* index in items */
    size_t chunk;    /* chunk index */
    int64_t request; /* the FETCH_FILE's number */
    int64_t sent_ms; /* when */
    int source;      /* S_DRIVER, or the peer asked (shippeers.h) */
    bool force;      /* the driver is to send it, not name holders */
    int64_t due_ms;  /* to ask source again then (it had not got the
                        chunk yet), or 0 */
    int64_t wait_ms; /* when source first said not yet, or 0 */
    int holders[HEARTH_FILE_HOLDERS_MAX]; /* peers the driver named */
    int nholders;                         /* entries of holders */
    unsigned tried;                       /* bit i: holders[i] asked */
} s_ask_t;

struct shipfetch {
    executor_t *ex;                /* the context (borrowed) */
    shipcache_t *cache;            /* the node's cache (owned) */
    shippeers_t *peers;            /* other nodes' holders (owned) */
    int timer;                     /* s_on_timer's, or -1 */
    double start;                  /* where in each file to start asking,
                                      0..1 (REGISTERED_EXECUTOR
                                      ship_start) */
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

static void s_on_peer (void *arg, int peer, const hearth_msg_t *msg);
static int s_on_timer (hearth_loop_t *loop, int timer_id, void *arg);

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
    *self = (shipfetch_t){
        .ex = ex, .send = send, .ready = ready, .arg = arg, .timer = -1};
    if (!(self->peers = shippeers_new (ex->loop, s_on_peer, self))) {
        hearth_errprintf (err, "out of memory");
        free (self);
        return NULL;
    }
    if (ex->ship_dir)
        snprintf (dir, sizeof dir, "%s", ex->ship_dir);
    else
        snprintf (dir, sizeof dir, "%s/.files", ex->work_dir);
    int64_t stale = 2 * ex->hb_liveness * ex->hb_interval_ms;
    if (!(self->cache = shipcache_new (
              dir, stale > s_min_stale_ms ? stale : s_min_stale_ms, err))) {
        shippeers_destroy (&self->peers);
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
    if (item->have >= 0)
        close (item->have);
    item->fd = item->have = -1;
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
    if (self->timer >= 0)
        hearth_loop_timer_end (self->ex->loop, self->timer);
    shippeers_destroy (&self->peers);
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
    if (self->timer >= 0)
        hearth_loop_timer_end (self->ex->loop, self->timer);
    self->timer = -1;
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
    snprintf (text, sizeof text, "%s %s: %s", s_kind_names[item->kind],
              item->name, why);
    log_error ("%s", text);
    s_stop_fetch (self, item);
    item->state = S_FAILED;
    if (item->kind == K_LIB) { /* the tasks that need it get the error */
        hearth_error_t err;
        hearth_errprintf (&err, "%s", text);
        libs_add (ex->libs, item->name, NULL, &err);
    }
    else if (!ex->ship_error)
        ex->ship_error = strdup (text);
}

/* Tell the driver that this node holds item, complete: other nodes may
   fetch it from our worker (when there is one to serve it). */
static void
s_tell_held (shipfetch_t *self, const s_item_t *item)
{
    if (!self->ex->shuffle_url)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FILE_HELD);
    if (msg)
        cJSON_AddStringToObject (msg->body, "hash", item->hash);
    if (!msg || self->send (self->arg, &msg) < 0)
        log_warn ("cannot tell the driver that this node holds %s", item->name);
    hearth_msg_destroy (&msg);
}

/* Broadcast file name is at path (in the cache, read-only): the tasks
   find it in their environment, HEARTH_BROADCAST_NAME (this process's:
   command tasks inherit it; set before any of their tasks starts,
   ship_waiting holding them), and function tasks also in their
   hearth_task_in_t (ex->broadcast, "NAME=PATH").  0, or -1 on no
   memory. */
static int
s_broadcast (executor_t *ex, const char *name, const char *path)
{
    char var[256];
    snprintf (var, sizeof var, "HEARTH_BROADCAST_%s", name);
    size_t n = 0;
    while (ex->broadcast && ex->broadcast[n])
        n++;
    char **grown = realloc (ex->broadcast, (n + 2) * sizeof *grown);
    if (!grown)
        return -1;
    ex->broadcast = grown;
    if (asprintf (&grown[n], "%s=%s", name, path) < 0) {
        grown[n] = NULL;
        return -1;
    }
    grown[n + 1] = NULL;
    log_info ("broadcast file %s at %s", name, path);
    return setenv (var, path, 1);
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
    s_tell_held (self, item);
    if (item->kind == K_LIB) {
        if (libs_add (self->ex->libs, item->name, path, &err) < 0)
            log_error ("%s", err.text);
    }
    else if (item->kind == K_BCAST) {
        if (s_broadcast (self->ex, item->name, path) < 0)
            s_fail (self, item, "out of memory");
    }
    else if (files_place (self->ex->work_dir, item->name, path, item->mode,
                          &err)
             < 0)
        s_fail (self, item, err.text);
}

/* Hash what is received in order from item->hashed on: data (len bytes
   at offset; NULL: none) from memory, later chunks received before from
   the part file, s_hash_reads_per_turn of them at most.  0, or -1 (a
   read error: errno). */
static int
s_hash_forward (s_item_t *item, const void *data, uint64_t offset, size_t len)
{
    void *buf = NULL;
    int rc = 0, reads = 0;
    while (rc == 0 && item->hashed < item->size) {
        size_t c = (size_t) (item->hashed / s_chunk_bytes);
        if (item->chunks[c] != C_GOT)
            break;
        uint64_t left = item->size - item->hashed;
        size_t n = (size_t) (left < s_chunk_bytes ? left : s_chunk_bytes);
        const void *bytes = data;
        if (!data || offset != item->hashed || len != n) { /* earlier */
            if (reads++ == s_hash_reads_per_turn)
                break; /* the rest at the next turn */
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
    log_info ("%s %s: %llu bytes fetched", s_kind_names[item->kind], item->name,
              (unsigned long long) item->size);
    s_place (self, item);
}

/* ---- asking -------------------------------------------------------------- */

static void s_next_source (shipfetch_t *self, s_ask_t *slot, const char *why);

/* Ask slot's source for slot's chunk, as a new request. */
static void
s_send_ask (shipfetch_t *self, s_ask_t *slot)
{
    s_item_t *item = &self->items[slot->item];
    uint64_t offset = (uint64_t) slot->chunk * s_chunk_bytes;
    uint64_t left = item->size - offset;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FETCH_FILE);
    slot->request = self->next_request++;
    slot->sent_ms = hearth_mono_ms ();
    slot->due_ms = 0;
    if (msg) {
        cJSON *b = msg->body;
        cJSON_AddStringToObject (b, "hash", item->hash);
        cJSON_AddNumberToObject (b, "offset", (double) offset);
        cJSON_AddNumberToObject (
            b, "length",
            (double) (left < s_chunk_bytes ? left : s_chunk_bytes));
        cJSON_AddNumberToObject (b, "request", (double) slot->request);
        if (slot->force)
            cJSON_AddBoolToObject (b, "force", true);
        if (slot->source != S_DRIVER) { /* a block server admits by token */
            cJSON_AddStringToObject (b, "app_id", self->ex->app_id);
            cJSON_AddStringToObject (b, "token",
                                     self->ex->token ? self->ex->token : "");
            cJSON_AddStringToObject (b, "name", item->name);
        }
    }
    if (slot->source != S_DRIVER) {
        if (!msg || shippeers_send (self->peers, slot->source, &msg) < 0)
            s_next_source (self, slot, "cannot be asked");
        return;
    }
    /* not sent (no memory): asked again at its timeout */
    if (!msg || self->send (self->arg, &msg) < 0)
        log_warn ("cannot ask the driver for %s: asked again later",
                  item->name);
    hearth_msg_destroy (&msg);
}

/* Ask for chunk c of item, in slot: the driver first, which sends it or
   names the nodes that hold it. */
static void
s_ask (shipfetch_t *self, s_ask_t *slot, size_t index, size_t c)
{
    *slot =
        (s_ask_t){.used = true, .item = index, .chunk = c, .source = S_DRIVER};
    self->items[index].chunks[c] = C_ASKED;
    s_send_ask (self, slot);
}

/* The next missing chunk of item, from its first on (wrapping), or
   SIZE_MAX. */
static size_t
s_next_missing (s_item_t *item)
{
    while (item->cursor < item->nchunks) {
        size_t c = (item->first + item->cursor++) % item->nchunks;
        if (item->chunks[c] == C_MISSING)
            return c;
    }
    return SIZE_MAX;
}

/* Ask for the next missing chunks while the window has room. */
static void
s_fill (shipfetch_t *self)
{
    int at_driver = 0;
    for (size_t s = 0; s < s_max_in_flight; s++)
        at_driver += self->asks[s].used && self->asks[s].source == S_DRIVER;
    for (size_t s = 0; s < s_max_in_flight && at_driver < s_max_driver_asks;
         s++) {
        if (self->asks[s].used)
            continue;
        at_driver++; /* a new ask goes to the driver first */
        for (size_t i = 0; i < self->n && !self->asks[s].used; i++) {
            s_item_t *item = &self->items[i];
            size_t c =
                item->state == S_FETCHING ? s_next_missing (item) : SIZE_MAX;
            if (c != SIZE_MAX)
                s_ask (self, &self->asks[s], i, c);
        }
    }
}

/* The driver must send slot's chunk itself (no holder could), unless
   it has had its tries: only the driver's own failures (driver_failed:
   silent, a damaged chunk) count, not the holders' (a node whose
   fetcher died refuses the chunks it had; that is no reason to fail the
   file). */
static void
s_ask_driver (shipfetch_t *self, s_ask_t *slot, const char *why,
              bool driver_failed)
{
    s_item_t *item = &self->items[slot->item];
    size_t c = slot->chunk;
    if (driver_failed && ++item->tries[c] >= s_max_tries) {
        char text[256];
        snprintf (text, sizeof text, "chunk %zu: %s, %d times", c, why,
                  s_max_tries);
        slot->used = false;
        s_fail (self, item, text);
        return;
    }
    slot->source = S_DRIVER;
    slot->force = true;
    s_send_ask (self, slot);
}

/* slot's source did not give its chunk, for why (logged; NULL: the
   driver named holders): the next holder the driver named that is not
   asked yet, else the driver itself. */
static void
s_next_source (shipfetch_t *self, s_ask_t *slot, const char *why)
{
    s_item_t *item = &self->items[slot->item];
    if (why) /* NULL: the driver named holders, the usual way */
        log_warn ("%s %s: chunk %zu %s: asked for again (it was asked of %s)",
                  s_kind_names[item->kind], item->name, slot->chunk, why,
                  slot->source == S_DRIVER
                      ? "the driver"
                      : shippeers_url (self->peers, slot->source));
    bool driver_failed = why && slot->source == S_DRIVER;
    slot->wait_ms = 0;
    for (int i = 0; i < slot->nholders; i++)
        if (!(slot->tried & (1u << i))
            && shippeers_usable (self->peers, slot->holders[i])) {
            slot->tried |= 1u << i;
            slot->source = slot->holders[i];
            s_send_ask (self, slot);
            return;
        }
    s_ask_driver (self, slot, why ? why : "no holder named could give it",
                  driver_failed);
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
    item->first = (size_t) (self->start * (double) item->nchunks);
    if (item->first >= item->nchunks)
        item->first = 0;
    if ((item->fd = shipcache_part (self->cache, item->entry, &err)) < 0
        || (item->have =
                shipcache_have (self->cache, item->entry, item->nchunks, &err))
               < 0)
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
        log_info ("%s %s: found in the node's cache", s_kind_names[item->kind],
                  item->name);
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
s_add (shipfetch_t *self, const cJSON *o, s_kind_t kind)
{
    const char *name = hearth_json_str (o, "name");
    const char *hash = hearth_json_str (o, "hash");
    bool lib = kind == K_LIB;
    for (size_t i = 0; i < self->n; i++)
        if (self->items[i].kind == kind && name && hash
            && strcmp (self->items[i].name, name) == 0
            && strcasecmp (self->items[i].hash, hash) == 0)
            return; /* told again (BROADCAST after REGISTERED_EXECUTOR) */
    s_item_t *item = &self->items[self->n++];
    int mode = (int) hearth_json_int (o, "mode", lib ? 0700 : 0600);
    *item = (s_item_t){.name = strdup (name ? name : "?"),
                       .size = (uint64_t) hearth_json_int (o, "size", 0),
                       .mode = mode & 0100 ? s_exec_mode : s_plain_mode,
                       .kind = kind,
                       .fd = -1,
                       .have = -1};
    snprintf (item->hash, sizeof item->hash, "%s", hash ? hash : "");
    int len = snprintf (item->entry, sizeof item->entry, "%s-%s", item->hash,
                        item->name);
    if (!item->name || !hearth_name_safe (item->name)
        || !hearth_name_safe (item->hash) || len >= (int) sizeof item->entry)
        s_fail (self, item, "a bad name or hash from the driver");
}

/* Add the items of lists[K_LIB..K_BCAST] (borrowed; each may be NULL)
   and get them: the tasks wait until they are in place. */
static void
s_add_lists (shipfetch_t *self, const cJSON *const lists[3])
{
    size_t n = self->n;
    for (int k = K_LIB; k <= K_BCAST; k++)
        n += (size_t) cJSON_GetArraySize (lists[k]);
    s_item_t *items =
        n > self->n ? realloc (self->items, n * sizeof *items) : self->items;
    size_t first = self->n;
    const cJSON *o;
    if (n > self->n && !items) { /* every task fails with it */
        if (!self->ex->ship_error)
            self->ex->ship_error = strdup ("out of memory fetching the files");
    }
    else {
        self->items = items;
        for (int k = K_LIB; k <= K_BCAST; k++)
            cJSON_ArrayForEach (o, lists[k]) s_add (self, o, (s_kind_t) k);
    }
    if (self->n > first && self->told_ready) { /* hold the tasks again */
        self->told_ready = false;
        self->ex->ship_waiting = true;
    }
    for (size_t i = first; i < self->n; i++)
        if (self->items[i].state == S_NEW)
            s_resolve (self, &self->items[i]);
    if (!self->told_ready && self->timer < 0)
        self->timer =
            hearth_loop_timer (self->ex->loop, s_timer_ms, 0, s_on_timer, self);
    s_fill (self);
    s_check_ready (self);
}

void
shipfetch_start (shipfetch_t *self, const cJSON *libs, const cJSON *files,
                 const cJSON *bcast, double start)
{
    if (self->started)
        return;
    self->started = true;
    self->start = start >= 0 && start < 1 ? start : 0;
    const cJSON *lists[3] = {libs, files, bcast};
    s_add_lists (self, lists);
}

void
shipfetch_add_broadcast (shipfetch_t *self, const cJSON *bcast)
{
    const cJSON *lists[3] = {NULL, NULL, bcast};
    if (self->started) /* else REGISTERED_EXECUTOR will name them */
        s_add_lists (self, lists);
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
        s_next_source (self, slot, "arrived corrupted (its CRC-32C or length)");
        return;
    }
    if (pwrite (item->fd, data, len, (off_t) offset) != (ssize_t) len) {
        s_fail (self, item, strerror (errno));
        return;
    }
    slot->used = false;
    item->chunks[slot->chunk] = C_GOT;
    shipcache_have_mark (item->have, slot->chunk); /* ours to serve now */
    item->ndone++;
    if (s_hash_forward (item, data, offset, len) < 0)
        s_fail (self, item, "cannot read back what was received");
    else if (item->ndone == item->nchunks && item->hashed == item->size)
        s_finish (self, item);
}

/* A FILE_CHUNK from source for slot. */
static void
s_on_chunk (shipfetch_t *self, s_ask_t *slot, const hearth_msg_t *msg)
{
    zframe_t *data =
        hearth_msg_frame (msg, hearth_json_int (msg->body, "data", -1));
    s_item_t *item = &self->items[slot->item];
    const char *hash = hearth_json_str (msg->body, "hash");
    if (!data || !hash || strcasecmp (hash, item->hash) != 0
        || (uint64_t) hearth_json_int (msg->body, "offset", -1)
               != (uint64_t) slot->chunk * s_chunk_bytes)
        s_next_source (self, slot, "came back for another file or offset");
    else
        s_take (self, slot, zframe_data (data), zframe_size (data),
                (uint32_t) hearth_json_int (msg->body, "crc32c", 0));
}

/* What every answer is followed by. */
static void
s_after_answer (shipfetch_t *self)
{
    s_touch_claims (self, hearth_mono_ms ());
    s_fill (self);
    s_check_ready (self);
}

/* The ask of request from source, or NULL (an answer to an ask given up
   on, or asked again since). */
static s_ask_t *
s_answered (shipfetch_t *self, const hearth_msg_t *msg, int source)
{
    s_ask_t *slot =
        s_find_ask (self, hearth_json_int (msg->body, "request", -1));
    return slot && slot->source == source && slot->due_ms == 0 ? slot : NULL;
}

void
shipfetch_on_chunk (shipfetch_t *self, const hearth_msg_t *msg)
{
    s_ask_t *slot = s_answered (self, msg, S_DRIVER);
    if (slot)
        s_on_chunk (self, slot, msg);
    s_after_answer (self);
}

void
shipfetch_on_holders (shipfetch_t *self, const hearth_msg_t *msg)
{
    s_ask_t *slot = s_answered (self, msg, S_DRIVER);
    const cJSON *o;
    if (!slot)
        return;
    slot->nholders = 0;
    slot->tried = 0;
    cJSON_ArrayForEach (o,
                        cJSON_GetObjectItemCaseSensitive (msg->body, "holders"))
    {
        const char *url = hearth_json_str (o, "url");
        int peer = url && *url
                           && (!self->ex->shuffle_url
                               || strcmp (url, self->ex->shuffle_url) != 0)
                       ? shippeers_intern (self->peers, url,
                                           hearth_json_str (o, "key"))
                       : -1;
        if (peer >= 0 && slot->nholders < HEARTH_FILE_HOLDERS_MAX)
            slot->holders[slot->nholders++] = peer;
    }
    s_next_source (self, slot, NULL);
    s_after_answer (self);
}

/* A holder's answer to one of our FETCH_FILE. */
static void
s_on_peer (void *arg, int peer, const hearth_msg_t *msg)
{
    shipfetch_t *self = arg;
    s_ask_t *slot = s_answered (self, msg, peer);
    const char *code = hearth_json_str (msg->body, "code");
    int64_t now = hearth_mono_ms ();
    if (!slot)
        return;
    if (msg->cmd == HEARTH_CMD_FILE_CHUNK)
        s_on_chunk (self, slot, msg);
    else if (msg->cmd != HEARTH_CMD_ERROR)
        s_next_source (self, slot, "was answered with another command");
    else if (code && strcmp (code, "not_yet") == 0
             && (!slot->wait_ms
                 || now - slot->wait_ms < s_not_yet_patience_ms)) {
        if (!slot->wait_ms)
            slot->wait_ms = now;
        slot->due_ms = now + s_not_yet_wait_ms; /* on its way there */
    }
    else {
        char why[HEARTH_ERROR_TEXT_MAX + 64];
        const char *text = hearth_json_str (msg->body, "message");
        snprintf (why, sizeof why, "was refused: %s: %s", code ? code : "?",
                  text ? text : "");
        if (code && strcmp (code, "not_yet") != 0 && strcmp (code, "io") != 0)
            shippeers_drop (self->peers, peer, why); /* it holds nothing */
        s_next_source (self, slot, why);
    }
    s_after_answer (self);
}

bool
shipfetch_on_error (shipfetch_t *self, const hearth_msg_t *msg)
{
    const char *command = hearth_json_str (msg->body, "command");
    if (!command || strcmp (command, "FETCH_FILE") != 0)
        return false;
    s_ask_t *slot = s_answered (self, msg, S_DRIVER);
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

/* Chunks received out of order, hashed a few at a turn; an item whose
   chunks are all here and hashed, finished. */
static void
s_hash_more (shipfetch_t *self)
{
    for (size_t i = 0; i < self->n; i++) {
        s_item_t *item = &self->items[i];
        if (item->state != S_FETCHING || item->hashed >= item->size
            || item->chunks[item->hashed / s_chunk_bytes] != C_GOT)
            continue;
        if (s_hash_forward (item, NULL, 0, 0) < 0)
            s_fail (self, item, "cannot read back what was received");
        else if (item->ndone == item->nchunks && item->hashed == item->size)
            s_finish (self, item);
    }
}

/* Asks waiting for a holder to get their chunk, asked again; holders
   silent too long, dropped; received chunks hashed. */
static int
s_on_timer (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    shipfetch_t *self = arg;
    int64_t now = hearth_mono_ms ();
    s_hash_more (self);
    for (size_t i = 0; i < s_max_in_flight; i++) {
        s_ask_t *slot = &self->asks[i];
        if (!slot->used || slot->source == S_DRIVER)
            continue;
        if (slot->due_ms && now >= slot->due_ms)
            s_send_ask (self, slot);
        else if (!slot->due_ms && now - slot->sent_ms > s_holder_timeout_ms
                 && now - shippeers_heard (self->peers, slot->source)
                        > s_holder_timeout_ms) {
            shippeers_drop (self->peers, slot->source, "was silent");
            s_next_source (self, slot, "was not answered in time");
        }
    }
    s_after_answer (self);
    return 0;
}

void
shipfetch_tick (shipfetch_t *self, int64_t now_ms)
{
    for (size_t i = 0; i < s_max_in_flight; i++)
        if (self->asks[i].used && self->asks[i].source == S_DRIVER
            && now_ms - self->asks[i].sent_ms > s_ask_timeout_ms)
            s_next_source (self, &self->asks[i], "was not answered in time");
    s_touch_claims (self, now_ms);
    for (size_t i = 0; i < self->n; i++)
        if (self->items[i].state == S_WAITING) /* there now, or stale */
            s_resolve (self, &self->items[i]);
    s_fill (self);
    s_check_ready (self);
}

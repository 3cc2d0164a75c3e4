/*  replicate.c - the leader's journal stream to standby masters; see
    replicate.h.  Per-task work never reaches it: tasks go from driver to
    executor, and the master's journal holds workers, applications,
    executors and drivers, never tasks. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "master/replicate.h"
#include "master/send.h"

/* Records per JOURNAL_DATA (the snapshot's and a busy turn's). */
#define CHUNK_RECORDS 1000

typedef struct {
    zframe_t *rid;   /* the standby's routing id (owned) */
    char key[64];    /* its hex, the index's key */
    char stream[17]; /* the stream it follows */
    uint64_t seq;    /* next message number */
    int64_t seen_ms; /* monotonic time of its last FOLLOW_JOURNAL */
    char url[300];   /* its URL, for the log */
} s_follower_t;

struct replicate {
    zhashx_t *followers; /* key -> s_follower_t (owned) */
    cJSON *pending;      /* records not yet sent (an array), or NULL */
    uint64_t rand;       /* stream ids' source */
};

static void
s_follower_destroy (void **item)
{
    s_follower_t *f = *item;
    if (f) {
        zframe_destroy (&f->rid);
        free (f);
    }
    *item = NULL;
}

replicate_t *
replicate_new (void)
{
    replicate_t *self = calloc (1, sizeof *self);
    if (!self || !(self->followers = zhashx_new ())) {
        free (self);
        return NULL;
    }
    zhashx_set_destructor (self->followers, s_follower_destroy);
    self->rand = (uint64_t) hearth_mono_us () * 0x9E3779B97F4A7C15ull | 1;
    return self;
}

void
replicate_destroy (replicate_t **self_p)
{
    replicate_t *self = *self_p;
    if (!self)
        return;
    zhashx_destroy (&self->followers);
    cJSON_Delete (self->pending);
    free (self);
    *self_p = NULL;
}

/* JOURNAL_DATA {stream, seq, snapshot, last, records} (records consumed)
   to f. */
static void
s_send (master_t *m, s_follower_t *f, cJSON *records, bool snapshot, bool last)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_JOURNAL_DATA);
    if (!msg) {
        cJSON_Delete (records);
        return;
    }
    cJSON_AddStringToObject (msg->body, "stream", f->stream);
    cJSON_AddNumberToObject (msg->body, "seq", (double) f->seq++);
    if (snapshot)
        cJSON_AddBoolToObject (msg->body, "snapshot", true);
    if (last)
        cJSON_AddBoolToObject (msg->body, "last", true);
    cJSON_AddItemToObject (msg->body, "records",
                           records ? records : cJSON_CreateArray ());
    master_send (m, f->rid, msg);
}

/* The snapshot being sent: its follower and the chunk being filled. */
typedef struct {
    master_t *m;
    s_follower_t *f;
    cJSON *chunk;
    size_t records;
} s_dump_t;

static void
s_dump_record (void *arg, const cJSON *record, bool sync)
{
    (void) sync;
    s_dump_t *d = arg;
    if (!d->chunk)
        d->chunk = cJSON_CreateArray ();
    cJSON_AddItemToArray (d->chunk, cJSON_Duplicate (record, 1));
    d->records++;
    if (cJSON_GetArraySize (d->chunk) >= CHUNK_RECORDS) {
        s_send (d->m, d->f, d->chunk, true, false);
        d->chunk = NULL;
    }
}

static void
s_new_stream (master_t *m, s_follower_t *f)
{
    replicate_t *self = m->repl;
    self->rand ^= self->rand << 13;
    self->rand ^= self->rand >> 7;
    self->rand ^= self->rand << 17;
    snprintf (f->stream, sizeof f->stream, "%016llx",
              (unsigned long long) self->rand);
    f->seq = 0;
    s_dump_t d = {m, f, NULL, 0};
    registry_dump (m->reg, s_dump_record, &d);
    s_send (m, f, d.chunk, true, true);
    log_info ("standby %s follows the journal: stream %s, a snapshot of %zu "
              "records",
              *f->url ? f->url : f->key, f->stream, d.records);
}

void
master_follow_journal (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    replicate_t *self = m->repl;
    char *hex = zframe_strhex (rid);
    if (!self || !hex) {
        free (hex);
        if (!self)
            master_reject (m, rid, "unexpected_command",
                           "this master has no standbys (no --zookeeper)",
                           "FOLLOW_JOURNAL");
        return;
    }
    char key[64];
    snprintf (key, sizeof key, "%s", hex);
    free (hex);
    const char *stream = hearth_json_str (msg->body, "stream");
    const char *url = hearth_json_str (msg->body, "url");
    s_follower_t *f = zhashx_lookup (self->followers, key);
    if (!f) {
        if (!(f = calloc (1, sizeof *f)) || !(f->rid = zframe_dup (rid))) {
            free (f);
            return;
        }
        snprintf (f->key, sizeof f->key, "%s", key);
        zhashx_insert (self->followers, key, f);
    }
    snprintf (f->url, sizeof f->url, "%s", url ? url : "");
    f->seen_ms = hearth_mono_ms ();
    if (stream && strcmp (stream, f->stream) == 0) {
        s_send (m, f, NULL, false, false); /* the keepalive's answer */
        return;
    }
    /* the others get what is pending first: the snapshot already holds
       it, and must be the new stream's start */
    master_replicate_flush (m);
    s_new_stream (m, f);
}

void
master_replicate_record (master_t *m, const cJSON *record)
{
    replicate_t *self = m->repl;
    if (!self || zhashx_size (self->followers) == 0)
        return;
    if (!self->pending && !(self->pending = cJSON_CreateArray ()))
        return;
    cJSON_AddItemToArray (self->pending, cJSON_Duplicate (record, 1));
    if (cJSON_GetArraySize (self->pending) >= CHUNK_RECORDS)
        master_replicate_flush (m);
}

void
master_replicate_flush (master_t *m)
{
    replicate_t *self = m->repl;
    if (!self || !self->pending)
        return;
    cJSON *records = self->pending;
    self->pending = NULL;
    size_t n = zhashx_size (self->followers), i = 0;
    /* the last follower gets the array itself, the others copies */
    for (s_follower_t *f = zhashx_first (self->followers); f;
         f = zhashx_next (self->followers))
        s_send (m, f, ++i == n ? records : cJSON_Duplicate (records, 1), false,
                false);
    if (n == 0)
        cJSON_Delete (records);
}

void
master_replicate_tick (master_t *m, int64_t now)
{
    replicate_t *self = m->repl;
    if (!self)
        return;
    int64_t timeout = m->interval_ms * m->liveness;
    zlistx_t *gone = zlistx_new ();
    for (s_follower_t *f = zhashx_first (self->followers); gone && f;
         f = zhashx_next (self->followers))
        if (now - f->seen_ms > timeout)
            zlistx_add_end (gone, f->key);
    for (char *k = gone ? zlistx_first (gone) : NULL; k;
         k = zlistx_next (gone)) {
        char key[64]; /* k is the follower's own, freed with it */
        snprintf (key, sizeof key, "%s", k);
        s_follower_t *f = zhashx_lookup (self->followers, key);
        log_warn ("standby %s stopped following the journal (silent for %lld "
                  "ms)",
                  *f->url ? f->url : key, (long long) timeout);
        zhashx_delete (self->followers, key);
    }
    zlistx_destroy (&gone);
}

size_t
master_replicate_followers (const master_t *m)
{
    return m->repl ? zhashx_size (m->repl->followers) : 0;
}

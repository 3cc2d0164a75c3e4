/*  replicate.c - the leader's journal stream to standby masters; see
    replicate.h.  Per-task work never reaches it: tasks go from driver to
    executor, and the master's journal holds workers, applications,
    executors and drivers, never tasks. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/jsonprint.h"
#include "libcore/log.h"
#include "master/authz.h"
#include "master/regdrivers.h"
#include "master/replicate.h"
#include "master/send.h"

/* Records per JOURNAL_DATA (the snapshot's and a busy turn's). */
#define CHUNK_RECORDS 1000
/* A JOURNAL_DATA takes no more drivers' files once they reach this: so a
   message holds at most this much plus one driver's (--max-submit-size,
   64 MiB by default). */
static const size_t s_message_file_bytes = 64 * 1024 * 1024;
/* Nor more applications' outputs (`outs` records, issue 39: up to 100,000
   outputs each) once their text reaches this, far below the 64 MiB a
   body may hold. */
static const size_t s_message_outs_bytes = 16 * 1024 * 1024;

typedef struct {
    zframe_t *rid;   /* the standby's routing id (owned) */
    char key[64];    /* its hex, the index's key */
    char stream[17]; /* the stream it follows */
    uint64_t seq;    /* next message number */
    int64_t seen_ms; /* monotonic time of its last FOLLOW_JOURNAL */
    char url[300];   /* its URL, for the log */
    zhashx_t *sent;  /* ids of the live drivers whose files its stream
                        carried (values unused) */
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
        zhashx_destroy (&f->sent);
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

/* A JOURNAL_DATA being filled for one follower: its records and the
   files of the live cluster-mode drivers they name that the follower's
   stream has not carried yet. */
typedef struct {
    master_t *m;
    s_follower_t *f;
    hearth_msg_t *msg; /* being filled, or NULL */
    bool snapshot;     /* the stream's snapshot */
    size_t file_bytes; /* the files' bytes in msg */
    size_t outs_bytes; /* the text of the outs records in msg */
    size_t records;    /* records given in all */
    size_t drivers;    /* drivers whose files went, in all */
} s_batch_t;

/* Send what b holds (an empty message too when last or when forced). */
static void
s_batch_send (s_batch_t *b, bool last, bool force)
{
    if (!b->msg && !last && !force)
        return;
    if (!b->msg && !(b->msg = hearth_msg_new (HEARTH_CMD_JOURNAL_DATA)))
        return;
    cJSON *body = b->msg->body;
    cJSON_AddStringToObject (body, "stream", b->f->stream);
    cJSON_AddNumberToObject (body, "seq", (double) b->f->seq++);
    if (b->snapshot)
        cJSON_AddBoolToObject (body, "snapshot", true);
    if (last)
        cJSON_AddBoolToObject (body, "last", true);
    if (!cJSON_GetObjectItem (body, "records"))
        cJSON_AddArrayToObject (body, "records");
    master_send (b->m, b->f->rid, b->msg);
    b->msg = NULL;
    b->file_bytes = 0;
    b->outs_bytes = 0;
}

/* The text size of an `outs` record, 0 for any other (small) record. */
static size_t
s_outs_bytes (const cJSON *record)
{
    const char *t = hearth_json_str (record, "t");
    if (!t || strcmp (t, "outs") != 0)
        return 0;
    hearth_jsonbuf_t buf; /* cJSON's own printer: a sscanf a number */
    const char *text = hearth_json_print (record, &buf, NULL, 0);
    size_t n = text ? buf.len : 0;
    hearth_jsonbuf_release (&buf);
    return n;
}

/* A driver's record: its files go with it the first time the stream
   names the driver live; its end forgets them.  The frames are the
   registry's, shared (not copied) until the message is sent, which is
   before the registry can drop them: within this turn of the loop. */
static void
s_batch_files (s_batch_t *b, const cJSON *record)
{
    const char *id = hearth_json_str (record, "id");
    reg_driver_t *d = id ? registry_driver (b->m->reg, id) : NULL;
    if (strcmp (hearth_json_str (record, "t"), "driver-") == 0 || !d
        || registry_driver_final (d->state)) {
        if (id)
            zhashx_delete (b->f->sent, id);
        return;
    }
    if (d->nframes == 0 || zhashx_lookup (b->f->sent, id))
        return;
    cJSON *files = cJSON_GetObjectItem (b->msg->body, "files");
    if (!files && !(files = cJSON_AddArrayToObject (b->msg->body, "files")))
        return;
    cJSON *entry = cJSON_CreateObject ();
    cJSON_AddStringToObject (entry, "driver_id", id);
    cJSON_AddNumberToObject (entry, "first", (double) b->msg->nframes);
    cJSON_AddNumberToObject (entry, "count", (double) d->nframes);
    cJSON_AddItemToArray (files, entry);
    for (size_t i = 0; i < d->nframes; i++)
        hearth_msg_add_shared (b->msg, d->frames[i]);
    b->file_bytes += d->bytes;
    b->drivers++;
    zhashx_insert (b->f->sent, id, (void *) 1);
}

/* Add a record (borrowed) to b, and send b when it is full: 1,000
   records, the files past s_message_file_bytes, or the outputs past
   s_message_outs_bytes (sent before a record that would take them
   past). */
static void
s_batch_add (s_batch_t *b, const cJSON *record)
{
    size_t outs = s_outs_bytes (record);
    if (b->msg && b->outs_bytes && b->outs_bytes + outs > s_message_outs_bytes)
        s_batch_send (b, false, false);
    if (!b->msg && !(b->msg = hearth_msg_new (HEARTH_CMD_JOURNAL_DATA)))
        return;
    b->outs_bytes += outs;
    cJSON *records = cJSON_GetObjectItem (b->msg->body, "records");
    if (!records
        && !(records = cJSON_AddArrayToObject (b->msg->body, "records")))
        return;
    cJSON_AddItemToArray (records, cJSON_Duplicate (record, 1));
    b->records++;
    const char *t = hearth_json_str (record, "t");
    if (t && strncmp (t, "driver", 6) == 0)
        s_batch_files (b, record);
    if (cJSON_GetArraySize (records) >= CHUNK_RECORDS
        || b->file_bytes >= s_message_file_bytes
        || b->outs_bytes >= s_message_outs_bytes)
        s_batch_send (b, false, false);
}

static void
s_dump_record (void *arg, const cJSON *record, bool sync)
{
    (void) sync;
    s_batch_add (arg, record);
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
    zhashx_purge (f->sent); /* a new stream carries every file again */
    s_batch_t b = {.m = m, .f = f, .snapshot = true};
    registry_dump (m->reg, s_dump_record, &b);
    s_batch_send (&b, true, false);
    log_info ("standby %s follows the journal: stream %s, a snapshot of %zu "
              "records and the files of %zu drivers",
              *f->url ? f->url : f->key, f->stream, b.records, b.drivers);
}

void
master_follow_journal (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
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
        if (!(f = calloc (1, sizeof *f)) || !(f->rid = zframe_dup (rid))
            || !(f->sent = zhashx_new ())) {
            void *item = f;
            s_follower_destroy (&item);
            return;
        }
        snprintf (f->key, sizeof f->key, "%s", key);
        zhashx_insert (self->followers, key, f);
    }
    snprintf (f->url, sizeof f->url, "%s", url ? url : "");
    f->seen_ms = hearth_mono_ms ();
    if (stream && strcmp (stream, f->stream) == 0) {
        s_batch_t b = {.m = m, .f = f};
        s_batch_send (&b, false, true); /* the keepalive's answer */
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
    for (s_follower_t *f = zhashx_first (self->followers); f;
         f = zhashx_next (self->followers)) {
        s_batch_t b = {.m = m, .f = f};
        const cJSON *r;
        cJSON_ArrayForEach (r, records) s_batch_add (&b, r);
        s_batch_send (&b, false, false);
    }
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

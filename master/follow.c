/*  follow.c - a standby master following the leader's journal; see
    follow.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/dispatch.h"
#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/loop.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "master/follow.h"
#include "master/jfiles.h"
#include "master/journal.h"
#include "master/registry.h"

/* Start again from a new snapshot once the journal is past this and past
   the last snapshot (the leader compacts at the same size: recover.c). */
static const size_t s_compact_bytes = 4 * 1024 * 1024;
/* Messages from the leader read per turn of the loop. */
static const int s_batch = 64;

struct follow {
    journal_t *journal;   /* the standby's --journal DIR (owned, locked) */
    zsock_t *dealer;      /* to the leader, or NULL when none is known */
    char stream[33];      /* the stream followed ("" until a snapshot
                             begins) */
    uint64_t next_seq;    /* the number the next JOURNAL_DATA must carry */
    cJSON *snapshot;      /* the snapshot's records so far, or NULL */
    int64_t sent_ms;      /* monotonic: last FOLLOW_JOURNAL */
    int64_t heard_ms;     /* monotonic: last JOURNAL_DATA, or the link's
                             start */
    bool whole;           /* a snapshot was written from this leader */
    uint64_t records;     /* records appended since that snapshot */
    uint64_t seen_epoch;  /* the newest leader followed on this run, or 0 */
    uint64_t state_epoch; /* the leader whose snapshot the journal holds
                             (written on this run), or 0 */
    bool behind;          /* records of that leader were lost since (a gap
                             in its stream) */
    int64_t state_ms;     /* monotonic: when the journal last got data */
};

/* FOLLOW_JOURNAL {stream (our stream, or none: a new one), url}. */
static void
s_ask (master_t *m)
{
    struct follow *f = m->follow;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FOLLOW_JOURNAL);
    hearth_error_t err;
    if (!msg)
        return;
    if (*f->stream)
        cJSON_AddStringToObject (msg->body, "stream", f->stream);
    cJSON_AddStringToObject (msg->body, "url", m->url);
    if (hearth_msg_send (&msg, f->dealer, NULL, &err) < 0)
        log_debug ("follow: cannot send FOLLOW_JOURNAL: %s", err.text);
    hearth_loop_sent (m->loop, f->dealer); /* loop.h */
    f->sent_ms = hearth_mono_ms ();
}

/* Drop the stream and ask for a new one. */
static void
s_restart (master_t *m, const char *why)
{
    struct follow *f = m->follow;
    if (why)
        log_info ("follow: %s: asking the leader for a new snapshot", why);
    f->stream[0] = '\0';
    f->next_seq = 0;
    cJSON_Delete (f->snapshot);
    f->snapshot = NULL;
    s_ask (m);
}

static void
s_emit_snapshot (void *arg, journal_emit_fn *emit, void *emit_arg)
{
    const cJSON *r;
    cJSON_ArrayForEach (r, (cJSON *) arg) emit (emit_arg, r, false);
}

/* True when r is the record of a driver that has not ended. */
static bool
s_driver_live (const cJSON *r)
{
    const char *t = hearth_json_str (r, "t");
    const char *state = hearth_json_str (r, "state");
    if (!t || strcmp (t, "driver") != 0 || !state)
        return false;
    for (int i = 0; hearth_driver_states[i]; i++)
        if (strcmp (state, hearth_driver_states[i]) == 0)
            return !registry_driver_final ((driver_state_t) i);
    return false;
}

static bool
s_in_set (void *arg, const char *key)
{
    return zhashx_lookup (arg, key) != NULL;
}

/* After a snapshot: the files of the drivers it does not hold live go. */
static void
s_gc_files (struct follow *f)
{
    zhashx_t *live = zhashx_new ();
    const cJSON *r;
    cJSON_ArrayForEach (r, f->snapshot)
    {
        if (live && s_driver_live (r))
            zhashx_insert (live, hearth_json_str (r, "id"), (void *) 1);
    }
    if (live)
        journal_files_gc (f->journal, s_in_set, live);
    zhashx_destroy (&live);
}

/* The drivers' files that came with msg go beside the journal first: the
   records that need them are in the same message or later ones. */
static void
s_put_files (master_t *m, hearth_msg_t *msg)
{
    struct follow *f = m->follow;
    const cJSON *e;
    cJSON_ArrayForEach (e, cJSON_GetObjectItem (msg->body, "files"))
    {
        const char *id = hearth_json_str (e, "driver_id");
        size_t first = (size_t) hearth_json_int (e, "first", 0);
        size_t count = (size_t) hearth_json_int (e, "count", 0);
        hearth_error_t err;
        if (count > msg->nframes - first) /* first < nframes: the schema */
            log_warn ("follow: driver %s's %zu files from frame %zu of %zu: "
                      "ignored",
                      id, count, first, msg->nframes);
        else if (journal_files_put (f->journal, id, msg->frames + first, count,
                                    &err)
                 < 0)
            log_error ("follow: driver %s's files: %s (as leader, this "
                       "master could not launch it again)",
                       id, err.text);
    }
}

/* A streamed driver record that ends the driver: its files go. */
static void
s_drop_files (struct follow *f, const cJSON *r)
{
    const char *t = hearth_json_str (r, "t");
    const char *id = hearth_json_str (r, "id");
    if (t && id && strncmp (t, "driver", 6) == 0 && !s_driver_live (r)
        && hearth_id_valid (HEARTH_ID_DRIVER, id)
        && journal_files_have (f->journal, id))
        journal_files_drop (f->journal, id);
}

/* The snapshot is whole: it becomes the journal's. */
static void
s_write_snapshot (master_t *m)
{
    struct follow *f = m->follow;
    hearth_error_t err;
    int n = cJSON_GetArraySize (f->snapshot);
    if (journal_compact (f->journal, s_emit_snapshot, f->snapshot, &err) < 0) {
        log_error ("follow: cannot write the leader's snapshot: %s", err.text);
        f->whole = false;
    }
    else {
        if (!f->whole)
            log_info ("follow: the leader's state is in journal %s (a "
                      "snapshot of %d records, stream %s)",
                      journal_dir (f->journal), n, f->stream);
        f->whole = true;
        f->records = 0;
        f->state_epoch = m->leader_epoch;
        f->behind = false;
        f->state_ms = hearth_mono_ms ();
        s_gc_files (f);
    }
    cJSON_Delete (f->snapshot);
    f->snapshot = NULL;
}

static void
s_journal_data (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    (void) from; /* the leader: the link's one peer */
    struct follow *f = m->follow;
    const char *stream = hearth_json_str (msg->body, "stream");
    uint64_t seq = (uint64_t) hearth_json_int (msg->body, "seq", 0);
    bool snapshot = cJSON_IsTrue (cJSON_GetObjectItem (msg->body, "snapshot"));
    cJSON *records = cJSON_GetObjectItem (msg->body, "records");
    if (hearth_msg_epoch (msg) != m->leader_epoch)
        return; /* another leader's (an old one, or news of a new one that
                   the election has not told us yet) */
    if (!*f->stream && seq == 0 && snapshot)
        snprintf (f->stream, sizeof f->stream, "%s", stream);
    if (strcmp (stream, f->stream) != 0)
        return; /* an earlier stream's, still on its way */
    f->heard_ms = hearth_mono_ms ();
    if (seq != f->next_seq) {
        char why[96];
        snprintf (why, sizeof why, "message %llu of the stream, expected %llu",
                  (unsigned long long) seq, (unsigned long long) f->next_seq);
        f->behind = true;
        s_restart (m, why);
        return;
    }
    f->next_seq++;
    s_put_files (m, msg);
    if (snapshot) {
        if (!f->snapshot)
            f->snapshot = cJSON_CreateArray ();
        const cJSON *r;
        cJSON_ArrayForEach (r, records)
            cJSON_AddItemToArray (f->snapshot, cJSON_Duplicate (r, 1));
        if (cJSON_IsTrue (cJSON_GetObjectItem (msg->body, "last")))
            s_write_snapshot (m);
        return;
    }
    const cJSON *r;
    cJSON_ArrayForEach (r, records)
    {
        s_drop_files (f, r);
        if (journal_append (f->journal, r, false) == 0)
            f->records++;
    }
    if (cJSON_GetArraySize (records) > 0)
        f->state_ms = hearth_mono_ms ();
}

static void
s_error (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    (void) arg;
    (void) from; /* the leader: the link's one peer */
    log_debug ("follow: the leader answered %s: %s",
               hearth_json_str (msg->body, "code"),
               hearth_json_str (msg->body, "message"));
}

static const hearth_handler_t s_handlers[] = {
    {HEARTH_CMD_JOURNAL_DATA, s_journal_data},
    {HEARTH_CMD_ERROR, s_error},
};

/* What the leader sent, up to a batch, without waiting (loop.h: 1 when
   it stopped with more left).  A handler may drop the socket (a new
   stream): then it stops. */
static int
s_on_dealer (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    master_t *m = arg;
    for (int n = 0; n < s_batch; n++) {
        if (!m->follow || m->follow->dealer != sock)
            return 0; /* its reader has ended */
        hearth_error_t err;
        bool none;
        hearth_msg_t *msg =
            hearth_msg_try_recv_from (sock, NULL, NULL, &none, &err);
        if (none)
            return 0;
        if (!msg && hearth_recv_broken (&err)) {
            log_warn ("follow: the link to the leader: %s", err.text);
            return 0;
        }
        if (!msg) {
            log_warn ("follow: a bad message from the leader: %s", err.text);
            continue;
        }
        hearth_dispatch (HEARTH_HANDLERS (s_handlers), m, NULL, msg);
        hearth_msg_destroy (&msg);
    }
    return 1;
}

static void
s_disconnect (master_t *m)
{
    struct follow *f = m->follow;
    if (f->dealer) {
        hearth_loop_reader_end (m->loop, f->dealer);
        hearth_sock_destroy (&f->dealer);
    }
    f->stream[0] = '\0';
    cJSON_Delete (f->snapshot);
    f->snapshot = NULL;
}

/* A fresh socket to the leader, and a new stream. */
static void
s_connect (master_t *m)
{
    struct follow *f = m->follow;
    hearth_error_t err;
    s_disconnect (m);
    f->whole = false;
    if (!*m->leader_url)
        return;
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    if (m->curve.cert) /* the key pair every master shares (ha.c) */
        opts = (hearth_sock_opts_t){.type = ZMQ_DEALER,
                                    .curve_cert = m->curve.cert,
                                    .curve_server_key =
                                        zcert_public_txt (m->curve.cert)};
    else /* on loopback: the user's cookie's pairs (none: nothing) */
        hearth_curve_client_opts (&m->curve, &opts);
    if (!(f->dealer = hearth_sock_new (&opts, &err))
        || hearth_sock_connect (f->dealer, m->leader_url, &err) < 0
        || hearth_loop_reader (m->loop, f->dealer, s_on_dealer, m) < 0) {
        log_warn ("follow: cannot connect to the leader %s: %s", m->leader_url,
                  err.text);
        hearth_sock_destroy (&f->dealer);
        return;
    }
    f->heard_ms = hearth_mono_ms ();
    s_restart (m, NULL);
}

int
master_follow_open (master_t *m, hearth_error_t *err)
{
    const char *dir = hearth_conf_str (m->conf, "journal");
    jstate_t *st = NULL;
    if (!(m->follow = calloc (1, sizeof *m->follow)))
        return hearth_errprintf (err, "out of memory");
    if (!(m->follow->journal = journal_open (dir, &st, err)))
        return -1;
    jstate_destroy (&st); /* the leader's snapshot replaces it */
    return 0;
}

void
master_follow_leader (master_t *m)
{
    if (!m->follow)
        return;
    s_connect (m);
    if (*m->leader_url && m->leader_epoch > m->follow->seen_epoch)
        m->follow->seen_epoch = m->leader_epoch;
    if (*m->leader_url)
        log_info ("follow: following the journal of %s (epoch %llu)",
                  m->leader_url, (unsigned long long) m->leader_epoch);
}

void
master_follow_tick (master_t *m, int64_t now)
{
    struct follow *f = m->follow;
    if (!f)
        return;
    if (journal_dirty (f->journal))
        journal_sync (f->journal);
    if (!f->dealer)
        return;
    if (now - f->heard_ms > m->interval_ms * m->liveness) {
        log_warn ("follow: no word from the leader %s for %lld ms: a new "
                  "link%s",
                  m->leader_url, (long long) (now - f->heard_ms),
                  m->curve.cert ? " (with CURVE, every master must run with "
                                  "the same --curve-secret)"
                                : "");
        s_connect (m);
    }
    else if (f->whole && journal_size (f->journal) > s_compact_bytes
             && journal_size (f->journal) > journal_snapshot_size (f->journal))
        s_restart (m, "the journal is due for compaction");
    else if (*f->stream && now - f->sent_ms >= m->interval_ms)
        s_ask (m); /* a keepalive (without a stream it would restart the
                      one the leader is sending) */
}

master_follow_state_t
master_follow_state (const master_t *m, char *text, size_t size)
{
    const struct follow *f = m->follow;
    int64_t age = f ? hearth_mono_ms () - f->state_ms : 0;
    if (!f || f->seen_epoch == 0) {
        snprintf (text, size,
                  "no leader was followed since this master started: its "
                  "journal holds what it held then");
        return FOLLOW_NONE;
    }
    if (f->state_epoch == f->seen_epoch && !f->behind) {
        snprintf (text, size,
                  "the journal holds the state of the leader of epoch %llu "
                  "as it last heard it, %lld ms ago",
                  (unsigned long long) f->state_epoch, (long long) age);
        return FOLLOW_CURRENT;
    }
    if (f->state_epoch == 0)
        snprintf (text, size,
                  "no snapshot came from the leader of epoch %llu: the "
                  "journal holds what it held when this master started (an "
                  "older state, or none)",
                  (unsigned long long) f->seen_epoch);
    else
        snprintf (text, size,
                  "the journal holds the state of the leader of epoch %llu "
                  "as of %lld ms ago%s, not that of the last leader (epoch "
                  "%llu)",
                  (unsigned long long) f->state_epoch, (long long) age,
                  f->behind ? " with records lost since" : "",
                  (unsigned long long) f->seen_epoch);
    return FOLLOW_BEHIND;
}

void
master_follow_close (master_t *m)
{
    if (!m->follow)
        return;
    s_disconnect (m);
    journal_destroy (&m->follow->journal);
    free (m->follow);
    m->follow = NULL;
}

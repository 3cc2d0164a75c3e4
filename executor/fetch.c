/*  fetch.c - a reduce task's blocks, fetched piece by piece from the
    workers' block servers and checked as they come; see fetch.h.

    Each server's socket has a monitor (libcore/connwatch.h): ZeroMQ
    hides a refused connection from a DEALER (it tries again, silently),
    and a server whose worker is gone would otherwise cost every try its
    silence timeout. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <czmq.h>

#include "executor/fetch.h"
#include "libcore/clock.h"
#include "libcore/connwatch.h"
#include "libcore/dispatch.h"
#include "libcore/partfmt.h"
#include "libcore/proto.h"
#include "libcore/safefile.h"
#include "libcore/sock.h"

static const size_t s_default_in_flight = 48u << 20;
static const size_t s_default_piece = 4u << 20;
static const int64_t s_default_timeout_ms = 10000;
static const int s_default_tries = 4;
static const int64_t s_default_retry_wait_ms = 250;

/* A block server, and the socket to it. */
typedef struct {
    const char *url;           /* borrowed from a block */
    const char *key;           /* its CURVE key, or NULL */
    zsock_t *sock;             /* the DEALER, or NULL until needed */
    hearth_connwatch_t *watch; /* its monitor, or NULL (none could be
                                  attached: the silence timeout only) */
    zcert_t *cert;             /* this side's key pair under CURVE */
    int64_t last_ms;           /* last answer (or the first request) */
    size_t asked;              /* requests not yet answered */
} s_server_t;

/* A remote block being fetched. */
typedef struct {
    const fetch_block_t *b;   /* which */
    size_t index;             /* in the caller's array */
    s_server_t *server;       /* where from */
    uint64_t base;            /* where it goes in DIR/blocks */
    uint64_t asked;           /* stored bytes asked for so far */
    uint64_t got;             /* received and written */
    hearth_unframer_t frames; /* checks what arrives */
    int tries;                /* failed tries so far */
    int64_t retry_ms;         /* wait until then before asking again */
    bool done;                /* all of it is here, checked */
} s_fetch_t;

/* A request in flight. */
typedef struct {
    uint64_t id;     /* its request id (0: a free slot) */
    s_fetch_t *f;    /* for this block */
    uint64_t offset; /* asked from */
    uint64_t size;   /* bytes asked */
} s_ask_t;

typedef struct {
    const fetch_opts_t *o;        /* the caller's */
    char path[4200];              /* DIR/blocks: every fetched block, one
                                     after the other (one file, not one per
                                     block: creating and removing a million
                                     files cost more than the data) */
    int fd;                       /* it, open while fetching, or -1 */
    uint64_t end;                 /* bytes planned in it */
    const unsigned char *pending; /* inline blocks not yet written: their
                                     bytes, contiguous in the driver's
                                     frame (or NULL) */
    size_t pending_len;           /* their length */
    uint64_t pending_at;          /* where they go in the file */
    hearth_block_ref_t *joinable; /* the last block read, when it is an
                                     inline one that ends a record and
                                     ends where the next goes, or NULL */
    s_server_t *servers;          /* the distinct block servers */
    size_t nservers;              /* entries in servers */
    s_fetch_t *fetches;           /* the remote blocks */
    size_t nfetches;              /* entries in fetches */
    s_ask_t *asks;                /* requests in flight */
    size_t nasks;                 /* slots in asks */
    uint64_t next_id;             /* next request id */
    size_t in_flight;             /* bytes asked, not yet received */
    size_t piece;                 /* bytes asked at a time */
    size_t budget;                /* max_in_flight */
    unsigned char *scratch;       /* one frame's payload, for checking */
    fetch_failure_t *failure;     /* filled on a fetch failure */
    hearth_error_t *err;          /* a local failure */
    int rc;                       /* 0, 1 (fetch failure) or -1 (local) */
} s_run_t;

/* --- the blocks on this node ------------------------------------------ */

/* The block of b as it lies in this node's map output.  0, or 1 with
 *failure (the output is not there). */
static int
s_local (const fetch_opts_t *o, const fetch_block_t *b, hearth_block_ref_t *r,
         fetch_failure_t *failure)
{
    char data[4200], index[4300];
    snprintf (data, sizeof data, "%s/%u/%u.%u", o->local_dir, o->shuffle,
              b->map, b->attempt);
    snprintf (index, sizeof index, "%s.index", data);
    uint32_t n;
    bool sorted;
    hearth_part_t *parts = NULL;
    hearth_error_t err;
    if (hearth_partindex_read (index, &n, &sorted, &parts, &err) < 0
        || o->partition >= n || parts[o->partition].length != b->length) {
        *failure = (fetch_failure_t){.map = b->map, .attempt = b->attempt};
        snprintf (failure->url, sizeof failure->url, "%s", b->url);
        snprintf (failure->reason, sizeof failure->reason,
                  "map output %u.%u is not whole on this node: %s", b->map,
                  b->attempt, parts ? "its index disagrees" : err.text);
        free (parts);
        return 1;
    }
    *r = (hearth_block_ref_t){strdup (data), parts[o->partition].offset,
                              parts[o->partition].length};
    free (parts);
    return 0;
}

/* --- requests --------------------------------------------------------- */

static s_server_t *
s_server_of (s_run_t *run, const fetch_block_t *b)
{
    for (size_t i = 0; i < run->nservers; i++)
        if (strcmp (run->servers[i].url, b->url) == 0)
            return &run->servers[i];
    s_server_t *s = &run->servers[run->nservers++];
    *s = (s_server_t){.url = b->url, .key = b->server_key};
    return s;
}

/* s's socket and its monitor go (the monitor first).  Requests it could
   not send are dropped: nothing waits for their answers any more, and a
   lingering socket would hold the process's exit (a second, for a
   server that is gone). */
static void
s_disconnect (s_server_t *s)
{
    hearth_connwatch_destroy (&s->watch);
    if (s->sock)
        zsock_set_linger (s->sock, 0);
    hearth_sock_destroy (&s->sock);
}

/* A monitor of s's new socket, before it connects; none when it cannot
   be had (the fetch goes on without: a refusal then costs the silence
   timeout, as a host that does not answer). */
static void
s_watch (s_server_t *s, hearth_connwatch_t *watch)
{
    hearth_error_t err;
    if (watch && hearth_connwatch_attach (watch, s->sock, &err))
        s->watch = watch;
    else
        hearth_connwatch_destroy (&watch);
}

/* A fresh socket to s (dropping whatever the old one still holds).
   0, or -1 with run's err. */
static int
s_connect (s_run_t *run, s_server_t *s)
{
    /* made before the old one goes: a monitor's name is its address */
    hearth_connwatch_t *watch =
        hearth_connwatch_new (s->url, "the block server", s->key != NULL, NULL);
    s_disconnect (s);
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    if (s->key) {
        if (!s->cert && !(s->cert = zcert_new ())) {
            hearth_connwatch_destroy (&watch);
            return hearth_errprintf (run->err, "out of memory");
        }
        opts.curve_cert = s->cert;
        opts.curve_server_key = s->key;
    }
    if (!(s->sock = hearth_sock_new (&opts, run->err))) {
        hearth_connwatch_destroy (&watch);
        return -1;
    }
    s_watch (s, watch);
    if (hearth_sock_connect (s->sock, s->url, run->err) < 0)
        return -1;
    s->asked = 0;
    s->last_ms = hearth_mono_ms ();
    return 0;
}

static s_ask_t *
s_ask_slot (s_run_t *run)
{
    for (size_t i = 0; i < run->nasks; i++)
        if (run->asks[i].id == 0)
            return &run->asks[i];
    size_t n = run->nasks ? run->nasks * 2 : 16;
    s_ask_t *a = realloc (run->asks, n * sizeof *a);
    if (!a)
        return NULL;
    memset (a + run->nasks, 0, (n - run->nasks) * sizeof *a);
    run->asks = a;
    s_ask_t *slot = &a[run->nasks];
    run->nasks = n;
    return slot;
}

/* Ask f's server for f's next piece.  0, or -1 (run's rc set). */
static int
s_ask (s_run_t *run, s_fetch_t *f)
{
    s_server_t *s = f->server;
    if (!s->sock && s_connect (run, s) < 0)
        return run->rc = -1;
    uint64_t size = f->b->length - f->asked;
    size = size < run->piece ? size : run->piece;
    s_ask_t *a = s_ask_slot (run);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FETCH_BLOCK);
    if (!a || !msg) {
        hearth_msg_destroy (&msg);
        hearth_errprintf (run->err, "out of memory");
        return run->rc = -1;
    }
    const fetch_opts_t *o = run->o;
    *a = (s_ask_t){++run->next_id, f, f->asked, size};
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", o->app_id);
    cJSON_AddStringToObject (b, "token", o->token);
    cJSON_AddNumberToObject (b, "shuffle", o->shuffle);
    cJSON_AddNumberToObject (b, "map", f->b->map);
    cJSON_AddNumberToObject (b, "attempt", f->b->attempt);
    cJSON_AddNumberToObject (b, "partition", o->partition);
    cJSON_AddNumberToObject (b, "offset", (double) f->asked);
    cJSON_AddNumberToObject (b, "max_bytes", (double) size);
    cJSON_AddNumberToObject (b, "request", (double) a->id);
    if (hearth_msg_send (&msg, s->sock, NULL, run->err) < 0) {
        a->id = 0;
        return run->rc = -1;
    }
    if (s->asked++ == 0)
        s->last_ms = hearth_mono_ms (); /* the clock of its silence starts */
    f->asked += size;
    run->in_flight += size;
    return 0;
}

/* Ask for what fits in the budget.  0 or -1. */
static int
s_ask_more (s_run_t *run, int64_t now)
{
    for (size_t i = 0; i < run->nfetches; i++) {
        s_fetch_t *f = &run->fetches[i];
        while (!f->done && f->retry_ms <= now && f->asked < f->b->length
               && (run->in_flight + run->piece <= run->budget
                   || run->in_flight == 0))
            if (s_ask (run, f) < 0)
                return -1;
    }
    return 0;
}

/* --- answers ---------------------------------------------------------- */

/* The whole fetch fails on f: a fetch failure naming its map output. */
static void
s_fetch_failed (s_run_t *run, const s_fetch_t *f, const char *reason)
{
    fetch_failure_t *x = run->failure;
    *x = (fetch_failure_t){.map = f->b->map, .attempt = f->b->attempt};
    snprintf (x->url, sizeof x->url, "%s", f->b->url);
    snprintf (x->reason, sizeof x->reason, "%s", reason);
    run->rc = 1;
}

/* A try of f failed: forget its requests and what it got, and wait
   before the next try; after the last, the whole fetch fails. */
static void
s_try_failed (s_run_t *run, s_fetch_t *f, const char *reason)
{
    for (size_t i = 0; i < run->nasks; i++)
        if (run->asks[i].id && run->asks[i].f == f) {
            run->in_flight -= run->asks[i].size;
            f->server->asked--;
            run->asks[i].id = 0;
        }
    if (++f->tries >= (run->o->tries ? run->o->tries : s_default_tries)) {
        s_fetch_failed (run, f, reason);
        return;
    }
    int64_t wait =
        run->o->retry_wait_ms ? run->o->retry_wait_ms : s_default_retry_wait_ms;
    f->retry_ms = hearth_mono_ms () + (wait << (f->tries - 1));
    f->asked = f->got = 0;
    hearth_unframer_init (&f->frames);
}

static int
s_discard (void *arg, const void *data, size_t len, hearth_error_t *err)
{
    (void) arg;
    (void) data;
    (void) len;
    (void) err;
    return 0; /* checked is all: the bytes are already in the file */
}

/* A piece of f arrived: write it, check it.  0 or -1 (local failure). */
static int
s_piece (s_run_t *run, s_fetch_t *f, const void *data, size_t n)
{
    const char *p = data;
    for (size_t left = n, at = 0; left > 0;) {
        ssize_t w = pwrite (run->fd, p, left, (off_t) (f->base + f->got + at));
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            hearth_errcode (run->err, "io", "cannot write %s: %s", run->path,
                            strerror (errno));
            return run->rc = -1;
        }
        p += w;
        at += (size_t) w;
        left -= (size_t) w;
    }
    f->got += n;
    hearth_error_t err;
    if (hearth_unframer_feed (&f->frames, data, n, run->scratch, s_discard,
                              NULL, &err)
            < 0
        || (f->got == f->b->length
            && hearth_unframer_end (&f->frames, &err) < 0)) {
        char reason[400];
        snprintf (reason, sizeof reason, "block of map output %u.%u: %s",
                  f->b->map, f->b->attempt, err.text);
        s_try_failed (run, f, reason);
        return 0;
    }
    if (f->got == f->b->length)
        f->done = true;
    return 0;
}

static void
s_on_block (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    s_run_t *run = arg;
    s_server_t *s = from->peer;
    uint64_t id = (uint64_t) hearth_json_int (msg->body, "request", 0);
    s_ask_t *a = NULL;
    for (size_t i = 0; i < run->nasks && !a; i++)
        if (run->asks[i].id == id && id)
            a = &run->asks[i];
    if (!a)
        return; /* an answer to a try given up on */
    s_ask_t ask = *a;
    a->id = 0;
    run->in_flight -= ask.size;
    s->asked--;
    s_fetch_t *f = ask.f;
    const char *code = hearth_json_str (msg->body, "code");
    zframe_t *data =
        hearth_msg_frame (msg, hearth_json_int (msg->body, "data", -1));
    char reason[600];
    if (code || !data) {
        snprintf (reason, sizeof reason, "%s says: %s", s->url,
                  code ? hearth_json_str (msg->body, "error") : "no data");
        s_try_failed (run, f, reason);
    }
    else if ((uint64_t) hearth_json_int (msg->body, "offset", -1) != f->got
             || (uint64_t) hearth_json_int (msg->body, "length", 0)
                    != f->b->length
             || zframe_size (data) > ask.size) {
        snprintf (reason, sizeof reason,
                  "%s answered another piece than asked (map output %u.%u)",
                  s->url, f->b->map, f->b->attempt);
        s_try_failed (run, f, reason);
    }
    else
        s_piece (run, f, zframe_data (data), zframe_size (data));
}

/* The server refused a message of ours: every try on it failed. */
static void
s_on_error (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    s_run_t *run = arg;
    s_server_t *s = from->peer;
    char reason[600];
    snprintf (reason, sizeof reason, "%s refused a request: %s", s->url,
              hearth_json_str (msg->body, "message"));
    for (size_t i = 0; i < run->nfetches && run->rc == 0; i++)
        if (run->fetches[i].server == s && !run->fetches[i].done)
            s_try_failed (run, &run->fetches[i], reason);
}

/* A block server's answers (the server is the sender's peer). */
static const hearth_handler_t s_handlers[] = {
    {HEARTH_CMD_BLOCK_DATA, s_on_block},
    {HEARTH_CMD_ERROR, s_on_error},
};

static void
s_read (s_run_t *run, s_server_t *s)
{
    while (run->rc == 0 && (zsock_events (s->sock) & ZMQ_POLLIN)) {
        hearth_error_t err;
        hearth_msg_t *msg = hearth_msg_recv (s->sock, NULL, &err);
        s->last_ms = hearth_mono_ms ();
        hearth_from_t from = {.key = "", .peer = s};
        if (msg)
            hearth_dispatch (HEARTH_HANDLERS (s_handlers), run, &from, msg);
        hearth_msg_destroy (&msg);
    }
}

/* Servers silent too long with requests in flight: their tries failed,
   on a fresh socket next time. */
static void
s_check_silence (s_run_t *run, int64_t now)
{
    int64_t timeout =
        run->o->timeout_ms ? run->o->timeout_ms : s_default_timeout_ms;
    for (size_t i = 0; i < run->nservers && run->rc == 0; i++) {
        s_server_t *s = &run->servers[i];
        if (s->asked == 0 || now - s->last_ms < timeout)
            continue;
        char reason[600];
        snprintf (reason, sizeof reason, "%s did not answer within %lld ms",
                  s->url, (long long) timeout);
        for (size_t k = 0; k < run->nfetches && run->rc == 0; k++)
            if (run->fetches[k].server == s && !run->fetches[k].done)
                s_try_failed (run, &run->fetches[k], reason);
        s_disconnect (s);
        s->asked = 0;
    }
}

/* Servers whose connection was refused: nothing listens there, their
   worker is gone, and its outputs with it.  Trying again cannot mend
   that: the fetch fails at once, on the first block still wanted there,
   and the driver runs its map tasks again. */
static void
s_check_refused (s_run_t *run, int64_t now)
{
    for (size_t i = 0; i < run->nservers && run->rc == 0; i++) {
        s_server_t *s = &run->servers[i];
        if (!s->watch)
            continue;
        hearth_connwatch_read (s->watch, now);
        if (!hearth_connwatch_refused (s->watch))
            continue;
        char reason[600];
        snprintf (reason, sizeof reason,
                  "%s refused the connection: nothing listens there (its "
                  "worker is gone?)",
                  s->url);
        for (size_t k = 0; k < run->nfetches && run->rc == 0; k++)
            if (run->fetches[k].server == s && !run->fetches[k].done)
                s_fetch_failed (run, &run->fetches[k], reason);
    }
}

/* The attempt was killed (opts' cancel): stop, a local failure. */
static bool
s_cancelled (s_run_t *run)
{
    if (!run->o->cancel || !__atomic_load_n (run->o->cancel, __ATOMIC_RELAXED))
        return false;
    hearth_errcode (run->err, "killed", "killed while it fetched its input");
    run->rc = -1;
    return true;
}

static bool
s_all_done (const s_run_t *run)
{
    for (size_t i = 0; i < run->nfetches; i++)
        if (!run->fetches[i].done)
            return false;
    return true;
}

/* Fetch until everything is here, or a fetch or local failure. */
static void
s_loop (s_run_t *run)
{
    while (run->rc == 0 && !s_all_done (run) && !s_cancelled (run)) {
        int64_t now = hearth_mono_ms ();
        if (s_ask_more (run, now) < 0)
            return;
        zpoller_t *poller = zpoller_new (NULL);
        for (size_t i = 0; poller && i < run->nservers; i++) {
            s_server_t *s = &run->servers[i];
            if (s->sock)
                zpoller_add (poller, s->sock);
            if (s->watch)
                zpoller_add (poller, hearth_connwatch_monitor (s->watch));
        }
        zpoller_wait (poller, 100);
        zpoller_destroy (&poller);
        for (size_t i = 0; i < run->nservers && run->rc == 0; i++)
            if (run->servers[i].sock)
                s_read (run, &run->servers[i]);
        s_check_refused (run, hearth_mono_ms ());
        s_check_silence (run, hearth_mono_ms ());
    }
}

/* --- the call --------------------------------------------------------- */

static void
s_run_free (s_run_t *run)
{
    if (run->fd >= 0)
        close (run->fd);
    for (size_t i = 0; i < run->nservers; i++) {
        s_disconnect (&run->servers[i]);
        zcert_destroy (&run->servers[i].cert);
    }
    free (run->servers);
    free (run->fetches);
    free (run->asks);
    free (run->scratch);
}

/* The file fetched blocks go to, DIR/blocks, made at the first.  0 or
   -1. */
static int
s_blocks_file (s_run_t *run)
{
    if (run->fd >= 0)
        return 0;
    snprintf (run->path, sizeof run->path, "%s/blocks", run->o->dir);
    run->fd = hearth_file_create (run->path, O_RDWR, 0600, true);
    if (run->fd < 0)
        return hearth_errcode (run->err, "io", "cannot create %s: %s",
                               run->path, hearth_file_why (errno));
    return 0;
}

/* Write the inline blocks not yet written.  0 or -1. */
static int
s_flush_inline (s_run_t *run)
{
    size_t len = run->pending_len;
    run->pending_len = 0;
    ssize_t n =
        len ? pwrite (run->fd, run->pending, len, (off_t) run->pending_at) : 0;
    if (n != (ssize_t) len)
        return hearth_errcode (run->err, "io", "cannot write %s: %s", run->path,
                               n < 0 ? strerror (errno) : "a short write");
    return 0;
}

/* A block the driver sent: into the blocks file, as if fetched
   (blockmerge reads files).  Blocks that lie one after the other in the
   driver's frame go in one write, and, unsorted, an inline block that
   follows one ending a record is read as part of it (*r empty): a block
   of its own cost an open and a read, a second for 400,000 tiny ones. */
static int
s_put_inline (s_run_t *run, const fetch_block_t *b, hearth_block_ref_t *r)
{
    if (s_blocks_file (run) < 0)
        return -1;
    /* one write while the blocks follow each other both in the driver's
       frame and in the file (a fetched block between takes its room) */
    if (run->pending_len
        && (run->pending + run->pending_len != b->data
            || run->pending_at + run->pending_len != run->end)
        && s_flush_inline (run) < 0)
        return -1;
    if (!run->pending_len) {
        run->pending = b->data;
        run->pending_at = run->end;
    }
    run->pending_len += (size_t) b->length;
    hearth_block_ref_t *last = run->joinable;
    if (last && !run->o->sorted && last->offset + last->length == run->end) {
        last->length += b->length;
        *r = (hearth_block_ref_t){NULL, 0, 0};
    }
    else {
        *r = (hearth_block_ref_t){strdup (run->path), run->end, b->length};
        last = r;
    }
    /* a frame's payload is never empty: a block's last byte is its
       payload's */
    run->joinable = b->data[b->length - 1] == '\n' ? last : NULL;
    run->end += b->length;
    return r->path || !r->length ? 0
                                 : hearth_errprintf (run->err, "out of memory");
}

/* Set up the remote fetches of blocks[i] (and the local, inline and
   empty references in refs).  0, 1 (fetch failure) or -1. */
static int
s_plan (s_run_t *run, const fetch_block_t *blocks, size_t n,
        hearth_block_ref_t *refs)
{
    const fetch_opts_t *o = run->o;
    for (size_t i = 0; i < n; i++) {
        const fetch_block_t *b = &blocks[i];
        if (b->length == 0) {
            refs[i] = (hearth_block_ref_t){NULL, 0, 0}; /* nothing to read */
            continue;
        }
        if (b->data) {
            if (s_put_inline (run, b, &refs[i]) < 0)
                return -1;
            continue;
        }
        run->joinable = NULL; /* a block read elsewhere comes between */
        if (o->local_url && o->local_dir
            && strcmp (b->url, o->local_url) == 0) {
            if (s_local (o, b, &refs[i], run->failure))
                return 1;
        }
        else {
            s_fetch_t *f = &run->fetches[run->nfetches++];
            *f = (s_fetch_t){.b = b, .index = i};
            f->server = s_server_of (run, b);
            hearth_unframer_init (&f->frames);
            if (s_blocks_file (run) < 0)
                return -1;
            f->base = run->end;
            run->end += b->length;
            refs[i] =
                (hearth_block_ref_t){strdup (run->path), f->base, b->length};
        }
        if (!refs[i].path)
            return hearth_errprintf (run->err, "out of memory");
    }
    return 0;
}

int
fetch_blocks (const fetch_opts_t *opts, const fetch_block_t *blocks, size_t n,
              hearth_block_ref_t **refs, fetch_failure_t *failure,
              hearth_error_t *err)
{
    s_run_t run = {
        .o = opts,
        .servers = calloc (n ? n : 1, sizeof *run.servers),
        .fetches = calloc (n ? n : 1, sizeof *run.fetches),
        .scratch = malloc (HEARTH_FRAME_MAX),
        .piece = opts->piece_bytes ? opts->piece_bytes : s_default_piece,
        .budget =
            opts->max_in_flight ? opts->max_in_flight : s_default_in_flight,
        .failure = failure,
        .err = err,
        .fd = -1,
    };
    *refs = calloc (n ? n : 1, sizeof **refs);
    if (!run.servers || !run.fetches || !run.scratch || !*refs) {
        run.rc = hearth_errprintf (err, "out of memory");
        goto done;
    }
    if (run.piece > HEARTH_FETCH_MAX_BYTES)
        run.piece = HEARTH_FETCH_MAX_BYTES;
    run.rc = s_plan (&run, blocks, n, *refs);
    if (run.rc == 0 && s_flush_inline (&run) < 0)
        run.rc = -1;
    if (run.rc == 0)
        s_loop (&run);
done:
    if (run.rc != 0) {
        if (run.fd >= 0)
            unlink (run.path);
        fetch_refs_free (*refs, n);
        *refs = NULL;
    }
    s_run_free (&run);
    return run.rc;
}

void
fetch_refs_free (hearth_block_ref_t *refs, size_t n)
{
    for (size_t i = 0; refs && i < n; i++)
        free ((char *) refs[i].path);
    free (refs);
}

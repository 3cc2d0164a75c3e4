/*  shuffle.c - the worker's block server: FETCH_BLOCK answered with
    pieces of a map output's partition; see shuffle.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/clock.h"
#include "libcore/dispatch.h"
#include "libcore/fstree.h"
#include "libcore/ids.h"
#include "libcore/keys.h"
#include "libcore/log.h"
#include "libcore/loglimit.h"
#include "libcore/loop.h"
#include "libcore/partfmt.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "worker/persisted.h"
#include "worker/shipserve.h"
#include "worker/shuffle.h"
#include "worker/userfs.h"

/* Requests answered per wake-up before the loop looks at other sockets. */
static const int s_max_batch = 64;
/* ...and bytes of shipped files' chunks (4 MiB each, read and checked
   here): the worker's link to its master waits meanwhile. */
static const uint64_t s_max_turn_file_bytes = 16 * 1024 * 1024;
/* How often the bytes on disk are counted again. */
static const int64_t s_count_every_ms = 5000;
/* Log lines about bad requests: one per kind per minute. */
static const int64_t s_log_period_ms = 60000;

struct shuffle {
    char *root;                       /* WORK_DIR/shuffle */
    char *work_dir;                   /* WORK_DIR (shipserve.h), or NULL */
    uint64_t turn_file_bytes;         /* chunks' bytes sent this turn */
    zsock_t *router;                  /* reducers connect here */
    hearth_loop_t *loop;              /* serves router (borrowed) */
    char url[300];                    /* tcp://HOST:PORT of router */
    char key[HEARTH_KEY_TXT_LEN + 1]; /* its CURVE public key, or "" */
    apps_t *apps;                     /* the applications' tokens (borrowed) */
    uint64_t bytes;                   /* on disk, as last counted */
    uint64_t persisted;               /* of them, persisted stages' */
    uint64_t cache_disk;              /* their budget (0: none) */
    int64_t counted_ms;               /* when, or 0 */
    hearth_loglimit_t *log_limit;     /* bad requests' log lines */
};

/* --- answering -------------------------------------------------------- */

/* Send *msg_p (taken) to rid.  The loop reads the ROUTER, and a send may
   take its mailbox in: the loop looks at it again (loop.h). */
static int
s_send (shuffle_t *self, zframe_t *rid, hearth_msg_t **msg_p,
        hearth_error_t *err)
{
    int rc = hearth_msg_send (msg_p, self->router, rid, err);
    hearth_loop_sent (self->loop, self->router);
    return rc;
}

/* An ERROR to rid, as s_send sends. */
static void
s_send_error (shuffle_t *self, zframe_t *rid, const char *code,
              const char *text, const char *command)
{
    hearth_send_error (self->router, rid, code, text, command);
    hearth_loop_sent (self->loop, self->router);
}

/* A request's fields, as the schema checked them. */
typedef struct {
    const char *app_id; /* its application */
    int64_t shuffle;    /* the partitioned stage's shuffle id */
    int64_t map;        /* the map task's index */
    int64_t attempt;    /* the map attempt whose output is asked for */
    int64_t partition;  /* the partition */
    int64_t offset;     /* first stored byte wanted, in the block */
    int64_t max_bytes;  /* at most this many */
    int64_t request;    /* echoed back */
} s_fetch_t;

/* Answer a refused request: BLOCK_DATA with code and error, no data. */
static void
s_refuse (shuffle_t *self, zframe_t *rid, const s_fetch_t *f, const char *code,
          const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (text, sizeof text, fmt, ap);
    va_end (ap);
    hearth_log_limited (self->log_limit, HEARTH_LOG_WARN, code,
                        hearth_mono_ms (), "block request refused: %s", text);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_BLOCK_DATA);
    if (!msg)
        return;
    cJSON_AddNumberToObject (msg->body, "request", (double) f->request);
    cJSON_AddNumberToObject (msg->body, "offset", (double) f->offset);
    cJSON_AddNumberToObject (msg->body, "length", 0);
    cJSON_AddBoolToObject (msg->body, "eof", true);
    cJSON_AddStringToObject (msg->body, "code", code);
    cJSON_AddStringToObject (msg->body, "error", text);
    s_send (self, rid, &msg, NULL);
}

/* The token matches the application's, compared in constant time. */
static bool
s_token_ok (shuffle_t *self, const char *app_id, const char *token)
{
    const char *want = apps_token (self->apps, app_id);
    return want && hearth_keys_token_eq (want, token);
}

/* Where partition p lies in the data file whose index is root/rel:
   read the index's header and p's entry only.  0, or -1 with err.  The
   files are in the executor's user's directory: opened with no link
   followed (userfs.h), so that no one serves themselves what the worker
   may read and they may not. */
static int
s_locate (const char *root, const char *rel, int64_t p, hearth_part_t *part,
          hearth_error_t *err)
{
    int fd = userfs_open_read (root, rel, NULL);
    if (fd < 0)
        return hearth_errcode (err, "no_block", "no such map output");
    /* served now: a persisted output read is kept before those unread
       (--cache-disk removes the oldest by this time: persisted.h) */
    (void) futimens (fd, NULL);
    unsigned char head[16], e[32];
    ssize_t got = pread (fd, head, sizeof head, 0);
    bool ok = got == (ssize_t) sizeof head && memcmp (head, "HRTHIDX1", 8) == 0;
    uint32_t n = ok ? (uint32_t) head[8] | (uint32_t) head[9] << 8
                          | (uint32_t) head[10] << 16
                          | (uint32_t) head[11] << 24
                    : 0;
    ok =
        ok && p < (int64_t) n
        && pread (fd, e, sizeof e, (off_t) (16 + p * 32)) == (ssize_t) sizeof e;
    close (fd);
    if (!ok)
        return hearth_errcode (err, "no_block",
                               "no partition %lld in that map output",
                               (long long) p);
    uint64_t v[4] = {0};
    for (int k = 0; k < 4; k++)
        for (int i = 7; i >= 0; i--)
            v[k] = v[k] << 8 | e[8 * k + i];
    *part = (hearth_part_t){v[0], v[1], v[2], v[3]};
    return 0;
}

/* Read up to max bytes of [offset, ...) of the block in root/rel (as
   s_locate) into a new frame.  NULL with err. */
static zframe_t *
s_read_piece (const char *root, const char *rel, const hearth_part_t *part,
              int64_t offset, int64_t max, hearth_error_t *err)
{
    int64_t left = (int64_t) part->length - offset;
    size_t n = (size_t) (left < max ? left : max);
    zframe_t *frame = zframe_new (NULL, n);
    int fd = userfs_open_read (root, rel, NULL);
    if (!frame || fd < 0) {
        zframe_destroy (&frame);
        if (fd >= 0)
            close (fd);
        hearth_errcode (err, fd < 0 ? "no_block" : "io", "%s",
                        fd < 0 ? "the map output's data is gone"
                               : "out of memory");
        return NULL;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread (fd, zframe_data (frame) + got, n - got,
                           (off_t) (part->offset + (uint64_t) offset + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            hearth_errcode (err, "io", "cannot read the map output: %s",
                            r < 0 ? strerror (errno)
                                  : "it is shorter than "
                                    "its index says");
            close (fd);
            zframe_destroy (&frame);
            return NULL;
        }
        got += (size_t) r;
    }
    close (fd);
    return frame;
}

static void
s_fetch (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    shuffle_t *self = arg;
    zframe_t *rid = from->rid;
    const cJSON *b = msg->body;
    s_fetch_t f = {
        .app_id = hearth_json_str (b, "app_id"),
        .shuffle = hearth_json_int (b, "shuffle", 0),
        .map = hearth_json_int (b, "map", 0),
        .attempt = hearth_json_int (b, "attempt", 0),
        .partition = hearth_json_int (b, "partition", 0),
        .offset = hearth_json_int (b, "offset", 0),
        .max_bytes = hearth_json_int (b, "max_bytes", 1),
        .request = hearth_json_int (b, "request", 0),
    };
    if (!s_token_ok (self, f.app_id, hearth_json_str (b, "token"))) {
        s_refuse (self, rid, &f, "bad_token",
                  "application %s: no executor of it here holds that token",
                  f.app_id);
        return;
    }
    /* Every part of the path is an id or a number the schema checked: no
       request reaches outside ROOT. */
    char data[4200], index[4300];
    snprintf (data, sizeof data, "%s/%lld/%lld.%lld", f.app_id,
              (long long) f.shuffle, (long long) f.map, (long long) f.attempt);
    snprintf (index, sizeof index, "%s.index", data);
    hearth_part_t part = {0};
    hearth_error_t err;
    if (s_locate (self->root, index, f.partition, &part, &err) < 0) {
        s_refuse (self, rid, &f, err.code, "%s/%lld map %lld.%lld: %s",
                  f.app_id, (long long) f.shuffle, (long long) f.map,
                  (long long) f.attempt, err.text);
        return;
    }
    if ((uint64_t) f.offset > part.length) {
        s_refuse (self, rid, &f, "bad_offset",
                  "offset %lld is past the block's %llu bytes",
                  (long long) f.offset, (unsigned long long) part.length);
        return;
    }
    zframe_t *piece =
        s_read_piece (self->root, data, &part, f.offset, f.max_bytes, &err);
    if (!piece) {
        s_refuse (self, rid, &f, err.code, "%s", err.text);
        return;
    }
    size_t n = zframe_size (piece);
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_BLOCK_DATA);
    if (!reply || hearth_msg_add_frame (reply, &piece) < 0) {
        zframe_destroy (&piece);
        hearth_msg_destroy (&reply);
        return;
    }
    cJSON_AddNumberToObject (reply->body, "request", (double) f.request);
    cJSON_AddNumberToObject (reply->body, "offset", (double) f.offset);
    cJSON_AddNumberToObject (reply->body, "length", (double) part.length);
    cJSON_AddBoolToObject (reply->body, "eof",
                           (uint64_t) f.offset + n >= part.length);
    cJSON_AddNumberToObject (reply->body, "data", 0);
    if (s_send (self, rid, &reply, &err) < 0)
        hearth_log_limited (self->log_limit, HEARTH_LOG_WARN, "send",
                            hearth_mono_ms (), "cannot answer a reducer: %s",
                            err.text);
}

/* A chunk of a shipped file this node holds (shipserve.h), for an
   executor of another node holding its application's token. */
static void
s_fetch_file (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    shuffle_t *self = arg;
    const char *app_id = hearth_json_str (msg->body, "app_id");
    hearth_msg_t *reply = NULL;
    if (!self->work_dir)
        reply = hearth_error_new ("no_file", "this node serves no files",
                                  "FETCH_FILE");
    else if (!app_id
             || !s_token_ok (self, app_id,
                             hearth_json_str (msg->body, "token")))
        reply = hearth_error_new ("bad_token",
                                  "no executor here holds that application's "
                                  "token",
                                  "FETCH_FILE");
    else
        reply = shipserve_answer (self->work_dir, msg->body);
    if (!reply)
        return;
    if (reply->cmd == HEARTH_CMD_FILE_CHUNK)
        self->turn_file_bytes += HEARTH_FILE_CHUNK_BYTES;
    if (!cJSON_GetObjectItemCaseSensitive (reply->body, "request"))
        cJSON_AddNumberToObject (
            reply->body, "request",
            (double) hearth_json_int (msg->body, "request", 0));
    hearth_error_t err;
    if (s_send (self, from->rid, &reply, &err) < 0)
        hearth_log_limited (self->log_limit, HEARTH_LOG_WARN, "send",
                            hearth_mono_ms (), "cannot answer a FETCH_FILE: %s",
                            err.text);
}

/* A reducer's ERROR: it could not use an answer.  Logged, limited. */
static void
s_error (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    shuffle_t *self = arg;
    (void) from;
    hearth_log_limited (self->log_limit, HEARTH_LOG_WARN, "peer error",
                        hearth_mono_ms (), "a reducer says: %s",
                        hearth_json_str (msg->body, "message"));
}

static const hearth_handler_t s_handlers[] = {
    {HEARTH_CMD_FETCH_BLOCK, s_fetch},
    {HEARTH_CMD_FETCH_FILE, s_fetch_file},
    {HEARTH_CMD_ERROR, s_error},
};

/* Requests, up to a batch, without waiting (loop.h: 1 when it stopped
   with more left). */
static int
s_on_request (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    shuffle_t *self = arg;
    self->turn_file_bytes = 0;
    for (int n = 0; n < s_max_batch; n++) {
        if (self->turn_file_bytes >= s_max_turn_file_bytes)
            return 1; /* again after the other sockets */
        zframe_t *rid = NULL;
        hearth_error_t err;
        bool none;
        hearth_msg_t *msg =
            hearth_msg_try_recv_from (sock, &rid, NULL, &none, &err);
        if (none)
            return 0;
        if (!msg && hearth_recv_broken (&err)) {
            log_error ("the block server's socket: %s", err.text);
            return 0;
        }
        if (!msg) {
            hearth_log_limited (self->log_limit, HEARTH_LOG_WARN, "bad request",
                                hearth_mono_ms (),
                                "bad message on the block server: %s",
                                err.text);
            if (rid)
                s_send_error (self, rid, err.code, err.text, NULL);
        }
        hearth_from_t from = {.rid = rid, .key = ""};
        if (msg
            && hearth_dispatch (HEARTH_HANDLERS (s_handlers), self, &from, msg)
                   < 0
            && rid)
            s_send_error (
                self, rid, "unexpected_command",
                "the block server takes FETCH_BLOCK and FETCH_FILE only",
                hearth_cmd_name (msg->cmd));
        hearth_msg_destroy (&msg);
        zframe_destroy (&rid);
    }
    return 1;
}

/* --- the server ------------------------------------------------------- */

shuffle_t *
shuffle_new (const shuffle_config_t *config, hearth_error_t *err)
{
    shuffle_t *self = calloc (1, sizeof *self);
    if (!self || !(self->root = strdup (config->root))
        || (config->work_dir && !(self->work_dir = strdup (config->work_dir)))
        || !(self->log_limit = hearth_loglimit_new (s_log_period_ms, 64))) {
        hearth_errprintf (err, "out of memory");
        goto error;
    }
    self->apps = config->apps;
    self->cache_disk = config->cache_disk;
    /* What an earlier worker left is of applications whose outputs died
       with it: the drivers re-run those maps. */
    hearth_rm_tree (self->root);
    if (hearth_mkdir_p (self->root, config->shared ? 0711 : 0700, err) < 0
        || chmod (self->root, config->shared ? 0711 : 0700) < 0) {
        hearth_errprintf (err, "cannot create %s: %s", self->root,
                          strerror (errno));
        goto error;
    }
    hearth_sock_opts_t opts = {.type = ZMQ_ROUTER, .curve_cert = config->cert};
    if (!(self->router = hearth_sock_new (&opts, err)))
        goto error;
    char endpoint[300];
    snprintf (endpoint, sizeof endpoint, "tcp://%s:%d",
              config->bind ? config->bind : config->host, config->port);
    int port = hearth_sock_bind (self->router, endpoint, err);
    if (port < 0)
        goto error;
    snprintf (self->url, sizeof self->url, "tcp://%s:%d", config->host, port);
    if (config->cert)
        snprintf (self->key, sizeof self->key, "%s",
                  zcert_public_txt (config->cert));
    self->loop = config->loop;
    if (hearth_loop_reader (self->loop, self->router, s_on_request, self) < 0) {
        hearth_errprintf (err, "cannot serve the block server's socket");
        self->loop = NULL;
        goto error;
    }
    return self;
error:
    shuffle_destroy (&self);
    return NULL;
}

void
shuffle_destroy (shuffle_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    shuffle_t *self = *self_p;
    if (self->loop && self->router)
        hearth_loop_reader_end (self->loop, self->router);
    hearth_sock_destroy (&self->router);
    hearth_loglimit_destroy (&self->log_limit);
    free (self->root);
    free (self->work_dir);
    free (self);
    *self_p = NULL;
    errno = saved;
}

const char *
shuffle_url (const shuffle_t *self)
{
    return self->url;
}

const char *
shuffle_key (const shuffle_t *self)
{
    return self->key[0] ? self->key : NULL;
}

int
shuffle_app_dir (const shuffle_t *self, const char *app_id, char *path,
                 size_t size, hearth_error_t *err)
{
    if (snprintf (path, size, "%s/%s", self->root, app_id) >= (int) size)
        return hearth_errprintf (err, "shuffle directory too long");
    return 0;
}

void
shuffle_app_removed (shuffle_t *self, const char *app_id)
{
    char dir[4200];
    if (hearth_id_valid (HEARTH_ID_APP, app_id)
        && shuffle_app_dir (self, app_id, dir, sizeof dir, NULL) == 0) {
        hearth_rm_tree (dir);
        self->counted_ms = 0; /* count again at the next tick */
    }
}

size_t
shuffle_apps_held (const shuffle_t *self)
{
    size_t n = 0;
    char dir[4200];
    for (const char *app_id = apps_first (self->apps); app_id;
         app_id = apps_next (self->apps)) {
        if (shuffle_app_dir (self, app_id, dir, sizeof dir, NULL) == 0
            && hearth_tree_bytes (dir) > 0)
            n++;
    }
    return n;
}

uint64_t
shuffle_bytes (const shuffle_t *self)
{
    return self->bytes;
}

uint64_t
shuffle_persisted_bytes (const shuffle_t *self)
{
    return self->persisted;
}

void
shuffle_tick (shuffle_t *self, int64_t now_ms)
{
    if (self->counted_ms && now_ms - self->counted_ms < s_count_every_ms)
        return;
    size_t evicted;
    self->persisted = persisted_sweep (self->root, self->cache_disk, &evicted);
    if (evicted)
        log_info ("block server: %zu persisted map outputs removed to keep "
                  "them within --cache-disk (%llu bytes); they are made "
                  "again when read",
                  evicted, (unsigned long long) self->cache_disk);
    self->bytes = hearth_tree_bytes (self->root);
    self->counted_ms = now_ms;
    hearth_loglimit_flush (self->log_limit, HEARTH_LOG_WARN, now_ms);
}

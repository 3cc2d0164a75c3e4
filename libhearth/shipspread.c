/*  shipspread.c - which nodes hold which chunks of the shipped files;
    see shipspread.h.

    Per file (by its hash, lower case): the node each chunk was first
    sent to (grown as chunks are asked for), and the nodes that hold it
    whole.  Both are a few bytes a chunk: 1 GiB is 256 chunks.
*/
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/log.h"
#include "libhearth/shipspread.h"

/* No node: a chunk not sent yet. */
static const uint32_t s_none = HEARTH_BLOCK_LOCAL;

/* One file's holders. */
typedef struct {
    uint32_t *sent;  /* chunk -> the node it was first sent to (owned) */
    size_t nsent;    /* entries of sent */
    uint32_t *whole; /* nodes holding it complete (owned) */
    size_t nwhole;   /* entries of whole */
} s_file_t;

/* One node. */
typedef struct {
    char *url; /* its block server (owned), or NULL: not known */
    char *key; /* its CURVE key (owned), or NULL */
} s_node_t;

struct shipspread {
    zhashx_t *files; /* hash -> s_file_t */
    s_node_t *nodes; /* by block server id (owned) */
    size_t nnodes;   /* entries of nodes */
};

static void
s_file_destroy (void **item)
{
    s_file_t *f = *item;
    if (f) {
        free (f->sent);
        free (f->whole);
        free (f);
    }
    *item = NULL;
}

shipspread_t *
shipspread_new (void)
{
    shipspread_t *self = calloc (1, sizeof *self);
    if (self && !(self->files = zhashx_new ())) {
        free (self);
        return NULL;
    }
    if (self)
        zhashx_set_destructor (self->files, s_file_destroy);
    return self;
}

void
shipspread_destroy (shipspread_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    shipspread_t *self = *self_p;
    zhashx_destroy (&self->files);
    for (size_t i = 0; i < self->nnodes; i++) {
        free (self->nodes[i].url);
        free (self->nodes[i].key);
    }
    free (self->nodes);
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
shipspread_node (shipspread_t *self, uint32_t server, const char *url,
                 const char *key)
{
    if (server == s_none || !url || !*url || server > 65535)
        return;
    if (server >= self->nnodes) {
        s_node_t *grown = realloc (self->nodes, (server + 1) * sizeof *grown);
        if (!grown)
            return; /* not named: its chunks come from the driver */
        memset (grown + self->nnodes, 0,
                (server + 1 - self->nnodes) * sizeof *grown);
        self->nodes = grown;
        self->nnodes = server + 1;
    }
    s_node_t *n = &self->nodes[server];
    if (n->url)
        return;
    n->url = strdup (url);
    n->key = key && *key ? strdup (key) : NULL;
}

int64_t
shipspread_start (uint32_t server)
{
    /* the van der Corput sequence: server's bits reversed after the
       point */
    double start = 0, half = 0.5;
    for (uint32_t k = server == s_none ? 0 : server; k; k >>= 1, half /= 2)
        if (k & 1)
            start += half;
    return (int64_t) (start * 1e6);
}

/* hash's record, made when make; NULL when none (or no memory). */
static s_file_t *
s_file (shipspread_t *self, const char *hash, bool make)
{
    char key[129];
    size_t i = 0;
    for (; hash && hash[i] && i < sizeof key - 1; i++)
        key[i] = (char) tolower ((unsigned char) hash[i]);
    key[i] = '\0';
    s_file_t *f = zhashx_lookup (self->files, key);
    if (f || !make)
        return f;
    if (!(f = calloc (1, sizeof *f)) || zhashx_insert (self->files, key, f) < 0)
        free (f);
    return zhashx_lookup (self->files, key);
}

/* Whether node server may be named (known, not lost). */
static bool
s_named (const shipspread_t *self, uint32_t server)
{
    return server < self->nnodes && self->nodes[server].url;
}

/* Up to max nodes other than asker holding chunk of f, into out. */
static size_t
s_holders (const shipspread_t *self, const s_file_t *f, size_t chunk,
           uint32_t asker, uint32_t *out, size_t max)
{
    size_t n = 0;
    uint32_t first = chunk < f->nsent ? f->sent[chunk] : s_none;
    if (first != asker && s_named (self, first))
        out[n++] = first;
    for (size_t i = 0; i < f->nwhole && n < max; i++) {
        uint32_t s = f->whole[(chunk + i) % f->nwhole];
        if (s != asker && s != first && s_named (self, s))
            out[n++] = s;
    }
    return n;
}

/* A FILE_HOLDERS answering body, naming the n nodes of out. */
static hearth_msg_t *
s_holders_msg (const shipspread_t *self, const cJSON *body, const uint32_t *out,
               size_t n)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FILE_HOLDERS);
    if (!msg)
        return NULL;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "hash", hearth_json_str (body, "hash"));
    cJSON_AddNumberToObject (b, "request",
                             (double) hearth_json_int (body, "request", 0));
    cJSON_AddNumberToObject (b, "offset",
                             (double) hearth_json_int (body, "offset", 0));
    cJSON *list = cJSON_AddArrayToObject (b, "holders");
    for (size_t i = 0; list && i < n; i++) {
        cJSON *o = cJSON_CreateObject ();
        cJSON_AddStringToObject (o, "url", self->nodes[out[i]].url);
        if (self->nodes[out[i]].key)
            cJSON_AddStringToObject (o, "key", self->nodes[out[i]].key);
        cJSON_AddItemToArray (list, o);
    }
    return msg;
}

/* Chunk of f was sent to node server: it is the chunk's first holder
   when there was none, or when the one named could not give it (the
   asker asked again with force: that holder died, or hangs). */
static void
s_sent (s_file_t *f, size_t chunk, uint32_t server, bool force)
{
    if (chunk >= f->nsent) {
        size_t n = chunk + 1 > 2 * f->nsent ? chunk + 1 : 2 * f->nsent;
        uint32_t *grown = realloc (f->sent, n * sizeof *grown);
        if (!grown)
            return;
        for (size_t i = f->nsent; i < n; i++)
            grown[i] = s_none;
        f->sent = grown;
        f->nsent = n;
    }
    if (f->sent[chunk] == s_none || force)
        f->sent[chunk] = server;
}

hearth_msg_t *
shipspread_answer (shipspread_t *self, ship_t *ship, const cJSON *body,
                   uint32_t server)
{
    const char *hash = hearth_json_str (body, "hash");
    size_t chunk = (size_t) ((uint64_t) hearth_json_int (body, "offset", 0)
                             / HEARTH_FILE_CHUNK_BYTES);
    s_file_t *f = s_file (self, hash, s_named (self, server));
    uint32_t out[HEARTH_FILE_HOLDERS_MAX];
    bool force = hearth_json_bool (body, "force", false);
    size_t n = f && !force ? s_holders (self, f, chunk, server, out,
                                        HEARTH_FILE_HOLDERS_MAX)
                           : 0;
    if (n > 0)
        return s_holders_msg (self, body, out, n);
    hearth_msg_t *reply = ship_serve (ship, body);
    if (reply && reply->cmd == HEARTH_CMD_FILE_CHUNK && f)
        s_sent (f, chunk, server, force);
    return reply;
}

void
shipspread_held (shipspread_t *self, const char *hash, uint32_t server)
{
    s_file_t *f = s_named (self, server) ? s_file (self, hash, true) : NULL;
    if (!f)
        return;
    for (size_t i = 0; i < f->nwhole; i++)
        if (f->whole[i] == server)
            return;
    uint32_t *grown = realloc (f->whole, (f->nwhole + 1) * sizeof *grown);
    if (!grown)
        return;
    f->whole = grown;
    f->whole[f->nwhole++] = server;
}

void
shipspread_lost (shipspread_t *self, uint32_t server)
{
    if (server >= self->nnodes || !self->nodes[server].url)
        return;
    log_info ("block server %s lost: named as a holder of shipped files no "
              "more",
              self->nodes[server].url);
    free (self->nodes[server].url);
    free (self->nodes[server].key);
    self->nodes[server].url = self->nodes[server].key = NULL;
}

/*  shippeers.c - the block servers of other nodes, for chunks of shipped
    files; see shippeers.h.
*/
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "executor/shippeers.h"
#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/sock.h"

/* Peers one fetch may know, at most (the driver names a few per
   chunk: this is many nodes). */
enum { s_max_peers = 256 };
/* Answers read per wake-up before other readers get a turn: one, as a
   chunk takes a while to check, write and hash, and the driver's link
   must be read between them (its heartbeats: an executor that reads
   chunks for a second takes a quiet driver for a dead one). */
enum { s_max_drain = 1 };

/* One block server. */
typedef struct {
    char *url;        /* tcp://HOST:PORT */
    char *key;        /* its CURVE public key (Z85), or NULL */
    zcert_t *cert;    /* our throw-away keys for it, or NULL */
    zsock_t *sock;    /* the DEALER, once asked */
    int64_t heard_ms; /* its last answer, or when it was first asked */
    bool dropped;     /* found silent or broken: not asked again */
} s_peer_t;

struct shippeers {
    hearth_loop_t *loop;     /* reads the sockets (borrowed) */
    shippeers_answer_fn *fn; /* gets the answers */
    void *arg;               /* of fn */
    s_peer_t *peers;         /* known (owned) */
    int n;                   /* entries of peers */
};

shippeers_t *
shippeers_new (hearth_loop_t *loop, shippeers_answer_fn *fn, void *arg)
{
    shippeers_t *self = calloc (1, sizeof *self);
    if (self)
        *self = (shippeers_t){.loop = loop, .fn = fn, .arg = arg};
    return self;
}

static void
s_close (shippeers_t *self, s_peer_t *p)
{
    if (!p->sock)
        return;
    hearth_loop_reader_end (self->loop, p->sock);
    zsock_set_linger (p->sock, 0); /* nothing waits for what it holds */
    hearth_sock_destroy (&p->sock);
}

void
shippeers_destroy (shippeers_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    shippeers_t *self = *self_p;
    for (int i = 0; i < self->n; i++) {
        s_close (self, &self->peers[i]);
        zcert_destroy (&self->peers[i].cert);
        free (self->peers[i].url);
        free (self->peers[i].key);
    }
    free (self->peers);
    free (self);
    *self_p = NULL;
    errno = saved;
}

int
shippeers_intern (shippeers_t *self, const char *url, const char *key)
{
    for (int i = 0; i < self->n; i++)
        if (strcmp (self->peers[i].url, url) == 0)
            return i;
    if (self->n >= s_max_peers)
        return -1;
    s_peer_t *grown =
        realloc (self->peers, (size_t) (self->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    self->peers = grown;
    s_peer_t *p = &grown[self->n];
    *p = (s_peer_t){.url = strdup (url),
                    .key = key && *key ? strdup (key) : NULL};
    if (!p->url || (key && *key && !p->key)) {
        free (p->url);
        free (p->key);
        return -1;
    }
    return self->n++;
}

const char *
shippeers_url (const shippeers_t *self, int peer)
{
    return self->peers[peer].url;
}

bool
shippeers_usable (const shippeers_t *self, int peer)
{
    return peer >= 0 && peer < self->n && !self->peers[peer].dropped;
}

void
shippeers_drop (shippeers_t *self, int peer, const char *why)
{
    s_peer_t *p = &self->peers[peer];
    if (!p->dropped)
        log_warn ("holder %s of shipped files %s: not asked again", p->url,
                  why);
    p->dropped = true;
    s_close (self, p);
}

/* Answers of the peer whose socket is readable. */
static int
s_on_answer (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    shippeers_t *self = arg;
    int peer = -1;
    for (int i = 0; i < self->n && peer < 0; i++)
        if (self->peers[i].sock == sock)
            peer = i;
    for (int k = 0; peer >= 0 && k < s_max_drain; k++) {
        hearth_error_t err;
        bool none;
        hearth_msg_t *msg =
            hearth_msg_try_recv_from (sock, NULL, NULL, &none, &err);
        if (none)
            return 0;
        if (!msg && hearth_recv_broken (&err))
            return 0;
        if (!msg) {
            log_warn ("holder %s sent a bad message: %s", self->peers[peer].url,
                      err.text);
            continue;
        }
        self->peers[peer].heard_ms = hearth_mono_ms ();
        self->fn (self->arg, peer, msg);
        hearth_msg_destroy (&msg);
        if (!self->peers[peer].sock)
            return 0; /* dropped by what the answer did */
    }
    return peer >= 0 ? 1 : 0;
}

/* p's DEALER, connected.  0, or -1 (logged). */
static int
s_connect (shippeers_t *self, s_peer_t *p)
{
    hearth_error_t err;
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    if (p->key) {
        if (!p->cert && !(p->cert = zcert_new ())) {
            log_warn ("holder %s: out of memory", p->url);
            return -1;
        }
        opts.curve_cert = p->cert;
        opts.curve_server_key = p->key;
    }
    if (!(p->sock = hearth_sock_new (&opts, &err))
        || hearth_sock_connect (p->sock, p->url, &err) < 0
        || hearth_loop_reader (self->loop, p->sock, s_on_answer, self) < 0) {
        log_warn ("holder %s: cannot connect: %s", p->url,
                  p->sock ? err.text : "out of memory");
        hearth_sock_destroy (&p->sock);
        return -1;
    }
    p->heard_ms = hearth_mono_ms ();
    return 0;
}

int64_t
shippeers_heard (const shippeers_t *self, int peer)
{
    return self->peers[peer].heard_ms;
}

int
shippeers_send (shippeers_t *self, int peer, hearth_msg_t **msg_p)
{
    s_peer_t *p = &self->peers[peer];
    hearth_error_t err;
    if (p->dropped || (!p->sock && s_connect (self, p) < 0)) {
        hearth_msg_destroy (msg_p);
        return -1;
    }
    int rc = hearth_msg_send (msg_p, p->sock, NULL, &err);
    hearth_loop_sent (self->loop, p->sock);
    if (rc < 0)
        log_warn ("holder %s: cannot ask: %s", p->url, err.text);
    return rc;
}

/*  execsock.c - the ROUTER executors connect to; see execsock.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "libcore/log.h"
#include "libcore/sock.h"
#include "libhearth/execsock.h"

struct execsock {
    hearth_loop_t *loop; /* serves router (borrowed) */
    zsock_t *router;     /* executors connect here */
    zcert_t *cert;       /* router's CURVE keys, or NULL */
    char url[300];       /* tcp://HOST:PORT of router */
};

/* Bind self->router as conf and towards say; 0, or -1 with err. */
static int
s_bind (execsock_t *self, const hearth_conf_t *conf, const char *towards,
        hearth_error_t *err)
{
    char host[256];
    const char *h = hearth_conf_str (conf, "driver-host");
    if (h)
        snprintf (host, sizeof host, "%s", h);
    else
        hearth_address_towards_url (towards, host, sizeof host);
    /* CURVE server with the application's keys; executors are admitted
       by the token they present, not by their (throw-away) keys. */
    hearth_sock_opts_t opts = {.type = ZMQ_ROUTER, .curve_cert = self->cert};
    if (!(self->router = hearth_sock_new (&opts, err)))
        return -1;
    /* A message for an executor that is not connected, or whose queue is
       full, fails to send (EHOSTUNREACH, EAGAIN) rather than vanish: a
       LAUNCH_TASKS dropped without a word would leave its tasks launched
       for ever once a later batch is acknowledged. */
    zsock_set_router_mandatory (self->router, 1);
    char endpoint[300];
    /* Port 0: the kernel picks a random free port; czmq's "*" would take
       the first free one from 49152, which a stale executor of an earlier
       driver may still be reconnecting to. */
    snprintf (endpoint, sizeof endpoint, "tcp://%s:0", host);
    int port = hearth_sock_bind (self->router, endpoint, err);
    if (port < 0)
        return -1;
    snprintf (self->url, sizeof self->url, "tcp://%s:%d", host, port);
    return 0;
}

execsock_t *
execsock_new (const hearth_conf_t *conf, hearth_loop_t *loop,
              const char *towards, bool secure, hearth_loop_reader_fn *reader,
              void *arg, hearth_error_t *err)
{
    execsock_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    if (secure && !(self->cert = zcert_new ())) {
        hearth_errprintf (err, "cannot make the application's keys");
        goto error;
    }
    if (s_bind (self, conf, towards, err) < 0)
        goto error;
    if (hearth_loop_reader (loop, self->router, reader, arg) < 0) {
        hearth_errprintf (err, "out of memory");
        goto error;
    }
    self->loop = loop;
    if (self->cert)
        log_info ("executors connect to %s (CURVE server key %s)", self->url,
                  zcert_public_txt (self->cert));
    else
        log_info ("executors connect to %s", self->url);
    return self;
error:
    execsock_destroy (&self);
    return NULL;
}

void
execsock_close (execsock_t **self_p)
{
    if (self_p && *self_p && (*self_p)->loop)
        hearth_loop_reader_end ((*self_p)->loop, (*self_p)->router);
    execsock_destroy (self_p);
}

void
execsock_destroy (execsock_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_sock_destroy (&(*self_p)->router);
    zcert_destroy (&(*self_p)->cert);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

zsock_t *
execsock_router (const execsock_t *self)
{
    return self->router;
}

const char *
execsock_url (const execsock_t *self)
{
    return self->url;
}

const char *
execsock_public_key (const execsock_t *self)
{
    return self->cert ? zcert_public_txt (self->cert) : NULL;
}

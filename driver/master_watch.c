/*  master_watch.c - the link to the master's connection, watched until
    the first registration; see master_watch.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "driver/master_watch.h"
#include "libcore/clock.h"
#include "libcore/connwatch.h"
#include "libcore/log.h"

struct master_watch {
    hearth_loop_t *loop;          /* serves monitor (borrowed) */
    hearth_connwatch_t *cw;       /* the diagnosis (owned) */
    zsock_t *monitor;             /* its monitor socket (the watch's) */
    master_watch_fatal_fn *fatal; /* the link's callback */
    void *arg;                    /* given to it */
};

/* Say what the watch has learnt, once per cause. */
static int
s_news (master_watch_t *self)
{
    bool fatal;
    const char *news =
        hearth_connwatch_news (self->cw, hearth_mono_ms (), &fatal);
    if (news && fatal)
        return self->fatal (self->arg, news);
    if (news)
        log_warn ("%s; still trying", news);
    return 0;
}

static int
s_on_monitor (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    (void) sock;
    master_watch_t *self = arg;
    /* read until ZMQ_EVENTS says none is left: all taken */
    if (hearth_connwatch_read (self->cw, hearth_mono_ms ()) > 0
        && s_news (self) < 0)
        return -1;
    return 0;
}

master_watch_t *
master_watch_new (hearth_loop_t *loop, zsock_t *sock, const char *url,
                  const hearth_curve_t *curve, master_watch_fatal_fn *fatal,
                  void *arg)
{
    hearth_error_t err;
    master_watch_t *self = calloc (1, sizeof *self);
    const char *key = curve->cert ? zcert_public_txt (curve->cert) : NULL;
    if (self)
        self->cw = hearth_connwatch_new (url, "the master",
                                         hearth_curve_on (curve), key);
    if (self && self->cw)
        hearth_connwatch_cookie (self->cw, curve->cookie[0] != '\0');
    if (!self || !self->cw
        || !(self->monitor = hearth_connwatch_attach (self->cw, sock, &err))) {
        log_debug ("the link to the master goes unwatched: %s",
                   self && self->cw ? err.text : "out of memory");
        master_watch_destroy (&self, false);
        return NULL;
    }
    self->fatal = fatal;
    self->arg = arg;
    if (hearth_loop_reader (loop, self->monitor, s_on_monitor, self) < 0) {
        log_debug ("the link to the master goes unwatched: out of memory");
        master_watch_destroy (&self, false);
        return NULL;
    }
    self->loop = loop;
    return self;
}

void
master_watch_destroy (master_watch_t **self_p, bool on_loop)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    master_watch_t *self = *self_p;
    if (on_loop && self->loop && self->monitor)
        hearth_loop_reader_end (self->loop, self->monitor);
    hearth_connwatch_destroy (&self->cw); /* and its monitor */
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
master_watch_tick (master_watch_t *self)
{
    s_news (self);
}

const char *
master_watch_last (const master_watch_t *self)
{
    return hearth_connwatch_last (self->cw);
}

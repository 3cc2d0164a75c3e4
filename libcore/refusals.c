/*  refusals.c - the rate-limited log of refused peers; see refusals.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/refusals.h"

/* One log line per refused address per this many ms. */
static const int64_t s_log_period_ms = 60000;
/* Addresses remembered for rate limiting before the memory is reset. */
static const size_t s_max_remembered = 4096;

struct hearth_refusals {
    zhash_t *logged; /* peer -> last log time (ms) */
    size_t count;    /* refusals counted */
};

/* The peer's host in address ("tcp://10.0.0.5:43210" -> "10.0.0.5"). */
static void
s_host_of (const char *address, char *buf, size_t size)
{
    const char *p = strstr (address, "://");
    snprintf (buf, size, "%s", p ? p + 3 : address);
    char *colon = strrchr (buf, ':');
    if (colon && p)
        *colon = '\0';
}

hearth_refusals_t *
hearth_refusals_new (void)
{
    hearth_refusals_t *self = calloc (1, sizeof *self);
    if (self && !(self->logged = zhash_new ())) {
        free (self);
        errno = ENOMEM;
        return NULL;
    }
    return self;
}

void
hearth_refusals_destroy (hearth_refusals_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_refusals_t *self = *self_p;
    zhash_destroy (&self->logged);
    free (self);
    *self_p = NULL;
    errno = saved;
}

size_t
hearth_refusals_count (const hearth_refusals_t *self)
{
    return self->count;
}

void
hearth_refusals_log (hearth_refusals_t *self, const char *peer,
                     const char *about, const char *why)
{
    char address[200], key[256];
    s_host_of (peer, address, sizeof address);
    snprintf (key, sizeof key, "%s %s", address, about ? about : "");
    self->count++;
    int64_t now = hearth_mono_ms ();
    int64_t *last = zhash_lookup (self->logged, key);
    if (last && now - *last < s_log_period_ms)
        return;
    if (!last) {
        if (zhash_size (self->logged) >= s_max_remembered) {
            zhash_t *fresh = zhash_new (); /* on no memory: keep the old */
            if (fresh) {
                zhash_destroy (&self->logged);
                self->logged = fresh;
            }
        }
        last = malloc (sizeof *last);
        if (!last || !self->logged) {
            free (last);
            return;
        }
        zhash_insert (self->logged, key, last);
        zhash_freefn (self->logged, key, free);
    }
    *last = now;
    log_warn ("refused %s: %s", address, why);
}

/*  loglimit.c - one log line per key and period, with a count of the
    ones held back; see loglimit.h. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <czmq.h>

#include "libcore/loglimit.h"

/* What the limiter remembers of one key. */
typedef struct {
    int64_t since_ms; /* when its last line was logged */
    uint64_t held;    /* lines held back since then */
} s_key_t;

struct hearth_loglimit {
    int64_t period_ms; /* one line per key per this */
    size_t max_keys;   /* past it, every key is forgotten */
    zhashx_t *keys;    /* key -> s_key_t * (owned) */
};

static void
s_key_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

hearth_loglimit_t *
hearth_loglimit_new (int64_t period_ms, size_t max_keys)
{
    hearth_loglimit_t *self = calloc (1, sizeof *self);
    if (!self || !(self->keys = zhashx_new ())) {
        free (self);
        errno = ENOMEM;
        return NULL;
    }
    zhashx_set_destructor (self->keys, s_key_destroy);
    self->period_ms = period_ms > 0 ? period_ms : 1;
    self->max_keys = max_keys > 0 ? max_keys : 1;
    return self;
}

void
hearth_loglimit_destroy (hearth_loglimit_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    zhashx_destroy (&(*self_p)->keys);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

bool
hearth_loglimit_allow (hearth_loglimit_t *self, const char *key, int64_t now_ms,
                       uint64_t *held)
{
    s_key_t *k = zhashx_lookup (self->keys, key);
    if (held)
        *held = 0;
    if (k && now_ms - k->since_ms < self->period_ms) {
        k->held++;
        return false;
    }
    if (k) {
        if (held)
            *held = k->held;
        k->since_ms = now_ms;
        k->held = 0;
        return true;
    }
    if (zhashx_size (self->keys) >= self->max_keys)
        zhashx_purge (self->keys);
    if ((k = calloc (1, sizeof *k))) {
        k->since_ms = now_ms;
        zhashx_insert (self->keys, key, k);
    }
    return true; /* no memory to remember it: logged, not limited */
}

size_t
hearth_loglimit_expired (hearth_loglimit_t *self, int64_t now_ms,
                         hearth_loglimit_fn *fn, void *arg)
{
    zlistx_t *done = zlistx_new ();
    size_t n = 0;
    if (!done)
        return 0;
    for (s_key_t *k = zhashx_first (self->keys); k;
         k = zhashx_next (self->keys))
        if (now_ms - k->since_ms >= self->period_ms)
            zlistx_add_end (done, (void *) zhashx_cursor (self->keys));
    for (const char *key = zlistx_first (done); key; key = zlistx_next (done)) {
        s_key_t *k = zhashx_lookup (self->keys, key);
        if (k->held && fn)
            fn (arg, key, k->held);
        zhashx_delete (self->keys, key);
        n++;
    }
    zlistx_destroy (&done);
    return n;
}

size_t
hearth_loglimit_size (const hearth_loglimit_t *self)
{
    return zhashx_size (self->keys);
}

void
hearth_log_limited (hearth_loglimit_t *self, hearth_log_level_t level,
                    const char *key, int64_t now_ms, const char *fmt, ...)
{
    uint64_t held = 0;
    bool first = self && !zhashx_lookup (self->keys, key);
    if (!hearth_log_enabled (level)
        || (self && !hearth_loglimit_allow (self, key, now_ms, &held)))
        return;
    char text[1536];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (text, sizeof text, fmt, ap);
    va_end (ap);
    if (held)
        hearth_log (level,
                    "%s (and %llu more like it in the last %lld s, not "
                    "logged)",
                    text, (unsigned long long) held,
                    (long long) (self->period_ms / 1000));
    else if (first)
        hearth_log (level,
                    "%s (more like it are counted, not logged, for %lld "
                    "s)",
                    text, (long long) (self->period_ms / 1000));
    else
        hearth_log (level, "%s", text);
}

/* The flush's callback: one line for a key that fell silent. */
typedef struct {
    hearth_log_level_t level; /* of the line */
    int64_t period_ms;        /* the limiter's */
} s_flush_t;

static void
s_flush_one (void *arg, const char *key, uint64_t held)
{
    const s_flush_t *f = arg;
    hearth_log (f->level,
                "%llu more lines of '%s' were not logged in the last "
                "%lld s",
                (unsigned long long) held, key,
                (long long) (f->period_ms / 1000));
}

void
hearth_loglimit_flush (hearth_loglimit_t *self, hearth_log_level_t level,
                       int64_t now_ms)
{
    s_flush_t f = {level, self ? self->period_ms : 0};
    if (self)
        hearth_loglimit_expired (self, now_ms, s_flush_one, &f);
}

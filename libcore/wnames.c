/*  wnames.c - short names of workers; see wnames.h.

    Each known id has up to three candidates: its host, host-pid (for ids
    of the worker-YYYYMMDDHHMMSS-HOST-PID form) and the id itself.  A table
    counts how many known workers have each candidate; a worker's short
    name is its first candidate whose count is 1 (its own).  The id itself
    always qualifies: ids are unique, and no generated candidate of
    another worker can equal an id unless that id is its own host or
    host-pid, which the count then sees. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/wnames.h"

/* Candidates of one id, shortest first. */
typedef struct {
    char *names[3]; /* owned; NULL beyond count */
    size_t count;   /* candidates */
} s_worker_t;

struct hearth_wnames {
    zhashx_t *workers; /* id -> s_worker_t * (owned) */
    zhashx_t *counts;  /* candidate -> how many workers have it (intptr) */
};

/* The digits of a worker id's time stamp, after "worker-". */
static const size_t s_stamp_digits = 14;

static void
s_worker_destroy (void **item)
{
    s_worker_t *w = *item;
    for (size_t i = 0; w && i < w->count; i++)
        free (w->names[i]);
    free (w);
    *item = NULL;
}

hearth_wnames_t *
hearth_wnames_new (void)
{
    hearth_wnames_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->workers = zhashx_new ();
    self->counts = zhashx_new ();
    if (!self->workers || !self->counts) {
        hearth_wnames_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->workers, s_worker_destroy);
    return self;
}

void
hearth_wnames_destroy (hearth_wnames_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_wnames_t *self = *self_p;
    zhashx_destroy (&self->workers);
    zhashx_destroy (&self->counts);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* The HOST-PID tail of a worker-YYYYMMDDHHMMSS-HOST-PID id, and where its
   "-PID" starts; NULL when id is not of that form. */
static const char *
s_tail (const char *id, const char **pid_dash)
{
    if (strncmp (id, "worker-", 7) != 0)
        return NULL;
    const char *p = id + 7;
    if (strspn (p, "0123456789") != s_stamp_digits || p[s_stamp_digits] != '-')
        return NULL;
    const char *tail = p + s_stamp_digits + 1;
    const char *dash = strrchr (tail, '-');
    if (!dash || dash == tail || !dash[1]
        || strspn (dash + 1, "0123456789") != strlen (dash + 1))
        return NULL;
    *pid_dash = dash;
    return tail;
}

/* The candidates of id, shortest first. */
static s_worker_t *
s_worker_new (const char *id)
{
    s_worker_t *w = calloc (1, sizeof *w);
    const char *dash = NULL;
    const char *tail = s_tail (id, &dash);
    bool ok = w != NULL;
    if (ok && tail) {
        ok = (w->names[w->count++] = strndup (tail, (size_t) (dash - tail)))
             && (w->names[w->count++] = strdup (tail));
    }
    if (ok)
        ok = (w->names[w->count++] = strdup (id)) != NULL;
    if (!ok) {
        void *item = w;
        s_worker_destroy (&item);
        return NULL;
    }
    return w;
}

static intptr_t
s_count (hearth_wnames_t *self, const char *name)
{
    return (intptr_t) zhashx_lookup (self->counts, name);
}

int
hearth_wnames_add (hearth_wnames_t *self, const char *id)
{
    if (zhashx_lookup (self->workers, id))
        return 0;
    s_worker_t *w = s_worker_new (id);
    if (!w || zhashx_insert (self->workers, id, w) < 0) {
        void *item = w;
        s_worker_destroy (&item);
        return -1;
    }
    for (size_t i = 0; i < w->count; i++)
        zhashx_update (self->counts, w->names[i],
                       (void *) (s_count (self, w->names[i]) + 1));
    return 1;
}

/* w's first candidate that no other worker has. */
static const char *
s_short (hearth_wnames_t *self, const s_worker_t *w)
{
    for (size_t i = 0; i + 1 < w->count; i++)
        if (s_count (self, w->names[i]) == 1)
            return w->names[i];
    return w->names[w->count - 1];
}

const char *
hearth_wnames_short (hearth_wnames_t *self, const char *id)
{
    s_worker_t *w = zhashx_lookup (self->workers, id);
    return w ? s_short (self, w) : id;
}

const char *
hearth_wnames_resolve (hearth_wnames_t *self, const char *name)
{
    s_worker_t *w = zhashx_lookup (self->workers, name);
    if (w)
        return w->names[w->count - 1];
    for (w = zhashx_first (self->workers); w; w = zhashx_next (self->workers))
        if (strcmp (s_short (self, w), name) == 0)
            return w->names[w->count - 1];
    return NULL;
}

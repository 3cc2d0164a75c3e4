/*  shufservers.c - the block servers the application's executors have
    named, each once, by index (the map-output table's "server"); see
    shuffle.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/log.h"
#include "libhearth/shuffle.h"

typedef struct {
    char *url;    /* tcp://HOST:PORT */
    char *key;    /* CURVE public key (Z85), or NULL */
    char *worker; /* the worker it belongs to, once told, or NULL */
} s_server_t;

struct shuffle_servers {
    s_server_t *list; /* by index */
    size_t n, alloc;  /* entries used, allocated */
};

shuffle_servers_t *
shuffle_servers_new (void)
{
    return calloc (1, sizeof (shuffle_servers_t));
}

void
shuffle_servers_destroy (shuffle_servers_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    shuffle_servers_t *self = *self_p;
    for (size_t i = 0; i < self->n; i++) {
        free (self->list[i].url);
        free (self->list[i].key);
        free (self->list[i].worker);
    }
    free (self->list);
    free (self);
    *self_p = NULL;
    errno = saved;
}

uint32_t
shuffle_servers_find (const shuffle_servers_t *self, const char *url)
{
    for (size_t i = 0; url && i < self->n; i++)
        if (streq (self->list[i].url, url))
            return (uint32_t) i;
    return SHUFFLE_NO_SERVER;
}

uint32_t
shuffle_servers_intern (shuffle_servers_t *self, const char *url,
                        const char *key)
{
    if (!url || !*url)
        return SHUFFLE_NO_SERVER;
    uint32_t id = shuffle_servers_find (self, url);
    if (id != SHUFFLE_NO_SERVER)
        return id;
    if (self->n == self->alloc) {
        size_t n = self->alloc ? self->alloc * 2 : 16;
        s_server_t *list = realloc (self->list, n * sizeof *list);
        if (!list) {
            log_error ("out of memory noting the block server %s", url);
            return SHUFFLE_NO_SERVER;
        }
        self->list = list;
        self->alloc = n;
    }
    s_server_t *s = &self->list[self->n];
    s->url = strdup (url);
    s->key = key && *key ? strdup (key) : NULL;
    s->worker = NULL;
    if (!s->url) {
        free (s->key);
        log_error ("out of memory noting the block server %s", url);
        return SHUFFLE_NO_SERVER;
    }
    return (uint32_t) self->n++;
}

const char *
shuffle_servers_url (const shuffle_servers_t *self, uint32_t id)
{
    return id < self->n ? self->list[id].url : NULL;
}

void
shuffle_servers_set_worker (shuffle_servers_t *self, uint32_t id,
                            const char *worker_id)
{
    if (id >= self->n || !worker_id || !*worker_id
        || (self->list[id].worker && streq (self->list[id].worker, worker_id)))
        return;
    char *copy = strdup (worker_id);
    if (!copy) {
        log_error ("out of memory noting the worker of %s", self->list[id].url);
        return;
    }
    free (self->list[id].worker);
    self->list[id].worker = copy;
}

const char *
shuffle_servers_key (const shuffle_servers_t *self, uint32_t id)
{
    return id < self->n ? self->list[id].key : NULL;
}

const char *
shuffle_servers_worker (const shuffle_servers_t *self, uint32_t id)
{
    return id < self->n ? self->list[id].worker : NULL;
}

size_t
shuffle_servers_count (const shuffle_servers_t *self)
{
    return self->n;
}

uint32_t
shuffle_servers_of_worker (const shuffle_servers_t *self, const char *worker_id)
{
    for (size_t i = 0; worker_id && i < self->n; i++)
        if (self->list[i].worker && streq (self->list[i].worker, worker_id))
            return (uint32_t) i;
    return SHUFFLE_NO_SERVER;
}

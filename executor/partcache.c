/*  partcache.c - reduce inputs kept in memory; see partcache.h. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "executor/partcache.h"

/* One kept input, in a list from the most recently used. */
typedef struct s_entry {
    partcache_key_t key;
    void *data;
    size_t len;
    int users;            /* tasks reading it now */
    struct s_entry *prev; /* more recently used */
    struct s_entry *next; /* less recently used */
} s_entry_t;

struct partcache {
    pthread_mutex_t lock;
    size_t budget; /* bytes it may keep */
    size_t bytes;  /* bytes it keeps */
    size_t count;  /* inputs it keeps */
    s_entry_t *head, *tail;
};

partcache_t *
partcache_new (size_t budget)
{
    partcache_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    pthread_mutex_init (&self->lock, NULL);
    self->budget = budget;
    return self;
}

static void
s_unlink (partcache_t *self, s_entry_t *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        self->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        self->tail = e->prev;
    e->prev = e->next = NULL;
}

static void
s_push_front (partcache_t *self, s_entry_t *e)
{
    e->next = self->head;
    if (self->head)
        self->head->prev = e;
    self->head = e;
    if (!self->tail)
        self->tail = e;
}

static void
s_free (partcache_t *self, s_entry_t *e)
{
    s_unlink (self, e);
    self->bytes -= e->len;
    self->count--;
    free (e->data);
    free (e);
}

/* Evict least recently used inputs not in use until need more bytes fit;
   whether they do. */
static bool
s_make_room (partcache_t *self, size_t need)
{
    for (s_entry_t *e = self->tail, *prev;
         e && self->bytes + need > self->budget; e = prev) {
        prev = e->prev;
        if (e->users == 0)
            s_free (self, e);
    }
    return self->bytes + need <= self->budget;
}

void
partcache_destroy (partcache_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    partcache_t *self = *self_p;
    while (self->head)
        s_free (self, self->head);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

void
partcache_set_budget (partcache_t *self, size_t budget)
{
    pthread_mutex_lock (&self->lock);
    self->budget = budget;
    s_make_room (self, 0);
    pthread_mutex_unlock (&self->lock);
}

static s_entry_t *
s_find (partcache_t *self, const partcache_key_t *key)
{
    for (s_entry_t *e = self->head; e; e = e->next)
        if (e->key.shuffle == key->shuffle && e->key.partition == key->partition
            && e->key.digest == key->digest)
            return e;
    return NULL;
}

bool
partcache_get (partcache_t *self, const partcache_key_t *key, const void **data,
               size_t *len)
{
    pthread_mutex_lock (&self->lock);
    s_entry_t *e = s_find (self, key);
    if (e) {
        e->users++;
        s_unlink (self, e);
        s_push_front (self, e);
        *data = e->data;
        *len = e->len;
    }
    pthread_mutex_unlock (&self->lock);
    return e != NULL;
}

bool
partcache_put (partcache_t *self, const partcache_key_t *key, void *data,
               size_t len)
{
    s_entry_t *e = malloc (sizeof *e);
    pthread_mutex_lock (&self->lock);
    /* an older input of the same partition (its outputs made again since)
       is read no more */
    for (s_entry_t *o = self->head, *next; o; o = next) {
        next = o->next;
        if (o->key.shuffle == key->shuffle && o->key.partition == key->partition
            && o->users == 0)
            s_free (self, o);
    }
    bool kept = e && !s_find (self, key) && s_make_room (self, len);
    if (kept) {
        *e = (s_entry_t){.key = *key, .data = data, .len = len, .users = 1};
        s_push_front (self, e);
        self->bytes += len;
        self->count++;
    }
    pthread_mutex_unlock (&self->lock);
    if (!kept)
        free (e);
    return kept;
}

void
partcache_release (partcache_t *self, const partcache_key_t *key)
{
    pthread_mutex_lock (&self->lock);
    s_entry_t *e = s_find (self, key);
    if (e && e->users > 0)
        e->users--;
    s_make_room (self, 0); /* a budget lowered meanwhile */
    pthread_mutex_unlock (&self->lock);
}

size_t
partcache_bytes (partcache_t *self, size_t *count)
{
    pthread_mutex_lock (&self->lock);
    size_t bytes = self->bytes;
    if (count)
        *count = self->count;
    pthread_mutex_unlock (&self->lock);
    return bytes;
}

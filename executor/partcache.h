/*  partcache.h - reduce inputs of persisted stages kept in the executor's
    memory (issue 38, the "memory" levels): a function task reading
    partition P of a persisted stage with a memory level gets its input
    gathered (fetched, checked, merged) once; the executor keeps that
    input, and the next task reading the same partition of the same
    outputs here (a later job's, placed on this executor by the driver:
    PROCESS_LOCAL) takes it as it is, with nothing fetched or copied.

    An input is known by its shuffle, its partition and a digest of its
    reduce role's block list (which map outputs, which attempts, their
    sizes): an output made again changes the list, so an input kept
    from before is never taken for it.  The executor's budget
    (cache-memory, REGISTERED_EXECUTOR "cache_memory") bounds the bytes
    kept; the least recently used input not being read goes first.
    Shared by the executor's task threads (a lock inside).
*/
#ifndef HEARTH_EXECUTOR_PARTCACHE_H
#define HEARTH_EXECUTOR_PARTCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct partcache partcache_t;

/* What names a kept input. */
typedef struct {
    uint32_t shuffle;   /* the persisted stage's shuffle id */
    uint32_t partition; /* the partition */
    uint64_t digest;    /* of its block list */
} partcache_key_t;

/* An empty cache of at most budget bytes (0: keeps nothing).  NULL on no
   memory. */
partcache_t *partcache_new (size_t budget);
/* Free it and every input it keeps (none may be in use).  Accepts NULL;
   nulls the pointer. */
void partcache_destroy (partcache_t **self_p);
/* Change the budget (evicting what no longer fits and is not in use). */
void partcache_set_budget (partcache_t *self, size_t budget);

/* The input kept under key, in use until partcache_release: true with
 *data and *len; false when none is kept. */
bool partcache_get (partcache_t *self, const partcache_key_t *key,
                    const void **data, size_t *len);
/* Keep data (len bytes, from malloc: taken) under key, in use until
   partcache_release, evicting the least recently used inputs not in use
   to make room: true; false when it cannot fit (data is not taken). */
bool partcache_put (partcache_t *self, const partcache_key_t *key, void *data,
                    size_t len);
/* The input under key is no longer used by the caller. */
void partcache_release (partcache_t *self, const partcache_key_t *key);

/* Bytes kept, and inputs kept. */
size_t partcache_bytes (partcache_t *self, size_t *count);

#endif

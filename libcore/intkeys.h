/*  intkeys.h - zhashx tables keyed by small integers (executor ids).

    The key is the integer itself, stored in the key pointer (id + 1, so
    that id 0 is not a NULL key): no allocation per key.
*/
#ifndef HEARTH_INTKEYS_H
#define HEARTH_INTKEYS_H

#include <stdint.h>

#include <czmq.h>

/* Make table hash, compare and keep keys as integers (no duplication, no
   destruction of keys; the item destructor is left as it is). */
void hearth_intkeys_setup (zhashx_t *table);

/* The key for id. */
static inline void *
hearth_intkey (int id)
{
    return (void *) (uintptr_t) ((uint32_t) id + 1u);
}

/* The id of a key (zhashx_cursor's, when iterating). */
static inline int
hearth_intkey_id (const void *key)
{
    return (int) ((uint32_t) (uintptr_t) key - 1u);
}

#endif

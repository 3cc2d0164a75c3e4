/*  intkeys.c - integer keys for zhashx; see intkeys.h. */
#include "config.h"

#include "libcore/intkeys.h"

static size_t
s_hash (const void *key)
{
    return (size_t) (uintptr_t) key * 2654435761u;
}

static int
s_compare (const void *a, const void *b)
{
    return (uintptr_t) a < (uintptr_t) b ? -1 : (uintptr_t) a > (uintptr_t) b;
}

void
hearth_intkeys_setup (zhashx_t *table)
{
    zhashx_set_key_hasher (table, s_hash);
    zhashx_set_key_comparator (table, s_compare);
    zhashx_set_key_duplicator (table, NULL);
    zhashx_set_key_destructor (table, NULL);
}

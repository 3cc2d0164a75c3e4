/*  wnames.h - short names of workers, for people: a worker id made by the
    worker itself, worker-20261201093000-node1-4242, reads as "node1" when
    no other known worker could read so, else as "node1-4242" (its host
    and pid), else in full; an id an operator chose (--id) is shown as it
    is.  A short name is never one another known worker could be shown
    as: each worker's candidates (host, host-pid, the id) are counted over
    every known worker, and a worker shows its first candidate no other
    worker has.  Adding a worker can lengthen the names of others (a
    second worker on node1 makes both node1-PID).

    hearth-tail (events and --state) and hearth-admin use it; the set only
    grows.  Ownership: the set copies what it is given; names it returns
    are borrowed, valid until the next hearth_wnames_add.
*/
#ifndef HEARTH_LIBCORE_WNAMES_H
#define HEARTH_LIBCORE_WNAMES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hearth_wnames hearth_wnames_t;

/* An empty set, or NULL on no memory. */
hearth_wnames_t *hearth_wnames_new (void);

/* Free it; accepts NULL and a NULL *self_p; nulls *self_p; keeps errno. */
void hearth_wnames_destroy (hearth_wnames_t **self_p);

/* Know worker id (copied).  Returns 1 when it is new, 0 when it was
   known, -1 when out of memory. */
int hearth_wnames_add (hearth_wnames_t *self, const char *id);

/* The name to show for id: its short name when id is known, else id
   itself (borrowed either way). */
const char *hearth_wnames_short (hearth_wnames_t *self, const char *id);

/* The known worker that name (a short name or an id) stands for, or NULL
   when none does (borrowed). */
const char *hearth_wnames_resolve (hearth_wnames_t *self, const char *name);

#endif

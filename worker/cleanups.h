/*  cleanups.h - directories under a root waiting to be removed once their
    retention has passed (an ended application's executor directories, an
    ended cluster-mode driver's directory).  Entries are kept in the order
    they were added, which is their due order: the retention is the same
    for all of one list. */
#ifndef HEARTH_WORKER_CLEANUPS_H
#define HEARTH_WORKER_CLEANUPS_H

#include <stdint.h>

typedef struct cleanups cleanups_t;

/* A new, empty list for directories under root.  NULL on no memory. */
cleanups_t *cleanups_new (const char *root);

/* Destroy; accepts NULL; nulls the pointer.  Removes nothing. */
void cleanups_destroy (cleanups_t **self_p);

/* Remove ROOT/name at due_ms; a name already waiting keeps its time. */
void cleanups_add (cleanups_t *self, const char *name, int64_t due_ms);

/* Forget name: its directory stays. */
void cleanups_cancel (cleanups_t *self, const char *name);

/* The name of the first directory due at now_ms, or NULL. */
const char *cleanups_due (cleanups_t *self, int64_t now_ms);

/* Remove the first directory (what cleanups_due named) with everything
   in it, and forget it. */
void cleanups_remove_first (cleanups_t *self);

#endif

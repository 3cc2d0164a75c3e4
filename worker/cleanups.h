/*  cleanups.h - directories under a root waiting to be removed once their
    time has come (an ended application's executor directories, an ended
    cluster-mode driver's directory).  Entries are kept in due order (of
    two due at the same time, the first added first); the list is the
    children table's (children.h). */
#ifndef HEARTH_WORKER_CLEANUPS_H
#define HEARTH_WORKER_CLEANUPS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cleanups cleanups_t;

/* Whether the directory name is still in use (not to be removed yet). */
typedef bool (cleanups_busy_fn) (void *arg, const char *name);

/* A new, empty list for directories under root (copied).  NULL on no
   memory. */
cleanups_t *cleanups_new (const char *root);

/* Destroy; accepts NULL and a NULL *self_p; nulls the pointer; keeps
   errno.  Removes nothing. */
void cleanups_destroy (cleanups_t **self_p);

/* Remove ROOT/name at due_ms; a name already waiting keeps its time. */
void cleanups_add (cleanups_t *self, const char *name, int64_t due_ms);

/* Forget name: its directory stays. */
void cleanups_cancel (cleanups_t *self, const char *name);

/* Remove the first directory due at now_ms that busy (called with arg)
   does not say is in use, with everything in it, and forget it.  At
   most one a call: the caller's tick bounds the work. */
void cleanups_remove_due (cleanups_t *self, int64_t now_ms,
                          cleanups_busy_fn *busy, void *arg);

#endif

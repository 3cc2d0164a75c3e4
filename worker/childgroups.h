/*  childgroups.h - the cgroups of the children table's children: one per
    child, made with its limits before it starts (its memory plus the
    worker's overhead, its cores, the pids limit), and ended at its reap:
    what is left in it killed, the group removed at once or, while killed
    processes are still leaving it, at a later tick.

    The table (children.h) owns one childgroups_t and, while a child
    lives, its cgroup_t; at the reap it hands the group back here
    (childgroups_end), which owns it until it is gone.  Nothing here
    reads a clock.
*/
#ifndef HEARTH_WORKER_CHILDGROUPS_H
#define HEARTH_WORKER_CHILDGROUPS_H

#include <stdint.h>

#include "libcore/error.h"
#include "worker/cgroup.h"

typedef struct childgroups childgroups_t;

/* Settings (borrowed by childgroups_new, which copies them). */
typedef struct {
    cgroups_t *cgroups;      /* the worker's tree (borrowed: must outlive
                                the set) */
    int overhead_percent;    /* a limit: the memory plus this % of it... */
    int64_t overhead_min_mb; /* ...or plus this, whichever is more */
    int64_t pids_max;        /* processes per group, 0: any */
} childgroups_config_t;

/* A new set, or NULL on no memory. */
childgroups_t *childgroups_new (const childgroups_config_t *config);

/* Kill what is left in the groups still leaving, wait for them (2 s at
   most), remove them, free the set.  Accepts NULL and a NULL *self_p;
   nulls it; keeps errno. */
void childgroups_destroy (childgroups_t **self_p);

/* The memory limit for memory_mb of a child's own, bytes. */
int64_t childgroups_memory_limit (const childgroups_t *self, int64_t memory_mb);

/* A group NAME for a child (what: "executor", for errors) with its
   limits; an earlier child's group of that name still leaving is waited
   for (a driver's relaunch).  The caller owns it until childgroups_end.
   NULL with err. */
cgroup_t *childgroups_create (childgroups_t *self, const char *name,
                              const char *what, int cores, int64_t memory_mb,
                              hearth_error_t *err);

/* A child's group at its end: kill what is left in it and remove it, now
   or at a later tick; takes *group_p over and nulls it.  Accepts a NULL
   *group_p. */
void childgroups_end (childgroups_t *self, cgroup_t **group_p);

/* Periodic work: remove the ended groups that are empty now. */
void childgroups_tick (childgroups_t *self);

#endif

/*  cluster.h - what hearth-master does to the cluster: run the allocator
    over the registry and launch what it decides (executors on workers,
    cluster-mode drivers through drivers.h), heartbeat every live peer,
    and observe the registry: each change becomes its event on the PUB
    socket and the messages drivers and workers must get (EXECUTOR_ADDED,
    EXECUTOR_UPDATED, APPLICATION_REMOVED). */
#ifndef HEARTH_MASTER_CLUSTER_H
#define HEARTH_MASTER_CLUSTER_H

#include "master/master.h"
#include "master/registry.h"

/* Run the allocator over the registry and launch what it decides.  Does
   nothing while RECOVERING (m->dirty stays set). */
void master_schedule (master_t *m);

/* Send HEARTBEAT {status} to every live worker and driver. */
void master_broadcast_heartbeat (master_t *m);

/* The registry's observer (registry_set_observer, arg the master):
   publishes change->event (taken: the field is NULL afterwards), tells
   drivers and workers, marks the master dirty when resources moved. */
void master_on_change (void *arg, registry_change_t *change);

#endif

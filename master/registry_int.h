/*  registry_int.h - the registry's insides, shared by registry.c (every
    change), regdrivers.c (cluster-mode drivers) and restore.c (rebuilding
    the records from the journal).
    Nothing else includes it: the rest of the master uses registry.h. */
#ifndef HEARTH_MASTER_REGISTRY_INT_H
#define HEARTH_MASTER_REGISTRY_INT_H

#include <czmq.h>

#include "libcore/liveness.h"
#include "master/registry.h"

struct registry {
    zhashx_t *workers;      /* id -> reg_worker_t * (owned) */
    zlistx_t *worker_order; /* reg_worker_t *, registration order */
    zlistx_t *dead;         /* reg_worker_t *, DEAD, in order of death */
    zhashx_t *apps;         /* id -> reg_app_t *, active and completed */
    zlistx_t *active;       /* reg_app_t *, WAITING/RUNNING, FIFO (owns) */
    zlistx_t *completed;    /* reg_app_t *, oldest first (owns) */
    size_t retained_apps;   /* completed applications kept */
    zhashx_t *peers;        /* routing id hex -> s_peer_ref_t * (owned) */
    zhashx_t *orphans;      /* unknown app id -> int * next exec id (owned) */
    hearth_liveness_t *worker_live; /* silent workers */
    hearth_liveness_t *app_live;    /* silent drivers */
    unsigned next_app_seq;          /* counter in app ids */
    registry_observer_fn *observer; /* told of every change */
    void *observer_arg;             /* passed to observer */
    registry_record_fn *journal;    /* told what to journal, or NULL */
    void *journal_arg;              /* passed to journal */

    /* Cluster-mode drivers. */
    zhashx_t *drivers;        /* id -> reg_driver_t *, active and completed */
    zlistx_t *drivers_active; /* reg_driver_t *, not ended, FIFO (owns) */
    zlistx_t *drivers_completed; /* reg_driver_t *, oldest first (owns) */
    unsigned next_driver_seq;    /* counter in driver ids */
};

/* registry.c's helpers, for restore.c and regdrivers.c. */
reg_worker_t *registry__worker_new (registry_t *self,
                                    const registry_worker_desc_t *desc);
int registry__app_fill (reg_app_t *app, const registry_app_desc_t *desc);
void registry__app_free (reg_app_t **app_p);
int registry__set_str (char **field, const char *value);
/* Journal a change, then tell the observer; the event is consumed. */
void registry__notify (registry_t *self, registry_change_t *change);
/* Journal that a record of this type ("worker-", "app-", "driver-") is
   forgotten. */
void registry__record_forget (registry_t *self, const char *type,
                              const char *id);
/* A new event object {event, time_ms}, or NULL on no memory. */
cJSON *registry__event (const char *what);

/* regdrivers.c's, for registry.c and restore.c. */
int registry__driver_fill (reg_driver_t *d, const registry_driver_desc_t *desc);
void registry__driver_free (reg_driver_t **d_p);
void registry__driver_complete (registry_t *self, reg_driver_t *d);
/* The drivers placed on w, which died at dead_ms: relaunched when
   supervised, else ended. */
void registry__drivers_worker_dead (registry_t *self, reg_worker_t *w,
                                    int64_t dead_ms);

#endif

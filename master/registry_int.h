/*  registry_int.h - the registry's insides, shared by the files that
    implement registry.h: registry.c (the store), regworkers.c,
    regapps.c, regdrivers.c, reglive.c, regstopping.c and restore.c.  Nothing
   else includes it: the rest of the master uses registry.h. */
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

/* registry.c's, for the other files of the registry. */
/* Free a worker or an application record (not unlinked from anything);
   accept a NULL *p and set it to NULL. */
void registry__worker_destroy (reg_worker_t **w_p);
void registry__app_destroy (reg_app_t **app_p);
/* Index rid (borrowed; NULL: nothing) as record's; unindex it if it is
   still record's. */
void registry__peer_set (registry_t *self, zframe_t *rid, peer_kind_t kind,
                         void *record);
void registry__peer_unset (registry_t *self, zframe_t *rid, void *record);
/* Replace *field by a copy of value (NULL: none); -1 on no memory. */
int registry__set_str (char **field, const char *value);
/* Whether a record's waiting (code, why) differs from (new_code,
   new_why); a NULL new_why means none, whatever its code. */
bool registry__waiting_changed (const char *code, const char *why,
                                const char *new_code, const char *new_why);
/* Hand a record (consumed; NULL: nothing) to the journal. */
void registry__record (registry_t *self, cJSON *record, bool sync);
/* Journal a change, then tell the observer; the event is consumed. */
void registry__notify (registry_t *self, registry_change_t *change);
/* Journal that a record of this type ("worker-", "app-", "driver-") is
   forgotten. */
void registry__record_forget (registry_t *self, const char *type,
                              const char *id);
/* A new event object {event, time_ms}, or NULL on no memory. */
cJSON *registry__event (const char *what);

/* regworkers.c's, for restore.c: a new worker record from desc, indexed,
   in registration order; NULL on no memory. */
reg_worker_t *registry__worker_new (registry_t *self,
                                    const registry_worker_desc_t *desc);

/* regapps.c's, for restore.c: copy desc into a new app; -1 on no
   memory. */
int registry__app_fill (reg_app_t *app, const registry_app_desc_t *desc);

/* reglive.c's: watch a worker or an application for silence from now_ms
   on (a sign of life if it is watched already), or stop watching it. */
void registry__watch_worker (registry_t *self, reg_worker_t *w, int64_t now_ms);
void registry__unwatch_worker (registry_t *self, reg_worker_t *w);
void registry__watch_app (registry_t *self, reg_app_t *app, int64_t now_ms);
void registry__unwatch_app (registry_t *self, reg_app_t *app);

/* regstopping.c's: the "APP/EXEC" key of the stopping executor holding
   w's address addr of name, or NULL.  It iterates w->stopping: not
   while the caller does. */
const char *registry__stopping_holder (const reg_worker_t *w, const char *name,
                                       const char *addr);
/* regstopping.c's: the executor (about to end, not by its worker's
   report) goes on counting on its worker until the worker reports its
   end; -1 on no memory (then it does not).  Forget every one of w's
   (its cores free), as when it dies. */
int registry__stopping_add (reg_worker_t *w, const reg_exec_t *exec,
                            int64_t now_ms);
void registry__stopping_clear (reg_worker_t *w);
/* The same as registry__stopping_add for an executor given back by its
   driver (registry_exec_release): it runs nothing, so its cores and
   memory are not counted while it stops; its addresses are. */
int registry__stopping_add_released (reg_worker_t *w, const reg_exec_t *exec,
                                     int64_t now_ms);

/* regdrivers.c's, for registry.c and restore.c. */
int registry__driver_fill (reg_driver_t *d, const registry_driver_desc_t *desc);
void registry__driver_destroy (reg_driver_t **d_p);
void registry__driver_complete (registry_t *self, reg_driver_t *d);
/* The drivers placed on w, which died at dead_ms: relaunched when
   supervised, else ended. */
void registry__drivers_worker_dead (registry_t *self, reg_worker_t *w,
                                    int64_t dead_ms);

#endif

/*  registry_int.h - the registry's insides, shared by the files that
    implement registry.h: registry.c (the store), regworkers.c,
    regapps.c, regdrivers.c, reglive.c, regstopping.c and restore.c, and
    their writable view of the records.  Nothing else includes it (the
    registry's white-box unit tests, tests/unit/test_reg*.c, aside): the
    rest of the master uses registry.h, and reads the records only
    (regrecords.h; tests/style/test-registry-writes.sh). */
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
    size_t outputs_max;          /* outputs one application's table may hold (0:
                                    OUTPUTS_MAX) */
};

/* The registry's own, writable view of a record (registry.h hands out
   only read-only ones: reg_worker_t is a const struct reg_worker).  Every
   record is the registry's, allocated by it and never a const object, so
   that its functions, given a record's view, write to it through these;
   no file outside the registry includes this header. */
static inline struct reg_worker *
registry__worker_rw (reg_worker_t *w)
{
    return (struct reg_worker *) w;
}

static inline struct reg_app *
registry__app_rw (reg_app_t *app)
{
    return (struct reg_app *) app;
}

static inline struct reg_exec *
registry__exec_rw (reg_exec_t *exec)
{
    return (struct reg_exec *) exec;
}

static inline struct reg_driver *
registry__driver_rw (reg_driver_t *d)
{
    return (struct reg_driver *) d;
}

/* registry.c's, for the other files of the registry. */
/* Free a worker or an application record (not unlinked from anything);
   accept a NULL *p and set it to NULL. */
void registry__worker_destroy (struct reg_worker **w_p);
void registry__app_destroy (struct reg_app **app_p);
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
/* A clock *since (monotonic ms, 0: stopped) started at now_ms when on
   and stopped, stopped when not on; returns *since. */
int64_t registry__clock (int64_t *since, bool on, int64_t now_ms);
/* A new event object {event, time_ms}, or NULL on no memory. */
cJSON *registry__event (const char *what);
/* regapps.c's: an `app` event `what` with the application's view, or
   NULL on no memory. */
cJSON *registry__app_event (reg_app_t *app, const char *what);

/* regworkers.c's, for restore.c: a new worker record from desc, indexed,
   in registration order; NULL on no memory. */
struct reg_worker *registry__worker_new (registry_t *self,
                                         const registry_worker_desc_t *desc);

/* registry.c's: drop the oldest completed applications beyond the
   limit, never a RELAUNCHING one (it waits for its driver), journaling
   each as forgotten when journal is true. */
void registry__completed_trim (registry_t *self, bool journal);
/* regresume.c's, for registry_dump: app's outputs table as "outs"
   records (none when it has no table). */
void registry__outputs_dump (struct reg_app *app, registry_record_fn *fn,
                             void *arg);

/* regapps.c's, for restore.c: copy desc into a new app; -1 on no
   memory. */
int registry__app_fill (struct reg_app *app, const registry_app_desc_t *desc);

/* reglive.c's: watch a worker or an application for silence from now_ms
   on (a sign of life if it is watched already), or stop watching it. */
void registry__watch_worker (registry_t *self, struct reg_worker *w,
                             int64_t now_ms);
void registry__unwatch_worker (registry_t *self, struct reg_worker *w);
void registry__watch_app (registry_t *self, struct reg_app *app,
                          int64_t now_ms);
void registry__unwatch_app (registry_t *self, struct reg_app *app);

/* regstopping.c's: the "APP/EXEC" key of the stopping executor holding
   w's address addr of name, or NULL.  It iterates w->stopping: not
   while the caller does. */
const char *registry__stopping_holder (reg_worker_t *w, const char *name,
                                       const char *addr);
/* regstopping.c's: the executor (about to end, not by its worker's
   report) goes on counting on its worker until the worker reports its
   end; -1 on no memory (then it does not).  Forget every one of w's
   (its cores free), as when it dies. */
int registry__stopping_add (struct reg_worker *w, reg_exec_t *exec,
                            int64_t now_ms);
void registry__stopping_clear (struct reg_worker *w);
/* The same as registry__stopping_add for an executor given back by its
   driver (registry_exec_release): it runs nothing, so its cores and
   memory are not counted while it stops; its addresses are. */
int registry__stopping_add_released (struct reg_worker *w, reg_exec_t *exec,
                                     int64_t now_ms);

/* regdrivers.c's, for registry.c and restore.c. */
int registry__driver_fill (struct reg_driver *d,
                           const registry_driver_desc_t *desc);
void registry__driver_destroy (struct reg_driver **d_p);
void registry__driver_complete (registry_t *self, struct reg_driver *d);
/* The drivers placed on w, which died at dead_ms: relaunched when
   supervised, else ended. */
void registry__drivers_worker_dead (registry_t *self, struct reg_worker *w,
                                    int64_t dead_ms);

#endif

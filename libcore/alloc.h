/*  alloc.h - the master's allocator: which worker runs which driver, and
    how many executors of how many cores each application gets where.

    It is Spark standalone's Master.schedule() and
    scheduleExecutorsOnWorkers(), kept step for step so that its behaviour
    can be checked case by case (DESIGN §5, docs/cluster.md):

    1. Drivers first, in FIFO order: round-robin over the shuffled alive
       workers, the position carried from one driver to the next; a driver
       goes to the first worker with enough free cores and memory.
    2. Applications in FIFO order.  An application with fewer cores left
       than one executor needs is skipped.  Usable workers: alive, enough
       free memory and cores for one executor, ordered by free cores, most
       first (ties keep the input order).
    3. Cores are handed out cores_per_executor at a time (1 when unset);
       spread-out moves to the next usable worker after each grant,
       consolidate keeps granting on one worker while it can.  With
       cores_per_executor unset, a worker gets one executor holding all the
       cores assigned to it there.  A grant needs the cores, and, for a new
       executor, the memory.  The total is capped by the application's
       cores left and the cluster's free cores.

    4. Per-key caps (hearth-master --max-cores-per-key): a driver or an
       application may name a group, the cores one key's drivers and
       applications hold together and may hold at most.  A driver that
       does not fit under its group's cap is skipped; an application's
       cores left are cut to what its group has left, and it is skipped
       when that is less than one executor.  What this pass grants counts
       for the drivers and applications after it.  The result says which
       of them their cap held back (apps_capped, drivers_capped).

    5. Custom resources (GPUs...; libcore/resources.h): a worker offers
       free addresses by name, an application asks for an amount of some
       names per executor.  A worker is usable for an application only
       when its free addresses cover one executor, and each new executor
       takes its amounts there (with cores_per_executor unset, the one
       executor per worker takes them once).  Which addresses is the
       caller's choice: the allocator counts.  An application that asks
       for none is placed as before.

    6. Executor targets (dynamic allocation, docs/cluster.md): an
       application may set how many executors it wants in all; it then
       gets new executors only while it has fewer (executors_left, the
       target less those it has, live or launching).  With
       cores_per_executor set its cores left are cut to executors_left x
       cores_per_executor; unset (one executor per worker), at most
       executors_left workers get anything, each one executor.  The cut
       comes before the key's cap (4), which still holds, and is in both
       spread-out and consolidate.  An application without a target
       (has_target false) is placed as before.

    7. Worker labels (issue 37): an application may be placed only on
       some workers (on_workers, one flag per input worker: those
       carrying the labels its executors ask for, --executor-label); the
       others are not usable for it.  NULL: every worker.

    8. Places (issue 37, dynamic allocation): an application may prefer
       some workers (prefer_workers, one flag per input worker: those its
       waiting tasks would rather run on, REQUEST_EXECUTORS places); its
       usable workers are then walked preferred first, each part in the
       order of rule 2, so its new executors go there while they have
       room.  NULL: no preference.

    The function is pure: the input is borrowed and not changed, the
    result is written into a hearth_alloc_result_t that the caller clears.
    Resources taken by one step are not available to the next (a driver's
    cores are gone for the applications after it).
*/
#ifndef HEARTH_ALLOC_H
#define HEARTH_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An application's cores left when it set no max_cores. */
#define HEARTH_ALLOC_UNLIMITED INT32_MAX

/* One key's cap: the cores its drivers and applications hold together. */
typedef struct {
    int cores_limit; /* cores they may hold in all */
    int cores_used;  /* cores they hold before this pass */
} hearth_alloc_group_t;

/* A count of one custom resource: a worker's free addresses of name, or
   what one executor of an application needs of it. */
typedef struct {
    const char *name; /* the resource's name (borrowed) */
    int count;        /* addresses */
} hearth_alloc_resource_t;

/* A worker as the allocator sees it. */
typedef struct {
    bool alive;             /* only ALIVE workers get anything */
    int cores_free;         /* cores not yet used */
    int64_t memory_free_mb; /* memory not yet used, MiB */
    const hearth_alloc_resource_t *resources; /* free addresses by name
                                                 (borrowed), or NULL */
    size_t nresources;                        /* entries in resources */
} hearth_alloc_worker_t;

/* A driver waiting for a worker (cluster mode). */
typedef struct {
    int cores;                         /* cores it needs */
    int64_t memory_mb;                 /* memory it needs, MiB */
    const hearth_alloc_group_t *group; /* its key's cap (an entry of the
                                          input's groups), or NULL */
} hearth_alloc_driver_t;

/* An application waiting for cores. */
typedef struct {
    int cores_left;                    /* max_cores - cores granted, or
                                          HEARTH_ALLOC_UNLIMITED */
    int cores_per_executor;            /* 0: unset (one executor per worker) */
    int64_t memory_per_executor_mb;    /* memory of each executor, MiB */
    const hearth_alloc_group_t *group; /* its key's cap (an entry of the
                                          input's groups), or NULL */
    const hearth_alloc_resource_t *resources; /* per executor (borrowed),
                                                 or NULL */
    size_t nresources;                        /* entries in resources */
    bool has_target;        /* it set an executor target (rule 6) */
    int executors_left;     /* with has_target: new executors it may get (the
                               target less those it has; <= 0: none) */
    const bool *on_workers; /* rule 7: one per input worker, whether it may
                               be placed there (borrowed), or NULL: all */
    const bool *prefer_workers; /* rule 8: one per input worker, whether
                                   it is preferred (borrowed), or NULL */
} hearth_alloc_app_t;

/* The shuffle's random source: a number in [0, bound).  NULL: no shuffle
   (workers in input order), which is what tests want. */
typedef unsigned (*hearth_alloc_rand_fn) (void *arg, unsigned bound);

typedef struct {
    const hearth_alloc_worker_t *workers; /* all workers (borrowed) */
    size_t nworkers;                      /* entries in workers */
    const hearth_alloc_driver_t *drivers; /* waiting drivers, FIFO */
    size_t ndrivers;                      /* entries in drivers */
    const hearth_alloc_app_t *apps;       /* waiting apps, FIFO */
    size_t napps;                         /* entries in apps */
    const hearth_alloc_group_t *groups;   /* per-key caps (borrowed) */
    size_t ngroups;                       /* entries in groups */
    bool spread_out;                      /* false: consolidate */
    hearth_alloc_rand_fn rand;            /* shuffle source, or NULL */
    void *rand_arg;                       /* passed to rand */
} hearth_alloc_input_t;

/* One driver placed on a worker. */
typedef struct {
    size_t driver; /* index in input drivers */
    size_t worker; /* index in input workers */
} hearth_alloc_driver_launch_t;

/* One executor to start, in the order they should be launched. */
typedef struct {
    size_t app;        /* index in input apps */
    size_t worker;     /* index in input workers */
    int cores;         /* cores of this executor */
    int64_t memory_mb; /* memory of this executor, MiB */
} hearth_alloc_executor_t;

typedef struct {
    hearth_alloc_driver_launch_t *drivers; /* owned; ndrivers entries */
    size_t ndrivers;                       /* drivers placed */
    hearth_alloc_executor_t *executors;    /* owned; nexecutors entries */
    size_t nexecutors;                     /* executors to start */
    size_t executors_alloc;                /* allocated slots */
    bool *apps_capped;    /* owned, one per input app, or NULL without
                             groups: its group's cap held it back (it got
                             fewer cores than it wanted and there were) */
    bool *drivers_capped; /* owned, one per input driver, or NULL without
                             groups: its group's cap kept it waiting */
} hearth_alloc_result_t;

/* Run one scheduling pass.  result must be zeroed or cleared; it receives
   the placements.  Returns 0, or -1 with errno ENOMEM (result cleared). */
int hearth_alloc_schedule (const hearth_alloc_input_t *in,
                           hearth_alloc_result_t *result);

/* The cores Spark's scheduleExecutorsOnWorkers() assigns to each usable
   worker for one application: usable[] are indices into workers (in
   usable-worker order), assigned[] receives the cores per usable worker.
   Exposed for tests and for the docs' worked example. */
void hearth_alloc_assign_cores (const hearth_alloc_app_t *app,
                                const hearth_alloc_worker_t *workers,
                                const size_t *usable, size_t nusable,
                                bool spread_out, int *assigned);

/* Whether a pass can give app a core at all: its cores left are at least
   one executor's and its target (rule 6) allows one more.  The pass skips
   the others; the master need not look at its workers for them. */
bool hearth_alloc_app_wants (const hearth_alloc_app_t *app);

/* How many more executors of app the free resources of w allow:
   INT32_MAX when app asks for none (exposed for tests). */
int hearth_alloc_resource_room (const hearth_alloc_app_t *app,
                                const hearth_alloc_worker_t *w);

/* Free what the result owns and zero it. */
void hearth_alloc_result_clear (hearth_alloc_result_t *result);

#endif

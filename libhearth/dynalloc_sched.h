/*  dynalloc_sched.h - dynamic allocation's decisions as pure logic (no
    I/O, no clock of its own): Spark's ExecutorAllocationManager, step for
    step where it can be (docs/cluster.md "Dynamic allocation").

    The driver feeds it, on every tick, what its tasks want and what it
    holds; it answers with the executor target to ask the master for, and
    says which idle executors to give back.

    - Raising: once tasks have waited for a core longer than
      backlog_timeout_ms, the target goes up by 1, then by 2, 4, ... each
      sustained_timeout_ms while they still wait, never beyond what the
      runnable tasks need (ceil (unfinished / cores per executor)) nor
      max_executors.  When nothing waits, the step goes back to 1.
    - Lowering: when the target is above what the tasks need, it goes
      down to that at once (not below min_executors); that kills nothing.
      Until the first task is seen the target stays at initial_executors.
    - Removing: an executor idle (no attempt on it) for idle_timeout_ms is
      given back while the executors left stay at least max (target,
      min_executors), and never while waiting tasks are at least the cores
      held.  One removed and needed again is asked for again (the target
      goes up), not waited on.

    The struct is the caller's; everything is in it. */
#ifndef HEARTH_LIBHEARTH_DYNALLOC_SCHED_H
#define HEARTH_LIBHEARTH_DYNALLOC_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The settings (driver options of the same names). */
typedef struct {
    int min_executors;            /* never fewer (after the start) */
    int max_executors;            /* never more: INT32_MAX unbounded */
    int initial_executors;        /* the first target */
    int64_t backlog_timeout_ms;   /* tasks wait this long: first raise */
    int64_t sustained_timeout_ms; /* between raises while they still wait */
    int64_t idle_timeout_ms;      /* an executor idle this long may go */
} dynalloc_opts_t;

/* What the driver's tasks want and what it holds, now. */
typedef struct {
    uint64_t waiting;       /* runnable tasks not executing on a core */
    uint64_t unfinished;    /* runnable tasks not finished */
    int cores_per_executor; /* tasks one executor runs at once (>= 1) */
    int executors;          /* executors it has, launching ones included */
    int cores_held;         /* cores of its registered executors */
} dynalloc_load_t;

typedef struct {
    dynalloc_opts_t opts; /* the settings */
    int target;           /* executors to ask the master for */
    int to_add;           /* the next raise: 1, 2, 4 ... */
    int64_t add_ms;       /* when the next raise is due, or -1: nothing
                             waits */
    bool initializing;    /* no task seen yet: the target stays initial */
} dynalloc_sched_t;

/* Check opts (min <= initial <= max, timeouts > 0): 0, or -1 with why in
   buf (size bytes). */
int dynalloc_opts_check (const dynalloc_opts_t *opts, char *buf, size_t size);

/* Start with the target at opts->initial_executors. */
void dynalloc_sched_init (dynalloc_sched_t *self, const dynalloc_opts_t *opts);

/* The executors the tasks need (ceil (unfinished / cores per executor)),
   within min and max. */
int dynalloc_sched_needed (const dynalloc_sched_t *self,
                           const dynalloc_load_t *load);

/* Update the target for load at now_ms; returns it (the caller asks the
   master when it changed). */
int dynalloc_sched_update (dynalloc_sched_t *self, const dynalloc_load_t *load,
                           int64_t now_ms);

/* How many of the idle executors (idle for idle_timeout_ms or longer) may
   go now: at most nidle, leaving at least max (target, min) executors,
   and none while waiting tasks are at least the cores held. */
size_t dynalloc_sched_removable (const dynalloc_sched_t *self,
                                 const dynalloc_load_t *load, size_t nidle);

#endif

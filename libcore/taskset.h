/*  taskset.h - the driver's task-set bookkeeping, as pure logic.

    Stages (task sets) of jobs, executors with task slots, and the attempts
    in flight between them.  The driver's engine feeds it events (a stage
    submitted, an executor registered or lost, a status update) and asks it
    what to launch where (hearth_taskset_offer); it answers with assignments
    and with events for the engine (a stage finished, a job failed, an
    attempt to kill).  No I/O, no clock of its own: every call that needs
    the time takes now_us, so tests drive it with a fake clock.  The board
    owns all its records; nothing it returns needs freeing (the parts of
    its implementation: taskset_int.h).

    Rules (DESIGN §4, §6):
    - A stage runs when every stage it depends on has finished.
    - Offers go to stages in FIFO order (by job, then stage), or FAIR: the
      pool with the fewest running tasks per unit of weight first.
    - An executor holds up to cores x (1 + prefetch) attempts, prefetch
      growing as tasks get shorter (see hearth_taskset_slots), so that a
      core never waits a round trip for its next task.
    - A failed attempt is re-queued, on another executor where one exists,
      and on an executor of another host while one exists (the host may
      be what failed it: a full disk), until max_failures attempts have
      failed; then its job fails.  An
      attempt lost with its executor is re-queued without counting as a
      failure, up to max_lost times.  A failure that a retry cannot change
      (HEARTH_TS_FAILED_PERMANENT) fails the job at once.
    - The first attempt of a task to finish wins: later results are
      duplicates and other running attempts are killed.
    - With speculation, once quantile of a stage has finished, an attempt
      running longer than multiplier x the median gets a copy elsewhere.
    - Lost map outputs (a shuffle, issue 21): a finished task whose output
      is gone is resubmitted (hearth_taskset_resubmit), which makes its
      stage not done again and holds back the stages that read it; an
      attempt that could not fetch its input ends FETCH_FAILED and waits,
      uncounted, for its parents; one reading an output lost since it was
      launched is killed and waits likewise (taskset_lost.c).
    - Custom resources (GPUs...; issue 15, taskset_res.c): an attempt of a
      stage whose tasks need some is offered only to an executor with
      that many of each free (no prefetch beyond them), within its slots,
      and holds them until it ends, however (finished, failed, killed,
      lost); tasks that need none fill the slots as before.
    - Locality (issue 37, taskset_place.c): a task may prefer places
      (hosts, workers, labels); an executor is offered first the tasks
      that prefer a place it is on, then those that prefer nothing, then,
      once the stage has waited locality_wait at each level, those that
      prefer a host of its rack, then any (delay scheduling, Spark's
      TaskSetManager, with its idle cores avoided: see hearth_locality_t).
*/
#ifndef HEARTH_TASKSET_H
#define HEARTH_TASKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/resources.h"

typedef struct hearth_taskset hearth_taskset_t;

typedef struct {
    bool fair;                  /* FAIR pools instead of FIFO */
    int max_failures;           /* failed attempts before the job fails */
    int max_lost;               /* lost attempts before the job fails */
    int prefetch_max;           /* cap of extra attempts per core */
    int64_t prefetch_target_us; /* queued work per core to aim for */
    bool speculation;           /* launch copies of stragglers */
    double spec_multiplier;     /* straggler: run time > this x median */
    double spec_quantile;       /* of the stage finished before copies */
    int64_t spec_min_us;        /* never speculate below this run time */
    int64_t locality_wait_us;   /* wait at each locality level (0: none) */
} hearth_taskset_opts_t;

/* Defaults: FIFO, 4 failures, 8 losses, prefetch up to 128 aiming at 5 ms
   per core, no speculation (1.5 x median after 75%, at least 100 ms), a
   locality wait of 3 s. */
void hearth_taskset_opts_default (hearth_taskset_opts_t *opts);

/* A new, empty task set board, for the caller to destroy; opts (NULL:
   the defaults) is copied.  NULL on no memory. */
hearth_taskset_t *hearth_taskset_new (const hearth_taskset_opts_t *opts);

/* Free the board and everything on it (events not taken are lost).
   Accepts NULL and a NULL *self_p; nulls *self_p; keeps errno. */
void hearth_taskset_destroy (hearth_taskset_t **self_p);

/* Add a stage of ntasks tasks (> 0) with id stage (unique, < 2^21) in job
   job.  parents (nparents ids of stages added before) must finish first.
   pool/weight matter in FAIR mode (pool NULL: "default", weight >= 1).
   parents and pool are borrowed (copied).
   Returns 0, or -1 with errno EINVAL (bad id, unknown parent) or ENOMEM. */
int hearth_taskset_add_stage (hearth_taskset_t *self, uint32_t stage,
                              uint64_t job, uint64_t ntasks,
                              const uint32_t *parents, size_t nparents,
                              const char *pool, int weight);

/* An executor with cores cores is ready, on host (borrowed: copied; NULL:
   not told, never avoided as a host).  Returns 0, or -1 with errno EEXIST
   (it exists, or cores < 1) or ENOMEM. */
int hearth_taskset_add_executor_on (hearth_taskset_t *self, int exec_id,
                                    int cores, const char *host);
/* The same, on no host told. */
int hearth_taskset_add_executor (hearth_taskset_t *self, int exec_id,
                                 int cores);

/* The executor is gone: every attempt on it is re-queued (or its job
   failed when a task is lost too often).  Returns the number of attempts
   re-queued, or -1 if it was unknown. */
int hearth_taskset_remove_executor (hearth_taskset_t *self, int exec_id);

/* The custom resources executor exec_id holds (amounts by name; have is
   copied).  Set once, after it was added and before its first offer.
   Returns 0, or -1 with errno ENOENT (no such executor) or ENOMEM. */
int
hearth_taskset_set_executor_resources (hearth_taskset_t *self, int exec_id,
                                       const hearth_resource_amounts_t *have);
/* What each task of stage needs (need is copied), before its first
   offer.  Returns 0, or -1 with errno EINVAL (no such stage) or ENOMEM. */
int hearth_taskset_set_stage_resources (hearth_taskset_t *self, uint32_t stage,
                                        const hearth_resource_amounts_t *need);
/* How much of name executor exec_id has free now (not held by its
   attempts); -1 for an unknown executor. */
int hearth_taskset_resource_free (const hearth_taskset_t *self, int exec_id,
                                  const char *name);

/* How close to what it prefers an attempt runs (Spark's TaskLocality;
   NO_PREF first, so that an assignment made with zeroes has it; then the
   levels a stage waits through, best first).  A stage's offers start at NODE;
   NO_PREF tasks go at any level, and so do tasks whose every preferred place
   has no executor now nor one coming (none to wait for); RACK is allowed once
   the stage has launched nothing at NODE for locality_wait, ANY once nothing at
   RACK for as long (straight from NODE when no executor told its rack); a
   launch at a level brings the stage back to it, and restarts its wait. */
typedef enum {
    HEARTH_LOC_NO_PREF = 0, /* it prefers no place an executor is on */
    HEARTH_LOC_PROCESS,     /* on the executor holding its input in
                               memory (a preferred place "executor:N": a
                               persisted stage's reader); waited for as
                               NODE */
    HEARTH_LOC_NODE,        /* on a place it prefers */
    HEARTH_LOC_RACK,        /* on the rack of a host it prefers */
    HEARTH_LOC_ANY,         /* elsewhere */
} hearth_locality_t;

/* The places executor exec_id is on besides its host (each borrowed:
   copied): its worker ("worker:ID") and labels ("KEY=VALUE"), and its
   rack (the value of its worker's `rack` label; NULL: none), which makes
   its host part of that rack.  Before its first offer.  Returns 0, or -1
   with errno ENOENT (no such executor) or ENOMEM. */
int hearth_taskset_set_executor_places (hearth_taskset_t *self, int exec_id,
                                        const char *const *places, size_t n,
                                        const char *rack);

/* Every task of stage may run only on an executor on all the n places
   named (each borrowed; "KEY=VALUE" labels, a host or "worker:ID"): a
   hard constraint, where a preference is soft.  Before the stage's first
   offer.  Returns 0, or -1 with errno EINVAL (an unknown stage, or
   offered already) or ENOMEM. */
int hearth_taskset_require (hearth_taskset_t *self, uint32_t stage,
                            const char *const *places, size_t n);
/* Whether some executor now meets stage's requirement (true for a stage
   without one, false for an unknown stage). */
bool hearth_taskset_requirement_met (const hearth_taskset_t *self,
                                     uint32_t stage);

/* An executor is coming on host (may be NULL) and the n other places
   named (its worker "worker:ID", its labels): granted, not registered
   yet (coming), or no longer (it registered, or will not; the same
   places as when it was said to come).  A place with one coming is
   awaited as one with an executor: the tasks preferring it wait
   (locality_wait at most) rather than go at once to the first executor
   up.  Returns 0, or -1 with errno ENOMEM. */
int hearth_taskset_expect (hearth_taskset_t *self, const char *host,
                           const char *const *places, size_t n, bool coming);

/* Task index of stage prefers the n places named (each borrowed): a
   host as executors are added on, "worker:ID" or "KEY=VALUE"; called
   any number of times before the stage's first offer.  Returns 0, or -1
   with errno EINVAL (an unknown stage, index out of range, the stage
   offered already) or ENOMEM. */
int hearth_taskset_prefer (hearth_taskset_t *self, uint32_t stage,
                           uint64_t index, const char *const *places, size_t n);

/* What the engine should launch. */
typedef struct {
    uint32_t stage;   /* stage id */
    uint64_t index;   /* task index within the stage */
    int attempt;      /* attempt number (0 first) */
    bool speculative; /* a copy of a straggler */
    uint8_t locality; /* hearth_locality_t: NO_PREF for a task of a
                         stage without preferences, a retry or a copy */
} hearth_assign_t;

/* An attempt dropped with its executor: offered at start_us; requeued
   false when it was being killed anyway (or its stage is gone). */
typedef void (hearth_ts_dropped_fn) (void *arg, const hearth_assign_t *a,
                                     int64_t start_us, bool requeued);
/* hearth_taskset_remove_executor, telling fn (when not NULL) of each
   attempt dropped, before it is re-queued. */
int hearth_taskset_remove_executor_each (hearth_taskset_t *self, int exec_id,
                                         hearth_ts_dropped_fn *fn, void *arg);

/* The same for an executor ended by what its attempts did (killed for
   memory, OOM_KILLED): each attempt re-queued counts as a failure of its
   task (toward max_failures, the executor's host avoided), not a loss;
   a task that gives up fails its job with JOB_FAILED's with_executor
   set. */
int hearth_taskset_remove_executor_failed (hearth_taskset_t *self, int exec_id,
                                           hearth_ts_dropped_fn *fn, void *arg);

/* Fill out (up to max entries, the caller's) with attempts for exec_id's
   free slots; they count as in flight from now_us.  Returns how many. */
size_t hearth_taskset_offer (hearth_taskset_t *self, int exec_id,
                             int64_t now_us, hearth_assign_t *out, size_t max);

/* Offer nothing more to executor exec_id, for good (it is being
   decommissioned or released): its free slots are 0 from now on; the
   attempts it holds go on and end as usual (the caller kills or moves
   them if it must).  Returns 0, or -1 with errno ENOENT. */
int hearth_taskset_retire_executor (hearth_taskset_t *self, int exec_id);
/* The attempts executor exec_id holds now (running or queued there), -1
   for an unknown one: 0 means it is idle. */
int64_t hearth_taskset_executor_attempts (const hearth_taskset_t *self,
                                          int exec_id);

/* What the stages that can run now (their parents done, not done nor
   failed themselves) still want (taskset_demand.c, for dynamic
   allocation): *unfinished their tasks not finished, *waiting those of
   them not executing on a core (pending, or queued behind an executor's
   cores by prefetch).  Stages waiting for their parents do not count. */
void hearth_taskset_demand (const hearth_taskset_t *self, uint64_t *waiting,
                            uint64_t *unfinished);
/* The places (hosts, "worker:ID", "KEY=VALUE") the never-launched
   tasks of the stages that can run now prefer, each with how many of
   them prefer it, the most wanted first, at most max of them, into
   names (borrowed from the task set: valid until it next learns a
   place) and counts (taskset_demand.c, for dynamic allocation: new
   executors asked for there, as Spark's host-to-local-task counts).
   Returns how many. */
size_t hearth_taskset_place_demand (const hearth_taskset_t *self,
                                    const char **names, uint64_t *counts,
                                    size_t max);
/* Free slots of an executor now (0 for an unknown one). */
size_t hearth_taskset_free_slots (const hearth_taskset_t *self, int exec_id);

/* The attempts an executor may hold: cores x (1 + prefetch), prefetch from
   the mean run time seen so far. */
size_t hearth_taskset_slots (const hearth_taskset_t *self, int cores);

typedef enum {
    HEARTH_TS_RUNNING,  /* the attempt is running */
    HEARTH_TS_FINISHED, /* it succeeded */
    HEARTH_TS_FAILED,   /* it failed (counts toward max_failures) */
    HEARTH_TS_KILLED,   /* it was killed (by us, or its executor stopping) */
    HEARTH_TS_FAILED_PERMANENT, /* it failed, and any retry would: the
                                   task gives up (and its job fails) now */
    HEARTH_TS_FETCH_FAILED,     /* it could not fetch a parent's output: not
                                   counted; see hearth_taskset_update */
    HEARTH_TS_LOST, /* it never reached its executor (its launch could not
                       be sent): re-queued as one lost with its executor,
                       toward max_lost, not max_failures */
} hearth_ts_state_t;

typedef enum {
    HEARTH_TS_STALE,      /* not an attempt in flight there: ignore it */
    HEARTH_TS_NOTED,      /* a RUNNING update, noted */
    HEARTH_TS_ACCEPT,     /* the task's first success: keep its result */
    HEARTH_TS_DUPLICATE,  /* the task had already succeeded: drop it */
    HEARTH_TS_RETRY,      /* failed or killed, re-queued */
    HEARTH_TS_GAVE_UP,    /* failed too often: the job has failed */
    HEARTH_TS_RELEASED,   /* killed on purpose (by us): slot freed */
    HEARTH_TS_FETCH_WAIT, /* FETCH_FAILED, re-queued without counting: it
                             waits for its stage's parents */
} hearth_ts_outcome_t;

/* A status update for attempt of task index of stage, from exec_id.

   FETCH_FAILED (the attempt could not read a parent stage's output): the
   attempt is over and its slot freed; its task goes back to pending
   without counting toward max_failures or max_lost (outcome FETCH_WAIT;
   RELEASED instead when the task had already finished or the attempt was
   being killed), and it runs again only once every parent of its stage
   is done.  Resubmit the lost parent tasks (hearth_taskset_resubmit)
   before the next offer: a stage whose parents are all done is runnable,
   so a task that failed to fetch from a parent still done runs again at
   once (its output may have been re-made since the attempt started).
   Other attempts of the task (speculative copies) go on.  Every
   FETCH_FAILED of a stage whose job has not failed counts toward
   hearth_taskset_fetch_failures.

   LOST (the driver could not send the attempt's launch): as an attempt
   of a lost executor, re-queued without counting toward max_failures,
   toward max_lost (outcome RETRY, GAVE_UP past it with JOB_FAILED's lost
   set), its retry offered elsewhere while another executor exists. */
hearth_ts_outcome_t hearth_taskset_update (hearth_taskset_t *self, int exec_id,
                                           uint32_t stage, uint64_t index,
                                           int attempt, hearth_ts_state_t state,
                                           int64_t run_us, int64_t now_us);

/* hearth_taskset_update, telling also (locality: not NULL) the level
   the attempt was offered at (hearth_locality_t; untouched for a STALE
   one). */
hearth_ts_outcome_t
hearth_taskset_update_at (hearth_taskset_t *self, int exec_id, uint32_t stage,
                          uint64_t index, int attempt, hearth_ts_state_t state,
                          int64_t run_us, int64_t now_us, uint8_t *locality);

/* Look for stragglers (speculation on); copies go to the queues.  Returns
   how many were found. */
size_t hearth_taskset_speculate (hearth_taskset_t *self, int64_t now_us);

/* The output of the finished task index of stage is lost (a map output
   whose worker is gone): the task goes back to pending, to be offered
   again as a retry.  If its stage was done it no longer is (its counts
   say so), and every stage that depends on it gets no new offer (nor
   speculative copy) until it is done again; attempts already running
   there go on, and their FINISHED is accepted as usual.  STAGE_DONE fires
   again when the stage completes again; JOB_DONE fires once every stage
   of the job is done, once per job.
   Returns 0 (also when the task is pending or running: nothing to do),
   or -1 with errno EINVAL (an unknown stage, index >= its tasks),
   ECANCELED (its job has failed), EALREADY (every stage of its job is
   done: JOB_DONE has fired, and nothing will read the output) or ENOMEM
   (nothing changed). */
int hearth_taskset_resubmit (hearth_taskset_t *self, uint32_t stage,
                             uint64_t index);

/* Add a stage whose tasks ran before it was added (a persisted stage
   read again by a later job): as hearth_taskset_add_stage, but task i is
   finished from the start when held[i] (its output is still there), and
   pending otherwise, to run again once the stage's parents are done, as
   a lost output's task is; task i's attempts are numbered from
   first_attempt[i] (so that a new attempt never takes the number of an
   output kept).  A stage whose tasks are all held is done from the
   start, without a STAGE_DONE: a stage added after it counts it done.
   Its tasks are never speculated (the held ones' run times are unknown).
   Returns 0, or -1 with errno as hearth_taskset_add_stage. */
int hearth_taskset_add_stage_held (hearth_taskset_t *self, uint32_t stage,
                                   uint64_t job, uint64_t ntasks,
                                   const uint32_t *parents, size_t nparents,
                                   const char *pool, int weight,
                                   const bool *held,
                                   const uint16_t *first_attempt);

/* Says whether task index of a stage reads a lost map output. */
typedef bool (hearth_ts_needs_fn) (void *arg, uint64_t index);

/* Attempts of stage that cannot succeed: they read map outputs lost
   after they were launched (a worker gone; the driver has resubmitted
   the map tasks), and would only wait on the worker before they failed
   to fetch.  Every attempt of it in flight (executing or queued on an
   executor), not being killed already, whose task needs(arg, index)
   says reads a lost output, is asked to be killed (a KILL event) and no
   longer counts as its task's; the task goes back to pending (unless
   another attempt of it runs on) and runs again once every parent of
   its stage is done, counted neither toward max_failures nor max_lost,
   as after FETCH_FAILED.  Such an attempt's end, when heard, is
   RELEASED; a FINISHED that raced the kill is accepted, once.  When one
   was killed, a round of fetch failures opens for the stage (they are
   its fetch failures, told early: hearth_taskset_fetch_failures).
   Returns how many were killed, or -1 with errno EINVAL (an unknown
   stage). */
int hearth_taskset_refetch (hearth_taskset_t *self, uint32_t stage,
                            hearth_ts_needs_fn *needs, void *arg);

/* Consecutive rounds of fetch failures of stage, or -1 (errno EINVAL) for
   an unknown stage.  A round opens with the first FETCH_FAILED update of
   one of its attempts while no round is open, and closes when a parent
   stage of it becomes done (again); the count grows by one per round
   opened, and goes back to 0 when one of its tasks finishes (an accepted
   FINISHED).  So n FETCH_FAILEDs before the lost map tasks are done again
   are one round; the driver abandons the stage at 4.  A round stays open
   while no parent is re-done: a task re-offered at once (its parents all
   done) that fails to fetch again adds nothing. */
int hearth_taskset_fetch_failures (const hearth_taskset_t *self,
                                   uint32_t stage);

/* Fail a job from outside (e.g. the application was killed): its stages
   are dropped and KILL events queued for its attempts in flight. */
void hearth_taskset_fail_job (hearth_taskset_t *self, uint64_t job);

/* Drop a finished or failed job's stages (frees their memory). */
void hearth_taskset_forget_job (hearth_taskset_t *self, uint64_t job);

typedef enum {
    HEARTH_TS_EV_STAGE_DONE, /* every task of stage succeeded */
    HEARTH_TS_EV_JOB_DONE,   /* every stage of job succeeded */
    HEARTH_TS_EV_JOB_FAILED, /* job failed: stage/index/attempt say which */
    HEARTH_TS_EV_KILL,       /* kill attempt of stage/index on exec_id */
} hearth_ts_event_type_t;

typedef struct {
    hearth_ts_event_type_t type; /* what happened */
    uint64_t job;                /* the job concerned */
    uint32_t stage;              /* the stage concerned */
    uint64_t index;              /* the task (JOB_FAILED, KILL) */
    int attempt;        /* the attempt (JOB_FAILED: the last one, KILL) */
    int exec_id;        /* where (KILL) */
    bool lost;          /* JOB_FAILED because of losses, not failures */
    bool with_executor; /* JOB_FAILED: the last failure was an executor
                           killed (hearth_taskset_remove_executor_failed) */
} hearth_ts_event_t;

/* Take the next pending event (the oldest), copied into the caller's ev.
   Returns true and fills ev, or false when none is pending. */
bool hearth_taskset_next_event (hearth_taskset_t *self, hearth_ts_event_t *ev);

/* Stage's tasks write an output that each commits with the driver's
   leave (hearth_taskset_may_commit), before its first offer.  Returns 0,
   or -1 with errno EINVAL (no such stage) or ENOMEM. */
int hearth_taskset_set_stage_commits (hearth_taskset_t *self, uint32_t stage);

/* Output commit, as Spark's output commit coordinator does it: may
   attempt of task index of stage, in flight on exec_id, commit its
   output?  True for the first attempt to ask while the task is not done
   and no attempt allowed before is still in flight (one allowed and then
   lost, failed or killed frees the task for the next); it is
   remembered.  Otherwise false, and the attempt is marked as being
   killed without a kill event (the answer tells its executor): its
   KILLED end frees its slot and re-queues nothing.  False also, and
   nothing marked, for an attempt not in flight there, of a failed job,
   or of a stage with nothing to commit (not set_stage_commits). */
bool hearth_taskset_may_commit (hearth_taskset_t *self, int exec_id,
                                uint32_t stage, uint64_t index, int attempt);

/* Counts for a stage: tasks finished, attempts running, total tasks.
   Running counts, on each executor, the oldest of the attempts sent to
   it, at most as many as its cores (it runs them in the order sent; the
   rest wait in its queue, prefetched), including those asked to be
   killed whose end is not heard yet.  Attempts on an executor the task
   set still has (its loss not yet told) count.
   Returns 0, or -1 for an unknown stage. */
int hearth_taskset_stage_counts (const hearth_taskset_t *self, uint32_t stage,
                                 uint64_t *finished, uint64_t *running,
                                 uint64_t *total);

/* Attempts in flight everywhere. */
size_t hearth_taskset_inflight (const hearth_taskset_t *self);

#endif

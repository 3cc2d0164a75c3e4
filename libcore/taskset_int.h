/*  taskset_int.h - what the parts of the task set share; private to them.

    taskset.h is the task set's one public face.  Its implementation is
    split by concept, each part a .c file that includes this header:

      taskset.c         the records (stages, executors, attempts, jobs),
                        their life cycle, and status updates
      taskset_offer.c   offers: the slots of an executor, FIFO and FAIR
      taskset_spec.c    speculation: finding stragglers to copy
      taskset_queue.c   the queues: a stage's tasks to run again, and the
                        events for the engine (kills, with their re-runs)
      taskset_lost.c    lost map outputs (resubmits) and fetch failures
      taskset_res.c     custom resources: what executors have, what a
                        stage's tasks need, what attempts hold
      taskset_place.c   locality: the places executors are on, the places
                        tasks prefer, and the levels offers go by

    The parts call each other's functions only where the call is not per
    task (a push on a retry, an event); the small helpers that offers and
    status updates use for every task are static inline here, so that
    splitting the file added no call on the hot path (about a million
    offers and updates a second).

    Memory: 8 bytes per task (ts_task_t), plus one ts_attempt_t per
    attempt in flight (bounded by the executors' slots), so a stage of a
    million tasks costs a few megabytes.
*/
#ifndef HEARTH_TASKSET_INT_H
#define HEARTH_TASKSET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/intkeys.h"
#include "libcore/resources.h"
#include "libcore/taskset.h"

/* Entries of a retry queue looked at to find one for an executor. */
#define TS_LOOKAHEAD 64

/* A task's state (ts_task_t.state). */
enum { TASK_PENDING = 0, TASK_RUNNING = 1, TASK_DONE = 2 };

typedef struct {
    uint8_t state;         /* TASK_PENDING, TASK_RUNNING or TASK_DONE */
    uint8_t running;       /* attempts in flight, not being killed */
    uint8_t failures;      /* attempts that failed */
    uint8_t lost;          /* attempts lost with their executor */
    uint16_t next_attempt; /* number of the next attempt */
    uint8_t speculated;    /* a copy was queued */
    uint8_t spare;         /* padding to 8 bytes */
} ts_task_t;

/* Where a queued task should not run again, if it can run elsewhere. */
typedef struct {
    int exec; /* the executor it last ran on, or -1 */
    int host; /* the host it last failed on (index in places), or -1 */
} ts_avoid_t;

/* The tasks of a stage that prefer one place, in index order; head: the
   first that may still be fresh (never launched).  taskset_place.c. */
typedef struct {
    uint64_t *index; /* task indices */
    size_t n;        /* entries */
    size_t head;     /* entries before it are launched */
} ts_plist_t;

/* A (task, place) pair as hearth_taskset_prefer gave it. */
typedef struct {
    uint64_t index; /* the task */
    int place;      /* a place it prefers (index in places) */
} ts_pref_t;

/* The preferences of a stage's tasks and where its offers stand
   (taskset_place.c); a stage whose tasks prefer nothing has none. */
typedef struct {
    ts_pref_t *given;     /* as given, until the first offer */
    size_t ngiven;        /* entries */
    size_t given_alloc;   /* allocated */
    bool built;           /* the lists below are made (first offer) */
    uint32_t *first;      /* ntasks + 1: task i's places are
                             place[first[i]] ... place[first[i + 1] - 1] */
    int *place;           /* those places */
    ts_plist_t *lists;    /* by place index (nlists: places then) */
    size_t nlists;        /* entries */
    uint64_t nopref_next; /* tasks before it that prefer nothing are
                             launched */
    uint64_t any_next;    /* tasks before it are launched */
    uint64_t fresh_left;  /* tasks never launched */
    int level;            /* the worst level offers may use now:
                             HEARTH_LOC_NODE, _RACK or _ANY */
    int64_t level_us;     /* when it was reached, or a task last launched
                             at it */
    bool declined;        /* an executor has gone without a task because
                             of the wait: launches no longer renew it
                             (taskset_place.c) */
} ts_prefs_t;

/* A queue of tasks to re-run, each avoiding the executor it last ran on
   and the host it last failed on.  Zero-initialised when empty;
   taskset_queue.c grows it. */
typedef struct {
    uint64_t *index;   /* task indices */
    ts_avoid_t *avoid; /* where each should not run */
    size_t head;       /* first live entry */
    size_t tail;       /* one past the last */
    size_t alloc;      /* allocated entries */
} ts_queue_t;

typedef struct {
    uint32_t id;           /* stage id */
    uint64_t job;          /* job it belongs to */
    uint64_t ntasks;       /* tasks in the stage */
    ts_task_t *tasks;      /* ntasks entries */
    uint64_t next_fresh;   /* tasks from here on never launched */
    ts_queue_t retry;      /* failed or lost tasks to run again */
    ts_queue_t spec;       /* stragglers to copy */
    uint64_t finished;     /* tasks done */
    uint64_t running;      /* attempts in flight */
    uint64_t executing;    /* of them among the cores of their executor
                              (ts_attempt_t.executing) */
    uint32_t *parents;     /* stages that must finish first */
    size_t nparents;       /* count */
    size_t parents_left;   /* of them not finished yet */
    bool done;             /* every task finished */
    bool failed;           /* its job failed */
    char *pool;            /* FAIR pool */
    int weight;            /* FAIR weight */
    int64_t *durations;    /* run times of finished tasks (speculation) */
    int16_t *committer;    /* per task, the attempt allowed to commit its
                              output, or -1; NULL: the stage commits
                              nothing (hearth_taskset_set_stage_commits) */
    uint32_t fetch_rounds; /* consecutive rounds of fetch failures */
    bool fetch_round_open; /* a round is open: no parent re-done since */
    hearth_resource_amounts_t need; /* custom resources per task (owned;
                                       empty: none) */
    ts_prefs_t *prefs; /* its tasks' preferred places, or NULL: none */
    int *require;      /* places an executor must be on, all of them
                          (hearth_taskset_require), or NULL */
    size_t nrequire;   /* entries */
    bool offered;      /* offered once: its constraints are fixed */
} ts_stage_t;

/* Identity of an attempt: the hash key. */
typedef struct {
    uint32_t stage;  /* stage id */
    int32_t attempt; /* attempt number */
    uint64_t index;  /* task index within the stage */
} ts_akey_t;

typedef struct ts_attempt ts_attempt_t;
struct ts_attempt {
    ts_akey_t key;      /* stage, index, attempt */
    int exec_id;        /* where it runs */
    int64_t start_us;   /* when it was offered */
    bool speculative;   /* a copy */
    bool killing;       /* we asked for it to be killed */
    bool executing;     /* one of the oldest `cores` attempts on its
                           executor, which runs them in the order sent
                           (the rest wait in its queue) */
    bool holds;         /* counts its stage's resources held on its
                           executor until it ends */
    uint8_t locality;   /* the level it was offered at (hearth_locality_t) */
    ts_attempt_t *prev; /* the executor's list */
    ts_attempt_t *next; /* likewise */
};

typedef struct {
    int id;             /* executor id */
    int cores;          /* task slots without prefetch */
    int host;           /* index of its host in places, or -1: not told */
    int *places;        /* the other places it is on (its worker, its
                           labels), or NULL */
    size_t nplaces;     /* entries */
    int rack;           /* the place of its rack ("rack=NAME"), or -1 */
    size_t inflight;    /* attempts on it */
    ts_attempt_t *head; /* them, the newest first */
    int executing;      /* of them executing: min(cores, inflight) */
    ts_attempt_t *edge; /* the newest executing one, or NULL: the list is
                           queued ones from head to edge's prev, then the
                           executing ones from edge to the end */
    hearth_resource_amounts_t have; /* its custom resources (owned) */
    int *used;    /* have.n counts held by its attempts, or NULL: none */
    bool retired; /* offered nothing more (decommissioned, or being
                     released): hearth_taskset_retire_executor */
} ts_exec_t;

struct hearth_taskset {
    hearth_taskset_opts_t opts; /* rules */
    ts_stage_t **stages;        /* in id order (= submission order) */
    size_t nstages;             /* stages used */
    size_t stages_alloc;        /* stages allocated */
    zhashx_t *attempts;         /* ts_akey_t -> ts_attempt_t in flight */
    zhashx_t *execs;            /* exec id -> ts_exec_t */
    hearth_ts_event_t *events;  /* FIFO of events for the engine */
    size_t ev_head;             /* first pending event */
    size_t ev_tail;             /* one past the last */
    size_t ev_alloc;            /* events allocated */
    int64_t mean_run_us;        /* EWMA of attempt run times, 0: none yet */
    uint64_t cores;             /* of every executor: attempts that run */
    /* Places (taskset_place.c): every host an executor was on, and
       every worker ("worker:ID") and label ("KEY=VALUE") an executor was
       on or a task preferred; never forgotten (they are few). */
    char **places;        /* their names (owned) */
    size_t *place_execs;  /* executors on each now */
    size_t *place_coming; /* executors coming to each (granted, not yet
                             registered: hearth_taskset_expect) */
    int *place_rack;      /* a host's rack (a place index), or -1 */
    size_t nplaces;       /* entries of the three */
    bool racks;           /* some executor told its rack */
};

/* ---- taskset_queue.c ---------------------------------------------------- */

/* Append index, to avoid what avoid says.  Returns 0, or -1 when out of
   memory (the entry is lost). */
int ts_queue_push (ts_queue_t *q, uint64_t index, ts_avoid_t avoid);

/* Free the queue's entries; it is empty again. */
void ts_queue_release (ts_queue_t *q);

/* Queue a copy of ev for the engine (lost, not the board, when out of
   memory). */
void ts_event_push (hearth_taskset_t *self, const hearth_ts_event_t *ev);

/* Ask for attempt a of task index of st to be killed (a KILL event).  It
   stops counting as its task's attempt now (not when its end is heard):
   a task whose output is lost again (hearth_taskset_resubmit) must not
   wait for it. */
void ts_kill (hearth_taskset_t *self, ts_stage_t *st, ts_attempt_t *a);

/* ts_kill, and its task back to the retry queue, to avoid what avoid
   says, unless it is done, its job failed or another attempt of it runs
   on: a move, counted neither as a failure nor as a loss.  The end of
   the attempt, when heard, is released (a FINISHED that raced the kill
   is accepted, and the queued run dropped). */
void ts_kill_requeue (hearth_taskset_t *self, ts_stage_t *st, ts_attempt_t *a,
                      ts_avoid_t avoid);

/* ---- taskset_lost.c ----------------------------------------------------- */

/* An attempt of task index of st (killing: we had asked for it to be
   killed) ended FETCH_FAILED; it is already off the board.  Returns the
   outcome for hearth_taskset_update. */
hearth_ts_outcome_t ts_fetch_failed (hearth_taskset_t *self, ts_stage_t *st,
                                     uint64_t index, bool killing);

/* ---- taskset_place.c ---------------------------------------------------- */

/* The index of the place of that name, added if new; -1 on no memory. */
int ts_place_index (hearth_taskset_t *self, const char *name);
/* Executor e is on its places now (on: it came) or no longer (it left). */
void ts_place_count (hearth_taskset_t *self, const ts_exec_t *e, bool on);
/* The next fresh task of st (its tasks prefer places) for e at now_us,
   by the levels of taskset.h; its level in *level.  Returns true and
   sets *index. */
bool ts_place_pick (hearth_taskset_t *self, ts_stage_t *st, const ts_exec_t *e,
                    int64_t now_us, uint64_t *index, uint8_t *level);
/* The level at which task t of st runs on e, whichever way it was
   picked (a retry or a speculative copy goes at once): NODE when e is on
   one of its places, RACK when in the rack of one, NO_PREF when it
   prefers nothing or no executor is on its places or coming to them (as
   a fresh one would be reported), else ANY. */
uint8_t ts_place_level (const hearth_taskset_t *self, const ts_stage_t *st,
                        const ts_exec_t *e, uint64_t t);
/* Whether e is on every place st requires. */
bool ts_place_meets (const ts_exec_t *e, const ts_stage_t *st);
/* Free what a stage or an executor owns of locality; the places. */
void ts_place_stage_free (ts_stage_t *st);
void ts_place_exec_free (ts_exec_t *e);
void ts_place_free (hearth_taskset_t *self);

/* ---- taskset_res.c ------------------------------------------------------ */

/* Whether e can take an attempt of st now: st needs no resources, or e
   has enough of each free (no prefetch for such attempts: none is sent
   to wait there for addresses). */
bool ts_res_fits (const ts_exec_t *e, const ts_stage_t *st);
/* Attempt a of st on e holds st's resources until ts_res_release. */
void ts_res_hold (ts_exec_t *e, const ts_stage_t *st, ts_attempt_t *a);
void ts_res_release (ts_exec_t *e, const ts_stage_t *st, ts_attempt_t *a);
/* Free what an executor or a stage owns of resources. */
void ts_res_exec_free (ts_exec_t *e);
void ts_res_stage_free (ts_stage_t *st);

/* ---- inline helpers, used per task -------------------------------------- */

static inline size_t
ts_queue_size (const ts_queue_t *q)
{
    return q->tail - q->head;
}

/* Take the first of the first TS_LOOKAHEAD entries usable by executor
   exec_id on host host: one not avoiding that executor unless alone (it
   is the only one), nor that host unless elsewhere is false (no executor
   on another host).  Returns true and sets *index. */
static inline bool
ts_queue_take (ts_queue_t *q, int exec_id, bool alone, int host, bool elsewhere,
               uint64_t *index)
{
    size_t end =
        q->head + TS_LOOKAHEAD < q->tail ? q->head + TS_LOOKAHEAD : q->tail;
    for (size_t i = q->head; i < end; i++) {
        if (q->avoid[i].exec == exec_id && !alone)
            continue;
        if (host >= 0 && q->avoid[i].host == host && elsewhere)
            continue;
        *index = q->index[i];
        q->index[i] = q->index[q->head]; /* keep the rest, fill the hole */
        q->avoid[i] = q->avoid[q->head];
        q->head++;
        return true;
    }
    return false;
}

/* Whether some executor runs on another host than host (-1: not told). */
static inline bool
ts_elsewhere (const hearth_taskset_t *self, int host)
{
    return host >= 0 && zhashx_size (self->execs) > self->place_execs[host];
}

/* The executor of that id (borrowed), or NULL. */
static inline ts_exec_t *
ts_exec (const hearth_taskset_t *self, int id)
{
    return zhashx_lookup (self->execs, hearth_intkey (id));
}

/* The stage of that id (borrowed), or NULL: a binary search, the stages
   being in id order. */
static inline ts_stage_t *
ts_stage (const hearth_taskset_t *self, uint32_t id)
{
    size_t lo = 0, hi = self->nstages;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint32_t mid_id = self->stages[mid]->id;
        if (mid_id == id)
            return self->stages[mid];
        if (mid_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Not finished, not failed, and every parent finished. */
static inline bool
ts_stage_runnable (const ts_stage_t *st)
{
    return !st->done && !st->failed && st->parents_left == 0;
}

#endif

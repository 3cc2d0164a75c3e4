/*  timeline.h - an application's event timeline as inline SVG: the
    executors (added, removed, with the reason) and the task attempts
    over time, one lane per executor core, coloured by stage and by
    outcome, with the stages' boundaries (Spark's event timeline, Dask's
    task stream).  A pure renderer: arrays in, SVG text out
    (docs/history.md, "Timeline").

    Lanes: the attempts are taken in order of their start (then end, then
    their place in the array); each goes to the lowest-numbered lane of
    its executor that is free at its start (the lane's last attempt ended
    at or before it), else to the lane freed first when it was freed
    within tl->slack_us after that start (times a little late: the
    attempt is then drawn from that lane's end).  An executor has one lane per
   core; an attempt that finds none free (a log whose times disagree with its
   cores) gets a new lane of that executor, so lanes never overlap.

    Bounds: at most HEARTH_TL_MAX_TASKS attempts (the last ones of the
    array, which the caller orders by end), HEARTH_TL_MAX_LANES lanes and
    HEARTH_TL_MAX_STAGES stages are drawn; what is left out is said in a
    note inside the SVG, with the caller's own cut (tl->cut).  Names,
    hosts and reasons are user data: escaped (as the pages' text,
    webpage_int.h) and cut to HEARTH_TL_MAX_TEXT bytes.

    Everything here borrows what it is given.
*/
#ifndef HEARTH_LIBCORE_TIMELINE_H
#define HEARTH_LIBCORE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Most attempts, lanes, stages drawn; bytes of a name, host or reason. */
#define HEARTH_TL_MAX_TASKS 5000
#define HEARTH_TL_MAX_LANES 512
#define HEARTH_TL_MAX_STAGES 200
#define HEARTH_TL_MAX_TEXT 160

/* What became of an attempt, as its colour says. */
typedef enum {
    HEARTH_TL_OK = 0, /* finished, its result taken: the stage's colour */
    HEARTH_TL_FAILED, /* failed: its own colour, whatever the stage */
    HEARTH_TL_KILLED, /* killed (a speculation's loser, its job over) */
    HEARTH_TL_LOST,   /* its executor went first */
    HEARTH_TL_UNUSED, /* finished but not taken (a duplicate, fetch_wait) */
} hearth_tl_outcome_t;

typedef struct {
    int64_t exec_id;             /* the executor it ran on */
    int64_t start_us, end_us;    /* sent, ended (wall clock, µs) */
    int64_t stage;               /* its stage's id */
    int64_t index, attempt;      /* which attempt (for its title) */
    hearth_tl_outcome_t outcome; /* its colour */
} hearth_tl_task_t;

typedef struct {
    int64_t id;         /* executor id */
    int64_t cores;      /* its lanes (0 or less: 1) */
    int64_t added_us;   /* executor_added's time, -1: unknown */
    int64_t removed_us; /* executor_removed's time, -1: not removed */
    const char *host;   /* its host, or NULL */
    const char *reason; /* why it was removed, or NULL */
} hearth_tl_exec_t;

typedef struct {
    int64_t id;        /* stage id */
    const char *name;  /* its name, or NULL */
    int64_t start_us;  /* stage_start's time, -1: unknown */
    int64_t end_us;    /* stage_end's time, -1: not ended */
    const char *state; /* stage_end's state, or NULL */
} hearth_tl_stage_t;

typedef struct {
    const hearth_tl_task_t *tasks;   /* attempts, in order of their end */
    size_t ntasks;                   /* entries */
    size_t cut;                      /* earlier attempts the caller left out */
    const hearth_tl_exec_t *execs;   /* executors, in order of id */
    size_t nexecs;                   /* entries */
    const hearth_tl_stage_t *stages; /* stages, in order of id */
    size_t nstages;                  /* entries */
    int64_t origin_us;               /* the axis's zero: the app's start */
    int64_t end_us;                  /* the app's end (or now), -1: the
                                        last attempt's end */
    int64_t slack_us;                /* how far times may be off (0) */
} hearth_tl_t;

/* Assign the lanes (above): lane[i] is task i's lane within its
   executor, or -1 when it is not drawn (beyond HEARTH_TL_MAX_TASKS from
   the end, on an executor not in execs, or past HEARTH_TL_MAX_LANES
   lanes of one executor).  lane has tl->ntasks entries; lanes (tl->nexecs
   entries, or NULL) gets each executor's lane count: its cores (1 to
   HEARTH_TL_MAX_LANES), more when attempts needed more; from (tl->ntasks
   entries, or NULL) each attempt's drawn start (its start, or later
   within the slack).  0, or -1 when out of memory. */
int hearth_timeline_lanes (const hearth_tl_t *tl, int *lane, int *lanes,
                           int64_t *from);

/* The index of executor id in tl->execs (in order of id), or -1. */
long hearth_timeline_exec (const hearth_tl_t *tl, int64_t id);

/* A task's end, never before its start. */
int64_t hearth_timeline_end (const hearth_tl_task_t *t);

/* Write the timeline as one <svg> element (fit for an HTML page's
   body) to out; an application without attempts or executors is a
   short SVG that says so.  0, or -1 when out of memory. */
int hearth_timeline_svg (const hearth_tl_t *tl, FILE *out);

#endif

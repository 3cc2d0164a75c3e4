/*  work_int.h - the engine's work, inside: its state, shared by work.c
    (the running jobs and the task set's events) and worksubmit.c (a
    job's stages entering the task set).  Nothing else includes it.
*/
#ifndef HEARTH_LIBHEARTH_WORK_INT_H
#define HEARTH_LIBHEARTH_WORK_INT_H

#include "libhearth/eventlog.h"
#include "libhearth/fingerprint.h"
#include "libhearth/record.h"
#include "libhearth/resume.h"
#include "libhearth/shuffle.h"
#include "libhearth/tlfeed.h"
#include "libhearth/work.h"

struct work {
    hearth_taskset_t *ts;       /* what runs where */
    shuffle_servers_t *servers; /* block servers of the map outputs */
    hearth_stage_t **stages;    /* by uid; NULL once its job ended */
    size_t stages_alloc;        /* entries at stages */
    uint32_t next_uid;          /* next stage uid (from 1) */
    uint64_t next_job;          /* next job id (from 1) */
    zlistx_t *jobs;             /* hearth_job_t running (borrowed) */
    bool app_dead;              /* the application is over */
    char app_dead_reason[512];  /* why, for jobs submitted after */
    char last_failure[4800];    /* why the last job to end failed, or "" */
    char exec_failure[512];     /* why the executor whose end counts as
                                   its tasks' failure ended (set before
                                   its removal, read by its events) */
    work_cbs_t cbs;             /* the owner's callbacks */
    eventlog_t *el;             /* the event log (borrowed), or NULL */
    tlfeed_t *tl;               /* the live timeline's (borrowed), or NULL */
    work_totals_t ended;        /* what the jobs that ended did */
    uint64_t inline_left;       /* of the budget for outputs the driver
                                   keeps, not reserved (inlineout.h) */
    bool reduce_locality;       /* reducers prefer where their bytes are
                                   (the reduce-locality setting) */
    resume_t *resume;           /* an earlier driver's outputs (resume.h),
                                   or NULL: not resumed */
    record_t *record;           /* outputs told to the master (record.h),
                                   or NULL: no master */
    char files[FINGERPRINT_LEN + 1]; /* the shipped items' digest */
};

/* The events of a stage that can run (stage_start), of one that ended
   (state: SUCCEEDED, or how its job ended before it did; finished: its
   tasks that did), and stage_start for every stage of job whose parents
   are all done. */
void work_ev_stage_start (work_t *self, hearth_stage_t *st);
void work_ev_stage_end (work_t *self, hearth_stage_t *st, const char *state,
                        uint64_t finished);
void work_ev_runnable (work_t *self, hearth_job_t *job);

/* st is done: the stages reading its partitions would rather run where
   their bytes are (reduceplace.h). */
void work_place_readers (work_t *self, const hearth_stage_t *st);

/* Fail job with error, not counted as the last failure of the
   application (it never ran: the application was over already). */
void work_fail_uncounted (work_t *self, hearth_job_t *job, const char *error);

#endif

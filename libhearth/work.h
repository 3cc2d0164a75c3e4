/*  work.h - the engine's work in progress: the task set, the stages by
    uid and the running jobs.

    A submitted job's stages get their uids, result slots and a place in
    the task set here; the task set's events (a stage done, a job done or
    failed) end jobs here and build the inputs of the stages that read
    another's results.  Everything belongs to the engine thread; what the
    user reads (a job's state and progress) is published under the job's
    lock (jobs.c).
*/
#ifndef HEARTH_LIBHEARTH_WORK_H
#define HEARTH_LIBHEARTH_WORK_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/conf.h"
#include "libcore/taskset.h"
#include "libhearth/internal.h"

struct eventlog;
struct tlfeed;
struct resume;
struct record;
typedef struct work work_t;

/* What the work asks of its owner. */
typedef struct {
    /* The task set wants an attempt killed where it runs (a copy lost
       the race, or its job ended). */
    void (*kill) (void *arg, int exec_id, uint64_t tid, int attempt);
    void *arg; /* given to every callback */
} work_cbs_t;

/* A new, empty work with the scheduler settings of conf (borrowed, read
   now) and the owner's callbacks (copied).  NULL on no memory. */
work_t *work_new (hearth_conf_t *conf, const work_cbs_t *cbs);
/* Free the stage table and the task set; running jobs are not ended
   (fail them first).  Accepts NULL. */
void work_destroy (work_t **self_p);

/* Write events to el (borrowed: it outlives the work's use of it), or
   stop with NULL. */
void work_set_eventlog (work_t *self, struct eventlog *el);
/* The event log (borrowed), or NULL when there is none: launch.c and
   execs.c write theirs there. */
struct eventlog *work_eventlog (const work_t *self);
/* Record the live timeline's news into tl (borrowed: it outlives the
   work's use of it), or stop with NULL. */
void work_set_tlfeed (work_t *self, struct tlfeed *tl);

/* The application was resumed: the outputs its earlier drivers recorded
   (taken: *resume_p nulled), which the jobs submitted from now on reuse
   where their stages' fingerprints match (resume.h). */
void work_set_resume (work_t *self, struct resume **resume_p);
/* Where the outputs are told (record.h, borrowed; NULL: nowhere), and
   the digest of what the application ships (fingerprint_files), part of
   every stage's fingerprint. */
void work_set_record (work_t *self, struct record *record, const char *files);
struct record *work_record (const work_t *self);
/* Record again every output of the stages of the running jobs (record.h
   record_stage): the driver registered again with a master that may not
   have had them. */
void work_record_all (work_t *self);
/* The live timeline's feed (borrowed), or NULL when there is none (no
   master): launch.c and execs.c record there. */
struct tlfeed *work_tlfeed (const work_t *self);
/* The task set (borrowed: it lives as long as the work). */
hearth_taskset_t *work_taskset (work_t *self);
/* The block servers of the application's map outputs (borrowed: it
   lives as long as the work). */
struct shuffle_servers *work_servers (work_t *self);
/* The stage of uid (borrowed), or NULL once its job has ended. */
hearth_stage_t *work_stage (const work_t *self, uint32_t uid);
/* What the jobs that have ended did, for progress summaries. */
typedef struct {
    uint64_t jobs;      /* jobs ended, in any state */
    uint64_t tasks;     /* their tasks */
    uint64_t finished;  /* their tasks finished */
    uint64_t failed;    /* their failed attempts */
    uint64_t placed[3]; /* their attempts launched NODE_LOCAL, RACK_LOCAL,
                           ANY (hearth_stage_t's placed) */
} work_totals_t;
/* The totals (borrowed: they live as long as the work). */
const work_totals_t *work_ended_totals (const work_t *self);
/* The running jobs in submission order (borrowed), NULL after the last;
   nothing may be submitted or ended between the calls of one walk. */
hearth_job_t *work_first_job (work_t *self);
hearth_job_t *work_next_job (work_t *self);
/* Whether any job is running. */
bool work_has_jobs (const work_t *self);

/* Say, once, of each stage of a running job whose requirement
   (hearth_stage_require) no executor has met for 10 s, that its tasks
   wait for one.  Called from the engine's tick. */
void work_check_requires (work_t *self, int64_t now_ms);

/* Take a job the user submitted (borrowed until it ends: the engine then
   lets go of it and the user frees it).  A job that cannot be scheduled,
   or that comes after work_fail_all(), ends at once as failed. */
void work_submit (work_t *self, hearth_job_t *job);
/* Why an executor whose end counts as its tasks' failure ended (copied):
   "executor 3 on worker W killed: out of memory, limit 192 MiB, peak 190
   MiB".  Set before hearth_taskset_remove_executor_failed; a job failed
   by that removal's events says it. */
void work_set_exec_failure (work_t *self, const char *text);
/* End a running job as failed with error (copied). */
void work_fail_job (work_t *self, hearth_job_t *job, const char *error);
/* The same for a job its user gave up on (hearth_job_destroy of a
   running job): it does not count as the application's last failure. */
void work_cancel_job (work_t *self, hearth_job_t *job, const char *error);
/* The application is over: fail every running job, and every job
   submitted from now on, with reason (copied); not counted as the
   application's last failure either. */
void work_fail_all (work_t *self, const char *reason);
/* Why the last job to end failed ("job NAME failed: ERROR", borrowed), or
   NULL when it succeeded, or when no job ended yet (cancelled jobs and
   those ended by work_fail_all do not count). */
const char *work_last_failure (const work_t *self);
/* Publish the progress of stage uid to its job (nothing once the job has
   ended: the user may have freed it). */
void work_publish (work_t *self, uint32_t uid);
/* Write stage_start for job's stages that can run now (after lost map
   outputs made a finished stage run again). */
void work_stages_runnable (work_t *self, hearth_job_t *job);
/* The block server server is gone with its worker (why borrowed, for
   the messages): in every running job, the map outputs it held are
   dropped and their tasks run again, the reduce attempts reading them
   are killed to wait for them (shuffle_server_lost), and a job whose
   stage has lost its input too many times in a row fails.  The kills
   are events: work_process sends them. */
void work_server_lost (work_t *self, uint32_t server, const char *why);
/* Handle the task set's pending events (kills go to the owner). */
void work_process (work_t *self);

#endif

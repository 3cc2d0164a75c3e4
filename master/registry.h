/*  registry.h - what the master knows: workers, applications, executors
    and cluster-mode drivers.

    Every change to these records goes through the functions below, and
    each change is reported, as it happens, to one observer as a
    registry_change_t carrying a JSON event.  The master publishes those
    events on its PUB socket and turns executor changes into messages for
    drivers; a journal can follow the same stream and replay it, because
    nothing else changes the records.  The journal (journal.h) is that
    second subscriber: registry_set_journal() gives
    the registry a hook that receives, for every change that must survive
    a restart, the whole record of what changed (registry_dump() emits
    them all, for a snapshot), and registry_restore() rebuilds the records
    from what a replay recovered.

    The records, their fields and their read-only views are
    regrecords.h's: only the registry's files write them.

    The files: registry.c (the store, its indexes, registry__notify),
    regworkers.c (workers), regapps.c (applications and executors),
    regdrivers.c (cluster-mode drivers), reglive.c (liveness), regviews.c
    (JSON views), records.c (the journal's records), restore.c (snapshot,
    restore, recovery).  Their shared insides are registry_int.h's.

    Ownership: the registry owns every record.  Pointers handed out stay
    valid until the record is removed: a worker when it is forgotten
    (registry_worker_forget, registry_reap), an executor when it reaches a
    final state (the pointer is invalid once registry_exec_set_state
    returns), an application or a driver when it is completed and falls
    off its retained list.  Routing ids are copied in.
*/
#ifndef HEARTH_MASTER_REGISTRY_H
#define HEARTH_MASTER_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/ids.h"
#include "libcore/jsonprint.h"
#include "libcore/liveness.h"
#include "libcore/resources.h"
#include "master/regrecords.h"

/* What a change was about; event is the JSON published for it (owned by
   the observer once passed). */
typedef struct {
    const char *topic;    /* "worker", "app", "executor", "driver" */
    reg_worker_t *worker; /* the worker concerned, or NULL */
    reg_app_t *app;       /* the application concerned, or NULL */
    reg_exec_t *exec;     /* the executor concerned, or NULL */
    reg_driver_t *driver; /* the driver concerned, or NULL */
    bool worker_lost;     /* an executor LOST because its worker died */
    reg_app_t *waiting;   /* an application whose waiting reason changed
                             (registry_app_set_waiting), or NULL */
    bool reported;        /* an executor's pid or addresses as its worker
                             lists them, its state the same: nothing
                             for its driver (registry_exec_listed) */
    const char *message;  /* why, for executor changes, or NULL */
    int exit_status;      /* for executor changes; -1 when none */
    cJSON *event;         /* the event object */
} registry_change_t;

typedef void (registry_observer_fn) (void *arg, registry_change_t *change);

typedef struct registry registry_t;

/* A new, empty registry keeping at most retained_apps completed
   applications; workers and drivers silent for timeout_ms expire.  NULL
   on no memory. */
registry_t *registry_new (size_t retained_apps, int64_t timeout_ms);

/* Free the registry and every record, telling neither observer nor
   journal.  Accepts NULL and a NULL *self_p; sets *self_p to NULL; keeps
   errno. */
void registry_destroy (registry_t **self_p);

/* The one observer of changes (NULL: none). */
void registry_set_observer (registry_t *self, registry_observer_fn *fn,
                            void *arg);

/* Lookups (borrowed, NULL when unknown). */
reg_worker_t *registry_worker (registry_t *self, const char *id);
reg_app_t *registry_app (registry_t *self, const char *id);
reg_exec_t *registry_exec (registry_t *self, const char *app_id, int exec_id);

/* Workers in registration order, ALIVE and DEAD (borrowed list). */
zlistx_t *registry_workers (registry_t *self);
/* Active (WAITING or RUNNING) applications in FIFO order. */
zlistx_t *registry_apps (registry_t *self);
/* Completed applications, oldest first. */
zlistx_t *registry_completed (registry_t *self);

/* Describe to register a worker. */
typedef struct {
    const char *id, *host, *version, *work_dir; /* from REGISTER_WORKER */
    int cores;                                  /* cores offered */
    int64_t memory_mb;                          /* memory offered */
    zframe_t *routing_id;                       /* copied */
    const char *work_dir_id; /* what tells its work dir apart, or NULL */
    const hearth_resources_t *resources; /* addresses it offers (copied),
                                            or NULL */
    const char *curve_key; /* the key it speaks with (Z85, copied), or
                              NULL or "" without keys */
    const char *web_url;   /* http://HOST:PORT of its pages (copied), or
                              NULL or "" when it serves none */
    const cJSON *labels;   /* its labels (checked; copied), or NULL */
} registry_worker_desc_t;

/* Register a worker.  A record with the same id (DEAD, UNKNOWN after a
   restart, or ALIVE on an old socket) is updated in place and made ALIVE
   again, keeping its executors (the caller reconciles them with what the
   worker reports).  Returns the record or NULL on no memory. */
reg_worker_t *registry_worker_register (registry_t *self,
                                        const registry_worker_desc_t *desc,
                                        int64_t now_ms);

/* From the worker's own list (registration, heartbeat): what its
   executors that the master's books do not have use (executors of a
   previous master, or still stopping after their application ended).  It
   counts as used, so nothing is overbooked.  Returns true when that
   changed the worker's free resources. */
bool registry_worker_report (registry_t *self, reg_worker_t *w,
                             int cores_foreign, int64_t memory_foreign_mb);

/* The custom resources' addresses that w's executors beyond the
   master's books hold, as w reports them (registry_worker_report's
   executors): *foreign is taken (left empty).  Not journaled, as the
   rest of what a worker reports. */
void registry_worker_report_resources (registry_t *self, reg_worker_t *w,
                                       hearth_resources_t *foreign);

/* The bytes of map outputs w's block server holds (its HEARTBEAT):
   shown with the worker, not journaled. */
/* Of them, persisted stages' (its HEARTBEAT's persisted_bytes). */
void registry_worker_persisted_bytes (registry_t *self, reg_worker_t *w,
                                      uint64_t bytes);
void registry_worker_shuffle_bytes (registry_t *self, reg_worker_t *w,
                                    uint64_t bytes);

/* A worker lists an executor that the master's books lack (a previous
   master's): exec ids of its application, now or when it registers again
   under its id, start past it, so that no id is used twice. */
void registry_note_orphan (registry_t *self, const char *app_id, int exec_id);

/* Cores and memory in use on w, as the allocator must see them: what the
   master placed there and what the worker reports beyond that. */
static inline int
registry_worker_cores_used (reg_worker_t *w)
{
    return w->cores_used + w->cores_foreign;
}

static inline int64_t
registry_worker_memory_used (reg_worker_t *w)
{
    return w->memory_used_mb + w->memory_foreign_mb;
}

/* Whether the scheduler must leave w out (drained, or leaving). */
static inline bool
registry_worker_draining (reg_worker_t *w)
{
    return w->draining || w->decommissioning;
}

/* The state a worker is shown in: its state's name, or DECOMMISSIONING
   for an ALIVE worker that is leaving. */
static inline const char *
registry_worker_state_name (reg_worker_t *w)
{
    extern const char *const hearth_worker_states[];
    return w->state == WORKER_ALIVE && w->decommissioning
               ? "DECOMMISSIONING"
               : hearth_worker_states[w->state];
}

/* The worker went silent: DEAD, its executors LOST, and its drivers
   RELAUNCHING (supervised; placeable at once), KILLED (a kill was asked
   for) or ERROR.  dead_ms is the monotonic time, for registry_reap(). */
void registry_worker_dead (registry_t *self, reg_worker_t *w,
                           const char *reason, int64_t dead_ms);

/* Remove DEAD workers that died before cutoff_ms (monotonic), oldest
   first, at most max of them.  Returns how many were removed. */
size_t registry_reap (registry_t *self, int64_t cutoff_ms, size_t max);

/* Describe to register an application. */
typedef struct {
    const char *id; /* a re-registering driver's own id, or NULL */
    const char *name, *driver_url, *token, *driver_key, *user;
    const char *event_log;  /* its event log's directory, or NULL */
    const char *owner;      /* the key that submitted it, or NULL */
    const char *curve_key;  /* its driver's CURVE key, or NULL */
    const cJSON *conf;      /* copied, or NULL */
    int max_cores;          /* 0: unset */
    int cores_per_executor; /* 0: unset */
    int64_t memory_per_executor_mb;
    int first_exec_id; /* exec ids start here */
    const hearth_resource_amounts_t *executor_resources; /* copied, or
                                                            NULL */
    const cJSON *executor_labels; /* the labels its executors' workers
                                     must carry {KEY: VALUE} (checked;
                                     copied), or NULL: any worker */
    int64_t hold_until_ms;        /* not scheduled before (monotonic), or 0 */
    zframe_t *routing_id;         /* copied */
} registry_app_desc_t;

/* Register an application (WAITING).  Exec ids start at first_exec_id,
   or past any orphan executor of that id (registry_note_orphan).
   Returns it, or NULL (no memory, or desc->id already in use). */
reg_app_t *registry_app_register (registry_t *self,
                                  const registry_app_desc_t *desc,
                                  int64_t now_ms);

/* End an active application: kill_fn is called for each of its live
   executors (the master sends KILL_EXECUTOR) before they are marked
   KILLED; then it moves to the completed list in state. */
void registry_app_end (registry_t *self, reg_app_t *app, app_state_t state,
                       const char *reason,
                       void (*kill_fn) (void *arg, reg_exec_t *exec),
                       void *arg);

/* --- resumable applications (regresume.c; issue 39) --------------------

   An application whose driver was lost (not ended by it) may wait
   RELAUNCHING for a driver to resume it: its executors are killed as at
   an end, it holds nothing and is not scheduled, it sits on the
   completed list (never dropped from it for its age), and its outputs
   table stays.  A resume makes it WAITING again under the same id, with
   the next driver epoch; its deadline passing ends it. */

/* app's driver was lost: as registry_app_end, but RELAUNCHING until
   deadline_ms (wall clock), its outputs table kept. */
void registry_app_relaunching (registry_t *self, reg_app_t *app,
                               const char *reason, int64_t deadline_ms,
                               void (*kill_fn) (void *arg, reg_exec_t *exec),
                               void *arg);
/* A RELAUNCHING app ends in the final state (FAILED or KILLED) for reason
   (borrowed): its table is dropped, and the change is observed as an end
   (its workers hear APPLICATION_REMOVED). */
void registry_app_relaunch_end (registry_t *self, reg_app_t *app,
                                app_state_t state, const char *reason);
/* A driver resumes the RELAUNCHING app: desc's driver_url, driver_key,
   curve_key and routing_id (copied) become the application's, its
   epoch goes up by one, it is WAITING (scheduled as a new registration)
   and watched for liveness from now_ms; its token, exec ids and outputs
   table stay.  Observed and journaled (an `app` event "resumed").
   Returns 0, or -1 (EINVAL: not RELAUNCHING; ENOMEM: nothing changed). */
int registry_app_resume (registry_t *self, reg_app_t *app,
                         const registry_app_desc_t *desc, int64_t now_ms);
/* Apply a batch of outputs (an OUTPUTS_RECORDED's `outputs`, borrowed,
   checked by its schema) to app's table, and journal it ("outs").
   Returns how many were applied, or -1: ENOSPC when the batch would take
   the table past its bound (nothing changed), ENOMEM. */
int registry_app_record_outputs (registry_t *self, reg_app_t *app,
                                 const cJSON *outputs);
/* True the first time app's table refuses a batch (to warn once). */
bool registry_app_outputs_warn (registry_t *self, reg_app_t *app);
/* The bound of each application's table (0: OUTPUTS_MAX), for tests. */
void registry_set_outputs_max (registry_t *self, size_t max);
/* A RELAUNCHING application whose deadline is at or before wall_ms
   (borrowed), or NULL. */
reg_app_t *registry_relaunching_due (registry_t *self, int64_t wall_ms);
/* After registry_restore: the outputs tables the journal's "outs" records
   rebuild (jstate_outputs: {APP_ID: [record...]}, borrowed), for the
   applications restored active or RELAUNCHING.  Returns the records
   skipped. */
size_t registry_restore_outputs (registry_t *self, const cJSON *outs);

/* The driver's progress summary (an APPLICATION_PROGRESS body,
   borrowed, checked against its schema) becomes app's progress, dated
   wall_ms, and its timeline, if any, is merged into app's
   (timeline_live.h: bounded, freed with app).  Neither observed nor
   journaled: the driver sends it again within a second.  Returns 0, or
   -1 on no memory (the last one stays). */
int registry_app_set_progress (reg_app_t *app, const cJSON *body,
                               int64_t wall_ms);

/* Why app waits (code: allocwhy.h's name, static; why copied), or NULL
   for both: app->waiting (master/waiting.h).  A change (a new code or
   reason, or none after one) is observed with change.waiting set (the
   master tells the driver, APPLICATION_WAITING) and published (an `app`
   event `waiting`), not journaled: the next scheduling pass says it
   again; the same one is not. */
void registry_app_set_waiting (registry_t *self, reg_app_t *app,
                               const char *code, const char *why);

/* The clock of app's being unplaceable (app->unplaceable_ms,
   master/waiting.h): started at now_ms (monotonic) when never is true
   and it was stopped, stopped when never is false.  Returns when it
   started, or 0 (stopped).  The master's own view: neither observed nor
   journaled. */
int64_t registry_app_unplaceable (registry_t *self, reg_app_t *app, bool never,
                                  int64_t now_ms);

/* Dynamic allocation (regapps.c).  The executors app's driver wants in
   all (>= 0): the allocator gives it new executors only while it has
   fewer (alloc.h rule 6).  Journaled with the application and published
   (an `app` event "target").  Returns 1, or 0 when it was so already. */
int registry_app_set_target (registry_t *self, reg_app_t *app, int total);
/* The places its waiting tasks prefer (REQUEST_EXECUTORS places:
   copied; NULL or empty: none).  Returns 1 when they changed, 0 when
   not, -1 out of memory. */
int registry_app_set_places (reg_app_t *app, const cJSON *places);
/* The executors app has, live or launching. */
size_t registry_app_executors (reg_app_t *app);
/* Its driver gave exec back (idle; KILL_EXECUTORS): it ends KILLED with
   reason (borrowed) as its message and exit_reason "RELEASED", and its
   cores and memory are free at once, for the scheduling pass that
   follows; its custom resources' addresses stay held until its worker
   reports its end (the caller sends KILL_EXECUTOR first).  exec is
   invalid afterwards. */
void registry_exec_release (registry_t *self, reg_exec_t *exec,
                            const char *reason);

/* A new executor of app on w (LAUNCHING), taking the resources.  The app
   becomes RUNNING.  NULL on no memory. */
reg_exec_t *registry_exec_add (registry_t *self, reg_app_t *app,
                               reg_worker_t *w, int cores, int64_t memory_mb);
/* The same, the executor holding resources (copied; NULL: none), which
   must be free addresses of w's (registry_worker_pick). */
reg_exec_t *registry_exec_add_held (registry_t *self, reg_app_t *app,
                                    reg_worker_t *w, int cores,
                                    int64_t memory_mb,
                                    const hearth_resources_t *resources);

/* --- custom resources (regres.c) ---------------------------------------- */

/* Who holds w's address addr of name: "APP/EXEC" of a live or stopping
   executor, "foreign" for one beyond the master's books, into buf; NULL
   when it is free. */
const char *registry_worker_holder (reg_worker_t *w, const char *name,
                                    const char *addr, char *buf, size_t size);
/* w's free addresses of name. */
int registry_worker_free_count (reg_worker_t *w, const char *name);
/* Fill the empty out with the first free addresses of w that one
   executor's amounts want.  -1 when w lacks them or on no memory (out
   stays empty). */
int registry_worker_pick (reg_worker_t *w,
                          const hearth_resource_amounts_t *want,
                          hearth_resources_t *out);
/* {"gpu": {"0": "APP/EXEC"}}: w's held addresses by holder; NULL when
   none is held or on no memory. */
cJSON *registry_worker_held_json (reg_worker_t *w);

/* How many ended executors an application keeps (reg_app's ended). */
#define REGISTRY_ENDED_EXECUTORS 20

/* Change an executor's state.  A final state (EXITED, KILLED, FAILED,
   LOST) frees its resources and the record: exec is invalid afterwards;
   what it was and how it ended (state, message as its reason,
   exit_status, exec->signal, worker_lost, the wall-clock end_ms) is kept
   on its application's ended list, the oldest dropped beyond
   REGISTRY_ENDED_EXECUTORS, for as long as the application is listed.
   exit_status -1 means none.  An abnormal end (FAILED, or EXITED with a
   non-zero status) adds one to the app's retry count, a clean exit
   (EXITED 0) resets it.  (Spark resets it on RUNNING, which its workers
   report at spawn, so a crash-looping executor never reaches the limit.) */
void registry_exec_set_state (registry_t *self, reg_exec_t *exec,
                              exec_state_t state, const char *message,
                              int exit_status, bool worker_lost);

/* What a worker says of an executor's new state (EXECUTOR_STATE_CHANGED). */
typedef struct {
    exec_state_t state;         /* the new state */
    const char *message;        /* what happened, or NULL */
    int exit_status;            /* -1: none */
    int signal;                 /* the signal that ended it, or 0 */
    int pid;                    /* its pid (the record's, when not said) */
    int64_t peak_rss_bytes;     /* its peak memory once reaped, or 0 */
    int64_t memory_limit_bytes; /* its cgroup's limit, or 0 */
    const char *exit_reason;    /* "OOM_KILLED" or "USER_REFUSED" (static),
                                   or NULL: the record's stays */
} registry_exec_report_t;

/* exec's worker reports its new state: the record takes what the report
   says of it (signal, pid, peak_rss_bytes, memory_limit_bytes,
   exit_reason), an OOM_KILLED one becomes its application's last_oom,
   and the state changes as registry_exec_set_state says (not lost with
   its worker): exec is invalid afterwards when the state is final. */
void registry_exec_report (registry_t *self, reg_exec_t *exec,
                           const registry_exec_report_t *report);

/* exec's worker lists it as running (a registration's "executors": after
   a reconnection, or a restart of the master), with its pid and the
   addresses it holds (copied; NULL: keep the record's), which the record
   takes: the caller has checked that no other executor holds them
   (registry_worker_holder).  One that was not RUNNING becomes RUNNING
   (an executor change of state, "reported by its worker"); for a RUNNING
   one, a new pid or new addresses are journaled with the executor and
   published (an `executor` event "reported", change.reported set: its
   driver has nothing to hear). */
void registry_exec_listed (registry_t *self, reg_exec_t *exec, int pid,
                           const hearth_resources_t *resources);

/* Executors still stopping (regstopping.c).  An executor the master ends
   (its application ended) keeps its cores and memory counted in its
   worker's cores_used until the worker reports its end, as the worker
   counts it until it has reaped it: so the master never offers cores an
   executor still holds, and a worker's cores_used never goes back up
   after an application ends. */
/* True when the executor is one of w's still stopping. */
bool registry_stopping_has (reg_worker_t *w, const char *app_id, int exec_id);
/* The worker reports the executor ended (a final EXECUTOR_STATE_CHANGED):
   its cores are free.  True when it was stopping (the caller schedules). */
bool registry_stopping_ended (reg_worker_t *w, const char *app_id, int exec_id);
/* The worker lists what it runs (borrowed; a registration's or a
   heartbeat's "executors"): those stopping it no longer lists have ended.
   A heartbeat does not count for one the worker never reported started
   until grace_ms after the master ended it (the launch may not have
   reached the worker when it sent it).  True when cores were freed. */
bool registry_stopping_listed (reg_worker_t *w, const cJSON *executors,
                               bool registration, int64_t now_ms,
                               int64_t grace_ms);

/* --- cluster-mode drivers: their calls are master/regdrivers.h's ------- */

/* Describe to submit a driver. */
typedef struct {
    const char *name;        /* or NULL */
    const char *app;         /* the file to run */
    bool binary;             /* kind binary (else job) */
    const cJSON *spec;       /* {args, files, env, conf}: copied */
    zframe_t *const *frames; /* the files' bytes: copied */
    size_t nframes;          /* entries in frames */
    int cores;               /* cores it needs */
    int64_t memory_mb;       /* memory it needs, MiB */
    bool supervise;          /* relaunch when it fails */
    const char *owner;       /* the key that submitted it, or NULL */
} registry_driver_desc_t;

/* A change of state, as its worker or the master decided it. */
typedef struct {
    driver_state_t state; /* the new state */
    const char *error;    /* why, or NULL (keeps the last error) */
    int exit_status;      /* of the run that ended, or -1 */
    int pid;              /* its pid (RUNNING), or 0 */
    int64_t relaunch_ms;  /* RELAUNCHING: not placed before (monotonic) */
    bool failure;         /* RELAUNCHING after a failed run (counted) */
} registry_driver_update_t;

/* True when the state is final (FINISHED, FAILED, KILLED, ERROR). */
static inline bool
registry_driver_final (driver_state_t state)
{
    return state >= DRIVER_FINISHED && state <= DRIVER_ERROR;
}

/* --- the journal ------------------------------------------------------ */

/* Told a record (borrowed) to append; sync: it must be on disk before the
   master answers the message that caused it. */
typedef void (registry_record_fn) (void *arg, const cJSON *record, bool sync);

/* The one journal hook (NULL: none).  Records are jstate.h's: "worker",
   "worker-", "app", "app-", "exec", "driver", "driver-".  A driver's
   record says how many files it has ("frames"); their bytes are the
   journal's to keep (journal_files_put) while the driver is not ended. */
void registry_set_journal (registry_t *self, registry_record_fn *fn, void *arg);

/* Emit a record for every worker, application, live executor and driver,
   in an order a replay rebuilds the same registry from. */
void registry_dump (registry_t *self, registry_record_fn *fn, void *arg);

/* What registry_restore() rebuilt. */
typedef struct {
    size_t workers;  /* workers restored (UNKNOWN or DEAD) */
    size_t apps;     /* active applications restored, waiting for drivers */
    size_t finished; /* completed applications restored */
    size_t execs;    /* live executors restored */
    size_t drivers;  /* cluster-mode drivers restored, ended or not */
    size_t skipped;  /* records that made no sense, skipped (logged) */
} registry_restored_t;

/* Rebuild an empty registry from recovered records (cJSON objects of
   records keyed by id, in replay order: jstate_workers() and so on),
   telling neither observer nor journal.  Workers that were ALIVE come
   back UNKNOWN and active applications come back `recovering`, without
   routing ids, and none of them is tracked for liveness: the master ends
   their recovery (registry_worker_register, registry_app_adopt, or
   registry_worker_dead and registry_app_end at its deadline).  Executors
   come back in their state on their workers, holding their resources.
   Drivers come back in their state: a RUNNING one placed on its worker
   (the worker's re-registration confirms or loses it), a SUBMITTED or
   RELAUNCHING one in the queue.  files() gives a driver that is not ended
   its n files (a new array of new frames, which the registry takes), or
   NULL: such a driver cannot be launched again and is ERROR. */
typedef zframe_t **(registry_files_fn) (void *arg, const char *driver_id,
                                        size_t n);
void registry_restore (registry_t *self, const cJSON *workers,
                       const cJSON *apps, const cJSON *execs,
                       const cJSON *drivers, registry_files_fn *files,
                       void *files_arg, int64_t now_ms,
                       registry_restored_t *out);

/* Workers still UNKNOWN plus applications still recovering. */
size_t registry_pending (registry_t *self);

/* The driver of an active application is back (REGISTER_APPLICATION
   with its id, from a fresh socket): its new routing id, liveness from
   now, not recovering; exec ids start at first_exec_id or later. */
void registry_app_adopt (registry_t *self, reg_app_t *app, zframe_t *routing_id,
                         int first_exec_id, int64_t now_ms);

/* Liveness (reglive.c), on the monotonic clock (ms).  Any message from a known
   peer is a sign of life. */
void registry_touch_worker (registry_t *self, reg_worker_t *w, int64_t now_ms);
void registry_touch_app (registry_t *self, reg_app_t *app, int64_t now_ms);
/* The next worker or application silent past the timeout, taken off the
   tracker (the caller then ends it), or NULL. */
reg_worker_t *registry_silent_worker (registry_t *self, int64_t now_ms);
reg_app_t *registry_silent_app (registry_t *self, int64_t now_ms);
/* The master was not running for gap_ms (hearth_liveness_gap): every
   watched worker's and driver's deadline moves by it, so that peers are
   judged by what they missed while the master ran. */
void registry_liveness_pause (registry_t *self, int64_t gap_ms);

/* Routing-id index: which record a peer's routing id belongs to
   (*record: borrowed, or NULL with PEER_NONE). */
typedef enum { PEER_NONE, PEER_WORKER, PEER_APP } peer_kind_t;
peer_kind_t registry_peer (registry_t *self, zframe_t *routing_id,
                           void **record);
/* The CURVE key (Z85, copied) that a peer's messages come with (kind and
   record: registry_peer's) is its worker's or application's (curve_key:
   a reload of the allowed keys that removes it ends the record,
   master/admit.c); a change is journaled with the record.  Nothing for
   PEER_NONE. */
void registry_peer_key (registry_t *self, peer_kind_t kind, void *record,
                        const char *key);

/* JSON views (regviews.c; new trees, the caller owns them; NULL on no
   memory).  now_ms (wall clock) dates a worker's heartbeat age; an
   application's view lists its executors in exec_id order. */
cJSON *registry_worker_json (reg_worker_t *w, int64_t now_ms);
cJSON *registry_app_json (reg_app_t *app);
cJSON *registry_exec_json (reg_exec_t *exec);
cJSON *registry_driver_json (reg_driver_t *d);
/* registry_worker_json's view printed straight into buf (the same bytes
   as hearth_json_print of the tree, without building it: MASTER_STATE
   prints every worker); false on no memory. */
bool registry_worker_print (reg_worker_t *w, int64_t now_ms,
                            hearth_jsonbuf_t *buf);

/* The journal's records (records.c; new trees, the caller owns them):
   everything needed to rebuild the record, with "t" set. */
cJSON *registry_worker_record (reg_worker_t *w);
cJSON *registry_app_record (reg_app_t *app);
cJSON *registry_exec_record (reg_exec_t *exec);
cJSON *registry_driver_record (reg_driver_t *d);

/* True when the state is final (EXITED, KILLED, FAILED, LOST). */
static inline bool
registry_exec_final (exec_state_t state)
{
    return state >= EXEC_EXITED;
}

/* Wall-clock milliseconds since the epoch. */
int64_t registry_wall_ms (void);

#endif

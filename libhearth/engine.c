/*  engine.c - the driver's engine: a thread that owns every socket, and
    the root of the driver's parts.

    (Not a zactor: czmq detaches actor threads, so at exit a process cannot
    know they have closed their sockets, and czmq then sleeps 200 ms in its
    atexit handler.  The context joins this thread instead.)

    Start-up (binding the executors' ROUTER, registering with the master or
    starting local executors) happens before the engine signals the API, so
    hearth_ctx_new() returns a registered application or an error (in the
    local modes, with their executors registered: clusterup.h).  Then the
    loop serves the API's queue (apiq.h: submits, cancels, the final state,
    the stop; answers on the pipe), the executors, the master and a
    periodic tick.

    The parts never call the engine: each tells it what happened through
    the callbacks of "what the parts tell the engine" below, given to it
    where it is made, and the engine calls the part that must act on it.
*/
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/ids.h"
#include "libcore/keys.h"
#include "libcore/liveness.h"
#include "libcore/log.h"
#include "libhearth/apiq.h"
#include "libhearth/clusterup.h"
#include "libhearth/dynalloc.h"
#include "libhearth/engine.h"
#include "libhearth/eventlog.h"
#include "libhearth/execdecom.h"
#include "libhearth/execs.h"
#include "libhearth/fingerprint.h"
#include "libhearth/local.h"
#include "libhearth/master.h"
#include "libhearth/progress_report.h"
#include "libhearth/record.h"
#include "libhearth/resume.h"
#include "libhearth/ship.h"
#include "libhearth/signals.h"
#include "libhearth/starved.h"
#include "libhearth/tlfeed.h"
#include "libhearth/work.h"

/* Between looks for stragglers. */
static const int64_t s_speculation_period_ms = 100;
/* At most one progress summary to the master in this while. */
static const int64_t s_progress_interval_ms = 1000;

struct engine {
    hearth_conf_t *conf;          /* settings (borrowed from the context) */
    zsock_t *pipe;                /* our answers to the API (borrowed) */
    apiq_t *apiq;                 /* what the API tells us (borrowed) */
    hearth_loop_t *loop;          /* the engine's loop */
    engine_mode_t mode;           /* how executors come to be */
    char app_id[160];             /* from the master, or made locally */
    int64_t hb_interval_ms;       /* heartbeat interval, from the settings */
    int64_t hb_liveness;          /* missed intervals before a peer is gone */
    work_t *work;                 /* the task set, the stages, running jobs */
    execs_t *execs;               /* the executors, once started */
    execdecom_t *decom;           /* those whose worker leaves (owned) */
    master_link_t *master;        /* the master (cluster modes), or NULL */
    progress_report_t *progress;  /* summaries for it (with master) */
    int64_t persisted_sent;       /* executors' cache bytes last reported */
    tlfeed_t *tlfeed;             /* the live timeline's news for it (with
                                     master; owned, lent to the work) */
    local_t *local;               /* our own processes (local modes), or NULL */
    bool signaled;                /* the API was told start-up is over */
    bool stopping;                /* shutting down */
    int64_t last_spec_ms;         /* last look for stragglers */
    starved_t starved;            /* jobs waiting with no executor */
    char error[512];              /* start-up failure */
    bool final_set;               /* the program said how the app ends */
    hearth_app_end_t final_state; /* what it said */
    char final_reason[1024];      /* and why */
    char app_failure[512];        /* why the app could not go on, or "" */
    int stop_signal;              /* the signal that stopped us, or 0 */
    eventlog_t *el;               /* the event log, or NULL */
    dynalloc_t *dynalloc;         /* --dynamic-allocation with a master, or
                                     NULL */
    clusterup_t up;               /* start-up's end (our cluster's executors) */
    record_t *record;             /* outputs told to the master (with
                                     master: record.h) */
    int64_t resumed_outputs;      /* resumed: the outputs recorded by the
                                     earlier driver; -1: not resumed */
};

/* Start-up is over (error NULL) or failed (error set): tell the API. */
static void
s_signal_ready (engine_t *e, const char *error)
{
    hearth_error_t err;
    if (!error && !e->signaled && !e->el
        && eventlog_open_app (e->conf, e->app_id, 0, &e->el, &err) < 0)
        error = err.text;
    work_set_eventlog (e->work, e->el);
    if (error)
        snprintf (e->error, sizeof e->error, "%s", error);
    if (e->signaled)
        return;
    e->signaled = true;
    zsock_signal (e->pipe, error ? 1 : 0);
}

/* Handle the task set's events, then offer free slots to executors; the
   outputs recorded meanwhile go to the master at once, in one batch
   (what a driver killed now loses is then what it has not yet heard). */
static void
s_process (engine_t *e)
{
    work_process (e->work);
    if (!e->stopping && work_has_jobs (e->work))
        execs_offer_all (e->execs);
    if (e->master && e->signaled && record_waiting (e->record))
        master_link_send_outputs (e->master, e->record);
}

/* ---- what the parts tell the engine ------------------------------------- */

/* From the work: an attempt to kill. */
static void
s_kill (void *arg, int exec_id, uint64_t tid, int attempt)
{
    engine_t *e = arg;
    if (e->execs)
        execs_send_kill (e->execs, exec_id, tid, attempt);
}

/* From the executor set: an executor lost (perhaps one of local[N]'s), an
   executor silent (the master may give its cores to another), the task
   set changed. */
static void
s_exec_lost (void *arg, int exec_id)
{
    engine_t *e = arg;
    execdecom_forget (e->decom, exec_id);
    if (e->local)
        local_executor_gone (e->local, exec_id);
}

static void
s_exec_silent (void *arg, int exec_id, const char *reason)
{
    engine_t *e = arg;
    if (e->master)
        master_link_release_executor (e->master, exec_id, reason);
}

/* Start-up ends once the application is registered (by the master, or
   at once in local[N]) and, in the local modes, once our own executors
   have registered too (clusterup.h); the event log is open from the
   registration, so that their executor_added events are in it. */
static void
s_check_up (engine_t *e)
{
    if (!e->signaled && e->up.registered
        && (e->app_failure[0]
            || clusterup_ready (&e->up, e->execs, hearth_mono_ms ())))
        s_signal_ready (e, NULL);
}

static void
s_changed (void *arg)
{
    s_check_up (arg);
    s_process (arg);
}

/* The master is ending the application: its executors go with it. */
static void
s_app_ending (void *arg)
{
    engine_t *e = arg;
    if (e->execs)
        execs_app_ended (e->execs);
}

/* From the master link and the local modes: the application is over. */
static void
s_app_dead (void *arg, const char *reason)
{
    engine_t *e = arg;
    s_app_ending (e);
    if (!e->app_failure[0])
        snprintf (e->app_failure, sizeof e->app_failure, "%s", reason);
    work_fail_all (e->work, reason);
    s_process (e);
}

/* From the master link (and local[N]'s start): registered (the
   application's id and heartbeat settings); start-up failed; executors
   granted, lost (alone or with their worker), or to register again
   with. */
static void
s_registered (void *arg, const char *app_id, int64_t hb_interval_ms,
              int64_t hb_liveness)
{
    engine_t *e = arg;
    snprintf (e->app_id, sizeof e->app_id, "%s", app_id);
    execs_set_app (e->execs, app_id);
    execs_set_heartbeat (e->execs, hb_interval_ms, hb_liveness);
    if (e->dynalloc)
        dynalloc_registered (e->dynalloc);
    if (e->up.registered) { /* again: the master's timeline starts over */
        execs_tlfeed_again (e->execs);
        /* and it may have missed outputs told while it was gone */
        work_record_all (e->work);
    }
    hearth_error_t err;
    if (!e->up.registered && !e->signaled
        && eventlog_open_app (e->conf, app_id,
                              e->master ? master_link_driver_epoch (e->master)
                                        : 0,
                              &e->el, &err)
               < 0) {
        s_signal_ready (e, err.text);
        return;
    }
    e->up.registered = true;
    work_set_eventlog (e->work, e->el);
    if (e->resumed_outputs >= 0 && e->el) { /* said once */
        eventlog_begin (e->el, "app_resumed");
        eventlog_str (e->el, "app", app_id);
        eventlog_int (e->el, "outputs", e->resumed_outputs);
        eventlog_end (e->el);
        e->resumed_outputs = -1;
    }
    s_check_up (e);
}

/* From the master link: the application was resumed (before
   registered): its jobs reuse what its earlier driver left (resume.h);
   its executors present the token the application had. */
static void
s_resumed (void *arg, resume_t **table, const char *token)
{
    engine_t *e = arg;
    execs_set_token (e->execs, token);
    e->resumed_outputs = (int64_t) resume_count (*table);
    work_set_resume (e->work, table);
}

static void
s_failed (void *arg, const char *error)
{
    s_signal_ready (arg, error);
}

static void
s_executor_added (void *arg, int exec_id, int cores, const char *host,
                  const char *worker_id, int64_t memory_mb, const cJSON *labels)
{
    engine_t *e = arg;
    execs_add (e->execs, exec_id, cores, host, worker_id, memory_mb, labels);
    s_check_up (e); /* it may have said hello first */
}

static void
s_executor_lost (void *arg, int exec_id, const char *reason,
                 int64_t peak_rss_bytes)
{
    engine_t *e = arg;
    execs_set_peak_rss (e->execs, exec_id, peak_rss_bytes);
    execs_lost (e->execs, exec_id, reason);
}

static void
s_worker_lost (void *arg, int exec_id, const char *worker_id,
               const char *reason, int64_t peak_rss_bytes)
{
    engine_t *e = arg;
    execs_set_peak_rss (e->execs, exec_id, peak_rss_bytes);
    execs_worker_lost (e->execs, exec_id, worker_id, reason);
}

static void
s_executor_decommissioning (void *arg, int exec_id, const char *reason)
{
    engine_t *e = arg;
    if (execdecom_add (e->decom, exec_id, reason) > 0)
        s_process (e); /* kill the moved attempts, offer them elsewhere */
}

/* Stop the executors of leaving workers that hold nothing now (their
   queued tasks moved, their running ones done). */
static void
s_stop_decommissioned (engine_t *e)
{
    int ids[64];
    size_t n = execdecom_idle (e->decom, ids, sizeof ids / sizeof ids[0]);
    for (size_t i = 0; i < n; i++) {
        char why[600];
        snprintf (why, sizeof why, "decommissioned: %s; its tasks are done",
                  execdecom_reason (e->decom, ids[i]));
        execs_lost (e->execs, ids[i], why); /* STOP_EXECUTOR, forgotten */
        execdecom_forget (e->decom, ids[i]);
    }
}

static void
s_list_executors (void *arg, cJSON *list)
{
    engine_t *e = arg;
    execs_list (e->execs, list);
}

/* From the local modes: our executor started, or its process exited. */
static void
s_local_started (void *arg, int exec_id, int cores)
{
    engine_t *e = arg;
    execs_add (e->execs, exec_id, cores, "localhost", NULL, 0, NULL);
}

static void
s_local_exited (void *arg, int exec_id, int64_t peak_rss_bytes)
{
    engine_t *e = arg;
    execs_set_peak_rss (e->execs, exec_id, peak_rss_bytes);
    execs_lost (e->execs, exec_id, "process exited");
}

/* ---- the engine ---------------------------------------------------------- */

engine_t *
engine_new (hearth_ctx_t *ctx)
{
    engine_t *e = calloc (1, sizeof *e);
    if (!e)
        return NULL;
    e->conf = ctx->conf;
    e->apiq = ctx->apiq;
    e->hb_interval_ms = hearth_conf_ms (e->conf, "heartbeat-interval");
    e->hb_liveness = hearth_conf_int (e->conf, "heartbeat-liveness");
    e->resumed_outputs = -1;
    if (e->hb_interval_ms < 1)
        e->hb_interval_ms = 1;
    work_cbs_t cbs = {.kill = s_kill, .arg = e};
    if (!(e->work = work_new (e->conf, &cbs))
        || !(e->decom = execdecom_new (work_taskset (e->work))))
        engine_destroy (&e);
    return e;
}

void
engine_destroy (engine_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    engine_t *e = *self_p;
    dynalloc_destroy (&e->dynalloc);
    master_link_destroy (&e->master);
    record_destroy (&e->record);
    progress_report_destroy (&e->progress);
    work_set_tlfeed (e->work, NULL);
    tlfeed_destroy (&e->tlfeed);
    local_destroy (&e->local);
    eventlog_destroy (&e->el);
    execs_destroy (&e->execs);
    execdecom_destroy (&e->decom);
    work_destroy (&e->work);
    free (e);
    *self_p = NULL;
    errno = saved;
}

const char *
engine_error (const engine_t *self)
{
    return self->error[0] ? self->error : NULL;
}

struct ship *
engine_ship (engine_t *self)
{
    return self->execs ? execs_ship (self->execs) : NULL;
}

const char *
engine_app_id (const engine_t *self)
{
    return self->app_id;
}

/* ---- the loop ----------------------------------------------------------- */

/* Act on what the API's threads queued (apiq.h): the submits, the
   cancels (each answered on the pipe once done), the final state; then,
   unless stopping, offer what changed.  Whether the API asked to stop. */
static bool
s_take_api (engine_t *e)
{
    apiq_batch_t b;
    apiq_take (e->apiq, &b);
    if (b.submits && e->execs) /* before their tasks (hearth_broadcast_file) */
        execs_broadcast_news (e->execs);
    for (hearth_job_t *job = b.submits, *next; job; job = next) {
        next = job->submit_next;
        work_submit (e->work, job);
    }
    int cancelled = 0;
    for (hearth_job_t *job = b.cancels, *next; job; job = next) {
        next = job->cancel_next;
        work_cancel_job (e->work, job, "cancelled");
        cancelled++;
    }
    if (b.final_set) {
        e->final_set = true;
        e->final_state = (hearth_app_end_t) b.final_state;
        snprintf (e->final_reason, sizeof e->final_reason, "%s",
                  b.final_reason);
    }
    if ((b.submits || b.cancels) && !e->stopping)
        s_process (e);
    /* last: a cancelled job is the API's to free once it hears */
    for (int i = 0; i < cancelled; i++)
        zsock_signal (e->pipe, 0);
    return b.stop;
}

static int
s_on_api (hearth_loop_t *loop, int fd, void *arg)
{
    (void) loop;
    (void) fd;
    return s_take_api (arg) ? -1 : 0;
}

/* A progress summary for the master when one is due (final: at the end,
   whenever it changed); from the tick, never from the task path. */
static void
s_report_progress (engine_t *e, int64_t now, bool final)
{
    if (!e->master || !e->progress || !e->signaled || e->error[0])
        return;
    /* what executors keep in memory changes between jobs too */
    int64_t kept = execs_persisted_total (e->execs);
    if (!progress_report_due (e->progress, e->work, now, final,
                              tlfeed_pending (e->tlfeed)
                                  || kept != e->persisted_sent))
        return;
    hearth_msg_t *msg = progress_report_msg (e->progress, e->app_id);
    if (msg && execs_add_persisted (e->execs, msg->body) < 0)
        hearth_msg_destroy (&msg);
    int64_t wall = eventlog_time_ms (NULL);
    if (msg && tlfeed_add (e->tlfeed, msg->body, wall) < 0)
        hearth_msg_destroy (&msg); /* no memory: the news wait */
    if (msg && master_link_send_progress (e->master, &msg) == 0) {
        e->persisted_sent = kept;
        progress_report_sent (e->progress, now);
        tlfeed_sent (e->tlfeed);
    }
}

static const char *
s_signal_name (int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* SIGINT or SIGTERM caught by libhearth (signals.c): stop.  Returns
   true when the loop should end. */
static bool
s_check_signal (engine_t *e)
{
    int sig = driver_signals_caught ();
    if (!sig)
        return false;
    char why[64];
    snprintf (why, sizeof why, "stopped by %s", s_signal_name (sig));
    e->stop_signal = sig;
    log_info ("%s: ending the application", why);
    work_fail_all (e->work, why);
    return true;
}

static int
s_on_tick (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    engine_t *e = arg;
    if (s_check_signal (e))
        return -1;
    int64_t now = hearth_mono_ms ();
    if (e->master)
        master_link_tick (e->master);
    execs_tick (e->execs);
    if (e->dynalloc && e->signaled && !e->stopping)
        dynalloc_tick (e->dynalloc, work_taskset (e->work), e->execs, now);
    s_stop_decommissioned (e);
    eventlog_tick (e->el);
    s_report_progress (e, now, false);
    work_check_requires (e->work, now);
    starved_check (&e->starved,
                   work_has_jobs (e->work) && !execs_any_registered (e->execs),
                   e->master ? master_link_waiting (e->master) : NULL, now);
    s_check_up (e);
    if (now - e->last_spec_ms >= s_speculation_period_ms) {
        e->last_spec_ms = now;
        size_t n = hearth_taskset_speculate (work_taskset (e->work),
                                             hearth_mono_us ());
        if (n)
            log_info ("speculation: %zu straggling tasks copied to run "
                      "elsewhere",
                      n);
    }
    s_process (e);
    return e->error[0] ? -1 : 0;
}

/* ---- start-up and shutdown ---------------------------------------------- */

static int
s_new_execs (engine_t *e, const char *token, hearth_error_t *err)
{
    execs_opts_t opts = {.conf = e->conf,
                         .work = e->work,
                         .token = token,
                         .hb_interval_ms = e->hb_interval_ms,
                         .hb_liveness = e->hb_liveness};
    execs_cbs_t cbs = {.lost = s_exec_lost,
                       .silent = s_exec_silent,
                       .changed = s_changed,
                       .arg = e};
    e->execs = execs_new (&opts, &cbs, err);
    return e->execs ? 0 : -1;
}

/* A link to the master at url; curve: CURVE if the settings have keys
   (a tcp:// master, not our own local cluster's). */
static int
s_new_master (engine_t *e, const char *url, bool curve, hearth_error_t *err)
{
    master_link_opts_t opts = {.conf = e->conf,
                               .loop = e->loop,
                               .url = url,
                               .curve = curve,
                               .hb_interval_ms = e->hb_interval_ms,
                               .hb_liveness = e->hb_liveness};
    master_link_cbs_t cbs = {.registered = s_registered,
                             .failed = s_failed,
                             .executor_added = s_executor_added,
                             .executor_lost = s_executor_lost,
                             .app_ending = s_app_ending,
                             .worker_lost = s_worker_lost,
                             .executor_decommissioning =
                                 s_executor_decommissioning,
                             .app_dead = s_app_dead,
                             .resumed = s_resumed,
                             .list_executors = s_list_executors,
                             .arg = e};
    e->master = master_link_new (&opts, &cbs, err);
    char files[FINGERPRINT_LEN + 1] = "";
    struct ship *ship = execs_ship (e->execs);
    if (ship)
        ship_digest (ship, files);
    if (e->master && hearth_conf_bool (e->conf, "record-outputs")
        && !(e->record = record_new ()))
        return hearth_errprintf (err, "out of memory");
    work_set_record (e->work, e->record, files);
    if (e->master
        && (!(e->progress = progress_report_new (s_progress_interval_ms))
            || !(e->tlfeed = tlfeed_new (eventlog_time_ms (NULL)))))
        return hearth_errprintf (err, "out of memory");
    work_set_tlfeed (e->work, e->tlfeed);
    return e->master ? 0 : -1;
}

/* From dynamic allocation: what to tell the master. */
static void
s_dyn_request (void *arg, int total, const char *const *places,
               const uint64_t *counts, size_t n)
{
    engine_t *e = arg;
    master_link_request_executors (e->master, total, places, counts, n);
}

static void
s_dyn_release (void *arg, const int *exec_ids, size_t n)
{
    engine_t *e = arg;
    master_link_kill_executors (e->master, exec_ids, n);
}

/* --dynamic-allocation needs a master to ask: local[N] has one executor
   of its own, shared with nobody, and ignores it (a defaults file that
   turns it on for the cluster must not break local runs). */
static int
s_new_dynalloc (engine_t *e, hearth_error_t *err)
{
    if (!hearth_conf_bool (e->conf, "dynamic-allocation"))
        return 0;
    if (!e->master) {
        log_warn ("--dynamic-allocation is ignored in local[N]: its one "
                  "executor is shared with nobody");
        return 0;
    }
    dynalloc_cbs_t cbs = {s_dyn_request, s_dyn_release, e};
    e->dynalloc = dynalloc_new (e->conf, &cbs, err);
    return e->dynalloc ? 0 : -1;
}

static int
s_open_master (engine_t *e, const local_setup_t *setup, const char *token,
               hearth_error_t *err)
{
    master_link_app_t app = {.name = driver_app_name (e->conf),
                             .driver_url = execs_url (e->execs),
                             .token = token,
                             .driver_key = execs_public_key (e->execs),
                             .memory_mb =
                                 clusterup_executor_memory_mb (e->conf, setup)};
    return master_link_open (e->master, &app, err);
}

static int
s_start_local (engine_t *e, const local_setup_t *setup, const char *token,
               hearth_error_t *err)
{
    local_opts_t opts = {.loop = e->loop,
                         .conf = e->conf,
                         .setup = setup,
                         .token = token,
                         .hb_interval_ms = e->hb_interval_ms,
                         .hb_liveness = e->hb_liveness};
    local_cbs_t cbs = {.executor_started = s_local_started,
                       .executor_exited = s_local_exited,
                       .app_dead = s_app_dead,
                       .arg = e};
    if (!(e->local = local_new (&opts, &cbs)))
        return hearth_errprintf (err, "out of memory");
    if (setup->mode == MODE_LOCAL) {
        hearth_id_format (e->app_id, sizeof e->app_id, HEARTH_ID_APP,
                          time (NULL), (unsigned) getpid ());
        execs_set_app (e->execs, e->app_id);
    }
    return local_start (e->local, execs_url (e->execs), e->app_id, err);
}

/* Every application has a token its executors must present.  With a
   secure master link (a tcp:// master and keys), the executors' link is
   encrypted too, with a key pair made for this application alone; its
   public key reaches them through the master and their worker. */
static int
s_start (engine_t *e, hearth_error_t *err)
{
    local_setup_t setup;
    char token[64];
    if (local_parse_master (hearth_conf_str (e->conf, "master"), &setup, err)
        < 0)
        return -1;
    e->mode = setup.mode;
    clusterup_start (&e->up, e->conf, &setup, hearth_mono_ms ());
    if (eventlog_check_dir (e->conf, err) < 0)
        return -1;
    if (hearth_keys_token (token, sizeof token) < 0)
        return hearth_errprintf (err, "cannot make the application's token");
    if (s_new_execs (e, token, err) < 0)
        return -1;
    if (!(e->loop = hearth_loop_new ()))
        return hearth_errprintf (err, "out of memory");
    bool cluster = e->mode == MODE_CLUSTER;
    if (cluster && s_new_master (e, setup.master_url, true, err) < 0)
        return -1;
    if (execs_open (e->execs, e->loop,
                    cluster ? master_link_url (e->master) : NULL,
                    e->master && master_link_secure (e->master), err)
        < 0)
        return -1;
    if (!cluster && s_start_local (e, &setup, token, err) < 0)
        return -1;
    if (e->mode == MODE_LOCAL_CLUSTER
        && s_new_master (e, local_master_url (e->local), false, err) < 0)
        return -1;
    if (s_new_dynalloc (e, err) < 0)
        return -1;
    return e->master ? s_open_master (e, &setup, token, err) : 0;
}

/* How long to wait for the master to confirm the application's end: a
   real master may be restarting (register-timeout); our own local
   cluster's answers at once if it runs at all (liveness x interval). */
static int64_t
s_end_wait_ms (engine_t *e)
{
    if (e->mode == MODE_CLUSTER)
        return hearth_conf_ms (e->conf, "register-timeout");
    return e->local && local_master_running (e->local)
               ? e->hb_liveness * e->hb_interval_ms
               : 0;
}

/* How the application ends: the program's word, else the rule of
   hearth.h (hearth_ctx_set_final_state); the reason into why. */
static hearth_app_end_t
s_final_state (engine_t *e, char *why, size_t size)
{
    const char *failure = work_last_failure (e->work);
    hearth_app_end_t state = e->final_set        ? e->final_state
                             : e->stop_signal    ? HEARTH_APP_KILLED
                             : e->app_failure[0] ? HEARTH_APP_FAILED
                             : failure           ? HEARTH_APP_FAILED
                                                 : HEARTH_APP_FINISHED;
    if (e->final_set)
        snprintf (why, size, "%s", e->final_reason);
    else if (e->stop_signal)
        snprintf (why, size, "stopped by %s", s_signal_name (e->stop_signal));
    else
        snprintf (why, size, "%s",
                  e->app_failure[0] ? e->app_failure
                  : failure         ? failure
                                    : "its driver finished");
    return state;
}

static void
s_shutdown (engine_t *e)
{
    static const char *const states[] = {[HEARTH_APP_FINISHED] = "FINISHED",
                                         [HEARTH_APP_FAILED] = "FAILED",
                                         [HEARTH_APP_KILLED] = "KILLED"};
    e->stopping = true;
    /* What the API said as we stopped counts (a final state), or is failed
       with the rest (jobs); what it says later is refused (apiq.h). */
    apiq_close (e->apiq);
    s_take_api (e);
    /* The last failure first: the jobs failed below do not count. */
    char why[1024];
    hearth_app_end_t state = s_final_state (e, why, sizeof why);
    work_fail_all (e->work, "the application stopped");
    if (e->execs) /* before the last report: its executors' ends in it */
        execs_stop_all (e->execs, "the application is over");
    s_report_progress (e, hearth_mono_ms (), true); /* the exact end */
    eventlog_app_end (e->el, states[state], why);
    work_set_eventlog (e->work, NULL);
    eventlog_destroy (&e->el); /* written before the wait for the master */
    if (e->master)
        master_link_close (e->master, states[state], why, s_end_wait_ms (e));
    if (e->local)
        local_stop (e->local);
    if (e->execs)
        execs_close (e->execs);
    hearth_loop_destroy (&e->loop);
}

void
engine_run (engine_t *e, zsock_t *pipe)
{
    hearth_error_t err;
    e->pipe = pipe;
    driver_signals_engine_start ();
    if (s_start (e, &err) < 0) {
        s_signal_ready (e, err.text);
        s_shutdown (e);
        driver_signals_engine_end ();
        return;
    }
    /* local[N] has no master: its application is registered at once
       (the event log opens), and start-up ends once our executor has
       registered (clusterup.h), so that the first job does not wait for
       its start. */
    if (e->mode == MODE_LOCAL) {
        char id[sizeof e->app_id]; /* s_registered writes e->app_id */
        snprintf (id, sizeof id, "%s", e->app_id);
        s_registered (e, id, e->hb_interval_ms, e->hb_liveness);
    }
    int64_t tick = hearth_liveness_tick_ms (e->hb_interval_ms);
    if (hearth_loop_fd (e->loop, apiq_fd (e->apiq), s_on_api, e) < 0
        || hearth_loop_timer (e->loop, (size_t) tick, 0, s_on_tick, e) < 0)
        snprintf (e->error, sizeof e->error, "out of memory");
    else
        hearth_loop_start (e->loop);
    if (!e->signaled)
        s_signal_ready (e, e->error[0] ? e->error : "start-up failed");
    s_shutdown (e);
    driver_signals_engine_end (); /* dies of a signal caught, if any */
}

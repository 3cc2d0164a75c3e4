/*  engine.c - the driver's engine: a thread that owns every socket.

    (Not a zactor: czmq detaches actor threads, so at exit a process cannot
    know they have closed their sockets, and czmq then sleeps 200 ms in its
    atexit handler.  The context joins this thread instead.)

    Start-up (binding the executors' ROUTER, registering with the master or
    starting local executors) happens before the engine signals the API, so
    hearth_ctx_new() returns a registered application or an error.  Then the
    loop serves the API pipe (SUBMIT, CANCEL, $TERM), the executors, the
    master and a periodic tick.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver/engine.h"
#include "libcore/clock.h"
#include "libcore/intkeys.h"
#include "libcore/log.h"
#include "libcore/sock.h"

/* Between looks for stragglers. */
static const int64_t s_speculation_period_ms = 100;
/* Jobs waiting this long without any executor deserve a warning. */
static const int64_t s_starved_warning_ms = 10000;

static void
s_exec_free (void **item)
{
    exec_t *x = *item;
    if (!x)
        return;
    zframe_destroy (&x->rid);
    free (x->key);
    free (x);
    *item = NULL;
}

static void
s_taskset_opts (hearth_conf_t *conf, hearth_taskset_opts_t *o)
{
    hearth_taskset_opts_default (o);
    const char *mode = hearth_conf_str (conf, "scheduler-mode");
    o->fair = mode && strcasecmp (mode, "FAIR") == 0;
    o->max_failures = (int) hearth_conf_int (conf, "max-failures");
    o->max_lost = (int) hearth_conf_int (conf, "max-lost");
    o->prefetch_max = (int) hearth_conf_int (conf, "task-prefetch");
    o->speculation = hearth_conf_bool (conf, "speculation");
    o->spec_multiplier =
        atof (hearth_conf_str (conf, "speculation-multiplier"));
    o->spec_quantile = atof (hearth_conf_str (conf, "speculation-quantile"));
    o->spec_min_us = hearth_conf_ms (conf, "speculation-min") * 1000;
}

engine_t *
engine_new (hearth_ctx_t *ctx)
{
    engine_t *e = calloc (1, sizeof *e);
    if (!e)
        return NULL;
    e->ctx = ctx;
    e->conf = ctx->conf;
    e->hb_interval_ms = hearth_conf_ms (e->conf, "heartbeat-interval");
    e->hb_liveness = hearth_conf_int (e->conf, "heartbeat-liveness");
    e->max_result_bytes =
        (int64_t) hearth_conf_bytes (e->conf, "max-result-bytes");
    if (e->hb_interval_ms < 1)
        e->hb_interval_ms = 1;
    hearth_taskset_opts_t tso;
    s_taskset_opts (e->conf, &tso);
    e->ts = hearth_taskset_new (&tso);
    e->execs = zhashx_new ();
    e->by_key = zhash_new ();
    e->jobs = zlistx_new ();
    e->next_uid = 1;
    e->next_job = 1;
    if (!e->ts || !e->execs || !e->by_key || !e->jobs) {
        engine_destroy (&e);
        return NULL;
    }
    hearth_intkeys_setup (e->execs);
    zhashx_set_destructor (e->execs, s_exec_free);
    return e;
}

void
engine_destroy (engine_t **self_p)
{
    engine_t *e = *self_p;
    if (!e)
        return;
    hearth_taskset_destroy (&e->ts);
    zhash_destroy (&e->by_key);
    zhashx_destroy (&e->execs);
    zlistx_destroy (&e->jobs);
    for (size_t i = 0; i < e->nlibs; i++) {
        free (e->libs[i].name);
        zchunk_destroy (&e->libs[i].data);
    }
    free (e->libs);
    hearth_packer_release (&e->packer);
    free (e->stages);
    free (e->lc_worker_pids);
    zcert_destroy (&e->app_cert);
    hearth_curve_cleanup (&e->curve);
    free (e->scratch_dir);
    free (e);
    *self_p = NULL;
}

const char *
engine_error (const engine_t *self)
{
    return self->error[0] ? self->error : NULL;
}

const char *
engine_app_id (const engine_t *self)
{
    return self->app_id;
}

void
engine_signal_ready (engine_t *e, const char *error)
{
    if (error)
        snprintf (e->error, sizeof e->error, "%s", error);
    if (e->signaled)
        return;
    e->signaled = true;
    zsock_signal (e->pipe, error ? 1 : 0);
}

/* ---- shipped libraries ------------------------------------------------ */

static int
s_load_lib (engine_t *e, const char *path, hearth_error_t *err)
{
    zfile_t *file = zfile_new (NULL, path);
    zchunk_t *data = NULL;
    if (!file || zfile_input (file) < 0
        || !(data = zfile_read (file, zfile_cursize (file), 0))) {
        zfile_destroy (&file);
        return hearth_errprintf (err, "cannot read library %s: %s", path,
                                 strerror (errno));
    }
    zfile_destroy (&file);
    shipped_lib_t *libs = realloc (e->libs, (e->nlibs + 1) * sizeof *libs);
    if (!libs) {
        zchunk_destroy (&data);
        return hearth_errprintf (err, "out of memory");
    }
    e->libs = libs;
    shipped_lib_t *lib = &e->libs[e->nlibs++];
    const char *slash = strrchr (path, '/');
    lib->name = strdup (slash ? slash + 1 : path);
    lib->data = data;
    snprintf (lib->hash, sizeof lib->hash, "%s", zchunk_digest (data));
    return 0;
}

static int
s_load_libs (engine_t *e, hearth_error_t *err)
{
    const char *const *paths;
    size_t n = hearth_conf_list (e->conf, "lib", &paths);
    for (size_t i = 0; i < n; i++)
        if (s_load_lib (e, paths[i], err) < 0)
            return -1;
    return 0;
}

/* ---- jobs --------------------------------------------------------------- */

static hearth_job_t *
s_find_job (engine_t *e, uint64_t id)
{
    for (hearth_job_t *j = zlistx_first (e->jobs); j; j = zlistx_next (e->jobs))
        if (j->id == id)
            return j;
    return NULL;
}

/* The engine lets go of a job, then tells the user it has ended. */
static void
s_end_job (engine_t *e, hearth_job_t *job, hearth_job_state_t state,
           const char *error)
{
    void *handle = zlistx_find (e->jobs, job);
    if (!handle)
        return;
    zlistx_delete (e->jobs, handle);
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        uint64_t finished = 0, running = 0, total = 0;
        hearth_taskset_stage_counts (e->ts, st->uid, &finished, &running,
                                     &total);
        job_set_progress (job, st, finished, 0, finished == st->ntasks);
        if (st->uid < e->stages_alloc)
            e->stages[st->uid] = NULL;
    }
    hearth_taskset_forget_job (e->ts, job->id);
    job_end (job, state, error);
}

void
engine_fail_job (engine_t *e, hearth_job_t *job, const char *error)
{
    if (!zlistx_find (e->jobs, job))
        return;
    hearth_taskset_fail_job (e->ts, job->id);
    log_info ("job %s failed: %s", job->name, error);
    s_end_job (e, job, HEARTH_JOB_FAILED, error);
}

void
engine_app_dead (engine_t *e, const char *reason)
{
    e->app_dead = true;
    snprintf (e->app_dead_reason, sizeof e->app_dead_reason, "%s", reason);
    hearth_job_t *job;
    while ((job = zlistx_first (e->jobs)))
        engine_fail_job (e, job, reason);
}

static int
s_stage_slot (engine_t *e, uint32_t uid)
{
    if (uid < e->stages_alloc)
        return 0;
    size_t n = e->stages_alloc ? e->stages_alloc * 2 : 64;
    while (n <= uid)
        n *= 2;
    hearth_stage_t **stages = realloc (e->stages, n * sizeof *stages);
    if (!stages)
        return -1;
    memset (stages + e->stages_alloc, 0,
            (n - e->stages_alloc) * sizeof *stages);
    e->stages = stages;
    e->stages_alloc = n;
    return 0;
}

/* Give a stage its uid, result slots and a place in the task set. */
static int
s_add_stage (engine_t *e, hearth_job_t *job, hearth_stage_t *st,
             hearth_error_t *err)
{
    if (e->next_uid > DRIVER_MAX_STAGES || s_stage_slot (e, e->next_uid) < 0)
        return hearth_errprintf (err, "too many stages in one application");
    st->uid = e->next_uid++;
    st->results = calloc (st->ntasks, sizeof *st->results);
    uint32_t *parents = calloc (st->nparents + 1, sizeof *parents);
    if (!st->results || !parents) {
        free (parents);
        return hearth_errprintf (err, "out of memory for %llu tasks",
                                 (unsigned long long) st->ntasks);
    }
    for (size_t i = 0; i < st->nparents; i++)
        parents[i] = st->parents[i]->uid;
    int rc =
        hearth_taskset_add_stage (e->ts, st->uid, job->id, st->ntasks, parents,
                                  st->nparents, st->pool, st->weight);
    free (parents);
    if (rc < 0)
        return hearth_errprintf (err, "cannot schedule stage %s: %s", st->name,
                                 strerror (errno));
    e->stages[st->uid] = st;
    return 0;
}

static void
s_on_submit (engine_t *e, hearth_job_t *job)
{
    hearth_error_t err;
    job->id = e->next_job++;
    zlistx_add_end (e->jobs, job);
    if (e->app_dead) {
        engine_fail_job (e, job, e->app_dead_reason);
        return;
    }
    for (size_t i = 0; i < job->nstages; i++)
        if (s_add_stage (e, job, job->stages[i], &err) < 0) {
            engine_fail_job (e, job, err.text);
            return;
        }
    log_debug ("job %s: %zu stages submitted", job->name, job->nstages);
    engine_process (e);
}

/* The input of stages reading st: its results in task order, one trailing
   newline of each removed, each followed by a newline. */
static void
s_build_inputs (engine_t *e, hearth_stage_t *st)
{
    hearth_job_t *job = st->job;
    size_t size = 0;
    for (uint64_t i = 0; i < st->ntasks; i++)
        size += st->results[i].len + 1;
    for (size_t k = 0; k < job->nstages; k++) {
        hearth_stage_t *child = job->stages[k];
        if (child->input != st)
            continue;
        zframe_t *frame = zframe_new (NULL, size);
        if (!frame) {
            engine_fail_job (e, job, "out of memory building a stage input");
            return;
        }
        char *o = (char *) zframe_data (frame);
        for (uint64_t i = 0; i < st->ntasks; i++) {
            const result_t *r = &st->results[i];
            size_t len = r->len;
            if (len && ((char *) r->data)[len - 1] == '\n')
                len--;
            if (len)
                memcpy (o, r->data, len);
            o += len;
            *o++ = '\n';
        }
        zframe_destroy (&child->input_frame);
        child->input_frame =
            zframe_new (zframe_data (frame), o - (char *) zframe_data (frame));
        zframe_destroy (&frame);
    }
}

static void
s_on_event (engine_t *e, const hearth_ts_event_t *ev)
{
    hearth_stage_t *st =
        ev->stage < e->stages_alloc ? e->stages[ev->stage] : NULL;
    hearth_job_t *job = s_find_job (e, ev->job);
    char error[512];
    switch (ev->type) {
    case HEARTH_TS_EV_STAGE_DONE:
        if (!st)
            break;
        job_set_progress (st->job, st, st->ntasks, 0, true);
        s_build_inputs (e, st);
        break;
    case HEARTH_TS_EV_JOB_DONE:
        if (job)
            s_end_job (e, job, HEARTH_JOB_SUCCEEDED, NULL);
        break;
    case HEARTH_TS_EV_JOB_FAILED:
        if (!job || !st)
            break;
        snprintf (error, sizeof error,
                  "stage %s, task %llu: lost with its executor %d times",
                  st->name, (unsigned long long) ev->index, ev->attempt + 1);
        engine_fail_job (e, job, error);
        break;
    case HEARTH_TS_EV_KILL:
        execs_send_kill (e, ev->exec_id, DRIVER_TID (ev->stage, ev->index),
                         ev->attempt);
        break;
    }
}

void
engine_process (engine_t *e)
{
    hearth_ts_event_t ev;
    while (hearth_taskset_next_event (e->ts, &ev))
        s_on_event (e, &ev);
    if (!e->stopping)
        execs_offer_all (e);
}

/* ---- the loop ----------------------------------------------------------- */

static int
s_on_pipe (zloop_t *loop, zsock_t *pipe, void *arg)
{
    (void) loop;
    engine_t *e = arg;
    zmsg_t *msg = zmsg_recv (pipe);
    if (!msg)
        return -1;
    char *cmd = zmsg_popstr (msg);
    zframe_t *ptr = zmsg_pop (msg);
    hearth_job_t *job = NULL;
    if (ptr && zframe_size (ptr) == sizeof job)
        memcpy (&job, zframe_data (ptr), sizeof job);
    int rc = 0;
    if (!cmd || streq (cmd, "$TERM"))
        rc = -1;
    else if (streq (cmd, "SUBMIT") && job)
        s_on_submit (e, job);
    else if (streq (cmd, "CANCEL") && job) {
        engine_fail_job (e, job, "cancelled");
        engine_process (e);
        zsock_signal (pipe, 0);
    }
    free (cmd);
    zframe_destroy (&ptr);
    zmsg_destroy (&msg);
    return rc;
}

static bool
s_has_executor (engine_t *e)
{
    for (exec_t *x = zhashx_first (e->execs); x; x = zhashx_next (e->execs))
        if (x->registered)
            return true;
    return false;
}

/* Like Spark's "Initial job has not accepted any resources": say so when
   jobs wait for long with no executor at all. */
static void
s_check_starved (engine_t *e, int64_t now)
{
    if (zlistx_size (e->jobs) == 0 || s_has_executor (e)) {
        e->starved_since_ms = 0;
        e->starved_logged = false;
        return;
    }
    if (!e->starved_since_ms)
        e->starved_since_ms = now;
    if (!e->starved_logged
        && now - e->starved_since_ms > s_starved_warning_ms) {
        log_warn ("no executor after %lld s: are workers registered with "
                  "the master, with enough free cores and memory for "
                  "executor-memory?",
                  (long long) (now - e->starved_since_ms) / 1000);
        e->starved_logged = true;
    }
}

static int
s_on_tick (zloop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    engine_t *e = arg;
    int64_t now = hearth_mono_ms ();
    if (e->mode != MODE_LOCAL)
        master_tick (e);
    if (e->mode != MODE_CLUSTER)
        local_tick (e);
    execs_tick (e);
    s_check_starved (e, now);
    if (now - e->last_spec_ms >= s_speculation_period_ms) {
        e->last_spec_ms = now;
        size_t n = hearth_taskset_speculate (e->ts, hearth_mono_us ());
        if (n)
            log_info ("speculation: %zu straggling tasks copied to run "
                      "elsewhere",
                      n);
    }
    engine_process (e);
    return e->error[0] ? -1 : 0;
}

/* Every application has a token its executors must present.  With a
   secure master link (a tcp:// master and keys), the executors' link is
   encrypted too, with a key pair made for this application alone; its
   public key reaches them through the master and their worker. */
static int
s_security (engine_t *e, hearth_error_t *err)
{
    if (hearth_keys_token (e->token, sizeof e->token) < 0)
        return hearth_errprintf (err, "cannot make the application's token");
    if (e->mode != MODE_CLUSTER)
        return 0; /* our own loopback daemons, or none */
    if (hearth_curve_client_setup (&e->curve, e->conf, e->master_url, err) < 0)
        return -1;
    if (hearth_curve_on (&e->curve) && !(e->app_cert = zcert_new ()))
        return hearth_errprintf (err, "cannot make the application's keys");
    return 0;
}

static int
s_start (engine_t *e, hearth_error_t *err)
{
    const char *name = hearth_conf_str (e->conf, "name");
    snprintf (e->app_name, sizeof e->app_name, "%s", name ? name : "hearth");
    if (local_parse_master (e, hearth_conf_str (e->conf, "master"), err) < 0
        || s_load_libs (e, err) < 0)
        return -1;
    if (!(e->loop = zloop_new ()))
        return hearth_errprintf (err, "out of memory");
    if (s_security (e, err) < 0 || execs_open (e, err) < 0
        || local_start (e, err) < 0)
        return -1;
    return 0;
}

static void
s_shutdown (engine_t *e)
{
    e->stopping = true;
    hearth_job_t *job;
    while ((job = zlistx_first (e->jobs)))
        engine_fail_job (e, job, "the application stopped");
    execs_stop_all (e, "the application is over");
    master_close (e);
    local_stop (e);
    execs_close (e);
    zloop_destroy (&e->loop);
}

void
engine_run (engine_t *e, zsock_t *pipe)
{
    hearth_error_t err;
    e->pipe = pipe;
    if (s_start (e, &err) < 0) {
        engine_signal_ready (e, err.text);
        s_shutdown (e);
        return;
    }
    if (e->mode == MODE_LOCAL)
        engine_signal_ready (e, NULL);
    int64_t tick = e->hb_interval_ms / 4;
    tick = tick < 10 ? 10 : tick > 250 ? 250 : tick;
    zloop_reader (e->loop, pipe, s_on_pipe, e);
    zloop_timer (e->loop, tick, 0, s_on_tick, e);
    zloop_start (e->loop);
    if (!e->signaled)
        engine_signal_ready (e, e->error[0] ? e->error : "start-up failed");
    s_shutdown (e);
}

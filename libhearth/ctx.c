/*  ctx.c - the application context: starting and stopping the engine,
    submitting, running and cancelling jobs. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/sock.h"
#include "libhearth/apiq.h"
#include "libhearth/engine.h"
#include "libhearth/internal.h"
#include "libhearth/persist.h"
#include "libhearth/ship.h"
#include "libhearth/shuffle.h"

static void
s_copy (char *buf, size_t size, const char *text)
{
    if (buf && size)
        snprintf (buf, size, "%s", text);
}

typedef struct {
    engine_t *engine; /* what the thread runs */
    zsock_t *pipe;    /* its end of the pipe (it destroys it) */
} s_thread_arg_t;

static void *
s_engine_thread (void *arg)
{
    s_thread_arg_t *a = arg;
    zsock_t *pipe = a->pipe;
    engine_t *engine = a->engine;
    free (a);
    engine_run (engine, pipe);
    zsock_destroy (&pipe);
    return NULL;
}

/* Start the engine thread and wait for its start-up to end. */
static int
s_start_engine (hearth_ctx_t *ctx)
{
    s_thread_arg_t *a = calloc (1, sizeof *a);
    if (!a || !(ctx->pipe = zsys_create_pipe (&a->pipe))) {
        free (a);
        return -1;
    }
    a->engine = ctx->engine;
    if (pthread_create (&ctx->thread, NULL, s_engine_thread, a) != 0) {
        zsock_destroy (&a->pipe);
        free (a);
        return -1;
    }
    ctx->running = true;
    zsock_wait (ctx->pipe);
    return 0;
}

static void
s_stop_engine (hearth_ctx_t *ctx)
{
    if (ctx->running) {
        apiq_stop (ctx->apiq); /* heard, or the engine is gone already */
        pthread_join (ctx->thread, NULL);
        ctx->running = false;
    }
    zsock_destroy (&ctx->pipe);
}

hearth_ctx_t *
hearth_ctx_new (const hearth_opts_t *opts, char *errbuf, size_t errlen)
{
    hearth_error_t err;
    hearth_ctx_t *ctx = calloc (1, sizeof *ctx);
    if (!ctx) {
        s_copy (errbuf, errlen, "out of memory");
        return NULL;
    }
    if (!(ctx->conf = driver_conf_copy (opts, errbuf, errlen)))
        goto error;
    if (driver_executor_resources (ctx->conf, &ctx->executor_resources, &err)
        < 0) {
        s_copy (errbuf, errlen, err.text);
        goto error;
    }
    /* Log under the name of the program the user ran: hearth-driver, or
       hearth-submit running it, or their own driver program. */
    if (hearth_log_open (program_invocation_short_name,
                         hearth_conf_str (ctx->conf, "log-level"),
                         hearth_conf_str (ctx->conf, "log-file"), &err)
        < 0) {
        s_copy (errbuf, errlen, err.text);
        goto error;
    }
    /* The libraries, checked before anything starts or is shipped. */
    const char *const *libs;
    size_t nlibs = hearth_conf_list (ctx->conf, "lib", &libs);
    if (!(ctx->libfns = libfns_new (libs, nlibs, &err))) {
        s_copy (errbuf, errlen, err.text);
        goto error;
    }
    hearth_zsys_init ();
    ctx->jobs = zlistx_new ();
    ctx->apiq = apiq_new ();
    ctx->engine = ctx->jobs && ctx->apiq ? engine_new (ctx) : NULL;
    if (!ctx->engine) {
        s_copy (errbuf, errlen, "out of memory");
        goto error;
    }
    if (s_start_engine (ctx) < 0 || engine_error (ctx->engine)) {
        s_copy (errbuf, errlen,
                ctx->running ? engine_error (ctx->engine)
                             : "cannot start the driver's engine");
        goto error;
    }
    snprintf (ctx->app_id, sizeof ctx->app_id, "%s",
              engine_app_id (ctx->engine));
    return ctx;
error:
    hearth_ctx_destroy (&ctx);
    return NULL;
}

void
hearth_ctx_destroy (hearth_ctx_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_ctx_t *ctx = *self_p;
    s_stop_engine (ctx);
    engine_destroy (&ctx->engine);
    hearth_job_t *job;
    while (ctx->jobs && (job = zlistx_first (ctx->jobs))) {
        zlistx_delete (ctx->jobs, zlistx_cursor (ctx->jobs));
        job_destroy (&job);
    }
    zlistx_destroy (&ctx->jobs);
    apiq_destroy (&ctx->apiq);
    hearth_conf_destroy (&ctx->conf);
    libfns_destroy (&ctx->libfns);
    hearth_resource_amounts_clear (&ctx->executor_resources);
    free (ctx);
    *self_p = NULL;
    errno = saved;
}

const char *
hearth_ctx_app_id (const hearth_ctx_t *self)
{
    return self ? self->app_id : NULL;
}

const char *
hearth_ctx_error (const hearth_ctx_t *self)
{
    return self ? self->error : "no context";
}

int
hearth_ctx_set_final_state (hearth_ctx_t *self, hearth_app_end_t state,
                            const char *reason)
{
    if (!self || !self->running
        || (state != HEARTH_APP_FINISHED && state != HEARTH_APP_FAILED
            && state != HEARTH_APP_KILLED))
        return errno = EINVAL, -1;
    if (apiq_final (self->apiq, (int) state, reason) < 0)
        return errno = EINVAL, -1; /* the engine has stopped */
    return 0;
}

int
hearth_broadcast_file (hearth_ctx_t *ctx, const char *name, const char *path)
{
    hearth_error_t err;
    ship_t *ship = ctx && ctx->running ? engine_ship (ctx->engine) : NULL;
    if (!ship)
        return errno = EINVAL, -1;
    if (__atomic_load_n (&ctx->submitted, __ATOMIC_ACQUIRE)) {
        snprintf (ctx->error, sizeof ctx->error,
                  "broadcast %s: a job was submitted already: broadcast "
                  "files are added before the first job",
                  name ? name : "");
        return errno = EBUSY, -1;
    }
    if (ship_broadcast_add (ship, name, path, &err) < 0) {
        snprintf (ctx->error, sizeof ctx->error, "%s", err.text);
        return errno = EINVAL, -1;
    }
    return 0;
}

static int
s_job_error (hearth_job_t *job, const char *fmt, const char *name)
{
    char text[512];
    snprintf (text, sizeof text, fmt, name);
    free (job->error);
    job->error = strdup (text);
    errno = EINVAL;
    return -1;
}

/* Order the stages so that every stage comes after its parents (keeping
   the order they were added in where it is free).  -1 on a cycle. */
static int
s_topological_order (hearth_job_t *job)
{
    size_t n = job->nstages, placed = 0;
    hearth_stage_t **order = calloc (n, sizeof *order);
    bool *done = calloc (n, sizeof *done);
    int rc = order && done ? 0 : -1;
    while (rc == 0 && placed < n) {
        bool progress = false;
        for (size_t i = 0; i < n; i++) {
            hearth_stage_t *st = job->stages[i];
            bool ready = !done[i];
            for (size_t p = 0; ready && p < st->nparents; p++)
                for (size_t k = 0; k < n; k++)
                    if (job->stages[k] == st->parents[p] && !done[k])
                        ready = false;
            if (ready) {
                done[i] = true;
                order[placed++] = st;
                progress = true;
            }
        }
        if (!progress)
            rc = -1;
    }
    if (rc == 0)
        memcpy (job->stages, order, n * sizeof *order);
    free (order);
    free (done);
    return rc;
}

int
hearth_job_submit (hearth_job_t *job)
{
    if (!job || job->state != HEARTH_JOB_NEW)
        return errno = EINVAL, -1;
    if (job->nstages == 0)
        return s_job_error (job, "job %s has no stages", job->name);
    for (size_t i = 0; i < job->nstages; i++)
        if (job->stages[i]->ntasks == 0)
            return s_job_error (job, "stage %s has no tasks",
                                job->stages[i]->name);
    char why[512];
    if (persist_adopt (job, why, sizeof why) < 0)
        return s_job_error (job, "%s", why);
    shuffle_mark_read_whole (job);
    for (size_t i = 0; i < job->nstages; i++)
        if (shuffle_check_stage (job->stages[i], why, sizeof why) < 0
            || stage_check_limits (job->stages[i], why, sizeof why) < 0
            || stage_check_functions (job->stages[i], job->ctx->libfns, why,
                                      sizeof why)
                   < 0)
            return s_job_error (job, "%s", why);
    if (s_topological_order (job) < 0)
        return s_job_error (job,
                            "the stages of job %s depend on each other "
                            "in a cycle",
                            job->name);
    __atomic_store_n (&job->ctx->submitted, true, __ATOMIC_RELEASE);
    pthread_mutex_lock (&job->lock);
    job->state = HEARTH_JOB_RUNNING;
    job->submitted_ms = hearth_mono_ms ();
    pthread_mutex_unlock (&job->lock);
    if (apiq_submit (job->ctx->apiq, job) < 0) {
        pthread_mutex_lock (&job->lock);
        job->state = HEARTH_JOB_NEW;
        pthread_mutex_unlock (&job->lock);
        return s_job_error (job,
                            "job %s not submitted: the application "
                            "has stopped",
                            job->name);
    }
    return 0;
}

int
hearth_job_wait (hearth_job_t *job, int timeout_ms)
{
    if (!job || job->state == HEARTH_JOB_NEW)
        return errno = EINVAL, -1;
    struct timespec deadline;
    clock_gettime (CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long) (timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    int rc = 0;
    pthread_mutex_lock (&job->lock);
    while (job->state == HEARTH_JOB_RUNNING && rc == 0)
        rc = timeout_ms < 0
                 ? pthread_cond_wait (&job->ended, &job->lock)
                 : pthread_cond_timedwait (&job->ended, &job->lock, &deadline);
    bool ended = job->state != HEARTH_JOB_RUNNING;
    pthread_mutex_unlock (&job->lock);
    if (!ended)
        return errno = ETIMEDOUT, -1;
    persist_return (job); /* the outputs it made again, for later jobs */
    return 0;
}

int
hearth_job_run (hearth_job_t *job)
{
    if (hearth_job_submit (job) < 0 || hearth_job_wait (job, -1) < 0)
        return -1;
    return hearth_job_state (job) == HEARTH_JOB_SUCCEEDED ? 0 : -1;
}

void
hearth_job_destroy (hearth_job_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_job_t *job = *self_p;
    hearth_ctx_t *ctx = job->ctx;
    if (hearth_job_state (job) == HEARTH_JOB_RUNNING && ctx->running) {
        if (apiq_cancel (ctx->apiq, job) == 0)
            zsock_wait (ctx->pipe); /* cancelled */
    }
    persist_return (job); /* its user may not have waited for it */
    persist_forget (job);
    zlistx_delete (ctx->jobs, job->handle);
    job_destroy (self_p);
    errno = saved;
}

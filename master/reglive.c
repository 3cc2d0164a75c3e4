/*  reglive.c - the registry's liveness: which workers and applications'
    drivers are watched for silence (on the monotonic clock), their signs
    of life, the next one silent past the timeout, and the credit of the
    master's own pauses.  Any message from a known peer is a sign of life;
    see registry.h. */
#include "config.h"

#include "master/registry.h"
#include "master/registry_int.h"

void
registry_touch_worker (registry_t *self, reg_worker_t *worker, int64_t now_ms)
{
    struct reg_worker *w = registry__worker_rw (worker);
    if (!w->peer)
        return;
    hearth_liveness_touch (self->worker_live, w->peer, now_ms);
    w->last_heartbeat_ms = registry_wall_ms ();
}

void
registry_touch_app (registry_t *self, reg_app_t *view, int64_t now_ms)
{
    struct reg_app *app = registry__app_rw (view);
    if (!app->peer)
        return;
    hearth_liveness_touch (self->app_live, app->peer, now_ms);
    app->last_heartbeat_ms = registry_wall_ms ();
}

reg_worker_t *
registry_silent_worker (registry_t *self, int64_t now_ms)
{
    struct reg_worker *w = hearth_liveness_expire (self->worker_live, now_ms);
    if (w)
        w->peer = NULL;
    return w;
}

reg_app_t *
registry_silent_app (registry_t *self, int64_t now_ms)
{
    struct reg_app *app = hearth_liveness_expire (self->app_live, now_ms);
    if (app)
        app->peer = NULL;
    return app;
}

void
registry_liveness_pause (registry_t *self, int64_t gap_ms)
{
    hearth_liveness_pause (self->worker_live, gap_ms);
    hearth_liveness_pause (self->app_live, gap_ms);
}

void
registry__watch_worker (registry_t *self, struct reg_worker *w, int64_t now_ms)
{
    if (w->peer)
        hearth_liveness_touch (self->worker_live, w->peer, now_ms);
    else
        w->peer = hearth_liveness_add (self->worker_live, w, now_ms);
}

void
registry__unwatch_worker (registry_t *self, struct reg_worker *w)
{
    hearth_liveness_remove (self->worker_live, &w->peer);
}

void
registry__watch_app (registry_t *self, struct reg_app *app, int64_t now_ms)
{
    if (app->peer)
        hearth_liveness_touch (self->app_live, app->peer, now_ms);
    else
        app->peer = hearth_liveness_add (self->app_live, app, now_ms);
}

void
registry__unwatch_app (registry_t *self, struct reg_app *app)
{
    hearth_liveness_remove (self->app_live, &app->peer);
}

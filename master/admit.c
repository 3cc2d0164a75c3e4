/*  admit.c - who may talk to hearth-master when it runs with CURVE keys:
    the ZAP handler and the monitors that log refused handshakes, what
    each message's key says (a worker or an application whose key left
    the allow directory ends), and a reload of that directory on SIGHUP
    (removed keys end their workers and applications at once, and the
    events socket's subscribers connect again); see admit.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "master/admit.h"
#include "master/send.h"

/* Binding the events socket again after SIGHUP: tries, and the pause
   between them (its old listener closes asynchronously). */
static const int s_rebind_tries = 100;
static const int s_rebind_pause_ms = 10;
/* A monitor's events read per turn of the loop. */
static const int s_monitor_batch = 64;

/* A peer whose key left the allow directory: its worker or application
   ends now, so that the master sends it nothing more (no
   LAUNCH_EXECUTOR, no token). */
static const char s_key_gone[] =
    "its CURVE key was removed from the allow directory";

/* A worker whose key is still admitted, but no longer as a worker's. */
static const char s_role_gone[] =
    "its CURVE key is no longer a worker key (--curve-allow-workers)";

static void
s_cut_off_worker (master_t *m, reg_worker_t *w, const char *why)
{
    if (w->state != WORKER_ALIVE)
        return;
    log_warn ("worker %s (%s) is DEAD: %s", w->id, w->host, why);
    registry_worker_dead (m->reg, w, why, hearth_mono_ms ());
}

static void
s_cut_off_app (master_t *m, reg_app_t *app)
{
    char reason[sizeof s_key_gone + 32];
    if (app->state > APP_RUNNING)
        return;
    snprintf (reason, sizeof reason, "driver cut off: %s", s_key_gone);
    log_warn ("application %s FAILED: %s", app->id, reason);
    registry_app_end (m->reg, app, APP_FAILED, reason, master_kill_executor, m);
}

void
master_admit_seen (master_t *m, zframe_t *rid, const char *key, bool refused)
{
    void *record;
    peer_kind_t kind = registry_peer (m->reg, rid, &record);
    if (kind == PEER_NONE)
        return;
    if (!refused)
        registry_peer_key (m->reg, kind, record, key);
    else if (kind == PEER_WORKER)
        s_cut_off_worker (m, record, s_key_gone);
    else
        s_cut_off_app (m, record);
}

/* A reload removed keys (or took the worker role from some): end, now,
   the workers and applications that registered with one of them. */
static void
s_cut_off_removed (master_t *m)
{
    hearth_zap_t *zap = m->curve.zap;
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); w; w = zlistx_next (workers))
        if (w->curve_key[0]
            && !(hearth_zap_roles (zap, w->curve_key) & HEARTH_ROLE_WORKER))
            s_cut_off_worker (m, w,
                              hearth_zap_allowed (zap, w->curve_key)
                                  ? s_role_gone
                                  : s_key_gone);
    zlistx_t *gone = zlistx_new ();
    zlistx_t *apps = registry_apps (m->reg);
    for (reg_app_t *a = zlistx_first (apps); gone && a; a = zlistx_next (apps))
        if (a->curve_key[0] && !hearth_zap_allowed (zap, a->curve_key))
            zlistx_add_end (gone, (void *) a);
    for (reg_app_t *a = gone ? zlistx_first (gone) : NULL; a;
         a = zlistx_next (gone))
        s_cut_off_app (m, a); /* not while walking the active list */
    zlistx_destroy (&gone);
}

/* After keys were removed: a PUB socket cannot refuse a subscriber
   message by message, so end all its connections (unbind, and bind again
   at the same address).  Subscribers reconnect on their own, through the
   ZAP handler, which admits only the keys still allowed. */
static void
s_reconnect_subscribers (master_t *m)
{
    char *endpoint = zsock_last_endpoint (m->pub);
    int rc = endpoint ? zsock_unbind (m->pub, "%s", endpoint) : -1;
    /* The old listener closes in libzmq's I/O thread: wait for its port
       (a try or two). */
    for (int i = 0; rc == 0 && i < s_rebind_tries; i++) {
        if (zsock_bind (m->pub, "%s", endpoint) >= 0)
            break;
        if (i + 1 == s_rebind_tries)
            rc = -1;
        zclock_sleep (s_rebind_pause_ms);
    }
    /* unbinding and binding take the socket's mailbox in, as a send
       does: its reader must look (loop.h) */
    hearth_loop_sent (m->loop, m->pub);
    if (rc < 0)
        log_error ("cannot bind the events socket again at %s: %s",
                   endpoint ? endpoint : "?", zmq_strerror (errno));
    else
        log_info ("keys removed: the events socket's subscribers connect "
                  "again, and only admitted keys get through");
    free (endpoint);
}

/* The ZAP and cookie handlers answer every request waiting, and their
   last look (ZMQ_EVENTS, finding none) quiets the socket's descriptor
   after their replies (loop.h). */
static int
s_on_zap (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    (void) sock;
    master_t *m = arg;
    hearth_zap_handle (m->curve.zap);
    return 0;
}

/* A monitor's events, up to a batch (loop.h: 1 when it stopped with
   more left). */
static int
s_on_monitor (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    master_t *m = arg;
    for (int n = 0; n < s_monitor_batch; n++) {
        if (!(zsock_events (sock) & ZMQ_POLLIN))
            return 0;
        hearth_zap_on_monitor (m->curve.zap, sock);
    }
    return 1;
}

static int
s_on_cookie_zap (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    (void) sock;
    master_t *m = arg;
    hearth_cookie_zap_handle (m->curve.cookie_zap);
    return 0;
}

int
master_admit_local (master_t *m, hearth_error_t *err)
{
    char path[1024];
    if (hearth_loop_reader (m->loop,
                            hearth_cookie_zap_sock (m->curve.cookie_zap),
                            s_on_cookie_zap, m)
        < 0)
        return hearth_errprintf (err, "cannot set up the event loop");
    if (hearth_cookie_path (path, sizeof path, NULL) < 0)
        snprintf (path, sizeof path, "the cookie");
    log_info ("no keys: on loopback, only this user's tools are admitted "
              "(they present %s; docs/security.md, \"Local users\")",
              path);
    return 0;
}

int
master_admit_watch (master_t *m, hearth_error_t *err)
{
    zsock_t *router_mon =
        hearth_zap_watch (m->curve.zap, m->router, "ROUTER", err);
    zsock_t *pub_mon =
        router_mon ? hearth_zap_watch (m->curve.zap, m->pub, "events", err)
                   : NULL;
    if (!pub_mon)
        return -1;
    if (hearth_loop_reader (m->loop, hearth_zap_sock (m->curve.zap), s_on_zap,
                            m)
            < 0
        || hearth_loop_reader (m->loop, router_mon, s_on_monitor, m) < 0
        || hearth_loop_reader (m->loop, pub_mon, s_on_monitor, m) < 0)
        return hearth_errprintf (err, "cannot set up the event loop");
    log_info ("CURVE on: %zu client keys admitted",
              hearth_zap_size (m->curve.zap));
    return 0;
}

void
master_admit_reload (master_t *m)
{
    hearth_error_t err;
    if (hearth_zap_reload (m->curve.zap, &err) < 0)
        log_error ("%s", err.text);
    else if (hearth_zap_removed (m->curve.zap) > 0) {
        s_cut_off_removed (m);
        s_reconnect_subscribers (m);
    }
}

int
master_admit_masters (master_t *m, hearth_error_t *err)
{
    if (!m->curve.zap)
        return 0;
    return hearth_zap_admit_key (m->curve.zap, zcert_public_txt (m->curve.cert),
                                 "the masters' key pair", HEARTH_ROLE_MASTER,
                                 err);
}

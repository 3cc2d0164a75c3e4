/*  resume.c - resumable applications, the master's side; see resume.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "libcore/clock.h"
#include "libcore/keys.h"
#include "libcore/log.h"
#include "libcore/zap.h"
#include "master/authz.h"
#include "master/regdrivers.h"
#include "master/resume.h"
#include "master/send.h"

/* RELAUNCHING applications ended per tick. */
static const size_t s_max_ends_per_tick = 1000;

/* --- the window -------------------------------------------------------- */

void
master_app_driver_lost (master_t *m, reg_app_t *app, const char *reason)
{
    if (m->resume_window_ms <= 0) {
        log_warn ("application %s FAILED: %s", app->id, reason);
        registry_app_end (m->reg, app, APP_FAILED, reason, master_kill_executor,
                          m);
        return;
    }
    int64_t deadline = registry_wall_ms () + m->resume_window_ms;
    time_t secs = (time_t) (deadline / 1000);
    struct tm tm;
    char until[32] = "?", text[600];
    if (gmtime_r (&secs, &tm))
        strftime (until, sizeof until, "%H:%M:%S UTC", &tm);
    bool prefixed = strncmp (reason, "driver lost", 11) == 0;
    snprintf (text, sizeof text, "%s%s; kept for resuming until %s",
              prefixed ? "" : "driver lost: ", reason, until);
    log_warn ("application %s RELAUNCHING: %s", app->id, text);
    registry_app_relaunching (m->reg, app, text, deadline, master_kill_executor,
                              m);
}

void
master_resume_tick (master_t *m)
{
    if (m->recovering)
        return;
    int64_t now = registry_wall_ms ();
    const char *window = hearth_conf_str (m->conf, "resume-window");
    char reason[200];
    snprintf (reason, sizeof reason, "driver lost: not resumed within %s",
              window ? window : "the resume window");
    reg_app_t *app;
    for (size_t n = 0; n < s_max_ends_per_tick
                       && (app = registry_relaunching_due (m->reg, now));
         n++) {
        log_warn ("application %s FAILED: %s", app->id, reason);
        registry_app_relaunch_end (m->reg, app, APP_FAILED, reason);
    }
}

/* --- epochs ------------------------------------------------------------ */

bool
master_resume_fenced (master_t *m, zframe_t *rid, reg_app_t *app,
                      const cJSON *b, const char *command)
{
    int64_t epoch = hearth_json_int (b, "driver_epoch", 0);
    if (epoch <= 0 || epoch >= app->epoch)
        return false;
    char text[200];
    snprintf (text, sizeof text,
              "application %s was resumed by a newer driver (epoch %d)",
              app->id, app->epoch);
    master_reject (m, rid, "fenced", text, command);
    return true;
}

/* --- resuming ---------------------------------------------------------- */

hearth_msg_t *
master_registered_app (master_t *m, reg_app_t *app)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTERED_APPLICATION);
    if (!msg)
        return NULL;
    cJSON_AddStringToObject (msg->body, "app_id", app->id);
    cJSON_AddNumberToObject (msg->body, "heartbeat_interval_ms",
                             (double) m->interval_ms);
    cJSON_AddNumberToObject (msg->body, "heartbeat_liveness",
                             (double) m->liveness);
    cJSON_AddNumberToObject (msg->body, "driver_epoch", app->epoch);
    return msg;
}

/* Why app cannot be resumed now into buf, or NULL when it can. */
static const char *
s_not_resumable (reg_app_t *app, const char *id, char *buf, size_t size)
{
    if (!app)
        snprintf (buf, size, "application %s: unknown application", id);
    else if (app->state <= APP_RUNNING)
        snprintf (buf, size, "application %s: its driver is alive (%s)", id,
                  hearth_app_states[app->state]);
    else if (app->state != APP_RELAUNCHING)
        snprintf (buf, size, "application %s: it ended %s (%s)", id,
                  hearth_app_states[app->state],
                  app->end_reason ? app->end_reason : "-");
    else if (app->resume_by_ms <= registry_wall_ms ())
        snprintf (buf, size, "application %s: the resume window passed", id);
    else
        return NULL;
    return buf;
}

/* The sender's key may resume app: its owner's, an operator's, anyone's
   without CURVE. */
static bool
s_may_resume (master_t *m, const hearth_from_t *from, reg_app_t *app)
{
    if (!m->curve.zap || !app->owner[0] || strcmp (app->owner, from->key) == 0)
        return true;
    return (hearth_zap_roles (m->curve.zap, from->key) & HEARTH_ROLE_OPERATOR)
           != 0;
}

/* The RELAUNCHING application b registers again under its app_id, when
   b is its lost driver's own registration (its driver_url and token, its
   epoch if it says one): a driver thought lost that was only cut off
   for longer than the liveness timeout.  Else NULL. */
static reg_app_t *
s_own_app_back (master_t *m, const cJSON *b)
{
    const char *id = hearth_json_str (b, "app_id");
    reg_app_t *app = id ? registry_app (m->reg, id) : NULL;
    const char *token = hearth_json_str (b, "token");
    int64_t epoch = hearth_json_int (b, "driver_epoch", 0);
    if (!app || app->state != APP_RELAUNCHING
        || (epoch > 0 && epoch != app->epoch)
        || strcmp (app->driver_url, hearth_json_str (b, "driver_url")) != 0
        || (app->token && !(token && hearth_keys_token_eq (app->token, token))))
        return NULL;
    return app;
}

/* The RELAUNCHING application of the cluster-mode driver b names, when
   the sender is that driver, or NULL. */
static reg_app_t *
s_driver_app (master_t *m, const hearth_from_t *from, const cJSON *b)
{
    const char *driver_id = hearth_json_str (b, "driver_id");
    reg_driver_t *d = driver_id ? registry_driver (m->reg, driver_id) : NULL;
    if (!d || !d->app_id[0] || !master_sender_is_driver (m, from->key, d))
        return NULL;
    reg_app_t *app = registry_app (m->reg, d->app_id);
    return app && app->state == APP_RELAUNCHING ? app : NULL;
}

int
master_resume_check (master_t *m, const hearth_from_t *from, const cJSON *b,
                     reg_app_t **app)
{
    const char *id = hearth_json_str (b, "resume");
    char text[600];
    *app = NULL;
    if (!id) {
        /* its own driver back, or a supervised driver relaunched:
           resumed without being told */
        reg_app_t *a = hearth_json_str (b, "app_id")
                           ? s_own_app_back (m, b)
                           : s_driver_app (m, from, b);
        if (!a || s_not_resumable (a, a->id, text, sizeof text))
            return 0;
        *app = a;
        return 1;
    }
    reg_app_t *a = registry_app (m->reg, id);
    if (s_not_resumable (a, id, text, sizeof text)) {
        log_info ("REGISTER_APPLICATION resume refused: %s", text);
        master_reject (m, from->rid, "not_resumable", text,
                       "REGISTER_APPLICATION");
        return -1;
    }
    if (!s_may_resume (m, from, a)) {
        snprintf (text, sizeof text,
                  "application %s: only its owner's key or an operator's may "
                  "resume it",
                  id);
        master_reject (m, from->rid, "not_allowed", text,
                       "REGISTER_APPLICATION");
        return -1;
    }
    *app = a;
    return 1;
}

/* A map output on a worker that is DEAD or forgotten is gone. */
static bool
s_held (void *arg, const cJSON *o)
{
    master_t *m = arg;
    const char *kind = hearth_json_str (o, "kind");
    const char *wid = hearth_json_str (o, "worker_id");
    if (!kind || strcmp (kind, "map") != 0 || !wid)
        return true;
    reg_worker_t *w = registry_worker (m->reg, wid);
    return w && w->state != WORKER_DEAD;
}

typedef struct {
    master_t *m;    /* the master */
    zframe_t *rid;  /* the resuming driver */
    reg_app_t *app; /* its application */
    size_t batches; /* sent so far */
    size_t outputs; /* outputs in them */
} s_send_t;

static int
s_send_batch (void *arg, cJSON *batch, bool last)
{
    s_send_t *s = arg;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_APPLICATION_OUTPUTS);
    if (!msg) {
        cJSON_Delete (batch);
        return -1;
    }
    s->outputs += (size_t) cJSON_GetArraySize (batch);
    s->batches++;
    cJSON_AddStringToObject (msg->body, "app_id", s->app->id);
    cJSON_AddItemToObject (msg->body, "outputs", batch);
    if (last)
        cJSON_AddBoolToObject (msg->body, "last", true);
    int64_t max =
        s->app->outputs ? outputs_max_shuffle_id (s->app->outputs) : -1;
    if (last && max >= 0)
        cJSON_AddNumberToObject (msg->body, "max_shuffle_id", (double) max);
    master_send (s->m, s->rid, msg);
    return 0;
}

/* APPLICATION_OUTPUTS: app's table, as batches, to rid. */
static void
s_send_outputs (master_t *m, zframe_t *rid, reg_app_t *app)
{
    s_send_t s = {.m = m, .rid = rid, .app = app};
    if (!app->outputs) { /* nothing recorded: one empty last batch */
        cJSON *empty = cJSON_CreateArray ();
        if (empty)
            s_send_batch (&s, empty, true);
    }
    else
        outputs_list (app->outputs, OUTPUTS_BATCH_MAX, s_held, m, s_send_batch,
                      &s);
    log_info ("application %s resumed (epoch %d): %zu of its %zu outputs "
              "sent in %zu batches",
              app->id, app->epoch, s.outputs,
              app->outputs ? outputs_size (app->outputs) : 0, s.batches);
}

int
master_resume_app (master_t *m, const hearth_from_t *from, reg_app_t *app,
                   const cJSON *b)
{
    registry_app_desc_t desc = {.driver_url = hearth_json_str (b, "driver_url"),
                                .driver_key = hearth_json_str (b, "driver_key"),
                                .curve_key = from->key,
                                .routing_id = from->rid};
    if (registry_app_resume (m->reg, app, &desc, hearth_mono_ms ()) < 0) {
        master_reject (m, from->rid, "no_memory", "master out of memory",
                       "REGISTER_APPLICATION");
        return -1;
    }
    const cJSON *t = cJSON_GetObjectItem (b, "executor_target");
    if (cJSON_IsNumber (t))
        registry_app_set_target (m->reg, app, (int) t->valuedouble);
    hearth_msg_t *reply = master_registered_app (m, app);
    if (reply) {
        cJSON_AddBoolToObject (reply->body, "resumed", true);
        if (app->token)
            cJSON_AddStringToObject (reply->body, "token", app->token);
        master_send (m, from->rid, reply);
    }
    s_send_outputs (m, from->rid, app);
    m->dirty = true;
    return 0;
}

/* --- OUTPUTS_RECORDED -------------------------------------------------- */

void
master_outputs_recorded (void *arg, const hearth_from_t *from,
                         hearth_msg_t *msg)
{
    master_t *m = arg;
    const cJSON *b = msg->body;
    const char *app_id = hearth_json_str (b, "app_id");
    reg_app_t *app = registry_app (m->reg, app_id);
    if (app && master_resume_fenced (m, from->rid, app, b, "OUTPUTS_RECORDED"))
        return;
    void *record = NULL;
    bool self = app && registry_peer (m->reg, from->rid, &record) == PEER_APP
                && record == app;
    char what[HEARTH_ID_MAX + 16];
    snprintf (what, sizeof what, "application %s", app_id);
    master_subject_t s = {.what = what, .self = self};
    if (!master_authorize_on (m, from, HEARTH_CMD_OUTPUTS_RECORDED, &s))
        return;
    if (!self) /* not its link: the row may admit the key, not the news */
        return;
    const cJSON *outputs = cJSON_GetObjectItem (b, "outputs");
    if (registry_app_record_outputs (m->reg, app, outputs) >= 0)
        return;
    if (errno == ENOSPC && registry_app_outputs_warn (m->reg, app))
        log_warn ("application %s: its outputs table is full (%zu outputs): "
                  "a batch of %d refused, and every one after it that adds "
                  "outputs (said once)",
                  app->id, app->outputs ? outputs_size (app->outputs) : 0,
                  cJSON_GetArraySize (outputs));
    else if (errno != ENOSPC)
        log_warn ("application %s: outputs not recorded: out of memory",
                  app->id);
}

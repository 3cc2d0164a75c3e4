/*  waiting.c - why applications and cluster-mode drivers wait, and the
    end of those no live worker can ever hold; see waiting.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/allocwhy.h"
#include "libcore/clock.h"
#include "libcore/labels.h"
#include "libcore/log.h"
#include "master/regdrivers.h"
#include "master/send.h"
#include "master/waiting.h"

/* Holders named in a cluster_full reason; the rest are counted. */
static const int s_max_named = 3;

/* One report. */
typedef struct {
    master_t *m;                   /* the master */
    int64_t now;                   /* monotonic ms */
    int64_t timeout;               /* --unschedulable-timeout (0: never) */
    int64_t due;                   /* the earliest clock due, or 0 */
    hearth_alloc_worker_t *cap;    /* live workers' capacities, made at
                                      first need (owned) */
    hearth_alloc_resource_t **res; /* same index: their addresses by name
                                      (owned arrays, NULL: none) */
    const cJSON **labels;          /* same index: their labels (borrowed) */
    size_t ncap;                   /* entries */
    bool built;                    /* cap was made */
} s_report_t;

static void
s_report_clear (s_report_t *r)
{
    for (size_t i = 0; r->res && i < r->ncap; i++)
        free (r->res[i]);
    free (r->res);
    free (r->cap);
    free (r->labels);
}

/* The live workers' whole capacity into r: ALIVE and not leaving (a
   drained one may be resumed: it counts).  -1 on no memory. */
static int
s_capacity (s_report_t *r)
{
    zlistx_t *workers = registry_workers (r->m->reg);
    size_t n = zlistx_size (workers) + 1;
    r->built = true;
    if (!(r->cap = calloc (n, sizeof *r->cap))
        || !(r->res = calloc (n, sizeof *r->res))
        || !(r->labels = calloc (n, sizeof *r->labels)))
        return -1;
    for (reg_worker_t *w = zlistx_first (workers); w;
         w = zlistx_next (workers)) {
        if (w->state != WORKER_ALIVE || w->decommissioning)
            continue;
        hearth_alloc_resource_t *res = NULL;
        if (w->resources.n && !(res = calloc (w->resources.n, sizeof *res)))
            return -1;
        for (size_t i = 0; i < w->resources.n; i++)
            res[i] = (hearth_alloc_resource_t){w->resources.v[i].name,
                                               (int) w->resources.v[i].naddrs};
        r->res[r->ncap] = res;
        r->labels[r->ncap] = w->labels;
        r->cap[r->ncap++] = (hearth_alloc_worker_t){
            true, w->cores, w->memory_mb, res, w->resources.n};
    }
    return 0;
}

/* need against the live workers carrying wanted (NULL: all of them;
   rule 7, alloc.h: an application with --executor-label is placed on
   those only), NO_WORKER when none does; NONE when they could not be
   looked at (no memory: nothing is said rather than something wrong). */
static void
s_fit (s_report_t *r, const hearth_alloc_need_t *need, const cJSON *wanted,
       hearth_alloc_fit_t *fit)
{
    if (!r->built && s_capacity (r) < 0)
        log_error ("why applications wait: out of memory");
    hearth_alloc_worker_t *on = NULL;
    memset (fit, 0, sizeof *fit);
    if (!r->labels || (wanted && !(on = calloc (r->ncap + 1, sizeof *on))))
        return;
    size_t n = 0;
    for (size_t i = 0; on && i < r->ncap; i++)
        if (hearth_labels_carry (r->labels[i], wanted))
            on[n++] = r->cap[i];
    hearth_alloc_fit (need, on ? on : r->cap, on ? n : r->ncap, fit);
    free (on);
}

/* The unschedulable clock of a record, running since `since` while its
   code is a never code (registry_app_unplaceable), or stopped (0).  True
   when it ran past the timeout. */
static bool
s_clock (s_report_t *r, int64_t since)
{
    if (!since || r->timeout <= 0)
        return false;
    int64_t due = since + r->timeout;
    if (r->now >= due)
        return true;
    if (!r->due || due < r->due)
        r->due = due;
    return false;
}

/* "2m", "90s", "1500ms". */
static void
s_duration (int64_t ms, char *buf, size_t size)
{
    if (ms % 60000 == 0)
        snprintf (buf, size, "%lldm", (long long) (ms / 60000));
    else if (ms % 1000 == 0)
        snprintf (buf, size, "%llds", (long long) (ms / 1000));
    else
        snprintf (buf, size, "%lldms", (long long) ms);
}

/* How the end of an unplaceable record reads. */
static void
s_end_reason (const s_report_t *r, const char *why, char *buf, size_t size)
{
    char after[32];
    s_duration (r->timeout, after, sizeof after);
    snprintf (buf, size, "unschedulable for %s (--unschedulable-timeout): %s",
              after, why);
}

/* Whether the clock of the record (what, id), running since `since`, ran
   out: then its end's reason (why, and for how long) into reason,
   logged. */
static bool
s_expired (s_report_t *r, const char *what, const char *id, int64_t since,
           const char *why, char *reason, size_t size)
{
    if (!s_clock (r, since))
        return false;
    s_end_reason (r, why, reason, size);
    log_warn ("%s %s FAILED: %s", what, id, reason);
    return true;
}

/* Log a record's new reason (was: the one it had, or NULL). */
static void
s_log_new (const char *what, const char *id, const char *was,
           hearth_wait_code_t code, const char *why)
{
    if (code && (!was || strcmp (was, why) != 0))
        log_info ("%s %s waits: %s (%s)", what, id, why,
                  hearth_wait_code_name (code));
}

/* ", app-... (name)" for one holder, or only counted past s_max_named. */
static void
s_holder (char *buf, size_t size, size_t *len, int *named, int *more,
          const char *id, const char *name)
{
    if (*named >= s_max_named) {
        (*more)++;
        return;
    }
    int k = snprintf (buf + *len, size - *len, "%s%s%s%s%s", *named ? ", " : "",
                      id, name ? " (" : "", name ? name : "", name ? ")" : "");
    *len = k > 0 && (size_t) k < size - *len ? *len + (size_t) k : size - 1;
    (*named)++;
}

/* The applications (oldest first) and placed drivers that hold cores,
   but self, into buf: "app-1 (hog), driver-2 and 2 more"; "" when none. */
static void
s_holders (master_t *m, const void *self, char *buf, size_t size)
{
    size_t len = 0;
    int named = 0, more = 0;
    buf[0] = '\0';
    zlistx_t *apps = registry_apps (m->reg);
    for (reg_app_t *a = zlistx_first (apps); a; a = zlistx_next (apps))
        if ((const void *) a != self && a->cores_granted > 0)
            s_holder (buf, size, &len, &named, &more, a->id, a->name);
    zlistx_t *drivers = registry_drivers (m->reg);
    for (reg_driver_t *d = zlistx_first (drivers); d; d = zlistx_next (drivers))
        if ((const void *) d != self && d->worker)
            s_holder (buf, size, &len, &named, &more, d->id, NULL);
    if (more)
        snprintf (buf + len, size - len, " and %d more", more);
}

/* cluster_full's sentence: what of one executor (the driver) is
   wanted, and who holds the cluster's cores. */
static void
s_full_text (master_t *m, const void *self, const char *what,
             const hearth_alloc_need_t *need, char *buf, size_t size)
{
    char mem[32], holders[300];
    hearth_alloc_memory_text (need->memory_mb, mem, sizeof mem);
    s_holders (m, self, holders, sizeof holders);
    if (holders[0])
        snprintf (buf, size,
                  "no worker has room for %s (%d core%s, %s) now: it waits "
                  "for the cores held by %s",
                  what, need->cores, need->cores == 1 ? "" : "s", mem, holders);
    else
        snprintf (buf, size,
                  "no worker that could hold %s (%d core%s, %s) takes it "
                  "now: drained, failing its launches, or still stopping "
                  "the executors of ended applications",
                  what, need->cores, need->cores == 1 ? "" : "s", mem);
}

/* Whether app wants cores and has no executor. */
static bool
s_starved (const reg_app_t *app, const hearth_alloc_app_t *view)
{
    return hearth_alloc_app_wants (view) && registry_app_executors (app) == 0;
}

/* app's code and reason (why, "" for none). */
static hearth_wait_code_t
s_app_why (s_report_t *r, const waiting_pass_t *p, size_t i, char *why,
           size_t size)
{
    reg_app_t *app = p->arec[i];
    const hearth_alloc_app_t *view = &p->apps[i];
    bool starved = s_starved (app, view);
    hearth_alloc_need_t need = {
        view->cores_per_executor ? view->cores_per_executor : 1,
        view->memory_per_executor_mb, view->resources, view->nresources};
    hearth_alloc_fit_t fit = {0};
    why[0] = '\0';
    if (starved)
        s_fit (r, &need, app->executor_labels, &fit);
    if (hearth_wait_never (fit.code) && app->executor_labels) {
        char want[400];
        hearth_labels_text (app->executor_labels, want, sizeof want);
        if (fit.code == HEARTH_WAIT_NO_WORKER) {
            snprintf (why, size,
                      "asks executors on workers labelled %s; no live "
                      "worker is",
                      want);
            return HEARTH_WAIT_LABELS_MISSING;
        }
        int k = snprintf (why, size, "on workers labelled %s: ", want);
        size_t at = k > 0 && (size_t) k < size ? (size_t) k : size - 1;
        hearth_alloc_fit_text (&need, &fit, "per executor", why + at,
                               size - at);
        return fit.code;
    }
    if (hearth_wait_never (fit.code)) {
        hearth_alloc_fit_text (&need, &fit, "per executor", why, size);
        return fit.code;
    }
    if (p->apps_capped && p->apps_capped[i] && view->group) {
        char key[300];
        limits_key_text (r->m->curve.zap, app->owner, view->group, key,
                         sizeof key);
        snprintf (why, size, "%s: %s", key,
                  starved ? "it waits until that key's applications free "
                            "cores"
                          : "it runs on fewer cores than it asks until that "
                            "key's applications free some");
        return HEARTH_WAIT_KEY_LIMIT;
    }
    if (!starved)
        return HEARTH_WAIT_NONE;
    s_full_text (r->m, app, "one executor", &need, why, size);
    return HEARTH_WAIT_CLUSTER_FULL;
}

static void
s_app (s_report_t *r, const waiting_pass_t *p, size_t i)
{
    reg_app_t *app = p->arec[i];
    char why[700], reason[900];
    hearth_wait_code_t code = s_app_why (r, p, i, why, sizeof why);
    int64_t since = registry_app_unplaceable (r->m->reg, app,
                                              hearth_wait_never (code), r->now);
    if (s_expired (r, "application", app->id, since, why, reason,
                   sizeof reason)) {
        registry_app_end (r->m->reg, app, APP_FAILED, reason,
                          master_kill_executor, r->m);
        return; /* app may be gone */
    }
    s_log_new ("application", app->id, app->waiting, code, why);
    registry_app_set_waiting (r->m->reg, app, hearth_wait_code_name (code),
                              code ? why : NULL);
}

/* d's code and reason (d unplaced after the passes). */
static hearth_wait_code_t
s_driver_why (s_report_t *r, const waiting_pass_t *p, size_t i, char *why,
              size_t size)
{
    reg_driver_t *d = p->drec[i];
    hearth_alloc_need_t need = {d->cores, d->memory_mb, NULL, 0};
    hearth_alloc_fit_t fit;
    s_fit (r, &need, NULL, &fit);
    if (hearth_wait_never (fit.code)) {
        hearth_alloc_fit_text (&need, &fit, "for the driver", why, size);
        return fit.code;
    }
    if (p->drivers_capped && p->drivers_capped[i] && p->drivers[i].group) {
        char key[300];
        limits_key_text (r->m->curve.zap, d->owner, p->drivers[i].group, key,
                         sizeof key);
        snprintf (why, size,
                  "%s: the driver waits until that key's applications free "
                  "cores",
                  key);
        return HEARTH_WAIT_KEY_LIMIT;
    }
    s_full_text (r->m, d, "the driver", &need, why, size);
    return HEARTH_WAIT_CLUSTER_FULL;
}

static void
s_driver (s_report_t *r, const waiting_pass_t *p, size_t i)
{
    reg_driver_t *d = p->drec[i];
    if (d->worker || registry_driver_final (d->state))
        return; /* placed in the pass: no longer waiting */
    char why[700], reason[900];
    hearth_wait_code_t code = s_driver_why (r, p, i, why, sizeof why);
    int64_t since = registry_driver_unplaceable (
        r->m->reg, d, hearth_wait_never (code), r->now);
    if (s_expired (r, "driver", d->id, since, why, reason, sizeof reason)) {
        registry_driver_update_t u = {
            .state = DRIVER_FAILED, .error = reason, .exit_status = -1};
        registry_driver_set_state (r->m->reg, d, &u);
        return;
    }
    s_log_new ("driver", d->id, d->waiting, code, why);
    registry_driver_set_waiting (r->m->reg, d, hearth_wait_code_name (code),
                                 why);
}

void
master_waiting_report (master_t *m, const waiting_pass_t *pass)
{
    s_report_t r = {.m = m, .now = hearth_mono_ms ()};
    r.timeout = hearth_conf_ms (m->conf, "unschedulable-timeout");
    limits_pass_recount (pass->limits, m->reg);
    for (size_t i = 0; i < pass->napps; i++)
        s_app (&r, pass, i);
    for (size_t i = 0; i < pass->ndrivers; i++)
        s_driver (&r, pass, i);
    s_report_clear (&r);
    m->waiting_due_ms = r.due;
}

bool
master_waiting_asleep (master_t *m)
{
    return !m->dirty && m->waiting_only
           && hearth_mono_ms () < m->waiting_due_ms;
}

void
master_waiting_hold (master_t *m)
{
    m->waiting_only = !m->held && m->waiting_due_ms > 0;
    if (m->waiting_only)
        m->held = true;
}

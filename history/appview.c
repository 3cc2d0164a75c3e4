/*  appview.c - one application's summary document; see appview.h.

    The JSON document is the one result: --json prints it, apptext.c
    renders the text from it, so the two never disagree.
*/
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "history/apptext.h"
#include "history/apptimeline.h"
#include "history/appview.h"
#include "history/scan.h"
#include "libcore/ctlchars.h"

/* Bytes in a MiB (memory_mb against peak_rss_bytes). */
static const int64_t s_mib = 1024 * 1024;

/* ---- small builders: each adds one member; NULL / -1 become null ---- */

static void
s_str (cJSON *o, const char *k, const char *v)
{
    if (v)
        cJSON_AddStringToObject (o, k, v);
    else
        cJSON_AddNullToObject (o, k);
}

static void
s_int (cJSON *o, const char *k, int64_t v)
{
    if (v >= 0)
        cJSON_AddNumberToObject (o, k, (double) v);
    else
        cJSON_AddNullToObject (o, k);
}

static void
s_ratio (cJSON *o, const char *k, double num, double den)
{
    if (num >= 0 && den > 0)
        cJSON_AddNumberToObject (o, k,
                                 (double) (int64_t) (num / den * 1e4) / 1e4);
    else
        cJSON_AddNullToObject (o, k);
}

/* p50, p95, max of sorted run times (µs), under key, or null. */
static void
s_percentiles (cJSON *o, const char *k, const hist_vec_t *v)
{
    if (v->n == 0) {
        cJSON_AddNullToObject (o, k);
        return;
    }
    cJSON *p = cJSON_AddObjectToObject (o, k);
    if (!p)
        return;
    s_int (p, "count", (int64_t) v->n);
    s_int (p, "p50_us", hist_percentile (v, 50));
    s_int (p, "p95_us", hist_percentile (v, 95));
    s_int (p, "max_us", v->v[v->n - 1]);
}

/* ---- sections ------------------------------------------------------------ */

static void
s_head (cJSON *doc, const hist_app_t *a, const char *state, const char *reason,
        int64_t now_ms)
{
    s_str (doc, "id", a->id);
    s_str (doc, "app_id", a->app_id);
    s_str (doc, "name", a->name);
    s_str (doc, "user", a->user);
    s_str (doc, "master", a->master);
    s_str (doc, "host", a->host);
    s_int (doc, "pid", a->pid > 0 ? a->pid : -1);
    s_str (doc, "state", state);
    s_str (doc, "reason", reason);
    cJSON_AddBoolToObject (doc, "ended", a->state != NULL);
    s_int (doc, "start_ms", a->start_ms);
    s_int (doc, "end_ms", a->end_ms);
    s_int (doc, "last_ms", a->last_ms);
    int64_t end = a->end_ms >= 0                   ? a->end_ms
                  : strcmp (state, "RUNNING") == 0 ? now_ms
                                                   : a->last_ms;
    s_int (doc, "duration_ms", a->start_ms >= 0 ? end - a->start_ms : -1);
    s_int (doc, "cores", a->cores_max);
    s_int (doc, "cores_added", a->cores_sum);
}

static void
s_jobs (cJSON *doc, hist_detail_t *d)
{
    size_t n;
    const hist_job_t *jobs = hist_detail_jobs (d, &n);
    cJSON *list = cJSON_AddArrayToObject (doc, "jobs");
    for (size_t i = 0; list && i < n; i++) {
        const hist_job_t *j = &jobs[i];
        cJSON *o = j->seen ? cJSON_CreateObject () : NULL;
        if (!o || !cJSON_AddItemToArray (list, o))
            continue;
        s_int (o, "job", (int64_t) i);
        s_str (o, "name", j->name);
        s_int (o, "stages", j->stages);
        s_str (o, "state", j->state ? j->state : "RUNNING");
        s_str (o, "error", j->error);
        s_int (o, "start_ms", j->start_ms);
        s_int (o, "end_ms", j->end_ms);
    }
}

/* The stage's attempts by the locality level they were offered at:
   "locality": {"NODE_LOCAL": n, ...}, the levels met only; absent when
   every attempt was NO_PREF (no task of it preferred a place). */
static void
s_locality (cJSON *o, const hist_stage_t *s)
{
    if (s->local[0] == s->started)
        return;
    cJSON *l = cJSON_AddObjectToObject (o, "locality");
    for (size_t i = 0; l && i < HIST_LOCALITIES; i++)
        if (s->local[i])
            s_int (l, hist_localities[i], s->local[i]);
}

/* The state a stage is shown in: SKIPPED when a resumed driver ran none
   of its tasks (its stage_end says SUCCEEDED: its outputs were an
   earlier driver's); else its stage_end's, RUNNING until then. */
static const char *
s_stage_state (const hist_stage_t *s)
{
    bool ok = !s->state || strcmp (s->state, "SUCCEEDED") == 0;
    if (s->skipped && s->started == 0 && ok)
        return "SKIPPED";
    return s->state ? s->state : "RUNNING";
}

static void
s_stages (cJSON *doc, hist_detail_t *d)
{
    size_t n;
    const hist_stage_t *st = hist_detail_stages (d, &n);
    cJSON *list = cJSON_AddArrayToObject (doc, "stages");
    for (size_t i = 0; list && i < n; i++) {
        const hist_stage_t *s = &st[i];
        cJSON *o = s->seen ? cJSON_CreateObject () : NULL;
        if (!o || !cJSON_AddItemToArray (list, o))
            continue;
        s_int (o, "stage", (int64_t) i);
        s_int (o, "job", s->job);
        s_str (o, "name", s->name);
        s_int (o, "tasks", s->tasks);
        s_int (o, "cached", s->cached);
        s_int (o, "runs", s->runs);
        s_str (o, "state", s_stage_state (s));
        cJSON_AddBoolToObject (o, "skipped", s->skipped);
        s_str (o, "skip_reason", s->skip_reason);
        s_int (o, "finished", s->finished);
        s_int (o, "attempts_started", s->started);
        s_int (o, "attempts_ended", s->ended);
        s_int (o, "speculative", s->speculative);
        s_locality (o, s);
        s_int (o, "accepted", s->accepted);
        s_int (o, "failed", s->failed);
        s_int (o, "killed", s->killed);
        s_int (o, "lost", s->lost);
        s_int (o, "start_ms", s->start_ms);
        s_int (o, "end_ms", s->end_ms);
        s_percentiles (o, "run", &s->ok_us);
    }
}

/* Whether a driver resumed the application: resumed, the outputs of
   its earlier drivers given back (null: not resumed), and the stages
   it skipped. */
static void
s_resumed (cJSON *doc, hist_detail_t *d)
{
    size_t n;
    const hist_stage_t *st = hist_detail_stages (d, &n);
    int64_t skipped = 0;
    for (size_t i = 0; i < n; i++)
        skipped += st[i].seen && st[i].skipped;
    int64_t outputs = hist_detail_app (d)->resumed;
    cJSON_AddBoolToObject (doc, "resumed", outputs >= 0);
    s_int (doc, "resumed_outputs", outputs);
    s_int (doc, "stages_skipped", skipped);
}

static void
s_slowest (cJSON *doc, hist_detail_t *d)
{
    size_t n;
    const hist_attempt_t *top = hist_detail_top (d, &n);
    cJSON *list = cJSON_AddArrayToObject (doc, "slowest");
    for (size_t i = 0; list && i < n; i++) {
        cJSON *o = cJSON_CreateObject ();
        if (!o || !cJSON_AddItemToArray (list, o))
            continue;
        s_int (o, "stage", top[i].stage);
        s_int (o, "index", top[i].index);
        s_int (o, "attempt", top[i].attempt);
        s_int (o, "executor", top[i].executor);
        s_int (o, "run_us", top[i].run_us);
        s_str (o, "state", top[i].state);
        s_str (o, "outcome", top[i].outcome);
    }
}

static void
s_failures (cJSON *doc, hist_detail_t *d)
{
    size_t n;
    const hist_taskfail_t *f = hist_detail_fails (d, &n);
    cJSON *list = cJSON_AddArrayToObject (doc, "failures");
    for (size_t i = 0; list && i < n; i++) {
        cJSON *o = cJSON_CreateObject ();
        if (!o || !cJSON_AddItemToArray (list, o))
            continue;
        s_int (o, "stage", f[i].stage);
        s_int (o, "index", f[i].index);
        s_int (o, "failed_attempts", f[i].failed);
        s_int (o, "last_attempt", f[i].last_attempt);
        s_int (o, "last_executor", f[i].last_executor);
        s_str (o, "last_error", f[i].last_error);
        s_str (o, "result",
               f[i].succeeded ? "succeeded"
               : f[i].gave_up ? "gave_up"
                              : "none");
    }
}

/* An executor's lifetime: the log's, its removal less its start, or up
   to the application's end (or now, running). */
static int64_t
s_lifetime (const hist_exec_t *x, int64_t app_end_ms)
{
    if (x->lifetime_ms >= 0)
        return x->lifetime_ms;
    int64_t end = x->removed_ms >= 0 ? x->removed_ms : app_end_ms;
    return x->added_ms >= 0 && end >= x->added_ms ? end - x->added_ms : 0;
}

/* The executors, and the sums the accounting needs. */
static void
s_execs (cJSON *doc, hist_detail_t *d, int64_t app_end_ms, int64_t *core_ms,
         int64_t *mem_mb, int64_t *peak, int64_t *known)
{
    size_t n;
    const hist_exec_t *xs = hist_detail_execs (d, &n);
    cJSON *list = cJSON_AddArrayToObject (doc, "executors");
    *core_ms = *mem_mb = *peak = *known = 0;
    for (size_t i = 0; list && i < n; i++) {
        const hist_exec_t *x = &xs[i];
        cJSON *o = x->seen ? cJSON_CreateObject () : NULL;
        if (!o || !cJSON_AddItemToArray (list, o))
            continue;
        int64_t life = s_lifetime (x, app_end_ms);
        *core_ms += x->cores * life;
        s_int (o, "executor", (int64_t) i);
        s_str (o, "host", x->host);
        s_str (o, "worker", x->worker);
        s_int (o, "cores", x->cores);
        s_int (o, "memory_mb", x->memory_mb);
        s_int (o, "added_ms", x->added_ms);
        s_int (o, "removed_ms", x->removed_ms);
        s_int (o, "lifetime_ms", life);
        s_str (o, "reason", x->reason);
        s_int (o, "tasks_lost", x->tasks_lost);
        s_int (o, "attempts", x->attempts);
        s_int (o, "failed", x->failed);
        s_int (o, "peak_rss_bytes", x->peak_rss);
        s_ratio (o, "memory_ratio", (double) x->peak_rss,
                 x->memory_mb > 0 ? (double) (x->memory_mb * s_mib) : -1);
        if (x->peak_rss >= 0 && x->memory_mb > 0) {
            *mem_mb += x->memory_mb;
            *peak += x->peak_rss;
            (*known)++;
        }
    }
}

static void
s_accounting (cJSON *doc, hist_detail_t *d, int64_t app_end_ms)
{
    int64_t core_ms, mem_mb, peak, known, run_us, started, ended, dropped;
    s_execs (doc, d, app_end_ms, &core_ms, &mem_mb, &peak, &known);
    hist_detail_counts (d, &run_us, &started, &ended, &dropped);
    cJSON *o = cJSON_AddObjectToObject (doc, "accounting");
    if (!o)
        return;
    int64_t res = hist_detail_end_total (d, "core_ms_reserved");
    int64_t used = hist_detail_end_total (d, "core_ms_used");
    cJSON_AddStringToObject (o, "core_ms_reserved_from",
                             res >= 0 ? "app_end" : "executors");
    cJSON_AddStringToObject (o, "core_ms_used_from",
                             used >= 0 ? "app_end" : "task_end");
    res = res >= 0 ? res : core_ms;
    used = used >= 0 ? used : run_us / 1000;
    s_int (o, "core_ms_reserved", res);
    s_int (o, "core_ms_used", used);
    s_ratio (o, "core_ratio", (double) used, (double) res);
    s_int (o, "memory_executors_known", known);
    s_int (o, "memory_mb_reserved", known ? mem_mb : -1);
    s_int (o, "peak_rss_bytes", known ? peak : -1);
    s_ratio (o, "memory_ratio", known ? (double) peak : -1,
             (double) (mem_mb * s_mib));
    cJSON *t = cJSON_AddObjectToObject (doc, "tasks");
    if (!t)
        return;
    const hist_app_t *a = hist_detail_app (d);
    s_int (t, "attempts_started", started);
    s_int (t, "attempts_ended", ended);
    s_int (t, "succeeded", a->tasks_ok);
    s_int (t, "failed_attempts", a->tasks_failed);
    s_percentiles (t, "run", hist_detail_ok_us (d));
    s_int (doc, "events_dropped", dropped);
}

cJSON *
hist_appview_json (hist_detail_t *d, const char *state, const char *reason,
                   int64_t now_ms)
{
    cJSON *doc = cJSON_CreateObject ();
    if (!doc)
        return NULL;
    const hist_app_t *a = hist_detail_app (d);
    s_head (doc, a, state, reason, now_ms);
    s_resumed (doc, d);
    const cJSON *settings = hist_detail_settings (d);
    cJSON *copy = settings ? cJSON_Duplicate (settings, true) : NULL;
    if (copy)
        cJSON_AddItemToObject (doc, "settings", copy);
    else
        cJSON_AddNullToObject (doc, "settings");
    int64_t end = a->end_ms >= 0                   ? a->end_ms
                  : strcmp (state, "RUNNING") == 0 ? now_ms
                                                   : a->last_ms;
    s_accounting (doc, d, end);
    s_jobs (doc, d);
    s_stages (doc, d);
    s_slowest (doc, d);
    s_failures (doc, d);
    s_int (doc, "lines", a->lines);
    s_int (doc, "bad_lines", a->bad_lines);
    s_int (doc, "long_lines", a->long_lines);
    cJSON_AddBoolToObject (doc, "cut_last_line", a->cut);
    /* a member missing for want of memory: no half document */
    static const char *const need[] = {
        "accounting", "tasks",     "jobs",    "stages",       "slowest",
        "failures",   "executors", "resumed", "cut_last_line"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!cJSON_GetObjectItemCaseSensitive (doc, need[i])) {
            cJSON_Delete (doc);
            return NULL;
        }
    return doc;
}

/* ---- the command --------------------------------------------------------- */

/* The logs of the application's other drivers beside this one (a
   resumed application: scan.h): driver_epoch, earlier_log, later_log
   (stems or null).  0, or -1 when out of memory. */
static int
s_drivers (cJSON *doc, const hist_dir_t *dl, const hist_log_t *log)
{
    s_int (doc, "driver_epoch", (int64_t) hist_driver_epoch (log->id));
    s_str (doc, "earlier_log", hist_dir_prev_driver (dl, log->id));
    s_str (doc, "later_log", hist_dir_next_driver (dl, log->id));
    return cJSON_GetObjectItemCaseSensitive (doc, "later_log") ? 0 : -1;
}

static int
s_feed (void *arg, const char *text, size_t len, bool first)
{
    return hist_detail_feed (arg, text, len, first) < 0 ? -1 : 0;
}

/* The axis's end of the timeline: as the summary's duration. */
static int64_t
s_end_ms (const hist_app_t *a, const char *state, int64_t now_ms)
{
    return a->end_ms >= 0                   ? a->end_ms
           : strcmp (state, "RUNNING") == 0 ? now_ms
                                            : a->last_ms;
}

/* The document of log, read into d (finished) as rd says; the timeline
   into *timeline when asked.  NULL when out of memory. */
static cJSON *
s_document (hist_detail_t *d, const hist_dir_t *dl, const hist_log_t *log,
            const hist_read_t *rd, int64_t stale_ms, char **timeline)
{
    hist_app_t *a = hist_detail_app (d);
    a->cut = rd->cut;
    a->long_lines = (int64_t) rd->long_lines;
    a->lines += a->long_lines;
    a->bad_lines += a->long_lines;
    hist_here_t here;
    char reason[512];
    hist_here_init (&here, stale_ms);
    const char *state =
        hist_shown_state_in (a, dl, log, &here, reason, sizeof reason);
    cJSON *doc = hist_appview_json (d, state, reason, here.now_ms);
    if (doc && s_drivers (doc, dl, log) == 0
        && (!timeline
            || (*timeline =
                    hist_apptimeline (d, s_end_ms (a, state, here.now_ms)))))
        return doc;
    cJSON_Delete (doc);
    return NULL;
}

cJSON *
hist_appview_doc (const char *dir, const char *app_id, int top,
                  int64_t stale_ms, char **timeline, bool *missing,
                  hearth_error_t *err)
{
    hist_dir_t dl;
    *missing = false;
    err->text[0] = '\0'; /* a reader's -1 without a text: out of memory */
    if (hist_dir_scan (dir, &dl, err) < 0)
        return NULL;
    const hist_log_t *log = hist_dir_find (&dl, app_id);
    hist_detail_t *d = log ? hist_detail_new (app_id, top) : NULL;
    cJSON *doc = NULL;
    hist_read_t rd = {.cut = false};
    int rc;
    if (timeline)
        *timeline = NULL;
    if (!log) {
        *missing = true;
        hearth_errprintf (err, "no application %s in %s (no %s/%s.events)",
                          app_id, dir, dir, app_id);
    }
    else if (!d || (timeline && hist_detail_keep_timeline (d) < 0))
        hearth_errprintf (err, "out of memory");
    else if ((rc = hist_log_read (dir, log, s_feed, d, &rd, err)) != 0) {
        if (rc > 0 || !err->text[0])
            hearth_errprintf (err, "out of memory");
    }
    else if (!hist_detail_app (d)->is_log) {
        *missing = true;
        hearth_errprintf (err,
                          "%s/%s is not an event log (its first line is not "
                          "a log_start)",
                          dir, log->files[0].name);
    }
    else if (hist_detail_finish (d) < 0)
        hearth_errprintf (err, "out of memory");
    else if (!(doc = s_document (d, &dl, log, &rd, stale_ms, timeline)))
        hearth_errprintf (err, "out of memory");
    hist_detail_destroy (&d);
    hist_dir_release (&dl);
    return doc;
}

int
hist_appview (const char *dir, const char *app_id, bool json, int top,
              int64_t stale_ms, FILE *out, FILE *err_out)
{
    hearth_error_t err;
    bool missing;
    cJSON *doc =
        hist_appview_doc (dir, app_id, top, stale_ms, NULL, &missing, &err);
    if (!doc) {
        hearth_ctl_fprintf (err_out, "hearth-history: %s\n", err.text);
        return 1;
    }
    const cJSON *skipped = cJSON_GetObjectItemCaseSensitive (doc, "long_lines");
    if (cJSON_IsNumber (skipped) && skipped->valuedouble > 0)
        hearth_ctl_fprintf (
            err_out,
            "hearth-history: %s/%s: skipped %.0f line%s over 1 MiB, "
            "counted as bad lines\n",
            dir, app_id, skipped->valuedouble,
            skipped->valuedouble == 1 ? "" : "s");
    int rc = 0;
    char *text = json ? cJSON_PrintUnformatted (doc) : NULL;
    if (json && !text) {
        fprintf (err_out, "hearth-history: out of memory\n");
        rc = 1;
    }
    else if (json)
        fprintf (out, "%s\n", text);
    /* text for a terminal: the log's names, reasons, errors escaped */
    else if (hearth_ctl_escape_json (doc) < 0) {
        fprintf (err_out, "hearth-history: out of memory\n");
        rc = 1;
    }
    else
        hist_apptext (out, doc);
    free (text);
    cJSON_Delete (doc);
    return rc;
}

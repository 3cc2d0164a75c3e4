/*  webpage_master.c - the master's pages: the cluster (/) and one
    application (/app/ID); see webpage.h.

    The tables here and the script's (webpage_js.c) show the same columns
    in the same way: what a page shows without JavaScript is what it
    shows after its first poll. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libcore/proto.h"
#include "libcore/stateview.h"
#include "libcore/webpage.h"
#include "libcore/webpage_int.h"

static const char *const s_worker_cols[] = {
    "Worker",    "Host",      "State",     "Cores", "Memory",
    "Heartbeat", "Executors", "Resources", NULL};
static const char *const s_running_cols[] = {"Application",
                                             "Name",
                                             "State",
                                             "Submitted",
                                             "Duration",
                                             "Cores",
                                             "Memory per executor",
                                             "Executors",
                                             "Progress",
                                             "Waiting",
                                             NULL};
/* (Spark's completed applications show their cores and user too: the
   cores those it held at most) */
static const char *const s_completed_cols[] = {
    "Application", "Name",        "Cores",  "User", "Submitted",
    "Duration",    "Final state", "Reason", NULL};
static const char *const s_driver_cols[] = {
    "Driver", "Name",      "Application", "State",   "Worker", "Cores",
    "Memory", "Submitted", "Logs",        "Waiting", NULL};
static const char *const s_stage_cols[] = {"Job",    "Stage",    "Name",
                                           "Tasks",  "Finished", "Running",
                                           "Failed", "Progress", NULL};
static const char *const s_exec_cols[] = {
    "Executor", "Worker",      "Host", "Cores",     "Memory",
    "State",    "Exit reason", "Logs", "Resources", NULL};
static const char *const s_ended_cols[] = {"Executor", "Worker", "Host",
                                           "State",    "Exit",   "Exit reason",
                                           "Ended",    "Logs",   NULL};

static const cJSON *
s_list (const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive (o, name);
}

/* Whether an application's state is final. */
static bool
s_app_ended (const cJSON *a)
{
    const char *st = hearth_view_text (a, "state");
    return strcmp (st, "FINISHED") == 0 || strcmp (st, "FAILED") == 0
           || strcmp (st, "KILLED") == 0;
}

/* A driver's state is final. */
static bool
s_driver_ended (const cJSON *d)
{
    const char *st = hearth_view_text (d, "state");
    return strcmp (st, "FINISHED") == 0 || strcmp (st, "FAILED") == 0
           || strcmp (st, "KILLED") == 0 || strcmp (st, "ERROR") == 0;
}

/* What a table's rows need: the state (its time, its workers' web_url)
   and whether they offer kill links. */
typedef struct {
    const cJSON *state; /* the master's state */
    bool kill;          /* kill links beside what has not ended */
} s_rows_ctx_t;

/* " (kill)": a link to the confirmation page of the kill of kind id. */
static void
s_kill_link (FILE *out, const char *kind, const char *id)
{
    fprintf (out, " <a class=\"kill\" href=\"/%s/", kind);
    hearth_html_urlarg (out, id);
    fputs ("/confirm-kill\">(kill)</a>", out);
}

/* The state's time: its time_ms. */
static int64_t
s_now (const cJSON *state)
{
    return (int64_t) hearth_view_num (state, "time_ms");
}

/* A submit time to the second, "-" when none. */
static void
s_stamp (double ms, char *buf, size_t size)
{
    char stamp[64];
    if (ms <= 0) {
        snprintf (buf, size, "-");
        return;
    }
    hearth_view_stamp (ms, stamp, sizeof stamp);
    snprintf (buf, size, "%.19sZ", stamp);
}

/* How long something that started at start ran: until end, else until
   now; "-" without a start. */
static void
s_span (double start, double end, int64_t now, char *buf, size_t size)
{
    if (start <= 0)
        snprintf (buf, size, "-");
    else
        hearth_view_duration (
            (int64_t) ((end > 0 ? end : (double) now) - start), buf, size);
}

static void
s_summary (FILE *out, const cJSON *state)
{
    const cJSON *w, *a, *d;
    int alive = 0, workers = 0, apps_on = 0, apps_done = 0, drv_on = 0,
        drv_done = 0;
    double cores = 0, cores_used = 0, mem = 0, mem_used = 0;
    cJSON_ArrayForEach (w, s_list (state, "workers"))
    {
        workers++;
        if (strcmp (hearth_view_text (w, "state"), "ALIVE") != 0)
            continue;
        alive++;
        cores += hearth_view_num (w, "cores");
        cores_used += hearth_view_num (w, "cores_used");
        mem += hearth_view_num (w, "memory_mb");
        mem_used += hearth_view_num (w, "memory_used_mb");
    }
    cJSON_ArrayForEach (a, s_list (state, "apps")) s_app_ended (a) ? apps_done++
                                                                   : apps_on++;
    cJSON_ArrayForEach (d, s_list (state, "drivers")) s_driver_ended (d)
        ? drv_done++
        : drv_on++;
    char text[128];
    hearth_html_summary_open (out);
    hearth_html_summary_item (out, "Status",
                              hearth_view_text (state, "status"));
    hearth_html_summary_item (out, "URL", hearth_view_text (state, "url"));
    if (cJSON_GetObjectItemCaseSensitive (state, "role")) {
        /* a master elected through ZooKeeper (issue 17) */
        hearth_html_summary_item (out, "Role",
                                  hearth_view_text (state, "role"));
        hearth_html_summary_item (out, "Leader",
                                  hearth_view_text (state, "leader"));
    }
    hearth_html_summary_item (out, "Web", hearth_view_text (state, "web_url"));
    s_span (hearth_view_num (state, "started_ms"), 0, s_now (state), text,
            sizeof text);
    hearth_html_summary_item (out, "Uptime", text);
    snprintf (text, sizeof text, "%d alive of %d", alive, workers);
    hearth_html_summary_item (out, "Workers", text);
    snprintf (text, sizeof text, "%.0f / %.0f", cores_used, cores);
    hearth_html_summary_item (out, "Cores", text);
    snprintf (text, sizeof text, "%.0f / %.0f MiB", mem_used, mem);
    hearth_html_summary_item (out, "Memory", text);
    snprintf (text, sizeof text, "%d running, %d completed", apps_on,
              apps_done);
    hearth_html_summary_item (out, "Applications", text);
    snprintf (text, sizeof text, "%d running, %d completed", drv_on, drv_done);
    hearth_html_summary_item (out, "Drivers", text);
    hearth_html_summary_close (out);
}

static bool
s_worker_row (FILE *out, const cJSON *w, const void *ctx)
{
    (void) ctx;
    char age[32];
    hearth_view_duration ((int64_t) hearth_view_num (w, "heartbeat_age_ms"),
                          age, sizeof age);
    strncat (age, " ago", sizeof age - strlen (age) - 1);
    fputs ("<tr data-id=\"", out);
    hearth_html_text (out, hearth_json_str (w, "id"));
    fputs ("\"><td>", out);
    hearth_html_link (out, hearth_json_str (w, "web_url"),
                      hearth_view_text (w, "id"));
    fputs ("</td>", out);
    hearth_html_cell (out, hearth_view_text (w, "host"));
    hearth_html_cell_state (out, hearth_view_worker_state (w));
    hearth_html_cell_ratio (out, hearth_view_num (w, "cores_used"),
                            hearth_view_num (w, "cores"), NULL);
    hearth_html_cell_ratio (out, hearth_view_num (w, "memory_used_mb"),
                            hearth_view_num (w, "memory_mb"), "MiB");
    hearth_html_cell (out, age);
    hearth_html_cell_num (out, hearth_view_num (w, "executors"));
    char res[1024];
    hearth_view_resources_text (w, res, sizeof res);
    hearth_html_cell (out, res[0] ? res : "-");
    fputs ("</tr>\n", out);
    return true;
}

/* A stage's bar and counts: F/T (+R running, X failed). */
static void
s_stage_bar (FILE *out, const cJSON *s)
{
    double tasks = hearth_view_num (s, "tasks"),
           done = hearth_view_num (s, "finished");
    double pct = tasks > 0 ? 100 * done / tasks : 0;
    fprintf (out,
             "<span class=\"bar\"><span style=\"width:%.0f%%\"></span></span>"
             "%.0f/%.0f",
             pct > 100 ? 100 : pct, done, tasks);
    if (hearth_view_num (s, "running") > 0)
        fprintf (out, " (+%.0f running)", hearth_view_num (s, "running"));
    if (hearth_view_num (s, "failed") > 0)
        fprintf (out, " (%.0f failed)", hearth_view_num (s, "failed"));
}

/* The progress cell of a running application: "-" before its first
   report, else its task counts and a line per active stage. */
static void
s_progress_cell (FILE *out, const cJSON *a)
{
    const cJSON *p = s_list (a, "progress"), *s;
    if (!cJSON_IsObject (p)) {
        hearth_html_cell (out, "-");
        return;
    }
    fprintf (out,
             "<td class=\"progress\"><span class=\"done\">%.0f</span> tasks "
             "done, %.0f running, %.0f failed",
             hearth_view_num (p, "tasks_finished"),
             hearth_view_num (p, "tasks_running"),
             hearth_view_num (p, "tasks_failed"));
    cJSON_ArrayForEach (s, s_list (p, "stages"))
    {
        fprintf (out, "<div class=\"stage\">stage %.0f ",
                 hearth_view_num (s, "stage"));
        hearth_html_text (out, hearth_view_text (s, "name"));
        fputs (": ", out);
        s_stage_bar (out, s);
        fputs ("</div>", out);
    }
    const cJSON *kept = cJSON_GetObjectItemCaseSensitive (p, "persisted");
    if (kept) { /* what its executors keep in memory (issue 38) */
        fprintf (out,
                 "<div class=\"persisted\">persisted in memory: %.1f "
                 "MiB</div>",
                 hearth_view_num (kept, "memory_bytes") / (1024.0 * 1024.0));
    }
    fputs ("</td>", out);
}

/* The application's id cell: a link to its page, and with kill its
   kill link. */
static void
s_app_id_cell (FILE *out, const cJSON *a, bool kill)
{
    fputs ("<td><a href=\"/app/", out);
    hearth_html_urlarg (out, hearth_json_str (a, "id"));
    fputs ("\">", out);
    hearth_html_text (out, hearth_view_text (a, "id"));
    fputs ("</a>", out);
    if (kill && hearth_json_str (a, "id"))
        s_kill_link (out, "app", hearth_json_str (a, "id"));
    fputs ("</td>", out);
}

/* Why a row waits, "REASON (CODE)", or "-". */
static void
s_waiting_cell (FILE *out, const cJSON *row)
{
    char text[1200];
    hearth_view_waiting_text (s_list (row, "waiting"), text, sizeof text);
    hearth_html_cell (out, text[0] ? text : "-");
}

/* A row of the running applications' table (ctx: s_rows_ctx_t). */
static bool
s_running_row (FILE *out, const cJSON *a, const void *ctx)
{
    const s_rows_ctx_t *c = ctx;
    char submitted[32], span[32];
    int64_t now = s_now (c->state);
    if (s_app_ended (a))
        return false;
    s_stamp (hearth_view_num (a, "submit_ms"), submitted, sizeof submitted);
    s_span (hearth_view_num (a, "submit_ms"), 0, now, span, sizeof span);
    fputs ("<tr data-id=\"", out);
    hearth_html_text (out, hearth_json_str (a, "id"));
    fputs ("\">", out);
    s_app_id_cell (out, a, c->kill);
    hearth_html_cell (out, hearth_view_text (a, "name"));
    hearth_html_cell_state (out, hearth_view_text (a, "state"));
    hearth_html_cell (out, submitted);
    hearth_html_cell (out, span);
    hearth_html_cell_num (out, hearth_view_num (a, "cores_granted"));
    fprintf (out, "<td>%.0f MiB</td>",
             hearth_view_num (a, "memory_per_executor_mb"));
    hearth_html_cell_num (
        out, (double) cJSON_GetArraySize (s_list (a, "executors")));
    s_progress_cell (out, a);
    s_waiting_cell (out, a);
    fputs ("</tr>\n", out);
    return true;
}

/* A row of the completed applications' table (ctx: the state). */
static bool
s_completed_row (FILE *out, const cJSON *a, const void *ctx)
{
    char submitted[32], span[32];
    int64_t now = s_now (ctx);
    if (!s_app_ended (a))
        return false;
    s_stamp (hearth_view_num (a, "submit_ms"), submitted, sizeof submitted);
    s_span (hearth_view_num (a, "submit_ms"), hearth_view_num (a, "end_ms"),
            now, span, sizeof span);
    fputs ("<tr data-id=\"", out);
    hearth_html_text (out, hearth_json_str (a, "id"));
    fputs ("\">", out);
    s_app_id_cell (out, a, false);
    hearth_html_cell (out, hearth_view_text (a, "name"));
    hearth_html_cell_num (out, hearth_view_num (a, "cores_peak"));
    hearth_html_cell (out, hearth_view_text (a, "user"));
    hearth_html_cell (out, submitted);
    hearth_html_cell (out, span);
    hearth_html_cell_state (out, hearth_view_text (a, "state"));
    hearth_html_cell (out, hearth_view_text (a, "reason"));
    fputs ("</tr>\n", out);
    return true;
}

/* A driver's row (ctx: s_rows_ctx_t; the state for its worker's
   web_url). */
static bool
s_driver_row (FILE *out, const cJSON *d, const void *ctx)
{
    const s_rows_ctx_t *c = ctx;
    char submitted[32];
    const char *wid = hearth_json_str (d, "worker_id");
    const cJSON *w = hearth_html_find (s_list (c->state, "workers"), "id", wid);
    s_stamp (hearth_view_num (d, "submit_ms"), submitted, sizeof submitted);
    fputs ("<tr data-id=\"", out);
    hearth_html_text (out, hearth_json_str (d, "id"));
    fputs ("\"><td>", out);
    hearth_html_text (out, hearth_view_text (d, "id"));
    if (c->kill && !s_driver_ended (d) && hearth_json_str (d, "id"))
        s_kill_link (out, "driver", hearth_json_str (d, "id"));
    fputs ("</td>", out);
    hearth_html_cell (out, hearth_view_text (d, "name"));
    hearth_html_cell (out, hearth_view_text (d, "app_id"));
    hearth_html_cell_state (out, hearth_view_text (d, "state"));
    hearth_html_cell (out, wid ? wid : "-");
    hearth_html_cell_num (out, hearth_view_num (d, "cores"));
    fprintf (out, "<td>%.0f MiB</td>", hearth_view_num (d, "memory_mb"));
    hearth_html_cell (out, submitted);
    hearth_html_cell_logs (out, hearth_json_str (w, "web_url"), "driver",
                           hearth_json_str (d, "id"), NULL, NULL);
    s_waiting_cell (out, d);
    fputs ("</tr>\n", out);
    return true;
}

char *
hearth_page_master (const cJSON *state, bool kill, int *status)
{
    hearth_html_t h;
    s_rows_ctx_t rows = {.state = state, .kill = kill};
    *status = 200;
    if (hearth_html_open (&h) < 0)
        return NULL;
    hearth_html_head_kill (h.out, "Hearth master", "master", NULL, kill);
    s_summary (h.out, state);
    hearth_html_table (h.out, "workers", "Workers", s_worker_cols,
                       s_list (state, "workers"), s_worker_row, state);
    hearth_html_table (h.out, "apps-running", "Running applications",
                       s_running_cols, s_list (state, "apps"), s_running_row,
                       &rows);
    hearth_html_table (h.out, "apps-completed", "Completed applications",
                       s_completed_cols, s_list (state, "apps"),
                       s_completed_row, state);
    hearth_html_table (h.out, "drivers", "Drivers", s_driver_cols,
                       s_list (state, "drivers"), s_driver_row, &rows);
    hearth_html_foot (h.out, true);
    return hearth_html_close (&h);
}

static void
s_app_summary (FILE *out, const cJSON *a, int64_t now)
{
    char text[64];
    hearth_html_summary_open (out);
    hearth_html_summary_item (out, "Name", hearth_view_text (a, "name"));
    hearth_html_summary_item (out, "State", hearth_view_text (a, "state"));
    hearth_html_summary_item (out, "User", hearth_view_text (a, "user"));
    hearth_html_summary_item (out, "Driver",
                              hearth_view_text (a, "driver_url"));
    s_stamp (hearth_view_num (a, "submit_ms"), text, sizeof text);
    hearth_html_summary_item (out, "Submitted", text);
    s_span (hearth_view_num (a, "submit_ms"), hearth_view_num (a, "end_ms"),
            now, text, sizeof text);
    hearth_html_summary_item (out, "Duration", text);
    snprintf (
        text, sizeof text, "%.0f",
        hearth_view_num (a, s_app_ended (a) ? "cores_peak" : "cores_granted"));
    hearth_html_summary_item (out, "Cores", text);
    snprintf (text, sizeof text, "%.0f MiB",
              hearth_view_num (a, "memory_per_executor_mb"));
    hearth_html_summary_item (out, "Memory per executor", text);
    char res[512];
    hearth_view_amounts_text (s_list (a, "executor_resources"), res,
                              sizeof res);
    if (res[0])
        hearth_html_summary_item (out, "Resources per executor", res);
    char waiting[1200];
    if (hearth_view_waiting_text (s_list (a, "waiting"), waiting,
                                  sizeof waiting))
        hearth_html_summary_item (out, "Waiting", waiting);
    hearth_html_summary_item (out, "Reason", hearth_view_text (a, "reason"));
    hearth_html_summary_item (out, "Event log",
                              hearth_view_text (a, "event_log"));
    hearth_html_summary_close (out);
}

static bool
s_stage_row (FILE *out, const cJSON *s, const void *ctx)
{
    (void) ctx;
    fputs ("<tr>", out);
    hearth_html_cell_num (out, hearth_view_num (s, "job"));
    hearth_html_cell_num (out, hearth_view_num (s, "stage"));
    hearth_html_cell (out, hearth_view_text (s, "name"));
    hearth_html_cell_num (out, hearth_view_num (s, "tasks"));
    hearth_html_cell_num (out, hearth_view_num (s, "finished"));
    hearth_html_cell_num (out, hearth_view_num (s, "running"));
    hearth_html_cell_num (out, hearth_view_num (s, "failed"));
    fputs ("<td class=\"stage\">", out);
    s_stage_bar (out, s);
    fputs ("</td></tr>\n", out);
    return true;
}

/* What an executor's row needs: the state (its worker's web_url) and
   the application. */
typedef struct {
    const cJSON *state; /* the master's state */
    const cJSON *app;   /* the application shown */
} s_app_ctx_t;

/* An executor's row up to its host: its id (into id) and its worker
   (linked); returns the worker's object in the state, or NULL. */
static const cJSON *
s_exec_row_start (FILE *out, const cJSON *e, const s_app_ctx_t *c, char *id,
                  size_t size)
{
    const char *wid = hearth_json_str (e, "worker_id");
    const cJSON *w = hearth_html_find (s_list (c->state, "workers"), "id", wid);
    snprintf (id, size, "%.0f", hearth_view_num (e, "exec_id"));
    fprintf (out, "<tr data-id=\"%s\">", id);
    hearth_html_cell (out, id);
    fputs ("<td>", out);
    hearth_html_link (out, hearth_json_str (w, "web_url"), wid ? wid : "-");
    fputs ("</td>", out);
    hearth_html_cell (out, hearth_view_text (e, "host"));
    return w;
}

static bool
s_exec_row (FILE *out, const cJSON *e, const void *ctx)
{
    const s_app_ctx_t *c = ctx;
    char id[32];
    const cJSON *w = s_exec_row_start (out, e, c, id, sizeof id);
    hearth_html_cell_num (out, hearth_view_num (e, "cores"));
    fprintf (out, "<td>%.0f MiB</td>", hearth_view_num (e, "memory_mb"));
    hearth_html_cell_state (out, hearth_view_text (e, "state"));
    hearth_html_cell (out, hearth_view_text (e, "exit_reason"));
    hearth_html_cell_logs (out, hearth_json_str (w, "web_url"), "app",
                           hearth_json_str (c->app, "id"), "exec", id);
    char res[512];
    hearth_view_amounts_text (s_list (e, "resources"), res, sizeof res);
    hearth_html_cell (out, res[0] ? res : "-");
    fputs ("</tr>\n", out);
    return true;
}

/* How an ended executor ended: "status N", "signal N" or "-". */
static void
s_exit_text (const cJSON *e, char *buf, size_t size)
{
    if (cJSON_IsNumber (cJSON_GetObjectItem (e, "exit_status")))
        snprintf (buf, size, "status %.0f", hearth_view_num (e, "exit_status"));
    else if (hearth_view_num (e, "signal") > 0)
        snprintf (buf, size, "signal %.0f", hearth_view_num (e, "signal"));
    else
        snprintf (buf, size, "-");
}

/* Its reason: the worker's exit_reason (OOM_KILLED) and its message. */
static void
s_exit_reason (FILE *out, const cJSON *e)
{
    const char *why = hearth_json_str (e, "exit_reason");
    const char *msg = hearth_json_str (e, "message");
    fputs ("<td>", out);
    if (why)
        hearth_html_text (out, why);
    if (why && msg)
        fputs (": ", out);
    if (msg || !why)
        hearth_html_text (out, msg);
    fputs ("</td>", out);
}

/* A row of the ended executors' table (ctx: s_app_ctx_t). */
static bool
s_ended_row (FILE *out, const cJSON *e, const void *ctx)
{
    const s_app_ctx_t *c = ctx;
    char id[32], text[64];
    const cJSON *w = s_exec_row_start (out, e, c, id, sizeof id);
    hearth_html_cell_state (out, hearth_view_text (e, "state"));
    s_exit_text (e, text, sizeof text);
    hearth_html_cell (out, text);
    s_exit_reason (out, e);
    s_stamp (hearth_view_num (e, "end_ms"), text, sizeof text);
    hearth_html_cell (out, text);
    hearth_html_cell_logs (out, hearth_json_str (w, "web_url"), "app",
                           hearth_json_str (c->app, "id"), "exec", id);
    fputs ("</tr>\n", out);
    return true;
}

/* The Kill button of an application that has not ended: a form that
   GETs its confirmation page (no script). */
static void
s_kill_button (FILE *out, const cJSON *a)
{
    fputs ("<form id=\"actions\" class=\"actions\" method=\"get\" "
           "action=\"/app/",
           out);
    hearth_html_urlarg (out, hearth_json_str (a, "id"));
    fputs ("/confirm-kill\"><button type=\"submit\" class=\"kill\">Kill"
           "</button></form>\n",
           out);
}

char *
hearth_page_app (const cJSON *state, const char *app_id, const char *timeline,
                 bool kill, int *status)
{
    hearth_html_t h;
    const cJSON *a = hearth_html_find (s_list (state, "apps"), "id", app_id);
    char title[128];
    *status = a ? 200 : 404;
    if (hearth_html_open (&h) < 0)
        return NULL;
    snprintf (title, sizeof title, "Application %s", app_id ? app_id : "-");
    hearth_html_head_kill (h.out, title, "app", app_id, kill);
    fputs ("<p class=\"nav\"><a href=\"/\">Back to the master</a></p>\n",
           h.out);
    if (!a) {
        fputs ("<p>This master knows no application ", h.out);
        hearth_html_text (h.out, app_id);
        fputs (".</p>\n", h.out);
        hearth_html_foot (h.out, false);
        return hearth_html_close (&h);
    }
    if (kill && !s_app_ended (a) && hearth_json_str (a, "id"))
        s_kill_button (h.out, a);
    s_app_summary (h.out, a, s_now (state));
    fputs ("<h2>Timeline</h2>\n", h.out);
    if (timeline) /* libcore/timeline.c's SVG: its text escaped there */
        fprintf (h.out, "<div id=\"timeline-box\">%s</div>\n", timeline);
    else
        fputs ("<p id=\"timeline-none\">No timeline yet: its driver sends "
               "one with its progress, once a second while tasks end (a "
               "driver of an older version never does).</p>\n",
               h.out);
    const cJSON *p = s_list (a, "progress");
    hearth_html_table (h.out, "stages", "Active stages", s_stage_cols,
                       s_list (p, "stages"), s_stage_row, NULL);
    hearth_html_table (h.out, "stages-waiting",
                       "Waiting stages (for their parents)", s_stage_cols,
                       s_list (p, "waiting"), s_stage_row, NULL);
    hearth_html_table (h.out, "stages-completed",
                       "Completed stages (of the running jobs, the last)",
                       s_stage_cols, s_list (p, "completed"), s_stage_row,
                       NULL);
    hearth_html_table (h.out, "executors", "Executors", s_exec_cols,
                       s_list (a, "executors"), s_exec_row,
                       &(s_app_ctx_t){.state = state, .app = a});
    hearth_html_table (h.out, "executors-ended", "Ended executors (the last)",
                       s_ended_cols, s_list (a, "ended_executors"), s_ended_row,
                       &(s_app_ctx_t){.state = state, .app = a});
    hearth_html_foot (h.out, true);
    return hearth_html_close (&h);
}

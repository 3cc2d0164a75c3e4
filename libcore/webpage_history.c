/*  webpage_history.c - hearth-history's pages (docs/history.md, "Pages"):
    the listing of an event-log directory and one application's summary,
    rendered from the documents `hearth-history --json` prints, so that
    the pages, the JSON and the text never disagree; see webpage.h.

    The pages carry no script: a history changes only when a driver
    writes, and a reload (which reads the directory again) shows that.
    Links are relative ("app/ID" from the listing, "../" back), so that
    the pages work behind a proxy's prefix and the token's cookie goes
    along. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/stateview.h"
#include "libcore/webpage.h"
#include "libcore/webpage_int.h"

/* The shown states the listing's form offers (history/main.c's). */
static const char *const s_states[] = {"RUNNING", "FINISHED", "FAILED",
                                       "KILLED", NULL};

/* ---- values: a member as text; a null or absent one as "-" ------------ */

/* An integer member, or -1 when null or absent (the documents' figures
   are never negative). */
static int64_t
s_int (const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, k);
    return cJSON_IsNumber (v) && v->valuedouble >= 0 ? (int64_t) v->valuedouble
                                                     : -1;
}

static const char *
s_str (const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, k);
    return cJSON_IsString (v) ? v->valuestring : NULL;
}

static const char *
s_or (const char *s)
{
    return s ? s : "-";
}

static void
s_cell_int (FILE *out, const cJSON *o, const char *k)
{
    int64_t v = s_int (o, k);
    if (v < 0)
        hearth_html_cell (out, "-");
    else
        fprintf (out, "<td>%" PRId64 "</td>", v);
}

/* A ratio member (0..1) as 58.8%, or "-". */
static void
s_pct (const cJSON *o, const char *k, char *buf, size_t size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, k);
    if (cJSON_IsNumber (v))
        snprintf (buf, size, "%.1f%%", v->valuedouble * 100);
    else
        snprintf (buf, size, "-");
}

static void
s_cell_stamp (FILE *out, const cJSON *o, const char *k)
{
    char buf[40];
    hearth_view_second (s_int (o, k), buf, sizeof buf);
    hearth_html_cell (out, buf);
}

/* The state's cell, "-" for a missing one. */
static void
s_cell_state (FILE *out, const cJSON *o, const char *k)
{
    const char *st = s_str (o, k);
    if (st)
        hearth_html_cell_state (out, st);
    else
        hearth_html_cell (out, "-");
}

/* A state cell with a title on hover (NULL: none) and text after the
   state (NULL: none): a resumed application's, a skipped stage's. */
static void
s_cell_state_noted (FILE *out, const char *state, const char *title,
                    const char *after)
{
    fputs ("<td", out);
    if (title) {
        fputs (" title=\"", out);
        hearth_html_text (out, title);
        fputs ("\"", out);
    }
    fputs ("><span class=\"st-", out);
    hearth_html_text (out, state);
    fputs ("\">", out);
    hearth_html_text (out, state);
    fputs ("</span>", out);
    if (after)
        hearth_html_text (out, after);
    fputs ("</td>", out);
}

/* ---- the listing ----------------------------------------------------------
 */

static bool
s_app_row (FILE *out, const cJSON *a, const void *ctx)
{
    (void) ctx;
    const char *id = s_str (a, "id");
    char dur[24];
    if (!id)
        return false;
    fputs ("<tr data-id=\"", out);
    hearth_html_text (out, id);
    fputs ("\"><td><a href=\"app/", out);
    hearth_html_urlarg (out, id);
    fputs ("\">", out);
    hearth_html_text (out, id);
    fputs ("</a></td>", out);
    hearth_html_cell (out, s_str (a, "name"));
    hearth_html_cell (out, s_str (a, "user"));
    if (cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (a, "resumed"))
        && s_str (a, "state")) /* taken over after its driver died */
        s_cell_state_noted (out, s_str (a, "state"), NULL, " (resumed)");
    else
        s_cell_state (out, a, "state");
    s_cell_stamp (out, a, "start_ms");
    hearth_view_span (s_int (a, "duration_ms"), dur, sizeof dur);
    hearth_html_cell (out, dur);
    s_cell_int (out, a, "cores");
    s_cell_int (out, a, "tasks_succeeded");
    s_cell_int (out, a, "tasks_failed");
    hearth_html_cell (out, s_str (a, "reason"));
    fputs ("</tr>\n", out);
    return true;
}

/* A text field of the filter form, holding its current value. */
static void
s_field (FILE *out, const char *name, const char *label, const char *value,
         const char *hint)
{
    fprintf (out, "<label>%s <input name=\"%s\" placeholder=\"", label, name);
    hearth_html_text (out, hint);
    fputs ("\" value=\"", out);
    hearth_html_text (out, value ? value : "");
    fputs ("\"></label> ", out);
}

/* The form of the filters (GET, to this same page): a state to choose,
   since and name as typed; the values shown are the request's. */
static void
s_form (FILE *out, const char *state, const char *since, const char *name)
{
    bool known = !state || !*state;
    fputs ("<form id=\"filters\" method=\"get\" action=\"\">"
           "<label>state <select name=\"state\"><option value=\"\">any"
           "</option>",
           out);
    for (size_t i = 0; s_states[i]; i++) {
        bool sel = state && strcasecmp (state, s_states[i]) == 0;
        known |= sel;
        fprintf (out, "<option%s>%s</option>", sel ? " selected" : "",
                 s_states[i]);
    }
    if (!known) { /* a comma list typed in the URL: kept as it is */
        fputs ("<option selected>", out);
        hearth_html_text (out, state);
        fputs ("</option>", out);
    }
    fputs ("</select></label> ", out);
    s_field (out, "since", "since", since, "24h, 7d, 2026-12-01");
    s_field (out, "name", "name", name, "etl-*");
    fputs ("<button type=\"submit\">filter</button> "
           "<a href=\"./\">all</a></form>\n",
           out);
}

static const char *const s_list_cols[] = {
    "ID",    "NAME",  "USER",   "STATE",  "START", "DURATION",
    "CORES", "TASKS", "FAILED", "REASON", NULL};

char *
hearth_page_history_list (const cJSON *doc, const char *state,
                          const char *since, const char *name,
                          const char *warnings, int *status)
{
    hearth_html_t h;
    const cJSON *apps = cJSON_GetObjectItemCaseSensitive (doc, "applications");
    char now[40], count[24];
    *status = 200;
    if (hearth_html_open (&h) < 0)
        return NULL;
    hearth_html_head (h.out, "Hearth history", "history", NULL);
    hearth_html_summary_open (h.out);
    hearth_html_summary_item (h.out, "directory", s_str (doc, "dir"));
    snprintf (count, sizeof count, "%d", cJSON_GetArraySize (apps));
    hearth_html_summary_item (h.out, "applications", count);
    hearth_view_second (s_int (doc, "time_ms"), now, sizeof now);
    hearth_html_summary_item (h.out, "read at", now);
    hearth_html_summary_close (h.out);
    s_form (h.out, state, since, name);
    if (warnings && *warnings) {
        fputs ("<h2>Unreadable files</h2><pre id=\"warnings\">", h.out);
        hearth_html_text (h.out, warnings);
        fputs ("</pre>\n", h.out);
    }
    hearth_html_table (h.out, "apps", "Applications, newest first", s_list_cols,
                       apps, s_app_row, NULL);
    hearth_html_foot (h.out, false);
    return hearth_html_close (&h);
}

/* ---- one application ------------------------------------------------------
 */

static void
s_item_int (FILE *out, const char *label, const cJSON *o, const char *k)
{
    char buf[32] = "-";
    int64_t v = s_int (o, k);
    if (v >= 0)
        snprintf (buf, sizeof buf, "%" PRId64, v);
    hearth_html_summary_item (out, label, buf);
}

static void
s_app_summary (FILE *out, const cJSON *doc)
{
    char a[40], b[40], line[128];
    hearth_html_summary_open (out);
    hearth_html_summary_item (out, "name", s_str (doc, "name"));
    hearth_html_summary_item (out, "user", s_str (doc, "user"));
    fputs ("<li><b>state:</b> <span id=\"state\" class=\"st-", out);
    hearth_html_text (out, s_str (doc, "state"));
    fputs ("\">", out);
    hearth_html_text (out, s_str (doc, "state"));
    fputs ("</span></li>", out);
    hearth_html_summary_item (out, "master", s_str (doc, "master"));
    hearth_html_summary_item (out, "host", s_str (doc, "host"));
    s_item_int (out, "driver pid", doc, "pid");
    hearth_view_second (s_int (doc, "start_ms"), a, sizeof a);
    hearth_html_summary_item (out, "started", a);
    hearth_view_second (s_int (doc, "end_ms"), a, sizeof a);
    hearth_html_summary_item (out, "ended", a);
    hearth_view_span (s_int (doc, "duration_ms"), a, sizeof a);
    hearth_html_summary_item (out, "duration", a);
    snprintf (a, sizeof a, "%" PRId64, s_int (doc, "cores"));
    snprintf (b, sizeof b, "%" PRId64, s_int (doc, "cores_added"));
    snprintf (line, sizeof line, "%s at most at once (%s added in all)", a, b);
    hearth_html_summary_item (out, "cores", line);
    if (cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (doc, "resumed"))) {
        /* a driver that took over after its earlier one died (issue 39) */
        snprintf (line, sizeof line,
                  "%" PRId64 " outputs of earlier drivers reused, %" PRId64
                  " stages skipped",
                  s_int (doc, "resumed_outputs"),
                  s_int (doc, "stages_skipped"));
        hearth_html_summary_item (out, "resumed", line);
    }
    hearth_html_summary_close (out);
    fputs ("<p id=\"reason\">", out);
    hearth_html_text (out, s_str (doc, "reason"));
    fputs ("</p>\n", out);
}

/* Tasks and accounting: two-column tables of figures. */
static void
s_figure (FILE *out, const char *label, const char *value)
{
    fputs ("<tr>", out);
    hearth_html_cell (out, label);
    hearth_html_cell (out, value);
    fputs ("</tr>\n", out);
}

static void
s_figures (FILE *out, const cJSON *doc)
{
    static const char *const cols[] = {"FIGURE", "VALUE", NULL};
    const cJSON *t = cJSON_GetObjectItemCaseSensitive (doc, "tasks");
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive (doc, "accounting");
    char buf[160], pct[24];
    hearth_html_table_open (out, "tasks", "Tasks", cols);
    snprintf (buf, sizeof buf,
              "%" PRId64 " succeeded, %" PRId64 " failed attempts, %" PRId64
              " attempts started",
              s_int (t, "succeeded"), s_int (t, "failed_attempts"),
              s_int (t, "attempts_started"));
    s_figure (out, "attempts", buf);
    hearth_view_run (cJSON_GetObjectItemCaseSensitive (t, "run"), buf,
                     sizeof buf);
    s_figure (out, "run time of successful attempts (p50 p95 max)", buf);
    hearth_html_table_close (out);

    hearth_html_table_open (out, "accounting", "Accounting", cols);
    s_pct (acc, "core_ratio", pct, sizeof pct);
    snprintf (buf, sizeof buf,
              "%.3f reserved (from %s), %.3f used (from %s): %s used",
              (double) s_int (acc, "core_ms_reserved") / 1000,
              s_or (s_str (acc, "core_ms_reserved_from")),
              (double) s_int (acc, "core_ms_used") / 1000,
              s_or (s_str (acc, "core_ms_used_from")), pct);
    s_figure (out, "core-seconds", buf);
    if (s_int (acc, "memory_executors_known") > 0) {
        s_pct (acc, "memory_ratio", pct, sizeof pct);
        snprintf (buf, sizeof buf,
                  "%" PRId64 " MiB reserved, %.1f MiB peak (%" PRId64
                  " executors with a figure): %s",
                  s_int (acc, "memory_mb_reserved"),
                  (double) s_int (acc, "peak_rss_bytes") / (1024 * 1024),
                  s_int (acc, "memory_executors_known"), pct);
    }
    else
        snprintf (buf, sizeof buf,
                  "reserved against peak unknown (no "
                  "executor has both figures in this log)");
    s_figure (out, "memory", buf);
    hearth_html_table_close (out);
}

static bool
s_job_row (FILE *out, const cJSON *j, const void *ctx)
{
    (void) ctx;
    char dur[24];
    int64_t s = s_int (j, "start_ms"), e = s_int (j, "end_ms");
    fputs ("<tr>", out);
    s_cell_int (out, j, "job");
    hearth_html_cell (out, s_str (j, "name"));
    s_cell_int (out, j, "stages");
    s_cell_state (out, j, "state");
    hearth_view_span (s >= 0 && e >= s ? e - s : -1, dur, sizeof dur);
    hearth_html_cell (out, dur);
    hearth_html_cell (out, s_str (j, "error"));
    fputs ("</tr>\n", out);
    return true;
}

static bool
s_stage_row (FILE *out, const cJSON *s, const void *ctx)
{
    (void) ctx;
    char run[80];
    fputs ("<tr>", out);
    s_cell_int (out, s, "stage");
    s_cell_int (out, s, "job");
    hearth_html_cell (out, s_str (s, "name"));
    const char *why = s_str (s, "skip_reason");
    if (why && s_str (s, "state")) /* a skipped stage: why, on hover */
        s_cell_state_noted (out, s_str (s, "state"), why, NULL);
    else
        s_cell_state (out, s, "state");
    static const char *const counts[] = {
        "tasks", "cached",      "accepted", "failed",          "killed",
        "lost",  "speculative", "runs",     "attempts_started"};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        s_cell_int (out, s, counts[i]);
    hearth_view_run (cJSON_GetObjectItemCaseSensitive (s, "run"), run,
                     sizeof run);
    hearth_html_cell (out, run);
    hearth_view_locality (cJSON_GetObjectItemCaseSensitive (s, "locality"), run,
                          sizeof run);
    hearth_html_cell (out, run);
    fputs ("</tr>\n", out);
    return true;
}

static bool
s_slow_row (FILE *out, const cJSON *a, const void *ctx)
{
    (void) ctx;
    char run[24];
    fputs ("<tr>", out);
    s_cell_int (out, a, "stage");
    s_cell_int (out, a, "index");
    s_cell_int (out, a, "attempt");
    s_cell_int (out, a, "executor");
    hearth_view_run_us (s_int (a, "run_us"), run, sizeof run);
    hearth_html_cell (out, run);
    s_cell_state (out, a, "state");
    hearth_html_cell (out, s_str (a, "outcome"));
    fputs ("</tr>\n", out);
    return true;
}

static bool
s_fail_row (FILE *out, const cJSON *f, const void *ctx)
{
    (void) ctx;
    fputs ("<tr>", out);
    s_cell_int (out, f, "stage");
    s_cell_int (out, f, "index");
    s_cell_int (out, f, "failed_attempts");
    s_cell_int (out, f, "last_attempt");
    s_cell_int (out, f, "last_executor");
    hearth_html_cell (out, s_str (f, "result"));
    hearth_html_cell (out, s_str (f, "last_error"));
    fputs ("</tr>\n", out);
    return true;
}

static bool
s_exec_row (FILE *out, const cJSON *x, const void *ctx)
{
    (void) ctx;
    char buf[40];
    fputs ("<tr>", out);
    s_cell_int (out, x, "executor");
    hearth_html_cell (out, s_str (x, "host"));
    s_cell_int (out, x, "cores");
    s_cell_int (out, x, "memory_mb");
    int64_t peak = s_int (x, "peak_rss_bytes");
    if (peak >= 0)
        snprintf (buf, sizeof buf, "%.1f", (double) peak / (1024 * 1024));
    else
        snprintf (buf, sizeof buf, "-");
    hearth_html_cell (out, buf);
    s_pct (x, "memory_ratio", buf, sizeof buf);
    hearth_html_cell (out, buf);
    hearth_view_span (s_int (x, "lifetime_ms"), buf, sizeof buf);
    hearth_html_cell (out, buf);
    s_cell_int (out, x, "attempts");
    s_cell_int (out, x, "failed");
    s_cell_int (out, x, "tasks_lost");
    hearth_html_cell (out, s_str (x, "worker"));
    hearth_html_cell (out, s_str (x, "reason"));
    fputs ("</tr>\n", out);
    return true;
}

/* The settings: every member of log_start's, its value as JSON text
   when it is not a string. */
static void
s_settings (FILE *out, const cJSON *settings)
{
    static const char *const cols[] = {"SETTING", "VALUE", NULL};
    const cJSON *s;
    size_t n = 0;
    hearth_html_table_open (out, "settings", "Settings", cols);
    cJSON_ArrayForEach (s, settings)
    {
        char *text = cJSON_IsString (s) ? NULL : cJSON_PrintUnformatted (s);
        fputs ("<tr>", out);
        hearth_html_cell (out, s->string);
        hearth_html_cell (out, cJSON_IsString (s) ? s->valuestring : text);
        fputs ("</tr>\n", out);
        free (text);
        n++;
    }
    if (!n)
        hearth_html_table_empty (out, cols);
    hearth_html_table_close (out);
}

static const char *const s_job_cols[] = {"JOB",      "NAME",  "STAGES", "STATE",
                                         "DURATION", "ERROR", NULL};
static const char *const s_stage_cols[] = {
    "STAGE",  "JOB",  "NAME",     "STATE",           "TASKS",
    "CACHED", "OK",   "FAILED",   "KILLED",          "LOST",
    "SPEC",   "RUNS", "ATTEMPTS", "RUN p50 p95 max", "LOCALITY",
    NULL};
static const char *const s_slow_cols[] = {
    "STAGE", "TASK", "ATTEMPT", "EXECUTOR", "RUN", "STATE", "OUTCOME", NULL};
static const char *const s_fail_cols[] = {"STAGE",        "TASK",     "FAILED",
                                          "LAST ATTEMPT", "EXECUTOR", "RESULT",
                                          "LAST ERROR",   NULL};
static const char *const s_exec_cols[] = {
    "ID",     "HOST",        "CORES",    "MEMORY MiB", "PEAK MiB",
    "RATIO",  "LIFETIME",    "ATTEMPTS", "FAILED",     "LOST",
    "WORKER", "EXIT REASON", NULL};

char *
hearth_page_history_app (const cJSON *doc, const char *timeline, int *status)
{
    hearth_html_t h;
    const char *id = s_str (doc, "id");
    char title[160];
    *status = id ? 200 : 404;
    if (hearth_html_open (&h) < 0)
        return NULL;
    snprintf (title, sizeof title, "Application %s", id ? id : "unknown");
    hearth_html_head (h.out, title, "history-app", id);
    fputs ("<p class=\"nav\"><a href=\"../\">all applications</a>", h.out);
    if (id) {
        fputs ("<a href=\"../api/v1/apps/", h.out);
        hearth_html_urlarg (h.out, id);
        fputs ("\">JSON</a>", h.out);
    }
    fputs ("</p>\n", h.out);
    if (!id) {
        fputs ("<p>No such application.</p>\n", h.out);
        hearth_html_foot (h.out, false);
        return hearth_html_close (&h);
    }
    s_app_summary (h.out, doc);
    if (timeline) /* libcore/timeline.c's SVG: its text escaped there */
        fprintf (h.out,
                 "<h2>Timeline</h2>\n<div id=\"timeline-box\">%s</div>\n",
                 timeline);
    s_figures (h.out, doc);
#define LIST(k) cJSON_GetObjectItemCaseSensitive (doc, k)
    hearth_html_table (h.out, "jobs", "Jobs", s_job_cols, LIST ("jobs"),
                       s_job_row, NULL);
    hearth_html_table (h.out, "stages", "Stages", s_stage_cols, LIST ("stages"),
                       s_stage_row, NULL);
    hearth_html_table (h.out, "slowest", "Slowest attempts", s_slow_cols,
                       LIST ("slowest"), s_slow_row, NULL);
    hearth_html_table (h.out, "failures", "Failures", s_fail_cols,
                       LIST ("failures"), s_fail_row, NULL);
    hearth_html_table (h.out, "executors", "Executors", s_exec_cols,
                       LIST ("executors"), s_exec_row, NULL);
#undef LIST
    s_settings (h.out, cJSON_GetObjectItemCaseSensitive (doc, "settings"));
    hearth_html_foot (h.out, false);
    return hearth_html_close (&h);
}

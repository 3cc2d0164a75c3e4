/*  apptext.c - one application's summary as text; see apptext.h. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "history/apptext.h"
#include "libcore/stateview.h"

/* The settings the text shows, in this order (the JSON has them all). */
static const char *const s_settings[] = {
    "master",          "total-executor-cores", "executor-cores",
    "executor-memory", "max-failures",         "max-lost",
    "scheduler-mode",  "speculation",          "event-log-roll"};

/* ---- readers of the document: absent or null is -1 / "-" ---------------- */

static int64_t
s_i (const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, k);
    return cJSON_IsNumber (v) ? (int64_t) v->valuedouble : -1;
}

static const char *
s_s (const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, k);
    return cJSON_IsString (v) && v->valuestring[0] ? v->valuestring : "-";
}

static const cJSON *
s_o (const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive (o, k);
}

void
hist_format_us (int64_t us, char *buf, size_t size)
{
    hearth_view_run_us (us, buf, size);
}

/* A ratio as a percentage, or "unknown". */
static void
s_pct (const cJSON *o, const char *k, char *buf, size_t size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, k);
    if (cJSON_IsNumber (v))
        snprintf (buf, size, "%.1f%%", v->valuedouble * 100);
    else
        snprintf (buf, size, "unknown");
}

/* ---- sections ------------------------------------------------------------ */

static void
s_head (FILE *out, const cJSON *doc)
{
    char start[32], end[32], dur[24];
    hearth_view_second (s_i (doc, "start_ms"), start, sizeof start);
    hearth_view_second (s_i (doc, "end_ms"), end, sizeof end);
    hearth_view_span (s_i (doc, "duration_ms"), dur, sizeof dur);
    fprintf (out, "APPLICATION %s  %s  user %s\n", s_s (doc, "id"),
             s_s (doc, "name"), s_s (doc, "user"));
    fprintf (out, "  state    %s%s%s\n", s_s (doc, "state"),
             strcmp (s_s (doc, "reason"), "-") ? ": " : "",
             strcmp (s_s (doc, "reason"), "-") ? s_s (doc, "reason") : "");
    if (cJSON_IsTrue (s_o (doc, "resumed")))
        fprintf (out,
                 "  resumed  %" PRId64 " outputs of earlier drivers given "
                 "back, %" PRId64 " stage%s skipped\n",
                 s_i (doc, "resumed_outputs"), s_i (doc, "stages_skipped"),
                 s_i (doc, "stages_skipped") == 1 ? "" : "s");
    if (strcmp (s_s (doc, "earlier_log"), "-") != 0)
        fprintf (out,
                 "  earlier  %s (the log of the driver it took over from)\n",
                 s_s (doc, "earlier_log"));
    fprintf (out, "  master   %s  driver pid %" PRId64 " on %s\n",
             s_s (doc, "master"), s_i (doc, "pid"), s_s (doc, "host"));
    fprintf (out, "  started  %s  ended %s  duration %s\n", start, end, dur);
    fprintf (out,
             "  cores    %" PRId64 " at most at once (%" PRId64
             " added in all)\n",
             s_i (doc, "cores"), s_i (doc, "cores_added"));
    if (cJSON_IsTrue (s_o (doc, "cut_last_line")) || s_i (doc, "bad_lines") > 0
        || s_i (doc, "events_dropped") > 0)
        fprintf (out,
                 "  log      %" PRId64 " lines, %" PRId64 " unreadable, %s, "
                 "%" PRId64 " events dropped by the driver\n",
                 s_i (doc, "lines"), s_i (doc, "bad_lines"),
                 cJSON_IsTrue (s_o (doc, "cut_last_line"))
                     ? "the last one cut (ignored)"
                     : "none cut",
                 s_i (doc, "events_dropped") > 0 ? s_i (doc, "events_dropped")
                                                 : 0);
    const cJSON *set = s_o (doc, "settings");
    if (!cJSON_IsObject (set))
        return;
    fprintf (out, "\nSETTINGS\n");
    for (size_t i = 0; i < sizeof s_settings / sizeof s_settings[0]; i++) {
        const cJSON *v = s_o (set, s_settings[i]);
        if (cJSON_IsString (v))
            fprintf (out, "  %-22s %s\n", s_settings[i], v->valuestring);
    }
}

static void
s_tasks (FILE *out, const cJSON *doc)
{
    const cJSON *t = s_o (doc, "tasks"), *a = s_o (doc, "accounting");
    char run[80], cr[24], mr[24];
    hearth_view_run (s_o (t, "run"), run, sizeof run);
    fprintf (out,
             "\nTASKS\n  %" PRId64 " succeeded, %" PRId64
             " failed attempts, %" PRId64 " attempts started\n"
             "  run time of successful attempts (p50 p95 max): %s\n",
             s_i (t, "succeeded"), s_i (t, "failed_attempts"),
             s_i (t, "attempts_started"), run);
    s_pct (a, "core_ratio", cr, sizeof cr);
    s_pct (a, "memory_ratio", mr, sizeof mr);
    fprintf (out,
             "\nACCOUNTING\n  core-seconds: %.3f reserved (from %s), %.3f "
             "used (from %s): %s used\n",
             (double) s_i (a, "core_ms_reserved") / 1000,
             s_s (a, "core_ms_reserved_from"),
             (double) s_i (a, "core_ms_used") / 1000,
             s_s (a, "core_ms_used_from"), cr);
    if (s_i (a, "memory_executors_known") > 0)
        fprintf (out,
                 "  memory: %" PRId64 " MiB reserved, %.1f MiB peak (%" PRId64
                 " executors with a figure): %s\n",
                 s_i (a, "memory_mb_reserved"),
                 (double) s_i (a, "peak_rss_bytes") / (1024.0 * 1024.0),
                 s_i (a, "memory_executors_known"), mr);
    else
        fprintf (out, "  memory: reserved against peak unknown (no executor "
                      "has both figures in this log)\n");
}

static void
s_jobs (FILE *out, const cJSON *doc)
{
    const cJSON *j;
    fprintf (out, "\nJOBS\n  %-4s %-20s %-6s %-10s %-8s %s\n", "JOB", "NAME",
             "STAGES", "STATE", "DURATION", "ERROR");
    cJSON_ArrayForEach (j, s_o (doc, "jobs"))
    {
        char dur[24] = "-";
        if (s_i (j, "end_ms") >= 0 && s_i (j, "start_ms") >= 0)
            hearth_view_span (s_i (j, "end_ms") - s_i (j, "start_ms"), dur,
                              sizeof dur);
        fprintf (out, "  %-4" PRId64 " %-20s %-6" PRId64 " %-10s %-8s %s\n",
                 s_i (j, "job"), s_s (j, "name"), s_i (j, "stages"),
                 s_s (j, "state"), dur, s_s (j, "error"));
    }
}

/* Why each skipped stage was: under the table (a reason is a sentence,
   too long for a column). */
static void
s_skipped (FILE *out, const cJSON *doc)
{
    const cJSON *s;
    cJSON_ArrayForEach (s, s_o (doc, "stages"))
    {
        if (!cJSON_IsTrue (s_o (s, "skipped")))
            continue;
        int64_t ran = s_i (s, "attempts_started");
        fprintf (out, "  stage %" PRId64 " (%s) skipped: %s", s_i (s, "stage"),
                 s_s (s, "name"), s_s (s, "skip_reason"));
        if (ran > 0)
            fprintf (out, "; run again later (%" PRId64 " attempt%s)", ran,
                     ran == 1 ? "" : "s");
        fputc ('\n', out);
    }
}

static void
s_stages (FILE *out, const cJSON *doc)
{
    const cJSON *s;
    fprintf (out,
             "\nSTAGES\n  %-5s %-4s %-16s %-10s %6s %6s %6s %6s %6s %5s %5s "
             "%4s  %-16s  %s\n",
             "STAGE", "JOB", "NAME", "STATE", "TASKS", "CACHED", "OK", "FAILED",
             "KILLED", "LOST", "SPEC", "RUNS", "RUN p50 p95 max", "LOCALITY");
    cJSON_ArrayForEach (s, s_o (doc, "stages"))
    {
        char run[80], local[80];
        hearth_view_run (s_o (s, "run"), run, sizeof run);
        hearth_view_locality (s_o (s, "locality"), local, sizeof local);
        fprintf (out,
                 "  %-5" PRId64 " %-4" PRId64 " %-16.16s %-10s %6" PRId64
                 " %6" PRId64 " %6" PRId64 " %6" PRId64 " %6" PRId64
                 " %5" PRId64 " %5" PRId64 " %4" PRId64 "  %-16s  %s\n",
                 s_i (s, "stage"), s_i (s, "job"), s_s (s, "name"),
                 s_s (s, "state"), s_i (s, "tasks"), s_i (s, "cached"),
                 s_i (s, "accepted"), s_i (s, "failed"), s_i (s, "killed"),
                 s_i (s, "lost"), s_i (s, "speculative"), s_i (s, "runs"), run,
                 local);
    }
    s_skipped (out, doc);
}

static void
s_slowest (FILE *out, const cJSON *doc)
{
    const cJSON *a;
    fprintf (out, "\nSLOWEST ATTEMPTS\n  %-5s %-7s %-7s %-8s %-9s %-9s %s\n",
             "STAGE", "TASK", "ATTEMPT", "EXECUTOR", "RUN", "STATE", "OUTCOME");
    cJSON_ArrayForEach (a, s_o (doc, "slowest"))
    {
        char run[24];
        hist_format_us (s_i (a, "run_us"), run, sizeof run);
        fprintf (out,
                 "  %-5" PRId64 " %-7" PRId64 " %-7" PRId64 " %-8" PRId64
                 " %-9s %-9s %s\n",
                 s_i (a, "stage"), s_i (a, "index"), s_i (a, "attempt"),
                 s_i (a, "executor"), run, s_s (a, "state"),
                 s_s (a, "outcome"));
    }
}

static void
s_failures (FILE *out, const cJSON *doc)
{
    const cJSON *f, *list = s_o (doc, "failures");
    if (cJSON_GetArraySize (list) == 0) {
        fprintf (out, "\nFAILURES\n  none\n");
        return;
    }
    fprintf (out, "\nFAILURES\n  %-5s %-7s %-6s %-9s %-8s %-9s %s\n", "STAGE",
             "TASK", "FAILED", "LAST-ATT", "EXECUTOR", "RESULT", "LAST ERROR");
    cJSON_ArrayForEach (f, list)
    {
        /* one line: the document's control characters come escaped
           (appview.c), a newline as \n */
        char err[256];
        snprintf (err, sizeof err, "%s", s_s (f, "last_error"));
        fprintf (out,
                 "  %-5" PRId64 " %-7" PRId64 " %-6" PRId64 " %-9" PRId64
                 " %-8" PRId64 " %-9s %s\n",
                 s_i (f, "stage"), s_i (f, "index"), s_i (f, "failed_attempts"),
                 s_i (f, "last_attempt"), s_i (f, "last_executor"),
                 s_s (f, "result"), err);
    }
}

/* The widest worker id of the executors (worker ids are long: shown
   whole, or the column says nothing). */
static int
s_worker_width (const cJSON *list)
{
    const cJSON *x;
    int w = 6;
    cJSON_ArrayForEach (x, list)
    {
        int n = (int) strlen (s_s (x, "worker"));
        w = n > w ? n : w;
    }
    return w;
}

static void
s_execs (FILE *out, const cJSON *doc)
{
    const cJSON *x, *list = s_o (doc, "executors");
    int ww = s_worker_width (list);
    fprintf (out,
             "\nEXECUTORS\n  %-4s %-16s %5s %7s %9s %7s %-8s %6s %-*s %s\n",
             "ID", "HOST", "CORES", "MEMORY", "PEAK", "RATIO", "LIFETIME",
             "TASKS", ww, "WORKER", "EXIT REASON");
    cJSON_ArrayForEach (x, list)
    {
        char mem[24] = "unknown", peak[24] = "unknown", ratio[24], life[24];
        if (s_i (x, "memory_mb") >= 0)
            snprintf (mem, sizeof mem, "%" PRId64 "M", s_i (x, "memory_mb"));
        if (s_i (x, "peak_rss_bytes") >= 0)
            snprintf (peak, sizeof peak, "%.1fM",
                      (double) s_i (x, "peak_rss_bytes") / (1024.0 * 1024.0));
        s_pct (x, "memory_ratio", ratio, sizeof ratio);
        hearth_view_span (s_i (x, "lifetime_ms"), life, sizeof life);
        fprintf (out,
                 "  %-4" PRId64 " %-16.16s %5" PRId64
                 " %7s %9s %7s %-8s %6" PRId64 " %-*s %s\n",
                 s_i (x, "executor"), s_s (x, "host"), s_i (x, "cores"), mem,
                 peak, ratio, life, s_i (x, "attempts"), ww, s_s (x, "worker"),
                 s_s (x, "reason"));
    }
}

void
hist_apptext (FILE *out, const cJSON *doc)
{
    s_head (out, doc);
    s_tasks (out, doc);
    s_jobs (out, doc);
    s_stages (out, doc);
    s_slowest (out, doc);
    s_failures (out, doc);
    s_execs (out, doc);
}

/*  stateview.c - the cluster's state as tables; see stateview.h.

    Columns whose contents vary in length (names, workers) are as wide as
    their longest selected entry, so that short worker names make short
    lines and long ids still line up. */
#include "config.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "libcore/proto.h"
#include "libcore/stateview.h"
#include "libcore/units.h"

/* Widths of the fixed columns: ids as the master makes them. */
static const int s_app_id_width = 26, s_driver_id_width = 28;

double
hearth_view_num (const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsNumber (v) ? v->valuedouble : 0;
}

const char *
hearth_view_text (const cJSON *o, const char *name)
{
    const char *s = hearth_json_str (o, name);
    return s ? s : "-";
}

const char *
hearth_view_worker_name (hearth_wnames_t *names, const char *id)
{
    if (!id)
        return "-";
    return names ? hearth_wnames_short (names, id) : id;
}

static const cJSON *
s_list (const cJSON *state, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive (state, name);
}

/* A worker id as v shows it. */
static const char *
s_worker (const hearth_view_t *v, const char *id)
{
    return hearth_view_worker_name (v->names, id);
}

int
hearth_view_learn (hearth_wnames_t *names, const cJSON *state)
{
    const cJSON *w, *a, *e, *d;
    int rc = 0;
    cJSON_ArrayForEach (w, s_list (state, "workers"))
    {
        if (hearth_json_str (w, "id")
            && hearth_wnames_add (names, hearth_json_str (w, "id")) < 0)
            rc = -1;
    }
    cJSON_ArrayForEach (a, s_list (state, "apps"))
    {
        cJSON_ArrayForEach (e,
                            cJSON_GetObjectItemCaseSensitive (a, "executors"))
        {
            if (hearth_json_str (e, "worker_id")
                && hearth_wnames_add (names, hearth_json_str (e, "worker_id"))
                       < 0)
                rc = -1;
        }
    }
    cJSON_ArrayForEach (d, s_list (state, "drivers"))
    {
        if (hearth_json_str (d, "worker_id")
            && hearth_wnames_add (names, hearth_json_str (d, "worker_id")) < 0)
            rc = -1;
    }
    return rc;
}

const char *
hearth_view_worker_state (const cJSON *worker)
{
    const char *state = hearth_view_text (worker, "state");
    if (strcmp (state, "ALIVE") == 0
        && hearth_json_bool (worker, "draining", false))
        return "DRAINING";
    return state;
}

/* The state a row is shown in: a worker's as above, else its own. */
static const char *
s_row_state (const cJSON *row)
{
    return cJSON_GetObjectItemCaseSensitive (row, "heartbeat_age_ms")
               ? hearth_view_worker_state (row)
               : hearth_view_text (row, "state");
}

/* An application's cores as a table shows them: those it holds, or
   once it has ended, the most it held (cores_peak; 0 from an older
   master). */
static double
s_app_cores (const cJSON *a)
{
    const char *state = hearth_view_text (a, "state");
    bool ended =
        strcmp (state, "WAITING") != 0 && strcmp (state, "RUNNING") != 0;
    return hearth_view_num (a, ended ? "cores_peak" : "cores_granted");
}

bool
hearth_view_match (const hearth_view_t *v, const cJSON *row)
{
    if (v->state && strcasecmp (v->state, s_row_state (row)) != 0)
        return false;
    if (!v->name)
        return true;
    const char *name = hearth_json_str (row, "name");
    const char *id = hearth_json_str (row, "id");
    bool worker = cJSON_GetObjectItemCaseSensitive (row, "heartbeat_age_ms");
    if (worker && id)
        return fnmatch (v->name, id, 0) == 0
               || fnmatch (v->name, s_worker (v, id), 0) == 0;
    return name && fnmatch (v->name, name, 0) == 0;
}

void
hearth_view_stamp (double ms, char *buf, size_t size)
{
    if (ms <= 0) {
        struct timeval tv;
        gettimeofday (&tv, NULL);
        ms = (double) tv.tv_sec * 1000 + (double) (tv.tv_usec / 1000);
    }
    time_t sec = (time_t) (ms / 1000);
    struct tm tm;
    gmtime_r (&sec, &tm);
    snprintf (buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
              tm.tm_min, tm.tm_sec, (int) ((int64_t) ms % 1000));
}

void
hearth_view_duration (int64_t ms, char *buf, size_t size)
{
    const int64_t s = 1000, m = 60 * s, h = 60 * m, d = 24 * h;
    if (ms < 0)
        ms = 0;
    if (ms < s)
        snprintf (buf, size, "%" PRId64 "ms", ms);
    else if (ms < m)
        snprintf (buf, size, "%.1fs", (double) (ms / 100) / 10);
    else if (ms < h)
        snprintf (buf, size, "%" PRId64 "m%02" PRId64 "s", ms / m, ms % m / s);
    else if (ms < d)
        snprintf (buf, size, "%" PRId64 "h%02" PRId64 "m", ms / h, ms % h / m);
    else
        snprintf (buf, size, "%" PRId64 "d%02" PRId64 "h", ms / d, ms % d / h);
}

void
hearth_view_second (int64_t ms, char *buf, size_t size)
{
    char full[40];
    if (ms < 0) {
        snprintf (buf, size, "-");
        return;
    }
    hearth_view_stamp ((double) ms, full, sizeof full);
    snprintf (buf, size, "%.19sZ", full);
}

void
hearth_view_span (int64_t ms, char *buf, size_t size)
{
    if (ms < 0)
        snprintf (buf, size, "-");
    else
        hearth_view_duration (ms, buf, size);
}

void
hearth_view_run_us (int64_t us, char *buf, size_t size)
{
    if (us < 0)
        snprintf (buf, size, "-");
    else if (us < 1000)
        snprintf (buf, size, "%" PRId64 "us", us);
    else if (us < 1000000)
        snprintf (buf, size, "%.1fms", (double) us / 1000);
    else
        hearth_view_duration (us / 1000, buf, size);
}

void
hearth_view_run (const cJSON *run, char *buf, size_t size)
{
    char t[3][24];
    static const char *const keys[] = {"p50_us", "p95_us", "max_us"};
    if (!cJSON_IsObject (run)) {
        snprintf (buf, size, "-");
        return;
    }
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive (run, keys[i]);
        hearth_view_run_us (cJSON_IsNumber (v) ? (int64_t) v->valuedouble : -1,
                            t[i], sizeof t[i]);
    }
    snprintf (buf, size, "%s %s %s", t[0], t[1], t[2]);
}

void
hearth_view_locality (const cJSON *locality, char *buf, size_t size)
{
    size_t len = 0;
    snprintf (buf, size, "-");
    if (!cJSON_IsObject (locality))
        return;
    const cJSON *level;
    static const char *const names[][2] = {{"NO_PREF", "no-pref"},
                                           {"PROCESS_LOCAL", "process"},
                                           {"NODE_LOCAL", "node"},
                                           {"RACK_LOCAL", "rack"},
                                           {"ANY", "any"}};
    cJSON_ArrayForEach (level, locality)
    {
        const char *name = level->string;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp (name, names[i][0]) == 0)
                name = names[i][1];
        int w = snprintf (buf + len, size - len, "%s%s %lld", len ? " " : "",
                          name, (long long) level->valuedouble);
        if (w < 0 || (size_t) w >= size - len)
            break;
        len += (size_t) w;
    }
}

/* A width for the text of field of the rows v selects, at least min. */
static int
s_width (const cJSON *list, const hearth_view_t *v, const char *field,
         bool worker, int min)
{
    const cJSON *row;
    int width = min;
    cJSON_ArrayForEach (row, list)
    {
        if (!hearth_view_match (v, row))
            continue;
        const char *text = hearth_json_str (row, field);
        int len = (int) strlen (worker ? s_worker (v, text)
                                       : hearth_view_text (row, field));
        if (len > width)
            width = len;
    }
    return width;
}

/* Append text to buf (size bytes, *n used), cut when full. */
static void
s_append (char *buf, size_t size, size_t *n, const char *text)
{
    int k = snprintf (buf + *n, size - *n, "%s", text);
    *n = k < 0 ? *n : *n + (size_t) k < size ? *n + (size_t) k : size - 1;
}

void
hearth_view_amounts_text (const cJSON *o, char *buf, size_t size)
{
    const cJSON *r, *a;
    size_t n = 0;
    char num[32];
    buf[0] = '\0';
    cJSON_ArrayForEach (r, o)
    {
        if (n)
            s_append (buf, size, &n, " ");
        s_append (buf, size, &n, r->string ? r->string : "?");
        s_append (buf, size, &n, "=");
        if (cJSON_IsNumber (r)) {
            snprintf (num, sizeof num, "%.0f", r->valuedouble);
            s_append (buf, size, &n, num);
        }
        int i = 0;
        const cJSON *list = cJSON_IsArray (r) ? r : NULL;
        cJSON_ArrayForEach (a, list)
        {
            if (i++)
                s_append (buf, size, &n, ",");
            s_append (buf, size, &n, cJSON_IsString (a) ? a->valuestring : "?");
        }
    }
}

void
hearth_view_resources_text (const cJSON *w, char *buf, size_t size)
{
    const cJSON *res = cJSON_GetObjectItemCaseSensitive (w, "resources"), *r;
    const cJSON *held = cJSON_GetObjectItemCaseSensitive (w, "resources_held");
    size_t n = 0;
    buf[0] = '\0';
    cJSON_ArrayForEach (r, res)
    {
        const cJSON *by = cJSON_GetObjectItemCaseSensitive (held, r->string);
        const cJSON *addr;
        int i = 0;
        if (n)
            s_append (buf, size, &n, "; ");
        s_append (buf, size, &n, r->string ? r->string : "?");
        cJSON_ArrayForEach (addr, r)
        {
            const char *a = cJSON_IsString (addr) ? addr->valuestring : "?";
            const char *who = hearth_json_str (by, a);
            s_append (buf, size, &n, i++ ? ", " : " ");
            s_append (buf, size, &n, a);
            s_append (buf, size, &n, " (");
            s_append (buf, size, &n, who ? who : "free");
            s_append (buf, size, &n, ")");
        }
    }
}

/* A worker's labels after its line: "  [rack=r1 disk=ssd]" (nothing
   without). */
static void
s_labels (FILE *out, const cJSON *labels)
{
    const cJSON *l;
    bool first = true;
    if (!cJSON_IsObject (labels) || !labels->child)
        return;
    fputs ("  [", out);
    cJSON_ArrayForEach (l, labels)
    {
        fprintf (out, "%s%s=%s", first ? "" : " ", l->string,
                 cJSON_IsString (l) ? l->valuestring : "?");
        first = false;
    }
    fputs ("]", out);
}

size_t
hearth_view_workers (FILE *out, const cJSON *state, const hearth_view_t *v)
{
    const cJSON *list = s_list (state, "workers"), *w;
    int nw = s_width (list, v, "id", true, 4),
        iw = s_width (list, v, "id", false, 2);
    int hw = s_width (list, v, "host", false, 4);
    size_t rows = 0;
    if (v->names)
        fprintf (out, "WORKERS\n%-*s %-*s", nw, "NAME", iw, "ID");
    else
        fprintf (out, "WORKERS\n%-*s", iw, "ID");
    fprintf (out, " %-*s %-8s %-11s %-17s %-10s %s\n", hw, "HOST", "STATE",
             "CORES", "MEMORY (MiB)", "SHUFFLE", "LAST HEARTBEAT");
    cJSON_ArrayForEach (w, list)
    {
        if (!hearth_view_match (v, w))
            continue;
        char cores[32], mem[48], shuffle[32];
        hearth_format_size ((uint64_t) hearth_view_num (w, "shuffle_bytes"),
                            shuffle, sizeof shuffle);
        snprintf (cores, sizeof cores, "%.0f/%.0f",
                  hearth_view_num (w, "cores_used"),
                  hearth_view_num (w, "cores"));
        snprintf (mem, sizeof mem, "%.0f/%.0f",
                  hearth_view_num (w, "memory_used_mb"),
                  hearth_view_num (w, "memory_mb"));
        if (v->names)
            fprintf (out, "%-*s ", nw, s_worker (v, hearth_json_str (w, "id")));
        fprintf (out, "%-*s %-*s %-8s %-11s %-17s %-10s %.0f ms ago", iw,
                 hearth_view_text (w, "id"), hw, hearth_view_text (w, "host"),
                 hearth_view_worker_state (w), cores, mem, shuffle,
                 hearth_view_num (w, "heartbeat_age_ms"));
        if (hearth_json_str (w, "drain_reason"))
            fprintf (out, "  (drained: %s)",
                     hearth_json_str (w, "drain_reason"));
        if (hearth_json_str (w, "decommission_reason"))
            fprintf (out, "  (leaving: %s)",
                     hearth_json_str (w, "decommission_reason"));
        if (hearth_json_str (w, "dead_reason"))
            fprintf (out, "  (gone: %s)", hearth_json_str (w, "dead_reason"));
        if (hearth_view_num (w, "persisted_bytes") > 0) { /* of its shuffle */
            char kept[32];
            hearth_format_size (
                (uint64_t) hearth_view_num (w, "persisted_bytes"), kept,
                sizeof kept);
            fprintf (out, "  (persisted: %s)", kept);
        }
        s_labels (out, cJSON_GetObjectItemCaseSensitive (w, "labels"));
        fprintf (out, "\n");
        if (hearth_json_str (w, "unhealthy"))
            fprintf (out, "    unhealthy: %s\n",
                     hearth_json_str (w, "unhealthy"));
        char res[1024];
        hearth_view_resources_text (w, res, sizeof res);
        if (res[0]) /* its addresses, and who holds them */
            fprintf (out, "    resources: %s\n", res);
        if (v->web && hearth_json_str (w, "web_url")) /* its pages */
            fprintf (out, "    web: %s\n", hearth_json_str (w, "web_url"));
        rows++;
    }
    return rows;
}

/* An application's last executor killed for memory, as the driver's
   error says it. */
static void
s_last_oom (FILE *out, const cJSON *oom, const hearth_view_t *v)
{
    if (!cJSON_IsObject (oom))
        return;
    char limit[32] = "?", peak[32] = "?"; /* MiB, as the driver says */
    double l = hearth_view_num (oom, "memory_limit_bytes"),
           p = hearth_view_num (oom, "peak_rss_bytes");
    if (l > 0)
        snprintf (limit, sizeof limit, "%.0f MiB", l / (double) HEARTH_MiB);
    if (p > 0)
        snprintf (peak, sizeof peak, "%.0f MiB", p / (double) HEARTH_MiB);
    fprintf (out, "  last OOM: executor %.0f on %s: limit %s, peak %s%s%s\n",
             hearth_view_num (oom, "exec_id"),
             s_worker (v, hearth_json_str (oom, "worker_id")), limit, peak,
             hearth_json_str (oom, "message") ? ": " : "",
             hearth_json_str (oom, "message") ? hearth_json_str (oom, "message")
                                              : "");
}

/* SUBMITTED, DURATION and REASON of an application. */
static void
s_app_times (const hearth_view_t *v, const cJSON *a, char *submitted,
             size_t ssize, char *duration, size_t dsize)
{
    double submit = hearth_view_num (a, "submit_ms"),
           end = hearth_view_num (a, "end_ms");
    snprintf (submitted, ssize, "-");
    snprintf (duration, dsize, "-");
    if (submit <= 0)
        return;
    char stamp[64];
    hearth_view_stamp (submit, stamp, sizeof stamp);
    snprintf (submitted, ssize, "%.19sZ", stamp); /* to the second */
    if (end > 0 || v->now_ms > 0)
        hearth_view_duration (
            (int64_t) ((end > 0 ? end : (double) v->now_ms) - submit), duration,
            dsize);
}

/* "  waiting: REASON (CODE)" under a row that waits. */
static void
s_waiting (FILE *out, const cJSON *row)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive (row, "waiting");
    char text[1200];
    if (hearth_view_waiting_text (w, text, sizeof text))
        fprintf (out, "  waiting: %s\n", text);
}

bool
hearth_view_waiting_text (const cJSON *waiting, char *buf, size_t size)
{
    /* a master before the codes said only the sentence */
    const char *reason = cJSON_IsString (waiting)
                             ? waiting->valuestring
                             : hearth_json_str (waiting, "reason");
    const char *code = hearth_json_str (waiting, "code");
    buf[0] = '\0';
    if (!reason)
        return false;
    snprintf (buf, size, "%s%s%s%s", reason, code ? " (" : "", code ? code : "",
              code ? ")" : "");
    return true;
}

size_t
hearth_view_apps (FILE *out, const cJSON *state, const hearth_view_t *v)
{
    const cJSON *list = s_list (state, "apps"), *a;
    int nw = s_width (list, v, "name", false, 4);
    size_t rows = 0;
    fprintf (out, "APPLICATIONS\n%-*s %-*s %-9s %-5s %-5s %-20s %-8s %s\n",
             s_app_id_width, "ID", nw, "NAME", "STATE", "CORES", "MAX",
             "SUBMITTED", "DURATION", "REASON");
    cJSON_ArrayForEach (a, list)
    {
        if (!hearth_view_match (v, a))
            continue;
        const cJSON *max = cJSON_GetObjectItemCaseSensitive (a, "max_cores");
        char maxtext[16], submitted[32], duration[32];
        snprintf (maxtext, sizeof maxtext, "%.0f",
                  hearth_view_num (a, "max_cores"));
        s_app_times (v, a, submitted, sizeof submitted, duration,
                     sizeof duration);
        const char *reason = hearth_json_str (a, "reason");
        fprintf (out, "%-*s %-*s %-9s %-5.0f %-5s %-20s %-*s%s%s\n",
                 s_app_id_width, hearth_view_text (a, "id"), nw,
                 hearth_view_text (a, "name"), hearth_view_text (a, "state"),
                 s_app_cores (a), cJSON_IsNumber (max) ? maxtext : "-",
                 submitted, reason ? 8 : 0, duration, reason ? " " : "",
                 reason ? reason : "");
        const cJSON *target =
            cJSON_GetObjectItemCaseSensitive (a, "executor_target");
        if (cJSON_IsNumber (target)) /* dynamic allocation */
            fprintf (out, "  executor_target: %.0f (has %d)\n",
                     target->valuedouble,
                     cJSON_GetArraySize (
                         cJSON_GetObjectItemCaseSensitive (a, "executors")));
        s_waiting (out, a);
        char res[512];
        hearth_view_amounts_text (
            cJSON_GetObjectItemCaseSensitive (a, "executor_resources"), res,
            sizeof res);
        if (res[0])
            fprintf (out, "  each executor: %s\n", res);
        s_last_oom (out, cJSON_GetObjectItemCaseSensitive (a, "last_oom"), v);
        rows++;
    }
    return rows;
}

size_t
hearth_view_executors (FILE *out, const cJSON *state, const hearth_view_t *v)
{
    const cJSON *a, *e;
    int ww = 6;
    cJSON_ArrayForEach (a, s_list (state, "apps"))
    {
        int w = hearth_view_match (v, a) ? s_width (
                    cJSON_GetObjectItemCaseSensitive (a, "executors"),
                    &(hearth_view_t){.names = v->names}, "worker_id", true, 6)
                                         : 0;
        ww = w > ww ? w : ww;
    }
    size_t rows = 0;
    fprintf (out, "EXECUTORS\n%-*s %-5s %-*s %-6s %-8s %s\n", s_app_id_width,
             "APP", "EXEC", ww, "WORKER", "CORES", "MEMORY", "STATE");
    cJSON_ArrayForEach (a, s_list (state, "apps"))
    {
        if (!hearth_view_match (v, a))
            continue;
        cJSON_ArrayForEach (e,
                            cJSON_GetObjectItemCaseSensitive (a, "executors"))
        {
            char res[512];
            hearth_view_amounts_text (
                cJSON_GetObjectItemCaseSensitive (e, "resources"), res,
                sizeof res);
            fprintf (
                out, "%-*s %-5.0f %-*s %-6.0f %-8.0f %s%s%s\n", s_app_id_width,
                hearth_view_text (a, "id"), hearth_view_num (e, "exec_id"), ww,
                s_worker (v, hearth_json_str (e, "worker_id")),
                hearth_view_num (e, "cores"), hearth_view_num (e, "memory_mb"),
                hearth_view_text (e, "state"), res[0] ? "  " : "", res);
            rows++;
        }
    }
    return rows;
}

size_t
hearth_view_drivers (FILE *out, const cJSON *state, const hearth_view_t *v)
{
    const cJSON *list = s_list (state, "drivers"), *d;
    int nw = s_width (list, v, "name", false, 4);
    int ww = s_width (list, v, "worker_id", true, 6);
    size_t rows = 0;
    fprintf (out, "DRIVERS\n%-*s %-*s %-11s %-*s %-5s %-8s %-8s %s\n",
             s_driver_id_width, "ID", nw, "NAME", "STATE", ww, "WORKER",
             "CORES", "MEMORY", "LAUNCHES", "APP");
    cJSON_ArrayForEach (d, list)
    {
        if (!hearth_view_match (v, d))
            continue;
        char launches[32];
        snprintf (launches, sizeof launches, "%.0f%s",
                  hearth_view_num (d, "launches"),
                  hearth_json_bool (d, "supervise", false) ? " (s)" : "");
        fprintf (out, "%-*s %-*s %-11s %-*s %-5.0f %-8.0f %-8s %s\n",
                 s_driver_id_width, hearth_view_text (d, "id"), nw,
                 hearth_view_text (d, "name"), hearth_view_text (d, "state"),
                 ww, s_worker (v, hearth_json_str (d, "worker_id")),
                 hearth_view_num (d, "cores"), hearth_view_num (d, "memory_mb"),
                 launches, hearth_view_text (d, "app_id"));
        s_waiting (out, d);
        rows++;
    }
    return rows;
}

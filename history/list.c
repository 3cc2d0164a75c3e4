/*  list.c - the listing of a directory's applications; see list.h.

    scan.c gives the logs, index.c the summaries of unchanged ones (the
    others are read again, appsum.c), live.c the state of those without
    app_end; the rows are filtered, sorted newest first and printed.
*/
#include "config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history/index.h"
#include "history/list.h"
#include "history/live.h"
#include "libcore/ctlchars.h"
#include "libcore/stateview.h"
#include "libcore/units.h"

/* One row: a summary (borrowed from the index, or owned) and what is
   decided at listing time. */
typedef struct {
    const hist_app_t *app; /* the summary */
    const hist_log_t *log; /* its files */
    const char *state;     /* shown (live.h) */
    char reason[512];      /* shown */
    int64_t duration_ms;   /* start to end, last event, or now */
} s_row_t;

/* ---- reading one log ----------------------------------------------------- */

static int
s_feed (void *arg, const char *text, size_t len, bool first)
{
    return hist_app_feed (arg, text, len, first);
}

hist_app_t *
hist_list_read_app (const char *dir, const hist_log_t *log, FILE *warn_out,
                    hearth_error_t *err)
{
    hist_app_t *a = hist_app_new (log->id);
    hist_read_t rd;
    if (!a) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    if (hist_log_read (dir, log, s_feed, a, &rd, err) != 0) {
        hist_app_destroy (&a);
        return NULL;
    }
    a->cut = rd.cut;
    a->lines += (int64_t) rd.long_lines;
    a->bad_lines += (int64_t) rd.long_lines;
    if (warn_out)
        hist_read_warn (warn_out, dir, &rd);
    free (a->exec_cores); /* only needed while feeding */
    a->exec_cores = NULL;
    a->nexec_cores = 0;
    return a;
}

/* ---- --since ------------------------------------------------------------- */

/* A UTC date-time: 0 and *ms, or -1. */
static int
s_parse_utc (const char *text, int64_t *ms)
{
    static const char *const forms[] = {"%Y-%m-%dT%H:%M:%S",
                                        "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M",
                                        "%Y-%m-%d %H:%M", "%Y-%m-%d"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        struct tm tm = {0};
        const char *end = strptime (text, forms[i], &tm);
        if (end && (*end == '\0' || (end[0] == 'Z' && end[1] == '\0'))) {
            *ms = (int64_t) timegm (&tm) * 1000;
            return 0;
        }
    }
    return -1;
}

int
hist_parse_since (const char *text, int64_t now_ms, int64_t *ms,
                  hearth_error_t *err)
{
    static const struct {
        char unit;
        int64_t ms;
    } units[] = {{'s', 1000},
                 {'m', 60000},
                 {'h', 3600000},
                 {'d', 86400000},
                 {'w', 604800000}};
    size_t len = strlen (text);
    if (len >= 2 && strspn (text, "0123456789") == len - 1)
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (text[len - 1] == units[i].unit) {
                int64_t n = strtoll (text, NULL, 10);
                if (n > INT64_MAX / units[i].ms / 2)
                    break;
                *ms = now_ms - n * units[i].ms;
                return 0;
            }
    if (s_parse_utc (text, ms) == 0)
        return 0;
    return hearth_errprintf (err,
                             "bad --since '%s': a duration back from now "
                             "(30s, 90m, 24h, 7d, 2w) or a UTC date-time "
                             "(2026-12-01, 2026-12-01T09:30[:00][Z])",
                             text);
}

/* ---- rows ---------------------------------------------------------------- */

static bool
s_state_wanted (const hist_list_opts_t *o, const char *state)
{
    for (size_t i = 0; i < o->nstates; i++)
        if (strcasecmp (o->states[i], state) == 0)
            return true;
    return o->nstates == 0;
}

static bool
s_wanted (const hist_list_opts_t *o, const s_row_t *r)
{
    const hist_app_t *a = r->app;
    bool running = strcmp (r->state, "RUNNING") == 0;
    if (!s_state_wanted (o, r->state))
        return false;
    if (o->since_ms >= 0 && !running && a->last_ms < o->since_ms)
        return false;
    if (o->name_glob && fnmatch (o->name_glob, a->name ? a->name : "", 0) != 0)
        return false;
    return true;
}

static int
s_newest_first (const void *x, const void *y)
{
    const s_row_t *a = x, *b = y;
    if (a->app->start_ms != b->app->start_ms)
        return a->app->start_ms > b->app->start_ms ? -1 : 1;
    return -strcmp (a->app->id, b->app->id);
}

static void
s_decide (s_row_t *r, const hist_dir_t *d, const hist_here_t *h)
{
    const hist_app_t *a = r->app;
    r->state =
        hist_shown_state_in (a, d, r->log, h, r->reason, sizeof r->reason);
    int64_t end = a->end_ms >= 0                      ? a->end_ms
                  : strcmp (r->state, "RUNNING") == 0 ? h->now_ms
                                                      : a->last_ms;
    r->duration_ms =
        a->start_ms >= 0 && end >= a->start_ms ? end - a->start_ms : 0;
}

/* ---- output -------------------------------------------------------------- */

static const char *
s_or (const char *s, const char *dflt)
{
    return s && *s ? s : dflt;
}

/* The STATE cell: the state, marked when a driver resumed the
   application. */
static void
s_state_cell (const s_row_t *r, char *buf, size_t size)
{
    snprintf (buf, size, "%s%s", r->state,
              r->app->resumed >= 0 ? " (resumed)" : "");
}

static void
s_print_text (FILE *out, const s_row_t *rows, size_t n)
{
    int wid = 6, wname = 4, wuser = 4, wstate = 8;
    char state[48];
    for (size_t i = 0; i < n; i++) {
        s_state_cell (&rows[i], state, sizeof state);
        wstate = (int) strlen (state) > wstate ? (int) strlen (state) : wstate;
        int l = (int) strlen (rows[i].app->id);
        wid = l > wid ? l : wid;
        l = (int) strlen (s_or (rows[i].app->name, "-"));
        wname = l > wname ? (l > 24 ? 24 : l) : wname;
        l = (int) strlen (s_or (rows[i].app->user, "-"));
        wuser = l > wuser ? (l > 12 ? 12 : l) : wuser;
    }
    fprintf (out, "%-*s %-*s %-*s %-*s %-20s %-8s %5s %7s %6s %s\n", wid, "ID",
             wname, "NAME", wuser, "USER", wstate, "STATE", "START", "DURATION",
             "CORES", "TASKS", "FAILED", "REASON");
    for (size_t i = 0; i < n; i++) {
        const s_row_t *r = &rows[i];
        const hist_app_t *a = r->app;
        char stamp[40] = "-", start[24] = "-", dur[24];
        if (a->start_ms >= 0) {
            hearth_view_stamp ((double) a->start_ms, stamp, sizeof stamp);
            snprintf (start, sizeof start, "%.19sZ", stamp);
        }
        hearth_view_duration (r->duration_ms, dur, sizeof dur);
        s_state_cell (r, state, sizeof state);
        /* one row, whatever the log's names and reason held */
        hearth_ctl_fprintf (
            out, "%-*s %-*.*s %-*.*s %-*s %-20s %-8s %5lld %7lld %6lld %s\n",
            wid, a->id, wname, wname, s_or (a->name, "-"), wuser, wuser,
            s_or (a->user, "-"), wstate, state, start, dur,
            (long long) a->cores_max, (long long) a->tasks_ok,
            (long long) a->tasks_failed, s_or (r->reason, "-"));
    }
}

static cJSON *
s_row_json (const s_row_t *r)
{
    const hist_app_t *a = r->app;
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddStringToObject (o, "id", a->id);
    const char *strs[][2] = {{"app_id", a->app_id},
                             {"name", a->name},
                             {"user", a->user},
                             {"master", a->master},
                             {"host", a->host}};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (strs[i][1])
            cJSON_AddStringToObject (o, strs[i][0], strs[i][1]);
        else
            cJSON_AddNullToObject (o, strs[i][0]);
    cJSON_AddStringToObject (o, "state", r->state);
    cJSON_AddStringToObject (o, "reason", r->reason);
    cJSON_AddBoolToObject (o, "ended", a->state != NULL);
    cJSON_AddBoolToObject (o, "resumed", a->resumed >= 0);
    const struct {
        const char *k;
        int64_t v;
    } nums[] = {{"pid", a->pid},
                {"start_ms", a->start_ms},
                {"end_ms", a->end_ms},
                {"last_ms", a->last_ms},
                {"duration_ms", r->duration_ms},
                {"cores", a->cores_max},
                {"cores_added", a->cores_sum},
                {"executors", a->executors},
                {"tasks_succeeded", a->tasks_ok},
                {"tasks_failed", a->tasks_failed},
                {"jobs", a->jobs},
                {"jobs_failed", a->jobs_failed},
                {"resumed_outputs", a->resumed},
                {"files", (int64_t) r->log->nfiles},
                {"bytes", (int64_t) r->log->bytes},
                {"bad_lines", a->bad_lines}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (nums[i].v < 0)
            cJSON_AddNullToObject (o, nums[i].k);
        else
            cJSON_AddNumberToObject (o, nums[i].k, (double) nums[i].v);
    cJSON_AddBoolToObject (o, "cut_last_line", a->cut);
    return o;
}

/* The listing's document (new; caller deletes), or NULL when out of
   memory. */
static cJSON *
s_doc (const hist_list_opts_t *o, const s_row_t *rows, size_t n, int64_t now_ms)
{
    cJSON *doc = cJSON_CreateObject ();
    cJSON *list = cJSON_AddArrayToObject (doc, "applications");
    if (!list)
        goto nomem;
    cJSON_AddStringToObject (doc, "dir", o->dir);
    cJSON_AddNumberToObject (doc, "time_ms", (double) now_ms);
    for (size_t i = 0; i < n; i++) {
        cJSON *row = s_row_json (&rows[i]);
        if (!row || !cJSON_AddItemToArray (list, row))
            goto nomem;
    }
    return doc;
nomem:
    cJSON_Delete (doc);
    return NULL;
}

/* ---- the listing --------------------------------------------------------- */

/* The summary of log from the index, or read (and put there).  NULL
   after a warning when it cannot be read. */
static const hist_app_t *
s_summary (const hist_list_opts_t *o, hist_index_t *idx, const hist_log_t *log,
           hist_app_t **own, FILE *err_out)
{
    const hist_app_t *a = idx ? hist_index_get (idx, log) : NULL;
    if (a)
        return a;
    hearth_error_t err;
    hist_app_t *fresh = hist_list_read_app (o->dir, log, err_out, &err);
    if (!fresh) {
        hearth_ctl_fprintf (err_out, "hearth-history: %s\n", err.text);
        return NULL;
    }
    if (idx && hist_index_put (idx, log, fresh) == 0)
        return hist_index_get (idx, log);
    if (idx)
        return NULL; /* out of memory: put destroyed it */
    *own = fresh;
    return fresh;
}

/* A listing being made: the directory, the index, the rows kept. */
typedef struct {
    hist_dir_t d;      /* the logs */
    hist_index_t *idx; /* the cache, or NULL */
    s_row_t *rows;     /* the rows kept, newest first */
    hist_app_t **own;  /* summaries read without the index, per log */
    size_t n;          /* rows kept */
    int64_t now_ms;    /* the listing's now */
} s_listing_t;

static void
s_release (s_listing_t *l)
{
    for (size_t i = 0; l->own && i < l->d.n; i++)
        hist_app_destroy (&l->own[i]);
    free (l->own);
    free (l->rows);
    hist_index_destroy (&l->idx);
    hist_dir_release (&l->d);
}

/* Scan, summarize, decide, filter and sort into l.  Returns the exit
   status (list.h); with l->rows NULL when nothing can be listed (l is to
   be released either way). */
static int
s_collect (const hist_list_opts_t *o, s_listing_t *l, FILE *err_out)
{
    hearth_error_t err;
    *l = (s_listing_t){0};
    if (hist_dir_scan (o->dir, &l->d, &err) < 0) {
        hearth_ctl_fprintf (err_out, "hearth-history: %s\n", err.text);
        return 1;
    }
    int status = 0;
    hist_dir_t *d = &l->d;
    l->idx = o->no_index ? NULL : hist_index_load (o->dir);
    l->rows = calloc (d->n ? d->n : 1, sizeof *l->rows);
    l->own = calloc (d->n ? d->n : 1, sizeof *l->own);
    hist_here_t here;
    hist_here_init (&here, o->stale_ms);
    l->now_ms = here.now_ms;
    for (size_t i = 0; l->rows && l->own && i < d->n; i++) {
        const hist_app_t *a =
            s_summary (o, l->idx, &d->logs[i], &l->own[i], err_out);
        if (!a || !a->is_log) {
            if (a)
                hearth_ctl_fprintf (err_out,
                                    "hearth-history: %s/%s is not an event "
                                    "log (its first line is not a "
                                    "log_start)\n",
                                    o->dir, d->logs[i].files[0].name);
            status = 1;
            continue;
        }
        l->rows[l->n] = (s_row_t){.app = a, .log = &d->logs[i]};
        s_decide (&l->rows[l->n], d, &here);
        if (s_wanted (o, &l->rows[l->n]))
            l->n++;
    }
    if (!l->rows || !l->own) {
        fprintf (err_out, "hearth-history: out of memory\n");
        free (l->rows);
        l->rows = NULL;
        return 1;
    }
    /* a read-only DIR: the summaries stay in memory, silently; an index
       directory that is a link: said */
    if (l->idx && hist_index_warning (l->idx))
        hearth_ctl_fprintf (err_out, "hearth-history: %s\n",
                            hist_index_warning (l->idx));
    else if (l->idx)
        hist_index_save (l->idx, d, NULL);
    qsort (l->rows, l->n, sizeof *l->rows, s_newest_first);
    return status;
}

cJSON *
hist_list_json (const hist_list_opts_t *o, FILE *err_out, int *status)
{
    s_listing_t l;
    *status = s_collect (o, &l, err_out);
    cJSON *doc = l.rows ? s_doc (o, l.rows, l.n, l.now_ms) : NULL;
    if (l.rows && !doc) {
        fprintf (err_out, "hearth-history: out of memory\n");
        *status = 1;
    }
    s_release (&l);
    return doc;
}

int
hist_list (const hist_list_opts_t *o, FILE *out, FILE *err_out)
{
    s_listing_t l;
    int status = s_collect (o, &l, err_out);
    if (l.rows && o->json) {
        cJSON *doc = s_doc (o, l.rows, l.n, l.now_ms);
        char *text = doc ? cJSON_PrintUnformatted (doc) : NULL;
        if (text)
            fprintf (out, "%s\n", text);
        else {
            fprintf (err_out, "hearth-history: out of memory\n");
            status = 1;
        }
        free (text);
        cJSON_Delete (doc);
    }
    else if (l.rows)
        s_print_text (out, l.rows, l.n);
    s_release (&l);
    return status;
}

/*  webpage_worker.c - a worker's pages: the worker (/) with its
    executors and drivers, and the page of one log (/logpage); see
    webpage.h.

    The worker serves its own logs, so its links are relative (/logpage?…);
    an application's id links to its page on the master when the worker
    knows the master's web URL. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/proto.h"
#include "libcore/stateview.h"
#include "libcore/units.h"
#include "libcore/webpage.h"
#include "libcore/webpage_int.h"

/* The part of a log a page shows by default and its links ask for: the
   worker's /log default, 64 KiB. */
static const int64_t s_log_page_bytes = 65536;

static const char *const s_exec_cols[] = {
    "Application", "Executor", "Cores",       "Memory",         "State", "PID",
    "Started",     "Duration", "Exit reason", "Out / err size", "Logs",  NULL};
/* (both in the order of s_common_cells after their first two) */
static const char *const s_driver_cols[] = {
    "Driver",  "Application", "Cores",       "Memory",         "State", "PID",
    "Started", "Duration",    "Exit reason", "Out / err size", "Logs",  NULL};

static const cJSON *
s_list (const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive (o, name);
}

static void
s_summary (FILE *out, const cJSON *ws)
{
    char text[96], size[32];
    int64_t now = (int64_t) hearth_view_num (ws, "time_ms");
    double started = hearth_view_num (ws, "started_ms");
    hearth_html_summary_open (out);
    hearth_html_summary_item (out, "ID", hearth_view_text (ws, "id"));
    hearth_html_summary_item (out, "Host", hearth_view_text (ws, "host"));
    hearth_html_summary_item (out, "State", hearth_view_text (ws, "state"));
    fputs ("<li><b>Master:</b> ", out);
    hearth_html_link (out, hearth_json_str (ws, "master_web_url"),
                      hearth_view_text (ws, "master"));
    fputs ("</li>", out);
    if (started > 0)
        hearth_view_duration ((int64_t) ((double) now - started), text,
                              sizeof text);
    else
        snprintf (text, sizeof text, "-");
    hearth_html_summary_item (out, "Uptime", text);
    snprintf (text, sizeof text, "%.0f / %.0f",
              hearth_view_num (ws, "cores_used"),
              hearth_view_num (ws, "cores"));
    hearth_html_summary_item (out, "Cores", text);
    snprintf (text, sizeof text, "%.0f / %.0f MiB",
              hearth_view_num (ws, "memory_used_mb"),
              hearth_view_num (ws, "memory_mb"));
    hearth_html_summary_item (out, "Memory", text);
    hearth_format_size ((uint64_t) hearth_view_num (ws, "shuffle_bytes"), size,
                        sizeof size);
    hearth_html_summary_item (out, "Shuffle", size);
    hearth_format_size ((uint64_t) hearth_view_num (ws, "persisted_bytes"),
                        size, sizeof size);
    hearth_html_summary_item (out, "Persisted", size); /* of it (issue 38) */
    char res[1024];
    hearth_view_resources_text (ws, res, sizeof res);
    if (res[0]) /* its addresses, and which executor holds each */
        hearth_html_summary_item (out, "Resources", res);
    hearth_html_summary_close (out);
}

/* The cells both tables share, from Cores to Output. */
static void
s_common_cells (FILE *out, const cJSON *o, int64_t now)
{
    char text[80], out_size[32], err_size[32];
    hearth_html_cell_num (out, hearth_view_num (o, "cores"));
    fprintf (out, "<td>%.0f MiB</td>", hearth_view_num (o, "memory_mb"));
    hearth_html_cell_state (out, hearth_view_text (o, "state"));
    if (hearth_view_num (o, "pid") > 0)
        hearth_html_cell_num (out, hearth_view_num (o, "pid"));
    else
        hearth_html_cell (out, "-");
    double start = hearth_view_num (o, "started_ms"),
           end = hearth_view_num (o, "ended_ms");
    if (start > 0) {
        hearth_view_stamp (start, text, sizeof text);
        text[19] = '\0'; /* to the second */
        strcat (text, "Z");
    }
    else
        snprintf (text, sizeof text, "-");
    hearth_html_cell (out, text);
    if (start > 0)
        hearth_view_duration (
            (int64_t) ((end > 0 ? end : (double) now) - start), text,
            sizeof text);
    hearth_html_cell (out, text);
    hearth_html_cell (out, hearth_view_text (o, "exit_reason"));
    hearth_format_size ((uint64_t) hearth_view_num (o, "stdout_bytes"),
                        out_size, sizeof out_size);
    hearth_format_size ((uint64_t) hearth_view_num (o, "stderr_bytes"),
                        err_size, sizeof err_size);
    snprintf (text, sizeof text, "%s / %s", out_size, err_size);
    hearth_html_cell (out, text);
}

/* An application's id, linked to its page on the master when known. */
static void
s_app_cell (FILE *out, const cJSON *ws, const char *app_id)
{
    const char *master = hearth_json_str (ws, "master_web_url");
    fputs ("<td>", out);
    if (app_id && hearth_html_linkable (master)) {
        fputs ("<a href=\"", out);
        hearth_html_text (out, master);
        fputs ("/app/", out);
        hearth_html_urlarg (out, app_id);
        fputs ("\">", out);
        hearth_html_text (out, app_id);
        fputs ("</a>", out);
    }
    else
        hearth_html_text (out, app_id);
    fputs ("</td>", out);
}

/* An executor's row (ctx: the worker's state). */
static bool
s_exec_row (FILE *out, const cJSON *e, const void *ws)
{
    int64_t now = (int64_t) hearth_view_num (ws, "time_ms");
    char id[32];
    const char *app = hearth_json_str (e, "app_id");
    snprintf (id, sizeof id, "%.0f", hearth_view_num (e, "exec_id"));
    fputs ("<tr data-id=\"", out);
    hearth_html_text (out, app);
    fprintf (out, "/%s\">", id);
    s_app_cell (out, ws, app);
    hearth_html_cell (out, id);
    s_common_cells (out, e, now);
    hearth_html_cell_logs (out, "", "app", app, "exec", id);
    fputs ("</tr>\n", out);
    return true;
}

/* A driver's row (ctx: the worker's state). */
static bool
s_driver_row (FILE *out, const cJSON *d, const void *ws)
{
    int64_t now = (int64_t) hearth_view_num (ws, "time_ms");
    const char *id = hearth_json_str (d, "driver_id");
    fputs ("<tr data-id=\"", out);
    hearth_html_text (out, id);
    fputs ("\">", out);
    hearth_html_cell (out, id);
    s_app_cell (out, ws, hearth_json_str (d, "app_id"));
    s_common_cells (out, d, now);
    hearth_html_cell_logs (out, "", "driver", id, NULL, NULL);
    fputs ("</tr>\n", out);
    return true;
}

char *
hearth_page_worker (const cJSON *ws, int *status)
{
    hearth_html_t h;
    *status = 200;
    if (hearth_html_open (&h) < 0)
        return NULL;
    hearth_html_head (h.out, "Hearth worker", "worker", NULL);
    s_summary (h.out, ws);
    hearth_html_table (h.out, "executors", "Executors", s_exec_cols,
                       s_list (ws, "executors"), s_exec_row, ws);
    hearth_html_table (h.out, "drivers", "Drivers", s_driver_cols,
                       s_list (ws, "drivers"), s_driver_row, ws);
    hearth_html_foot (h.out, true);
    return hearth_html_close (&h);
}

/* A link to the log's part from offset, of length bytes. */
static void
s_part_link (FILE *out, const char *query, int64_t offset, int64_t length,
             const char *text)
{
    fputs ("<a href=\"/logpage?", out);
    hearth_html_text (out, query);
    fprintf (out, "&amp;offset=%" PRId64 "&amp;length=%" PRId64 "\">%s</a>",
             offset, length, text);
}

/* The previous, next, first and last links of the part shown. */
static void
s_log_nav (FILE *out, const char *query, size_t len, int64_t offset,
           int64_t total)
{
    int64_t end = offset + (int64_t) len;
    fputs ("<p class=\"nav\"><a href=\"/\">Back to the worker</a>", out);
    if (offset > 0) {
        s_part_link (out, query, 0, s_log_page_bytes, "first");
        int64_t prev =
            offset > s_log_page_bytes ? offset - s_log_page_bytes : 0;
        s_part_link (out, query, prev, offset - prev, "previous");
    }
    if (end < total)
        s_part_link (out, query, end, s_log_page_bytes, "next");
    s_part_link (out, query, -s_log_page_bytes, s_log_page_bytes, "last");
    fprintf (out,
             "<span id=\"range\">bytes %" PRId64 "-%" PRId64 " of %" PRId64
             "</span></p>\n",
             offset, end, total);
}

char *
hearth_page_log (const cJSON *ws, const char *what, const char *stream,
                 const char *text, size_t len, int64_t offset, int64_t total,
                 const char *query, int *status)
{
    hearth_html_t h;
    char title[256];
    *status = text ? 200 : 404;
    if (hearth_html_open (&h) < 0)
        return NULL;
    snprintf (title, sizeof title, "%s of %s", stream ? stream : "log",
              what ? what : "-");
    hearth_html_head (h.out, title, "log", NULL);
    if (ws) {
        hearth_html_summary_open (h.out);
        hearth_html_summary_item (h.out, "Worker", hearth_view_text (ws, "id"));
        hearth_html_summary_item (h.out, "Host", hearth_view_text (ws, "host"));
        hearth_html_summary_close (h.out);
    }
    if (!text) {
        fputs ("<p class=\"nav\"><a href=\"/\">Back to the worker</a></p>"
               "<p>This worker has no such log.</p>\n",
               h.out);
        hearth_html_foot (h.out, false);
        return hearth_html_close (&h);
    }
    s_log_nav (h.out, query ? query : "", len, offset, total);
    fputs ("<pre id=\"log\">", h.out);
    hearth_html_text_n (h.out, text, len);
    fputs ("</pre>\n", h.out);
    hearth_html_foot (h.out, false);
    return hearth_html_close (&h);
}

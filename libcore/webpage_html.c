/*  webpage_html.c - the HTML pieces every page is made of: the document
    in memory, escaping, the head with its inline style, summary lists and
    tables; see webpage_int.h.

    The style is inline and the favicon a data: URL, so that a page makes
    no request but its own and the script's /api/v1/state. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libcore/proto.h"
#include "libcore/webpage_int.h"

/* The pages' style: plain tables, states in colour, a bar per stage. */
static const char s_style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}"
    "h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1.2em 0 "
    ".3em}"
    "table{border-collapse:collapse;width:100%}"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;"
    "vertical-align:top;white-space:nowrap}"
    "td:last-child{white-space:normal}"
    "th{background:#eee}tr:nth-child(even) td{background:#fafafa}"
    "#summary{list-style:none;padding:0;margin:.5em 0}"
    "#summary li{display:inline-block;margin-right:2em}"
    "#summary b{font-weight:600}"
    ".st-ALIVE,.st-RUNNING,.st-FINISHED,.st-EXITED{color:#070}"
    ".st-DEAD,.st-FAILED,.st-LOST,.st-ERROR{color:#b00;font-weight:600}"
    ".st-KILLED,.st-DRAINING,.st-UNKNOWN,.st-RELAUNCHING{color:#a60}"
    ".bar{display:inline-block;width:8em;height:.8em;background:#ddd;"
    "margin-right:.5em}"
    ".bar span{display:block;height:100%;background:#4a8}"
    ".stage{white-space:nowrap}"
    "pre{background:#f6f6f6;border:1px solid #ccc;padding:.5em;"
    "white-space:pre-wrap;word-break:break-all}"
    "#stale{color:#b00}"
    ".nav a{margin-right:1em}"
    "a.kill{color:#b00;font-size:.9em}"
    "button.kill{color:#fff;background:#b00;border:1px solid #800;"
    "border-radius:3px;padding:3px 12px;font:inherit;cursor:pointer}"
    ".actions{margin:.5em 0}.actions a{margin-left:1em}";

int
hearth_html_open (hearth_html_t *h)
{
    h->buf = NULL;
    h->len = 0;
    h->out = open_memstream (&h->buf, &h->len);
    return h->out ? 0 : -1;
}

char *
hearth_html_close (hearth_html_t *h)
{
    if (!h->out)
        return NULL;
    bool failed = ferror (h->out) != 0;
    if (fclose (h->out) != 0)
        failed = true;
    h->out = NULL;
    if (failed) {
        free (h->buf);
        h->buf = NULL;
    }
    return h->buf;
}

void
hearth_html_text_n (FILE *out, const char *s, size_t len)
{
    size_t run = 0; /* bytes written as they are, pending */
    for (size_t i = 0; i < len; i++) {
        const char *esc = NULL;
        switch (s[i]) {
        case '&':
            esc = "&amp;";
            break;
        case '<':
            esc = "&lt;";
            break;
        case '>':
            esc = "&gt;";
            break;
        case '"':
            esc = "&quot;";
            break;
        case '\'':
            esc = "&#39;";
            break;
        case '\0':
            esc = "&#xFFFD;";
            break; /* NUL is no HTML character */
        default:
            run++;
            continue;
        }
        fwrite (s + i - run, 1, run, out);
        run = 0;
        fputs (esc, out);
    }
    fwrite (s + len - run, 1, run, out);
}

void
hearth_html_text (FILE *out, const char *s)
{
    if (!s)
        s = "-";
    hearth_html_text_n (out, s, strlen (s));
}

void
hearth_html_urlarg (FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *) (s ? s : ""); *p;
         p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
            || (*p >= '0' && *p <= '9') || strchr ("-._~", *p))
            fputc (*p, out);
        else
            fprintf (out, "%%%02X", *p);
    }
}

bool
hearth_html_linkable (const char *url)
{
    return url
           && (strncmp (url, "http://", 7) == 0
               || strncmp (url, "https://", 8) == 0);
}

void
hearth_html_link (FILE *out, const char *href, const char *text)
{
    if (!hearth_html_linkable (href)) {
        hearth_html_text (out, text);
        return;
    }
    fputs ("<a href=\"", out);
    hearth_html_text (out, href);
    fputs ("\">", out);
    hearth_html_text (out, text);
    fputs ("</a>", out);
}

void
hearth_html_head (FILE *out, const char *title, const char *page,
                  const char *app)
{
    hearth_html_head_kill (out, title, page, app, false);
}

void
hearth_html_head_kill (FILE *out, const char *title, const char *page,
                       const char *app, bool kill)
{
    fputs ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width\">"
           "<link rel=\"icon\" href=\"data:,\"><title>",
           out);
    hearth_html_text (out, title);
    fprintf (out, "</title><style>%s</style></head>\n<body data-page=\"",
             s_style);
    hearth_html_text (out, page);
    fputs ("\"", out);
    if (app) {
        fputs (" data-app=\"", out);
        hearth_html_text (out, app);
        fputs ("\"", out);
    }
    if (kill)
        fputs (" data-kill=\"1\"", out);
    fputs (">\n<h1 id=\"title\">", out);
    hearth_html_text (out, title);
    fputs ("</h1><div id=\"stale\"></div>\n", out);
}

void
hearth_html_foot (FILE *out, bool script)
{
    if (script)
        fprintf (out, "<script>%s</script>\n", hearth_page_script);
    fputs ("</body></html>\n", out);
}

void
hearth_html_summary_open (FILE *out)
{
    fputs ("<ul id=\"summary\">", out);
}

void
hearth_html_summary_item (FILE *out, const char *label, const char *value)
{
    fputs ("<li><b>", out);
    hearth_html_text (out, label);
    fputs (":</b> ", out);
    hearth_html_text (out, value);
    fputs ("</li>", out);
}

void
hearth_html_summary_close (FILE *out)
{
    fputs ("</ul>\n", out);
}

void
hearth_html_table_open (FILE *out, const char *id, const char *caption,
                        const char *const cols[])
{
    fputs ("<h2>", out);
    hearth_html_text (out, caption);
    fputs ("</h2><table id=\"", out);
    hearth_html_text (out, id);
    fputs ("\"><thead><tr>", out);
    for (size_t i = 0; cols[i]; i++) {
        fputs ("<th>", out);
        hearth_html_text (out, cols[i]);
        fputs ("</th>", out);
    }
    fputs ("</tr></thead><tbody>\n", out);
}

void
hearth_html_table_empty (FILE *out, const char *const cols[])
{
    size_t n = 0;
    while (cols[n])
        n++;
    fprintf (out, "<tr class=\"none\"><td colspan=\"%zu\">none</td></tr>\n", n);
}

void
hearth_html_table_close (FILE *out)
{
    fputs ("</tbody></table>\n", out);
}

void
hearth_html_table (FILE *out, const char *id, const char *caption,
                   const char *const cols[], const cJSON *list,
                   hearth_html_row_fn *row, const void *ctx)
{
    const cJSON *item;
    size_t rows = 0;
    hearth_html_table_open (out, id, caption, cols);
    cJSON_ArrayForEach (item, list)
    {
        rows += row (out, item, ctx);
    }
    if (!rows)
        hearth_html_table_empty (out, cols);
    hearth_html_table_close (out);
}

void
hearth_html_cell (FILE *out, const char *text)
{
    fputs ("<td>", out);
    hearth_html_text (out, text);
    fputs ("</td>", out);
}

void
hearth_html_cell_num (FILE *out, double n)
{
    fprintf (out, "<td>%.0f</td>", n);
}

void
hearth_html_cell_ratio (FILE *out, double used, double total, const char *unit)
{
    fprintf (out, "<td>%.0f / %.0f%s%s</td>", used, total, unit ? " " : "",
             unit ? unit : "");
}

void
hearth_html_cell_state (FILE *out, const char *state)
{
    fputs ("<td><span class=\"st-", out);
    hearth_html_text (out, state);
    fputs ("\">", out);
    hearth_html_text (out, state);
    fputs ("</span></td>", out);
}

const cJSON *
hearth_html_find (const cJSON *list, const char *key, const char *value)
{
    const cJSON *o;
    cJSON_ArrayForEach (o, list)
    {
        const char *v = hearth_json_str (o, key);
        if (value && v && strcmp (value, v) == 0)
            return o;
    }
    return NULL;
}

/* One log link: base/logpage?key=value[&key2=value2]&stream=stream. */
static void
s_log_link (FILE *out, const char *base, const char *key, const char *value,
            const char *key2, const char *value2, const char *stream)
{
    fputs ("<a href=\"", out);
    hearth_html_text (out, base);
    fprintf (out, "/logpage?%s=", key);
    hearth_html_urlarg (out, value);
    if (key2) {
        fprintf (out, "&amp;%s=", key2);
        hearth_html_urlarg (out, value2);
    }
    fprintf (out, "&amp;stream=%s\">%s</a>", stream, stream);
}

void
hearth_html_cell_logs (FILE *out, const char *base, const char *key,
                       const char *value, const char *key2, const char *value2)
{
    if (!base || (base[0] && !hearth_html_linkable (base))) {
        hearth_html_cell (out, "-");
        return;
    }
    fputs ("<td>", out);
    s_log_link (out, base, key, value, key2, value2, "stdout");
    fputs (" ", out);
    s_log_link (out, base, key, value, key2, value2, "stderr");
    fputs ("</td>", out);
}

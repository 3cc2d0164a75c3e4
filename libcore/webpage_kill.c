/*  webpage_kill.c - the pages of a kill from the master's pages: the one
    that asks to confirm it (its form POSTs the kill) and the one that
    says how it went; see webpage.h.  Neither has a script: a form and a
    button are all a kill needs. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/ids.h"
#include "libcore/proto.h"
#include "libcore/stateview.h"
#include "libcore/webpage.h"
#include "libcore/webpage_int.h"

/* What each kind is called, where it is in the state, and what its kill
   does (docs/operations.md, "Killing from the pages"). */
static const struct {
    const char *path;  /* its pages' prefix: /app/ID */
    const char *noun;  /* for people */
    const char *list;  /* the state's list of them */
    const char *final; /* its final states, space-separated */
    const char *does;  /* what a kill does */
} s_kinds[] = {
    [HEARTH_PAGE_APP] = {"app", "application", "apps",
                         " FINISHED FAILED KILLED ",
                         "It ends KILLED (\"killed by request\"), as "
                         "hearth-admin kill does: its driver is told and "
                         "fails its jobs, and its executors are stopped.  "
                         "A cluster-mode driver that runs it is killed with "
                         "it and not relaunched."},
    [HEARTH_PAGE_DRIVER] = {"driver", "driver", "drivers",
                            " FINISHED FAILED KILLED ERROR ",
                            "It is stopped on its worker and not "
                            "relaunched, and its application ends KILLED, "
                            "as hearth-admin kill does."},
};

char *
hearth_page_kill_path (hearth_page_kind_t kind, const char *id, char *buf,
                       size_t size)
{
    snprintf (buf, size, "/%s/%s/kill", s_kinds[kind].path, id ? id : "");
    return buf;
}

/* The nav line: back to the thing's page (an application's) and to the
   master's. */
static void
s_nav (FILE *out, hearth_page_kind_t kind, const char *id)
{
    fputs ("<p class=\"nav\">", out);
    if (kind == HEARTH_PAGE_APP) {
        fputs ("<a id=\"back\" href=\"/app/", out);
        hearth_html_urlarg (out, id);
        fputs ("\">Back to the application</a>", out);
    }
    fputs ("<a href=\"/\">Back to the master</a></p>\n", out);
}

/* Whether the state of o is final for its kind. */
static bool
s_ended (hearth_page_kind_t kind, const cJSON *o)
{
    char word[64];
    snprintf (word, sizeof word, " %.60s ", hearth_view_text (o, "state"));
    return strstr (s_kinds[kind].final, word) != NULL;
}

/* What the thing is, as a summary list. */
static void
s_summary (FILE *out, hearth_page_kind_t kind, const cJSON *o)
{
    char text[64];
    hearth_html_summary_open (out);
    hearth_html_summary_item (out, "Name", hearth_view_text (o, "name"));
    hearth_html_summary_item (out, "State", hearth_view_text (o, "state"));
    if (kind == HEARTH_PAGE_APP) {
        hearth_html_summary_item (out, "User", hearth_view_text (o, "user"));
        snprintf (text, sizeof text, "%.0f",
                  hearth_view_num (o, "cores_granted"));
    }
    else {
        hearth_html_summary_item (out, "Worker",
                                  hearth_view_text (o, "worker_id"));
        hearth_html_summary_item (out, "Application",
                                  hearth_view_text (o, "app_id"));
        snprintf (text, sizeof text, "%.0f", hearth_view_num (o, "cores"));
    }
    hearth_html_summary_item (out, "Cores", text);
    hearth_html_summary_close (out);
}

/* The form that POSTs the kill, with its anti-forgery value. */
static void
s_form (FILE *out, hearth_page_kind_t kind, const char *id, const char *field,
        const char *value)
{
    char path[HEARTH_ID_MAX + 32];
    fputs ("<form id=\"kill-form\" class=\"actions\" method=\"post\" "
           "action=\"",
           out);
    hearth_html_text (out, hearth_page_kill_path (kind, id, path, sizeof path));
    fputs ("\"><input type=\"hidden\" name=\"", out);
    hearth_html_text (out, field);
    fputs ("\" value=\"", out);
    hearth_html_text (out, value);
    fprintf (out,
             "\"><button type=\"submit\" id=\"kill\" class=\"kill\">Kill "
             "this %s</button>",
             s_kinds[kind].noun);
    if (kind == HEARTH_PAGE_APP) {
        fputs ("<a href=\"/app/", out);
        hearth_html_urlarg (out, id);
        fputs ("\">Cancel</a>", out);
    }
    else
        fputs ("<a href=\"/\">Cancel</a>", out);
    fputs ("</form>\n", out);
}

char *
hearth_page_kill_confirm (const cJSON *state, hearth_page_kind_t kind,
                          const char *id, const char *field, const char *value,
                          int *status)
{
    hearth_html_t h;
    const char *noun = s_kinds[kind].noun;
    const cJSON *o = hearth_html_find (
        cJSON_GetObjectItemCaseSensitive (state, s_kinds[kind].list), "id", id);
    char title[HEARTH_ID_MAX + 32];
    *status = o ? 200 : 404;
    if (hearth_html_open (&h) < 0)
        return NULL;
    snprintf (title, sizeof title, "Kill %s %.*s?", noun, HEARTH_ID_MAX,
              id ? id : "-");
    hearth_html_head (h.out, title, "kill", NULL);
    s_nav (h.out, kind, id);
    if (!o) {
        fprintf (h.out, "<p id=\"result\">This master knows no %s ", noun);
        hearth_html_text (h.out, id);
        fputs (".</p>\n", h.out);
    }
    else {
        s_summary (h.out, kind, o);
        if (s_ended (kind, o)) {
            fprintf (h.out, "<p id=\"result\">This %s has ended (", noun);
            hearth_html_text (h.out, hearth_view_text (o, "state"));
            fputs ("): there is nothing to kill.</p>\n", h.out);
        }
        else {
            fprintf (h.out, "<p>%s</p>\n", s_kinds[kind].does);
            s_form (h.out, kind, id, field, value);
        }
    }
    hearth_html_foot (h.out, false);
    return hearth_html_close (&h);
}

char *
hearth_page_kill_result (hearth_page_kind_t kind, const char *id,
                         const char *message)
{
    hearth_html_t h;
    char title[HEARTH_ID_MAX + 32];
    if (hearth_html_open (&h) < 0)
        return NULL;
    snprintf (title, sizeof title, "Kill %s %.*s", s_kinds[kind].noun,
              HEARTH_ID_MAX, id ? id : "-");
    hearth_html_head (h.out, title, "kill", NULL);
    s_nav (h.out, kind, id);
    fputs ("<p id=\"result\">", h.out);
    hearth_html_text (h.out, message);
    fputs ("</p>\n", h.out);
    hearth_html_foot (h.out, false);
    return hearth_html_close (&h);
}

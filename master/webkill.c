/*  webkill.c - killing an application or a cluster-mode driver from the
    master's pages (Spark's kill links; docs/operations.md "Killing from
    the pages", docs/security.md "Actions on the pages"); see web.h.

    A kill is two requests: GET .../confirm-kill, a page that says what
    will be killed, whose form holds the anti-forgery value of the kill's
    path; POST .../kill, the kill, refused (403) unless the form carries
    that value and the browser, when it says, sends it from this server's
    pages (libcore/webform.h).  GET on the kill is 405: nothing that a
    link, an image or a prefetch fetches changes anything.

    As whom: the web token is the credential of the daemon's operator (it
    reads every executor's log), so a kill from the pages acts as an
    operator key's KILL_APPLICATION or KILL_DRIVER would: any application,
    any driver, with the same end ("killed by request": its driver sees
    what hearth-admin kill's sees).  It is not a wire command and has no
    row in authz.c's table; it is logged at INFO with the client's
    address.  --web-read-only turns it off (403), and a standby kills
    nothing (503: the leader's pages do). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "libcore/ids.h"
#include "libcore/log.h"
#include "libcore/webform.h"
#include "master/drivers.h"
#include "master/regdrivers.h"
#include "master/registry.h"
#include "master/state.h"
#include "master/web.h"

/* What a kind is called, and its ids. */
static const struct {
    const char *noun;      /* for people */
    hearth_id_kind_t ids;  /* its ids' syntax */
    const char *id_syntax; /* that syntax, for the 400 */
} s_kinds[] = {
    [HEARTH_PAGE_APP] = {"application", HEARTH_ID_APP,
                         "app-YYYYMMDDHHMMSS-NNNN"},
    [HEARTH_PAGE_DRIVER] = {"driver", HEARTH_ID_DRIVER,
                            "driver-YYYYMMDDHHMMSS-NNNN"},
};

bool
master_web_kill_on (master_t *m)
{
    return !hearth_conf_bool (m->conf, "web-read-only")
           && m->role != MASTER_STANDBY;
}

/* The result page of a kill, with status. */
static void s_result (hearth_web_reply_t *rep, hearth_page_kind_t kind,
                      const char *id, int status, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));

static void
s_result (hearth_web_reply_t *rep, hearth_page_kind_t kind, const char *id,
          int status, const char *fmt, ...)
{
    char message[600];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (message, sizeof message, fmt, ap);
    va_end (ap);
    hearth_web_reply_html (rep, hearth_page_kill_result (kind, id, message),
                           status);
}

/* GET .../confirm-kill: the page, its form holding the kill's value. */
static void
s_confirm (master_t *m, const hearth_web_request_t *req,
           hearth_web_reply_t *rep, hearth_page_kind_t kind, const char *id)
{
    char path[HEARTH_ID_MAX + 32], value[HEARTH_WEBFORM_VALUE_LEN + 1];
    hearth_page_kill_path (kind, id, path, sizeof path);
    if (hearth_web_form_value (req, path, value, sizeof value) < 0) {
        hearth_web_reply_text (rep, 500,
                               "500 no anti-forgery value: "
                               "libsodium cannot hash\n");
        return;
    }
    cJSON *state = master_state_json (m);
    int status = 500;
    char *page = state ? hearth_page_kill_confirm (
                     state, kind, id, HEARTH_WEBFORM_FIELD, value, &status)
                       : NULL;
    cJSON_Delete (state);
    /* under the pages' no-referrer, a browser would send the form as
       from Origin: null, which s_kill refuses; same-origin still sends
       nothing to another server */
    hearth_web_reply_header (rep, "Referrer-Policy", "same-origin");
    hearth_web_reply_html (rep, page, status);
}

/* POST /app/ID/kill, once the id is known and the form checked. */
static void
s_kill_app (master_t *m, hearth_web_reply_t *rep, reg_app_t *app,
            const char *client)
{
    char id[HEARTH_ID_MAX + 1];
    snprintf (id, sizeof id, "%s", app->id);
    if (app->state > APP_RUNNING && app->state != APP_RELAUNCHING) {
        s_result (rep, HEARTH_PAGE_APP, id, 409,
                  "Application %s had already ended: %s (%s).  Nothing was "
                  "done.",
                  id, hearth_app_states[app->state],
                  app->end_reason ? app->end_reason : "-");
        return;
    }
    reg_driver_t *d = master_driver_of_app (m, id);
    char driver[HEARTH_ID_MAX + 1];
    snprintf (driver, sizeof driver, "%s", d ? d->id : "");
    log_info ("application %s killed on request from the web pages (client "
              "%s)",
              id, client);
    master_app_kill (m, app); /* app may be gone now */
    if (driver[0])
        s_result (rep, HEARTH_PAGE_APP, id, 200,
                  "Application %s is KILLED: its cluster-mode driver %s is "
                  "being stopped and will not be relaunched, and its "
                  "executors with it.",
                  id, driver);
    else
        s_result (rep, HEARTH_PAGE_APP, id, 200,
                  "Application %s is KILLED (killed by request): its driver "
                  "was told, and its executors are being stopped.",
                  id);
}

/* POST /driver/ID/kill, once the id is known and the form checked. */
static void
s_kill_driver (master_t *m, hearth_web_reply_t *rep, reg_driver_t *d,
               const char *client)
{
    char text[300];
    if (registry_driver_final (d->state)) {
        s_result (rep, HEARTH_PAGE_DRIVER, d->id, 409,
                  "Driver %s had already ended: %s.  Nothing was done.", d->id,
                  hearth_driver_states[d->state]);
        return;
    }
    log_info ("driver %s killed on request from the web pages (client %s)",
              d->id, client);
    master_driver_kill (m, d, text, sizeof text);
    s_result (rep, HEARTH_PAGE_DRIVER, d->id, 200,
              "Driver %s is being killed (%s): it will not be relaunched, "
              "and its application ends KILLED.",
              d->id, text);
}

/* POST .../kill: the record, the form, then the kill. */
static void
s_kill (master_t *m, const hearth_web_request_t *req, hearth_web_reply_t *rep,
        hearth_page_kind_t kind, const char *id)
{
    char path[HEARTH_ID_MAX + 32], client[64];
    reg_app_t *app = kind == HEARTH_PAGE_APP ? registry_app (m->reg, id) : NULL;
    reg_driver_t *d =
        kind == HEARTH_PAGE_DRIVER ? registry_driver (m->reg, id) : NULL;
    if (!app && !d) {
        s_result (rep, kind, id, 404,
                  "This master knows no %s %s (an ended one is forgotten "
                  "after --retained-apps others).  Nothing was done.",
                  s_kinds[kind].noun, id);
        return;
    }
    hearth_page_kill_path (kind, id, path, sizeof path);
    if (!hearth_web_form_check (req, path, rep))
        return;
    hearth_web_client (req, client, sizeof client);
    if (app)
        s_kill_app (m, rep, app, client);
    else
        s_kill_driver (m, rep, d, client);
}

/* A 405 that says which method the path takes. */
static void
s_bad_method (const hearth_web_request_t *req, hearth_web_reply_t *rep,
              bool kill)
{
    hearth_web_reply_header (rep, "Allow", kill ? "POST" : "GET, HEAD");
    hearth_web_reply_text (rep, 405, "405 method not allowed: %.32s; %s\n",
                           hearth_web_method (req),
                           kill ? "a kill is a POST, which the form of its "
                                  "confirmation page (GET .../confirm-kill) "
                                  "sends"
                                : "this page is read with GET");
}

void
master_web_kill (master_t *m, const hearth_web_request_t *req,
                 hearth_web_reply_t *rep, hearth_page_kind_t kind,
                 const char *rest)
{
    char id[HEARTH_ID_MAX + 1];
    const char *slash = strchr (rest, '/');
    size_t n = slash ? (size_t) (slash - rest) : strlen (rest);
    const char *verb = slash ? slash + 1 : "";
    bool confirm = strcmp (verb, "confirm-kill") == 0;
    bool kill = strcmp (verb, "kill") == 0;
    if (!confirm && !kill) {
        hearth_web_reply_text (rep, 404, "404 not found\n");
        return;
    }
    if (kill != (strcmp (hearth_web_method (req), "POST") == 0)) {
        s_bad_method (req, rep, kill);
        return;
    }
    if (!master_web_kill_on (m)) {
        bool standby = m->role == MASTER_STANDBY;
        hearth_web_reply_text (rep, standby ? 503 : 403, "%s: %s\n",
                               standby ? "503 a standby master kills nothing"
                                       : "403 forbidden",
                               standby ? "kill on the leader's pages"
                                       : "this master's pages are read-only "
                                         "(--web-read-only): kill with "
                                         "hearth-admin kill ID");
        return;
    }
    snprintf (id, sizeof id, "%.*s", (int) (n < sizeof id ? n : 0), rest);
    if (n == 0 || n >= sizeof id || !hearth_id_valid (s_kinds[kind].ids, id)) {
        hearth_web_reply_text (
            rep, 400, "400 bad request: '%.*s' is not %s id (%s)\n",
            (int) (n < 64 ? n : 64), rest,
            kind == HEARTH_PAGE_APP ? "an application" : "a driver",
            s_kinds[kind].id_syntax);
        return;
    }
    if (confirm)
        s_confirm (m, req, rep, kind, id);
    else
        s_kill (m, req, rep, kind, id);
}

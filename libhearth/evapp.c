/*  evapp.c - the event log's lines about the application as a whole: its
    first lines (log_start with the settings, app_start) and its last
    (app_end, with the totals the other events counted); see eventlog.h.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/fstree.h"
#include "libcore/log.h"
#include "libhearth/eventlog.h"
#include "libhearth/internal.h"

/* ---- the application's log ---------------------------------------------- */

const char *
eventlog_dir (const hearth_conf_t *conf)
{
    const char *dir = hearth_conf_str (conf, "event-log");
    if (!dir || !*dir)
        dir = getenv ("HEARTH_EVENT_LOG_DIR");
    return dir && *dir ? dir : NULL;
}

int
eventlog_check_dir (const hearth_conf_t *conf, hearth_error_t *err)
{
    const char *dir = eventlog_dir (conf);
    if (!dir)
        return 0;
    hearth_error_t merr;
    if (hearth_mkdir_p (dir, 0755, &merr) < 0)
        return hearth_errprintf (err, "event-log %s: %s", dir, merr.text);
    if (access (dir, W_OK | X_OK) < 0)
        return hearth_errprintf (err, "event-log %s: cannot write there: %s",
                                 dir, strerror (errno));
    return 0;
}

/* Every setting that has a value, as its text (lists as arrays). */
static cJSON *
s_settings (const hearth_conf_t *conf)
{
    cJSON *o = cJSON_CreateObject ();
    for (const hearth_opt_t *opt = driver_options (); o && opt->name; opt++) {
        if (opt->type == HEARTH_OPT_ALIAS
            || !hearth_conf_isset (conf, opt->name))
            continue;
        if (opt->type == HEARTH_OPT_LIST) {
            const char *const *items;
            size_t n = hearth_conf_list (conf, opt->name, &items);
            cJSON *a = cJSON_AddArrayToObject (o, opt->name);
            for (size_t i = 0; a && i < n; i++)
                cJSON_AddItemToArray (a, cJSON_CreateString (items[i]));
        }
        else if (hearth_conf_str (conf, opt->name))
            cJSON_AddStringToObject (o, opt->name,
                                     hearth_conf_str (conf, opt->name));
    }
    return o;
}

int
eventlog_open_app (const hearth_conf_t *conf, const char *app_id,
                   int64_t driver_epoch, eventlog_t **el_p, hearth_error_t *err)
{
    const char *dir = eventlog_dir (conf);
    *el_p = NULL;
    if (!dir)
        return 0;
    /* a resumed application's earlier drivers wrote APP_ID.events (and
       its rolls): each later driver has a file of its own */
    char name[200];
    if (driver_epoch > 1)
        snprintf (name, sizeof name, "%s.driver%lld", app_id,
                  (long long) driver_epoch);
    else
        snprintf (name, sizeof name, "%s", app_id);
    eventlog_t *el = eventlog_new (
        dir, name, hearth_conf_bytes (conf, "event-log-roll"), err);
    if (!el)
        return -1;
    char user[256], host[256] = "";
    driver_user_name (user, sizeof user);
    gethostname (host, sizeof host - 1);
    cJSON *settings = s_settings (conf);
    eventlog_begin (el, "log_start");
    eventlog_int (el, "format", EVENTLOG_FORMAT);
    eventlog_str (el, "app_id", app_id);
    eventlog_str (el, "name", driver_app_name (conf));
    eventlog_str (el, "user", user);
    eventlog_json (el, "settings", settings);
    eventlog_end (el);
    cJSON_Delete (settings);
    eventlog_begin (el, "app_start");
    eventlog_str (el, "app_id", app_id);
    eventlog_str (el, "master", hearth_conf_str (conf, "master"));
    eventlog_int (el, "pid", (int64_t) getpid ());
    eventlog_str (el, "host", host);
    eventlog_end (el);
    eventlog_totals (el)->start_ms = eventlog_time_ms (el);
    log_info ("event log: %s", eventlog_path (el));
    *el_p = el;
    return 0;
}

void
eventlog_app_end (eventlog_t *self, const char *state, const char *reason)
{
    if (!self)
        return;
    const eventlog_totals_t *t = eventlog_totals (self);
    eventlog_begin (self, "app_end");
    eventlog_str (self, "state", state);
    eventlog_str (self, "reason", reason);
    eventlog_int (self, "duration_ms", eventlog_time_ms (self) - t->start_ms);
    eventlog_int (self, "tasks_succeeded", (int64_t) t->tasks_succeeded);
    eventlog_int (self, "tasks_failed", (int64_t) t->tasks_failed);
    eventlog_int (self, "executors", (int64_t) t->executors);
    eventlog_int (self, "core_ms_reserved", t->core_ms_reserved);
    eventlog_int (self, "core_ms_used", t->core_us_used / 1000);
    eventlog_end (self);
}

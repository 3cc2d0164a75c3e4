/*  tailev.c - hearth-tail's line for one event; see tailev.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/proto.h"
#include "libcore/stateview.h"
#include "tail/tailev.h"

/* ": TEXT" when o has member name, else "" (two strings for "%s%s"). */
#define S_WHY(o, name)                                                         \
    hearth_json_str (o, name) ? ": " : "",                                     \
        hearth_json_str (o, name) ? hearth_json_str (o, name) : ""

/* ": TEXT" of member name, else ": ALT" when ALT is not "", else "". */
#define S_WHY_OR(o, name, alt)                                                 \
    hearth_json_str (o, name) || (alt)[0] ? ": " : "",                         \
        hearth_json_str (o, name) ? hearth_json_str (o, name) : (alt)

int
tail_event_learn (hearth_wnames_t *names, const cJSON *e)
{
    static const char *const holders[] = {"worker", "executor", "driver"};
    static const char *const fields[] = {"id", "worker_id", "worker_id"};
    int rc = 0;
    for (size_t i = 0; i < sizeof holders / sizeof holders[0]; i++) {
        const char *id = hearth_json_str (
            cJSON_GetObjectItemCaseSensitive (e, holders[i]), fields[i]);
        if (id && hearth_wnames_add (names, id) < 0)
            rc = -1;
    }
    return rc;
}

void
tail_event_describe (const char *topic, const cJSON *e, hearth_wnames_t *names,
                     char *buf, size_t size)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive (e, "worker");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive (e, "app");
    const cJSON *x = cJSON_GetObjectItemCaseSensitive (e, "executor");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive (e, "driver");
    const char *what = hearth_view_text (e, "event");
    bool heartbeat = strcmp (topic, "heartbeat") == 0;
    char waiting[1200]; /* an app's or driver's, "REASON (CODE)" */
    hearth_view_waiting_text (
        cJSON_GetObjectItemCaseSensitive (a ? a : d, "waiting"), waiting,
        sizeof waiting);
    if (heartbeat && w)
        snprintf (
            buf, size,
            "worker %s %s cores %.0f/%.0f used, memory %.0f/%.0f MiB, "
            "heartbeat age %.0f ms",
            hearth_view_worker_name (names, hearth_json_str (w, "id")),
            hearth_view_text (w, "host"), hearth_view_num (w, "cores_used"),
            hearth_view_num (w, "cores"), hearth_view_num (w, "memory_used_mb"),
            hearth_view_num (w, "memory_mb"),
            hearth_view_num (w, "heartbeat_age_ms"));
    else if (heartbeat)
        snprintf (buf, size, "driver of %s", hearth_view_text (e, "app_id"));
    else if (w)
        snprintf (buf, size, "%s %s %s %s cores %.0f/%.0f%s%s", what,
                  hearth_view_worker_name (names, hearth_json_str (w, "id")),
                  hearth_view_text (w, "host"), hearth_view_worker_state (w),
                  hearth_view_num (w, "cores_used"),
                  hearth_view_num (w, "cores"), S_WHY (e, "reason"));
    else if (a)
        snprintf (buf, size, "%s %s (%s) %s cores %.0f%s%s", what,
                  hearth_view_text (a, "id"), hearth_view_text (a, "name"),
                  hearth_view_text (a, "state"),
                  hearth_view_num (a, "cores_granted"),
                  S_WHY_OR (a, "reason", waiting));
    else if (x)
        snprintf (
            buf, size, "%s %s/%.0f on %s: %s, %.0f cores%s%s", what,
            hearth_view_text (x, "app_id"), hearth_view_num (x, "exec_id"),
            hearth_view_worker_name (names, hearth_json_str (x, "worker_id")),
            hearth_view_text (x, "state"), hearth_view_num (x, "cores"),
            hearth_json_str (e, "message") ? ", " : "",
            hearth_json_str (e, "message") ? hearth_view_text (e, "message")
                                           : "");
    else if (d)
        snprintf (
            buf, size, "%s %s %s on %s, launch %.0f%s%s", what,
            hearth_view_text (d, "id"), hearth_view_text (d, "state"),
            hearth_view_worker_name (names, hearth_json_str (d, "worker_id")),
            hearth_view_num (d, "launches"), S_WHY_OR (d, "error", waiting));
    else if (strcmp (topic, "master") == 0)
        snprintf (buf, size, "%s %s %s%s%s", what, hearth_view_text (e, "url"),
                  hearth_view_text (e, "status"), S_WHY (e, "reason"));
    else
        snprintf (buf, size, "%s %s", what, hearth_view_text (e, "url"));
}

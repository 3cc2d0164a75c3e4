/*  submit_admin.c - hearth-submit's admin commands: --status, --kill and
    --logs of a cluster-mode driver, and --kill of an application.  Each
    is one request to the master (a few for --logs, which reads the output
    in chunks, and for --kill of a driver, which waits for its end).
    hearth-admin's kill uses the two kills too (admin.c); they read only
    the link's settings (master, timeout, keys) from the conf.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/clock.h"
#include "libcore/ctlchars.h"
#include "libcore/ids.h"
#include "libcore/proto.h"
#include "submit/submit_admin.h"
#include "submit/submit_request.h"

/* Bytes of output asked for per DRIVER_LOG. */
static const int64_t s_log_chunk = 1024 * 1024;
/* How long --kill waits for the driver to be KILLED, asking how it is
   every s_kill_poll_ms. */
static const int64_t s_kill_wait_ms = 60000;
static const int s_kill_poll_ms = 100;

static int
s_check_id (const char *driver_id)
{
    if (hearth_id_valid (HEARTH_ID_DRIVER, driver_id))
        return 0;
    return submit_fail (
        2,
        "'%s' is not a driver id (driver-YYYYMMDDHHMMSS-NNNN, as "
        "printed by --deploy-mode cluster)",
        driver_id);
}

/* The link to the master for a command about driver_id, once it is known
   to be a driver id; NULL after a message, with *rc the exit status. */
static submit_link_t *
s_driver_link (hearth_conf_t *conf, const char *driver_id, int *rc)
{
    *rc = s_check_id (driver_id);
    return *rc == 0 ? submit_link_new (conf, rc) : NULL;
}

/* One "key: value" line of --status; the values are the master's text,
   their control characters escaped. */
static void
s_line (const char *key, const char *value)
{
    if (value)
        hearth_ctl_fprintf (stdout, "%-12s %s\n", key, value);
}

int
submit_status (hearth_conf_t *conf, const char *driver_id)
{
    hearth_error_t err;
    int rc;
    submit_link_t *link = s_driver_link (conf, driver_id, &rc);
    if (!link)
        return rc;
    hearth_msg_t *r = submit_link_status (link, driver_id, &err);
    if (!r)
        rc = submit_fail (1, "%s", err.text);
    else if (!hearth_json_bool (r->body, "found", false))
        rc = submit_fail (1, "driver %s: %s", driver_id,
                          hearth_json_str (r->body, "message"));
    else {
        const cJSON *b = r->body;
        char text[600];
        s_line ("driver:", driver_id);
        s_line ("state:", hearth_json_str (b, "state"));
        if (hearth_json_str (b, "worker_id")) {
            snprintf (text, sizeof text, "%s (%s)",
                      hearth_json_str (b, "worker_id"),
                      hearth_json_str (b, "worker_host")
                          ? hearth_json_str (b, "worker_host")
                          : "?");
            s_line ("worker:", text);
        }
        const char *app_state = hearth_json_str (b, "app_state");
        const char *app_reason = hearth_json_str (b, "app_reason");
        if (app_state) { /* APP (STATE: REASON) */
            snprintf (text, sizeof text, "%s (%s%s%s)",
                      hearth_json_str (b, "app_id"), app_state,
                      app_reason ? ": " : "", app_reason ? app_reason : "");
            s_line ("application:", text);
        }
        else
            s_line ("application:", hearth_json_str (b, "app_id"));
        snprintf (text, sizeof text, "%lld%s",
                  (long long) hearth_json_int (b, "launches", 0),
                  hearth_json_bool (b, "supervise", false) ? " (supervised)"
                                                           : "");
        s_line ("launches:", text);
        if (hearth_json_int (b, "exit_status", -1) >= 0) {
            snprintf (text, sizeof text, "%lld",
                      (long long) hearth_json_int (b, "exit_status", 0));
            s_line ("exit status:", text);
        }
        s_line ("error:", hearth_json_str (b, "error"));
        if (hearth_json_str (b, "work_dir")) {
            snprintf (text, sizeof text, "%s/stdout and stderr",
                      hearth_json_str (b, "work_dir"));
            s_line ("output:", text);
        }
        s_line ("note:", hearth_json_str (b, "message"));
    }
    hearth_msg_destroy (&r);
    submit_link_destroy (&link);
    return rc;
}

/* Send cmd {field: id} and wait for expect.  Returns 0 when its answer
   says ok, else 1, having said why ("what ID: message"). */
static int
s_ask (submit_link_t *link, hearth_cmd_t cmd, hearth_cmd_t expect,
       const char *field, const char *id, const char *what)
{
    hearth_error_t err;
    hearth_msg_t *req = hearth_msg_new (cmd), *r;
    if (!req)
        return submit_fail (1, "out of memory");
    cJSON_AddStringToObject (req->body, field, id);
    /* req is consumed (and nulled) by the request, whatever its end: the
       error is err's, "no answer from the master" when it was silent. */
    r = submit_link_request (link, &req, expect, &err);
    int rc = 0;
    if (!r)
        rc = submit_fail (1, "%s", err.text);
    else if (!hearth_json_bool (r->body, "ok", false)) {
        const char *why = hearth_json_str (r->body, "message");
        rc = submit_fail (1, "%s %s: %s", what, id, why ? why : "refused");
    }
    hearth_msg_destroy (&r);
    return rc;
}

int
submit_kill (hearth_conf_t *conf, const char *driver_id)
{
    hearth_error_t err;
    int rc;
    submit_link_t *link = s_driver_link (conf, driver_id, &rc);
    if (!link)
        return rc;
    rc = s_ask (link, HEARTH_CMD_KILL_DRIVER, HEARTH_CMD_KILL_DRIVER_RESPONSE,
                "driver_id", driver_id, "driver");
    /* Wait for the end, so that nothing of it runs when we return. */
    int64_t deadline = hearth_mono_ms () + s_kill_wait_ms;
    bool ended = false;
    while (rc == 0 && !ended) {
        hearth_msg_t *r = submit_link_status (link, driver_id, &err);
        const char *state = r ? hearth_json_str (r->body, "state") : NULL;
        if ((ended = state && submit_driver_ended (state))) {
            printf ("driver %s %s\n", driver_id, state);
            rc = strcmp (state, "KILLED") == 0 ? 0 : 1;
        }
        else if (hearth_mono_ms () > deadline)
            rc = submit_fail (1, "driver %s is still %s after %lld ms",
                              driver_id, state ? state : "unknown",
                              (long long) s_kill_wait_ms);
        else
            zclock_sleep (s_kill_poll_ms);
        hearth_msg_destroy (&r);
    }
    submit_link_destroy (&link);
    return rc;
}

int
submit_kill_app (hearth_conf_t *conf, const char *app_id)
{
    int rc;
    submit_link_t *link = submit_link_new (conf, &rc);
    if (!link)
        return rc;
    rc = s_ask (link, HEARTH_CMD_KILL_APPLICATION,
                HEARTH_CMD_KILL_APPLICATION_RESPONSE, "app_id", app_id,
                "application");
    if (rc == 0)
        printf ("application %s KILLED\n", app_id);
    submit_link_destroy (&link);
    return rc;
}

int
submit_logs (hearth_conf_t *conf, const char *driver_id)
{
    hearth_error_t err;
    int rc;
    submit_link_t *link = s_driver_link (conf, driver_id, &rc);
    if (!link)
        return rc;
    const char *stream = hearth_conf_str (conf, "log-stream");
    if (strcmp (stream, "stdout") != 0 && strcmp (stream, "stderr") != 0) {
        submit_link_destroy (&link);
        return submit_fail (2, "--log-stream: stdout or stderr, not %s",
                            stream);
    }
    int64_t offset = 0;
    for (int64_t request_id = 1; rc == 0; request_id++) {
        hearth_msg_t *req = hearth_msg_new (HEARTH_CMD_DRIVER_LOG), *r = NULL;
        if (!req) {
            rc = submit_fail (1, "out of memory");
            break;
        }
        cJSON_AddStringToObject (req->body, "driver_id", driver_id);
        cJSON_AddStringToObject (req->body, "stream", stream);
        cJSON_AddNumberToObject (req->body, "offset", (double) offset);
        cJSON_AddNumberToObject (req->body, "max_bytes", (double) s_log_chunk);
        cJSON_AddNumberToObject (req->body, "request_id", (double) request_id);
        r = submit_link_request (link, &req, HEARTH_CMD_DRIVER_LOG_RESPONSE,
                                 &err);
        zframe_t *data =
            r ? hearth_msg_frame (r, hearth_json_int (r->body, "data", -1))
              : NULL;
        if (!r)
            rc = submit_fail (1, "%s", err.text);
        else if (!hearth_json_bool (r->body, "ok", false))
            rc = submit_fail (1, "driver %s: %s", driver_id,
                              hearth_json_str (r->body, "message"));
        else if (!data || zframe_size (data) == 0) {
            hearth_msg_destroy (&r);
            break;
        }
        else if (fwrite (zframe_data (data), 1, zframe_size (data), stdout)
                 != zframe_size (data))
            rc = submit_fail (1, "cannot write the output: %s",
                              strerror (errno));
        else
            offset += (int64_t) zframe_size (data);
        hearth_msg_destroy (&r);
    }
    fflush (stdout);
    submit_link_destroy (&link);
    return rc;
}

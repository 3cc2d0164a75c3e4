/*  drvsubmit.c - what hearth-submit asks the master about cluster-mode
    drivers: SUBMIT_DRIVER (checked, then recorded SUBMITTED for the
    allocator to place), DRIVER_STATUS and KILL_DRIVER; see drvsubmit.h. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "libcore/log.h"
#include "master/authz.h"
#include "master/drivers.h"
#include "master/drvsubmit.h"
#include "master/regdrivers.h"
#include "master/send.h"

/* Defaults of a driver that does not say what it needs. */
static const int s_default_driver_cores = 1;
static const int64_t s_default_driver_memory_mb = 1024;

static void
s_response (master_t *m, zframe_t *rid, hearth_cmd_t cmd, bool ok,
            const char *driver_id, const char *text)
{
    hearth_msg_t *reply = hearth_msg_new (cmd);
    if (!reply)
        return;
    cJSON_AddBoolToObject (reply->body, "ok", ok);
    if (driver_id)
        cJSON_AddStringToObject (reply->body, "driver_id", driver_id);
    if (text)
        cJSON_AddStringToObject (reply->body, "message", text);
    master_send (m, rid, reply);
}

/* The files' names are unique and app is one of them; their frames add
   up to at most the limit.  Returns 0, or -1 with text filled. */
static int
s_check_submission (master_t *m, hearth_msg_t *msg, char *text, size_t size)
{
    const cJSON *files = cJSON_GetObjectItem (msg->body, "files");
    const char *app = hearth_json_str (msg->body, "app");
    bool found = false;
    const cJSON *f, *g;
    cJSON_ArrayForEach (f, files)
    {
        const char *name = hearth_json_str (f, "name");
        found |= strcmp (name, app) == 0;
        if (strcmp (name, "stdout") == 0 || strcmp (name, "stderr") == 0) {
            snprintf (text, size,
                      "the file name '%s' is reserved for the driver's "
                      "output: rename the file",
                      name);
            return -1;
        }
        for (g = f->next; g; g = g->next)
            if (strcmp (name, hearth_json_str (g, "name")) == 0) {
                snprintf (text, size, "the file name '%s' is given twice",
                          name);
                return -1;
            }
    }
    if (!found) {
        snprintf (text, size, "the application '%s' is not one of the files",
                  app);
        return -1;
    }
    uint64_t bytes = 0;
    for (size_t i = 0; i < msg->nframes; i++)
        bytes += zframe_size (msg->frames[i]);
    if (bytes > (uint64_t) m->max_submit_bytes) {
        snprintf (text, size,
                  "the application's files are %" PRIu64
                  " bytes, more than this master accepts (%lld bytes, its "
                  "--max-submit-size)",
                  bytes, (long long) m->max_submit_bytes);
        return -1;
    }
    return 0;
}

void
master_submit_driver (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const cJSON *b = msg->body;
    char text[512];
    if (s_check_submission (m, msg, text, sizeof text) < 0) {
        log_warn ("SUBMIT_DRIVER refused: %s", text);
        s_response (m, rid, HEARTH_CMD_SUBMIT_DRIVER_RESPONSE, false, NULL,
                    text);
        return;
    }
    cJSON *spec = cJSON_CreateObject ();
    if (spec) {
        master_json_copy (spec, b, "args");
        master_json_copy (spec, b, "files");
        master_json_copy (spec, b, "env");
        master_json_copy (spec, b, "conf");
    }
    registry_driver_desc_t desc = {
        .name = hearth_json_str (b, "name"),
        .app = hearth_json_str (b, "app"),
        .binary = strcmp (hearth_json_str (b, "kind"), "binary") == 0,
        .spec = spec,
        .frames = msg->frames,
        .nframes = msg->nframes,
        .cores = (int) hearth_json_int (b, "cores", s_default_driver_cores),
        .memory_mb =
            hearth_json_int (b, "memory_mb", s_default_driver_memory_mb),
        .supervise = hearth_json_bool (b, "supervise", false),
        .owner = from->key};
    reg_driver_t *d = spec ? registry_driver_submit (m->reg, &desc) : NULL;
    cJSON_Delete (spec);
    if (!d) {
        s_response (m, rid, HEARTH_CMD_SUBMIT_DRIVER_RESPONSE, false, NULL,
                    "master out of memory");
        return;
    }
    log_info ("driver %s submitted: %s %s, %d cores, %lld MiB%s, %zu bytes",
              d->id, d->binary ? "program" : "job file", d->app, d->cores,
              (long long) d->memory_mb, d->supervise ? ", supervised" : "",
              d->bytes);
    s_response (m, rid, HEARTH_CMD_SUBMIT_DRIVER_RESPONSE, true, d->id,
                "submitted");
}

void
master_driver_status (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "driver_id");
    reg_driver_t *d = registry_driver (m->reg, id);
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_DRIVER_STATUS_RESPONSE);
    if (!reply)
        return;
    cJSON *b = reply->body;
    cJSON_AddBoolToObject (b, "found", d != NULL);
    cJSON_AddStringToObject (b, "driver_id", id);
    if (!d) {
        cJSON_AddStringToObject (b, "message",
                                 "no such driver (never submitted here, or "
                                 "forgotten)");
        master_send (m, rid, reply);
        return;
    }
    cJSON_AddStringToObject (b, "state", hearth_driver_states[d->state]);
    if (d->worker_id[0])
        cJSON_AddStringToObject (b, "worker_id", d->worker_id);
    if (d->worker_host)
        cJSON_AddStringToObject (b, "worker_host", d->worker_host);
    if (d->worker_dir)
        cJSON_AddStringToObject (b, "work_dir", d->worker_dir);
    if (d->app_id[0])
        cJSON_AddStringToObject (b, "app_id", d->app_id);
    reg_app_t *app = d->app_id[0] ? registry_app (m->reg, d->app_id) : NULL;
    if (app)
        cJSON_AddStringToObject (b, "app_state", hearth_app_states[app->state]);
    if (app && app->state > APP_RUNNING && app->end_reason)
        cJSON_AddStringToObject (b, "app_reason", app->end_reason);
    if (app && app->progress) /* for hearth-submit's progress line */
        cJSON_AddItemToObject (b, "progress",
                               cJSON_Duplicate (app->progress, 1));
    if (d->error)
        cJSON_AddStringToObject (b, "error", d->error);
    if (d->exit_status >= 0)
        cJSON_AddNumberToObject (b, "exit_status", d->exit_status);
    cJSON_AddNumberToObject (b, "launches", d->launches);
    cJSON_AddBoolToObject (b, "supervise", d->supervise);
    if (!d->worker && !registry_driver_final (d->state)) {
        char text[900];
        int n = snprintf (text, sizeof text,
                          "waiting for a worker with %d free cores and %lld "
                          "MiB of free memory",
                          d->cores, (long long) d->memory_mb);
        if (d->waiting && n > 0 && (size_t) n < sizeof text) /* waiting.h */
            snprintf (text + n, sizeof text - (size_t) n, ": %s (%s)",
                      d->waiting, d->waiting_code ? d->waiting_code : "?");
        cJSON_AddStringToObject (b, "message", text);
    }
    master_send (m, rid, reply);
}

void
master_kill_driver (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const char *id = hearth_json_str (msg->body, "driver_id");
    reg_driver_t *d = registry_driver (m->reg, id);
    char text[300];
    if (!d || registry_driver_final (d->state)) {
        snprintf (text, sizeof text, "%s%s",
                  d ? "the driver has already ended: " : "no such driver",
                  d ? hearth_driver_states[d->state] : "");
        s_response (m, rid, HEARTH_CMD_KILL_DRIVER_RESPONSE, false, id, text);
        return;
    }
    char what[HEARTH_ID_MAX + 16];
    snprintf (what, sizeof what, "driver %s", d->id);
    master_subject_t s = {.what = what, .owner = d->owner};
    if (!master_authorize_on (m, from, HEARTH_CMD_KILL_DRIVER, &s))
        return;
    master_driver_kill (m, d, text, sizeof text);
    s_response (m, rid, HEARTH_CMD_KILL_DRIVER_RESPONSE, true, id, text);
}

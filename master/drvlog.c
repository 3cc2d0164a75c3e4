/*  drvlog.c - DRIVER_LOG, relayed: hearth-submit asks the master for a
    cluster-mode driver's output; the master asks the worker that holds it
    (under its own request id), and relays the worker's answer to the
    client, or refuses when the worker cannot be asked or does not answer
    in time; see drvlog.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "master/authz.h"
#include "master/drivers.h"
#include "master/drvlog.h"
#include "master/regdrivers.h"
#include "master/send.h"

/* How long the master waits for a worker's DRIVER_LOG_RESPONSE. */
static const int64_t s_log_timeout_ms = 10000;
/* DRIVER_LOG requests relayed at once, at most. */
static const size_t s_max_log_requests = 1000;

/* A DRIVER_LOG relayed to a worker, waiting for its answer. */
typedef struct {
    zframe_t *client;                  /* who asked (owned routing id) */
    int64_t client_request_id;         /* its request_id, or -1 */
    char driver_id[HEARTH_ID_MAX + 1]; /* whose log */
    int64_t deadline_ms;               /* monotonic: answer by then */
} s_request_t;

struct drvlog {
    zhashx_t *requests; /* our request id -> s_request_t * (owned) */
    uint64_t next_id;   /* our next request id */
};

static void
s_request_destroy (void **item)
{
    s_request_t *r = *item;
    if (r)
        zframe_destroy (&r->client);
    free (r);
    *item = NULL;
}

drvlog_t *
drvlog_new (void)
{
    drvlog_t *self = calloc (1, sizeof *self);
    if (!self || !(self->requests = zhashx_new ())) {
        free (self);
        return NULL;
    }
    zhashx_set_destructor (self->requests, s_request_destroy);
    return self;
}

void
drvlog_destroy (drvlog_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    drvlog_t *self = *self_p;
    zhashx_destroy (&self->requests);
    free (self);
    *self_p = NULL;
    errno = saved;
}

static void
s_log_refuse (master_t *m, zframe_t *rid, const cJSON *request,
              const char *driver_id, const char *text)
{
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_DRIVER_LOG_RESPONSE);
    if (!reply)
        return;
    cJSON_AddBoolToObject (reply->body, "ok", false);
    if (driver_id)
        cJSON_AddStringToObject (reply->body, "driver_id", driver_id);
    int64_t request_id = hearth_json_int (request, "request_id", -1);
    if (request_id >= 0)
        cJSON_AddNumberToObject (reply->body, "request_id",
                                 (double) request_id);
    cJSON_AddStringToObject (reply->body, "message", text);
    master_send (m, rid, reply);
}

/* Can d's log be asked of w?  Returns 0, or -1 with text filled. */
static int
s_log_check (master_t *m, const reg_driver_t *d, const reg_worker_t *w,
             char *text, size_t size)
{
    if (!d)
        snprintf (text, size, "no such driver");
    else if (!d->worker_id[0])
        snprintf (text, size,
                  "the driver has not been launched yet: no output");
    else if (!w || w->state != WORKER_ALIVE)
        snprintf (text, size,
                  "the driver's worker %s is %s: its output stays in %s on "
                  "%s",
                  d->worker_id, w ? hearth_worker_states[w->state] : "gone",
                  d->worker_dir ? d->worker_dir : "its work directory",
                  d->worker_host ? d->worker_host : "that host");
    else if (zhashx_size (m->logs->requests) >= s_max_log_requests)
        snprintf (text, size, "too many log requests in flight: try again");
    else
        return 0;
    return -1;
}

void
master_driver_log (void *arg, const hearth_from_t *from, hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const cJSON *b = msg->body;
    const char *id = hearth_json_str (b, "driver_id");
    reg_driver_t *d = registry_driver (m->reg, id);
    reg_worker_t *w = !d                ? NULL
                      : d->worker       ? d->worker
                      : d->worker_id[0] ? registry_worker (m->reg, d->worker_id)
                                        : NULL;
    char text[600], what[HEARTH_ID_MAX + 16];
    if (d) { /* its owner's or an operator's to read, before any answer */
        snprintf (what, sizeof what, "driver %s", d->id);
        master_subject_t s = {
            .what = what, .owner = d->owner, .may = "read its output"};
        if (!master_authorize_on (m, from, HEARTH_CMD_DRIVER_LOG, &s))
            return;
    }
    if (s_log_check (m, d, w, text, sizeof text) < 0) {
        s_log_refuse (m, rid, b, id, text);
        return;
    }
    s_request_t *r = calloc (1, sizeof *r);
    hearth_msg_t *ask = hearth_msg_new (HEARTH_CMD_DRIVER_LOG);
    if (!r || !ask || !(r->client = zframe_dup (rid))) {
        free (r);
        hearth_msg_destroy (&ask);
        s_log_refuse (m, rid, b, id, "master out of memory");
        return;
    }
    r->client_request_id = hearth_json_int (b, "request_id", -1);
    snprintf (r->driver_id, sizeof r->driver_id, "%s", id);
    r->deadline_ms = hearth_mono_ms () + s_log_timeout_ms;
    char key[32];
    uint64_t request_id = m->logs->next_id++;
    snprintf (key, sizeof key, "%" PRIu64, request_id);
    zhashx_update (m->logs->requests, key, r);
    master_json_copy (ask->body, b, "driver_id");
    master_json_copy (ask->body, b, "stream");
    master_json_copy (ask->body, b, "offset");
    master_json_copy (ask->body, b, "max_bytes");
    cJSON_AddNumberToObject (ask->body, "request_id", (double) request_id);
    master_send (m, w->routing_id, ask);
}

void
master_driver_log_response (void *arg, const hearth_from_t *from,
                            hearth_msg_t *msg)
{
    master_t *m = arg;
    zframe_t *rid = from->rid;
    const cJSON *b = msg->body;
    if (!master_sender_worker (m, rid))
        return;
    char key[32];
    snprintf (key, sizeof key, "%lld",
              (long long) hearth_json_int (b, "request_id", -1));
    s_request_t *r = zhashx_lookup (m->logs->requests, key);
    if (!r) {
        log_debug ("late DRIVER_LOG_RESPONSE %s ignored", key);
        return;
    }
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_DRIVER_LOG_RESPONSE);
    if (reply) {
        cJSON *o = reply->body;
        static const char *const copied[] = {
            "ok", "driver_id", "stream", "offset", "size", "eof", "message"};
        for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++)
            master_json_copy (o, b, copied[i]);
        if (r->client_request_id >= 0)
            cJSON_AddNumberToObject (o, "request_id",
                                     (double) r->client_request_id);
        zframe_t *data =
            hearth_msg_frame (msg, hearth_json_int (b, "data", -1));
        zframe_t *copy = data ? zframe_dup (data) : NULL;
        int index = copy ? hearth_msg_add_frame (reply, &copy) : -1;
        if (index >= 0)
            cJSON_AddNumberToObject (o, "data", index);
        master_send (m, r->client, reply);
    }
    zhashx_delete (m->logs->requests, key);
}

void
master_driver_logs_tick (master_t *m, int64_t now)
{
    zlistx_t *expired = zlistx_new ();
    if (!expired)
        return;
    for (s_request_t *r = zhashx_first (m->logs->requests); r;
         r = zhashx_next (m->logs->requests))
        if (now >= r->deadline_ms)
            zlistx_add_end (expired,
                            (void *) zhashx_cursor (m->logs->requests));
    for (const char *key = zlistx_first (expired); key;
         key = zlistx_next (expired)) {
        s_request_t *r = zhashx_lookup (m->logs->requests, key);
        cJSON *request = cJSON_CreateObject ();
        if (r->client_request_id >= 0)
            cJSON_AddNumberToObject (request, "request_id",
                                     (double) r->client_request_id);
        s_log_refuse (m, r->client, request, r->driver_id,
                      "the driver's worker did not answer in time");
        cJSON_Delete (request);
        zhashx_delete (m->logs->requests, key);
    }
    zlistx_destroy (&expired);
}

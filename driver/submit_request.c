/*  submit_request.c - hearth-submit's requests to the master; see
    submit_request.h.

    Requests are the ZeroMQ guide's Lazy Pirate: a DEALER, a timeout per
    request, and a fresh socket after a timeout, so that a late answer is
    never taken for the next one's.
*/
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "driver/submit_request.h"
#include "libcore/clock.h"
#include "libcore/curve.h"
#include "libcore/sock.h"

struct submit_link {
    const char *url;      /* tcp://HOST:PORT, borrowed from the conf */
    zsock_t *sock;        /* DEALER, or NULL until needed */
    int64_t timeout_ms;   /* per request */
    hearth_curve_t curve; /* keys, when the cluster has them */
};

int
submit_fail (int code, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    fprintf (stderr, "%s: ", program_invocation_short_name);
    vfprintf (stderr, fmt, ap);
    fprintf (stderr, "\n");
    va_end (ap);
    return code;
}

submit_link_t *
submit_link_new (hearth_conf_t *conf, int *rc)
{
    hearth_error_t err;
    const char *url = hearth_conf_str (conf, "master");
    char host[256];
    int port;
    if (!url) {
        *rc = submit_fail (2, "no master: give --master tcp://HOST:PORT (or "
                              "HEARTH_MASTER, or master in the defaults "
                              "file)");
        return NULL;
    }
    if (strncmp (url, "tcp://", 6) != 0) {
        *rc = submit_fail (2,
                           "this needs --master tcp://HOST:PORT (a running "
                           "master), not %s",
                           url);
        return NULL;
    }
    if (hearth_url_split (url, host, sizeof host, &port, &err) < 0) {
        *rc = submit_fail (2, "bad --master: %s", err.text);
        return NULL;
    }
    submit_link_t *self = calloc (1, sizeof *self);
    if (!self) {
        *rc = submit_fail (1, "out of memory");
        return NULL;
    }
    self->url = url;
    self->timeout_ms = hearth_conf_ms (conf, "timeout");
    if (hearth_curve_client_setup (&self->curve, conf, url, &err) < 0) {
        submit_link_destroy (&self);
        *rc = submit_fail (2, "%s", err.text);
        return NULL;
    }
    hearth_zsys_init ();
    *rc = 0;
    return self;
}

void
submit_link_destroy (submit_link_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    submit_link_t *self = *self_p;
    hearth_sock_destroy (&self->sock);
    hearth_curve_cleanup (&self->curve);
    free (self);
    *self_p = NULL;
    errno = saved;
}

const char *
submit_link_url (const submit_link_t *self)
{
    return self->url;
}

hearth_msg_t *
submit_link_request (submit_link_t *self, hearth_msg_t **req,
                     hearth_cmd_t expect, hearth_error_t *err)
{
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&self->curve, &opts);
    if (!self->sock
        && (!(self->sock = hearth_sock_new (&opts, err))
            || hearth_sock_connect (self->sock, self->url, err) < 0)) {
        hearth_msg_destroy (req);
        hearth_sock_destroy (&self->sock);
        return NULL;
    }
    if (hearth_msg_send (req, self->sock, NULL, err) < 0)
        return NULL;
    int64_t deadline = hearth_mono_ms () + self->timeout_ms;
    zpoller_t *poller = zpoller_new (self->sock, NULL);
    hearth_msg_t *reply = NULL;
    bool refused = false, interrupted = false;
    while (poller && !reply && !refused) {
        int64_t left = deadline - hearth_mono_ms ();
        if (left <= 0 || !zpoller_wait (poller, (int) left)) {
            interrupted = left > 0 && zpoller_terminated (poller);
            break;
        }
        hearth_msg_t *msg = hearth_msg_recv (self->sock, NULL, NULL);
        if ((refused = msg && msg->cmd == HEARTH_CMD_ERROR))
            hearth_errprintf (err, "the master refused the request: %s: %s",
                              hearth_json_str (msg->body, "code"),
                              hearth_json_str (msg->body, "message"));
        if (msg && msg->cmd == expect)
            reply = msg;
        else
            hearth_msg_destroy (&msg); /* a late answer, a heartbeat */
    }
    zpoller_destroy (&poller);
    if (!reply && !refused) {
        /* Every other end is silence: say so, and drop the socket so that
           a late answer is never taken for the next request's. */
        if (interrupted)
            hearth_errprintf (err,
                              "interrupted while waiting for the master "
                              "at %s",
                              self->url);
        else
            hearth_errprintf (err,
                              "no answer from the master at %s within %lld ms",
                              self->url, (long long) self->timeout_ms);
        hearth_sock_destroy (&self->sock);
    }
    return reply;
}

hearth_msg_t *
submit_link_status (submit_link_t *self, const char *driver_id,
                    hearth_error_t *err)
{
    hearth_msg_t *req = hearth_msg_new (HEARTH_CMD_DRIVER_STATUS);
    if (!req) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    cJSON_AddStringToObject (req->body, "driver_id", driver_id);
    return submit_link_request (self, &req, HEARTH_CMD_DRIVER_STATUS_RESPONSE,
                                err);
}

bool
submit_driver_ended (const char *state)
{
    static const char *const finals[] = {"FINISHED", "FAILED", "KILLED",
                                         "ERROR", NULL};
    for (int i = 0; state && finals[i]; i++)
        if (strcmp (state, finals[i]) == 0)
            return true;
    return false;
}

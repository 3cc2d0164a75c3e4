/*  submit_request.c - hearth-submit's requests to the master; see
    submit_request.h.

    Requests are the ZeroMQ guide's Lazy Pirate: a DEALER, a timeout per
    request, and a fresh socket after a timeout, so that a late answer is
    never taken for the next one's.

    With a list of masters (libcore/masters.h) a request goes to the URLs
    in order: a silent one (--timeout) or a standby that names no leader
    passes it to the next, a standby's leader gets it at once, and the
    master that answers gets the next request first.  When none answers,
    the error names every URL tried and what each did.
*/
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/clock.h"
#include "libcore/connwatch.h"
#include "libcore/ctlchars.h"
#include "libcore/curve.h"
#include "libcore/masters.h"
#include "libcore/sock.h"
#include "submit/submit_request.h"

/* Room for the list of URLs tried and what each did. */
#define S_TRIED_MAX (HEARTH_MASTERS_MAX * 2 * (HEARTH_MASTER_URL_MAX + 800))

struct submit_link {
    hearth_masters_t *masters; /* the URLs, the one asked first (owned) */
    zsock_t *sock;             /* DEALER, or NULL until needed */
    hearth_connwatch_t *watch; /* why sock cannot reach its master, or
                                  NULL (then it is waited on blind) */
    int64_t timeout_ms;        /* per request */
    hearth_curve_t curve;      /* keys, when the cluster has them */
    char silent[1024];         /* what the last silent master's watch
                                  knew of why */
    char cause[64];            /* the same in a few words, for the list of
                                  masters tried */
};

int
submit_fail (int code, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    fprintf (stderr, "%s: ", program_invocation_short_name);
    hearth_ctl_vfprintf (stderr, fmt, ap); /* the master's text, escaped */
    fprintf (stderr, "\n");
    va_end (ap);
    return code;
}

submit_link_t *
submit_link_new (hearth_conf_t *conf, int *rc)
{
    hearth_error_t err;
    const char *url = hearth_conf_str (conf, "master");
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
    submit_link_t *self = calloc (1, sizeof *self);
    if (!self) {
        *rc = submit_fail (1, "out of memory");
        return NULL;
    }
    if (!(self->masters = hearth_masters_parse (url, &err))) {
        submit_link_destroy (&self);
        *rc = submit_fail (2, "bad --master: %s", err.text);
        return NULL;
    }
    self->timeout_ms = hearth_conf_ms (conf, "timeout");
    if (hearth_curve_client_setup (&self->curve, conf,
                                   hearth_masters_url (self->masters, 0), &err)
        < 0) {
        submit_link_destroy (&self);
        *rc = submit_fail (2, "%s", err.text);
        return NULL;
    }
    hearth_zsys_init ();
    *rc = 0;
    return self;
}

/* Drop the socket (its watch first). */
static void
s_drop (submit_link_t *self)
{
    hearth_connwatch_destroy (&self->watch);
    hearth_sock_destroy (&self->sock);
}

/* A fresh socket to the master followed now, watched, connected.  0 or
   -1 with err. */
static int
s_open (submit_link_t *self, hearth_error_t *err)
{
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&self->curve, &opts);
    const char *url = submit_link_url (self);
    const char *key =
        self->curve.cert ? zcert_public_txt (self->curve.cert) : NULL;
    if (!(self->sock = hearth_sock_new (&opts, err)))
        return -1;
    /* a watch that cannot be made leaves the wait blind, no worse */
    self->watch = hearth_connwatch_new (url, "the master",
                                        hearth_curve_on (&self->curve), key);
    if (self->watch) {
        hearth_connwatch_cookie (self->watch, self->curve.cookie[0] != '\0');
        if (!hearth_connwatch_attach (self->watch, self->sock, NULL))
            hearth_connwatch_destroy (&self->watch);
    }
    if (hearth_sock_connect (self->sock, url, err) < 0) {
        s_drop (self);
        return -1;
    }
    return 0;
}

/* Wait up to timeout_ms for an answer on the socket: 1 when one is
   there, 0 silent (self->silent says what the watch knew), -1 with err
   when the watch found a cause waiting cannot mend, -2 interrupted. */
static int
s_wait (submit_link_t *self, int64_t timeout_ms, hearth_error_t *err)
{
    self->silent[0] = self->cause[0] = '\0';
    if (self->watch) {
        hearth_error_t werr;
        int rc =
            hearth_connwatch_wait (self->watch, self->sock, timeout_ms, &werr);
        if (rc == -1) {
            hearth_errprintf (err, "%s", werr.text);
            snprintf (self->silent, sizeof self->silent, "%s", werr.text);
        }
        const char *last = hearth_connwatch_last (self->watch);
        const char *cause = hearth_connwatch_cause (self->watch);
        if (rc == 0 && last)
            snprintf (self->silent, sizeof self->silent, "%s", last);
        if (rc <= 0 && cause)
            snprintf (self->cause, sizeof self->cause, "%s", cause);
        return rc;
    }
    zpoller_t *poller = zpoller_new (self->sock, NULL);
    void *ready = poller ? zpoller_wait (poller, (int) timeout_ms) : NULL;
    int rc = ready ? 1 : poller && zpoller_terminated (poller) ? -2 : 0;
    zpoller_destroy (&poller);
    return rc;
}

void
submit_link_destroy (submit_link_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    submit_link_t *self = *self_p;
    s_drop (self);
    hearth_curve_cleanup (&self->curve);
    hearth_masters_destroy (&self->masters);
    free (self);
    *self_p = NULL;
    errno = saved;
}

const char *
submit_link_url (const submit_link_t *self)
{
    return hearth_masters_current (self->masters);
}

/* How one master took a request. */
typedef enum {
    S_REPLY,       /* it answered with the command expected */
    S_REFUSED,     /* it answered ERROR (err says what) */
    S_STANDBY,     /* a standby: leader names the leader, or is "" */
    S_SILENT,      /* no answer within --timeout (the socket is dropped) */
    S_INTERRUPTED, /* a signal */
    S_BROKEN,      /* no socket, or the request could not go (err) */
    S_UNREACHABLE, /* its link can never work as it is (err: why) */
} s_outcome_t;

/* A copy of msg (body and frames) for another master, or NULL. */
static hearth_msg_t *
s_copy (const hearth_msg_t *msg)
{
    hearth_msg_t *copy = hearth_msg_new (msg->cmd);
    if (!copy)
        return NULL;
    cJSON_Delete (copy->body);
    copy->body = cJSON_Duplicate (msg->body, 1);
    for (size_t i = 0; copy->body && i < msg->nframes; i++) {
        zframe_t *f = zframe_dup (msg->frames[i]);
        if (!f || hearth_msg_add_frame (copy, &f) < 0) {
            zframe_destroy (&f);
            hearth_msg_destroy (&copy);
            return NULL;
        }
    }
    if (!copy->body)
        hearth_msg_destroy (&copy);
    return copy;
}

/* Send *req (consumed) to the master followed now and wait for its
   answer: *reply on S_REPLY. */
static s_outcome_t
s_attempt (submit_link_t *self, hearth_msg_t **req, hearth_cmd_t expect,
           hearth_msg_t **reply, char *leader, size_t leader_size,
           hearth_error_t *err)
{
    if (!self->sock && s_open (self, err) < 0) {
        hearth_msg_destroy (req);
        return S_BROKEN;
    }
    if ((self->watch ? hearth_connwatch_send (self->watch, self->sock, req, err)
                     : hearth_msg_send (req, self->sock, NULL, err))
        < 0)
        return S_BROKEN;
    int64_t deadline = hearth_mono_ms () + self->timeout_ms;
    s_outcome_t outcome = S_SILENT;
    while (outcome == S_SILENT) {
        int64_t left = deadline - hearth_mono_ms ();
        int ready = left > 0 ? s_wait (self, left, err) : 0;
        if (ready != 1) {
            outcome = ready == -2   ? S_INTERRUPTED
                      : ready == -1 ? S_UNREACHABLE
                                    : S_SILENT;
            break;
        }
        hearth_msg_t *msg = hearth_msg_recv (self->sock, NULL, NULL);
        const char *code = msg && msg->cmd == HEARTH_CMD_ERROR
                               ? hearth_json_str (msg->body, "code")
                               : NULL;
        if (code && strcmp (code, "standby") == 0) {
            const char *l = hearth_json_str (msg->body, "leader");
            snprintf (leader, leader_size, "%s", l ? l : "");
            outcome = S_STANDBY;
        }
        else if (code) {
            hearth_errprintf (err, "the master refused the request: %s: %s",
                              code, hearth_json_str (msg->body, "message"));
            outcome = S_REFUSED;
        }
        if (msg && msg->cmd == expect) {
            *reply = msg;
            outcome = S_REPLY;
        }
        else
            hearth_msg_destroy (&msg); /* a late answer, a heartbeat */
    }
    if (outcome != S_REPLY && outcome != S_REFUSED)
        /* drop the socket so that a late answer is never taken for the
           next request's */
        s_drop (self);
    return outcome;
}

/* Say what the master at the current URL did, and move on: to the leader
   it named, else to the next URL.  Returns whether that was one more URL
   of the list (not a leader followed). */
static bool
s_move (submit_link_t *self, s_outcome_t outcome, const char *leader,
        char *tried, size_t *used)
{
    char what[HEARTH_MASTER_URL_MAX + 800], url[HEARTH_MASTER_URL_MAX + 1];
    snprintf (url, sizeof url, "%s", submit_link_url (self));
    bool followed = false, unlisted = false;
    if (outcome == S_STANDBY)
        followed = hearth_masters_to_leader (self->masters, leader, &unlisted);
    else
        hearth_masters_next (self->masters);
    if (outcome == S_UNREACHABLE)
        snprintf (what, sizeof what, "%s",
                  self->cause[0] ? self->cause : "unreachable");
    else if (outcome == S_SILENT)
        snprintf (what, sizeof what, "no answer within %lld ms%s%s",
                  (long long) self->timeout_ms, self->cause[0] ? ": " : "",
                  self->cause);
    else if (*leader)
        snprintf (what, sizeof what, "a standby; the leader is %s%s", leader,
                  unlisted ? ", not one of the masters given: ignored" : "");
    else
        snprintf (what, sizeof what, "a standby; no leader is known");
    *used += (size_t) snprintf (tried + *used, S_TRIED_MAX - *used, "%s%s (%s)",
                                *used ? "; " : "", url, what);
    if (*used >= S_TRIED_MAX)
        *used = S_TRIED_MAX - 1;
    return !followed;
}

hearth_msg_t *
submit_link_request (submit_link_t *self, hearth_msg_t **req,
                     hearth_cmd_t expect, hearth_error_t *err)
{
    size_t n = hearth_masters_count (self->masters), urls = 0, hops = 0;
    char *tried = calloc (1, S_TRIED_MAX), leader[HEARTH_MASTER_URL_MAX + 1];
    size_t used = 0;
    hearth_msg_t *reply = NULL;
    s_outcome_t outcome = S_BROKEN;
    if (!tried)
        hearth_errprintf (err, "out of memory");
    /* every URL of the list once, and as many leaders as there are URLs:
       standbys naming each other cannot keep the request going round */
    while (tried && urls < n && hops <= n) {
        hearth_msg_t *copy = s_copy (*req);
        if (!copy) {
            hearth_errprintf (err, "out of memory");
            break;
        }
        outcome =
            s_attempt (self, &copy, expect, &reply, leader, sizeof leader, err);
        /* a master that can never answer this client: the next may (its
           host alone may be wrong); alone, it ends the request */
        if (outcome != S_SILENT && outcome != S_STANDBY
            && (outcome != S_UNREACHABLE || n == 1))
            break;
        if (s_move (self, outcome, leader, tried, &used))
            urls++;
        else
            hops++;
    }
    hearth_msg_destroy (req);
    if (outcome == S_INTERRUPTED)
        hearth_errprintf (err, "interrupted while waiting for the master at %s",
                          submit_link_url (self));
    else if (outcome == S_SILENT && n == 1 && hops == 0)
        hearth_errprintf (err,
                          "no answer from the master at %s within %lld ms%s%s",
                          submit_link_url (self), (long long) self->timeout_ms,
                          self->silent[0] ? ": " : "", self->silent);
    else if (outcome == S_SILENT || outcome == S_STANDBY
             || (outcome == S_UNREACHABLE && n > 1))
        hearth_errprintf (err, "no master took the request; tried %s", tried);
    free (tried);
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

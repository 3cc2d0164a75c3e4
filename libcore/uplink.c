/*  uplink.c - a peer that registers with another and stays linked (the
    worker's and the driver's link to the master, the executor's to its
    driver); see uplink.h for the rules and protocol.md §7 for the wire. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/connwatch.h"
#include "libcore/log.h"
#include "libcore/loglimit.h"
#include "libcore/sock.h"
#include "libcore/uplink.h"

/* Messages read in one call of hearth_uplink_on_readable, by default:
   the master sends few; a flood must not hold the owner's loop. */
static const int s_read_batch = 64;
/* The peer, in the logs, by default. */
static const char s_peer[] = "the master";
/* Fenced and bad messages: a line a minute per kind. */
static const int64_t s_log_period_ms = 60000;

struct hearth_uplink {
    hearth_uplink_opts_t opts;    /* copied; url and who point below */
    hearth_uplink_cbs_t cbs;      /* the owner's callbacks */
    char who[128];                /* for the logs */
    char peer[64];                /* the master, for the logs */
    char identity[256];           /* the DEALER's routing id, or "" */
    hearth_masters_t *masters;    /* the URLs, the one followed, the
                                     highest epoch (owned) */
    hearth_loglimit_t *log_limit; /* fenced and bad messages */
    zsock_t *sock;                /* the newest DEALER, or NULL */
    hearth_connwatch_t *watch;    /* why sock cannot reach the master */
    zsock_t *monitor;             /* the watch's socket (the watch's) */
    char watch_said[128];         /* the start of the last cause said, so
                                     that a fresh socket's watch does not
                                     say it again */
    int64_t interval_ms;          /* heartbeat interval in use */
    int64_t liveness;             /* missed intervals: the master is gone */
    int64_t backoff_ms;           /* what the next attempt waits */
    int64_t next_attempt_ms;      /* when to register again */
    int64_t deadline_ms;          /* the first registration by then (0:
                                     none) */
    int64_t recv_ms;              /* last sign of life */
    int64_t send_ms;              /* last message sent */
    int leader_hops;              /* standbys' leaders followed since the
                                     link was last up */
    bool up;                      /* the current socket is registered */
    bool ever;                    /* up at least once since open */
    bool unanswered;              /* nothing came since the last attempt */
    bool reopen;                  /* a switch is due at next_attempt_ms */
    bool attempted;               /* a registration went, since open */
    bool failed;                  /* fatal told: nothing more */
    bool closed;                  /* hearth_uplink_close was called */
};

hearth_uplink_t *
hearth_uplink_new (const hearth_uplink_opts_t *opts,
                   const hearth_uplink_cbs_t *cbs, hearth_error_t *err)
{
    hearth_uplink_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->opts = *opts;
    self->cbs = *cbs;
    snprintf (self->who, sizeof self->who, "%s", opts->who ? opts->who : "");
    snprintf (self->peer, sizeof self->peer, "%s",
              opts->peer ? opts->peer : s_peer);
    snprintf (self->identity, sizeof self->identity, "%s",
              opts->identity ? opts->identity : "");
    self->opts.who = self->who;
    self->opts.peer = self->peer;
    self->opts.identity = NULL; /* self->identity keeps it */
    if (self->opts.read_batch <= 0)
        self->opts.read_batch = s_read_batch;
    self->opts.url = NULL; /* the list keeps it */
    if (self->opts.backoff_max_ms <= 0)
        self->opts.backoff_max_ms = HEARTH_UPLINK_BACKOFF_MAX_MS;
    self->interval_ms = opts->interval_ms > 0 ? opts->interval_ms : 1;
    self->liveness = opts->liveness > 0 ? opts->liveness : 1;
    self->backoff_ms = self->interval_ms;
    if (!(self->masters = hearth_masters_parse (opts->url, err))
        || !(self->log_limit = hearth_loglimit_new (s_log_period_ms, 16))) {
        if (self->masters)
            hearth_errprintf (err, "out of memory");
        hearth_uplink_destroy (&self);
    }
    else if (!opts->failover && hearth_masters_count (self->masters) > 1) {
        hearth_errprintf (err, "one URL expected, not a list: '%s'", opts->url);
        hearth_uplink_destroy (&self);
    }
    return self;
}

/* Drop the watch, and the socket too unless keep_sock, telling the owner
   to stop serving them when tell. */
static void
s_drop (hearth_uplink_t *self, bool keep_sock, bool tell)
{
    if (self->monitor && tell)
        self->cbs.serve (self->cbs.arg, self->monitor, false);
    self->monitor = NULL;
    hearth_connwatch_destroy (&self->watch); /* before its socket */
    if (keep_sock || !self->sock)
        return;
    if (tell)
        self->cbs.serve (self->cbs.arg, self->sock, false);
    hearth_sock_destroy (&self->sock);
}

void
hearth_uplink_destroy (hearth_uplink_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_uplink_t *self = *self_p;
    s_drop (self, false, false);
    hearth_masters_destroy (&self->masters);
    hearth_loglimit_destroy (&self->log_limit);
    free (self);
    *self_p = NULL;
    errno = saved;
}

void
hearth_uplink_close (hearth_uplink_t *self, int linger_ms)
{
    if (self->sock && linger_ms >= 0)
        zsock_set_linger (self->sock, linger_ms);
    s_drop (self, false, true);
    self->closed = true;
}

/* Whether a (may be NULL) is b. */
static bool
s_is (const char *a, const char *b)
{
    return a && strcmp (a, b) == 0;
}

static void
s_fatal (hearth_uplink_t *self, const char *why)
{
    if (self->failed)
        return;
    self->failed = true;
    self->cbs.fatal (self->cbs.arg, why);
}

/* ---- the watch ------------------------------------------------------- */

/* Say what the watch has found since it last said (a refused
   connection, keys that do not match...), while the link is not up. */
static void
s_watch_news (hearth_uplink_t *self, int64_t now)
{
    bool fatal = false;
    const char *news = self->watch && !self->up
                           ? hearth_connwatch_news (self->watch, now, &fatal)
                           : NULL;
    if (!news)
        return;
    if (fatal && self->opts.watch_fatal && !self->ever) {
        if (hearth_masters_count (self->masters) == 1) {
            s_fatal (self, news);
            return;
        }
        log_warn ("%s", news);
        self->next_attempt_ms = now; /* another master may do */
        return;
    }
    if (strncmp (news, self->watch_said, sizeof self->watch_said - 1) != 0) {
        log_warn ("%s; still trying", news);
        snprintf (self->watch_said, sizeof self->watch_said, "%s", news);
    }
}

/* Watch a fresh socket's connection (before it connects); a watch that
   cannot be made leaves it unwatched, no worse. */
static void
s_watch (hearth_uplink_t *self)
{
    const hearth_curve_t *curve = self->opts.curve;
    const char *key =
        curve && curve->cert ? zcert_public_txt (curve->cert) : NULL;
    self->watch = hearth_connwatch_new (hearth_uplink_url (self), self->peer,
                                        curve && hearth_curve_on (curve), key);
    if (!self->watch)
        return;
    hearth_connwatch_cookie (self->watch, curve && curve->cookie[0] != '\0');
    if (!(self->monitor =
              hearth_connwatch_attach (self->watch, self->sock, NULL))) {
        log_debug ("the link to %s goes unwatched", self->peer);
        hearth_connwatch_destroy (&self->watch);
        return;
    }
    self->cbs.serve (self->cbs.arg, self->monitor, true);
}

/* ---- registering ----------------------------------------------------- */

/* A fresh DEALER to the master (the old one dropped with what it still
   queued for a master that is gone). */
static int
s_connect (hearth_uplink_t *self, hearth_error_t *err)
{
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER,
                               .identity =
                                   self->identity[0] ? self->identity : NULL};
    if (self->opts.curve)
        hearth_curve_client_opts (self->opts.curve, &opts);
    s_drop (self, false, true);
    if (!(self->sock = hearth_sock_new (&opts, err)))
        return -1;
    if (!self->up)
        s_watch (self);
    if (hearth_sock_connect (self->sock, hearth_uplink_url (self), err) < 0) {
        s_drop (self, false, true);
        return -1;
    }
    self->cbs.serve (self->cbs.arg, self->sock, true);
    return 0;
}

static void
s_send_registration (hearth_uplink_t *self, int64_t now)
{
    hearth_msg_t *msg = self->cbs.registration (self->cbs.arg, self->ever);
    self->unanswered = true;
    self->attempted = true;
    if (msg)
        hearth_uplink_send (self, &msg, now);
}

/* Register on a fresh socket now; the next attempt waits the back-off,
   which doubles.  A registration nobody answered moves to the next
   master first.  0, or -1 with err (no socket: the next attempt tries
   again). */
static int
s_attempt (hearth_uplink_t *self, int64_t now, hearth_error_t *err)
{
    bool first = !self->attempted;
    if (self->unanswered && !self->reopen && self->opts.failover)
        hearth_masters_move_on (self->masters, "did not answer");
    self->reopen = false;
    self->next_attempt_ms = now + self->backoff_ms;
    self->backoff_ms = self->backoff_ms * 2 > self->opts.backoff_max_ms
                           ? self->opts.backoff_max_ms
                           : self->backoff_ms * 2;
    if (s_connect (self, err) < 0)
        return -1;
    if (first) /* the back-off starts with the first failure */
        log_info ("registering with %s as %s", hearth_uplink_url (self),
                  self->who);
    else
        log_info ("registering with %s as %s%s (next attempt in %lld ms)",
                  hearth_uplink_url (self), self->who,
                  self->ever ? " again" : "",
                  (long long) (self->next_attempt_ms - now));
    s_send_registration (self, now);
    return 0;
}

int
hearth_uplink_open (hearth_uplink_t *self, int64_t now_ms, hearth_error_t *err)
{
    self->recv_ms = self->send_ms = now_ms;
    if (self->opts.register_timeout_ms > 0)
        self->deadline_ms = now_ms + self->opts.register_timeout_ms;
    return s_attempt (self, now_ms, err);
}

void
hearth_uplink_register_again (hearth_uplink_t *self, int64_t now_ms)
{
    if (self->sock)
        s_send_registration (self, now_ms);
}

int
hearth_uplink_send (hearth_uplink_t *self, hearth_msg_t **msg_p, int64_t now_ms)
{
    hearth_error_t err;
    if (!self->sock) {
        hearth_msg_destroy (msg_p);
        return -1;
    }
    const char *name = hearth_cmd_name ((*msg_p)->cmd);
    int rc = hearth_msg_send (msg_p, self->sock, NULL, &err);
    if (self->cbs.sent)
        self->cbs.sent (self->cbs.arg, self->sock);
    if (rc < 0) {
        log_warn ("cannot send %s to %s: %s", name, self->peer, err.text);
        return -1;
    }
    self->send_ms = now_ms;
    return 0;
}

void
hearth_uplink_down (hearth_uplink_t *self, const char *why, int64_t now_ms)
{
    if (!self->up)
        return;
    if (self->opts.down_fatal) {
        char text[600];
        snprintf (text, sizeof text, "%s at %s: %s", self->peer,
                  hearth_uplink_url (self), why ? why : "the link is down");
        self->up = false;
        s_fatal (self, text);
        return;
    }
    if (why)
        log_warn ("%s at %s: %s; registering again", self->peer,
                  hearth_uplink_url (self), why);
    self->up = false;
    self->backoff_ms = self->interval_ms;
    self->next_attempt_ms = now_ms;
    if (self->cbs.down)
        self->cbs.down (self->cbs.arg, why ? why : "the link is down");
}

/* ---- the tick ------------------------------------------------------- */

/* The first registration's deadline has passed: fatal, naming every URL
   tried and the watch's last cause. */
static void
s_too_late (hearth_uplink_t *self)
{
    char text[HEARTH_MASTERS_MAX * (HEARTH_MASTER_URL_MAX + 2) + 1400];
    bool many = hearth_masters_count (self->masters) > 1;
    const char *last = hearth_uplink_watch_last (self);
    snprintf (
        text, sizeof text, "%s%s%s%s did not register %s within %lld ms%s%s",
        many ? "none of the masters (" : self->peer, many ? "" : " at ",
        many ? hearth_masters_text (self->masters) : hearth_uplink_url (self),
        many ? ")" : "", self->who, (long long) self->opts.register_timeout_ms,
        last ? ": " : "", last ? last : "");
    s_fatal (self, text);
}

/* Whether the link, down, registers again at its next attempt: always
   once it has been up; before, with hold_first, only for a switch. */
static bool
s_retries (const hearth_uplink_t *self)
{
    return self->ever || !self->opts.hold_first || self->reopen
           || (self->unanswered && hearth_masters_count (self->masters) > 1)
           || !self->sock;
}

static int64_t
s_min (int64_t a, int64_t b)
{
    return a < b ? a : b;
}

int64_t
hearth_uplink_tick (hearth_uplink_t *self, int64_t now_ms)
{
    if (self->failed || self->closed)
        return INT64_MAX;
    int64_t silent_ms = self->interval_ms * self->liveness;
    if (self->up && now_ms - self->recv_ms > silent_ms) {
        char why[128];
        if (self->opts.down_fatal) {
            snprintf (why, sizeof why, "%s has been silent for %lld ms",
                      self->peer, (long long) (now_ms - self->recv_ms));
            self->up = false;
            s_fatal (self, why);
            return INT64_MAX;
        }
        snprintf (why, sizeof why, "silent for %lld ms",
                  (long long) (now_ms - self->recv_ms));
        hearth_uplink_down (self, why, now_ms);
        if (self->opts.failover)
            hearth_masters_move_on (self->masters, "is silent");
        self->unanswered = false; /* moved on already */
    }
    if (!self->up) {
        s_watch_news (self, now_ms); /* what shows only with time */
        if (!self->failed && !self->ever && self->deadline_ms
            && now_ms > self->deadline_ms)
            s_too_late (self);
        hearth_error_t err;
        if (!self->failed && now_ms >= self->next_attempt_ms && s_retries (self)
            && s_attempt (self, now_ms, &err) < 0)
            log_warn ("cannot connect to %s at %s: %s", self->peer,
                      hearth_uplink_url (self), err.text);
        int64_t next = self->next_attempt_ms;
        if (self->deadline_ms && !self->ever)
            next = s_min (next, self->deadline_ms + 1);
        return self->failed ? INT64_MAX : next;
    }
    if (now_ms - self->send_ms >= self->interval_ms) {
        hearth_msg_t *msg = self->cbs.heartbeat (self->cbs.arg);
        if (msg)
            hearth_uplink_send (self, &msg, now_ms);
        else
            self->send_ms = now_ms; /* asked again next interval */
    }
    return s_min (self->send_ms + self->interval_ms,
                  self->recv_ms + silent_ms + 1);
}

/* ---- what the master says ------------------------------------------- */

static void
s_up (hearth_uplink_t *self, const hearth_msg_t *msg)
{
    /* The side that accepts a registration sets the heartbeat (protocol
       §7): the options only matter until then. */
    int64_t interval =
        hearth_json_int (msg->body, "heartbeat_interval_ms", self->interval_ms);
    int64_t liveness =
        hearth_json_int (msg->body, "heartbeat_liveness", self->liveness);
    self->interval_ms = interval > 0 ? interval : self->interval_ms;
    self->liveness = liveness > 0 ? liveness : self->liveness;
    bool again = self->ever;
    self->up = self->ever = true;
    self->leader_hops = 0;
    self->backoff_ms = self->interval_ms;
    self->watch_said[0] = '\0'; /* a later trouble is news again */
    self->cbs.up (self->cbs.arg, msg, again);
}

/* A standby's ERROR: the link is down; the next attempt, on a fresh
   socket, goes to the leader it names (at once the first time since the
   link was up, then at back-off, so that standbys naming each other
   cannot spin it) or to the next master, at back-off. */
static void
s_standby (hearth_uplink_t *self, const hearth_msg_t *msg, int64_t now)
{
    if (self->up) {
        self->up = false;
        self->backoff_ms = self->interval_ms;
        self->next_attempt_ms = now + self->backoff_ms;
        if (self->cbs.down)
            self->cbs.down (self->cbs.arg, "the master is a standby");
    }
    self->unanswered = false; /* it answered: the next one is elsewhere */
    self->reopen = true;
    if (hearth_masters_standby (self->masters, msg->body, self->log_limit, now)
        && self->leader_hops++ == 0)
        self->next_attempt_ms = now;
}

static void
s_dispatch (hearth_uplink_t *self, hearth_msg_t *msg, int64_t now)
{
    if (msg->cmd == self->opts.registered_cmd)
        s_up (self, msg);
    else if (msg->cmd == self->opts.reconnect_cmd) {
        const char *reason = hearth_json_str (msg->body, "reason");
        if (self->up)
            hearth_uplink_down (
                self, reason ? reason : "it asks to register again", now);
        else
            hearth_uplink_register_again (self, now);
    }
    else if (self->opts.failover && msg->cmd == HEARTH_CMD_ERROR
             && s_is (hearth_json_str (msg->body, "code"), "standby"))
        s_standby (self, msg, now);
    else
        self->cbs.message (self->cbs.arg, msg);
}

/* A message that could not be read: a master of another protocol
   version, or not Hearth at all, will not do better on the next try,
   so before the first registration that is the end. */
static void
s_bad (hearth_uplink_t *self, const hearth_error_t *err, int64_t now)
{
    if (!self->ever
        && (s_is (err->code, "bad_version")
            || s_is (err->code, "bad_protocol"))) {
        char text[600];
        snprintf (text, sizeof text, "cannot work with %s at %s: %s",
                  self->peer, hearth_uplink_url (self), err->text);
        s_fatal (self, text);
        return;
    }
    hearth_log_limited (self->log_limit, HEARTH_LOG_WARN, "bad message", now,
                        "bad message from %s: %s", self->peer, err->text);
}

int
hearth_uplink_on_readable (hearth_uplink_t *self, zsock_t *sock, int64_t now_ms)
{
    if (self->failed)
        return -1;
    if (sock && sock == self->monitor) {
        if (hearth_connwatch_read (self->watch, now_ms) > 0)
            s_watch_news (self, now_ms);
        return self->failed ? -1 : 0;
    }
    for (int n = 0; n < self->opts.read_batch; n++) {
        if (!sock || sock != self->sock)
            return 0; /* replaced, or dropped: nothing more from it */
        hearth_error_t err;
        bool none;
        hearth_msg_t *refused = NULL;
        hearth_msg_t *msg =
            self->cbs.refused
                ? hearth_msg_try_recv_refused (sock, NULL, &none, &err,
                                               &refused)
                : hearth_msg_try_recv_from (sock, NULL, NULL, &none, &err);
        if (none)
            return 0;
        if (!msg && hearth_recv_broken (&err)) {
            log_error ("%s's socket: %s", self->peer, err.text);
            return -1;
        }
        if (!msg) {
            s_bad (self, &err, now_ms);
            if (refused && !self->failed)
                self->cbs.refused (self->cbs.arg, refused, &err);
            hearth_msg_destroy (&refused);
            if (self->failed)
                return -1;
            continue;
        }
        if (self->opts.failover
            && !hearth_masters_admit (self->masters, msg, self->log_limit,
                                      now_ms)) {
            hearth_msg_destroy (&msg);
            continue;
        }
        self->recv_ms = now_ms;
        self->unanswered = false;
        s_dispatch (self, msg, now_ms);
        hearth_msg_destroy (&msg);
        if (self->failed)
            return -1;
    }
    return 1;
}

/* ---- what the owner reads ------------------------------------------- */

const char *
hearth_uplink_url (const hearth_uplink_t *self)
{
    return hearth_masters_current (self->masters);
}

const hearth_masters_t *
hearth_uplink_masters (const hearth_uplink_t *self)
{
    return self->masters;
}

bool
hearth_uplink_up (const hearth_uplink_t *self)
{
    return self->up;
}

bool
hearth_uplink_ever (const hearth_uplink_t *self)
{
    return self->ever;
}

int64_t
hearth_uplink_interval (const hearth_uplink_t *self)
{
    return self->interval_ms;
}

int64_t
hearth_uplink_liveness (const hearth_uplink_t *self)
{
    return self->liveness;
}

int64_t
hearth_uplink_heard (const hearth_uplink_t *self)
{
    return self->recv_ms;
}

void
hearth_uplink_heard_at (hearth_uplink_t *self, int64_t now_ms)
{
    if (now_ms > self->recv_ms)
        self->recv_ms = now_ms;
}

int64_t
hearth_uplink_backoff (const hearth_uplink_t *self)
{
    return self->backoff_ms;
}

zsock_t *
hearth_uplink_sock (const hearth_uplink_t *self)
{
    return self->sock;
}

const char *
hearth_uplink_watch_last (const hearth_uplink_t *self)
{
    return self->watch ? hearth_connwatch_last (self->watch) : NULL;
}

/*  taillink.c - hearth-tail's links to the master; see taillink.h.

    One zmq_poll over three sockets: the SUB of the events, the PAIR end
    of its socket monitor (DISCONNECTED, HANDSHAKE_SUCCEEDED), and the
    DEALER of MASTER_STATE while a probe is out.

    With a list of masters (libcore/masters.h), MASTER_STATE goes to the
    URLs in order: a silent one (--timeout) or a standby naming no leader
    passes it on, a standby's leader is asked at once; the events come
    from the one that answered, and a probe while it is away moves along
    the list the same way. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/clock.h"
#include "libcore/connwatch.h"
#include "libcore/masters.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "tail/taillink.h"

struct tail_link {
    hearth_conf_t *conf;         /* master, events, timeout (borrowed) */
    const hearth_curve_t *curve; /* keys (borrowed) */
    hearth_masters_t *masters;   /* --master's URLs, the one asked (owned) */
    zsock_t *dealer;             /* MASTER_STATE, or NULL */
    hearth_connwatch_t *watch;   /* why dealer cannot reach the master,
                                    for --state's request; or NULL */
    zsock_t *sub;                /* the events, or NULL */
    zsock_t *monitor;            /* the SUB's monitor events (PAIR) */
    unsigned monitors;           /* monitors made, for their endpoints */
    char events_url[600];        /* what sub is connected to */
    const char *const *topics;   /* subscribed (borrowed) */
    size_t ntopics;              /* entries in topics */
    bool up;                     /* the master is there, as far as known */
    bool shaken;                 /* the SUB's connection completed its
                                    handshake (a refused one never does) */
    bool refusal_said;           /* a failed handshake was told */
    bool probing;                /* a MASTER_STATE is out while it is away */
    int64_t probe_deadline_ms;   /* monotonic: a fresh socket after this */
};

tail_link_t *
tail_link_new (hearth_conf_t *conf, const hearth_curve_t *curve)
{
    tail_link_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->conf = conf;
    self->curve = curve;
    self->up = true;
    if (!(self->masters =
              hearth_masters_parse (hearth_conf_str (conf, "master"), NULL)))
        tail_link_destroy (&self);
    return self;
}

/* Drop the DEALER (its watch first). */
static void
s_drop_dealer (tail_link_t *self)
{
    hearth_connwatch_destroy (&self->watch);
    hearth_sock_destroy (&self->dealer);
}

static void
s_close_sub (tail_link_t *self)
{
    if (self->sub)
        zmq_socket_monitor (zsock_resolve (self->sub), NULL, 0);
    hearth_sock_destroy (&self->sub);
    hearth_sock_destroy (&self->monitor);
}

void
tail_link_destroy (tail_link_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    tail_link_t *self = *self_p;
    s_close_sub (self);
    s_drop_dealer (self);
    hearth_masters_destroy (&self->masters);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* --- MASTER_STATE -------------------------------------------------------- */

/* Watch a new DEALER's connection (before it connects), so that a
   request says why the master cannot answer (connwatch.h); a watch that
   cannot be made leaves the wait blind, no worse. */
static void
s_watch (tail_link_t *self, const char *url)
{
    const hearth_curve_t *c = self->curve;
    self->watch =
        hearth_connwatch_new (url, "the master", hearth_curve_on (c),
                              c->cert ? zcert_public_txt (c->cert) : NULL);
    if (!self->watch)
        return;
    hearth_connwatch_cookie (self->watch, c->cookie[0] != '\0');
    if (!hearth_connwatch_attach (self->watch, self->dealer, NULL))
        hearth_connwatch_destroy (&self->watch);
}

/* Send MASTER_STATE on the DEALER (made first if need be, watched when
   watched is set).  0 or -1. */
static int
s_ask (tail_link_t *self, bool watched, hearth_error_t *err)
{
    const char *url = hearth_masters_current (self->masters);
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (self->curve, &opts);
    if (!self->dealer) {
        if ((self->dealer = hearth_sock_new (&opts, err)) && watched)
            s_watch (self, url);
        if (!self->dealer || hearth_sock_connect (self->dealer, url, err) < 0) {
            s_drop_dealer (self);
            return -1;
        }
    }
    hearth_msg_t *req = hearth_msg_new (HEARTH_CMD_MASTER_STATE);
    if (!req)
        return hearth_errprintf (err, "out of memory");
    return self->watch
               ? hearth_connwatch_send (self->watch, self->dealer, &req, err)
               : hearth_msg_send (&req, self->dealer, NULL, err);
}

/* The MASTER_STATE_RESPONSE waiting on the DEALER: its body, or NULL with
   err (another answer: an ERROR). */
static cJSON *
s_answer_on (zsock_t *dealer, bool *standby, char *leader, size_t size,
             hearth_error_t *err)
{
    hearth_msg_t *reply = hearth_msg_recv (dealer, NULL, err);
    *standby = false;
    if (!reply)
        return NULL;
    cJSON *body = NULL;
    const char *code = reply->cmd == HEARTH_CMD_ERROR
                           ? hearth_json_str (reply->body, "code")
                           : NULL;
    if (reply->cmd == HEARTH_CMD_MASTER_STATE_RESPONSE) {
        body = reply->body;
        reply->body = NULL;
    }
    else if (code && strcmp (code, "standby") == 0) {
        const char *l = hearth_json_str (reply->body, "leader");
        *standby = true;
        snprintf (leader, size, "%s", l ? l : "");
        hearth_errprintf (err, "a standby; %s%s",
                          l ? "the leader is " : "no leader is known",
                          l ? l : "");
    }
    else
        hearth_errprintf (err, "the master answered %s: %s",
                          hearth_cmd_name (reply->cmd),
                          hearth_json_str (reply->body, "message")
                              ? hearth_json_str (reply->body, "message")
                              : "");
    hearth_msg_destroy (&reply);
    return body;
}

/* The MASTER_STATE_RESPONSE waiting on the DEALER: its body, or NULL with
   err; a standby's answer moves the link to its leader (*followed, when
   not NULL), or to the next URL. */
static cJSON *
s_answer (tail_link_t *self, hearth_error_t *err, bool *followed)
{
    bool standby;
    char leader[HEARTH_MASTER_URL_MAX + 1];
    cJSON *body =
        s_answer_on (self->dealer, &standby, leader, sizeof leader, err);
    bool to_leader = false;
    if (standby) {
        s_drop_dealer (self);
        bool unlisted;
        to_leader = hearth_masters_to_leader (self->masters, leader, &unlisted);
        if (unlisted)
            hearth_errprintf (err,
                              "a standby; the leader is %s, not one of the "
                              "masters given: ignored",
                              leader);
    }
    if (followed)
        *followed = to_leader;
    return body;
}

/* Wait blind (no watch) up to timeout_ms for sock: 1 when readable. */
static int
s_wait_blind (zsock_t *sock, int64_t timeout_ms)
{
    zpoller_t *poller = zpoller_new (sock, NULL);
    void *ready = poller ? zpoller_wait (poller, (int) timeout_ms) : NULL;
    zpoller_destroy (&poller);
    return ready ? 1 : 0;
}

/* One MASTER_STATE to the URL followed now: its body, or NULL with err
   (*silent when it did not answer; the link has moved on from a silent
   master or a standby). */
static cJSON *
s_state_once (tail_link_t *self, bool *silent, hearth_error_t *err)
{
    *silent = false;
    if (s_ask (self, true, err) < 0)
        return NULL;
    int64_t timeout = hearth_conf_ms (self->conf, "timeout");
    int ready = self->watch ? hearth_connwatch_wait (self->watch, self->dealer,
                                                     timeout, err)
                            : s_wait_blind (self->dealer, timeout);
    if (ready == 1)
        return s_answer (self, err, NULL);
    /* A late answer must not be taken for the next request's. */
    const char *why = self->watch ? hearth_connwatch_last (self->watch) : NULL;
    char said[1024];
    snprintf (said, sizeof said, "%s", why ? why : "");
    s_drop_dealer (self);
    if (ready == -1) /* the watch knows it will never answer (err) */
        return NULL;
    hearth_errprintf (err, "no answer within %lld ms%s%s", (long long) timeout,
                      said[0] ? ": " : "", said);
    *silent = true;
    hearth_masters_next (self->masters);
    return NULL;
}

cJSON *
tail_link_state (tail_link_t *self, hearth_error_t *err)
{
    size_t n = hearth_masters_count (self->masters);
    char tried[HEARTH_MASTERS_MAX * 2 * (HEARTH_MASTER_URL_MAX + 100)];
    size_t used = 0;
    tried[0] = '\0';
    /* every URL once, and as many leaders: standbys naming each other
       cannot keep it going round */
    for (size_t attempt = 0; attempt < 2 * n; attempt++) {
        char url[HEARTH_MASTER_URL_MAX + 1];
        bool silent;
        snprintf (url, sizeof url, "%s",
                  hearth_masters_current (self->masters));
        cJSON *state = s_state_once (self, &silent, err);
        if (state)
            return state;
        if (n == 1 && silent) {
            char why[1200];
            snprintf (why, sizeof why, "%s", err->text);
            hearth_errprintf (err, "no answer from the master at %s%s", url,
                              why + strlen ("no answer"));
            return NULL;
        }
        if (!silent && strncmp (err->text, "a standby", 9) != 0)
            return NULL; /* an answer, not a state: the master's ERROR */
        used +=
            (size_t) snprintf (tried + used, sizeof tried - used, "%s%s (%s)",
                               used ? "; " : "", url, err->text);
        if (used >= sizeof tried)
            used = sizeof tried - 1;
    }
    hearth_errprintf (err, "no master answered; tried %s", tried);
    return NULL;
}

size_t
tail_link_masters (const tail_link_t *self)
{
    return hearth_masters_count (self->masters);
}

const char *
tail_link_master_url (const tail_link_t *self, size_t i)
{
    return hearth_masters_url (self->masters, i);
}

void
tail_link_role (tail_link_t *self, size_t i, char *role, size_t size)
{
    hearth_error_t err;
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (self->curve, &opts);
    int64_t timeout = hearth_conf_ms (self->conf, "timeout");
    zsock_t *dealer = hearth_sock_new (&opts, &err);
    hearth_msg_t *req = hearth_msg_new (HEARTH_CMD_MASTER_STATE);
    snprintf (role, size, "unreachable (no answer within %lld ms)",
              (long long) timeout);
    if (!dealer || !req
        || hearth_sock_connect (dealer, hearth_masters_url (self->masters, i),
                                &err)
               < 0
        || hearth_msg_send (&req, dealer, NULL, &err) < 0) {
        snprintf (role, size, "unreachable (%s)",
                  dealer && req ? err.text : "out of memory");
        hearth_msg_destroy (&req);
        hearth_sock_destroy (&dealer);
        return;
    }
    zpoller_t *poller = zpoller_new (dealer, NULL);
    bool standby = false;
    char leader[HEARTH_MASTER_URL_MAX + 1];
    bool answered = poller && zpoller_wait (poller, (int) timeout);
    cJSON *state =
        answered ? s_answer_on (dealer, &standby, leader, sizeof leader, &err)
                 : NULL;
    if (state) {
        const char *status = hearth_json_str (state, "status");
        snprintf (role, size, "%s", status ? status : "?");
    }
    else if (standby)
        snprintf (role, size, "STANDBY (%s%s)", *leader ? "leader " : "",
                  *leader ? leader : "no leader known");
    else if (answered)
        snprintf (role, size, "error (%s)", err.text);
    cJSON_Delete (state);
    zpoller_destroy (&poller);
    hearth_sock_destroy (&dealer);
}

/* --- the events ---------------------------------------------------------- */

/* A SUB to url, its monitor watching for the connection's end and its
   handshakes.  0 or -1 with err. */
static int
s_open_sub (tail_link_t *self, const char *url, hearth_error_t *err)
{
    hearth_sock_opts_t opts = {.type = ZMQ_SUB};
    hearth_curve_client_opts (self->curve, &opts);
    char endpoint[80];
    snprintf (endpoint, sizeof endpoint, "inproc://hearth-tail-%p-%u",
              (void *) self, self->monitors++);
    if (!(self->sub = hearth_sock_new (&opts, err)))
        return -1;
    int events = ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED
                 | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL
                 | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                 | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
    self->shaken = false;
    if (zmq_socket_monitor (zsock_resolve (self->sub), endpoint, events) < 0
        || !(self->monitor = zsock_new_pair (endpoint))) {
        s_close_sub (self);
        return hearth_errprintf (err, "cannot watch the events socket: %s",
                                 zmq_strerror (errno));
    }
    if (hearth_sock_connect (self->sub, url, err) < 0) {
        s_close_sub (self);
        return -1;
    }
    for (size_t i = 0; i < self->ntopics; i++)
        zsock_set_subscribe (self->sub, self->topics[i]);
    snprintf (self->events_url, sizeof self->events_url, "%s", url);
    return 0;
}

int
tail_link_subscribe (tail_link_t *self, const cJSON *state,
                     const char *const *topics, size_t n, hearth_error_t *err)
{
    const char *url = hearth_conf_str (self->conf, "events");
    if (!url)
        url = hearth_json_str (state, "events_url");
    if (!url)
        return hearth_errprintf (err, "the master did not say its events URL "
                                      "(give --events URL)");
    self->topics = topics;
    self->ntopics = n;
    s_close_sub (self);
    return s_open_sub (self, url, err);
}

/* --- following --------------------------------------------------------- */

/* news, with *text made from fmt (NULL when out of memory). */
static tail_link_news_t s_news (tail_link_news_t news, char **text,
                                const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static tail_link_news_t
s_news (tail_link_news_t news, char **text, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    if (vasprintf (text, fmt, ap) < 0)
        *text = NULL;
    va_end (ap);
    return news;
}

/* What the monitor says; TAIL_LINK_END when it is not news.  Only a
   connection that completed its handshake can be lost: one the master
   refuses (keys) never was there, and is told once on stderr. */
static tail_link_news_t
s_on_monitor (tail_link_t *self, char **text)
{
    zmsg_t *msg = zmsg_recv (self->monitor);
    zframe_t *event = msg ? zmsg_first (msg) : NULL;
    uint16_t id = 0;
    if (event && zframe_size (event) >= 2)
        memcpy (&id, zframe_data (event), sizeof id);
    zmsg_destroy (&msg);
    bool refused = id == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL
                   || id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                   || id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
    if (refused && !self->refusal_said) {
        self->refusal_said = true;
        fprintf (stderr,
                 "hearth-tail: the events socket at %s refused the handshake "
                 "(%s)\n",
                 self->events_url,
                 id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                     ? "our key is not admitted"
                     : "its keys and ours do not match, or it is no master");
    }
    bool lost = id == ZMQ_EVENT_DISCONNECTED && self->shaken;
    if (id == ZMQ_EVENT_DISCONNECTED)
        self->shaken = false;
    if (id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
        self->shaken = true;
    if (lost && self->up) {
        self->up = false;
        return s_news (TAIL_LINK_GONE, text,
                       "the connection to %s closed: the master stopped, or "
                       "the network cut it off; waiting for it",
                       self->events_url);
    }
    if (id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED && !self->up
        && hearth_masters_count (self->masters) > 1) {
        /* One of several masters back at the same address may be a
           standby now (restarted by systemd, or a leader that lost its
           leadership and re-executed itself): ask it, and follow its
           answer, rather than stay on its events. */
        if (!self->probing)
            self->probe_deadline_ms = 0;
        return TAIL_LINK_END;
    }
    if (id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED && !self->up) {
        self->up = true;
        self->probing = false;
        return s_news (TAIL_LINK_BACK, text, "events from %s again",
                       self->events_url);
    }
    return TAIL_LINK_END;
}

/* The probe's answer: the master is back, followed to its events URL
   when that changed (and --events did not fix it). */
static tail_link_news_t
s_on_probe (tail_link_t *self, char **text)
{
    hearth_error_t err;
    bool followed;
    cJSON *state = s_answer (self, &err, &followed);
    self->probing = false;
    if (!state && followed)
        self->probe_deadline_ms = 0; /* a standby's leader: ask it at once */
    if (!state || self->up) {
        cJSON_Delete (state);
        return TAIL_LINK_END;
    }
    const char *url = hearth_json_str (state, "events_url");
    bool moved = url && !hearth_conf_str (self->conf, "events")
                 && strcmp (url, self->events_url) != 0;
    if (moved) {
        s_close_sub (self);
        if (s_open_sub (self, url, &err) < 0) {
            cJSON_Delete (state);
            return s_news (TAIL_LINK_GONE, text, "the master is back, but %s",
                           err.text);
        }
    }
    self->up = true;
    const char *status = hearth_json_str (state, "status");
    tail_link_news_t news =
        s_news (TAIL_LINK_BACK, text, "the master answers again (%s)%s%s",
                status ? status : "?", moved ? ", events now from " : "",
                moved ? url : "");
    cJSON_Delete (state);
    return news;
}

/* While the master is away: one MASTER_STATE out at a time, each on a
   fresh socket (after a silent --timeout, or a probe left unanswered when
   the events came back first), so that no stale answer is ever read as
   the master's return. */
static void
s_probe (tail_link_t *self, int64_t now)
{
    /* waiting for the answer, or after an answer that was no state (a
       standby naming none, an ERROR): one question a --timeout */
    if (self->up || now < self->probe_deadline_ms)
        return;
    if (self->probing) /* unanswered: the next master may lead now */
        hearth_masters_next (self->masters);
    s_drop_dealer (self);
    self->probing = s_ask (self, false, NULL) == 0;
    self->probe_deadline_ms = now + hearth_conf_ms (self->conf, "timeout");
}

/* The next event on the SUB, or TAIL_LINK_END when it is not one. */
static tail_link_news_t
s_on_event (tail_link_t *self, char **topic, char **text)
{
    zmsg_t *msg = zmsg_recv (self->sub);
    *topic = msg ? zmsg_popstr (msg) : NULL;
    *text = msg ? zmsg_popstr (msg) : NULL;
    zmsg_destroy (&msg);
    if (*topic && *text)
        return TAIL_LINK_EVENT;
    free (*topic);
    free (*text);
    *topic = *text = NULL;
    return TAIL_LINK_END;
}

tail_link_news_t
tail_link_next (tail_link_t *self, char **topic, char **text)
{
    *topic = *text = NULL;
    while (self->sub && !zsys_interrupted) {
        int64_t now = hearth_mono_ms ();
        s_probe (self, now);
        zmq_pollitem_t items[3] = {
            {zsock_resolve (self->sub), 0, ZMQ_POLLIN, 0},
            {zsock_resolve (self->monitor), 0, ZMQ_POLLIN, 0},
            {self->probing ? zsock_resolve (self->dealer) : NULL, 0, ZMQ_POLLIN,
             0}};
        long timeout = self->up ? -1 : (long) (self->probe_deadline_ms - now);
        int rc = zmq_poll (items, self->probing ? 3 : 2,
                           timeout < 0 && !self->up ? 0 : timeout);
        if (rc < 0 && errno != EINTR)
            break;
        tail_link_news_t news = TAIL_LINK_END;
        if (items[1].revents & ZMQ_POLLIN)
            news = s_on_monitor (self, text);
        else if (items[0].revents & ZMQ_POLLIN)
            news = s_on_event (self, topic, text);
        else if (self->probing && (items[2].revents & ZMQ_POLLIN))
            news = s_on_probe (self, text);
        if (news != TAIL_LINK_END)
            return news;
    }
    return TAIL_LINK_END;
}

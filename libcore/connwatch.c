/*  connwatch.c - why a client cannot reach its server, from its socket
    monitor's events and, once, from the server's own greeting; see
    connwatch.h.

    The events of one connection attempt come in a few shapes (measured
    with libzmq 4.3.4):

      nothing listens        CONNECT_DELAYED, CLOSED, CONNECT_RETRIED
      the host does not      CONNECT_RETRIED alone (the name is resolved
        resolve                before any TCP connect)
      no answer (filtered)   CONNECT_DELAYED, then nothing for long
      a peer that is not     CONNECTED, then HANDSHAKE_FAILED_NO_DETAIL
        ZeroMQ                 when it closes, or nothing when it waits
      CURVE on one side,     CONNECTED, HANDSHAKE_FAILED_NO_DETAIL (the
        the wrong server       server drops the connection, saying
        key                    nothing)
      a key not admitted     CONNECTED, HANDSHAKE_FAILED_AUTH (400)
      all is well            CONNECTED, HANDSHAKE_SUCCEEDED

    so a failed handshake with no detail is told apart by the probe: a
    plain TCP connection that sends the start of a ZMTP 3.0 greeting and
    reads the server's (its mechanism, NULL or CURVE, at bytes 12-31;
    anything not starting 0xFF ... 0x7F is not ZeroMQ).
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/connwatch.h"
#include "libcore/curve.h"
#include "libcore/sock.h"

/* A TCP connect unanswered this long, or a connection without a
   handshake, is worth saying. */
static const int64_t s_silent_connect_ms = 2000;
static const int64_t s_silent_handshake_ms = 1500;
/* A connection without a handshake this long: is the server ZeroMQ at
   all?  (The probe answers at once; a slow ZeroMQ server is given the
   whole s_silent_handshake_ms.) */
static const int64_t s_probe_after_ms = 500;
/* The probe's limit for connecting, and for the greeting. */
static const int s_probe_timeout_ms = 500;
/* Bytes of a ZMTP 3 greeting. */
enum { s_greeting_size = 64 };

/* Where the connection attempt is. */
typedef enum {
    S_IDLE,       /* nothing yet, or between attempts */
    S_CONNECTING, /* a TCP connect in progress */
    S_CONNECTED,  /* TCP up, the ZMTP handshake going on */
    S_OK,         /* the handshake succeeded */
} s_phase_t;

/* What is wrong, as far as is known. */
typedef enum {
    W_NONE,
    W_REFUSED,      /* the TCP connect failed at once */
    W_NO_ANSWER,    /* the TCP connect hangs */
    W_UNRESOLVED,   /* the host name does not resolve */
    W_NO_HANDSHAKE, /* connected, but no handshake comes */
    W_HANDSHAKE,    /* the server dropped the handshake, no detail */
    W_MECHANISM,    /* CURVE on one side only */
    W_AUTH,         /* the server does not admit our key */
    W_PROTOCOL,     /* another ZMTP protocol error */
} s_cause_t;

struct hearth_connwatch {
    char url[512];      /* tcp://HOST:PORT */
    char host[256];     /* its host */
    int port;           /* its port, or -1 */
    char what[64];      /* "the master" */
    bool curve;         /* the client uses CURVE */
    bool cookie;        /* the client uses the local cookie's CURVE pairs */
    char key[64];       /* the client's public key (Z85), or "" */
    zsock_t *sock;      /* the watched socket (borrowed), once attached */
    zsock_t *monitor;   /* PAIR receiving its events (owned), or NULL */
    s_phase_t phase;    /* where the attempt is */
    int64_t phase_ms;   /* since when */
    bool delayed;       /* a TCP connect began since the last retry */
    s_cause_t cause;    /* what is wrong now */
    uint32_t value;     /* the event's value for it */
    s_cause_t said;     /* the cause last said */
    bool probed;        /* the server's greeting was read (once) */
    char greeting[200]; /* what the probe found, for the messages */
    int mechanism;      /* the server's: 0 unknown, 'N' NULL, 'C' CURVE
                           (keys, or a local cookie's), 'X' not ZeroMQ */
    char text[1024];    /* the last thing said */
    bool never;         /* the host will never resolve (as said) */
};

hearth_connwatch_t *
hearth_connwatch_new (const char *url, const char *what, bool curve,
                      const char *public_key)
{
    hearth_connwatch_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    snprintf (self->url, sizeof self->url, "%s", url);
    snprintf (self->what, sizeof self->what, "%s", what);
    snprintf (self->key, sizeof self->key, "%s", public_key ? public_key : "");
    self->curve = curve;
    if (hearth_url_split (url, self->host, sizeof self->host, &self->port, NULL)
        < 0)
        self->port = -1;
    return self;
}

void
hearth_connwatch_cookie (hearth_connwatch_t *self, bool presents)
{
    self->cookie = presents;
}

void
hearth_connwatch_destroy (hearth_connwatch_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_connwatch_t *self = *self_p;
    if (self->sock && self->monitor)
        zmq_socket_monitor (zsock_resolve (self->sock), NULL, 0);
    zsock_destroy (&self->monitor);
    free (self);
    *self_p = NULL;
    errno = saved;
}

zsock_t *
hearth_connwatch_attach (hearth_connwatch_t *self, zsock_t *sock,
                         hearth_error_t *err)
{
    char endpoint[64];
    snprintf (endpoint, sizeof endpoint, "inproc://hearth-connwatch-%p",
              (void *) self);
    int events = ZMQ_EVENT_CONNECT_DELAYED | ZMQ_EVENT_CONNECTED
                 | ZMQ_EVENT_CLOSED | ZMQ_EVENT_CONNECT_RETRIED
                 | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL
                 | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                 | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                 | ZMQ_EVENT_HANDSHAKE_SUCCEEDED;
    if (zmq_socket_monitor (zsock_resolve (sock), endpoint, events) < 0) {
        hearth_errprintf (err, "cannot monitor the socket: %s",
                          zmq_strerror (errno));
        return NULL;
    }
    if (!(self->monitor = zsock_new_pair (endpoint))) {
        zmq_socket_monitor (zsock_resolve (sock), NULL, 0);
        hearth_errprintf (err, "cannot monitor the socket");
        return NULL;
    }
    self->sock = sock;
    return self->monitor;
}

zsock_t *
hearth_connwatch_monitor (hearth_connwatch_t *self)
{
    return self->monitor;
}

int
hearth_connwatch_read (hearth_connwatch_t *self, int64_t now_ms)
{
    int got = 0;
    while (self->monitor && (zsock_events (self->monitor) & ZMQ_POLLIN)) {
        zmsg_t *msg = zmsg_recv (self->monitor);
        if (!msg)
            break; /* a failed receive would fail again: not a spin */
        got++;
        zframe_t *event = zmsg_first (msg);
        if (event && zframe_size (event) >= 6) {
            uint16_t id;
            uint32_t value;
            memcpy (&id, zframe_data (event), sizeof id);
            memcpy (&value, zframe_data (event) + 2, sizeof value);
            hearth_connwatch_event (self, id, value, now_ms);
        }
        zmsg_destroy (&msg);
    }
    return got;
}

/* ---- the diagnosis ------------------------------------------------------- */

static void
s_phase (hearth_connwatch_t *self, s_phase_t phase, int64_t now_ms)
{
    self->phase = phase;
    self->phase_ms = now_ms;
}

static void
s_cause (hearth_connwatch_t *self, s_cause_t cause, uint32_t value)
{
    self->cause = cause;
    self->value = value;
}

void
hearth_connwatch_event (hearth_connwatch_t *self, int event, uint32_t value,
                        int64_t now_ms)
{
    switch (event) {
    case ZMQ_EVENT_CONNECT_DELAYED:
        self->delayed = true;
        s_phase (self, S_CONNECTING, now_ms);
        break;
    case ZMQ_EVENT_CONNECTED:
        s_phase (self, S_CONNECTED, now_ms);
        break;
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
        s_phase (self, S_OK, now_ms);
        s_cause (self, W_NONE, 0);
        self->said = W_NONE; /* a later trouble is news again */
        break;
    case ZMQ_EVENT_CLOSED:
        if (self->phase == S_CONNECTING)
            s_cause (self, W_REFUSED, 0);
        break;
    case ZMQ_EVENT_CONNECT_RETRIED:
        if (!self->delayed)
            s_cause (self, W_UNRESOLVED, 0);
        else if (self->phase == S_CONNECTING)
            s_cause (self, W_REFUSED, 0);
        self->delayed = false;
        s_phase (self, S_IDLE, now_ms);
        break;
    case ZMQ_EVENT_DISCONNECTED:
        if (self->phase == S_CONNECTED && self->cause == W_NONE)
            s_cause (self, W_HANDSHAKE, 0);
        s_phase (self, S_IDLE, now_ms);
        break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        s_cause (self, W_HANDSHAKE, value);
        break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
        s_cause (self,
                 value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH
                     ? W_MECHANISM
                     : W_PROTOCOL,
                 value);
        break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
        s_cause (self, W_AUTH, value);
        break;
    default:
        break;
    }
}

/* ---- the probe ----------------------------------------------------------- */

/* A non-blocking TCP connection to host:port within the probe's limit,
   or -1. */
static int
s_probe_connect (const char *host, int port)
{
    char service[16];
    snprintf (service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    if (getaddrinfo (host, service, &hints, &ai) != 0 || !ai)
        return -1;
    int fd =
        socket (ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int rc = fd < 0 ? -1 : connect (fd, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo (ai);
    if (fd >= 0 && rc < 0 && errno == EINPROGRESS) {
        struct pollfd p = {fd, POLLOUT, 0};
        int e = 0;
        socklen_t len = sizeof e;
        if (poll (&p, 1, s_probe_timeout_ms) == 1
            && getsockopt (fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0 && e == 0)
            rc = 0;
    }
    if (rc < 0 && fd >= 0) {
        close (fd);
        fd = -1;
    }
    return fd;
}

/* Send the start of a ZMTP 3.0 greeting (its signature and version) and
   read up to a whole greeting back: a ZeroMQ server answers with its
   own, mechanism included, and waits for ours.  (Sent whole at once, with
   a mechanism other than its own, libzmq drops the connection before it
   has sent its greeting.)  Returns the bytes read (0: none), or -1 when
   the probe could not connect or send. */
static ssize_t
s_probe (const char *host, int port, uint8_t *buf)
{
    const uint8_t greeting[12] = {0xff, [9] = 0x7f, [10] = 3, [11] = 0};
    int fd = s_probe_connect (host, port);
    if (fd < 0)
        return -1;
    ssize_t got = 0;
    if (write (fd, greeting, sizeof greeting) != (ssize_t) sizeof greeting)
        got = -1;
    int64_t deadline = hearth_mono_ms () + s_probe_timeout_ms;
    while (got >= 0 && got < s_greeting_size) {
        int64_t left = deadline - hearth_mono_ms ();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll (&p, 1, (int) left) != 1)
            break;
        ssize_t n = read (fd, buf + got, s_greeting_size - got);
        if (n <= 0)
            break;
        got += n;
    }
    close (fd);
    return got;
}

/* The first bytes of what a peer sent, printable. */
static void
s_quote (const uint8_t *buf, size_t n, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < 40 && o + 1 < size; i++) {
        if (buf[i] == '\r' || buf[i] == '\n')
            break;
        out[o++] = buf[i] >= 0x20 && buf[i] < 0x7f ? (char) buf[i] : '.';
    }
    out[o] = '\0';
}

/* Read the server's greeting, once: its mechanism, or that it is not
   ZeroMQ (self->greeting says what it sent). */
static void
s_probe_once (hearth_connwatch_t *self)
{
    if (self->probed || self->port < 0)
        return;
    self->probed = true;
    uint8_t buf[s_greeting_size];
    ssize_t n = s_probe (self->host, self->port, buf);
    if (n < 0)
        return;
    if (n == 0) {
        snprintf (self->greeting, sizeof self->greeting, "nothing");
        return;
    }
    if (n < 10 || buf[0] != 0xff || !(buf[9] & 0x01)) {
        char quoted[64];
        s_quote (buf, (size_t) n, quoted, sizeof quoted);
        snprintf (self->greeting, sizeof self->greeting, "\"%s\"", quoted);
        self->mechanism = 'X';
        return;
    }
    if (n >= 32 && memcmp (buf + 12, "CURVE", 5) == 0)
        self->mechanism = 'C';
    else if (n >= 32 && memcmp (buf + 12, "NULL", 4) == 0)
        self->mechanism = 'N';
}

/* ---- what to say --------------------------------------------------------- */

static void
s_say_not_zeromq (hearth_connwatch_t *self)
{
    snprintf (self->text, sizeof self->text,
              "%s at %s is not a ZeroMQ peer: it sent %s, not a ZMTP "
              "greeting (another protocol: the wrong port?)",
              self->what, self->url, self->greeting);
}

/* The client's mechanism, as the probe writes the server's. */
static int
s_ours (const hearth_connwatch_t *self)
{
    return self->curve || self->cookie ? 'C' : 'N';
}

/* What a server without keys on loopback, which asks for its user's
   cookie, is, for the messages (short: they reach people through
   hearth_error_t's 256 bytes, with the URL). */
#define S_COOKIE_SERVER                                                        \
    "admits only its own user's tools (docs/security.md, \"Local users\")"

static void
s_say_mechanism (hearth_connwatch_t *self)
{
    if (self->mechanism == 'C' && !self->curve
        && hearth_host_is_loopback (self->host))
        /* on loopback, keys or the cookie: which, the greeting cannot tell */
        snprintf (self->text, sizeof self->text,
                  "%s at %s needs keys, or this user's cookie if it has none "
                  "(it then " S_COOKIE_SERVER "): this client has neither",
                  self->what, self->url);
    else if (self->mechanism == 'N' && self->cookie)
        snprintf (self->text, sizeof self->text,
                  "%s at %s asks for no cookie, and this client presents one "
                  "(reach a master listening beyond loopback by the address "
                  "it advertises)",
                  self->what, self->url);
    else if (self->curve)
        snprintf (self->text, sizeof self->text,
                  "%s at %s uses no keys, and this client uses CURVE: drop "
                  "--curve-secret and --master-key, or start %s with keys",
                  self->what, self->url, self->what);
    else
        snprintf (self->text, sizeof self->text,
                  "%s at %s needs CURVE keys and this client has none: give "
                  "--curve-secret and --master-key (docs/security.md)",
                  self->what, self->url);
}

/* A handshake that the server dropped: ask it what it is. */
static void
s_say_handshake (hearth_connwatch_t *self)
{
    s_probe_once (self);
    if (self->mechanism == 'X')
        s_say_not_zeromq (self);
    else if (self->mechanism && self->mechanism != s_ours (self))
        s_say_mechanism (self);
    else if (self->mechanism == 'C' && self->cookie)
        /* a master with keys, another user's master, or something else
           on its port: none has the server key this user's cookie holds,
           and the greeting (CURVE for all) cannot tell them apart */
        snprintf (self->text, sizeof self->text,
                  "%s at %s does not take this user's cookie: it needs CURVE "
                  "keys (--curve-secret, --master-key), or it is another "
                  "user's and " S_COOKIE_SERVER,
                  self->what, self->url);
    else if (self->mechanism == 'C')
        snprintf (self->text, sizeof self->text,
                  "the CURVE handshake with %s at %s failed: wrong master key "
                  "(--master-key is not that master's public key)",
                  self->what, self->url);
    else
        snprintf (self->text, sizeof self->text,
                  "the handshake with %s at %s failed: its keys and this "
                  "client's do not match, or it is not a Hearth server",
                  self->what, self->url);
}

static void
s_say_no_handshake (hearth_connwatch_t *self, int64_t ms)
{
    s_probe_once (self);
    if (self->mechanism == 'X')
        s_say_not_zeromq (self);
    else
        snprintf (self->text, sizeof self->text,
                  "connected to %s at %s, but no ZeroMQ handshake after %lld "
                  "ms (it sent %s): another program listens there?",
                  self->what, self->url, (long long) ms,
                  self->greeting[0] ? self->greeting : "nothing");
}

/* The host does not resolve: for good (fatal) or for now. */
static void
s_say_unresolved (hearth_connwatch_t *self, bool *fatal)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    int rc = getaddrinfo (self->host, NULL, &hints, &ai);
    if (ai)
        freeaddrinfo (ai);
    bool never = rc == EAI_NONAME
#ifdef EAI_NODATA
                 || rc == EAI_NODATA
#endif
        ;
    if (fatal)
        *fatal = never;
    self->never = never;
    snprintf (self->text, sizeof self->text,
              "cannot reach %s at %s: host %s %s (%s)%s", self->what, self->url,
              self->host, never ? "not found" : "does not resolve",
              rc ? gai_strerror (rc) : "resolved since, yet not connected",
              never ? "" : "");
}

static void
s_compose (hearth_connwatch_t *self, int64_t now_ms, bool *fatal)
{
    int64_t ms = now_ms - self->phase_ms;
    switch (self->cause) {
    case W_REFUSED:
        snprintf (self->text, sizeof self->text,
                  "cannot connect to %s at %s: connection refused (nothing "
                  "listens on port %d of %s: is %s up, on that port?)",
                  self->what, self->url, self->port, self->host, self->what);
        break;
    case W_NO_ANSWER:
        snprintf (self->text, sizeof self->text,
                  "no answer from %s at %s after %lld ms (a firewall, or a "
                  "host that is down?)",
                  self->what, self->url, (long long) ms);
        break;
    case W_UNRESOLVED:
        s_say_unresolved (self, fatal);
        break;
    case W_NO_HANDSHAKE:
        s_say_no_handshake (self, ms);
        break;
    case W_HANDSHAKE:
        s_say_handshake (self);
        break;
    case W_MECHANISM:
        s_probe_once (self);
        s_say_mechanism (self);
        break;
    case W_AUTH:
        if (self->cookie) {
            snprintf (self->text, sizeof self->text,
                      "%s at %s does not take this user's cookie (status "
                      "%u): it " S_COOKIE_SERVER,
                      self->what, self->url, (unsigned) self->value);
            break;
        }
        snprintf (self->text, sizeof self->text,
                  "%s at %s does not admit this client's key%s%s (status "
                  "%u): it is not in the --curve-allow directory there (add "
                  "it, then send %s SIGHUP)",
                  self->what, self->url, self->key[0] ? " " : "", self->key,
                  (unsigned) self->value, self->what);
        break;
    case W_PROTOCOL:
        snprintf (self->text, sizeof self->text,
                  "the handshake with %s at %s failed: ZMTP protocol error "
                  "0x%x (not a Hearth server?)",
                  self->what, self->url, (unsigned) self->value);
        break;
    case W_NONE:
        break;
    }
}

const char *
hearth_connwatch_news (hearth_connwatch_t *self, int64_t now_ms, bool *fatal)
{
    if (fatal)
        *fatal = false;
    if (self->cause == W_NONE && self->phase == S_CONNECTING
        && now_ms - self->phase_ms >= s_silent_connect_ms)
        s_cause (self, W_NO_ANSWER, 0);
    int64_t waited = now_ms - self->phase_ms;
    if ((self->cause == W_NONE || self->cause == W_NO_ANSWER)
        && self->phase == S_CONNECTED && waited >= s_probe_after_ms) {
        s_probe_once (self);
        if (self->mechanism == 'X' || waited >= s_silent_handshake_ms)
            s_cause (self, W_NO_HANDSHAKE, 0);
    }
    if (self->cause == W_NONE || self->cause == self->said)
        return NULL;
    self->said = self->cause;
    s_compose (self, now_ms, fatal);
    return self->text;
}

const char *
hearth_connwatch_last (const hearth_connwatch_t *self)
{
    return self->said != W_NONE && self->text[0] ? self->text : NULL;
}

bool
hearth_connwatch_ok (const hearth_connwatch_t *self)
{
    return self->phase == S_OK;
}

bool
hearth_connwatch_refused (const hearth_connwatch_t *self)
{
    return self->cause == W_REFUSED;
}

bool
hearth_connwatch_definitive (const hearth_connwatch_t *self)
{
    switch (self->said) {
    case W_AUTH:
    case W_MECHANISM:
    case W_PROTOCOL:
        return true;
    case W_HANDSHAKE: /* the probe told: another mechanism, a wrong server
                         key (CURVE on both sides), or not ZeroMQ */
        return self->mechanism
               && (self->mechanism != s_ours (self) || self->mechanism == 'C'
                   || self->mechanism == 'X');
    case W_NO_HANDSHAKE:
        return self->mechanism == 'X';
    case W_UNRESOLVED:
        return self->never;
    default:
        return false;
    }
}

int
hearth_connwatch_send (hearth_connwatch_t *self, zsock_t *sock,
                       hearth_msg_t **req, hearth_error_t *err)
{
    (void) self; /* the watch has recorded the handshake's failure */
    if (hearth_msg_send (req, sock, NULL, err) == 0)
        return 0;
    return errno == EAGAIN ? 0 : -1;
}

/* How often a wait looks at causes that show only with time. */
static const int64_t s_wait_step_ms = 100;

int
hearth_connwatch_wait (hearth_connwatch_t *self, zsock_t *sock,
                       int64_t timeout_ms, hearth_error_t *err)
{
    int64_t deadline = hearth_mono_ms () + timeout_ms;
    zpoller_t *poller = zpoller_new (sock, self->monitor, NULL);
    int rc = poller ? 0 : -1;
    while (rc == 0) {
        int64_t now = hearth_mono_ms ();
        const char *news = hearth_connwatch_news (self, now, NULL);
        if (news && hearth_connwatch_definitive (self)) {
            hearth_errprintf (err, "%s", news);
            rc = -1;
            break;
        }
        if (now >= deadline)
            break;
        int64_t step =
            deadline - now < s_wait_step_ms ? deadline - now : s_wait_step_ms;
        void *ready = zpoller_wait (poller, (int) step);
        if (ready == sock)
            rc = 1;
        else if (ready && ready == self->monitor)
            hearth_connwatch_read (self, hearth_mono_ms ());
        else if (zpoller_terminated (poller))
            rc = -2;
    }
    zpoller_destroy (&poller);
    if (rc == 0) {
        const char *last = hearth_connwatch_last (self);
        hearth_errprintf (err, "no answer from %s at %s within %lld ms%s%s",
                          self->what, self->url, (long long) timeout_ms,
                          last ? ": " : "", last ? last : "");
    }
    else if (rc == -2)
        hearth_errprintf (err, "interrupted while waiting for %s at %s",
                          self->what, self->url);
    return rc;
}

const char *
hearth_connwatch_cause (const hearth_connwatch_t *self)
{
    switch (self->said) {
    case W_REFUSED:
        return "connection refused";
    case W_NO_ANSWER:
        return "no answer to connecting";
    case W_UNRESOLVED:
        return self->never ? "host not found" : "host does not resolve";
    case W_NO_HANDSHAKE:
        return self->mechanism == 'X' ? "not ZeroMQ" : "no handshake";
    case W_HANDSHAKE:
    case W_MECHANISM:
    case W_PROTOCOL:
        return "handshake failed";
    case W_AUTH:
        return self->cookie ? "cookie refused" : "key refused";
    default:
        return NULL;
    }
}

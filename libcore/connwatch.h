/*  connwatch.h - what a client can tell of why it cannot reach its
    server: connection refused, a host that does not resolve, a peer that
    speaks another protocol, CURVE keys that do not match, a key the
    server does not admit, no answer at all.

    ZeroMQ reconnects silently; its socket monitor reports each step of a
    connection (ZMQ_EVENT_CONNECT_DELAYED, CONNECTED, CLOSED,
    CONNECT_RETRIED, HANDSHAKE_FAILED_*, HANDSHAKE_SUCCEEDED).  A watch
    reads those events and turns them into one sentence for a person,
    said once per cause (hearth_connwatch_news).  Where the events cannot
    tell (a handshake that failed with no detail: the server dropped the
    connection), the watch asks the server itself, once: it opens a plain
    TCP connection, starts a ZMTP greeting and reads the server's, which
    names its security mechanism (or shows it is not ZeroMQ at all).

    The diagnosis is pure logic over the events (hearth_connwatch_event),
    so that it is tested without a network; hearth_connwatch_attach adds
    the monitor of a real socket.  The watch sends nothing of its own on
    the watched socket; hearth_connwatch_send sends a request for its
    owner.
    Owned by its creator; single-threaded (the creator's loop).
*/
#ifndef HEARTH_CONNWATCH_H
#define HEARTH_CONNWATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/error.h"
#include "libcore/proto.h"

typedef struct hearth_connwatch hearth_connwatch_t;

/* A watch of the connection to url (tcp://HOST:PORT), for the messages:
   what the server is ("the master"), whether the client uses CURVE, and
   its public key (Z85, or NULL).  All copied.  NULL on no memory. */
hearth_connwatch_t *hearth_connwatch_new (const char *url, const char *what,
                                          bool curve, const char *public_key);

/* Say whether the client uses the local cookie's key pairs (cookie.h)
   instead of no mechanism: for the messages. */
void hearth_connwatch_cookie (hearth_connwatch_t *self, bool presents);

/* Stop watching and free.  Accepts NULL and a NULL *self_p; nulls the
   pointer; keeps errno.  Destroy it before the watched socket. */
void hearth_connwatch_destroy (hearth_connwatch_t **self_p);

/* Monitor sock (borrowed: it must outlive the watch), before it
   connects.  Returns the monitor's socket (owned by the watch) to read
   when it is readable (hearth_connwatch_read), or NULL with err. */
zsock_t *hearth_connwatch_attach (hearth_connwatch_t *self, zsock_t *sock,
                                  hearth_error_t *err);

/* The monitor's socket (borrowed), once attached, or NULL. */
zsock_t *hearth_connwatch_monitor (hearth_connwatch_t *self);

/* Read the events waiting on the monitor's socket.  Returns how many
   messages it read. */
int hearth_connwatch_read (hearth_connwatch_t *self, int64_t now_ms);

/* One monitor event (a ZMQ_EVENT_* and its value) at now_ms: what
   hearth_connwatch_read does with each; for tests. */
void hearth_connwatch_event (hearth_connwatch_t *self, int event,
                             uint32_t value, int64_t now_ms);

/* Something new to say since the last call, at now_ms (some causes show
   only with time: no answer, no handshake), or NULL.  The text is
   borrowed until the next call.  *fatal (may be NULL) is set when
   waiting cannot mend it (a host that does not resolve). */
const char *hearth_connwatch_news (hearth_connwatch_t *self, int64_t now_ms,
                                   bool *fatal);

/* The last thing said, or NULL: for the error at a deadline. */
const char *hearth_connwatch_last (const hearth_connwatch_t *self);

/* True when what was last said is a cause that waiting cannot mend:
   the server does not admit this client's key or cookie, asks for
   another mechanism, has another key than the one given, is not
   ZeroMQ, or its host will never resolve.  (A key added on the server
   and a reload would mend the first: a daemon keeps trying; a request
   of a person's tool stops and says why.) */
bool hearth_connwatch_definitive (const hearth_connwatch_t *self);

/* A request's wait: up to timeout_ms for sock (borrowed; the watched
   one, attached before it connected) to be readable.  1 when it is;
   -1 with err at once when the watch finds a definitive cause (err is
   its sentence); 0 at the timeout, err saying "no answer from WHAT at
   URL within N ms" and what the watch knows of why (connection refused,
   no handshake...); -2 when a signal interrupted it (err says so).  The
   monitor is read meanwhile. */
int hearth_connwatch_wait (hearth_connwatch_t *self, zsock_t *sock,
                           int64_t timeout_ms, hearth_error_t *err);

/* Send *req (consumed) on sock (the watched socket, borrowed), for a
   request whose answer hearth_connwatch_wait then waits for.  A DEALER
   whose connection the server already dropped at the handshake (a key or
   cookie refused in the moment since it connected) has no peer left and
   cannot take the request (EAGAIN): that is no failure of its own, the
   wait says why.  0 then and when it went; -1 with err otherwise. */
int hearth_connwatch_send (hearth_connwatch_t *self, zsock_t *sock,
                           hearth_msg_t **req, hearth_error_t *err);

/* The last cause said, in a few words for a list of masters tried
   ("connection refused", "key refused"...), or NULL. */
const char *hearth_connwatch_cause (const hearth_connwatch_t *self);

/* True once a handshake succeeded (nothing is wrong with the link). */
bool hearth_connwatch_ok (const hearth_connwatch_t *self);

/* True when the last connection attempt was refused (nothing listens at
   the URL: on a host that is up, the server process is gone), from the
   events read so far, until a handshake succeeds again.  Nothing needs
   to have been said (hearth_connwatch_news); a connection that was up
   and dropped counts once its reconnection is refused. */
bool hearth_connwatch_refused (const hearth_connwatch_t *self);

#endif

/*  cookie.h - the local cookie: how a master that listens on loopback
    without CURVE keys admits only the tools of the user it runs as.

    Without keys, a master on loopback used to admit anyone who could
    reach the port: every local user, whose tasks then ran as the
    worker's user (root, on many machines).  Now such a master makes sure
    its user has a cookie, 64 random bytes in a file only that user may
    read (~/.hearth/cookie, 80 Z85 characters, mode 0600, in a directory
    of mode 0700; HEARTH_COOKIE names another file), and serves its
    ROUTER and events socket over CurveZMQ with two key pairs the cookie
    holds: the first 32 bytes are the server's secret key, the last 32 a
    client's.  The tools of that user (workers, drivers, hearth-submit,
    hearth-tail, hearth-admin) read the same file when they talk to a
    master on loopback without keys, and connect with the client's pair,
    expecting the server's public key; the master's ZAP handler admits
    that client key alone.  So local[N], local-cluster and a hand-started
    loopback cluster work with no setup; another user has no cookie, or
    another one, and is refused.  Erlang does the same with
    ~/.erlang.cookie, though it sends a digest of it.

    Nothing secret crosses the wire: the secret keys stay in the file.  A
    local user who binds the master's port while it is down gets no
    cookie from a tool that connects there (without the server's secret
    key it cannot finish the handshake, and the tool says the master does
    not take its cookie).  It is no substitute for keys beyond loopback:
    a master there needs CURVE keys (or --insecure, which admits anyone).
    The link to executors stays as it is without keys (the application's
    token guards it).

    The files are opened without following links, and refused when they
    are not the user's own or when others may read (the cookie) or write
    (its directory) them.
*/
#ifndef HEARTH_COOKIE_H
#define HEARTH_COOKIE_H

#include <stdbool.h>
#include <stddef.h>

#include <czmq.h>

#include "libcore/error.h"

/* Characters of a cookie (Z85 of 64 random bytes: the server's secret
   key, then the client's), without the NUL. */
#define HEARTH_COOKIE_LEN 80

/* The path of this user's cookie into buf: $HEARTH_COOKIE, else
   HOME/.hearth/cookie (HOME from the environment, else the password
   database).  0, or -1 with err. */
int hearth_cookie_path (char *buf, size_t size, hearth_error_t *err);

/* A server's cookie into buf (at least HEARTH_COOKIE_LEN + 1 bytes):
   this user's, made now (random, mode 0600, its directory 0700) when
   there is none.  0, or -1 with err (an unsafe or unreadable file). */
int hearth_cookie_ensure (char *buf, size_t size, hearth_error_t *err);

/* This user's cookie into buf, as it is: 1 when there is one, 0 when
   there is none, -1 with err when the file is there but unsafe or
   unreadable. */
int hearth_cookie_read (char *buf, size_t size, hearth_error_t *err);

/* The two key pairs cookie (a whole cookie, as read) holds: *server and
   *client, new certificates the caller destroys.  0, or -1 with err (not
   a cookie). */
int hearth_cookie_certs (const char *cookie, zcert_t **server, zcert_t **client,
                         hearth_error_t *err);

/* Characters of the web pages' token a cookie gives (hex of 24 bytes). */
#define HEARTH_COOKIE_WEB_TOKEN_LEN 48

/* The token of the web pages of cookie's user (a whole cookie, as read)
   into buf (at least HEARTH_COOKIE_WEB_TOKEN_LEN + 1 bytes): a keyed hash
   (BLAKE2b, the cookie's 64 bytes as its key) of a fixed label, in hex.
   Every program of the user derives the same one, so a loopback server
   and the tools that print its address agree with no set-up
   (docs/security.md, "Web pages"); the token tells nothing of the cookie,
   whose CURVE secret keys must never reach a browser or a request.  0,
   or -1 with err (not a cookie). */
int hearth_cookie_web_token (const char *cookie, char *buf, size_t size,
                             hearth_error_t *err);

/* The ZAP handler of a server with a cookie: admits the CURVE clients of
   its client key (RFC 27, domain HEARTH_ZAP_DOMAIN), refuses the rest
   and logs each refusal once a minute per address.  Owned by its
   creator; single-threaded (the server's loop). */
typedef struct hearth_cookie_zap hearth_cookie_zap_t;

/* Bind the handler for cookie's client key.  NULL with err. */
hearth_cookie_zap_t *hearth_cookie_zap_new (const char *cookie,
                                            hearth_error_t *err);

/* Close the handler.  Accepts NULL and a NULL *self_p; nulls *self_p;
   keeps errno. */
void hearth_cookie_zap_destroy (hearth_cookie_zap_t **self_p);

/* The handler's socket (borrowed), to watch for input. */
zsock_t *hearth_cookie_zap_sock (hearth_cookie_zap_t *self);

/* Answer the pending ZAP requests. */
void hearth_cookie_zap_handle (hearth_cookie_zap_t *self);

/* Clients refused so far. */
size_t hearth_cookie_zap_refusals (const hearth_cookie_zap_t *self);

#endif

/*  web.h - a small HTTP server for a daemon's pages, JSON and metrics,
    on libmicrohttpd, driven from the daemon's own loop (libcore/loop.h).

    The server is single-threaded: libmicrohttpd runs in its epoll mode,
    which gives one file descriptor; the loop polls it (hearth_loop_fd)
    and calls MHD_run when it is readable, and a one-shot timer
    (hearth_loop_timer) set from MHD_get_timeout after every run closes
    idle connections.  Route handlers therefore
    run on the loop's thread and may read the daemon's records without a
    lock.  A handler must not block: it builds its answer from memory (or
    a bounded read of a local file) and returns.

    Security (docs/security.md): every request must carry the server's
    token (Authorization: Bearer TOKEN, the cookie hearth_token=TOKEN, or
    ?token=TOKEN, which answers with that cookie set), compared in
    constant time; else 401 (webauth.h).  The token is its token file's;
    without one, on loopback, the one its user's local cookie gives
    (cookie.h), so that other local users read nothing; beyond loopback
    (a wildcard included) a server without a token file is refused at
    start, unless insecure is set (then it admits everyone, with a
    warning in the log).  A server bound to loopback answers only
    requests whose Host names a loopback address, localhost or its own
    address (any port; no Host at all too), and 421 to others, so that a
    page of another site whose name was made to resolve to 127.0.0.1
    (DNS rebinding) cannot read it.  Only GET and HEAD are served
    (405 otherwise), and POST on the routes that take it: a form
    (application/x-www-form-urlencoded, else 415) of at most
    HEARTH_WEB_FORM_MAX bytes (413), read whole before the route's
    handler runs, which checks it with hearth_web_form_check (its
    anti-forgery value and origin: webform.h); a request whose headers
    pass the per-connection memory bound is refused by libmicrohttpd
    (431); idle or slow connections are closed after a timeout.

    Bounds: at most 256 connections, and client_connections (32) from one
    client address (libmicrohttpd closes the next at once); the replies
    still being sent (to clients that read slowly, or not at all) hold at
    most reply_memory bytes in all (64 MiB): a reply that would pass it
    while others are held is answered 503 with Retry-After instead, so
    one reply, however large, is always sent.

    The server owns its socket, its libmicrohttpd daemon and the copy of
    the token; it borrows the loop and the route table (both must outlive
    it).  hearth-master and hearth-worker link it (libhearthweb.la), not
    libhearth.
*/
#ifndef HEARTH_WEB_H
#define HEARTH_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/loop.h"

/* The options of a daemon's web server, for its option table (default
   port given; 0 turns the server off). */
/* clang-format off */
#define HEARTH_WEB_OPTIONS(default_port)                                     \
    {"web-port", HEARTH_OPT_INT, default_port, "N",                          \
     "port of the web pages, JSON and metrics (0: off; taken: the next "    \
     "free one, up to 16 tries)", .min = 0, .max = 65535},                   \
    {"web-host", HEARTH_OPT_STR, "127.0.0.1", "ADDR",                        \
     "address the web server binds (beyond loopback it needs "              \
     "--web-token-file or --insecure)"},                                     \
    {"web-token-file", HEARTH_OPT_STR, NULL, "FILE",                         \
     "file holding the token every web request must carry (first line; "    \
     "default on loopback: this user's, from its local cookie)"},           \
    {"web-read-only", HEARTH_OPT_BOOL, NULL, NULL,                           \
     "the web pages change nothing: no Kill on the master's pages (its "    \
     "token then only reads; a worker's pages have no action)"},            \
    HEARTH_WEB_LIMIT_OPTIONS

/* The web server's bounds, for option tables that list the others
   themselves (hearth-history's). */
#define HEARTH_WEB_LIMIT_OPTIONS                                             \
    {"web-client-connections", HEARTH_OPT_INT, "32", "N",                    \
     "most web connections one client address may hold open at once",       \
     .min = 1, .max = 256},                                                  \
    {"web-reply-memory", HEARTH_OPT_SIZE, "64M", "SIZE",                     \
     "most memory the web replies being sent may hold in all (past it: "    \
     "503; one reply is always sent)"}
/* clang-format on */

/* Ports tried from the one asked for up, when it is taken. */
#define HEARTH_WEB_PORT_TRIES 16

typedef struct hearth_web hearth_web_t;
typedef struct hearth_web_request hearth_web_request_t;

/* Extra headers a reply may carry, and the longest value of one (a
   Set-Cookie with the longest token fits). */
#define HEARTH_WEB_MAX_HEADERS 4
#define HEARTH_WEB_HEADER_VALUE_MAX 384

/* What a route answers; the server frees body after sending it. */
typedef struct {
    int status;       /* HTTP status (200 unless the route sets it) */
    const char *type; /* Content-Type (static text) */
    char *body;       /* malloc'ed bytes (owned), or NULL: empty */
    size_t len;       /* length of body */
    struct {
        char name[32];                           /* header name */
        char value[HEARTH_WEB_HEADER_VALUE_MAX]; /* its value */
    } headers[HEARTH_WEB_MAX_HEADERS];           /* extra headers */
    size_t nheaders;                             /* how many of them are set */
} hearth_web_reply_t;

/* A route's handler: arg is the one given to hearth_web_new; req and rep
   are borrowed for the call. */
typedef void (hearth_web_fn) (void *arg, const hearth_web_request_t *req,
                              hearth_web_reply_t *rep);

/* One row of a route table; a table ends with a NULL path. */
typedef struct {
    const char *path; /* "/json"; with prefix, "/app/" matches "/app/X" */
    bool prefix;      /* match paths that start with path */
    hearth_web_fn *fn;
    bool post; /* POST reaches fn too, its form read (fn answers 405 to a
                  method it does not take on a path) */
} hearth_web_route_t;

/* Most bytes of a POST's body (a form: an id and an anti-forgery value
   need about a hundred). */
#define HEARTH_WEB_FORM_MAX 4096

typedef struct {
    const char *host;            /* address to bind (NULL: 127.0.0.1) */
    int port;                    /* first port tried (1..65535) */
    int tries;                   /* ports tried from port up (0: 16) */
    const char *token_file;      /* the token's file, or NULL */
    bool insecure;               /* beyond loopback without a token: allowed */
    const char *advertise;       /* host of the URL when host is a wildcard
                                    (NULL: the hostname) */
    const char *who;             /* for log lines: "master", "worker" */
    unsigned client_connections; /* most from one address (0: 32) */
    size_t reply_memory;         /* most bytes replies being sent hold in
                                    all (0: 64 MiB) */
} hearth_web_config_t;

/* Requests counted since the start, for /metrics. */
typedef struct {
    uint64_t requests;     /* every request answered */
    uint64_t unauthorized; /* answered 401 */
    uint64_t bad_method;   /* answered 405 */
    uint64_t not_found;    /* answered 404 by the server (no route) */
    uint64_t misdirected;  /* answered 421 (a Host not loopback's) */
    uint64_t forbidden;    /* answered 403 by hearth_web_form_check */
    uint64_t busy;         /* answered 503 (reply_memory reached) */
    uint64_t bytes;        /* body bytes queued */
    uint64_t held;         /* bytes the replies being sent hold now */
} hearth_web_stats_t;

/* Bind and start a server on loop with the routes (borrowed, until
   destroyed) and arg for their handlers.  NULL on failure, with err's
   text (errno EADDRINUSE when every port tried was taken, EACCES when a
   non-loopback address has neither a token nor insecure). */
hearth_web_t *hearth_web_new (hearth_loop_t *loop,
                              const hearth_web_config_t *cfg,
                              const hearth_web_route_t *routes, void *arg,
                              hearth_error_t *err);

/* Start a daemon's server per conf's options (web-port, web-host,
   web-token-file, web-client-connections, web-reply-memory, insecure:
   HEARTH_WEB_OPTIONS) into *out.  *out stays
   NULL when web-port is 0, or when on the default port the pages cannot
   start because its range is all taken or this user keeps no cookie to
   take a token from (a warning: many daemons on one host run without
   pages rather than not at all; a port asked for is a promise, and a
   refusal is never passed over).  Returns 0, or -1 with err. */
int hearth_web_start (hearth_loop_t *loop, const hearth_conf_t *conf,
                      const char *who, const char *advertise,
                      const hearth_web_route_t *routes, void *arg,
                      hearth_web_t **out, hearth_error_t *err);

/* Stop the server, close its connections.  Accepts NULL and a NULL
 *self_p; nulls *self_p; keeps errno. */
void hearth_web_destroy (hearth_web_t **self_p);

/* http://HOST:PORT of the server (borrowed). */
const char *hearth_web_url (const hearth_web_t *self);

/* The port bound. */
int hearth_web_port (const hearth_web_t *self);

/* The counters. */
hearth_web_stats_t hearth_web_stats (const hearth_web_t *self);

/* The request's method ("GET", "HEAD") and path ("/json"), borrowed. */
const char *hearth_web_method (const hearth_web_request_t *req);
const char *hearth_web_path (const hearth_web_request_t *req);

/* The query argument name (decoded), or NULL (borrowed). */
const char *hearth_web_arg (const hearth_web_request_t *req, const char *name);

/* The request header name, or NULL (borrowed). */
const char *hearth_web_header (const hearth_web_request_t *req,
                               const char *name);

/* The client's address, for a log line, into buf ("?" when unknown). */
void hearth_web_client (const hearth_web_request_t *req, char *buf,
                        size_t size);

/* The field name of a POST's form, decoded, into buf: 0, or -1 when
   absent (or not a POST) or longer than size (webform.h). */
int hearth_web_form (const hearth_web_request_t *req, const char *name,
                     char *buf, size_t size);

/* The anti-forgery value of action (the path a form POSTs to) on this
   server, for a page's form field HEARTH_WEBFORM_FIELD, into buf (size
   over HEARTH_WEBFORM_VALUE_LEN): 0, or -1 (buf ""). */
int hearth_web_form_value (const hearth_web_request_t *req, const char *action,
                           char *buf, size_t size);

/* Whether the POST req may do action (its path): its origin headers say
   it comes from this server's pages when they say anything, and its form
   carries action's anti-forgery value (webform.h).  Else false, with rep
   a 403 that says why, counted in stats.forbidden and logged once a
   minute per client and cause (never a value or the token). */
bool hearth_web_form_check (const hearth_web_request_t *req, const char *action,
                            hearth_web_reply_t *rep);

/* Fill rep with status, a content type and body (taken: the server frees
   it; NULL with len 0: empty). */
void hearth_web_reply (hearth_web_reply_t *rep, int status, const char *type,
                       char *body, size_t len);

/* Fill rep with status and a short text/plain body, printf-style. */
void hearth_web_reply_text (hearth_web_reply_t *rep, int status,
                            const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Fill rep with an HTML page (taken: the server frees it) and status;
   page NULL (a renderer out of memory): 500. */
void hearth_web_reply_html (hearth_web_reply_t *rep, char *page, int status);

/* A route handler for /favicon.ico: 204, no body (the pages name a data:
   icon, so a browser that asks anyway gets no error in its console). */
void hearth_web_no_content (void *arg, const hearth_web_request_t *req,
                            hearth_web_reply_t *rep);

/* Add a header to rep (left out, with a warning in the log, past
   HEARTH_WEB_MAX_HEADERS or when too long: a caller's mistake). */
void hearth_web_reply_header (hearth_web_reply_t *rep, const char *name,
                              const char *value);

#endif

/*  webauth.h - who a web server admits (libcore/web.c's rule,
    docs/security.md "Web pages"): the requests that carry its token (an
    Authorization: Bearer header, the hearth_token cookie, or the token
    query argument), compared in constant time.  The token is the first
    line of its token file when it has one; else, on loopback, the token
    of the local cookie of the user it runs as (cookie.h: a keyed hash
    of it, made with the cookie when there is none), so that no other
    local user reads what the daemon's pages show (the cluster's state,
    every executor's log) while its own user's tools (hearth-admin
    web-url) and browser get in with no set-up; beyond loopback without a
    token file, everyone with insecure (and a warning), else the start is
    refused.  The struct is its owner's (web.c's server, or a tool that
    prints the token); nothing is allocated.  It is in the core library,
    not the web server's, so that hearth-admin derives the same token.

    The Host rule: a browser sends with every request the host name of
    its URL.  A page of another site can make its own name resolve to
    127.0.0.1 (DNS rebinding) and then read a loopback server as a page
    of its own origin; its requests still say Host: its-name.  So a
    server bound to loopback answers only requests whose Host (port
    aside) is a loopback address (127.0.0.0/8, [::1]), localhost (any
    case), or the address it was told to bind; a request without Host
    (HTTP/1.0 tools: no browser sends one) is admitted.  Beyond loopback
    the token decides: a rebinding page has no token (nor the cookie,
    which belongs to the real name). */
#ifndef HEARTH_WEBAUTH_H
#define HEARTH_WEBAUTH_H

#include <stdbool.h>

#include "libcore/error.h"

/* Longest token a token file may hold. */
#define HEARTH_WEBAUTH_TOKEN_MAX 256

/* Bytes of the secret that keys the forms' anti-forgery values. */
#define HEARTH_WEBAUTH_FORM_KEY_LEN 32

/* Where a server's token comes from. */
typedef enum {
    HEARTH_WEBAUTH_NONE,   /* none: every request admitted (insecure) */
    HEARTH_WEBAUTH_FILE,   /* its token file */
    HEARTH_WEBAUTH_COOKIE, /* its user's local cookie (cookie.h) */
} hearth_webauth_source_t;

typedef struct {
    bool open;                                /* every request admitted */
    bool loopback;                            /* bound to loopback */
    hearth_webauth_source_t source;           /* where the token is from */
    char host[256];                           /* the address bound */
    char token[HEARTH_WEBAUTH_TOKEN_MAX + 1]; /* the token, or "" */
    unsigned char form_key[HEARTH_WEBAUTH_FORM_KEY_LEN]; /* random, drawn at
                                  setup: keys the anti-forgery values of the
                                  forms (webform.h) */
} hearth_webauth_t;

/* Decide self for a server bound to host: read token_file (NULL: none)
   and apply the rule; draw a new form_key.  0, or -1 with err when the file
   cannot be used or the server must not start: errno EACCES beyond loopback
   without a token, ENOKEY on loopback when this user has no usable cookie (its
   home cannot keep one: the message says to give a token file). */
int hearth_webauth_setup (hearth_webauth_t *self, const char *host,
                          const char *token_file, bool insecure,
                          hearth_error_t *err);

/* A request's credentials (each borrowed, NULL when absent): 1 when
   admitted, 2 when admitted by query_token (the caller sets the cookie),
   0 when not. */
int hearth_webauth_check (const hearth_webauth_t *self,
                          const char *authorization, const char *cookie,
                          const char *query_token);

/* True when a request with the Host header host (borrowed, NULL when
   absent) may be answered: always beyond loopback; on loopback, per the
   rule above. */
bool hearth_webauth_host_ok (const hearth_webauth_t *self, const char *host);

/* Wipe the token and the form key from memory. */
void hearth_webauth_clear (hearth_webauth_t *self);

/* True when token and expected are equal, in time that depends only on
   their lengths, not on where they differ. */
bool hearth_web_token_equal (const char *token, const char *expected);

#endif

/*  webform.h - what a page's form that changes something must carry
    (docs/security.md, "Actions on the pages"): the pure rules, for
    web.c to apply to a POST and for the unit tests.

    A browser sends the pages' cookie (hearth_token) with any request to
    the server, whichever site's page makes it: a page of another site
    can POST a form to the master without reading anything.  The token
    alone cannot tell such a forged request from the operator's, so an
    action also needs:
      - its anti-forgery value, a field of the form that only a page of
        the server holds: a keyed hash (BLAKE2b) of the server's token and
        of the action (its path, "/app/APP_ID/kill"), keyed with a secret
        the server drew at its start (webauth.h's form_key), 64
        hexadecimal characters.  Another site can neither read the page
        that holds it (the same-origin rule; the pages may not be framed)
        nor compute it; a value is good for one action on one server until
        that server stops;
      - when the browser says where the request comes from, that it comes
        from this server's own pages: Origin, when present, is this
        server's (http:// or https:// and the request's Host), and
        Sec-Fetch-Site, when present, is "same-origin".  Tools that send
        neither (curl) are judged by the value alone.
    Nothing here allocates; every argument is borrowed. */
#ifndef HEARTH_WEBFORM_H
#define HEARTH_WEBFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/webauth.h"

/* Characters of an anti-forgery value (hexadecimal). */
#define HEARTH_WEBFORM_VALUE_LEN 64

/* The form field that carries it. */
#define HEARTH_WEBFORM_FIELD "csrf"

/* The anti-forgery value of action (a POST's path) on the server auth
   admits for, into buf (size > HEARTH_WEBFORM_VALUE_LEN).  0, or -1
   (buf "") when libsodium cannot hash. */
int hearth_webform_value (const hearth_webauth_t *auth, const char *action,
                          char *buf, size_t size);

/* True when value (NULL: none) is action's anti-forgery value on that
   server, compared in constant time. */
bool hearth_webform_value_ok (const hearth_webauth_t *auth, const char *action,
                              const char *value);

/* NULL when a POST whose headers Origin, Sec-Fetch-Site and Host are
   origin, fetch_site and host (each NULL when absent) may come from a
   page of this server; else a short reason, for the 403 and the log. */
const char *hearth_webform_origin_why (const char *origin,
                                       const char *fetch_site,
                                       const char *host);

/* The value of field name in an application/x-www-form-urlencoded body
   of len bytes (no NUL needed), decoded ('+' is a space, %XX a byte),
   into buf.  0, or -1 when the field is absent, badly encoded, holds a
   NUL or does not fit size (a NUL included).  The first field of that
   name counts. */
int hearth_webform_field (const char *body, size_t len, const char *name,
                          char *buf, size_t size);

#endif

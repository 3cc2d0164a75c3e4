/*  web_int.h - what the web server (web.c) shares with what its handlers
    read of a request (webreq.c): the request as the server holds it,
    with the parts of the server a form's check uses (borrowed: webreq.c
    calls nothing of web.c).  Internal to libhearthweb. */
#ifndef HEARTH_WEB_INT_H
#define HEARTH_WEB_INT_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/mhdlib.h"
#include "libcore/refusals.h"
#include "libcore/web.h"
#include "libcore/webauth.h"

struct hearth_web_request {
    struct MHD_Connection *conn;  /* libmicrohttpd's (borrowed) */
    const char *method;           /* "GET"... */
    const char *path;             /* "/json" */
    const hearth_webauth_t *auth; /* the server's token and form key */
    hearth_refusals_t *refusals;  /* the server's refusal log */
    uint64_t *forbidden;          /* the server's count of 403s (stats) */
    const char *form;             /* a POST's body (borrowed), or NULL */
    size_t form_len;              /* its length */
};

#endif

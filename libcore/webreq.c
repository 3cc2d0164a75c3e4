/*  webreq.c - what a route handler reads of its request (web.h): its
    method, path, query, headers and client, a POST's form and the check
    of its anti-forgery value and origin (webform.h).  The request is
    the server's (web_int.h); libmicrohttpd is loaded by then (mhdlib.h). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

#include "libcore/web_int.h"
#include "libcore/webform.h"

/* libmicrohttpd's table: a request exists only once a server started,
   which loaded it. */
static const hearth_mhd_t *
s_mhd (void)
{
    return hearth_mhd (NULL);
}

const char *
hearth_web_method (const hearth_web_request_t *req)
{
    return req->method;
}

const char *
hearth_web_path (const hearth_web_request_t *req)
{
    return req->path;
}

const char *
hearth_web_arg (const hearth_web_request_t *req, const char *name)
{
    return s_mhd ()->lookup_connection_value (req->conn, MHD_GET_ARGUMENT_KIND,
                                              name);
}

const char *
hearth_web_header (const hearth_web_request_t *req, const char *name)
{
    return s_mhd ()->lookup_connection_value (req->conn, MHD_HEADER_KIND, name);
}

void
hearth_web_client (const hearth_web_request_t *req, char *buf, size_t size)
{
    const union MHD_ConnectionInfo *ci = s_mhd ()->get_connection_info (
        req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf (buf, size, "?");
    if (!ci || !ci->client_addr)
        return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop (AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, buf,
                   (socklen_t) size);
    else if (sa->sa_family == AF_INET6)
        inet_ntop (AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr,
                   buf, (socklen_t) size);
}

int
hearth_web_form (const hearth_web_request_t *req, const char *name, char *buf,
                 size_t size)
{
    if (!req->form) {
        buf[0] = '\0';
        return -1;
    }
    return hearth_webform_field (req->form, req->form_len, name, buf, size);
}

int
hearth_web_form_value (const hearth_web_request_t *req, const char *action,
                       char *buf, size_t size)
{
    return hearth_webform_value (req->auth, action, buf, size);
}

bool
hearth_web_form_check (const hearth_web_request_t *req, const char *action,
                       hearth_web_reply_t *rep)
{
    char value[HEARTH_WEBFORM_VALUE_LEN + 2], line[400];
    const char *about = "form-origin";
    const char *why = hearth_webform_origin_why (
        hearth_web_header (req, "Origin"),
        hearth_web_header (req, "Sec-Fetch-Site"),
        hearth_web_header (req, MHD_HTTP_HEADER_HOST));
    if (!why) {
        about = "form-value";
        if (hearth_web_form (req, HEARTH_WEBFORM_FIELD, value, sizeof value)
            < 0)
            why = "the form carries no anti-forgery value";
        else if (!hearth_webform_value_ok (req->auth, action, value))
            why = "the form's anti-forgery value is not this action's on "
                  "this server (a page of another site, or of this server "
                  "before it restarted: reload the page)";
    }
    if (!why)
        return true;
    char client[64];
    hearth_web_client (req, client, sizeof client);
    snprintf (line, sizeof line, "web action %.80s refused: %s", action, why);
    hearth_refusals_log (req->refusals, client, about, line);
    (*req->forbidden)++;
    hearth_web_reply_text (rep, 403, "403 forbidden: %s\n", why);
    return false;
}

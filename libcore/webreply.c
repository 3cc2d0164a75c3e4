/*  webreply.c - the replies route handlers fill (web.h): a status, a
    body the server takes, extra headers.  Apart from web.c, which sends
    them, because a reply is all a handler builds. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/log.h"
#include "libcore/web.h"

void
hearth_web_reply (hearth_web_reply_t *rep, int status, const char *type,
                  char *body, size_t len)
{
    free (rep->body);
    rep->status = status;
    rep->type = type;
    rep->body = body;
    rep->len = body ? len : 0;
}

void
hearth_web_reply_text (hearth_web_reply_t *rep, int status, const char *fmt,
                       ...)
{
    va_list ap;
    char *text = NULL;
    va_start (ap, fmt);
    int n = vasprintf (&text, fmt, ap);
    va_end (ap);
    if (n < 0)
        text = NULL;
    hearth_web_reply (rep, status, "text/plain; charset=utf-8", text,
                      n < 0 ? 0 : (size_t) n);
}

void
hearth_web_reply_html (hearth_web_reply_t *rep, char *page, int status)
{
    if (!page)
        hearth_web_reply_text (rep, 500, "500 out of memory\n");
    else
        hearth_web_reply (rep, status, "text/html; charset=utf-8", page,
                          strlen (page));
}

void
hearth_web_no_content (void *arg, const hearth_web_request_t *req,
                       hearth_web_reply_t *rep)
{
    (void) arg;
    (void) req;
    hearth_web_reply (rep, 204, NULL, NULL, 0);
}

void
hearth_web_reply_header (hearth_web_reply_t *rep, const char *name,
                         const char *value)
{
    if (rep->nheaders >= HEARTH_WEB_MAX_HEADERS
        || strlen (name) >= sizeof rep->headers[0].name
        || strlen (value) >= sizeof rep->headers[0].value) {
        log_warn ("web: reply header %.32s left out (too many, or too long)",
                  name);
        return;
    }
    snprintf (rep->headers[rep->nheaders].name, sizeof rep->headers[0].name,
              "%s", name);
    snprintf (rep->headers[rep->nheaders].value, sizeof rep->headers[0].value,
              "%s", value);
    rep->nheaders++;
}

/*  admin_web.h - hearth-admin's web-token and web-url: the token a
    daemon's web pages take, and their addresses with it, for a browser
    or a script (docs/security.md, "Web pages").

    The token is the one a server of this user takes: the first line of
    --web-token-file when it is given, else the one this user's local
    cookie gives (libcore/webauth.h, libcore/cookie.h).  Run as the user
    of the daemons (or with their token file), it opens their pages; any
    other user's token is refused there with 401.  The addresses come
    from the caller (the master's state, or URLs given). */
#ifndef HEARTH_ADMIN_WEB_H
#define HEARTH_ADMIN_WEB_H

#include <stdbool.h>
#include <stddef.h>

#include "libcore/conf.h"

/* True when arg is an address (http:// or https://) rather than a
   worker's name. */
bool admin_web_is_url (const char *arg);

/* web-token: print this user's token of the pages on stdout.  The exit
   status: 0, or 1 after saying why (a token file or a cookie that cannot
   be used). */
int admin_web_token (const hearth_conf_t *conf);

/* web-url: print each of the n urls (borrowed) on stdout, one a line,
   with ?token= (or &token=) and this user's token, escaped for a query.
   The exit status: 0, or 1 after saying why. */
int admin_web_urls (const hearth_conf_t *conf, const char *const *urls,
                    size_t n);

#endif

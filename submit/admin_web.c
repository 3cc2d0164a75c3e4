/*  admin_web.c - hearth-admin's web-token and web-url; see admin_web.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/ctlchars.h"
#include "libcore/webauth.h"
#include "submit/admin_web.h"
#include "submit/submit_request.h"

bool
admin_web_is_url (const char *arg)
{
    return strncmp (arg, "http://", 7) == 0
           || strncmp (arg, "https://", 8) == 0;
}

/* This user's token into auth, as a server of this user on loopback
   would take it.  0, or 1 after saying why. */
static int
s_token (const hearth_conf_t *conf, hearth_webauth_t *auth)
{
    hearth_error_t err;
    if (hearth_webauth_setup (auth, "127.0.0.1",
                              hearth_conf_str (conf, "web-token-file"), false,
                              &err)
        < 0)
        return submit_fail (1, "%s", err.text);
    return 0;
}

int
admin_web_token (const hearth_conf_t *conf)
{
    hearth_webauth_t auth;
    int rc = s_token (conf, &auth);
    if (rc == 0)
        printf ("%s\n", auth.token);
    hearth_webauth_clear (&auth);
    return rc;
}

/* Print url with the token as its query's last argument: the token's
   characters other than letters, digits and -._~ written %XX (a token
   file's may hold + / =, which a query would change). */
static void
s_print_url (const char *url, const char *token)
{
    /* "http://HOST:PORT" alone: its path, / */
    const char *scheme = strstr (url, "://");
    const char *host = scheme ? scheme + 3 : url;
    const char *sep = strchr (url, '?') ? "&" : strchr (host, '/') ? "?" : "/?";
    hearth_ctl_fprintf (stdout, "%s%stoken=", url, sep);
    for (const char *c = token; *c; c++)
        if (strchr ("-._~", *c) || (*c >= '0' && *c <= '9')
            || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))
            putchar (*c);
        else
            printf ("%%%02X", (unsigned char) *c);
    putchar ('\n');
}

int
admin_web_urls (const hearth_conf_t *conf, const char *const *urls, size_t n)
{
    hearth_webauth_t auth;
    int rc = s_token (conf, &auth);
    for (size_t i = 0; rc == 0 && i < n; i++)
        s_print_url (urls[i], auth.token);
    hearth_webauth_clear (&auth);
    return rc;
}

/*  webauth.c - who the web server admits; see webauth.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "libcore/cookie.h"
#include "libcore/curve.h"
#include "libcore/log.h"
#include "libcore/webauth.h"

bool
hearth_web_token_equal (const char *token, const char *expected)
{
    size_t a = strlen (token), b = strlen (expected);
    size_t n = a > b ? a : b;
    unsigned char diff = a != b;
    for (size_t i = 0; i < n; i++) {
        unsigned char x = i < a ? (unsigned char) token[i] : 0;
        unsigned char y = i < b ? (unsigned char) expected[i] : 0;
        diff |= x ^ y;
    }
    return diff == 0;
}

/* The first line of path, trimmed, into self->token. */
static int
s_read_token (hearth_webauth_t *self, const char *path, hearth_error_t *err)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return hearth_errprintf (err, "cannot read the web token file %s: %s",
                                 path, strerror (errno));
    char line[HEARTH_WEBAUTH_TOKEN_MAX + 2] = "";
    bool got = fgets (line, sizeof line, f) != NULL;
    fclose (f);
    line[strcspn (line, "\r\n")] = '\0';
    size_t n = strlen (line);
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        line[--n] = '\0';
    if (!got || n == 0)
        return hearth_errprintf (err, "the web token file %s is empty", path);
    if (n > HEARTH_WEBAUTH_TOKEN_MAX)
        return hearth_errprintf (err,
                                 "the web token in %s is longer than %d "
                                 "characters",
                                 path, HEARTH_WEBAUTH_TOKEN_MAX);
    if (strspn (line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                      "0123456789-._~+/=")
        != n)
        return hearth_errprintf (err,
                                 "the web token in %s has characters a "
                                 "cookie cannot carry (use letters, digits "
                                 "and -._~+/=)",
                                 path);
    memcpy (self->token, line, n + 1);
    return 0;
}

/* self->token from this user's local cookie (made when there is none,
   as a master makes it). */
static int
s_cookie_token (hearth_webauth_t *self, hearth_error_t *err)
{
    char cookie[HEARTH_COOKIE_LEN + 1];
    hearth_error_t cerr;
    bool ok = hearth_cookie_ensure (cookie, sizeof cookie, &cerr) == 0
              && hearth_cookie_web_token (cookie, self->token,
                                          sizeof self->token, &cerr)
                     == 0;
    /* volatile: the compiler may not drop a store to memory dead next */
    volatile char *p = cookie;
    for (size_t i = 0; i < sizeof cookie; i++)
        p[i] = 0;
    if (ok) {
        self->source = HEARTH_WEBAUTH_COOKIE;
        return 0;
    }
    hearth_errprintf (err,
                      "no token for the web pages: without --web-token-file "
                      "FILE they take this user's local cookie's, and %s",
                      cerr.text);
    errno = ENOKEY;
    return -1;
}

/* Who is admitted: the token file's, on loopback the cookie's, or
   everyone (--insecure beyond loopback). */
int
hearth_webauth_setup (hearth_webauth_t *self, const char *host,
                      const char *token_file, bool insecure,
                      hearth_error_t *err)
{
    memset (self, 0, sizeof *self);
    if (sodium_init () < 0)
        return hearth_errprintf (err, "libsodium did not start: no secret "
                                      "for the pages' forms");
    randombytes_buf (self->form_key, sizeof self->form_key);
    if (token_file && s_read_token (self, token_file, err) < 0)
        return -1;
    snprintf (self->host, sizeof self->host, "%s", host);
    self->loopback = hearth_host_is_loopback (host);
    if (self->token[0]) {
        self->source = HEARTH_WEBAUTH_FILE;
        return 0;
    }
    if (self->loopback)
        return s_cookie_token (self, err);
    if (!insecure) {
        hearth_errprintf (
            err,
            "refusing to serve web pages on %s without a token: anyone who "
            "reaches it could read the cluster's state and every log it "
            "serves.  Write a secret token to a file only this user can "
            "read and pass --web-token-file FILE, or pass --insecure to "
            "accept that risk",
            host);
        errno = EACCES;
        return -1;
    }
    log_warn ("INSECURE: serving web pages on %s without a token "
              "(--insecure): anyone who reaches it can read the cluster's "
              "state and the logs it serves.  To secure it, pass "
              "--web-token-file FILE",
              host);
    self->open = true;
    return 0;
}

int
hearth_webauth_check (const hearth_webauth_t *self, const char *authorization,
                      const char *cookie, const char *query_token)
{
    if (self->open)
        return 1;
    if (authorization && strncasecmp (authorization, "Bearer ", 7) == 0
        && hearth_web_token_equal (authorization + 7, self->token))
        return 1;
    if (cookie && hearth_web_token_equal (cookie, self->token))
        return 1;
    if (query_token && hearth_web_token_equal (query_token, self->token))
        return 2;
    return 0;
}

/* The host part of a Host header's value (the port and an IPv6
   address's brackets dropped) into buf; false when it is not of the
   form NAME, NAME:PORT, [ADDR] or [ADDR]:PORT. */
static bool
s_host_name (const char *value, char *buf, size_t size)
{
    const char *end, *port;
    if (value[0] == '[') {
        value++;
        if (!(end = strchr (value, ']')))
            return false;
        port = end + 1;
    }
    else {
        end = strchr (value, ':');
        port = end ? end : value + strlen (value);
        end = port;
    }
    if (*port == ':'
        && (!port[1] || strspn (port + 1, "0123456789") != strlen (port + 1)))
        return false;
    if (*port && *port != ':')
        return false;
    size_t n = (size_t) (end - value);
    if (n == 0 || n >= size)
        return false;
    memcpy (buf, value, n);
    buf[n] = '\0';
    return true;
}

bool
hearth_webauth_host_ok (const hearth_webauth_t *self, const char *host)
{
    char name[256];
    if (!self->loopback || !host)
        return true;
    if (!s_host_name (host, name, sizeof name))
        return false;
    /* "localhost" and the loopback addresses; hearth_host_is_loopback
       takes nothing else, so "localhost.example" is not one */
    return hearth_host_is_loopback (name) || strcasecmp (name, "localhost") == 0
           || strcasecmp (name, self->host) == 0;
}

void
hearth_webauth_clear (hearth_webauth_t *self)
{
    /* volatile: the compiler may not drop a store to memory freed next */
    volatile char *p = self->token;
    for (size_t i = 0; i < sizeof self->token; i++)
        p[i] = 0;
    sodium_memzero (self->form_key, sizeof self->form_key);
}

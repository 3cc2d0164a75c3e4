/*  webform.c - an action's anti-forgery value, the Origin rule, a form's
    fields; see webform.h. */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "libcore/webform.h"

/* What the hash takes before the token and the action, so that a value
   is never the hash of anything else keyed alike. */
static const char s_label[] = "hearth web form 1";

int
hearth_webform_value (const hearth_webauth_t *auth, const char *action,
                      char *buf, size_t size)
{
    uint8_t mac[HEARTH_WEBFORM_VALUE_LEN / 2];
    crypto_generichash_state st;
    _Static_assert(sizeof auth->form_key >= crypto_generichash_KEYBYTES_MIN,
                   "the form key is a BLAKE2b key");
    buf[0] = '\0';
    if (size <= HEARTH_WEBFORM_VALUE_LEN || sodium_init () < 0
        || crypto_generichash_init (&st, auth->form_key, sizeof auth->form_key,
                                    sizeof mac)
               != 0)
        return -1;
    /* the label, the token and the action, each with its NUL: no two
       (token, action) pairs hash the same bytes */
    crypto_generichash_update (&st, (const uint8_t *) s_label, sizeof s_label);
    crypto_generichash_update (&st, (const uint8_t *) auth->token,
                               strlen (auth->token) + 1);
    crypto_generichash_update (&st, (const uint8_t *) action,
                               strlen (action) + 1);
    crypto_generichash_final (&st, mac, sizeof mac);
    sodium_bin2hex (buf, size, mac, sizeof mac);
    sodium_memzero (mac, sizeof mac);
    return 0;
}

bool
hearth_webform_value_ok (const hearth_webauth_t *auth, const char *action,
                         const char *value)
{
    char want[HEARTH_WEBFORM_VALUE_LEN + 1];
    if (!value || strlen (value) != HEARTH_WEBFORM_VALUE_LEN
        || hearth_webform_value (auth, action, want, sizeof want) < 0)
        return false;
    bool ok = sodium_memcmp (want, value, HEARTH_WEBFORM_VALUE_LEN) == 0;
    sodium_memzero (want, sizeof want);
    return ok;
}

/* Whether origin is scheme://host for http or https. */
static bool
s_origin_is (const char *origin, const char *host)
{
    const char *rest = NULL;
    if (strncasecmp (origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp (origin, "https://", 8) == 0)
        rest = origin + 8;
    return rest && strcasecmp (rest, host) == 0;
}

const char *
hearth_webform_origin_why (const char *origin, const char *fetch_site,
                           const char *host)
{
    if (fetch_site && strcasecmp (fetch_site, "same-origin") != 0)
        return "the browser says the request comes from another site's "
               "page (Sec-Fetch-Site)";
    if (!origin)
        return NULL;
    if (!host || !host[0])
        return "the request names an Origin but no Host";
    if (!s_origin_is (origin, host))
        return "the request comes from another origin than this server's "
               "(Origin is not http:// or https:// and its Host; behind a "
               "proxy, pass the Host on)";
    return NULL;
}

/* The value of hex digit c, or -1. */
static int
s_hex (char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode the len bytes at s into buf (size with its NUL): 0 or -1. */
static int
s_decode (const char *s, size_t len, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char) s[i];
        if (c == '+')
            c = ' ';
        else if (c == '%') {
            int hi = i + 2 < len ? s_hex (s[i + 1]) : -1;
            int lo = hi >= 0 ? s_hex (s[i + 2]) : -1;
            c = lo < 0 ? 0 : hi * 16 + lo; /* a bad one as a NUL: refused */
            i += 2;
        }
        if (c == 0 || n + 1 >= size) {
            buf[0] = '\0';
            return -1;
        }
        buf[n++] = (char) c;
    }
    buf[n] = '\0';
    return 0;
}

int
hearth_webform_field (const char *body, size_t len, const char *name, char *buf,
                      size_t size)
{
    size_t nlen = strlen (name);
    const char *end = body + len;
    if (size == 0)
        return -1;
    buf[0] = '\0';
    for (const char *p = body; p < end;) {
        const char *amp = memchr (p, '&', (size_t) (end - p));
        const char *stop = amp ? amp : end;
        const char *eq = memchr (p, '=', (size_t) (stop - p));
        if (eq && (size_t) (eq - p) == nlen && memcmp (p, name, nlen) == 0)
            return s_decode (eq + 1, (size_t) (stop - eq - 1), buf, size);
        p = stop + 1;
    }
    return -1;
}

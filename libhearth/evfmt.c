/*  evfmt.c - the event log's JSON strings and numbers; see evfmt.h.

    Both run several times a task (on the writer thread since task events
    became binary records: evrec.c), so they are written by hand, with no
    call to memcpy of a variable length (each cost more than the digits):
    the digits are counted first, then written two a step.
*/
#include "config.h"

#include <string.h>

#include "libhearth/evfmt.h"

/* Whether byte c needs escaping in a JSON string (as the log writes it:
   DEL too, so that a terminal shows the line as it is). */
static inline int
s_special (unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\' || c == 0x7f;
}

char *
evfmt_string (char *o, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *) s, *end = p + len;
    *o++ = '"';
    for (; p < end; p++) {
        if (!s_special (*p))
            *o++ = (char) *p; /* a byte at a time: the strings are short */
        else if (*p == '"' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char) *p;
        }
        else if (*p == '\n') {
            *o++ = '\\';
            *o++ = 'n';
        }
        else {
            memcpy (o, "\\u00", 4);
            o[4] = hex[*p >> 4];
            o[5] = hex[*p & 15];
            o += 6;
        }
    }
    *o++ = '"';
    return o;
}

/* The decimal digits of u. */
static inline size_t
s_digits (uint64_t u)
{
    size_t n = 1;
    for (; u >= 10000; u /= 10000)
        n += 4;
    return n + (u >= 10) + (u >= 100) + (u >= 1000);
}

char *
evfmt_uint (char *o, uint64_t u)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324"
        "25262728293031323334353637383940414243444546474849"
        "50515253545556575859606162636465666768697071727374"
        "75767778798081828384858687888990919293949596979899";
    /* written backwards in place, two digits a step: no copy */
    char *end = o + s_digits (u), *p = end;
    while (u >= 100) {
        unsigned d = (unsigned) (u % 100) * 2;
        u /= 100;
        *--p = pairs[d + 1];
        *--p = pairs[d];
    }
    if (u >= 10) {
        *--p = pairs[u * 2 + 1];
        *--p = pairs[u * 2];
    }
    else
        *--p = (char) ('0' + u);
    return end;
}

char *
evfmt_int (char *o, int64_t value)
{
    if (value >= 0)
        return evfmt_uint (o, (uint64_t) value);
    *o++ = '-';
    return evfmt_uint (o, -(uint64_t) value);
}

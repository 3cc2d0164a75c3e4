/*  ctlchars.c - finding and escaping control characters; see ctlchars.h.

    hearth_ctl_find() runs on every log line (log.c) and every label field
    of every message (schema.c): it tests eight bytes at a time, and
    looks at bytes one by one only in a word that may hold one.
*/
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/ctlchars.h"

/* The length of the control character at p (1 for C0 and DEL, 2 for a
   C1 code in UTF-8), or 0 when p does not start one.  end bounds p. */
static size_t
s_ctl_len (const unsigned char *p, const unsigned char *end)
{
    if (*p < 0x20 || *p == 0x7f)
        return 1;
    if (*p == 0xc2 && p + 1 < end && p[1] >= 0x80 && p[1] <= 0x9f)
        return 2;
    return 0;
}

/* Bytes of a 64-bit word, for the test of eight at once. */
#define S_ONES 0x0101010101010101ULL
#define S_HIGHS 0x8080808080808080ULL

/* Whether none of the eight bytes of x is below 0x20, DEL or 0xc2 (a C1
   code's lead byte): the bit tricks of "Bit Twiddling Hacks" (Sean
   Eron Anderson), "determine if a word has a byte less than n" and
   "... equal to n", exact for "any byte". */
static bool
s_word_plain (uint64_t x)
{
    uint64_t del = x ^ (S_ONES * 0x7f), c2 = x ^ (S_ONES * 0xc2);
    uint64_t hits = ((x - S_ONES * 0x20) & ~x) | ((del - S_ONES) & ~del)
                    | ((c2 - S_ONES) & ~c2);
    return !(hits & S_HIGHS);
}

size_t
hearth_ctl_find (const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *) s, *end = p + len;
    size_t i = 0;
    while (i < len) {
        uint64_t x;
        if (i + 8 <= len) {
            memcpy (&x, p + i, 8);
            if (s_word_plain (x)) {
                i += 8;
                continue;
            }
        }
        /* a word with a candidate (often a 0xc2 of text, "°" or "©"),
           or the last bytes: one at a time */
        size_t stop = i + 8 < len ? i + 8 : len;
        for (; i < stop; i++)
            if (s_ctl_len (p + i, end))
                return i;
    }
    return len;
}

bool
hearth_ctl_has (const char *s)
{
    if (!s)
        return false;
    size_t len = strlen (s);
    return hearth_ctl_find (s, len) < len;
}

/* The escape of the control character at p of length n into out (at
   least HEARTH_CTL_ESCAPE_MAX + 1 bytes).  Returns its length. */
static int
s_escape_one (const unsigned char *p, size_t n, char *out)
{
    if (n == 2)
        return snprintf (out, HEARTH_CTL_ESCAPE_MAX + 1, "\\u00%02x", p[1]);
    if (*p == '\n')
        return snprintf (out, HEARTH_CTL_ESCAPE_MAX + 1, "\\n");
    if (*p == '\r')
        return snprintf (out, HEARTH_CTL_ESCAPE_MAX + 1, "\\r");
    if (*p == '\t')
        return snprintf (out, HEARTH_CTL_ESCAPE_MAX + 1, "\\t");
    return snprintf (out, HEARTH_CTL_ESCAPE_MAX + 1, "\\x%02x", *p);
}

int
hearth_ctl_check (const char *what, const char *s, hearth_error_t *err)
{
    size_t len = s ? strlen (s) : 0;
    size_t at = s ? hearth_ctl_find (s, len) : 0;
    if (at >= len)
        return 0;
    char esc[HEARTH_CTL_ESCAPE_MAX + 1];
    const unsigned char *p = (const unsigned char *) s + at;
    s_escape_one (p, s_ctl_len (p, (const unsigned char *) s + len), esc);
    return hearth_errprintf (err,
                             "%s%sa control character (%s) at byte %zu: a "
                             "name may hold none",
                             what ? what : "", what ? ": " : "", esc, at);
}

/* s escaped into buf (hearth_ctl_escape); with lines, newlines and tabs
   are copied as they are. */
static size_t
s_escape (char *buf, size_t size, const char *s, size_t len, bool lines)
{
    const unsigned char *p = (const unsigned char *) s, *end = p + len;
    size_t used = 0;
    while (p < end) {
        size_t plain = hearth_ctl_find ((const char *) p, (size_t) (end - p));
        size_t room = size - 1 - used;
        bool cut = plain > room;
        if (cut) {
            plain = room;
            /* never cut a UTF-8 character: back off its continuation
               bytes (at most 3) */
            for (int i = 0; i < 3 && plain > 0 && (p[plain] & 0xc0) == 0x80;
                 i++)
                plain--;
        }
        memcpy (buf + used, p, plain);
        used += plain;
        p += plain;
        if (cut || p == end)
            break;
        char esc[HEARTH_CTL_ESCAPE_MAX + 1];
        size_t n = s_ctl_len (p, end);
        bool keep = lines && (*p == '\n' || *p == '\t');
        int elen = keep ? 1 : s_escape_one (p, n, esc);
        if (keep)
            esc[0] = (char) *p;
        if ((size_t) elen > size - 1 - used)
            break;
        memcpy (buf + used, esc, (size_t) elen);
        used += (size_t) elen;
        p += n;
    }
    buf[used] = '\0';
    return used;
}

size_t
hearth_ctl_escape (char *buf, size_t size, const char *s, size_t len)
{
    return s_escape (buf, size, s, len, false);
}

char *
hearth_ctl_strdup (const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen (s);
    size_t size = len * 4 + 1; /* an escape is at most 4 bytes a byte */
    char *copy = malloc (size);
    if (!copy) {
        errno = ENOMEM;
        return NULL;
    }
    hearth_ctl_escape (copy, size, s, len);
    return copy;
}

/* Escape one member name in place (cJSON's memory: its allocator). */
static int
s_escape_key (cJSON *item)
{
    if (!item->string || !hearth_ctl_has (item->string))
        return 0;
    char *esc = hearth_ctl_strdup (item->string);
    char *copy = esc ? cJSON_malloc (strlen (esc) + 1) : NULL;
    if (!copy) {
        free (esc);
        errno = ENOMEM;
        return -1;
    }
    strcpy (copy, esc);
    free (esc);
    if (!(item->type & cJSON_StringIsConst))
        cJSON_free (item->string);
    item->type &= ~cJSON_StringIsConst;
    item->string = copy;
    return 0;
}

static int
s_escape_value (cJSON *item)
{
    if (!cJSON_IsString (item) || !hearth_ctl_has (item->valuestring))
        return 0;
    char *esc = hearth_ctl_strdup (item->valuestring);
    bool set = esc && cJSON_SetValuestring (item, esc);
    free (esc);
    if (!set)
        errno = ENOMEM;
    return set ? 0 : -1;
}

/* Escape first and its siblings, and all they hold. */
static int
s_escape_items (cJSON *first)
{
    for (cJSON *item = first; item; item = item->next)
        if (s_escape_key (item) < 0 || s_escape_value (item) < 0
            || s_escape_items (item->child) < 0)
            return -1;
    return 0;
}

int
hearth_ctl_escape_json (cJSON *tree)
{
    if (!tree)
        return 0;
    if (s_escape_key (tree) < 0 || s_escape_value (tree) < 0)
        return -1;
    return s_escape_items (tree->child);
}

/* The formatted text to out, escaped; a final newline (and with lines,
   every newline and tab) as it is. */
static int
s_vfprintf (FILE *out, bool lines, const char *fmt, va_list ap)
{
    char *text = NULL;
    if (vasprintf (&text, fmt, ap) < 0)
        return -1;
    size_t len = strlen (text);
    bool newline = len > 0 && text[len - 1] == '\n';
    size_t size = (len - newline) * 4 + 1;
    char *esc = malloc (size);
    int rc = -1;
    if (esc) {
        s_escape (esc, size, text, len - newline, lines);
        rc = fprintf (out, "%s%s", esc, newline ? "\n" : "");
    }
    free (esc);
    free (text);
    return rc;
}

int
hearth_ctl_vfprintf (FILE *out, const char *fmt, va_list ap)
{
    return s_vfprintf (out, false, fmt, ap);
}

int
hearth_ctl_fprintf (FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int rc = s_vfprintf (out, false, fmt, ap);
    va_end (ap);
    return rc;
}

int
hearth_ctl_fprintf_lines (FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int rc = s_vfprintf (out, true, fmt, ap);
    va_end (ap);
    return rc;
}

/*  jsonprint.c - cJSON_PrintUnformatted's output, faster; see jsonprint.h. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/jsonprint.h"

/* Integral numbers below this in magnitude print as plain digits with
   "%1.15g" (15 significant digits): the fast path prints them itself
   (not -0, which "%1.15g" prints with its sign). */
static const double s_plain_max = 1e15;

/* Room for n more bytes.  Returns false on no memory. */
static bool
s_room (hearth_jsonbuf_t *b, size_t n)
{
    if (b->len + n + 1 <= b->alloc)
        return true;
    size_t size = b->alloc ? b->alloc * 2 : 256;
    while (size < b->len + n + 1)
        size *= 2;
    char *data = b->heap ? realloc (b->heap, size) : malloc (size);
    if (!data)
        return false;
    if (!b->heap && b->len)
        memcpy (data, b->data, b->len);
    b->heap = b->data = data;
    b->alloc = size;
    return true;
}

static bool
s_put (hearth_jsonbuf_t *b, const char *text, size_t n)
{
    if (!s_room (b, n))
        return false;
    memcpy (b->data + b->len, text, n);
    b->len += n;
    return true;
}

/* cJSON's print_number. */
static bool
s_number (hearth_jsonbuf_t *b, double d)
{
    char text[32];
    int n;
    if (isnan (d) || isinf (d))
        return s_put (b, "null", 4);
    if (d == floor (d) && fabs (d) < s_plain_max && !(d == 0 && signbit (d))) {
        /* digits of the integer, as "%d" or "%1.15g" would print them */
        int64_t v = (int64_t) d;
        uint64_t u = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
        char *p = text + sizeof text;
        do
            *--p = (char) ('0' + u % 10);
        while ((u /= 10));
        if (v < 0)
            *--p = '-';
        return s_put (b, p, (size_t) (text + sizeof text - p));
    }
    /* cJSON's way: 15 digits unless they do not read back as d (within
       its compare_double's relative epsilon), else 17 */
    n = snprintf (text, sizeof text, "%1.15g", d);
    double back = 0;
    bool same =
        sscanf (text, "%lg", &back) == 1
        && fabs (back - d) <= fmax (fabs (back), fabs (d)) * DBL_EPSILON;
    if (!same)
        n = snprintf (text, sizeof text, "%1.17g", d);
    return n > 0 && s_put (b, text, (size_t) n);
}

/* cJSON's print_string_ptr. */
static bool
s_string (hearth_jsonbuf_t *b, const char *s)
{
    if (!s)
        return s_put (b, "\"\"", 2);
    if (!s_put (b, "\"", 1))
        return false;
    const char *run = s;
    for (const unsigned char *p = (const unsigned char *) s;; p++) {
        unsigned char c = *p;
        if (c >= 32 && c != '"' && c != '\\')
            continue;
        if (!s_put (b, run, (const char *) p - run))
            return false;
        if (c == '\0')
            break;
        char esc[8] = {'\\', 0};
        size_t n = 2;
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default:
            n = (size_t) snprintf (esc, sizeof esc, "\\u%04x", c);
        }
        if (!s_put (b, esc, n))
            return false;
        run = (const char *) p + 1;
    }
    return s_put (b, "\"", 1);
}

static bool
s_value (hearth_jsonbuf_t *b, const cJSON *v)
{
    switch (v->type & 0xff) {
    case cJSON_NULL:
        return s_put (b, "null", 4);
    case cJSON_False:
        return s_put (b, "false", 5);
    case cJSON_True:
        return s_put (b, "true", 4);
    case cJSON_Number:
        return s_number (b, v->valuedouble);
    case cJSON_String:
        return s_string (b, v->valuestring);
    case cJSON_Raw:
        return v->valuestring
               && s_put (b, v->valuestring, strlen (v->valuestring));
    case cJSON_Array:
    case cJSON_Object: {
        bool object = (v->type & 0xff) == cJSON_Object;
        if (!s_put (b, object ? "{" : "[", 1))
            return false;
        for (const cJSON *c = v->child; c; c = c->next) {
            if (c != v->child && !s_put (b, ",", 1))
                return false;
            if (object && !(s_string (b, c->string) && s_put (b, ":", 1)))
                return false;
            if (!s_value (b, c))
                return false;
        }
        return s_put (b, object ? "}" : "]", 1);
    }
    default:
        return false; /* cJSON_Invalid: cJSON prints nothing */
    }
}

void
hearth_jsonbuf_init (hearth_jsonbuf_t *buf, char *stack, size_t size)
{
    *buf = (hearth_jsonbuf_t){.data = stack, .alloc = stack ? size : 0};
}

bool
hearth_json_put (hearth_jsonbuf_t *buf, const char *text, size_t len)
{
    return s_put (buf, text, len);
}

bool
hearth_json_put_string (hearth_jsonbuf_t *buf, const char *s)
{
    return s_string (buf, s);
}

bool
hearth_json_put_number (hearth_jsonbuf_t *buf, double d)
{
    return s_number (buf, d);
}

bool
hearth_json_put_value (hearth_jsonbuf_t *buf, const cJSON *json)
{
    return json && s_value (buf, json);
}

const char *
hearth_jsonbuf_finish (hearth_jsonbuf_t *buf)
{
    if (!s_room (buf, 0))
        return NULL;
    buf->data[buf->len] = '\0';
    return buf->data;
}

const char *
hearth_json_print (const cJSON *json, hearth_jsonbuf_t *buf, char *stack,
                   size_t size)
{
    hearth_jsonbuf_init (buf, stack, size);
    if (!hearth_json_put_value (buf, json))
        return NULL;
    return hearth_jsonbuf_finish (buf);
}

void
hearth_jsonbuf_release (hearth_jsonbuf_t *buf)
{
    free (buf->heap);
    buf->heap = NULL;
}

/*  evline.c - one event-log line as spans of its members; see evline.h.

    A small recursive-descent checker of RFC 8259 JSON that keeps the
    spans of the top object's members.  Depth is bounded so that a hostile
    line of brackets cannot exhaust the stack.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/evline.h"

/* Nesting deeper than this is refused (the format has two levels). */
static const int s_max_depth = 64;

static const struct {
    const char *name;
    hist_kind_t kind;
} s_kinds[] = {
    {"log_start", HIST_EV_LOG_START},
    {"app_start", HIST_EV_APP_START},
    {"app_end", HIST_EV_APP_END},
    {"job_start", HIST_EV_JOB_START},
    {"job_end", HIST_EV_JOB_END},
    {"stage_start", HIST_EV_STAGE_START},
    {"stage_end", HIST_EV_STAGE_END},
    {"task_start", HIST_EV_TASK_START},
    {"task_end", HIST_EV_TASK_END},
    {"executor_added", HIST_EV_EXEC_ADDED},
    {"executor_removed", HIST_EV_EXEC_REMOVED},
    {"events_dropped", HIST_EV_DROPPED},
    {"app_resumed", HIST_EV_APP_RESUMED},
    {"stage_skipped", HIST_EV_STAGE_SKIPPED},
};

hist_kind_t
hist_kind_of (const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof s_kinds / sizeof s_kinds[0]; i++)
        if (strlen (s_kinds[i].name) == len
            && memcmp (s_kinds[i].name, s, len) == 0)
            return s_kinds[i].kind;
    return HIST_EV_OTHER;
}

/* ---- the checker: each returns the position after the value, or NULL */

static const char *s_value (const char *p, const char *end, int depth);

static const char *
s_ws (const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

static const char *
s_string (const char *p, const char *end)
{
    if (p >= end || *p != '"')
        return NULL;
    for (p++; p < end; p++) {
        unsigned char c = (unsigned char) *p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            if (++p >= end)
                return NULL;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (p + i >= end || !strchr ("0123456789abcdefABCDEF", p[i])
                        || !p[i])
                        return NULL;
                p += 4;
            }
            else if (!strchr ("\"\\/bfnrt", *p) || !*p)
                return NULL;
        }
    }
    return NULL;
}

static const char *
s_digits (const char *p, const char *end)
{
    const char *q = p;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    return q > p ? q : NULL;
}

static const char *
s_number (const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0')
        p++;
    else if (!(p = s_digits (p, end)))
        return NULL;
    if (p < end && *p == '.' && !(p = s_digits (p + 1, end)))
        return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (!(p = s_digits (p, end)))
            return NULL;
    }
    return p;
}

static const char *
s_literal (const char *p, const char *end, const char *word)
{
    size_t n = strlen (word);
    return (size_t) (end - p) >= n && memcmp (p, word, n) == 0 ? p + n : NULL;
}

/* An array or object's members after the opening bracket. */
static const char *
s_members (const char *p, const char *end, int depth, bool object)
{
    char close = object ? '}' : ']';
    p = s_ws (p, end);
    if (p < end && *p == close)
        return p + 1;
    for (;;) {
        if (object) {
            if (!(p = s_string (p, end)))
                return NULL;
            p = s_ws (p, end);
            if (p >= end || *p != ':')
                return NULL;
            p = s_ws (p + 1, end);
        }
        if (!(p = s_value (p, end, depth + 1)))
            return NULL;
        p = s_ws (p, end);
        if (p < end && *p == close)
            return p + 1;
        if (p >= end || *p != ',')
            return NULL;
        p = s_ws (p + 1, end);
    }
}

static const char *
s_value (const char *p, const char *end, int depth)
{
    if (p >= end || depth > s_max_depth)
        return NULL;
    switch (*p) {
    case '"':
        return s_string (p, end);
    case '{':
        return s_members (p + 1, end, depth, true);
    case '[':
        return s_members (p + 1, end, depth, false);
    case 't':
        return s_literal (p, end, "true");
    case 'f':
        return s_literal (p, end, "false");
    case 'n':
        return s_literal (p, end, "null");
    default:
        return s_number (p, end);
    }
}

/* ---- the top object ------------------------------------------------------ */

static bool
s_key_is (const hist_field_t *f, const char *key)
{
    size_t n = strlen (key);
    return f->key_len == n && memcmp (f->key, key, n) == 0;
}

/* The kind and time of a parsed line, from its members. */
static int
s_head (hist_line_t *out)
{
    const hist_field_t *ev = hist_line_get (out, "event");
    if (!ev || ev->val_len < 2 || ev->val[0] != '"')
        return -1;
    out->kind = hist_kind_of (ev->val + 1, ev->val_len - 2);
    out->time_ms = hist_line_int_or (out, "time_ms", -1);
    return 0;
}

int
hist_line_parse (const char *text, size_t len, hist_line_t *out)
{
    const char *p = text, *end = text + len;
    out->nfields = 0;
    out->kind = HIST_EV_OTHER;
    out->time_ms = -1;
    p = s_ws (p, end);
    if (p >= end || *p != '{')
        return -1;
    p = s_ws (p + 1, end);
    if (p < end && *p == '}')
        return -1; /* no "event" */
    for (;;) {
        const char *k = p;
        if (!(p = s_string (p, end)))
            return -1;
        const char *kend = p;
        p = s_ws (p, end);
        if (p >= end || *p != ':')
            return -1;
        p = s_ws (p + 1, end);
        const char *v = p;
        if (!(p = s_value (p, end, 1)))
            return -1;
        if (out->nfields < HIST_LINE_FIELDS)
            out->field[out->nfields++] = (hist_field_t){
                k + 1, (size_t) (kend - k - 2), v, (size_t) (p - v)};
        p = s_ws (p, end);
        if (p < end && *p == '}')
            break;
        if (p >= end || *p != ',')
            return -1;
        p = s_ws (p + 1, end);
    }
    if (s_ws (p + 1, end) != end)
        return -1; /* something after the object */
    return s_head (out);
}

const hist_field_t *
hist_line_get (const hist_line_t *l, const char *key)
{
    for (int i = 0; i < l->nfields; i++)
        if (s_key_is (&l->field[i], key))
            return &l->field[i];
    return NULL;
}

bool
hist_line_int (const hist_line_t *l, const char *key, int64_t *v)
{
    const hist_field_t *f = hist_line_get (l, key);
    if (!f || f->val_len == 0 || f->val_len > 20)
        return false;
    char buf[24];
    memcpy (buf, f->val, f->val_len);
    buf[f->val_len] = '\0';
    char *e;
    errno = 0;
    long long n = strtoll (buf, &e, 10);
    if (errno || *e || e == buf)
        return false;
    *v = n;
    return true;
}

int64_t
hist_line_int_or (const hist_line_t *l, const char *key, int64_t dflt)
{
    int64_t v;
    return hist_line_int (l, key, &v) ? v : dflt;
}

bool
hist_line_true (const hist_line_t *l, const char *key)
{
    const hist_field_t *f = hist_line_get (l, key);
    return f && f->val_len == 4 && memcmp (f->val, "true", 4) == 0;
}

bool
hist_line_is (const hist_line_t *l, const char *key, const char *s)
{
    const hist_field_t *f = hist_line_get (l, key);
    size_t n = strlen (s);
    if (!f || f->val_len < 2 || f->val[0] != '"')
        return false;
    if (!memchr (f->val, '\\', f->val_len))
        return f->val_len == n + 2 && memcmp (f->val + 1, s, n) == 0;
    char *u = hist_json_unescape (f->val, f->val_len);
    bool same = u && strcmp (u, s) == 0;
    free (u);
    return same;
}

char *
hist_cap (char *s)
{
    static const char more[] = "...";
    size_t n = strlen (s);
    if (n <= HIST_MAX_STR)
        return s;
    n = HIST_MAX_STR - (sizeof more - 1);
    while (n > 0 && ((unsigned char) s[n] & 0xc0) == 0x80)
        n--; /* s[n], a continuation byte, is not where a character starts */
    memcpy (s + n, more, sizeof more);
    return s;
}

char *
hist_line_str (const hist_line_t *l, const char *key)
{
    const hist_field_t *f = hist_line_get (l, key);
    char *s = f ? hist_json_unescape (f->val, f->val_len) : NULL;
    return s ? hist_cap (s) : NULL;
}

/* Member key of a task_end, or dflt (format 2's default) when absent. */
static bool
s_task_is (const hist_line_t *l, const char *key, const char *dflt,
           const char *s)
{
    return hist_line_get (l, key) ? hist_line_is (l, key, s)
                                  : strcmp (dflt, s) == 0;
}

static void
s_task_word (const hist_line_t *l, const char *key, const char *dflt, char *dst,
             size_t size)
{
    if (!hist_line_get (l, key)) {
        snprintf (dst, size, "%s", dflt);
        return;
    }
    char *s = hist_line_str (l, key);
    snprintf (dst, size, "%s", s ? s : "");
    free (s);
}

bool
hist_task_state_is (const hist_line_t *l, const char *s)
{
    return s_task_is (l, "state", "FINISHED", s);
}

bool
hist_task_outcome_is (const hist_line_t *l, const char *s)
{
    return s_task_is (l, "outcome", "accepted", s);
}

void
hist_task_state (const hist_line_t *l, char *dst, size_t size)
{
    s_task_word (l, "state", "FINISHED", dst, size);
}

void
hist_task_outcome (const hist_line_t *l, char *dst, size_t size)
{
    s_task_word (l, "outcome", "accepted", dst, size);
}

/* ---- unescaping ---------------------------------------------------------- */

static int
s_hex4 (const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v = v * 16
            + (c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                      : c - 'A' + 10);
    }
    return v;
}

static char *
s_utf8 (char *o, unsigned cp)
{
    if (cp < 0x80)
        *o++ = (char) cp;
    else if (cp < 0x800) {
        *o++ = (char) (0xc0 | cp >> 6);
        *o++ = (char) (0x80 | (cp & 0x3f));
    }
    else if (cp < 0x10000) {
        *o++ = (char) (0xe0 | cp >> 12);
        *o++ = (char) (0x80 | (cp >> 6 & 0x3f));
        *o++ = (char) (0x80 | (cp & 0x3f));
    }
    else {
        *o++ = (char) (0xf0 | cp >> 18);
        *o++ = (char) (0x80 | (cp >> 12 & 0x3f));
        *o++ = (char) (0x80 | (cp >> 6 & 0x3f));
        *o++ = (char) (0x80 | (cp & 0x3f));
    }
    return o;
}

char *
hist_json_unescape (const char *val, size_t len)
{
    if (len < 2 || val[0] != '"' || s_string (val, val + len) != val + len)
        return NULL;
    char *out = malloc (len), *o = out; /* never longer than the text */
    if (!out)
        return NULL;
    const char *p = val + 1, *end = val + len - 1;
    while (p < end) {
        if (*p != '\\') {
            *o++ = *p++;
            continue;
        }
        char c = p[1];
        p += 2;
        if (c != 'u') {
            *o++ = c == 'b'   ? '\b'
                   : c == 'f' ? '\f'
                   : c == 'n' ? '\n'
                   : c == 'r' ? '\r'
                   : c == 't' ? '\t'
                              : c;
            continue;
        }
        unsigned cp = (unsigned) s_hex4 (p);
        p += 4;
        if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 && p[0] == '\\'
            && p[1] == 'u') {
            unsigned lo = (unsigned) s_hex4 (p + 2);
            if (lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
        }
        if (cp == 0)
            cp = 0xfffd; /* a NUL would cut the C string */
        o = s_utf8 (o, cp);
    }
    *o = '\0';
    return out;
}

/*  jobfast.c - simple tasks read without the JSON parser; see
    jobfast.h.

    A cursor over the bytes and one function per piece of the grammar,
    each false at the first byte it does not take; the task is stored
    only once it has been read whole.
*/
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "jobfile/jobfast.h"

/* Most strings of a "cmd" taken here (a longer one is the parser's). */
enum { S_MAX_ARGV = 16 };

/* Where the reading is. */
typedef struct {
    const char *p;    /* the next byte */
    const char *end;  /* past the last */
    size_t newlines;  /* '\n' passed */
    const char *line; /* just after the last of them, or NULL */
} s_cur_t;

/* A task read: its strings, as jobstore_append() takes them. */
typedef struct {
    const char *strs[S_MAX_ARGV]; /* each one's first byte */
    size_t lens[S_MAX_ARGV];      /* its length */
    size_t n;                     /* strings */
    int fn, arg;                  /* index of fn's and arg's, -1: none */
    bool cmd;                     /* a command: strs is its argv */
    bool braces;                  /* a string holds a '{' */
} s_task_t;

/* What a byte is inside a string read here: S_STOP ends it ('"') or
   makes it the parser's (a backslash, a control character); S_BRACE is
   a '{', which the store's placeholder notes (jobstore.h). */
enum { S_STOP = 0, S_PLAIN = 1, S_BRACE = 3 };
static const unsigned char s_class[256] = {
    /* gnu11's ranges; the rest (controls, '"' 0x22, '\\' 0x5c) S_STOP */
    [0x20 ... 0x21] = S_PLAIN, [0x23 ... 0x5b] = S_PLAIN,
    [0x5d ... 0x7a] = S_PLAIN, ['{'] = S_BRACE,
    [0x7c ... 0xff] = S_PLAIN,
};

/* Past the whitespace yajl and cJSON both skip (yajl's \v and \f stay
   the parser's). */
static void
s_ws (s_cur_t *c)
{
    for (; c->p < c->end; c->p++) {
        if (*c->p == '\n') {
            c->newlines++;
            c->line = c->p + 1;
        }
        else if (*c->p != ' ' && *c->p != '\t' && *c->p != '\r')
            return;
    }
}

/* Byte ch, after whitespace. */
static inline bool
s_byte (s_cur_t *c, char ch)
{
    if (c->p < c->end && *c->p == ch) { /* most often: no whitespace */
        c->p++;
        return true;
    }
    s_ws (c);
    if (c->p == c->end || *c->p != ch)
        return false;
    c->p++;
    return true;
}

/* A string after whitespace, without escapes or control characters
   (which yajl decodes or refuses): its bytes at *s, *len of them;
   *braces set when it holds a '{'. */
static bool
s_string (s_cur_t *c, const char **s, size_t *len, bool *braces)
{
    if (!s_byte (c, '"'))
        return false;
    const unsigned char *p = (const unsigned char *) c->p;
    const unsigned char *end = (const unsigned char *) c->end;
    unsigned seen = S_PLAIN;
    while (p < end && s_class[*p] != S_STOP)
        seen |= s_class[*p++];
    if (p == end || *p != '"')
        return false;
    *s = c->p;
    *len = (size_t) ((const char *) p - c->p);
    *braces |= seen == S_BRACE;
    c->p = (const char *) p + 1;
    return true;
}

/* "cmd"'s array, its ':' read. */
static bool
s_cmd (s_cur_t *c, s_task_t *t)
{
    t->cmd = true;
    if (!s_byte (c, '['))
        return false;
    do {
        if (t->n == S_MAX_ARGV
            || !s_string (c, &t->strs[t->n], &t->lens[t->n], &t->braces))
            return false;
        t->n++;
    } while (s_byte (c, ','));
    return s_byte (c, ']') && s_byte (c, '}');
}

/* `, {TASK}` with TASK simple. */
static bool
s_task (s_cur_t *c, s_task_t *t)
{
    *t = (s_task_t){.fn = -1, .arg = -1};
    if (!s_byte (c, ',') || !s_byte (c, '{'))
        return false;
    do {
        const char *k;
        size_t len;
        bool key_braces = false;
        if (!s_string (c, &k, &len, &key_braces) || !s_byte (c, ':'))
            return false;
        if (len == 3 && memcmp (k, "cmd", 3) == 0 && t->n == 0)
            return s_cmd (c, t); /* alone */
        int *slot = len == 2 && memcmp (k, "fn", 2) == 0    ? &t->fn
                    : len == 3 && memcmp (k, "arg", 3) == 0 ? &t->arg
                                                            : NULL;
        if (!slot || *slot >= 0
            || !s_string (c, &t->strs[t->n], &t->lens[t->n], &t->braces))
            return false;
        *slot = (int) t->n++;
    } while (t->n < 2 && s_byte (c, ','));
    return s_byte (c, '}') && t->fn >= 0 && t->lens[t->fn] > 0;
}

/* Store task t as jobstream.c stores a simple task. */
static int
s_store (const s_task_t *t, jobstore_t *store, cJSON *tasks)
{
    if (t->cmd)
        return jobstore_append_plain (store, tasks, JOBTASK_CMD, t->strs,
                                      t->lens, t->n, t->braces);
    int fn = t->fn, arg = 1 - fn; /* fn first in a record */
    const char *strs[] = {t->strs[fn], t->strs[arg]};
    size_t lens[] = {t->lens[fn], t->lens[arg]};
    return jobstore_append_plain (store, tasks,
                                  t->n == 2 ? JOBTASK_FN_ARG : JOBTASK_FN, strs,
                                  lens, t->n, t->braces);
}

int
jobfast_read (const char *text, size_t n, jobstore_t *store, cJSON *tasks,
              jobfast_took_t *took)
{
    s_cur_t c = {text, text + n, 0, NULL};
    s_task_t t;
    *took = (jobfast_took_t){0, 0, 0};
    while (s_task (&c, &t)) {
        if (s_store (&t, store, tasks) < 0)
            return -1;
        took->used = (size_t) (c.p - text);
        took->newlines = c.newlines;
        took->tail = (size_t) (c.p - (c.line ? c.line : text));
    }
    return 0;
}

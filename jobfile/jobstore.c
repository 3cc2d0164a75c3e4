/*  jobstore.c - a job file's simple tasks out of its tree; see
    jobstore.h.

    One growing buffer of records, each a small header (kind, number of
    strings) and the strings, NUL-terminated.  A placeholder holds its
    run's first offset, so the buffer may move as it grows; the records of
    a run are consecutive.
*/
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobstore.h"

/* A record's header (copied in and out: records are not aligned). */
typedef struct {
    uint32_t kind; /* jobtask_kind_t */
    uint32_t n;    /* strings after it */
} s_head_t;

struct jobstore {
    char *data;        /* the records */
    size_t len;        /* bytes used */
    size_t size;       /* bytes allocated */
    const cJSON *tail; /* the placeholder of the last record appended, whose
                          run may grow (compared, never read) */
};

jobstore_t *
jobstore_new (void)
{
    return calloc (1, sizeof (jobstore_t));
}

void
jobstore_destroy (jobstore_t **self_p)
{
    jobstore_t *self = *self_p;
    if (!self)
        return;
    free (self->data);
    free (self);
    *self_p = NULL;
}

/* Room for more bytes at the end; false on no memory. */
static bool
s_reserve (jobstore_t *self, size_t more)
{
    if (self->len + more <= self->size)
        return true;
    size_t size = self->size ? self->size : 64 * 1024;
    while (size < self->len + more)
        size *= 2;
    char *data = realloc (self->data, size);
    if (!data)
        return false;
    self->data = data;
    self->size = size;
    return true;
}

/* Room for a record of n strings, bytes long in all with its header, at
   the end; the header written, its offset in *at.  Where its strings
   go, or NULL on no memory. */
static inline char *
s_begin (jobstore_t *self, jobtask_kind_t kind, size_t n, size_t bytes,
         size_t *at)
{
    if (n > UINT32_MAX || !s_reserve (self, bytes))
        return NULL;
    *at = self->len;
    s_head_t h = {(uint32_t) kind, (uint32_t) n};
    memcpy (self->data + *at, &h, sizeof h);
    return self->data + *at + sizeof h;
}

/* Append a record; its offset, or -1 on no memory.  lens may be NULL
   (strings NUL-terminated).  *braces set when a string holds a '{'. */
static double
s_append (jobstore_t *self, jobtask_kind_t kind, const char *const *strs,
          const size_t *lens, size_t n, bool *braces)
{
    size_t bytes = sizeof (s_head_t), at;
    for (size_t i = 0; i < n; i++)
        bytes += (lens ? lens[i] : strlen (strs[i])) + 1;
    char *o = s_begin (self, kind, n, bytes, &at);
    if (!o)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t len = lens ? lens[i] : strlen (strs[i]);
        const char *nul = memchr (strs[i], '\0', len);
        if (nul)
            len = (size_t) (nul - strs[i]); /* cut there, as cJSON does */
        memcpy (o, strs[i], len);
        o[len] = '\0';
        *braces |= memchr (o, '{', len) != NULL;
        o += len + 1;
    }
    self->len = (size_t) (o - self->data);
    return (double) at;
}

/* The record just appended at at, into tasks: its last node's run when
   that is the run of the store's last append (last as the caller saw it
   before appending), else a new placeholder.  0, or -1 on no memory. */
static int
s_link (jobstore_t *self, cJSON *tasks, cJSON *last, double at, bool braces)
{
    if (last && last == self->tail && last->valueint < INT32_MAX) {
        last->valueint++;
        last->type |= braces ? JOBTASK_BRACES : 0;
        return 0;
    }
    cJSON *node = cJSON_CreateNull ();
    if (!node || !cJSON_AddItemToArray (tasks, node)) {
        cJSON_Delete (node);
        return -1;
    }
    node->type = cJSON_Raw | (braces ? JOBTASK_BRACES : 0); /* no
                                              valuestring: a placeholder */
    node->valuedouble = at;
    node->valueint = 1;
    self->tail = node;
    return 0;
}

int
jobstore_append (jobstore_t *self, cJSON *tasks, jobtask_kind_t kind,
                 const char *const *strs, const size_t *lens, size_t n)
{
    cJSON *last = tasks->child ? tasks->child->prev : NULL;
    bool braces = false;
    double at = s_append (self, kind, strs, lens, n, &braces);
    return at < 0 ? -1 : s_link (self, tasks, last, at, braces);
}

int
jobstore_append_plain (jobstore_t *self, cJSON *tasks, jobtask_kind_t kind,
                       const char *const *strs, const size_t *lens, size_t n,
                       bool braces)
{
    cJSON *last = tasks->child ? tasks->child->prev : NULL;
    size_t bytes = sizeof (s_head_t), at;
    for (size_t i = 0; i < n; i++)
        bytes += lens[i] + 1;
    char *o = s_begin (self, kind, n, bytes, &at);
    if (!o)
        return -1;
    for (size_t i = 0; i < n; i++) {
        memcpy (o, strs[i], lens[i]);
        o[lens[i]] = '\0';
        o += lens[i] + 1;
    }
    self->len += bytes;
    return s_link (self, tasks, last, (double) at, braces);
}

int
jobstore_append_block (jobstore_t *self, cJSON *tasks, jobtask_kind_t kind,
                       const char *block, size_t bytes, size_t n)
{
    cJSON *last = tasks->child ? tasks->child->prev : NULL;
    size_t at;
    char *o = s_begin (self, kind, n, sizeof (s_head_t) + bytes, &at);
    if (!o)
        return -1;
    memcpy (o, block, bytes);
    self->len += sizeof (s_head_t) + bytes;
    return s_link (self, tasks, last, (double) at,
                   memchr (block, '{', bytes) != NULL);
}

jobtask_view_t
jobstore_view (const jobstore_t *self, size_t *at)
{
    s_head_t h;
    memcpy (&h, self->data + *at, sizeof h);
    jobtask_view_t v = {.kind = (jobtask_kind_t) h.kind,
                        .n = h.n,
                        .first = self->data + *at + sizeof h};
    const char *end = v.first;
    for (size_t i = 0; i < v.n; i++)
        end = jobtask_next (end);
    *at = (size_t) (end - self->data);
    return v;
}

size_t
jobstore_end (const jobstore_t *self)
{
    return self->len;
}

int
jobstore_copy (jobstore_t *self, size_t at)
{
    size_t next = at;
    jobstore_view (self, &next);
    size_t bytes = next - at;
    if (!s_reserve (self, bytes))
        return -1;
    memcpy (self->data + self->len, self->data + at, bytes);
    self->len += bytes;
    self->tail = NULL;
    return 0;
}

int
jobstore_put (jobstore_t *self, jobtask_kind_t kind, const char *const *strs,
              size_t n)
{
    bool braces = false; /* the run's flag stays as it was */
    self->tail = NULL;
    return s_append (self, kind, strs, NULL, n, &braces) < 0 ? -1 : 0;
}

void
jobstore_move (cJSON *node, size_t first)
{
    node->valuedouble = (double) first;
}

/* One record as the object the file wrote. */
static cJSON *
s_expand_one (const jobtask_view_t *v)
{
    cJSON *task = cJSON_CreateObject ();
    bool ok = task != NULL;
    const char *s = v->first;
    if (ok && v->kind == JOBTASK_CMD) {
        cJSON *cmd = cJSON_AddArrayToObject (task, "cmd");
        ok = cmd != NULL;
        for (size_t i = 0; ok && i < v->n; i++, s = jobtask_next (s))
            ok = cJSON_AddItemToArray (cmd, cJSON_CreateString (s));
    }
    else if (ok) {
        ok = cJSON_AddStringToObject (task, "fn", s) != NULL;
        if (ok && v->kind == JOBTASK_FN_ARG)
            ok =
                cJSON_AddStringToObject (task, "arg", jobtask_next (s)) != NULL;
    }
    if (!ok)
        cJSON_Delete (task);
    return ok ? task : NULL;
}

cJSON *
jobstore_expand (const jobstore_t *self, const cJSON *node)
{
    cJSON *tasks = cJSON_CreateArray ();
    size_t at = jobtask_first (node);
    for (size_t k = 0; tasks && k < jobtask_span (node); k++) {
        jobtask_view_t v = jobstore_view (self, &at);
        if (!cJSON_AddItemToArray (tasks, s_expand_one (&v))) {
            cJSON_Delete (tasks);
            return NULL;
        }
    }
    return tasks;
}

size_t
jobstore_bytes (const jobstore_t *self)
{
    return self->len;
}

char *
jobstore_data (const jobstore_t *self, size_t *len)
{
    *len = self->len;
    return self->data;
}

void
jobstore_release (jobstore_t *self)
{
    *self = (jobstore_t){.data = NULL};
}

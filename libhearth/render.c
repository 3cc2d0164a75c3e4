/*  render.c - one task's wire form, made from its group's templates at
    launch time ("{i}" becomes the task's index within its group), so that
    a stage of a million tasks stores a template, not a million argvs.
    Tasks are packed (libcore/packed.h); render_task's JSON form is what
    the driver falls back to when a task does not fit the packed limits
    (a function's argument over 64 KiB, which then travels in a binary
    frame of its own), and what a task that needs custom resources
    travels in (the packed form has no field for them). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libhearth/internal.h"

char *
render_template (const char *text, uint64_t i)
{
    const char *hit = strstr (text, "{i}");
    if (!hit)
        return strdup (text);
    char number[24];
    int nlen = snprintf (number, sizeof number, "%" PRIu64, i);
    size_t hits = 0;
    for (const char *p = hit; p; p = strstr (p + 3, "{i}"))
        hits++;
    size_t len = strlen (text) + hits * (nlen - 3) + 1;
    char *out = malloc (len), *o = out;
    if (!out)
        return NULL;
    const char *p = text;
    for (; (hit = strstr (p, "{i}")); p = hit + 3) {
        memcpy (o, p, hit - p);
        o += hit - p;
        memcpy (o, number, nlen);
        o += nlen;
    }
    strcpy (o, p);
    return out;
}

/* A function's argument, rendered, into task t of msg: "arg" (its bytes
   added to *bytes), or past what the body carries, a binary frame of msg
   ("arg_frame"; binary data never in JSON strings).  Returns 0 or -1. */
static int
s_add_arg (cJSON *t, hearth_msg_t *msg, const char *text, uint64_t i,
           size_t *bytes)
{
    char *r = strstr (text, "{i}") ? render_template (text, i) : NULL;
    const char *arg = r ? r : text;
    size_t len = strlen (arg);
    int rc = -1;
    if (len <= HEARTH_TASK_ARG_MAX) {
        rc = cJSON_AddStringToObject (t, "arg", arg) ? 0 : -1;
        *bytes += len;
    }
    else {
        int index = hearth_msg_add_bytes (msg, arg, len);
        rc = index >= 0 && cJSON_AddNumberToObject (t, "arg_frame", index) ? 0
                                                                           : -1;
    }
    free (r);
    return rc;
}

/* The argv, rendered; its bytes added to *bytes.  NULL on no memory. */
static cJSON *
s_render_argv (char *const *argv, uint64_t i, size_t *bytes)
{
    cJSON *array = cJSON_CreateArray ();
    for (size_t k = 0; array && argv[k]; k++) {
        char *r = render_template (argv[k], i);
        cJSON *s = r ? cJSON_CreateString (r) : NULL;
        *bytes += r ? strlen (r) + 1 : 0;
        free (r);
        if (!s) {
            cJSON_Delete (array);
            return NULL;
        }
        cJSON_AddItemToArray (array, s);
    }
    return array;
}

static cJSON *
s_render_env (char *const *env, uint64_t i, size_t *bytes)
{
    cJSON *map = cJSON_CreateObject ();
    for (size_t k = 0; map && env[k]; k++) {
        char *r = render_template (env[k], i);
        char *eq = r ? strchr (r, '=') : NULL;
        *bytes += r ? strlen (r) + 1 : 0;
        if (eq) {
            *eq = '\0';
            cJSON_AddStringToObject (map, r, eq + 1);
        }
        free (r);
    }
    return map;
}

/* Render text into buf (size bytes) without allocating.  Returns buf, or
   NULL when it does not fit. */
static const char *
s_render_into (char *buf, size_t size, const char *text, uint64_t i)
{
    const char *hit = strstr (text, "{i}");
    if (!hit)
        return text;
    char number[24];
    int nlen = snprintf (number, sizeof number, "%" PRIu64, i);
    size_t o = 0;
    const char *p = text;
    for (; hit; p = hit + 3, hit = strstr (p, "{i}")) {
        size_t chunk = (size_t) (hit - p);
        if (o + chunk + (size_t) nlen >= size)
            return NULL;
        memcpy (buf + o, p, chunk);
        memcpy (buf + o + chunk, number, nlen);
        o += chunk + (size_t) nlen;
    }
    size_t rest = strlen (p);
    if (o + rest >= size)
        return NULL;
    memcpy (buf + o, p, rest + 1);
    return buf;
}

/* A growing run of NUL-terminated strings, on the stack while small. */
typedef struct {
    char *data;   /* the strings */
    size_t len;   /* bytes used */
    size_t alloc; /* bytes at data */
    char *heap;   /* data once it left the stack, else NULL */
} s_strings_t;

/* Append text with "{i}" rendered as i, and a NUL.  Returns 0 or -1. */
static int
s_append (s_strings_t *b, const char *text, uint64_t i)
{
    char *r = render_template (text, i);
    size_t n = r ? strlen (r) + 1 : 0;
    if (r && b->len + n > b->alloc) {
        size_t size = b->alloc * 2;
        while (size < b->len + n)
            size *= 2;
        char *data = realloc (b->heap, size);
        if (data && !b->heap)
            memcpy (data, b->data, b->len);
        if (data)
            b->heap = b->data = data, b->alloc = size;
    }
    int rc = r && b->len + n <= b->alloc ? 0 : -1;
    if (rc == 0)
        memcpy (b->data + b->len, r, n), b->len += n;
    free (r);
    return rc;
}

int
render_packed (hearth_packer_t *packer, const hearth_stage_t *stage,
               uint64_t index, int attempt)
{
    const task_group_t *g = stage_group (stage, index);
    uint64_t i = index - g->first;
    hearth_packed_task_t t = {.tid = DRIVER_TID (stage->uid, index),
                              .attempt = attempt,
                              .input = -1,
                              .timeout_ms =
                                  g->timeout_ms > 0 ? g->timeout_ms : 0};
    char buf[1024], stack[1024];
    char *big = NULL;
    s_strings_t strings = {stack, 0, sizeof stack, NULL};
    int rc = 0;
    if (g->argv) { /* a command: argv, then "NAME=VALUE" entries */
        for (size_t k = 0; rc == 0 && g->argv[k]; k++, t.argc++)
            rc = s_append (&strings, g->argv[k], i);
        for (size_t k = 0; rc == 0 && g->env && g->env[k]; k++, t.envc++)
            rc = s_append (&strings, g->env[k], i);
        t.strings = strings.data;
        t.strings_len = strings.len;
    }
    else {
        t.fn = g->fn;
        t.arg = s_render_into (buf, sizeof buf, g->arg, i);
        if (!t.arg)
            t.arg = big = render_template (g->arg, i);
        /* a larger one goes in a frame of its own: render_task */
        rc = t.arg && strlen (t.arg) <= HEARTH_TASK_ARG_MAX ? 0 : -1;
    }
    if (rc == 0)
        rc = hearth_packer_add_task (packer, &t);
    free (big);
    free (strings.heap);
    return rc;
}

int
render_task (hearth_msg_t *msg, cJSON *tasks, const hearth_stage_t *stage,
             uint64_t index, int attempt, size_t *bytes)
{
    const task_group_t *g = stage_group (stage, index);
    uint64_t i = index - g->first;
    cJSON *t = cJSON_CreateObject ();
    if (!t)
        return -1;
    cJSON_AddNumberToObject (t, "tid", (double) DRIVER_TID (stage->uid, index));
    cJSON_AddNumberToObject (t, "attempt", attempt);
    int rc = 0;
    if (g->argv) {
        cJSON *argv = s_render_argv (g->argv, i, bytes);
        rc = argv && cJSON_AddItemToObject (t, "cmd", argv) ? 0 : -1;
        if (rc == 0 && g->env) {
            cJSON *env = s_render_env (g->env, i, bytes);
            rc = env && cJSON_AddItemToObject (t, "env", env) ? 0 : -1;
        }
    }
    else {
        rc = cJSON_AddStringToObject (t, "fn", g->fn) ? 0 : -1;
        if (rc == 0 && g->arg[0])
            rc = s_add_arg (t, msg, g->arg, i, bytes);
    }
    if (g->timeout_ms > 0)
        cJSON_AddNumberToObject (t, "timeout_ms", (double) g->timeout_ms);
    if (rc == 0 && stage->resources.n) {
        cJSON *res = hearth_resource_amounts_to_json (&stage->resources);
        rc = res && cJSON_AddItemToObject (t, "resources", res) ? 0 : -1;
    }
    cJSON_AddItemToArray (tasks, t);
    return rc;
}

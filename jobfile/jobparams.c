/*  jobparams.c - a job file's placeholders; see jobparams.h (its
    environments and lines files are jobenv.c's).

    Filling is one pass over each string, never over what was put in, so
    a value holding braces (a path "a{b}.txt", a param "{x}") is never
    read as a placeholder.  A foreach task's strings are filled in two
    steps: jobparams_apply() fills the params and arguments and keeps
    the text escaped (every literal "{" as "{{"), jobparams_finish() then
    puts in the item and unescapes; so the file's tree holds one copy of
    the task, not one per item.
*/
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfile/jobparams.h"

/* Where a string is, which says the placeholders it may hold. */
typedef enum {
    S_JOB,     /* outside any task: params, {argN}, {submit_dir} */
    S_TASK,    /* a task's string: and {i} */
    S_FOREACH, /* a foreach task's string: and {item}; kept escaped */
} s_where_t;

/* What strings are filled with. */
typedef struct {
    jobstore_t *store;           /* the file's simple tasks */
    const cJSON *params;         /* NAME: value, defaults overridden */
    const jobparams_input_t *in; /* arguments, submit dir */
    const char *submit_dir;      /* absolute */
} s_vars_t;

/* Where in the file a string is, for error messages only: a chain from
   the string up to the root, formatted ("stages[0].tasks[12].arg") only
   when a message needs it, so that filling 200,000 tasks formats no
   location at all. */
typedef struct s_place {
    const struct s_place *up; /* the enclosing place, or NULL */
    const char *key;          /* a member's name, or NULL for an index */
    int index;                /* an element's index (key NULL) */
} s_place_t;

/* The place as text into buf (which it returns). */
static const char *
s_place_text (const s_place_t *p, char *buf, size_t size)
{
    if (!p) {
        buf[0] = '\0';
        return buf;
    }
    s_place_text (p->up, buf, size);
    size_t n = strlen (buf);
    if (p->key)
        snprintf (buf + n, size - n, "%s%s", n ? "." : "", p->key);
    else
        snprintf (buf + n, size - n, "[%d]", p->index);
    return buf;
}

/* A growing string. */
typedef struct {
    char *data;  /* the text, NUL-terminated while ok */
    size_t len;  /* bytes used, without the NUL */
    size_t size; /* bytes at data */
    bool failed; /* an allocation failed */
} s_buf_t;

static void
s_put (s_buf_t *b, const char *text, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->size) {
        size_t size = b->size ? b->size * 2 : 64;
        while (size < b->len + n + 1)
            size *= 2;
        char *data = realloc (b->data, size);
        if (!data) {
            b->failed = true;
            return;
        }
        b->data = data;
        b->size = size;
    }
    memcpy (b->data + b->len, text, n);
    b->len += n;
    b->data[b->len] = '\0';
}

/* Put value, its braces doubled when escaped. */
static void
s_put_value (s_buf_t *b, const char *value, bool escaped)
{
    for (const char *p = value; *p; p++)
        s_put (b, *p == '{' && escaped ? "{{" : p,
               *p == '{' && escaped ? 2 : 1);
}

/* The length of the identifier at p followed by '}' (or of "item.N",
   N digits), or 0. */
static size_t
s_name_len (const char *p)
{
    if (!isalpha ((unsigned char) *p) && *p != '_')
        return 0;
    size_t n = 1;
    while (isalnum ((unsigned char) p[n]) || p[n] == '_')
        n++;
    if (n == 4 && strncmp (p, "item", 4) == 0 && p[n] == '.')
        while (isdigit ((unsigned char) p[++n]))
            ;
    return p[n] == '}' ? n : 0;
}

/* The index N of "argN" (name of len bytes), or -1. */
static long
s_arg_index (const char *name, size_t len)
{
    if (len < 4 || strncmp (name, "arg", 3) != 0)
        return -1;
    long n = 0;
    for (size_t i = 3; i < len; i++) {
        if (!isdigit ((unsigned char) name[i]) || n > 100000000)
            return -1;
        n = n * 10 + (name[i] - '0');
    }
    return n;
}

/* The N of "item.N" (len bytes; N decimal, at most 4 digits), or -1. */
static long
s_item_field (const char *name, size_t len)
{
    if (len < 6 || len > 9 || strncmp (name, "item.", 5) != 0)
        return -1;
    long n = 0;
    for (size_t i = 5; i < len; i++) {
        if (!isdigit ((unsigned char) name[i]))
            return -1;
        n = n * 10 + (name[i] - '0');
    }
    return n;
}

/* Whether name is {item} or {item.N}. */
static bool
s_is_item (const char *name, size_t len)
{
    return (len == 4 && !strncmp (name, "item", 4))
           || s_item_field (name, len) >= 0;
}

static bool
s_reserved (const char *name, size_t len)
{
    return (len == 1 && name[0] == 'i') || s_is_item (name, len)
           || (len == 10 && !strncmp (name, "submit_dir", 10))
           || s_arg_index (name, len) >= 0;
}

/* Fill placeholder name (len bytes) into b.  Returns 0, or -1 with err. */
static int
s_fill (const s_vars_t *v, s_buf_t *b, const char *name, size_t len,
        s_where_t where, const s_place_t *at, hearth_error_t *err)
{
    char place[256];
    bool escaped = where == S_FOREACH;
    long argn = s_arg_index (name, len);
    char key[128];
    snprintf (key, sizeof key, "%.*s", (int) (len < 100 ? len : 100), name);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive (v->params, key);
    if ((len == 1 && name[0] == 'i') || s_is_item (name, len)) {
        bool item = len > 1;
        if (where == S_JOB || (item && where != S_FOREACH))
            return hearth_errprintf (err, "%s: {%s} is only known in a task%s",
                                     s_place_text (at, place, sizeof place),
                                     key, item ? " with \"foreach\"" : "");
        s_put (b, name - 1, len + 2); /* {i} for the library, {item} and
                                         {item.N} later */
    }
    else if (len == 10 && !strncmp (name, "submit_dir", 10))
        s_put_value (b, v->submit_dir, escaped);
    else if (argn >= 0) {
        if ((size_t) argn >= v->in->nargs)
            return hearth_errprintf (err,
                                     "%s: {%s}: the job was given %zu "
                                     "argument%s",
                                     s_place_text (at, place, sizeof place),
                                     key, v->in->nargs,
                                     v->in->nargs == 1 ? "" : "s");
        s_put_value (b, v->in->args[argn], escaped);
    }
    else if (p && len < 100)
        s_put_value (b, p->valuestring, escaped);
    else if (len == 4 && !strncmp (name, "iter", 4)) /* joblist.c fills it */
        return hearth_errprintf (err,
                                 "%s: {iter} is only known in the stages and "
                                 "\"env\" of a job with \"repeat\" (in a "
                                 "file of \"jobs\")",
                                 s_place_text (at, place, sizeof place));
    else
        return hearth_errprintf (
            err,
            "%s: unknown {%s}: not a param of the job, "
            "{i}, {item}, {item.N} (N: 0 to 9999), {argN} or "
            "{submit_dir} (write "
            "{{ for a literal {)",
            s_place_text (at, place, sizeof place), key);
    return 0;
}

/* text filled for where; a new string in *out.  Returns 0 or -1. */
static int
s_render (const s_vars_t *v, const char *text, s_where_t where,
          const s_place_t *at, char **out, hearth_error_t *err)
{
    s_buf_t b = {0};
    bool escaped = where == S_FOREACH;
    s_put (&b, "", 0);
    for (const char *p = text; *p;) {
        const char *brace = strchr (p, '{');
        size_t plain = brace ? (size_t) (brace - p) : strlen (p);
        s_put (&b, p, plain);
        if (!brace)
            break;
        size_t len = s_name_len (brace + 1);
        if (brace[1] == '{' || !len) {
            bool literal_i = brace[1] == '{' && where != S_JOB
                             && strncmp (brace + 2, "i}", 2) == 0;
            if (literal_i) {
                char place[256];
                free (b.data);
                return hearth_errprintf (
                    err,
                    "%s: a literal {i} cannot be "
                    "written: every {i} of a task "
                    "becomes its index",
                    s_place_text (at, place, sizeof place));
            }
            s_put (&b, "{{", escaped ? 2 : 1);
            p = brace + (brace[1] == '{' ? 2 : 1);
            continue;
        }
        if (s_fill (v, &b, brace + 1, len, where, at, err) < 0) {
            free (b.data);
            return -1;
        }
        p = brace + len + 2;
    }
    if (b.failed) {
        free (b.data);
        return hearth_errprintf (err, "out of memory");
    }
    *out = b.data;
    return 0;
}

/* Fill every string under node in place; at names node. */
static int
s_render_tree (const s_vars_t *v, cJSON *node, s_where_t where,
               const s_place_t *at, hearth_error_t *err)
{
    int i = 0;
    for (cJSON *c = node->child; c; c = c->next, i++) {
        s_place_t sub = {at, cJSON_IsArray (node) ? NULL : c->string, i};
        if (c->child && s_render_tree (v, c, where, &sub, err) < 0)
            return -1;
        if (!cJSON_IsString (c) || !strchr (c->valuestring, '{'))
            continue;
        char *r = NULL;
        if (s_render (v, c->valuestring, where, &sub, &r, err) < 0)
            return -1;
        bool ok = cJSON_SetValuestring (c, r) != NULL;
        free (r);
        if (!ok)
            return hearth_errprintf (err, "out of memory");
    }
    return 0;
}

/* A task's members: "cmd", "fn", "arg", "env" and "prefer" are per
   item. */
static int
s_render_task (const s_vars_t *v, cJSON *task, const s_place_t *place,
               hearth_error_t *err)
{
    static const char *const per_item[] = {"cmd", "fn",     "arg",
                                           "env", "prefer", NULL};
    bool each = cJSON_HasObjectItem (task, "foreach");
    for (cJSON *c = task->child; c; c = c->next) {
        bool item = false;
        for (int k = 0; per_item[k]; k++)
            item |= strcmp (c->string, per_item[k]) == 0;
        s_where_t where = !item ? S_JOB : each ? S_FOREACH : S_TASK;
        /* One member at a time through a one-member object. */
        cJSON holder = {.child = c, .type = cJSON_Object};
        cJSON *next = c->next;
        c->next = NULL;
        int rc = s_render_tree (v, &holder, where, place, err);
        c->next = next;
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Free n strings and their array (NULL: nothing). */
static void
s_free_strings (char **strs, size_t n)
{
    for (size_t i = 0; strs && i < n; i++)
        free (strs[i]);
    free (strs);
}

/* Whether a stored task has a string to fill. */
static bool
s_has_brace (const jobtask_view_t *t)
{
    const char *s = t->first;
    for (size_t i = 0; i < t->n; i++, s = jobtask_next (s))
        if (strchr (s, '{'))
            return true;
    return false;
}

/* The strings of stored task t filled (a new array of new strings in
 *out); *changed when any differs.  place is the task's.  0 or -1. */
static int
s_fill_stored (const s_vars_t *v, const jobtask_view_t *t,
               const s_place_t *place, char ***out, bool *changed,
               hearth_error_t *err)
{
    bool cmd = t->kind == JOBTASK_CMD;
    s_place_t member = {place, cmd ? "cmd" : "fn", 0};
    char **strs = calloc (t->n, sizeof *strs);
    int rc = strs ? 0 : hearth_errprintf (err, "out of memory");
    const char *s = t->first;
    for (size_t i = 0; rc == 0 && i < t->n; i++, s = jobtask_next (s)) {
        s_place_t at = cmd ? (s_place_t){&member, NULL, (int) i}
                           : (s_place_t){place, i ? "arg" : "fn", 0};
        if (!strchr (s, '{'))
            rc = (strs[i] = strdup (s))
                     ? 0
                     : hearth_errprintf (err, "out of memory");
        else if ((rc = s_render (v, s, S_TASK, &at, &strs[i], err)) == 0)
            *changed |= strcmp (strs[i], s) != 0;
    }
    if (rc < 0)
        s_free_strings (strs, t->n);
    else
        *out = strs;
    return rc;
}

/* A run of stored tasks (jobstore.h) filled as tasks' strings, from
   index first of its stage (in_tasks).  Nearly always no string holds a
   '{' (the placeholder says so: the run is not read), or only {i}, which
   stays: nothing is copied.  Else the run is written again, filled. */
static int
s_render_stored (const s_vars_t *v, cJSON *node, const s_place_t *in_tasks,
                 int first, hearth_error_t *err)
{
    size_t at = jobtask_first (node), n = jobtask_span (node);
    bool changed = false;
    if (!jobtask_has_braces (node))
        return 0;
    for (size_t k = 0; k < n && !changed; k++) {
        jobtask_view_t t = jobstore_view (v->store, &at);
        s_place_t tp = {in_tasks, NULL, first + (int) k};
        char **strs = NULL;
        if (s_has_brace (&t)
            && s_fill_stored (v, &t, &tp, &strs, &changed, err) < 0)
            return -1;
        s_free_strings (strs, t.n);
    }
    if (!changed)
        return 0;
    size_t start = jobstore_end (v->store);
    at = jobtask_first (node);
    for (size_t k = 0; k < n; k++) {
        size_t rec = at;
        jobtask_view_t t = jobstore_view (v->store, &at);
        s_place_t tp = {in_tasks, NULL, first + (int) k};
        char **strs = NULL;
        bool differs = false;
        int rc = !s_has_brace (&t) ? jobstore_copy (v->store, rec)
                 : s_fill_stored (v, &t, &tp, &strs, &differs, err) < 0
                     ? -2
                     : jobstore_put (v->store, t.kind,
                                     (const char *const *) strs, t.n);
        s_free_strings (strs, t.n);
        if (rc == -2)
            return -1;
        if (rc < 0)
            return hearth_errprintf (err, "out of memory");
    }
    jobstore_move (node, start);
    return 0;
}

static int
s_render_job (const s_vars_t *v, cJSON *root, hearth_error_t *err)
{
    for (cJSON *c = root->child; c; c = c->next) {
        if (strcmp (c->string, "params") == 0)
            continue; /* values, not templates */
        bool stages = strcmp (c->string, "stages") == 0 && cJSON_IsArray (c);
        cJSON holder = {.child = c, .type = cJSON_Object};
        cJSON *next = c->next;
        int rc = 0;
        c->next = NULL;
        if (!stages) /* env values may hold {i}: they are a task's */
            rc = s_render_tree (v, &holder,
                                strcmp (c->string, "env") ? S_JOB : S_TASK,
                                NULL, err);
        c->next = next;
        if (rc < 0)
            return -1;
        s_place_t in_stages = {NULL, "stages", 0};
        int s = 0;
        for (cJSON *st = stages ? c->child : NULL; st; st = st->next, s++) {
            s_place_t stage = {&in_stages, NULL, s};
            for (cJSON *m = cJSON_IsObject (st) ? st->child : NULL; m;
                 m = m->next) {
                bool tasks =
                    strcmp (m->string, "tasks") == 0 && cJSON_IsArray (m);
                s_place_t in_tasks = {&stage, "tasks", 0};
                int t = 0;
                for (cJSON *task = tasks ? m->child : NULL; task;
                     t += (int) jobtask_span (task), task = task->next) {
                    s_place_t tp = {&in_tasks, NULL, t};
                    if (cJSON_IsObject (task)
                        && s_render_task (v, task, &tp, err) < 0)
                        return -1;
                    if (jobtask_is_stored (task)
                        && s_render_stored (v, task, &in_tasks, t, err) < 0)
                        return -1;
                }
                if (tasks)
                    continue;
                cJSON one = {.child = m, .type = cJSON_Object};
                cJSON *after = m->next;
                m->next = NULL;
                rc = s_render_tree (v, &one,
                                    strcmp (m->string, "env") ? S_JOB : S_TASK,
                                    &stage, err);
                m->next = after;
                if (rc < 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* ---- params ------------------------------------------------------------- */

/* root's "params", checked, into a new object with in's values. */
static cJSON *
s_params (const cJSON *root, const jobparams_input_t *in, hearth_error_t *err)
{
    const cJSON *decl = cJSON_GetObjectItemCaseSensitive (root, "params");
    if (decl && !cJSON_IsObject (decl)) {
        hearth_errprintf (err, "params: expected an object of strings");
        return NULL;
    }
    const cJSON *p;
    cJSON_ArrayForEach (p, decl)
    {
        size_t len = strlen (p->string);
        bool ident =
            len > 0 && len < 100
            && (isalpha ((unsigned char) p->string[0]) || p->string[0] == '_');
        for (size_t i = 1; ident && i < len; i++)
            ident =
                isalnum ((unsigned char) p->string[i]) || p->string[i] == '_';
        if (!ident) {
            hearth_errprintf (err,
                              "params.%s: a name is letters, digits and '_' "
                              "(not starting with a digit), under 100",
                              p->string);
            return NULL;
        }
        if (s_reserved (p->string, len)) {
            hearth_errprintf (err, "params.%s: a name Hearth fills itself",
                              p->string);
            return NULL;
        }
        if (!cJSON_IsString (p)) {
            hearth_errprintf (err, "params.%s: expected a string", p->string);
            return NULL;
        }
    }
    cJSON *params = decl ? cJSON_Duplicate (decl, 1) : cJSON_CreateObject ();
    for (size_t i = 0; params && i < in->nparams; i++) {
        const char *eq = strchr (in->params[i], '=');
        char name[128];
        size_t len = eq ? (size_t) (eq - in->params[i]) : 0;
        snprintf (name, sizeof name, "%.*s", (int) (len < 100 ? len : 100),
                  in->params[i]);
        if (!eq || len == 0)
            hearth_errprintf (err, "--param %.100s: expected NAME=VALUE",
                              in->params[i]);
        else if (len >= 100 || !cJSON_HasObjectItem (params, name))
            hearth_errprintf (err,
                              "--param %s: the job file declares no such "
                              "param (\"params\": {\"%s\": \"DEFAULT\"})",
                              name, name);
        else if (cJSON_ReplaceItemInObjectCaseSensitive (
                     params, name, cJSON_CreateString (eq + 1)))
            continue;
        else
            hearth_errprintf (err, "out of memory");
        cJSON_Delete (params);
        return NULL;
    }
    if (!params)
        hearth_errprintf (err, "out of memory");
    return params;
}

int
jobparams_apply (cJSON *root, jobstore_t *store, const jobparams_input_t *in,
                 hearth_error_t *err)
{
    char cwd[4096];
    const char *dir = in->submit_dir;
    if (!dir && !(dir = getcwd (cwd, sizeof cwd)))
        return hearth_errprintf (err, "cannot tell the current directory: %s",
                                 strerror (errno));
    cJSON *params = s_params (root, in, err);
    if (!params)
        return -1;
    s_vars_t v = {
        .store = store, .params = params, .in = in, .submit_dir = dir};
    int rc = s_render_job (&v, root, err);
    cJSON_Delete (params);
    return rc;
}

/* At brace, "{item.N}": put field N of item (its TAB-separated fields,
   from 0; empty past its last), set *after past it, and say so. */
static bool
s_put_item_field (s_buf_t *b, const char *brace, const char *item,
                  const char **after)
{
    const char *close = strchr (brace, '}');
    long n =
        close ? s_item_field (brace + 1, (size_t) (close - brace - 1)) : -1;
    if (n < 0)
        return false;
    const char *field = item;
    for (; n > 0 && field; n--) {
        field = strchr (field, '\t');
        field = field ? field + 1 : NULL;
    }
    if (field) {
        const char *end = strchr (field, '\t');
        s_put (b, field, end ? (size_t) (end - field) : strlen (field));
    }
    *after = close + 1;
    return true;
}

char *
jobparams_finish (const char *text, const char *item)
{
    s_buf_t b = {0};
    s_put (&b, "", 0);
    for (const char *p = text; *p;) {
        const char *brace = strchr (p, '{');
        s_put (&b, p, brace ? (size_t) (brace - p) : strlen (p));
        if (!brace)
            break;
        if (brace[1] == '{') {
            s_put (&b, "{", 1);
            p = brace + 2;
        }
        else if (item && strncmp (brace, "{item}", 6) == 0) {
            s_put (&b, item, strlen (item));
            p = brace + 6;
        }
        else if (item && s_put_item_field (&b, brace, item, &p))
            ;
        else {
            s_put (&b, "{", 1);
            p = brace + 1;
        }
    }
    if (b.failed) {
        free (b.data);
        return NULL;
    }
    return b.data;
}

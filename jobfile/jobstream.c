/*  jobstream.c - a job file read as a stream; see jobstream.h.

    yajl calls back for each value, key and bracket.  A stack of frames
    follows where the parser is: the root object, its "stages" array (or
    its "jobs" array, a job object, and the job's "stages"), a stage
    object, its "tasks" array, and there a candidate task, whose
    keys and strings are collected without any cJSON node.  When the
    candidate ends simple, it goes to the store; as soon as it cannot be
    (another key, a key twice, a value that is not a string, a nested
    value in "cmd"), it is promoted: what was collected becomes cJSON
    nodes in the file's order, and the rest of it is built as any other
    value.
*/
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "jobfile/jobescape.h"
#include "jobfile/jobfast.h"
#include "jobfile/jobstream.h"

/* Bytes read at once by default. */
static const size_t s_default_chunk = 256 * 1024;
/* Deepest nesting followed (yajl's own limit is 128). */
enum { S_MAX_DEPTH = 128 };

/* What a container is, for the tasks' sake. */
typedef enum {
    R_OTHER,  /* any other container: built as a tree */
    R_ROOT,   /* the job object */
    R_JOBS,   /* the root's "jobs" array (a file of several jobs) */
    R_JOB,    /* a job object of it */
    R_STAGES, /* the root's (or a job's) "stages" array */
    R_STAGE,  /* a stage object */
    R_TASKS,  /* a stage's "tasks" array */
    R_CAND,   /* a task object not yet known not to be simple */
    R_CMD,    /* the candidate's "cmd" array */
} s_role_t;

typedef struct {
    s_role_t role; /* what it is */
    cJSON *node;   /* its node (NULL for R_CAND and R_CMD) */
} s_frame_t;

/* The candidate task: its members in the file's order.  Its strings are
   kept as a store's record keeps them (jobstore.h), so that a simple
   task goes to the store in one copy. */
typedef struct {
    char keys[3];  /* 'f' fn, 'a' arg, 'c' cmd, in order seen */
    int nkeys;     /* of keys */
    char *buf;     /* the strings, each cut at a NUL and NUL-terminated,
                      one after another */
    size_t len;    /* bytes used */
    size_t size;   /* bytes allocated */
    size_t *offs;  /* where each string starts: fn, arg, then cmd's */
    size_t nstr;   /* strings */
    size_t nalloc; /* of offs */
    int fn, arg;   /* index of fn's and arg's string, -1: none */
    int cmd0;      /* index of cmd's first string, -1: no cmd */
    int cmd_end;   /* one past its last, once its array is closed, or -1 */
} s_cand_t;

typedef struct {
    s_frame_t stack[S_MAX_DEPTH + 1]; /* the open containers */
    int depth;                        /* frames used */
    char *key;                        /* the pending key, or NULL */
    char ckey;                        /* a candidate's pending key: 'f',
                                         'a', 'c' (no copy made), or 0 */
    cJSON *root;                      /* the first value */
    jobstore_t *store;                /* the simple tasks */
    s_cand_t cand;                    /* the open candidate */
    yajl_handle h;                    /* the parser */
    size_t task_end;                  /* bytes of the piece fed to h up to
                                         the end of the last task of a
                                         "tasks" array in it, or 0 */
    bool after_task;                  /* h has read up to the end of a
                                         task: jobfast.h reads on */
} s_parser_t;

/* ---- the candidate ---------------------------------------------------- */

static void
s_cand_reset (s_cand_t *c)
{
    c->nkeys = 0;
    c->len = 0;
    c->nstr = 0;
    c->fn = c->arg = c->cmd0 = c->cmd_end = -1;
}

/* Keep a string of the candidate, cut at a NUL as cJSON cuts strings.
   0 or -1 (no memory). */
static int
s_cand_string (s_cand_t *c, const unsigned char *s, size_t len)
{
    const unsigned char *nul = memchr (s, '\0', len);
    if (nul)
        len = (size_t) (nul - s);
    if (c->len + len + 1 > c->size) {
        size_t size = c->size ? c->size : 256;
        while (size < c->len + len + 1)
            size *= 2;
        char *buf = realloc (c->buf, size);
        if (!buf)
            return -1;
        c->buf = buf;
        c->size = size;
    }
    if (c->nstr == c->nalloc) {
        size_t n = c->nalloc ? c->nalloc * 2 : 16;
        size_t *offs = realloc (c->offs, n * sizeof *offs);
        if (!offs)
            return -1;
        c->offs = offs;
        c->nalloc = n;
    }
    c->offs[c->nstr++] = c->len;
    memcpy (c->buf + c->len, s, len);
    c->buf[c->len + len] = '\0';
    c->len += len + 1;
    return 0;
}

/* String i of the candidate. */
static const char *
s_cand_at (const s_cand_t *c, size_t i)
{
    return c->buf + c->offs[i];
}

/* A NUL-terminated copy of len bytes at s (which need not be), cut at
   a NUL as cJSON cuts strings; NULL on no memory. */
static char *
s_dup (const char *s, size_t len)
{
    const char *nul = memchr (s, '\0', len);
    if (nul)
        len = (size_t) (nul - s);
    char *copy = malloc (len + 1);
    if (copy) {
        memcpy (copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

/* The name of a candidate's key. */
static const char *
s_cand_name (char k)
{
    return k == 'f' ? "fn" : k == 'a' ? "arg" : "cmd";
}

/* The candidate's key ('f', 'a', 'c') that s names, or 0. */
static char
s_cand_key (const unsigned char *s, size_t len)
{
    if (len == 2 && s[0] == 'f' && s[1] == 'n')
        return 'f';
    if (len == 3 && memcmp (s, "arg", 3) == 0)
        return 'a';
    if (len == 3 && memcmp (s, "cmd", 3) == 0)
        return 'c';
    return 0;
}

/* Whether the candidate has key k already. */
static bool
s_cand_has (const s_cand_t *c, char k)
{
    return (k == 'f' && c->fn >= 0) || (k == 'a' && c->arg >= 0)
           || (k == 'c' && c->cmd0 >= 0);
}

/* A new string node of string i. */
static cJSON *
s_cand_node (const s_cand_t *c, size_t i)
{
    return cJSON_CreateString (s_cand_at (c, i));
}

/* ---- building --------------------------------------------------------- */

static s_frame_t *
s_top (s_parser_t *p)
{
    return p->depth ? &p->stack[p->depth - 1] : NULL;
}

/* Put node where the parser is: the root, or into the open container
   (under the pending key in an object).  0, or -1 (node freed). */
static int
s_attach (s_parser_t *p, cJSON *node)
{
    s_frame_t *top = s_top (p);
    if (!node)
        return -1;
    if (!top) {
        p->root = node;
        return 0;
    }
    bool ok;
    if (cJSON_IsObject (top->node)) {
        ok = p->key && cJSON_AddItemToObject (top->node, p->key, node);
        free (p->key);
        p->key = NULL;
    }
    else
        ok = cJSON_AddItemToArray (top->node, node);
    if (!ok)
        cJSON_Delete (node);
    return ok ? 0 : -1;
}

/* The candidate's members so far as cJSON nodes, in the file's order:
   the R_CAND frame (and an open R_CMD above it) become tree frames, so
   that what follows is built as any value.  0 or -1. */
static int
s_promote (s_parser_t *p)
{
    s_cand_t *c = &p->cand;
    bool in_cmd = s_top (p)->role == R_CMD;
    int cand = p->depth - (in_cmd ? 2 : 1);
    /* the key that made it stays pending */
    char *pending = p->key    ? p->key
                    : p->ckey ? strdup (s_cand_name (p->ckey))
                              : NULL;
    if (p->ckey && !pending)
        return -1;
    p->key = NULL;
    p->ckey = 0;
    p->depth = cand; /* the tasks array on top again */
    cJSON *task = cJSON_CreateObject (), *cmd = NULL;
    if (s_attach (p, task) < 0)
        goto fail;
    for (int k = 0; k < c->nkeys; k++) {
        cJSON *v;
        if (c->keys[k] == 'c') {
            v = cmd = cJSON_CreateArray ();
            size_t end = c->cmd_end >= 0 ? (size_t) c->cmd_end : c->nstr;
            for (size_t i = (size_t) c->cmd0; v && i < end; i++)
                if (!cJSON_AddItemToArray (v, s_cand_node (c, i))) {
                    cJSON_Delete (v);
                    goto fail;
                }
        }
        else
            v = s_cand_node (c, (size_t) (c->keys[k] == 'f' ? c->fn : c->arg));
        if (!v || !cJSON_AddItemToObject (task, s_cand_name (c->keys[k]), v)) {
            cJSON_Delete (v);
            goto fail;
        }
    }
    p->stack[p->depth++] = (s_frame_t){R_OTHER, task};
    if (in_cmd)
        p->stack[p->depth++] = (s_frame_t){R_OTHER, cmd};
    p->key = pending;
    s_cand_reset (c);
    return 0;
fail:
    free (pending);
    return -1;
}

/* The candidate has ended: into the store when it is simple and valid,
   else a tree (the checks say what is wrong with it).  0 or -1. */
static int
s_cand_end (s_parser_t *p)
{
    s_cand_t *c = &p->cand;
    bool has_cmd = c->cmd0 >= 0, has_fn = c->fn >= 0;
    bool simple = has_cmd != has_fn
                  && (has_fn ? *s_cand_at (c, (size_t) c->fn) != '\0'
                             : c->cmd_end > c->cmd0)
                  && !(has_cmd && c->arg >= 0);
    if (!simple) {
        if (s_promote (p) < 0)
            return -1;
        p->depth--; /* the promoted task is whole */
        return 0;
    }
    p->depth--; /* the tasks array on top again */
    cJSON *tasks = s_top (p)->node;
    jobtask_kind_t kind = has_cmd       ? JOBTASK_CMD
                          : c->arg >= 0 ? JOBTASK_FN_ARG
                                        : JOBTASK_FN;
    int rc;
    if (c->fn <= 0) /* the strings as a record has them: cmd's, or fn first */
        rc = jobstore_append_block (p->store, tasks, kind, c->buf, c->len,
                                    c->nstr);
    else { /* "arg" before "fn" */
        const char *strs[] = {s_cand_at (c, 1), s_cand_at (c, 0)};
        rc = jobstore_append (p->store, tasks, kind, strs, NULL, 2);
    }
    s_cand_reset (c);
    return rc;
}

/* ---- yajl's callbacks ------------------------------------------------- */

/* A scalar value (node made by the caller, NULL: no memory), where a
   candidate may take only strings.  1 to go on, 0 to stop. */
static int
s_scalar (s_parser_t *p, cJSON *node)
{
    s_frame_t *top = s_top (p);
    if (top && (top->role == R_CAND || top->role == R_CMD)
        && s_promote (p) < 0) {
        cJSON_Delete (node);
        return 0;
    }
    return s_attach (p, node) == 0;
}

static int
s_on_null (void *ctx)
{
    return s_scalar (ctx, cJSON_CreateNull ());
}

static int
s_on_bool (void *ctx, int b)
{
    return s_scalar (ctx, cJSON_CreateBool (b));
}

static int
s_on_number (void *ctx, const char *s, size_t len)
{
    char stack[64], *text = len < sizeof stack ? stack : malloc (len + 1);
    if (!text)
        return 0;
    memcpy (text, s, len);
    text[len] = '\0';
    double d = strtod (text, NULL);
    if (text != stack)
        free (text);
    return s_scalar (ctx, cJSON_CreateNumber (d));
}

static int
s_on_string (void *ctx, const unsigned char *s, size_t len)
{
    s_parser_t *p = ctx;
    s_frame_t *top = s_top (p);
    s_cand_t *c = &p->cand;
    if (top && top->role == R_CMD)
        return s_cand_string (c, s, len) == 0;
    if (top && top->role == R_CAND && p->ckey && p->ckey != 'c') {
        int *slot = p->ckey == 'f' ? &c->fn : &c->arg;
        *slot = (int) c->nstr;
        c->keys[c->nkeys++] = p->ckey;
        p->ckey = 0;
        return s_cand_string (c, s, len) == 0;
    }
    char *copy = s_dup ((const char *) s, len);
    cJSON *node = copy ? cJSON_CreateString (copy) : NULL;
    free (copy);
    return s_scalar (p, node);
}

static int
s_on_key (void *ctx, const unsigned char *s, size_t len)
{
    s_parser_t *p = ctx;
    s_frame_t *top = s_top (p);
    if (top->role == R_CAND) { /* no copy of the usual keys */
        char k = s_cand_key (s, len);
        if (k && !s_cand_has (&p->cand, k)) {
            p->ckey = k;
            return 1;
        }
    }
    free (p->key);
    if (!(p->key = s_dup ((const char *) s, len)))
        return 0;
    return top->role == R_CAND ? s_promote (p) == 0 : 1;
}

/* The role of a container opened where the parser is. */
static s_role_t
s_role (const s_parser_t *p, bool is_map)
{
    const s_frame_t *top = p->depth ? &p->stack[p->depth - 1] : NULL;
    const char *key = p->key ? p->key : "";
    if (!top)
        return is_map ? R_ROOT : R_OTHER;
    if (top->role == R_ROOT && !is_map && strcmp (key, "jobs") == 0)
        return R_JOBS;
    if (top->role == R_JOBS && is_map)
        return R_JOB;
    if ((top->role == R_ROOT || top->role == R_JOB) && !is_map
        && strcmp (key, "stages") == 0)
        return R_STAGES;
    if (top->role == R_STAGES && is_map)
        return R_STAGE;
    if (top->role == R_STAGE && !is_map && strcmp (key, "tasks") == 0)
        return R_TASKS;
    if (top->role == R_TASKS && is_map)
        return R_CAND;
    if (top->role == R_CAND && !is_map && p->ckey == 'c')
        return R_CMD;
    return R_OTHER;
}

static int
s_open (s_parser_t *p, bool is_map)
{
    if (p->depth >= S_MAX_DEPTH)
        return 0;
    s_frame_t *top = s_top (p);
    if (top && top->role == R_CMD && s_promote (p) < 0)
        return 0;
    s_role_t role = s_role (p, is_map);
    if (role == R_CAND) {
        s_cand_reset (&p->cand);
        p->stack[p->depth++] = (s_frame_t){R_CAND, NULL};
        return 1;
    }
    if (role == R_CMD) {
        s_cand_t *c = &p->cand;
        c->keys[c->nkeys++] = 'c';
        c->cmd0 = (int) c->nstr;
        p->ckey = 0;
        p->stack[p->depth++] = (s_frame_t){R_CMD, NULL};
        return 1;
    }
    if (top && top->role == R_CAND && s_promote (p) < 0)
        return 0;
    cJSON *node = is_map ? cJSON_CreateObject () : cJSON_CreateArray ();
    if (s_attach (p, node) < 0)
        return 0;
    p->stack[p->depth++] = (s_frame_t){role, node};
    return 1;
}

static int
s_on_start_map (void *ctx)
{
    return s_open (ctx, true);
}

static int
s_on_start_array (void *ctx)
{
    return s_open (ctx, false);
}

static int
s_on_end (void *ctx)
{
    s_parser_t *p = ctx;
    s_frame_t *top = s_top (p);
    if (top->role == R_CAND) {
        if (s_cand_end (p) < 0) /* which closes it */
            return 0;
    }
    else if (top->role == R_CMD) { /* its strings stay the candidate's */
        p->cand.cmd_end = (int) p->cand.nstr;
        p->depth--;
    }
    else
        p->depth--;
    top = s_top (p);
    if (top && top->role == R_TASKS) /* a task ends: where, for s_feed */
        p->task_end = yajl_get_bytes_consumed (p->h);
    return 1;
}

static const yajl_callbacks s_callbacks = {
    .yajl_null = s_on_null,
    .yajl_boolean = s_on_bool,
    .yajl_number = s_on_number,
    .yajl_string = s_on_string,
    .yajl_start_map = s_on_start_map,
    .yajl_map_key = s_on_key,
    .yajl_end_map = s_on_end,
    .yajl_start_array = s_on_start_array,
    .yajl_end_array = s_on_end,
};

/* ---- reading ---------------------------------------------------------- */

/* Where the parse stopped: line and column counted over every byte fed
   before it (lines and cols hold the counts of the chunks before this
   one; cJSON's convention: the column of the byte it stopped at). */
static void
s_count (const unsigned char *buf, size_t n, int *line, int *col)
{
    const unsigned char *p = buf, *end = buf + n, *nl;
    while ((nl = memchr (p, '\n', (size_t) (end - p)))) {
        (*line)++;
        *col = 1;
        p = nl + 1;
    }
    *col += (int) (end - p);
}

/* line and col moved past what jobfast_read() took. */
static void
s_took (const jobfast_took_t *took, int *line, int *col)
{
    if (took->newlines) {
        *line += (int) took->newlines;
        *col = 1 + (int) took->tail;
    }
    else
        *col += (int) took->used;
}

/* Feed the n bytes at buf to the parser in pieces that end at each '}'
   (where a task may end); where one ends a task of a "tasks" array, the
   simple tasks that follow go to jobfast_read(), and the parser goes on
   after them.  line and col move past the bytes read; on an error,
   *piece and *piece_n say what the parser was given last (the error is
   in it). */
static yajl_status
s_feed (s_parser_t *p, const unsigned char *buf, size_t n, int *line, int *col,
        const unsigned char **piece, size_t *piece_n)
{
    for (size_t pos = 0; pos < n;) {
        s_frame_t *top = s_top (p);
        if (p->after_task && top && top->role == R_TASKS) {
            jobfast_took_t took;
            if (jobfast_read ((const char *) buf + pos, n - pos, p->store,
                              top->node, &took)
                < 0)
                return yajl_status_client_canceled; /* no memory */
            s_took (&took, line, col);
            pos += took.used;
        }
        const unsigned char *close = memchr (buf + pos, '}', n - pos);
        size_t len = close ? (size_t) (close - (buf + pos)) + 1 : n - pos;
        *piece = buf + pos;
        *piece_n = len;
        p->task_end = 0;
        yajl_status st =
            len ? yajl_parse (p->h, buf + pos, len) : yajl_status_ok;
        if (st != yajl_status_ok)
            return st;
        s_count (buf + pos, len, line, col);
        p->after_task = len && p->task_end == len;
        pos += len;
    }
    return yajl_status_ok;
}

/* One parse of f; *syntax set when it failed on the text itself. */
static int
s_read_once (FILE *f, const char *name, size_t chunk, size_t max_bytes,
             cJSON **root, jobstore_t **store, bool *syntax,
             hearth_error_t *err)
{
    s_parser_t *p = calloc (1, sizeof *p);
    unsigned char *buf = malloc (chunk ? chunk : s_default_chunk);
    yajl_handle h = p && buf ? yajl_alloc (&s_callbacks, NULL, p) : NULL;
    int rc = -1, line = 1, col = 1;
    size_t total = 0, n = 0;
    const unsigned char *piece = buf; /* what yajl was given last */
    size_t piece_n = 0;               /* its bytes */
    if (!h || !(p->store = jobstore_new ())) {
        hearth_errprintf (err, "out of memory");
        goto done;
    }
    p->h = h;
    s_cand_reset (&p->cand);
    /* cJSON did not check UTF-8 either: the same files are read */
    yajl_config (h, yajl_dont_validate_strings, 1);
    yajl_status st = yajl_status_ok;
    while (st == yajl_status_ok
           && (n = fread (buf, 1, chunk ? chunk : s_default_chunk, f)) > 0) {
        if ((total += n) > max_bytes) {
            hearth_errprintf (err,
                              "%s: not a readable file of at most %zu bytes",
                              name, max_bytes);
            goto done;
        }
        st = s_feed (p, buf, n, &line, &col, &piece, &piece_n);
    }
    if (ferror (f)) {
        hearth_errprintf (err, "cannot read %s: %s", name, strerror (errno));
        goto done;
    }
    if (st == yajl_status_ok) {
        piece_n = 0; /* an error now is at the end */
        st = yajl_complete_parse (h);
    }
    if (st == yajl_status_client_canceled && p->depth < S_MAX_DEPTH)
        hearth_errprintf (err, "out of memory");
    else if (st != yajl_status_ok) {
        bool deep = st == yajl_status_client_canceled;
        size_t at = piece_n ? yajl_get_bytes_consumed (h) : 0;
        if (at > 0 && piece_n)
            at--; /* the byte it refused */
        s_count (piece, at < piece_n ? at : piece_n, &line, &col);
        *syntax = !deep;
        hearth_errprintf (err, "%s:%d:%d: %s", name, line, col,
                          deep ? "nested deeper than 128 levels"
                               : "not valid JSON here");
    }
    else if (!cJSON_IsObject (p->root))
        hearth_errprintf (err, "%s: the job must be a JSON object", name);
    else {
        *root = p->root;
        *store = p->store;
        p->root = NULL;
        p->store = NULL;
        rc = 0;
    }
done:
    if (h)
        yajl_free (h);
    free (buf);
    if (p) {
        cJSON_Delete (p->root);
        jobstore_destroy (&p->store);
        free (p->key);
        free (p->cand.buf);
        free (p->cand.offs);
        free (p);
    }
    return rc;
}

int
jobstream_read (FILE *f, const char *name, size_t chunk, size_t max_bytes,
                cJSON **root, jobstore_t **store, hearth_error_t *err)
{
    bool syntax = false;
    if (s_read_once (f, name, chunk, max_bytes, root, store, &syntax, err) == 0)
        return 0;
    /* A refused text may be JSON but for raw control characters in its
       strings, which cJSON took: read it again with them escaped.  The
       first message stays when that fails too. */
    if (!syntax || fseek (f, 0, SEEK_SET) != 0)
        return -1;
    size_t len = 0;
    char *fixed = jobescape_read (f, max_bytes, &len);
    FILE *m = fixed ? fmemopen (fixed, len, "r") : NULL;
    hearth_error_t again;
    bool dummy = false;
    int rc =
        m ? s_read_once (m, name, chunk, len, root, store, &dummy, &again) : -1;
    if (m)
        fclose (m);
    free (fixed);
    return rc;
}

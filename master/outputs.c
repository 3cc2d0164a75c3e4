/*  outputs.c - an application's outputs table; see outputs.h.

    Each output is kept as its JSON text (without `lost`), keyed by
    "LEN:STAGE:KIND:INDEX": a printed object costs a third of a parsed
    one, and the table is read whole only when a driver resumes. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/jsonprint.h"
#include "master/outputs.h"

struct outputs {
    zhashx_t *table;        /* key -> JSON text of the output (owned) */
    size_t max;             /* outputs it may hold */
    int64_t max_shuffle_id; /* the highest shuffle_id applied, or -1 */
};

/* The largest index an output may have (the schema's). */
static const double s_max_index = 4294967295.0;

static void
s_text_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

outputs_t *
outputs_new (size_t max)
{
    outputs_t *self = calloc (1, sizeof *self);
    if (!self || !(self->table = zhashx_new ())) {
        free (self);
        return NULL;
    }
    zhashx_set_destructor (self->table, s_text_destroy);
    self->max = max ? max : OUTPUTS_MAX;
    self->max_shuffle_id = -1;
    return self;
}

void
outputs_destroy (outputs_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    zhashx_destroy (&(*self_p)->table);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

size_t
outputs_size (const outputs_t *self)
{
    return zhashx_size (self->table);
}

int64_t
outputs_max_shuffle_id (const outputs_t *self)
{
    return self->max_shuffle_id;
}

void
outputs_note_shuffle_id (outputs_t *self, int64_t id)
{
    if (id > self->max_shuffle_id)
        self->max_shuffle_id = id;
}

/* The key of an output into buf; -1 when it lacks a stage, a kind or an
   index. */
static int
s_key (const cJSON *o, char *buf, size_t size)
{
    const cJSON *stage = cJSON_GetObjectItemCaseSensitive (o, "stage");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive (o, "kind");
    const cJSON *index = cJSON_GetObjectItemCaseSensitive (o, "index");
    if (!cJSON_IsString (stage) || !stage->valuestring[0]
        || !cJSON_IsString (kind)
        || (strcmp (kind->valuestring, "map") != 0
            && strcmp (kind->valuestring, "part") != 0)
        || !cJSON_IsNumber (index) || index->valuedouble < 0
        || index->valuedouble > s_max_index
        || index->valuedouble != (double) (int64_t) index->valuedouble)
        return -1;
    int n =
        snprintf (buf, size, "%zu:%s:%s:%.0f", strlen (stage->valuestring),
                  stage->valuestring, kind->valuestring, index->valuedouble);
    return n > 0 && (size_t) n < size ? 0 : -1;
}

static bool
s_lost (const cJSON *o)
{
    return cJSON_IsTrue (cJSON_GetObjectItemCaseSensitive (o, "lost"));
}

/* How many outputs of the batch are not in the table yet (a batch's
   duplicates counted each time). */
static size_t
s_new_count (const outputs_t *self, const cJSON *outputs)
{
    size_t n = 0;
    char key[256];
    const cJSON *o;
    cJSON_ArrayForEach (o, outputs)
    {
        if (!s_lost (o) && s_key (o, key, sizeof key) == 0
            && !zhashx_lookup (self->table, key))
            n++;
    }
    return n;
}

/* Apply one output: 1 applied, 0 skipped, -1 on no memory. */
static int
s_apply_one (outputs_t *self, const cJSON *o)
{
    char key[256];
    if (s_key (o, key, sizeof key) < 0)
        return 0;
    if (s_lost (o)) {
        zhashx_delete (self->table, key);
        return 1;
    }
    /* printed as it came (a "lost": false left out): the table keeps
       text, and cJSON's own printer costs a sscanf a number
       (libcore/jsonprint.h), a good part of recording's cost */
    cJSON *copy = NULL;
    if (cJSON_GetObjectItemCaseSensitive (o, "lost")) {
        if (!(copy = cJSON_Duplicate (o, true)))
            return -1;
        cJSON_DeleteItemFromObjectCaseSensitive (copy, "lost");
    }
    char stack[1024];
    hearth_jsonbuf_t buf;
    const char *printed =
        hearth_json_print (copy ? copy : o, &buf, stack, sizeof stack);
    char *text = printed ? strdup (printed) : NULL;
    hearth_jsonbuf_release (&buf);
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive (o, "shuffle_id");
    if (cJSON_IsNumber (sid) && sid->valuedouble >= 0)
        outputs_note_shuffle_id (self, (int64_t) sid->valuedouble);
    cJSON_Delete (copy);
    if (!text)
        return -1;
    zhashx_update (self->table, key, text); /* frees the one replaced */
    return 1;
}

int
outputs_apply (outputs_t *self, const cJSON *outputs)
{
    if (outputs_size (self) + s_new_count (self, outputs) > self->max) {
        errno = ENOSPC;
        return -1;
    }
    int applied = 0;
    const cJSON *o;
    cJSON_ArrayForEach (o, outputs)
    {
        int rc = s_apply_one (self, o);
        if (rc < 0) {
            errno = ENOMEM;
            return -1;
        }
        applied += rc;
    }
    return applied;
}

/* Hand the batch (taken) to fn; a new empty one in *batch unless last. */
static int
s_flush (cJSON **batch, bool last, outputs_batch_fn *fn, void *fn_arg)
{
    cJSON *full = *batch;
    *batch = last ? NULL : cJSON_CreateArray ();
    if (!last && !*batch) {
        cJSON_Delete (full);
        return -1;
    }
    return fn (fn_arg, full, last);
}

int
outputs_list (const outputs_t *self, size_t max, outputs_keep_fn *keep,
              void *keep_arg, outputs_batch_fn *fn, void *fn_arg)
{
    if (!max)
        max = OUTPUTS_BATCH_MAX;
    cJSON *batch = cJSON_CreateArray ();
    if (!batch)
        return -1;
    int n = 0;
    /* the walk uses the table's own cursor: fn must not touch the table */
    for (const char *text = zhashx_first (self->table); text;
         text = zhashx_next (self->table)) {
        cJSON *o = cJSON_Parse (text);
        if (!o || (keep && !keep (keep_arg, o))) {
            cJSON_Delete (o);
            continue;
        }
        cJSON_AddItemToArray (batch, o);
        if ((size_t) ++n == max) {
            n = 0;
            if (s_flush (&batch, false, fn, fn_arg) < 0) {
                cJSON_Delete (batch);
                return -1;
            }
        }
    }
    return s_flush (&batch, true, fn, fn_arg);
}

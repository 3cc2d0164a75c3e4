/*  timeline_live.c - the live timeline's wire rules and the master's store
    of it; see timeline_live.h. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/timeline_live.h"

/* The attempts' ring's first size: a small application costs little. */
static const size_t s_ring_first = 64;
/* How late an end may be read: without bound.  An attempt's drawn run
   ends when the driver read its update and starts its run time before,
   so a driver slow to read (a loaded machine: a clean-clone CI run drew
   a third lane on a 2-core executor) shifts runs later and makes them
   overlap; an executor never runs more attempts than its cores, so an
   overlap is always a late time, drawn on the lane freed first, never a
   lane more. */
static const int64_t s_slack_us = INT64_MAX / 4;

/* ---- the store ---------------------------------------------------------- */

struct hearth_tllive {
    hearth_tl_task_t *ring;    /* the last attempts, oldest at head once
                                  full (times in µs) */
    size_t alloc;              /* entries at ring */
    size_t n;                  /* entries used */
    size_t head;               /* the oldest entry, once n == alloc */
    size_t cut;                /* attempts left out, the driver's and ours */
    hearth_tl_exec_t *execs;   /* by id; host and reason owned */
    size_t nexecs;             /* entries */
    hearth_tl_stage_t *stages; /* by id; name and state owned */
    size_t nstages;            /* entries */
    int64_t now_ms;            /* the last report's time */
};

hearth_tllive_t *
hearth_tllive_new (void)
{
    hearth_tllive_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->execs = calloc (HEARTH_TLW_MAX_EXECS, sizeof *self->execs);
    self->stages = calloc (HEARTH_TL_MAX_STAGES, sizeof *self->stages);
    if (!self->execs || !self->stages)
        hearth_tllive_destroy (&self);
    return self;
}

static void
s_exec_clear (hearth_tl_exec_t *x)
{
    free ((char *) x->host);
    free ((char *) x->reason);
}

static void
s_stage_clear (hearth_tl_stage_t *s)
{
    free ((char *) s->name);
    free ((char *) s->state);
}

void
hearth_tllive_destroy (hearth_tllive_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_tllive_t *self = *self_p;
    for (size_t i = 0; i < self->nexecs; i++)
        s_exec_clear (&self->execs[i]);
    for (size_t i = 0; i < self->nstages; i++)
        s_stage_clear (&self->stages[i]);
    free (self->execs);
    free (self->stages);
    free (self->ring);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* Room for one more attempt: the ring grown (doubling up to its bound),
   or its oldest entry given up.  false on no memory. */
static bool
s_ring_room (hearth_tllive_t *self)
{
    if (self->n < self->alloc || self->alloc == HEARTH_TL_MAX_TASKS)
        return true;
    size_t alloc = self->alloc ? self->alloc * 2 : s_ring_first;
    if (alloc > HEARTH_TL_MAX_TASKS)
        alloc = HEARTH_TL_MAX_TASKS;
    hearth_tl_task_t *ring = realloc (self->ring, alloc * sizeof *ring);
    if (!ring)
        return false;
    self->ring = ring; /* not full before: head is 0, the order linear */
    self->alloc = alloc;
    return true;
}

static void
s_push (hearth_tllive_t *self, const hearth_tl_task_t *t)
{
    if (self->n < self->alloc) {
        self->ring[self->n++] = *t;
        return;
    }
    self->ring[self->head] = *t; /* full at its bound: the oldest goes */
    self->head = (self->head + 1) % self->alloc;
    self->cut++;
}

static int64_t
s_int (const cJSON *o, const char *name, int64_t dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsNumber (v) ? (int64_t) v->valuedouble : dflt;
}

/* ms to µs (the schema bounds ms to 2^53 - 1, which fits). */
static int64_t
s_us (int64_t ms)
{
    return ms < 0 ? -1 : ms * 1000;
}

static int
s_merge_attempts (hearth_tllive_t *self, const cJSON *attempts)
{
    const cJSON *a;
    cJSON_ArrayForEach (a, attempts)
    {
        int64_t v[HEARTH_TLW_COLS];
        int c = 0;
        for (const cJSON *e = a->child; e && c < HEARTH_TLW_COLS; e = e->next)
            v[c++] = (int64_t) e->valuedouble;
        if (c < HEARTH_TLW_COLS)
            continue; /* the schema refuses it: never here */
        if (!s_ring_room (self))
            return -1;
        s_push (self,
                &(hearth_tl_task_t){
                    .exec_id = v[HEARTH_TLW_EXEC],
                    .start_us = s_us (v[HEARTH_TLW_START]),
                    .end_us = s_us (v[HEARTH_TLW_END]),
                    .stage = v[HEARTH_TLW_STAGE],
                    .index = v[HEARTH_TLW_TASK],
                    .attempt = v[HEARTH_TLW_ATTEMPT],
                    .outcome = (hearth_tl_outcome_t) v[HEARTH_TLW_OUTCOME],
                });
    }
    return 0;
}

size_t
hearth_tllive_cut (const char *s, size_t max)
{
    size_t len = strlen (s);
    if (len > max) {
        len = max;
        while (len > 0 && ((unsigned char) s[len] & 0xC0) == 0x80)
            len--;
    }
    return len;
}

/* Replace *slot by o's string field name cut to HEARTH_TL_MAX_TEXT bytes
   (never inside a UTF-8 character), when o has it.  -1 on no memory. */
static int
s_set_text (const char **slot, const cJSON *o, const char *name)
{
    const char *s =
        cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (o, name));
    if (!s)
        return 0;
    char *copy = strndup (s, hearth_tllive_cut (s, HEARTH_TL_MAX_TEXT));
    if (!copy)
        return -1;
    free ((char *) *slot);
    *slot = copy;
    return 0;
}

/* The slot of id in an array sorted by id of n entries of size bytes,
   each starting with its int64_t id: found (*found), or where it goes. */
static size_t
s_find (const void *base, size_t n, size_t size, int64_t id, bool *found)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t at = *(const int64_t *) ((const char *) base + mid * size);
        if (at < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found =
        lo < n && *(const int64_t *) ((const char *) base + lo * size) == id;
    return lo;
}

/* The entry of id in a sorted array of at most max entries (*n used),
   made (zeroed, id set) when missing; when the array is full, its lowest
   id gives way (clear frees it), or the new one when it is lower still.
   NULL when id has no place. */
static void *
s_entry (void *base, size_t *n, size_t max, size_t size, int64_t id,
         void (*clear) (void *))
{
    bool found;
    size_t at = s_find (base, *n, size, id, &found);
    char *b = base;
    if (found)
        return b + at * size;
    if (*n == max) {
        if (at == 0)
            return NULL; /* older than everything kept */
        clear (b);
        memmove (b, b + size, (at - 1) * size);
        at--;
    }
    else {
        memmove (b + (at + 1) * size, b + at * size, (*n - at) * size);
        (*n)++;
    }
    memset (b + at * size, 0, size);
    *(int64_t *) (b + at * size) = id;
    return b + at * size;
}

static void
s_exec_clear_v (void *x)
{
    s_exec_clear (x);
}

static void
s_stage_clear_v (void *s)
{
    s_stage_clear (s);
}

static int
s_merge_execs (hearth_tllive_t *self, const cJSON *execs)
{
    const cJSON *o;
    cJSON_ArrayForEach (o, execs)
    {
        int64_t id = s_int (o, "id", -1);
        hearth_tl_exec_t *x =
            s_entry (self->execs, &self->nexecs, HEARTH_TLW_MAX_EXECS,
                     sizeof *x, id, s_exec_clear_v);
        if (!x)
            continue;
        if (!x->host) /* new: nothing known yet */
            x->added_us = x->removed_us = -1;
        x->cores = s_int (o, "cores", x->cores);
        if (cJSON_GetObjectItemCaseSensitive (o, "added_ms"))
            x->added_us = s_us (s_int (o, "added_ms", -1));
        if (cJSON_GetObjectItemCaseSensitive (o, "removed_ms"))
            x->removed_us = s_us (s_int (o, "removed_ms", -1));
        if (s_set_text (&x->host, o, "host") < 0
            || s_set_text (&x->reason, o, "reason") < 0)
            return -1;
        if (!x->host && !(x->host = strdup ("")))
            return -1;
    }
    return 0;
}

static int
s_merge_stages (hearth_tllive_t *self, const cJSON *stages)
{
    const cJSON *o;
    cJSON_ArrayForEach (o, stages)
    {
        hearth_tl_stage_t *s =
            s_entry (self->stages, &self->nstages, HEARTH_TL_MAX_STAGES,
                     sizeof *s, s_int (o, "id", -1), s_stage_clear_v);
        if (!s)
            continue;
        if (!s->name) /* new */
            s->start_us = s->end_us = -1;
        if (cJSON_GetObjectItemCaseSensitive (o, "start_ms")) {
            s->start_us = s_us (s_int (o, "start_ms", -1));
            s->end_us = -1; /* (re)started: run again for lost outputs */
        }
        if (cJSON_GetObjectItemCaseSensitive (o, "end_ms"))
            s->end_us = s_us (s_int (o, "end_ms", -1));
        if (s_set_text (&s->name, o, "name") < 0
            || s_set_text (&s->state, o, "state") < 0)
            return -1;
        if (!s->name && !(s->name = strdup ("")))
            return -1;
    }
    return 0;
}

int
hearth_tllive_merge (hearth_tllive_t *self, const cJSON *timeline)
{
    int64_t now = s_int (timeline, "now_ms", self->now_ms);
    if (now > self->now_ms)
        self->now_ms = now;
    self->cut += (size_t) s_int (timeline, "cut", 0);
    if (s_merge_execs (self,
                       cJSON_GetObjectItemCaseSensitive (timeline, "executors"))
            < 0
        || s_merge_stages (
               self, cJSON_GetObjectItemCaseSensitive (timeline, "stages"))
               < 0
        || s_merge_attempts (
               self, cJSON_GetObjectItemCaseSensitive (timeline, "attempts"))
               < 0)
        return -1;
    return 0;
}

size_t
hearth_tllive_attempts (const hearth_tllive_t *self, size_t *cut)
{
    if (cut)
        *cut = self->cut;
    return self->n;
}

char *
hearth_tllive_svg (const hearth_tllive_t *self, int64_t late_ms)
{
    hearth_tl_task_t *tasks = calloc (self->n ? self->n : 1, sizeof *tasks);
    char *svg = NULL;
    size_t len = 0;
    FILE *out = tasks ? open_memstream (&svg, &len) : NULL;
    if (out) {
        for (size_t i = 0; i < self->n; i++) /* oldest first */
            tasks[i] = self->ring[(self->head + i) % self->n];
        hearth_tl_t tl = {
            .tasks = tasks,
            .ntasks = self->n,
            .cut = self->cut,
            .execs = self->execs,
            .nexecs = self->nexecs,
            .stages = self->stages,
            .nstages = self->nstages,
            .origin_us = 0,
            .end_us = s_us (self->now_ms + (late_ms > 0 ? late_ms : 0)),
            .slack_us = s_slack_us,
        };
        bool failed = hearth_timeline_svg (&tl, out) < 0 || ferror (out);
        if (fclose (out) != 0 || failed) {
            free (svg);
            svg = NULL;
        }
    }
    free (tasks);
    return svg;
}

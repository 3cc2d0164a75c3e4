/*  tlfeed.c - the live timeline's news for the master; see tlfeed.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/proto.h"
#include "libcore/timeline_live.h"
#include "libhearth/tlfeed.h"

/* An attempt that ended (40 bytes). */
typedef struct {
    int64_t start_ms, end_ms; /* since the feed's start */
    uint64_t index;           /* its task */
    int32_t exec_id;          /* where it ran */
    uint32_t stage;           /* its stage */
    int32_t attempt;          /* its number */
    int32_t outcome;          /* a hearth_tl_outcome_t */
} s_attempt_t;

/* An executor's news. */
typedef struct {
    int exec_id;                         /* its id */
    int cores;                           /* its cores */
    char host[256];                      /* its host */
    int64_t added_ms;                    /* since the feed's start */
    int64_t removed_ms;                  /* -1: not removed */
    char reason[HEARTH_TL_MAX_TEXT + 1]; /* why, when removed */
} s_exec_t;

/* A stage's news. */
typedef struct {
    uint32_t uid;                            /* its id */
    char name[HEARTH_PROGRESS_NAME_MAX + 1]; /* cut to fit */
    int64_t start_ms;                        /* -1: not told */
    int64_t end_ms;                          /* -1: not ended */
    char state[16];                          /* how it ended, or "" */
} s_stage_t;

struct tlfeed {
    int64_t base_ms;   /* the wall clock at the start */
    s_attempt_t *ring; /* unsent attempts (HEARTH_TL_MAX_TASKS) */
    size_t head;       /* the next slot written */
    size_t n;          /* unsent attempts in it */
    uint64_t cut;      /* unsent attempts that gave way */
    s_exec_t *execs;   /* executors' news (HEARTH_TLW_MAX_EXECS) */
    size_t nexecs;     /* entries */
    s_stage_t *stages; /* stages' news (HEARTH_TL_MAX_STAGES) */
    size_t nstages;    /* entries */
};

tlfeed_t *
tlfeed_new (int64_t now_ms)
{
    tlfeed_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->base_ms = now_ms;
    self->ring = calloc (HEARTH_TL_MAX_TASKS, sizeof *self->ring);
    self->execs = calloc (HEARTH_TLW_MAX_EXECS, sizeof *self->execs);
    self->stages = calloc (HEARTH_TL_MAX_STAGES, sizeof *self->stages);
    if (!self->ring || !self->execs || !self->stages)
        tlfeed_destroy (&self);
    return self;
}

void
tlfeed_destroy (tlfeed_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    tlfeed_t *self = *self_p;
    free (self->ring);
    free (self->execs);
    free (self->stages);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* s cut to at most max bytes, never inside a UTF-8 character, into buf
   (max + 1 bytes). */
static void
s_cut (char *buf, const char *s, size_t max)
{
    size_t len = hearth_tllive_cut (s, max);
    memcpy (buf, s, len);
    buf[len] = '\0';
}

static int64_t
s_since (const tlfeed_t *self, int64_t wall_ms)
{
    return wall_ms > self->base_ms ? wall_ms - self->base_ms : 0;
}

/* The colour an attempt's end gets, as hearth-history's (tasklog.c). */
static hearth_tl_outcome_t
s_outcome (const evtask_end_t *e)
{
    if (strcmp (e->state, "FAILED") == 0)
        return e->out == HEARTH_TS_FETCH_WAIT ? HEARTH_TL_UNUSED
                                              : HEARTH_TL_FAILED;
    if (strcmp (e->state, "KILLED") == 0)
        return HEARTH_TL_KILLED;
    if (strcmp (e->state, "LOST") == 0)
        return HEARTH_TL_LOST;
    return e->out == HEARTH_TS_ACCEPT ? HEARTH_TL_OK : HEARTH_TL_UNUSED;
}

void
tlfeed_attempt (tlfeed_t *self, const evtask_end_t *e, int64_t now_ms)
{
    if (!self)
        return;
    int64_t end = s_since (self, now_ms);
    int64_t run_ms = e->run_us > 0 ? e->run_us / 1000 : 0;
    self->ring[self->head] = (s_attempt_t){
        .start_ms = run_ms < end ? end - run_ms : 0,
        .end_ms = end,
        .index = e->index,
        .exec_id = e->exec_id,
        .stage = e->stage,
        .attempt = e->attempt,
        .outcome = (int32_t) s_outcome (e),
    };
    self->head = (self->head + 1) % HEARTH_TL_MAX_TASKS;
    if (self->n < HEARTH_TL_MAX_TASKS)
        self->n++;
    else
        self->cut++; /* the oldest unsent one gave way */
}

/* The entry of key in a table of max entries of size bytes (*n used),
   each starting with its key (an int or uint32_t): the one there, or a
   new one (zeroed) at the end; when full, the oldest gives way. */
static void *
s_slot (void *base, size_t *n, size_t max, size_t size, uint32_t key)
{
    char *b = base;
    for (size_t i = 0; i < *n; i++)
        if (memcmp (b + i * size, &key, sizeof key) == 0)
            return b + i * size;
    if (*n == max) {
        memmove (b, b + size, (max - 1) * size);
        (*n)--;
    }
    char *slot = b + (*n)++ * size;
    memset (slot, 0, size);
    memcpy (slot, &key, sizeof key);
    return slot;
}

void
tlfeed_exec (tlfeed_t *self, const evexec_t *x, const char *reason,
             int64_t now_ms)
{
    if (!self || x->exec_id < 0)
        return;
    s_exec_t *s = s_slot (self->execs, &self->nexecs, HEARTH_TLW_MAX_EXECS,
                          sizeof *s, (uint32_t) x->exec_id);
    s->cores = x->cores > 0 ? x->cores : 1;
    s_cut (s->host, x->host ? x->host : "", sizeof s->host - 1);
    s->added_ms = s_since (self, x->added_ms);
    s->removed_ms = reason ? s_since (self, now_ms) : -1;
    s_cut (s->reason, reason ? reason : "", HEARTH_TL_MAX_TEXT);
}

void
tlfeed_stage (tlfeed_t *self, uint32_t uid, const char *name, const char *state,
              int64_t now_ms)
{
    if (!self)
        return;
    s_stage_t *s = s_slot (self->stages, &self->nstages, HEARTH_TL_MAX_STAGES,
                           sizeof *s, uid);
    s_cut (s->name, name ? name : "", HEARTH_PROGRESS_NAME_MAX);
    if (!state) { /* (re)started: an end sent before is over */
        s->start_ms = s_since (self, now_ms);
        s->end_ms = -1;
        s->state[0] = '\0';
    }
    else {
        if (!s->start_ms && !s->end_ms)
            s->start_ms = -1; /* its start went in an earlier report */
        s->end_ms = s_since (self, now_ms);
        s_cut (s->state, state, sizeof s->state - 1);
    }
}

bool
tlfeed_pending (const tlfeed_t *self)
{
    return self && (self->n || self->cut || self->nexecs || self->nstages);
}

static cJSON *
s_attempt_json (const s_attempt_t *a)
{
    const double v[HEARTH_TLW_COLS] = {
        [HEARTH_TLW_EXEC] = a->exec_id,
        [HEARTH_TLW_STAGE] = a->stage,
        [HEARTH_TLW_TASK] = (double) a->index,
        [HEARTH_TLW_ATTEMPT] = a->attempt,
        [HEARTH_TLW_START] = (double) a->start_ms,
        [HEARTH_TLW_END] = (double) a->end_ms,
        [HEARTH_TLW_OUTCOME] = a->outcome,
    };
    return cJSON_CreateDoubleArray (v, HEARTH_TLW_COLS);
}

static int
s_add_attempts (const tlfeed_t *self, cJSON *tl)
{
    cJSON *list = self->n ? cJSON_AddArrayToObject (tl, "attempts") : NULL;
    if (self->n && !list)
        return -1;
    size_t first =
        (self->head + HEARTH_TL_MAX_TASKS - self->n) % HEARTH_TL_MAX_TASKS;
    for (size_t i = 0; i < self->n; i++) {
        cJSON *a =
            s_attempt_json (&self->ring[(first + i) % HEARTH_TL_MAX_TASKS]);
        if (!a || !cJSON_AddItemToArray (list, a)) {
            cJSON_Delete (a);
            return -1;
        }
    }
    return 0;
}

static cJSON *
s_exec_json (const s_exec_t *x)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject (o, "id", x->exec_id);
    cJSON_AddNumberToObject (o, "cores", x->cores);
    cJSON_AddStringToObject (o, "host", x->host);
    cJSON_AddNumberToObject (o, "added_ms", (double) x->added_ms);
    if (x->removed_ms >= 0) {
        cJSON_AddNumberToObject (o, "removed_ms", (double) x->removed_ms);
        cJSON_AddStringToObject (o, "reason", x->reason);
    }
    return o;
}

static cJSON *
s_stage_json (const s_stage_t *s)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject (o, "id", s->uid);
    cJSON_AddStringToObject (o, "name", s->name);
    if (s->start_ms >= 0)
        cJSON_AddNumberToObject (o, "start_ms", (double) s->start_ms);
    if (s->end_ms >= 0) {
        cJSON_AddNumberToObject (o, "end_ms", (double) s->end_ms);
        cJSON_AddStringToObject (o, "state", s->state);
    }
    return o;
}

/* n entries of size bytes at base, each made JSON by fn, as tl's array
   name (none when n is 0).  -1 on no memory. */
static int
s_add_table (cJSON *tl, const char *name, const void *base, size_t n,
             size_t size, cJSON *(*fn) (const void *) )
{
    cJSON *list = n ? cJSON_AddArrayToObject (tl, name) : NULL;
    if (n && !list)
        return -1;
    for (size_t i = 0; i < n; i++) {
        cJSON *o = fn ((const char *) base + i * size);
        if (!o || !cJSON_AddItemToArray (list, o)) {
            cJSON_Delete (o);
            return -1;
        }
    }
    return 0;
}

static cJSON *
s_exec_json_v (const void *x)
{
    return s_exec_json (x);
}

static cJSON *
s_stage_json_v (const void *s)
{
    return s_stage_json (s);
}

int
tlfeed_add (const tlfeed_t *self, cJSON *body, int64_t now_ms)
{
    if (!self)
        return 0;
    cJSON *tl = cJSON_AddObjectToObject (body, "timeline");
    if (!tl
        || !cJSON_AddNumberToObject (tl, "now_ms",
                                     (double) s_since (self, now_ms)))
        return -1;
    if (self->cut)
        cJSON_AddNumberToObject (tl, "cut", (double) self->cut);
    if (s_add_table (tl, "executors", self->execs, self->nexecs,
                     sizeof *self->execs, s_exec_json_v)
            < 0
        || s_add_table (tl, "stages", self->stages, self->nstages,
                        sizeof *self->stages, s_stage_json_v)
               < 0
        || s_add_attempts (self, tl) < 0)
        return -1;
    return 0;
}

void
tlfeed_sent (tlfeed_t *self)
{
    if (!self)
        return;
    self->n = 0;
    self->cut = 0;
    self->nexecs = 0;
    self->nstages = 0;
}

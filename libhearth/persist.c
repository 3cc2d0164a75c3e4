/*  persist.c - persisted stages read again by later jobs; see persist.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libhearth/persist.h"
#include "libhearth/shuffle.h"

/* The copies made for one job: origin i became copy i. */
typedef struct {
    hearth_stage_t **origin;
    hearth_stage_t **copy;
    size_t n, alloc;
} s_copies_t;

mapout_t *
persist_maps_copy (const mapout_t *maps, uint64_t ntasks, uint32_t partitions)
{
    mapout_t *copy = calloc (ntasks, sizeof *copy);
    for (uint64_t m = 0; copy && m < ntasks; m++) {
        const mapout_t *mo = &maps[m];
        copy[m].attempt = mo->attempt;
        /* a kept output (inlineout.h) is never a persisted stage's: were
           one there, it would be made again */
        if (!mo->sizes || mo->server == SHUFFLE_KEPT)
            continue;
        uint64_t *sizes = malloc (partitions * sizeof *sizes);
        if (!sizes) {
            persist_maps_free (&copy, ntasks);
            return NULL;
        }
        memcpy (sizes, mo->sizes, partitions * sizeof *sizes);
        copy[m].sizes = sizes;
        copy[m].server = mo->server;
    }
    return copy;
}

void
persist_maps_free (mapout_t **maps_p, uint64_t ntasks)
{
    mapout_t *maps = *maps_p;
    for (uint64_t m = 0; maps && m < ntasks; m++)
        if (maps[m].server != SHUFFLE_KEPT)
            free (maps[m].sizes);
    free (maps);
    *maps_p = NULL;
}

/* A name for the copy of st in job: "JOB/STAGE", or with its shuffle id
   after a '#' when that is taken (two runs of one job).  NULL on no
   memory. */
static char *
s_copy_name (hearth_job_t *job, const hearth_stage_t *st)
{
    /* a copy's name says already where it came from */
    const char *jname = st->held ? NULL : st->job->name;
    size_t len = strlen (st->name) + (jname ? strlen (jname) : 0) + 16;
    char *name = malloc (len);
    if (!name)
        return NULL;
    snprintf (name, len, "%s%s%s", jname ? jname : "", jname ? "/" : "",
              st->name);
    if (hearth_job_find_stage (job, name))
        snprintf (name + strlen (name), 16, "#%" PRIu32, st->shuffle_id);
    return name;
}

/* Copy st's task groups into c.  0 or -1. */
static int
s_copy_groups (hearth_stage_t *c, const hearth_stage_t *st)
{
    if (!(c->groups = calloc (st->ngroups, sizeof *c->groups)))
        return -1;
    c->ngroups = c->groups_alloc = st->ngroups;
    for (size_t i = 0; i < st->ngroups; i++) {
        const task_group_t *g = &st->groups[i];
        task_group_t *d = &c->groups[i];
        *d = (task_group_t){
            .first = g->first, .count = g->count, .timeout_ms = g->timeout_ms};
        if ((g->argv
             && !(d->argv = job_strv_dup ((const char *const *) g->argv)))
            || (g->env
                && !(d->env = job_strv_dup ((const char *const *) g->env)))
            || (g->fn && !(d->fn = strdup (g->fn)))
            || (g->arg && !(d->arg = strdup (g->arg))))
            return -1;
    }
    return 0;
}

/* Copy into c what st's tasks need to run again, and its table. */
static int
s_copy_stage (hearth_stage_t *c, const hearth_stage_t *st)
{
    c->ntasks = st->ntasks;
    c->partitions = st->partitions;
    c->sort = st->sort;
    c->read_whole = st->read_whole;
    c->weight = st->weight;
    c->timeout_ms = st->timeout_ms;
    c->held = true;
    c->shuffle_id = st->shuffle_id;
    c->keep_in_memory = st->keep_in_memory;
    uint32_t parts = shuffle_partitions (st);
    if (st->cached_on && parts
        && !(c->cached_on = malloc (parts * sizeof *c->cached_on)))
        return -1;
    if (c->cached_on)
        memcpy (c->cached_on, st->cached_on, parts * sizeof *c->cached_on);
    if (s_copy_groups (c, st) < 0
        || (st->pool && !(c->pool = strdup (st->pool)))
        || hearth_resource_amounts_copy (&c->resources, &st->resources) < 0
        || (st->require
            && !(c->require =
                     job_strv_dup ((const char *const *) st->require))))
        return -1;
    c->maps = persist_maps_copy (st->maps, st->ntasks, shuffle_partitions (st));
    return c->maps ? 0 : -1;
}

static int s_adopt (hearth_job_t *job, hearth_stage_t *st, s_copies_t *cp,
                    hearth_stage_t **out, char *why, size_t size);

/* The copy of st in job, made with its lineage unless made already. */
static int
s_adopt (hearth_job_t *job, hearth_stage_t *st, s_copies_t *cp,
         hearth_stage_t **out, char *why, size_t size)
{
    /* a copy in another job (the lineage of a stage that job persisted)
       stands for its origin, while that lives: the origin's table is the
       one the outputs made again go back to */
    while (st->held && st->origin)
        st = st->origin;
    /* one copy per shuffle id: the outputs lie under it, and two stages
       of one job remaking them would write the same files */
    for (size_t i = 0; i < cp->n; i++)
        if (cp->origin[i] == st || cp->copy[i]->shuffle_id == st->shuffle_id)
            return *out = cp->copy[i], 0;
    if (hearth_job_state (st->job) != HEARTH_JOB_SUCCEEDED || !st->maps) {
        snprintf (why, size,
                  "stage %s of job %s: job %s has not succeeded, so its "
                  "outputs are not there to read",
                  st->name, st->job->name, st->job->name);
        return -1;
    }
    char *name = s_copy_name (job, st);
    if (!name)
        goto nomem;
    hearth_stage_t *c = hearth_job_stage (job, name);
    if (!c && errno == EINVAL) {
        snprintf (why, size,
                  "stage %s of job %s: its copy's name %s is taken by a "
                  "stage of job %s",
                  st->name, st->job->name, name, job->name);
        free (name);
        return -1;
    }
    free (name);
    if (!c || s_copy_stage (c, st) < 0)
        goto nomem;
    c->origin = st;
    if (cp->n == cp->alloc) {
        size_t n = cp->alloc ? cp->alloc * 2 : 4;
        hearth_stage_t **o = realloc (cp->origin, n * sizeof *o);
        if (o)
            cp->origin = o;
        hearth_stage_t **k = o ? realloc (cp->copy, n * sizeof *k) : NULL;
        if (!k)
            goto nomem;
        cp->copy = k;
        cp->alloc = n;
    }
    cp->origin[cp->n] = st;
    cp->copy[cp->n++] = c;
    *out = c;
    /* its input, when it has outputs of its own, is what its lost
       outputs are made again from */
    hearth_stage_t *in = NULL;
    if (st->input && st->input->maps
        && (s_adopt (job, st->input, cp, &in, why, size) < 0
            || hearth_stage_input (c, in) < 0))
        return -1;
    return 0;
nomem:
    snprintf (why, size, "out of memory copying stage %s of job %s", st->name,
              st->job->name);
    return -1;
}

/* Point stage's parent p (of another job) at its copy in job. */
static int
s_adopt_parent (hearth_job_t *job, hearth_stage_t *stage, hearth_stage_t **p,
                s_copies_t *cp, char *why, size_t size)
{
    hearth_stage_t *parent = *p;
    if (parent->job == job)
        return 0;
    if (parent->persist == HEARTH_PERSIST_NONE) {
        snprintf (why, size,
                  "stage %s reads stage %s of job %s, which is not persisted "
                  "(any more)",
                  stage->name, parent->name, parent->job->name);
        return -1;
    }
    return s_adopt (job, parent, cp, p, why, size);
}

int
persist_adopt (hearth_job_t *job, char *why, size_t size)
{
    for (size_t i = 0; i < job->nstages; i++)
        if (job->stages[i]->orphaned) {
            const char *of = job->stages[i]->orphaned_of;
            snprintf (why, size,
                      "stage %s reads stage %s, which its job's destruction "
                      "took away",
                      job->stages[i]->name, of ? of : "of another job");
            return -1;
        }
    s_copies_t cp = {0};
    int rc = 0;
    size_t own = job->nstages; /* copies are added after them */
    for (size_t i = 0; rc == 0 && i < own; i++) {
        hearth_stage_t *st = job->stages[i];
        for (size_t k = 0; rc == 0 && k < st->nparents; k++) {
            bool input = st->parents[k] == st->input;
            rc = s_adopt_parent (job, st, &st->parents[k], &cp, why, size);
            if (input)
                st->input = st->parents[k];
        }
    }
    /* the tables of what a persisted stage's lost outputs are made again
       from outlive the job too, or a later job would run those stages
       whole */
    for (size_t i = 0; rc == 0 && i < own; i++)
        if (job->stages[i]->persist != HEARTH_PERSIST_NONE)
            for (hearth_stage_t *in = job->stages[i]->input;
                 in && in->job == job && !in->lineage; in = in->input)
                in->lineage = true;
    free (cp.origin);
    free (cp.copy);
    return rc;
}

void
persist_return (hearth_job_t *job)
{
    if (hearth_job_state (job) != HEARTH_JOB_SUCCEEDED)
        return;
    for (size_t i = 0; i < job->nstages; i++) {
        hearth_stage_t *c = job->stages[i];
        if (!c->held || !c->origin)
            continue;
        /* the tables swap: the copy's job frees the older one */
        mapout_t *maps = c->origin->maps;
        c->origin->maps = c->maps;
        c->maps = maps;
        int32_t *on = c->origin->cached_on; /* and where they are cached */
        c->origin->cached_on = c->cached_on;
        c->cached_on = on;
        c->origin = NULL; /* once */
    }
}

/* st's parent k, a stage of a job being destroyed, goes: st will be
   refused at submit, saying which it was. */
static void
s_orphan (hearth_stage_t *st, size_t k)
{
    hearth_stage_t *gone = st->parents[k];
    if (!st->orphaned_of) {
        size_t len = strlen (gone->name) + strlen (gone->job->name) + 16;
        if ((st->orphaned_of = malloc (len)))
            snprintf (st->orphaned_of, len, "%s of job %s", gone->name,
                      gone->job->name);
    }
    st->orphaned = true;
    if (st->input == gone)
        st->input = NULL;
    memmove (&st->parents[k], &st->parents[k + 1],
             (st->nparents - k - 1) * sizeof *st->parents);
    st->nparents--;
}

void
persist_forget (hearth_job_t *job)
{
    hearth_ctx_t *ctx = job->ctx;
    for (hearth_job_t *j = zlistx_first (ctx->jobs); j;
         j = zlistx_next (ctx->jobs))
        for (size_t i = 0; j != job && i < j->nstages; i++) {
            hearth_stage_t *st = j->stages[i];
            if (st->origin && st->origin->job == job)
                st->origin = NULL;
            /* a job not submitted yet names it still */
            for (size_t k = st->nparents; k-- > 0;)
                if (st->parents[k]->job == job)
                    s_orphan (st, k);
        }
}

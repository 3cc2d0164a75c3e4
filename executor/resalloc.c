/*  resalloc.c - the executor's resource addresses and their holders; see
    resalloc.h.

    One busy flag per address.  Executors hold a handful of addresses
    (GPUs of one node), so linear scans are the right size.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor/resalloc.h"

struct resalloc {
    const hearth_resources_t *have; /* the executor's addresses (borrowed) */
    bool **busy;                    /* have->n arrays of naddrs flags */
};

resalloc_t *
resalloc_new (const hearth_resources_t *have)
{
    resalloc_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->have = have;
    if (have->n && !(self->busy = calloc (have->n, sizeof *self->busy))) {
        free (self);
        return NULL;
    }
    for (size_t i = 0; i < have->n; i++)
        if (!(self->busy[i] = calloc (have->v[i].naddrs, sizeof (bool)))) {
            resalloc_destroy (&self);
            return NULL;
        }
    return self;
}

void
resalloc_destroy (resalloc_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    resalloc_t *self = *self_p;
    for (size_t i = 0; self->busy && i < self->have->n; i++)
        free (self->busy[i]);
    free (self->busy);
    free (self);
    *self_p = NULL;
}

/* The position of name in have, or -1. */
static int
s_index (const resalloc_t *self, const char *name)
{
    for (size_t i = 0; i < self->have->n; i++)
        if (strcmp (self->have->v[i].name, name) == 0)
            return (int) i;
    return -1;
}

static size_t
s_free_at (const resalloc_t *self, int i)
{
    size_t n = 0;
    for (size_t k = 0; k < self->have->v[i].naddrs; k++)
        n += !self->busy[i][k];
    return n;
}

size_t
resalloc_free (const resalloc_t *self, const char *name)
{
    int i = s_index (self, name);
    return i < 0 ? 0 : s_free_at (self, i);
}

int
resalloc_check (const resalloc_t *self, const hearth_resource_amounts_t *want,
                hearth_error_t *err)
{
    for (size_t w = 0; w < want->n; w++) {
        int i = s_index (self, want->v[w].name);
        size_t have = i < 0 ? 0 : self->have->v[i].naddrs;
        if ((size_t) want->v[w].amount > have)
            return hearth_errprintf (err,
                                     "the task needs %d %s; this executor "
                                     "holds %zu",
                                     want->v[w].amount, want->v[w].name, have);
    }
    return 0;
}

int
resalloc_take (resalloc_t *self, const hearth_resource_amounts_t *want,
               hearth_resources_t *got)
{
    for (size_t w = 0; w < want->n; w++) {
        int i = s_index (self, want->v[w].name);
        if (i < 0 || s_free_at (self, i) < (size_t) want->v[w].amount)
            return 1;
    }
    for (size_t w = 0; w < want->n; w++) {
        int i = s_index (self, want->v[w].name);
        const hearth_resource_t *r = &self->have->v[i];
        const char *addrs[HEARTH_RESOURCE_AMOUNT_MAX];
        size_t n = 0;
        for (size_t k = 0; k < r->naddrs && n < (size_t) want->v[w].amount; k++)
            if (!self->busy[i][k])
                addrs[n++] = r->addrs[k];
        if (hearth_resources_add (got, r->name, addrs, n, NULL) < 0) {
            resalloc_give (self, got);
            return -1;
        }
        for (size_t k = 0, left = n; k < r->naddrs && left; k++)
            if (!self->busy[i][k]) {
                self->busy[i][k] = true;
                left--;
            }
    }
    return 0;
}

void
resalloc_give (resalloc_t *self, hearth_resources_t *got)
{
    for (size_t g = 0; g < got->n; g++) {
        int i = s_index (self, got->v[g].name);
        if (i < 0)
            continue;
        const hearth_resource_t *r = &self->have->v[i];
        for (size_t a = 0; a < got->v[g].naddrs; a++)
            for (size_t k = 0; k < r->naddrs; k++)
                if (strcmp (r->addrs[k], got->v[g].addrs[a]) == 0)
                    self->busy[i][k] = false;
    }
    hearth_resources_clear (got);
}

/* A command's environment gains "NAME=VALUE" lines for what t holds; a
   function's fn_resources points into t->held.  -1 on no memory. */
static int
s_hand (task_t *t)
{
    const hearth_resources_t *held = &t->held;
    if (!t->argv) {
        t->fn_resources = calloc (held->n, sizeof *t->fn_resources);
        for (size_t i = 0; t->fn_resources && i < held->n; i++)
            t->fn_resources[i] = (hearth_task_resource_t){
                .name = held->v[i].name,
                .addresses = (const char *const *) held->v[i].addrs,
                .count = held->v[i].naddrs};
        return t->fn_resources ? 0 : -1;
    }
    size_t n = 0;
    while (t->env && t->env[n])
        n++;
    char **env = realloc (t->env, (n + 2 * held->n + 1) * sizeof *env);
    if (!env)
        return -1;
    t->env = env;
    env[n] = NULL;
    for (size_t i = 0; i < held->n; i++) {
        char name[HEARTH_RESOURCE_ENV_MAX];
        char *list = hearth_resource_join (&held->v[i]);
        hearth_resource_env_name (held->v[i].name, name, sizeof name);
        if (!list || asprintf (&env[n], "%s=%s", name, list) < 0) {
            free (list);
            return -1;
        }
        env[++n] = NULL;
        if (strcmp (held->v[i].name, "gpu") == 0
            && asprintf (&env[n], "CUDA_VISIBLE_DEVICES=%s", list) >= 0)
            env[++n] = NULL;
        free (list);
    }
    return 0;
}

int
resalloc_acquire (resalloc_t *self, task_t *t, hearth_error_t *err)
{
    if (resalloc_check (self, &t->need, err) < 0)
        return -1; /* not here, ever: a failure, retried where the driver
                      counts enough (not permanent: another may have them) */
    int rc = resalloc_take (self, &t->need, &t->held);
    if (rc == 0 && s_hand (t) < 0)
        rc = -1;
    if (rc < 0) {
        resalloc_give (self, &t->held);
        free (t->fn_resources);
        t->fn_resources = NULL;
        return hearth_errprintf (err, "out of memory starting the task");
    }
    return rc;
}

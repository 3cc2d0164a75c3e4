/*  regres.c - the registry's custom resources (GPUs...): which of a
    worker's addresses its live, stopping and foreign executors hold, the
    free ones an executor is given, and why an application asking for
    more than any live worker has waits; see registry.h.  One address of
    a worker is held by at most one executor at a time: an executor
    holds its addresses from its placement until it ends (kept by its
    stopping entry while its worker has not said so, regstopping.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/registry.h"
#include "master/registry_int.h"

static bool
s_holds (const hearth_resources_t *r, const char *name, const char *addr)
{
    const hearth_resource_t *res = hearth_resources_find (r, name);
    for (size_t i = 0; res && i < res->naddrs; i++)
        if (strcmp (res->addrs[i], addr) == 0)
            return true;
    return false;
}

/* The live executor of w holding addr of name, or NULL.  Callers may be
   walking w->executors themselves (workers.c's reconciliation): its
   cursor is put back where it was. */
static reg_exec_t *
s_exec_holder (reg_worker_t *w, const char *name, const char *addr)
{
    void *cursor = zlistx_cursor (w->executors); /* a handle, or NULL */
    reg_exec_t *found = NULL;
    for (reg_exec_t *e = zlistx_first (w->executors); e && !found;
         e = zlistx_next (w->executors))
        if (s_holds (&e->resources, name, addr))
            found = e;
    /* back to where it was (the cursor's handle), or to the head when it
       was there; zlistx_find would compare items with strcmp */
    void *at = zlistx_first (w->executors);
    while (at && zlistx_cursor (w->executors) != cursor)
        at = zlistx_next (w->executors);
    return found;
}

const char *
registry_worker_holder (reg_worker_t *w, const char *name, const char *addr,
                        char *buf, size_t size)
{
    reg_exec_t *e = s_exec_holder (w, name, addr);
    if (e) {
        snprintf (buf, size, "%s/%d", e->app->id, e->exec_id);
        return buf;
    }
    const char *key = registry__stopping_holder (w, name, addr);
    if (key) {
        snprintf (buf, size, "%s", key);
        return buf;
    }
    if (s_holds (&w->resources_foreign, name, addr)) {
        snprintf (buf, size, "foreign");
        return buf;
    }
    return NULL;
}

int
registry_worker_free_count (reg_worker_t *w, const char *name)
{
    const hearth_resource_t *res = hearth_resources_find (&w->resources, name);
    char buf[HEARTH_ID_MAX + 32];
    int n = 0;
    for (size_t i = 0; res && i < res->naddrs; i++)
        n += !registry_worker_holder (w, name, res->addrs[i], buf, sizeof buf);
    return n;
}

int
registry_worker_pick (reg_worker_t *w, const hearth_resource_amounts_t *want,
                      hearth_resources_t *out)
{
    hearth_resources_t built = {0};
    char buf[HEARTH_ID_MAX + 32];
    const char **addrs = NULL;
    for (size_t i = 0; want && i < want->n; i++) {
        const char *name = want->v[i].name;
        const hearth_resource_t *res =
            hearth_resources_find (&w->resources, name);
        size_t n = 0;
        free (addrs);
        addrs = calloc ((size_t) want->v[i].amount, sizeof *addrs);
        for (size_t j = 0;
             addrs && res && j < res->naddrs && n < (size_t) want->v[i].amount;
             j++)
            if (!registry_worker_holder (w, name, res->addrs[j], buf,
                                         sizeof buf))
                addrs[n++] = res->addrs[j];
        if (!addrs || n < (size_t) want->v[i].amount
            || hearth_resources_add (&built, name, addrs, n, NULL) < 0) {
            free (addrs);
            hearth_resources_clear (&built);
            return -1;
        }
    }
    free (addrs);
    *out = built;
    return 0;
}

cJSON *
registry_worker_held_json (reg_worker_t *w)
{
    cJSON *o = NULL;
    char buf[HEARTH_ID_MAX + 32];
    for (size_t i = 0; i < w->resources.n; i++) {
        const hearth_resource_t *res = &w->resources.v[i];
        cJSON *by = NULL;
        for (size_t j = 0; j < res->naddrs; j++) {
            const char *who = registry_worker_holder (
                w, res->name, res->addrs[j], buf, sizeof buf);
            if (!who)
                continue;
            if (!o && !(o = cJSON_CreateObject ()))
                return NULL;
            if (!by && !(by = cJSON_AddObjectToObject (o, res->name)))
                break;
            cJSON_AddStringToObject (by, res->addrs[j], who);
        }
    }
    return o;
}

/*  regstopping.c - the registry's executors still stopping: those the
    master ended (their application ended) whose end their worker has not
    reported yet.  Their cores, memory and custom resources' addresses stay
    counted in the worker's
    cores_used until it does, so that the master never offers cores an
    executor still holds (the worker counts them the same way, until it
    has reaped the process); see registry.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/ids.h"
#include "master/registry.h"
#include "master/registry_int.h"

/* One executor still stopping. */
typedef struct {
    int cores;                    /* it holds */
    int64_t memory_mb;            /* it holds, MiB */
    bool started;                 /* its worker had reported it RUNNING */
    int64_t since_ms;             /* monotonic time the master ended it */
    hearth_resources_t resources; /* the addresses it holds (owned) */
} s_stopping_t;

static void
s_key (const char *app_id, int exec_id, char *buf, size_t size)
{
    snprintf (buf, size, "%s/%d", app_id, exec_id);
}

static void
s_free (void **item)
{
    s_stopping_t *s = *item;
    if (s)
        hearth_resources_clear (&s->resources);
    free (*item);
    *item = NULL;
}

/* Add exec to w's stopping executors, holding its cores and memory or
   (released) not. */
static int
s_add (struct reg_worker *w, reg_exec_t *exec, int64_t now_ms, bool released)
{
    char key[HEARTH_ID_MAX + 32];
    if (!w->stopping && !(w->stopping = zhashx_new ()))
        return -1;
    zhashx_set_destructor (w->stopping, s_free);
    s_stopping_t *s = calloc (1, sizeof *s);
    if (!s)
        return -1;
    *s = (s_stopping_t){released ? 0 : exec->cores,
                        released ? 0 : exec->memory_mb,
                        exec->state == EXEC_RUNNING, now_ms};
    s_key (exec->app->id, exec->exec_id, key, sizeof key);
    if (zhashx_lookup (w->stopping, key)) {
        free (s);
        return 0;
    }
    if (hearth_resources_copy (&s->resources, &exec->resources) < 0) {
        free (s);
        return -1;
    }
    zhashx_insert (w->stopping, key, s);
    w->cores_used += s->cores;
    w->memory_used_mb += s->memory_mb;
    return 0;
}

int
registry__stopping_add (struct reg_worker *w, reg_exec_t *exec, int64_t now_ms)
{
    return s_add (w, exec, now_ms, false);
}

int
registry__stopping_add_released (struct reg_worker *w, reg_exec_t *exec,
                                 int64_t now_ms)
{
    return s_add (w, exec, now_ms, true);
}

/* Release one entry (its cores are free). */
static void
s_release (struct reg_worker *w, const char *key, s_stopping_t *s)
{
    w->cores_used -= s->cores;
    w->memory_used_mb -= s->memory_mb;
    zhashx_delete (w->stopping, key); /* frees s */
}

void
registry__stopping_clear (struct reg_worker *w)
{
    const char *key;
    s_stopping_t *s;
    while (w->stopping && (s = zhashx_first (w->stopping))) {
        key = zhashx_cursor (w->stopping);
        s_release (w, key, s);
    }
}

const char *
registry__stopping_holder (reg_worker_t *w, const char *name, const char *addr)
{
    for (s_stopping_t *s = w->stopping ? zhashx_first (w->stopping) : NULL; s;
         s = zhashx_next (w->stopping)) {
        const hearth_resource_t *r =
            hearth_resources_find (&s->resources, name);
        for (size_t i = 0; r && i < r->naddrs; i++)
            if (strcmp (r->addrs[i], addr) == 0)
                return zhashx_cursor (w->stopping);
    }
    return NULL;
}

bool
registry_stopping_has (reg_worker_t *w, const char *app_id, int exec_id)
{
    char key[HEARTH_ID_MAX + 32];
    if (!w->stopping || !app_id)
        return false;
    s_key (app_id, exec_id, key, sizeof key);
    return zhashx_lookup (w->stopping, key) != NULL;
}

bool
registry_stopping_ended (reg_worker_t *worker, const char *app_id, int exec_id)
{
    struct reg_worker *w = registry__worker_rw (worker);
    char key[HEARTH_ID_MAX + 32];
    if (!w->stopping || !app_id)
        return false;
    s_key (app_id, exec_id, key, sizeof key);
    s_stopping_t *s = zhashx_lookup (w->stopping, key);
    if (!s)
        return false;
    s_release (w, key, s);
    return true;
}

/* True when the worker's list names the executor under key. */
static bool
s_listed (const cJSON *executors, const char *key)
{
    char k[HEARTH_ID_MAX + 32];
    const cJSON *e;
    cJSON_ArrayForEach (e, executors)
    {
        const cJSON *app = cJSON_GetObjectItem (e, "app_id");
        const cJSON *id = cJSON_GetObjectItem (e, "exec_id");
        if (!cJSON_IsString (app) || !cJSON_IsNumber (id))
            continue;
        s_key (app->valuestring, (int) id->valuedouble, k, sizeof k);
        if (strcmp (k, key) == 0)
            return true;
    }
    return false;
}

bool
registry_stopping_listed (reg_worker_t *worker, const cJSON *executors,
                          bool registration, int64_t now_ms, int64_t grace_ms)
{
    struct reg_worker *w = registry__worker_rw (worker);
    if (!w->stopping || !cJSON_IsArray (executors))
        return false;
    zlistx_t *gone = zlistx_new ();
    if (!gone)
        return false;
    for (s_stopping_t *s = zhashx_first (w->stopping); s;
         s = zhashx_next (w->stopping)) {
        const char *key = zhashx_cursor (w->stopping);
        /* One never started may not have reached the worker yet: a
           heartbeat sent before the launch arrived does not list it. */
        bool may_be_late =
            !registration && !s->started && now_ms - s->since_ms < grace_ms;
        if (!may_be_late && !s_listed (executors, key))
            zlistx_add_end (gone, (void *) key);
    }
    bool any = zlistx_size (gone) > 0;
    for (const char *key = zlistx_first (gone); key; key = zlistx_next (gone))
        s_release (w, key, zhashx_lookup (w->stopping, key));
    zlistx_destroy (&gone);
    return any;
}

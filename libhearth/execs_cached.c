/*  execs_cached.c - what the application's executors keep in memory for
    persisted stages (executor/partcache.h), for its progress summary;
    see execs_add_persisted in execs.h.
*/
#include "config.h"

#include "libhearth/execs.h"
#include "libhearth/execs_int.h"

int
execs_add_persisted (execs_t *self, cJSON *body)
{
    int64_t total = 0;
    cJSON *list = NULL;
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id)) {
        if (x->cache_bytes <= 0)
            continue;
        cJSON *o = cJSON_CreateObject ();
        if (!o || (!list && !(list = cJSON_CreateArray ()))
            || !cJSON_AddItemToArray (list, o)) {
            cJSON_Delete (o);
            cJSON_Delete (list);
            return -1;
        }
        cJSON_AddNumberToObject (o, "executor", x->exec_id);
        cJSON_AddNumberToObject (o, "memory_bytes", (double) x->cache_bytes);
        total += x->cache_bytes;
    }
    if (!list)
        return 0; /* nothing kept: nothing said */
    cJSON *p = cJSON_AddObjectToObject (body, "persisted");
    if (!p || !cJSON_AddNumberToObject (p, "memory_bytes", (double) total)
        || !cJSON_AddItemToObject (p, "executors", list)) {
        cJSON_Delete (list);
        return -1;
    }
    return 0;
}

int64_t
execs_persisted_total (execs_t *self)
{
    int64_t total = 0;
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id))
        total += x->cache_bytes > 0 ? x->cache_bytes : 0;
    return total;
}

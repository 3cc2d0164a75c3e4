/*  record.c - the outputs told to the master; see record.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "libcore/log.h"
#include "libhearth/record.h"

struct record {
    cJSON *waiting; /* array of outputs, oldest first */
    size_t nwaiting;
    uint64_t total;
    bool oom_said;
};

record_t *
record_new (void)
{
    record_t *self = calloc (1, sizeof *self);
    if (self && !(self->waiting = cJSON_CreateArray ()))
        record_destroy (&self);
    return self;
}

void
record_destroy (record_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    cJSON_Delete ((*self_p)->waiting);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

/* The fields of map output index of st; false when it lies in the
   driver or on its node (nothing to record). */
static bool
s_map (cJSON *o, const hearth_stage_t *st, uint64_t index,
       const shuffle_servers_t *servers)
{
    const mapout_t *mo = &st->maps[index];
    const char *url = shuffle_servers_url (servers, mo->server);
    if (!mo->sizes || mo->server == SHUFFLE_KEPT || !url)
        return false;
    cJSON_AddStringToObject (o, "kind", "map");
    cJSON_AddNumberToObject (o, "attempt", mo->attempt);
    cJSON_AddNumberToObject (o, "shuffle_id", st->shuffle_id);
    const char *worker = shuffle_servers_worker (servers, mo->server);
    if (worker)
        cJSON_AddStringToObject (o, "worker_id", worker);
    cJSON_AddStringToObject (o, "server", url);
    const char *key = shuffle_servers_key (servers, mo->server);
    if (key)
        cJSON_AddStringToObject (o, "server_key", key);
    cJSON *sizes = cJSON_AddArrayToObject (o, "sizes");
    for (uint32_t p = 0; sizes && p < shuffle_partitions (st); p++)
        cJSON_AddItemToArray (sizes,
                              cJSON_CreateNumber ((double) mo->sizes[p]));
    return sizes != NULL;
}

/* The fields of part file index of st. */
static bool
s_part (cJSON *o, const hearth_stage_t *st, uint64_t index)
{
    char name[32];
    shuffle_part_name (index, name, sizeof name);
    const hearth_part_file_t *f = &st->parts[index];
    cJSON_AddStringToObject (o, "kind", "part");
    cJSON_AddStringToObject (o, "name", name);
    if (f->host)
        cJSON_AddStringToObject (o, "host", f->host);
    return cJSON_AddNumberToObject (o, "bytes", (double) f->bytes) != NULL;
}

void
record_output (record_t *self, const hearth_stage_t *st, uint64_t index,
               const shuffle_servers_t *servers)
{
    if (!self || (!st->maps && !(st->output_dir && st->parts))
        || (!st->maps && !st->parts[index].name)) /* not committed */
        return;
    cJSON *o = cJSON_CreateObject ();
    bool ok = o && cJSON_AddStringToObject (o, "stage", st->fp)
              && cJSON_AddStringToObject (o, "stage_name", st->name)
              && cJSON_AddNumberToObject (o, "index", (double) index);
    bool any =
        ok
        && (st->maps ? s_map (o, st, index, servers) : s_part (o, st, index));
    if (!any) {
        cJSON_Delete (o);
        if (!ok && !self->oom_said) {
            self->oom_said = true;
            log_warn ("out of memory recording an output for the master: "
                      "a resumed driver would run its task again");
        }
        return;
    }
    cJSON_AddItemToArray (self->waiting, o);
    self->nwaiting++;
    self->total++;
}

cJSON *
record_take (record_t *self)
{
    if (!self || !self->nwaiting)
        return NULL;
    cJSON *batch = cJSON_CreateArray ();
    if (!batch)
        return NULL;
    for (size_t n = 0; n < RECORD_BATCH && self->nwaiting; n++) {
        cJSON *o = cJSON_DetachItemFromArray (self->waiting, 0);
        self->nwaiting--;
        cJSON_AddItemToArray (batch, o);
    }
    return batch;
}

void
record_put_back (record_t *self, cJSON *batch)
{
    cJSON *o;
    int i = 0;
    while ((o = cJSON_DetachItemFromArray (batch, 0))) {
        cJSON_InsertItemInArray (self->waiting, i++, o);
        self->nwaiting++;
    }
    cJSON_Delete (batch);
}

size_t
record_waiting (const record_t *self)
{
    return self ? self->nwaiting : 0;
}

uint64_t
record_total (const record_t *self)
{
    return self ? self->total : 0;
}

void
record_stage (record_t *self, const hearth_stage_t *st,
              const shuffle_servers_t *servers)
{
    for (uint64_t i = 0; self && i < st->ntasks; i++)
        record_output (self, st, i, servers);
}

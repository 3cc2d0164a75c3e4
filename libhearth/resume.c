/*  resume.c - the outputs an earlier driver of the application recorded,
    and the stages they spare; see resume.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/log.h"
#include "libcore/proto.h"
#include "libhearth/eventlog.h"
#include "libhearth/resume.h"

struct resume {
    zhashx_t *stages; /* fingerprint -> cJSON array of its outputs */
    zhashx_t *names;  /* stage names seen -> "" */
    uint64_t count;
    uint32_t max_shuffle_id;
    char app_id[64];
    int64_t epoch; /* the resumed driver's */
};

static void
s_free_array (void **item)
{
    cJSON *a = *item;
    cJSON_Delete (a);
    *item = NULL;
}

resume_t *
resume_new (const char *app_id, int64_t epoch)
{
    resume_t *self = calloc (1, sizeof *self);
    if (self) {
        snprintf (self->app_id, sizeof self->app_id, "%s", app_id);
        self->epoch = epoch;
    }
    if (!self || !(self->stages = zhashx_new ())
        || !(self->names = zhashx_new ())) {
        resume_destroy (&self);
        return NULL;
    }
    zhashx_set_destructor (self->stages, s_free_array);
    return self;
}

void
resume_destroy (resume_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    resume_t *self = *self_p;
    zhashx_destroy (&self->stages);
    zhashx_destroy (&self->names);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* Whether o is an output a stage could use. */
static bool
s_whole (const cJSON *o)
{
    const char *kind = hearth_json_str (o, "kind");
    if (!hearth_json_str (o, "stage") || !kind
        || hearth_json_int (o, "index", -1) < 0
        || hearth_json_bool (o, "lost", false))
        return false;
    if (streq (kind, "map"))
        return hearth_json_str (o, "server")
               && cJSON_IsArray (cJSON_GetObjectItemCaseSensitive (o, "sizes"))
               && hearth_json_int (o, "shuffle_id", 0) > 0;
    return streq (kind, "part") && hearth_json_str (o, "name");
}

int
resume_add (resume_t *self, const cJSON *outputs)
{
    const cJSON *o;
    cJSON_ArrayForEach (o, outputs)
    {
        if (!s_whole (o))
            continue;
        const char *fp = hearth_json_str (o, "stage");
        cJSON *list = zhashx_lookup (self->stages, fp);
        if (!list) {
            if (!(list = cJSON_CreateArray ()))
                return -1;
            zhashx_insert (self->stages, fp, list);
        }
        cJSON *copy = cJSON_Duplicate (o, true);
        if (!copy)
            return -1;
        cJSON_AddItemToArray (list, copy);
        const char *name = hearth_json_str (o, "stage_name");
        if (name && !zhashx_lookup (self->names, name))
            zhashx_insert (self->names, name, (void *) "");
        uint32_t sid = (uint32_t) hearth_json_int (o, "shuffle_id", 0);
        if (sid > self->max_shuffle_id)
            self->max_shuffle_id = sid;
        self->count++;
    }
    return 0;
}

uint64_t
resume_count (const resume_t *self)
{
    return self ? self->count : 0;
}

uint32_t
resume_max_shuffle_id (const resume_t *self)
{
    return self ? self->max_shuffle_id : 0;
}

bool
resume_knows_name (const resume_t *self, const char *name)
{
    return self && name && zhashx_lookup (self->names, name);
}

/* Map output o of partitioned (or read whole) st: into its table.  The
   shuffle id is the first one met: one of another id is not this
   stage's (never the case, but never trusted). */
static bool
s_take_map (hearth_stage_t *st, shuffle_servers_t *servers, const cJSON *o,
            uint64_t index)
{
    uint32_t partitions = shuffle_partitions (st);
    uint32_t sid = (uint32_t) hearth_json_int (o, "shuffle_id", 0);
    const cJSON *sizes = cJSON_GetObjectItemCaseSensitive (o, "sizes");
    if ((size_t) cJSON_GetArraySize (sizes) != partitions
        || (st->shuffle_id && st->shuffle_id != sid))
        return false;
    mapout_t *mo = &st->maps[index];
    uint64_t *v = malloc (partitions * sizeof *v);
    if (!v)
        return false;
    const cJSON *s;
    uint32_t i = 0;
    cJSON_ArrayForEach (s, sizes) v[i++] =
        cJSON_IsNumber (s) && s->valuedouble >= 0 ? (uint64_t) s->valuedouble
                                                  : 0;
    free (mo->sizes); /* a later record of the same output */
    uint32_t server =
        shuffle_servers_intern (servers, hearth_json_str (o, "server"),
                                hearth_json_str (o, "server_key"));
    shuffle_servers_set_worker (servers, server,
                                hearth_json_str (o, "worker_id"));
    *mo = (mapout_t){
        v, server, (uint32_t) hearth_json_int (o, "attempt", 0), false, 0, 0};
    st->shuffle_id = sid;
    return true;
}

/* st's records (list) into its tables.  How many were taken. */
static uint64_t
s_take (hearth_stage_t *st, shuffle_servers_t *servers, const cJSON *list)
{
    bool map = shuffle_partitions (st) > 0;
    uint64_t taken = 0;
    const cJSON *o;
    cJSON_ArrayForEach (o, list)
    {
        uint64_t index = (uint64_t) hearth_json_int (o, "index", -1);
        const char *kind = hearth_json_str (o, "kind");
        if (index >= st->ntasks)
            continue;
        bool ok =
            map ? streq (kind, "map") && s_take_map (st, servers, o, index)
                : streq (kind, "part") && st->output_dir;
        if (ok && !st->had[index]) {
            st->had[index] = true;
            taken++;
        }
    }
    return taken;
}

int
resume_match (resume_t *self, hearth_job_t *job, shuffle_servers_t *servers,
              resume_match_t *out)
{
    *out = (resume_match_t){.stages = job->nstages};
    for (size_t i = 0; self && i < job->nstages; i++) {
        hearth_stage_t *st = job->stages[i];
        /* only outputs left on the workers or in files are recorded */
        if (st->held || (!shuffle_partitions (st) && !st->output_dir))
            continue;
        const cJSON *list = zhashx_lookup (self->stages, st->fp);
        if (!list) {
            out->changed += resume_knows_name (self, st->name);
            continue;
        }
        if (!(st->had = calloc (st->ntasks ? st->ntasks : 1, sizeof *st->had))
            || (shuffle_partitions (st)
                && !(st->maps = calloc (st->ntasks ? st->ntasks : 1,
                                        sizeof *st->maps))))
            return -1;
        st->shuffle_id = 0;
        uint64_t taken = s_take (st, servers, list);
        if (!taken) { /* nothing usable: runs as new */
            free (st->had);
            st->had = NULL;
            free (st->maps);
            st->maps = NULL;
            continue;
        }
        st->held = st->resumed = true;
        out->matched++;
        out->outputs += taken;
    }
    return 0;
}

void
resume_fill_parts (resume_t *self, hearth_stage_t *st)
{
    const cJSON *list = self && st->resumed && st->parts
                            ? zhashx_lookup (self->stages, st->fp)
                            : NULL;
    const cJSON *o;
    cJSON_ArrayForEach (o, list)
    {
        uint64_t index = (uint64_t) hearth_json_int (o, "index", -1);
        const char *host = hearth_json_str (o, "host");
        if (index >= st->ntasks || !streq (hearth_json_str (o, "kind"), "part"))
            continue;
        hearth_part_file_t *f = &st->parts[index];
        free (f->name);
        free (f->host);
        f->name = strdup (hearth_json_str (o, "name"));
        f->host = host && *host ? strdup (host) : NULL;
        f->bytes = (uint64_t) hearth_json_int (o, "bytes", 0);
    }
}

void
resume_report (resume_t *self, eventlog_t *el, hearth_job_t *job,
               const resume_match_t *m)
{
    size_t skipped = 0;
    uint64_t tasks = 0, to_run = 0;
    for (size_t i = 0; i < job->nstages; i++) {
        const hearth_stage_t *st = job->stages[i];
        tasks += st->ntasks;
        to_run += st->ntasks - (st->held ? st->cached : 0);
        if (!st->resumed && resume_knows_name (self, st->name)
            && (shuffle_partitions (st) || st->output_dir))
            log_warn ("job %s, stage %s: changed since the application's "
                      "earlier driver ran it (its tasks, files or inputs): "
                      "it runs again, and every stage after it",
                      job->name, st->name);
        if (!st->resumed || st->cached < st->ntasks)
            continue;
        skipped++;
        eventlog_begin (el, "stage_skipped");
        eventlog_int (el, "job", (int64_t) job->id);
        eventlog_int (el, "stage", st->uid);
        eventlog_str (el, "name", st->name);
        eventlog_int (el, "tasks", (int64_t) st->ntasks);
        eventlog_str (el, "reason",
                      "its outputs were recorded by an earlier driver of the "
                      "application and are still held");
        eventlog_end (el);
    }
    /* said whatever the log level: the user must know that not
       everything ran */
    log_warn ("resumed %s: %zu of %zu stages skipped, %llu of %llu tasks to "
              "run (job %s, driver epoch %lld: %llu outputs of %zu stages "
              "reused)",
              self->app_id, skipped, m->stages, (unsigned long long) to_run,
              (unsigned long long) tasks, job->name, (long long) self->epoch,
              (unsigned long long) m->outputs, m->matched);
}

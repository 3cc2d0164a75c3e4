/*  webjson.c - Spark's master /json document from the master's state
    document; see web.h.  Field names are Spark standalone's
    (JsonProtocol.writeMasterState), so that dashboards and scripts made
    for Spark read it; memory is in MiB as there, times in ms since the
    epoch, and states are Hearth's (the same names as Spark's for
    workers and applications). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "master/web.h"

static double
s_num (const cJSON *o, const char *name)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsNumber (n) ? n->valuedouble : 0;
}

static const char *
s_str (const cJSON *o, const char *name)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsString (s) ? s->valuestring : "";
}

static bool
s_is (const cJSON *o, const char *name, const char *value)
{
    return strcmp (s_str (o, name), value) == 0;
}

/* Spark's submitdate: a date in words (UTC). */
static void
s_add_date (cJSON *o, double ms)
{
    char buf[64];
    time_t t = (time_t) (ms / 1000);
    struct tm tm;
    if (!gmtime_r (&t, &tm)
        || !strftime (buf, sizeof buf, "%a %b %d %H:%M:%S UTC %Y", &tm))
        snprintf (buf, sizeof buf, "?");
    cJSON_AddStringToObject (o, "submitdate", buf);
}

static cJSON *
s_worker (const cJSON *w, double *sums)
{
    cJSON *o = cJSON_CreateObject ();
    double cores = s_num (w, "cores"), used = s_num (w, "cores_used");
    double mem = s_num (w, "memory_mb"), mem_used = s_num (w, "memory_used_mb");
    cJSON_AddStringToObject (o, "id", s_str (w, "id"));
    cJSON_AddStringToObject (o, "host", s_str (w, "host"));
    cJSON_AddStringToObject (o, "webuiaddress", s_str (w, "web_url"));
    cJSON_AddNumberToObject (o, "cores", cores);
    cJSON_AddNumberToObject (o, "coresused", used);
    cJSON_AddNumberToObject (o, "coresfree", cores - used);
    cJSON_AddNumberToObject (o, "memory", mem);
    cJSON_AddNumberToObject (o, "memoryused", mem_used);
    cJSON_AddNumberToObject (o, "memoryfree", mem - mem_used);
    cJSON_AddStringToObject (o, "state", s_str (w, "state"));
    cJSON_AddNumberToObject (o, "lastheartbeat",
                             s_num (w, "last_heartbeat_ms"));
    if (s_is (w, "state", "ALIVE")) { /* Spark counts alive workers only */
        sums[0] += 1;
        sums[1] += cores;
        sums[2] += used;
        sums[3] += mem;
        sums[4] += mem_used;
    }
    return o;
}

static bool
s_app_active (const cJSON *a)
{
    return s_is (a, "state", "WAITING") || s_is (a, "state", "RUNNING");
}

static cJSON *
s_app (const cJSON *a, double now)
{
    cJSON *o = cJSON_CreateObject ();
    double start = s_num (a, "submit_ms");
    double end = cJSON_HasObjectItem (a, "end_ms") ? s_num (a, "end_ms") : now;
    double mem = s_num (a, "memory_per_executor_mb");
    cJSON_AddStringToObject (o, "id", s_str (a, "id"));
    cJSON_AddNumberToObject (o, "starttime", start);
    cJSON_AddStringToObject (o, "name", s_str (a, "name"));
    cJSON_AddNumberToObject (o, "cores", s_num (a, "cores_granted"));
    cJSON_AddStringToObject (o, "user", s_str (a, "user"));
    cJSON_AddNumberToObject (o, "memoryperexecutor", mem);
    cJSON_AddNumberToObject (o, "memoryperslave", mem);
    s_add_date (o, start);
    cJSON_AddStringToObject (o, "state", s_str (a, "state"));
    cJSON_AddNumberToObject (o, "duration", end - start);
    return o;
}

static bool
s_driver_active (const cJSON *d)
{
    return s_is (d, "state", "SUBMITTED") || s_is (d, "state", "RUNNING")
           || s_is (d, "state", "RELAUNCHING");
}

static cJSON *
s_driver (const cJSON *d)
{
    cJSON *o = cJSON_CreateObject ();
    double start = s_num (d, "submit_ms");
    cJSON_AddStringToObject (o, "id", s_str (d, "id"));
    cJSON_AddNumberToObject (o, "starttime", start);
    cJSON_AddStringToObject (o, "state", s_str (d, "state"));
    cJSON_AddNumberToObject (o, "cores", s_num (d, "cores"));
    cJSON_AddNumberToObject (o, "memory", s_num (d, "memory_mb"));
    s_add_date (o, start);
    cJSON_AddStringToObject (o, "worker", s_str (d, "worker_id"));
    cJSON_AddStringToObject (o, "mainclass", s_str (d, "name"));
    return o;
}

cJSON *
master_web_spark_json (const cJSON *state)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    double sums[5] = {0}, now = s_num (state, "time_ms");
    const cJSON *item;
    cJSON_AddStringToObject (o, "url", s_str (state, "url"));
    cJSON *workers = cJSON_AddArrayToObject (o, "workers");
    cJSON_ArrayForEach (item, cJSON_GetObjectItem (state, "workers"))
        cJSON_AddItemToArray (workers, s_worker (item, sums));
    cJSON_AddNumberToObject (o, "aliveworkers", sums[0]);
    cJSON_AddNumberToObject (o, "cores", sums[1]);
    cJSON_AddNumberToObject (o, "coresused", sums[2]);
    cJSON_AddNumberToObject (o, "memory", sums[3]);
    cJSON_AddNumberToObject (o, "memoryused", sums[4]);
    cJSON *active = cJSON_AddArrayToObject (o, "activeapps");
    cJSON *done = cJSON_AddArrayToObject (o, "completedapps");
    cJSON_ArrayForEach (item, cJSON_GetObjectItem (state, "apps"))
        cJSON_AddItemToArray (s_app_active (item) ? active : done,
                              s_app (item, now));
    active = cJSON_AddArrayToObject (o, "activedrivers");
    done = cJSON_AddArrayToObject (o, "completeddrivers");
    cJSON_ArrayForEach (item, cJSON_GetObjectItem (state, "drivers"))
        cJSON_AddItemToArray (s_driver_active (item) ? active : done,
                              s_driver (item));
    cJSON_AddStringToObject (o, "status", s_str (state, "status"));
    return o;
}

/*  webjson.c - Spark's worker /json document, made from the worker's
    state document (web.c); see webjson.h.  Field names are Spark
    standalone's (JsonProtocol.writeWorkerState), so that dashboards and
    scripts made for Spark's workers read it: memory in MiB, times in ms
    since the epoch, states Hearth's.  A worker holds a few dozen
    children at most: a tree of each document is cheap here (the master's
    /json, for thousands of workers, is written as text: master/webjson.c).
*/
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "libcore/proto.h"
#include "worker/webjson.h"

/* A string field of o, "" when absent. */
static const char *
s_str (const cJSON *o, const char *name)
{
    const char *v = hearth_json_str (o, name);
    return v ? v : "";
}

static double
s_num (const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsNumber (v) ? v->valuedouble : 0;
}

/* An executor of the state document, in Spark's words. */
static cJSON *
s_executor (const cJSON *e)
{
    cJSON *o = cJSON_CreateObject ();
    cJSON_AddNumberToObject (o, "id", s_num (e, "exec_id"));
    cJSON_AddStringToObject (o, "appid", s_str (e, "app_id"));
    cJSON_AddNumberToObject (o, "cores", s_num (e, "cores"));
    cJSON_AddNumberToObject (o, "memory", s_num (e, "memory_mb"));
    const char *state = s_str (e, "state"); /* a live one has none */
    cJSON_AddStringToObject (o, "state", *state ? state : "RUNNING");
    cJSON_AddNumberToObject (o, "starttime", s_num (e, "started_ms"));
    return o;
}

/* A driver of the state document, in Spark's words. */
static cJSON *
s_driver (const cJSON *d)
{
    cJSON *o = cJSON_CreateObject ();
    cJSON_AddStringToObject (o, "id", s_str (d, "driver_id"));
    cJSON_AddNumberToObject (o, "starttime", s_num (d, "started_ms"));
    cJSON_AddStringToObject (o, "state", s_str (d, "state"));
    cJSON_AddNumberToObject (o, "cores", s_num (d, "cores"));
    cJSON_AddNumberToObject (o, "memory", s_num (d, "memory_mb"));
    return o;
}

/* The children of list (the state document's), running under live and
   ended under done, each made by make. */
static void
s_split (const cJSON *list, cJSON *live, cJSON *done,
         cJSON *(*make) (const cJSON *) )
{
    const cJSON *c;
    cJSON_ArrayForEach (c, list)
    {
        bool ended = s_num (c, "ended_ms") > 0;
        cJSON_AddItemToArray (ended ? done : live, make (c));
    }
}

cJSON *
webjson_spark (const cJSON *st)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddStringToObject (o, "id", s_str (st, "id"));
    cJSON_AddStringToObject (o, "masterurl", s_str (st, "master"));
    cJSON_AddStringToObject (o, "masterwebuiurl", s_str (st, "master_web_url"));
    cJSON_AddNumberToObject (o, "cores", s_num (st, "cores"));
    cJSON_AddNumberToObject (o, "coresused", s_num (st, "cores_used"));
    cJSON_AddNumberToObject (o, "memory", s_num (st, "memory_mb"));
    cJSON_AddNumberToObject (o, "memoryused", s_num (st, "memory_used_mb"));
    cJSON *execs = cJSON_AddArrayToObject (o, "executors");
    cJSON *done_execs = cJSON_AddArrayToObject (o, "finishedexecutors");
    cJSON *drivers = cJSON_AddArrayToObject (o, "drivers");
    cJSON *done_drivers = cJSON_AddArrayToObject (o, "finisheddrivers");
    s_split (cJSON_GetObjectItem (st, "executors"), execs, done_execs,
             s_executor);
    s_split (cJSON_GetObjectItem (st, "drivers"), drivers, done_drivers,
             s_driver);
    return o;
}

/*  webjson.h - Spark's worker /json document (JsonProtocol's worker
    state), made from the worker's state document (web.h). */
#ifndef HEARTH_WORKER_WEBJSON_H
#define HEARTH_WORKER_WEBJSON_H

#include <cjson/cJSON.h>

/* Spark's document for state (worker_web_state's): a new tree, or
   NULL on no memory. */
cJSON *webjson_spark (const cJSON *state);

#endif

/*  master_msgs.h - the messages the driver's link to the master sends,
    built from what the link knows (master.c sends them): registering and
    unregistering the application.  Pure construction: no socket, no
    state.
*/
#ifndef HEARTH_LIBHEARTH_MASTER_MSGS_H
#define HEARTH_LIBHEARTH_MASTER_MSGS_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "libcore/conf.h"
#include "libcore/proto.h"

/* What REGISTER_APPLICATION says of the application (all borrowed). */
typedef struct {
    hearth_conf_t *conf;    /* total-executor-cores, executor-cores,
                               driver-id */
    const char *name;       /* the application's name */
    const char *driver_url; /* where executors connect */
    const char *app_id;     /* its id, registering again; or NULL / "" */
    const char *token;      /* executors must present it */
    const char *driver_key; /* the executors' link's key, or NULL / "" */
    int64_t memory_mb;      /* per executor */
    int64_t driver_epoch;   /* the master's word (registering again), or 0 */
} master_reg_t;

/* A REGISTER_APPLICATION of reg, listing executors (taken; NULL: a first
   registration), for the caller to send.  NULL on no memory. */
hearth_msg_t *master_msg_register (const master_reg_t *reg, cJSON *executors);

/* An UNREGISTER_APPLICATION of app_id, ending in state for reason (all
   borrowed), from the driver of driver_epoch (0: not told).  NULL on no memory.
 */
hearth_msg_t *master_msg_unregister (const char *app_id, const char *state,
                                     const char *reason, int64_t driver_epoch);

#endif

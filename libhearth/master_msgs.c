/*  master_msgs.c - REGISTER_APPLICATION and UNREGISTER_APPLICATION, as
    the driver's link to the master sends them; see master_msgs.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libcore/ids.h"
#include "libhearth/dynalloc_opts.h"
#include "libhearth/eventlog.h"
#include "libhearth/internal.h"
#include "libhearth/master_int.h"
#include "libhearth/master_msgs.h"

/* The longest path REGISTER_APPLICATION's event_log carries. */
static const size_t s_max_path = 4096;

/* The event log's directory, absolute (it exists: eventlog_check_dir
   made it at start-up), or NULL when there is none; caller frees. */
static char *
s_event_log_dir (const hearth_conf_t *conf)
{
    const char *dir = eventlog_dir (conf);
    if (!dir || !*dir)
        return NULL;
    char *abs = realpath (dir, NULL);
    if (!abs || strlen (abs) > s_max_path) {
        free (abs);
        return dir[0] == '/' && strlen (dir) <= s_max_path ? strdup (dir)
                                                           : NULL;
    }
    return abs;
}

hearth_msg_t *
master_msg_register (const master_reg_t *reg, cJSON *executors)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_APPLICATION);
    if (!msg) {
        cJSON_Delete (executors);
        return NULL;
    }
    cJSON *b = msg->body;
    hearth_conf_t *conf = reg->conf;
    cJSON_AddStringToObject (b, "name", reg->name);
    cJSON_AddStringToObject (b, "driver_url", reg->driver_url);
    if (hearth_conf_isset (conf, "total-executor-cores"))
        cJSON_AddNumberToObject (
            b, "max_cores",
            (double) hearth_conf_int (conf, "total-executor-cores"));
    if (hearth_conf_isset (conf, "executor-cores"))
        cJSON_AddNumberToObject (
            b, "cores_per_executor",
            (double) hearth_conf_int (conf, "executor-cores"));
    /* Dynamic allocation: the first target comes with the application,
       before the master's first pass can give it every core. */
    dynalloc_opts_t dyn;
    if (hearth_conf_bool (conf, "dynamic-allocation")
        && dynalloc_opts_from_conf (conf, &dyn, NULL) == 0)
        cJSON_AddNumberToObject (b, "executor_target", dyn.initial_executors);
    hearth_resource_amounts_t amounts;
    if (driver_executor_resources (conf, &amounts, NULL) == 0) {
        if (amounts.n) /* checked when the context was made */
            cJSON_AddItemToObject (b, "executor_resources",
                                   hearth_resource_amounts_to_json (&amounts));
        hearth_resource_amounts_clear (&amounts);
    }
    cJSON *labels;
    if (driver_executor_labels (conf, &labels, NULL) == 0 && labels)
        cJSON_AddItemToObject (b, "executor_labels", labels); /* checked */
    cJSON_AddNumberToObject (
        b, "memory_per_executor_mb",
        (double) (reg->memory_mb > 0 ? reg->memory_mb : 1));
    if (reg->app_id && reg->app_id[0])
        cJSON_AddStringToObject (b, "app_id", reg->app_id);
    else if (hearth_conf_str (conf, "resume") /* hearth-submit --resume */
             && *hearth_conf_str (conf, "resume"))
        cJSON_AddStringToObject (b, "resume", hearth_conf_str (conf, "resume"));
    if (reg->driver_epoch > 0)
        cJSON_AddNumberToObject (b, MASTER_DRIVER_EPOCH,
                                 (double) reg->driver_epoch);
    if (executors) /* again: what still runs */
        cJSON_AddItemToObject (b, "executors", executors);
    cJSON_AddStringToObject (b, "token", reg->token);
    if (reg->driver_key && reg->driver_key[0])
        cJSON_AddStringToObject (b, "driver_key", reg->driver_key);
    /* Cluster mode: the worker that runs us says which driver we are. */
    const char *driver_id = hearth_conf_str (conf, "driver-id");
    if (driver_id && hearth_id_valid (HEARTH_ID_DRIVER, driver_id))
        cJSON_AddStringToObject (b, "driver_id", driver_id);
    char *dir = s_event_log_dir (conf);
    if (dir)
        cJSON_AddStringToObject (b, "event_log", dir);
    free (dir);
    /* who runs the driver, as its event log says (a label: no control
       character): the master's state and pages show it */
    char user[256];
    driver_user_name (user, sizeof user);
    cJSON_AddStringToObject (b, "user", user);
    return msg;
}

hearth_msg_t *
master_msg_unregister (const char *app_id, const char *state,
                       const char *reason, int64_t driver_epoch)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_UNREGISTER_APPLICATION);
    if (!msg)
        return NULL;
    cJSON_AddStringToObject (msg->body, "app_id", app_id);
    cJSON_AddStringToObject (msg->body, "state", state);
    cJSON_AddStringToObject (msg->body, "message", reason);
    if (driver_epoch > 0)
        cJSON_AddNumberToObject (msg->body, MASTER_DRIVER_EPOCH,
                                 (double) driver_epoch);
    return msg;
}

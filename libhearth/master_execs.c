/*  master_execs.c - what the driver's link to the master asks about the
    application's executors: one given up on (KILL_EXECUTOR), how many it
    wants (REQUEST_EXECUTORS, dynamic allocation), the idle ones it gives
    back (KILL_EXECUTORS); and its progress summaries.  Each only on a
    registered link (master.h says what the owner may call). */
#include "config.h"

#include "libhearth/master_int.h"

void
master_link_release_executor (master_link_t *self, int exec_id,
                              const char *reason)
{
    if (!master_link_up (self))
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_EXECUTOR);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "app_id", self->app_id);
    cJSON_AddNumberToObject (msg->body, "exec_id", exec_id);
    cJSON_AddStringToObject (msg->body, "reason", reason);
    master_link_send (self, &msg);
}

void
master_link_request_executors (master_link_t *self, int total,
                               const char *const *places,
                               const uint64_t *counts, size_t n)
{
    if (!master_link_up (self) || self->finishing)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REQUEST_EXECUTORS);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "app_id", self->app_id);
    cJSON_AddNumberToObject (msg->body, "total", total);
    cJSON *where = n ? cJSON_AddObjectToObject (msg->body, "places") : NULL;
    for (size_t i = 0; where && i < n; i++)
        cJSON_AddNumberToObject (where, places[i], (double) counts[i]);
    master_link_send (self, &msg);
}

void
master_link_kill_executors (master_link_t *self, const int *exec_ids, size_t n)
{
    if (!master_link_up (self) || self->finishing)
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_EXECUTORS);
    cJSON *ids = msg ? cJSON_AddArrayToObject (msg->body, "exec_ids") : NULL;
    if (!ids) {
        hearth_msg_destroy (&msg);
        return;
    }
    cJSON_AddStringToObject (msg->body, "app_id", self->app_id);
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray (ids, cJSON_CreateNumber (exec_ids[i]));
    master_link_send (self, &msg);
}

int
master_link_send_progress (master_link_t *self, hearth_msg_t **msg_p)
{
    if (!master_link_up (self) || self->finishing) {
        hearth_msg_destroy (msg_p);
        return -1;
    }
    return master_link_send (self, msg_p);
}

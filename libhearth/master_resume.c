/*  master_resume.c - the driver's link to the master, for resuming
    (issue 39): the driver epoch the master gave, a resumed registration
    and the outputs table that follows it (APPLICATION_OUTPUTS), the
    outputs told as they happen (OUTPUTS_RECORDED), and a newer driver's
    fence.  See master.h and resume.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "libcore/log.h"
#include "libhearth/master_int.h"
#include "libhearth/record.h"
#include "libhearth/resume.h"

bool
master_resume_registered (master_link_t *self, const hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    int64_t epoch = hearth_json_int (b, MASTER_DRIVER_EPOCH, 0);
    if (epoch > 0)
        self->driver_epoch = epoch;
    if (!hearth_json_bool (b, "resumed", false))
        return false;
    const char *token = hearth_json_str (b, "token");
    if (token && *token) /* the workers holding its files know this one */
        snprintf (self->token, sizeof self->token, "%s", token);
    snprintf (self->app_id, sizeof self->app_id, "%s",
              hearth_json_str (b, "app_id"));
    resume_destroy (&self->resume);
    if (!(self->resume = resume_new (self->app_id, self->driver_epoch))) {
        log_error ("out of memory for the outputs of application %s: it "
                   "runs as new",
                   self->app_id);
        return false;
    }
    log_info ("application %s resumed (driver epoch %lld): reading what its "
              "earlier driver recorded",
              self->app_id, (long long) self->driver_epoch);
    return true;
}

bool
master_resume_outputs (master_link_t *self, const hearth_msg_t *msg)
{
    if (!self->resume) {
        log_warn ("APPLICATION_OUTPUTS from the master, but the application "
                  "was not resumed: ignored");
        return false;
    }
    if (resume_add (self->resume,
                    cJSON_GetObjectItemCaseSensitive (msg->body, "outputs"))
        < 0)
        log_error ("out of memory reading the outputs of application %s: "
                   "some will be made again",
                   self->app_id);
    if (!hearth_json_bool (msg->body, "last", false))
        return false;
    log_info ("application %s: %llu outputs recorded by its earlier driver",
              self->app_id, (unsigned long long) resume_count (self->resume));
    return true;
}

hearth_msg_t *
master_resume_outputs_msg (master_link_t *self, record_t *record)
{
    cJSON *batch = record_take (record);
    if (!batch)
        return NULL;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_OUTPUTS_RECORDED);
    if (!msg) {
        record_put_back (record, batch);
        return NULL;
    }
    cJSON_AddStringToObject (msg->body, "app_id", self->app_id);
    cJSON_AddNumberToObject (
        msg->body, MASTER_DRIVER_EPOCH,
        (double) (self->driver_epoch > 0 ? self->driver_epoch : 1));
    cJSON_AddItemToObject (msg->body, "outputs", batch);
    return msg;
}

bool
master_resume_fenced (master_link_t *self, const hearth_msg_t *msg,
                      const char *text)
{
    if (!streq (hearth_json_str (msg->body, "code"), "fenced"))
        return false;
    log_error ("%s: this driver is fenced off; it stops", text);
    self->fenced = true;
    self->unregistered = true; /* its end is the newer driver's to say */
    self->cbs.app_dead (self->cbs.arg, text);
    return true;
}

int64_t
master_link_driver_epoch (const master_link_t *self)
{
    return self->driver_epoch;
}

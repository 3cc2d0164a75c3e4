/*  resume.h - resumable applications, the master's side (issue 39): an
    application whose driver is lost waits RELAUNCHING for the resume
    window (--resume-window) with its outputs table, a driver resumes it
    (REGISTER_APPLICATION `resume`, or a cluster-mode driver relaunched
    under its driver id) under the next driver epoch, and an older epoch
    is fenced.  The records are the registry's (registry.h,
    regresume.c); this file decides and answers.

    Every function borrows what it is given.
*/
#ifndef HEARTH_MASTER_RESUME_H
#define HEARTH_MASTER_RESUME_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "libcore/dispatch.h"
#include "master/master.h"

/* app's driver is lost without having ended it (no heartbeat, its
   cluster-mode driver ended otherwise than FINISHED or killed, not back
   after a restart): RELAUNCHING for the resume window, the reason
   (today's, e.g. "driver lost: no heartbeat for 5000 ms") saying until
   when; with --resume-window 0, FAILED for reason as before.  Its
   executors are killed either way. */
void master_app_driver_lost (master_t *m, reg_app_t *app, const char *reason);

/* The tick: RELAUNCHING applications whose window passed end FAILED
   (their workers hear APPLICATION_REMOVED).  Not while recovering: the
   workers that hold their files are not all back. */
void master_resume_tick (master_t *m);

/* The sender's body b (REGISTER_APPLICATION, UNREGISTER_APPLICATION,
   OUTPUTS_RECORDED: its `epoch`) is of an older driver of app than the
   application's: answers ERROR fenced (command: its name) and returns
   true. */
bool master_resume_fenced (master_t *m, zframe_t *rid, reg_app_t *app,
                           const cJSON *b, const char *command);

/* REGISTERED_APPLICATION for app {app_id, heartbeat_interval_ms,
   heartbeat_liveness, epoch}: a new message the caller sends, or NULL on
   no memory. */
hearth_msg_t *master_registered_app (master_t *m, reg_app_t *app);

/* A REGISTER_APPLICATION b that resumes an application: with `resume`;
   from a cluster-mode driver (`driver_id`, its own key) whose previous
   application is RELAUNCHING; or from the RELAUNCHING application's own
   driver registering again under its `app_id` (its driver_url and token,
   its epoch if said: it was cut off, not dead).  Returns 1 with *app the
   application to resume (the sender may), 0 when b resumes nothing, -1
   after refusing it (ERROR not_resumable or not_allowed). */
int master_resume_check (master_t *m, const hearth_from_t *from, const cJSON *b,
                         reg_app_t **app);

/* Resume app for the sender of b (after master_resume_check): the
   registry's record changes (registry_app_resume), and the sender hears
   REGISTERED_APPLICATION {epoch, resumed, token} then the application's
   table (APPLICATION_OUTPUTS, the last with `last`).  Returns 0, or -1
   after answering an error. */
int master_resume_app (master_t *m, const hearth_from_t *from, reg_app_t *app,
                       const cJSON *b);

/* OUTPUTS_RECORDED: the application's driver's news of its outputs. */
void master_outputs_recorded (void *arg, const hearth_from_t *from,
                              hearth_msg_t *msg);

#endif

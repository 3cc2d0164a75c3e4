/*  submit_admin.h - hearth-submit's admin commands (submit_admin.c):
    --status, --kill and --logs of a cluster-mode driver, --kill of an
    application.  Each takes the settings (borrowed) and an id (borrowed),
    prints its own messages and returns the process's exit status: 0, 2
    for a usage mistake (an id that is not one, a --master that is not
    tcp://), else 1.
*/
#ifndef HEARTH_SUBMIT_SUBMIT_ADMIN_H
#define HEARTH_SUBMIT_SUBMIT_ADMIN_H

#include "libcore/conf.h"

/* --status DRIVER_ID: its state, worker, launches, error, output. */
int submit_status (hearth_conf_t *conf, const char *driver_id);

/* --kill DRIVER_ID: kill it (and its relaunches), wait until KILLED. */
int submit_kill (hearth_conf_t *conf, const char *driver_id);

/* --logs DRIVER_ID: its stdout (or --log-stream stderr) to stdout. */
int submit_logs (hearth_conf_t *conf, const char *driver_id);

/* --kill APP_ID: end an application (any deploy mode) KILLED. */
int submit_kill_app (hearth_conf_t *conf, const char *app_id);

#endif

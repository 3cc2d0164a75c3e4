/*  submit.h - hearth-submit's cluster-mode half (submit_cluster.c):
    handing an application to the master, following its driver, and the
    --status, --kill and --logs requests.  Each returns the process's exit
    status and prints its own messages. */
#ifndef HEARTH_DRIVER_SUBMIT_H
#define HEARTH_DRIVER_SUBMIT_H

#include <stdbool.h>

#include "libcore/conf.h"

/* Whether app is a JSON job file (named .json, or starting with '{'),
   not a driver program. */
bool submit_is_job_file (const char *app);

/* Submit argv[first] (a job file or a program) with argv[first + 1...]
   as its arguments; follow its driver unless --no-wait. */
int submit_cluster (hearth_conf_t *conf, int argc, char **argv, int first);

/* --status, --kill, --logs DRIVER_ID. */
int submit_status (hearth_conf_t *conf, const char *driver_id);
int submit_kill (hearth_conf_t *conf, const char *driver_id);
int submit_logs (hearth_conf_t *conf, const char *driver_id);

/* --kill APP_ID: end an application (any deploy mode) KILLED. */
int submit_kill_app (hearth_conf_t *conf, const char *app_id);

#endif

/*  submit_driver.h - hearth-submit in cluster mode: shipping an
    application to the master and following its driver (submit_driver.c).
    Each function that runs a command prints its own messages and returns
    the process's exit status.
*/
#ifndef HEARTH_SUBMIT_SUBMIT_DRIVER_H
#define HEARTH_SUBMIT_SUBMIT_DRIVER_H

#include <stdbool.h>

#include "libcore/conf.h"

/* Whether app (a path, borrowed) is a JSON job file (named .json, or
   starting with '{'), not a driver program.  Client mode asks too. */
bool submit_is_job_file (const char *app);

/* Submit argv[first] (a job file or a program) with argv[first + 1...]
   as its arguments, with its libraries and the driver settings of conf
   (all borrowed); print the driver id, then follow the driver to its end
   unless --no-wait.  Returns 0 when submitted (--no-wait) or when the
   driver FINISHED, 2 for a usage mistake, else 1. */
int submit_cluster (hearth_conf_t *conf, int argc, char **argv, int first);

#endif

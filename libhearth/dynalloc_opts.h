/*  dynalloc_opts.h - dynamic allocation's settings (driver options
    dynamic-allocation, min-, max-, initial-executors and the three
    timeouts) read into the schedule's options and checked, for the
    option checks (opts.c), the registration (master_msgs.c) and the
    manager (dynalloc.c). */
#ifndef HEARTH_LIBHEARTH_DYNALLOC_OPTS_H
#define HEARTH_LIBHEARTH_DYNALLOC_OPTS_H

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libhearth/dynalloc_sched.h"

/* The settings of conf (borrowed; read now) as schedule options: 0, or
   -1 with err set (a bad combination). */
int dynalloc_opts_from_conf (const hearth_conf_t *conf, dynalloc_opts_t *opts,
                             hearth_error_t *err);

/* Check conf's dynamic allocation settings where they are given (driver
   options): 0, or -1 with err set. */
int driver_check_dynalloc (const hearth_conf_t *conf, hearth_error_t *err);

#endif

/*  dynalloc_opts.c - dynamic allocation's settings as the schedule's
    options, and their check where they are given; see dynalloc_opts.h. */
#include "config.h"

#include <stdint.h>

#include "libhearth/dynalloc_opts.h"

static int
s_int (const hearth_conf_t *conf, const char *name, int dflt)
{
    return hearth_conf_isset (conf, name) ? (int) hearth_conf_int (conf, name)
                                          : dflt;
}

int
dynalloc_opts_from_conf (const hearth_conf_t *conf, dynalloc_opts_t *o,
                         hearth_error_t *err)
{
    char why[256];
    o->min_executors = s_int (conf, "min-executors", 0);
    o->max_executors = s_int (conf, "max-executors", INT32_MAX);
    o->initial_executors = s_int (conf, "initial-executors", o->min_executors);
    o->backlog_timeout_ms = hearth_conf_ms (conf, "scheduler-backlog-timeout");
    o->sustained_timeout_ms =
        hearth_conf_ms (conf, "sustained-scheduler-backlog-timeout");
    o->idle_timeout_ms = hearth_conf_ms (conf, "executor-idle-timeout");
    if (dynalloc_opts_check (o, why, sizeof why) < 0)
        return hearth_errprintf (err, "dynamic allocation: %s", why);
    return 0;
}

int
driver_check_dynalloc (const hearth_conf_t *conf, hearth_error_t *err)
{
    dynalloc_opts_t o;
    return dynalloc_opts_from_conf (conf, &o, err);
}

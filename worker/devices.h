/*  devices.h - the worker's custom resources (GPUs, FPGAs...): the
    addresses of --resource NAME=ADDRS and of --resource-discovery
    NAME=SCRIPT, gathered once at start (docs/resources.md).

    A discovery script runs with no arguments, stdin from /dev/null, in a
    process group of its own; it must exit 0 within the timeout and print
    Spark's format, {"name": NAME, "addresses": [...]}, on stdout.  What
    it writes on stderr goes to the worker's log (INFO, one line each).
    A failure, a timeout (the group is killed) or bad output is an error
    naming the script and what it printed.
*/
#ifndef HEARTH_WORKER_DEVICES_H
#define HEARTH_WORKER_DEVICES_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/loop.h"
#include "libcore/resources.h"

/* The options of conf's tables: "resource" and "resource-discovery",
   lists. */
/* clang-format off */
#define DEVICES_OPTIONS                                                      \
    {"resource", HEARTH_OPT_LIST, NULL, "NAME=ADDR[,ADDR...]",               \
     "addresses of a custom resource this worker offers, e.g. gpu=0,1 "      \
     "(repeatable; docs/resources.md)"},                                     \
    {"resource-discovery", HEARTH_OPT_LIST, NULL, "NAME=SCRIPT",             \
     "a program printing {\"name\": NAME, \"addresses\": [...]} at start "  \
     "(repeatable; its failure stops the worker)"},                          \
    {"resource-discovery-timeout", HEARTH_OPT_DURATION, "10s", "TIME",       \
     "how long one discovery script may run"}
/* clang-format on */

/* Fill the empty out with conf's --resource and --resource-discovery
   values (running each script, timeout_ms each, as a child of loop's,
   waited for here before the loop runs: hearth_loop_child_end).  A
   name given twice, by either, is an error.  0, or -1 with err and out
   left empty. */
int devices_gather (hearth_loop_t *loop, const hearth_conf_t *conf,
                    int64_t timeout_ms, hearth_resources_t *out,
                    hearth_error_t *err);

/* Whether every address of want is one of have's (same name): what a
   LAUNCH_EXECUTOR may hand an executor. */
bool devices_contains (const hearth_resources_t *have,
                       const hearth_resources_t *want);

#endif

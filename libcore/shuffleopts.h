/*  shuffleopts.h - the shuffle's bounds as settings (libcore/conf.h
    option entries), one definition for the two programs that take them:
    the driver, whose values are the application's and go to its
    executors in REGISTERED_EXECUTOR, and the executor, whose own flags
    they override.  docs/driver.md's settings table describes them. */
#ifndef HEARTH_SHUFFLEOPTS_H
#define HEARTH_SHUFFLEOPTS_H

#include "libcore/conf.h"

/* Four hearth_opt_t entries, for an option table. */
/* clang-format off */
#define HEARTH_SHUFFLE_BOUND_OPTS                                              \
    {"shuffle-memory", HEARTH_OPT_SIZE, "64M", "SIZE",                         \
     "records a map task holds before it spills them to its node's disk"},     \
    {"fetch-max-in-flight", HEARTH_OPT_SIZE, "48M", "SIZE",                    \
     "bytes a reduce task has asked of block servers and not yet received"},   \
    {"max-input-bytes", HEARTH_OPT_SIZE, "256M", "SIZE",                       \
     "largest reduce input a function task is given in memory (more fails "   \
     "the task; a command reads its input as a stream, unbounded)"},          \
    {"cache-memory", HEARTH_OPT_SIZE, "256M", "SIZE",                          \
     "reduce inputs of persisted stages (memory levels) an executor keeps "   \
     "in memory for the next task reading them there (0: none)"}
/* clang-format on */

#endif

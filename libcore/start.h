/*  start.h - the start every program's main shares: options, --help,
    --version, the log. */
#ifndef HEARTH_LIBCORE_START_H
#define HEARTH_LIBCORE_START_H

#include "libcore/conf.h"

/* Parse argv into conf (flags, then HEARTH_* variables and files), answer
   --help (the synopsis and description, then every option) and --version
   on stdout, refuse positional arguments, and open the log at its
   log-level and to its log-file (for each, when the program has that
   option: else info, and stderr).
   Returns 1 to go on, 0 when the program should exit 0 (it answered
   --help or --version), -1 when it should exit 2 (the message is on
   stderr, after the program's name). */
int hearth_start (hearth_conf_t *conf, int argc, char **argv,
                  const char *synopsis, const char *description);

#endif

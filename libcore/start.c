/*  start.c - the start every program's main shares; see start.h. */
#include "config.h"

#include <stdio.h>

#include "libcore/log.h"
#include "libcore/start.h"

int
hearth_start (hearth_conf_t *conf, int argc, char **argv, const char *synopsis,
              const char *description)
{
    const char *program = hearth_conf_program (conf);
    hearth_error_t err;
    int first = hearth_conf_parse (conf, argc, argv, &err);
    if (first < 0) {
        fprintf (stderr, "%s: %s\n", program, err.text);
        return -1;
    }
    if (hearth_conf_wants_help (conf)) {
        hearth_conf_usage (conf, stdout, synopsis, description);
        return 0;
    }
    if (hearth_conf_wants_version (conf)) {
        printf ("%s %s\n", program, PACKAGE_VERSION);
        return 0;
    }
    if (first < argc) {
        fprintf (stderr, "%s: unexpected argument '%s'\n", program,
                 argv[first]);
        return -1;
    }
    const char *level = hearth_conf_has (conf, "log-level")
                            ? hearth_conf_str (conf, "log-level")
                            : NULL;
    const char *file = hearth_conf_has (conf, "log-file")
                           ? hearth_conf_str (conf, "log-file")
                           : NULL;
    if (hearth_log_open (program, level, file, &err) < 0) {
        fprintf (stderr, "%s: %s\n", program, err.text);
        return -1;
    }
    return 1;
}

/*  childenv.h - what a worker's children (executors, cluster-mode
    drivers) inherit of the worker's own environment: one rule for
    every launcher, so that the two cannot disagree.

    The worker's environment holds what its service was given: its own
    settings as HEARTH_* variables (HEARTH_CURVE_SECRET, the path of its
    secret key; HEARTH_USER_MAP; HEARTH_LOG_FILE...), whatever a
    systemd EnvironmentFile or the shell that started it held.  A child
    would take HEARTH_* variables for its own settings (libcore/conf.h),
    and a child run as another user must learn nothing of root's.  So:

      - a child run as the worker's user gets the worker's environment
        without its HEARTH_* settings, but for HEARTH_BIN_DIR (where the
        programs are), HEARTH_CONF_DIR (the defaults file it reads) and
        HEARTH_COOKIE (the local cookie the worker presents, which a
        driver presents too: libcore/cookie.h);
      - a child run as another user (runas.h) gets only the allow-list:
        PATH, LANG, LANGUAGE, LC_*, TZ, HEARTH_BIN_DIR and HEARTH_CONF_DIR
        (and, in a build with AddressSanitizer, the sanitizers' options,
        which only such a build reads).  Its USER, LOGNAME and HOME are
        its user's, added by its launcher with what the launch itself
        gives (the application's token, its driver's key, a driver's
        settings and the variables it was given, its copies of the
        worker's keys).  Nothing else of the worker's reaches it: not
        HOME, not TMPDIR, not a variable the administrator set for the
        worker alone.

    Nothing here allocates but childenv_inherited's array.
*/
#ifndef HEARTH_WORKER_CHILDENV_H
#define HEARTH_WORKER_CHILDENV_H

#include <stdbool.h>

/* Whether the worker's entry "NAME=VALUE" goes to a child run as the
   worker's user (switched false) or as another user (switched true).
   An entry without '=' never does. */
bool childenv_inherits (const char *entry, bool switched);

/* The entries of env (NULL: this process's environment) that such a
   child inherits, in their order: a new NULL-terminated array (the
   caller frees it; the strings stay env's), or NULL with errno ENOMEM. */
const char **childenv_inherited (char *const *env, bool switched);

#endif

/*  ids.h - the identifiers of applications, drivers and workers.

    app-YYYYMMDDHHMMSS-NNNN      made by the master, NNNN a counter
    driver-YYYYMMDDHHMMSS-NNNN   made by the master (cluster mode)
    worker-YYYYMMDDHHMMSS-HOST-PID   made by the worker itself, unless
                                 the operator names it (--id node-a)

    App and driver ids sort by time and are unique per master; a worker
    id is any name of HEARTH_WORKER_ID_RULE's characters that is not an
    app or driver id.  Ids are used as directory names (WORK_DIR/APP_ID/...),
    so validation accepts only [A-Za-z0-9._-], never "/", "..", or a
    leading "." or "-".
*/
#ifndef HEARTH_IDS_H
#define HEARTH_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

typedef enum {
    HEARTH_ID_APP,    /* app-YYYYMMDDHHMMSS-NNNN */
    HEARTH_ID_DRIVER, /* driver-YYYYMMDDHHMMSS-NNNN */
    HEARTH_ID_WORKER, /* HEARTH_WORKER_ID_RULE; default worker-TIME-HOST-PID */
} hearth_id_kind_t;

/* Longest id accepted anywhere, not counting the NUL. */
#define HEARTH_ID_MAX 128

/* What a worker id may be, for error messages and --help. */
#define HEARTH_WORKER_ID_RULE                                                  \
    "1 to 128 letters, digits, '.', '_' or '-', not starting with '.' or "     \
    "'-', without '..', and not an app or driver id"

/* Write an app or driver id for time t (UTC) and counter seq into buf
   (at least HEARTH_ID_MAX + 1 bytes).  Returns buf. */
char *hearth_id_format (char *buf, size_t size, hearth_id_kind_t kind, time_t t,
                        unsigned seq);

/* Write a worker id for time t, host (characters outside [A-Za-z0-9.-]
   become '-') and pid into buf.  Returns buf. */
char *hearth_worker_id_format (char *buf, size_t size, time_t t,
                               const char *host, int pid);

/* True if id is a well-formed id of that kind. */
bool hearth_id_valid (hearth_id_kind_t kind, const char *id);

/* True if name is safe as one path component: 1..255 characters of
   [A-Za-z0-9._+-], not starting with '.' or '-'. */
bool hearth_name_safe (const char *name);

#endif

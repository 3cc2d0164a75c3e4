/*  cmdrules.h - the rules of command bodies that a schema cannot say
    (commands.c's table names them beside the schemas): a task is a
    command or a function, its argv[0] is not empty, a packed frame's
    records are whole, a reduce role's block records name its servers.
    Both borrow everything; the schema has checked the body's fields and
    that every frame index names one of the message's frames.
*/
#ifndef HEARTH_CMDRULES_H
#define HEARTH_CMDRULES_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/error.h"

/* LAUNCH_TASKS's tasks and packed records.  0, or -1 with err (code
   bad_field) naming the field. */
int hearth_cmdrules_tasks (const cJSON *body, zframe_t *const *frames,
                           size_t nframes, hearth_error_t *err);

/* STATUS_UPDATE's updates and packed records.  0, or -1 with err. */
int hearth_cmdrules_updates (const cJSON *body, zframe_t *const *frames,
                             size_t nframes, hearth_error_t *err);

/* APPLICATION_PROGRESS's timeline, if any (timeline_live.h).  0, or -1
   with err. */
int hearth_cmdrules_progress (const cJSON *body, zframe_t *const *frames,
                              size_t nframes, hearth_error_t *err);

#endif

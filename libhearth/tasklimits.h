/*  tasklimits.h - the limits of one task, checked when a job is built
    (hearth_job_submit for the C API, the loading of a job file), so that
    a task that no LAUNCH_TASKS can carry, or that Linux could not start,
    is refused before anything runs, with its place, the limit and its
    size (docs/jobs.md "Limits of a task"), instead of being refused by
    the codec at launch.

    The wire's limits are libcore's (proto.h, HEARTH_TASK_*); one is the
    driver's own: a command's argv and environment, together, at most
    TASKLIMITS_COMMAND_BYTES, Linux's ARG_MAX under the default 8 MiB
    stack (a larger one fails to start with E2BIG), which also bounds
    what one task adds to a LAUNCH_TASKS.  A group's strings are
    templates whose "{i}" becomes each task's index (render.c): the
    checks find the first index whose strings grow past a limit, without
    rendering any.  Pure functions: no allocation, nothing kept.
*/
#ifndef HEARTH_LIBHEARTH_TASKLIMITS_H
#define HEARTH_LIBHEARTH_TASKLIMITS_H

#include <stddef.h>
#include <stdint.h>

/* A command's argv and environment strings, each with its NUL. */
#define TASKLIMITS_COMMAND_BYTES ((uint64_t) 2 * 1024 * 1024)

/* What broke a limit, in the first task of a group that breaks one. */
typedef struct {
    uint64_t index; /* that task, counted from the group's first (0) */
    char text[200]; /* what, the limit and its size: "cmd[4] is 120000
                       bytes, over the 65536 a command's argument may be" */
} tasklimit_t;

/* count command tasks of the argv and env templates (NULL-terminated;
   env "NAME=VALUE" entries, may be NULL; borrowed).  Returns 0 when
   every task is within the limits, else -1 with *over. */
int tasklimits_command (const char *const *argv, const char *const *env,
                        uint64_t count, tasklimit_t *over);

/* count function tasks of fn and the arg template (NULL: none). */
int tasklimits_function (const char *fn, const char *arg, uint64_t count,
                         tasklimit_t *over);

#endif

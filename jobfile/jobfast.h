/*  jobfast.h - the simple tasks of a big "tasks" array read without the
    JSON parser.

    A job file of 200,000 tasks is nearly all `, {"fn": "noop", "arg":
    "task-17"}`, and yajl spends about 1,400 instructions on each (its
    tokens, its states, six callbacks).  Where the streaming reader
    (jobstream.c) knows that the parser has just read a task of a
    stage's "tasks" array, it hands the bytes that follow to
    jobfast_read(), which takes each following `, TASK` whose TASK is a
    simple task in its plainest form, straight into the store.  It takes
    only what yajl would read the same way and jobstream.c would store
    the same way: whitespace of spaces, tabs and line ends; strings
    without a backslash or a control character; "fn" (not empty) with or
    without "arg", in either order, or "cmd" alone with 1 to 16 strings;
    each key once.  It stops at the first byte of anything else, and at
    the end of the bytes given (a task cut there is the parser's): the
    parser then reads on from there, in the state it was left in (after
    a value of an array), so the file reads as if the parser had read it
    all.
*/
#ifndef HEARTH_JOBFILE_JOBFAST_H
#define HEARTH_JOBFILE_JOBFAST_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "jobfile/jobstore.h"

/* What jobfast_read() took. */
typedef struct {
    size_t used;     /* bytes, whole tasks only */
    size_t newlines; /* '\n' among them */
    size_t tail;     /* bytes after the last '\n' (all: no '\n') */
} jobfast_took_t;

/* Read the tasks `, TASK` at text (n bytes) into store, appended to the
   array tasks (jobstore_append).  Returns 0 with *took, or -1 on no
   memory (*took says what was stored before). */
int jobfast_read (const char *text, size_t n, jobstore_t *store, cJSON *tasks,
                  jobfast_took_t *took);

#endif

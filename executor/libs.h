/*  libs.h - the application's shipped libraries: dlopen'ed from the
    node's cache where they were fetched (shipfetch.h), and their task
    functions looked up (with a cache). */
#ifndef HEARTH_EXECUTOR_LIBS_H
#define HEARTH_EXECUTOR_LIBS_H

#include <czmq.h>

#include "executor/executor.h"
#include "libcore/error.h"
#include "libhearth/hearth.h"

/* A new, empty set.  NULL on no memory. */
libs_t *libs_new (void);

/* dlclose every library and free the set.  Accepts NULL and a NULL
 *self_p; nulls the pointer; keeps errno. */
void libs_destroy (libs_t **self_p);

/* Load one shipped library, name, from path (absolute; NULL: it could
   not be fetched, why in err): a library that does not load is kept with
   its error, which the tasks that need it get.  Returns 0 or -1 with
   err. */
int libs_add (libs_t *self, const char *name, const char *path,
              hearth_error_t *err);

/* The error code of a lookup that found every library loaded and none
   with the function: the same bytes go to every executor, so a retry
   elsewhere cannot find it either.  (A library that failed to load here
   may load on another host: that error has another code.) */
#define LIBS_NO_FUNCTION "no_function"

/* The function fn in library lib (or in any library when lib is NULL),
   or NULL with err (code LIBS_NO_FUNCTION when no library has it). */
hearth_task_fn libs_lookup (libs_t *self, const char *lib, const char *fn,
                            hearth_error_t *err);

#endif

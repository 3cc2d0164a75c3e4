/*  libs.h - the libraries of function tasks shipped to every executor
    (the "lib" setting): read once at start-up, sent with each
    REGISTERED_EXECUTOR.
*/
#ifndef HEARTH_DRIVER_LIBS_H
#define HEARTH_DRIVER_LIBS_H

#include <cjson/cJSON.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/proto.h"

typedef struct libs libs_t;

/* Read the files of conf's "lib" setting (conf borrowed, read now).
   NULL with err set when one cannot be read, or on no memory. */
libs_t *libs_new (hearth_conf_t *conf, hearth_error_t *err);
/* Accepts NULL; keeps errno. */
void libs_destroy (libs_t **self_p);
/* Add every library to msg: its bytes as a frame, and {name, hash,
   frame} to array (borrowed, a member of msg's body). */
void libs_add (const libs_t *self, hearth_msg_t *msg, cJSON *array);

#endif

/*  libfns.h - the functions the application's libraries export, read
    when its context starts.

    A library that is not an ELF shared library for this machine (a text
    file, an executable, a library of another architecture) is refused
    there, before anything is shipped, instead of failing each task that
    needs it on every executor; a job that names a function none of them
    defines is refused when it is submitted, before its first task runs
    (issue 42 item 11; docs/jobs.md, "Checked before anything runs").
    The ELF is read with libelf (elfutils): the driver never loads the
    library, so none of its code runs there. */
#ifndef HEARTH_LIBHEARTH_LIBFNS_H
#define HEARTH_LIBHEARTH_LIBFNS_H

#include <stddef.h>

#include "libcore/error.h"

typedef struct libfns libfns_t;

/* The functions of the n libraries at paths (none: an empty set).  NULL
   with err naming the first library that cannot be read or is not an
   ELF shared library for this machine, and what it is instead. */
libfns_t *libfns_new (const char *const *paths, size_t n, hearth_error_t *err);

/* 1 when some library defines fn, 0 when none does, -1 when that cannot
   be told (a library stripped of its section headers). */
int libfns_has (const libfns_t *self, const char *fn);

/* The libraries' base names, comma-separated ("libpi.so, libio.so"), or
   "" for none: for the messages. */
const char *libfns_names (const libfns_t *self);

void libfns_destroy (libfns_t **self_p);

#endif

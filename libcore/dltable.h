/*  dltable.h - a library opened at run time, its functions filled into
    a table of pointers.

    Some libraries are needed by few runs of a program that links them:
    libmicrohttpd (with GnuTLS and ten more behind it) only by a daemon
    that serves pages, libelf only by a driver that ships a library.
    Linking them would load them into every process (the loader's cost
    at each start: docs/performance.md, "Start-up of a one-task job"), so
    they are opened with dlopen at their first use and called through a
    struct of function pointers.  The header of such a library still
    gives its types and constants; its table lists which functions go
    where (libcore/mhdlib.c, libhearth/elflib.c).
*/
#ifndef HEARTH_LIBCORE_DLTABLE_H
#define HEARTH_LIBCORE_DLTABLE_H

#include <stddef.h>

#include "libcore/error.h"

/* One function of the library: its symbol, and the offset of its
   pointer in the owner's table struct. */
typedef struct {
    const char *name;
    size_t offset;
} hearth_dl_sym_t;

/* An entry of a table of struct TYPE: symbol NAME into field FIELD. */
#define HEARTH_DL_SYM(type, field, name)                                       \
    {                                                                          \
        name, offsetof (type, field)                                           \
    }

/* Open soname (RTLD_NOW, RTLD_LOCAL) and fill every pointer syms names
   into table.  Returns the library's handle (kept open for as long as
   the pointers are used), or NULL with err ("cannot load SONAME: ...",
   "SONAME has no SYMBOL"; the table may then be partly filled and must
   not be used). */
void *hearth_dl_table (const char *soname, const hearth_dl_sym_t *syms,
                       size_t nsyms, void *table, hearth_error_t *err);

#endif

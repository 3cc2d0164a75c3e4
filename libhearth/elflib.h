/*  elflib.h - libelf (elfutils), opened when the driver first reads a
    library's symbols (libfns.c).

    Like libmicrohttpd for the web pages (libcore/mhdlib.h), it is not
    linked: every driver program would load it at start, and most never
    ship a library (issue 43: start-up is mostly the dynamic loader's
    work, a shared library at a time).  Its soname is the one configure
    found (HEARTH_ELF_SONAME); the headers give the types. */
#ifndef HEARTH_LIBHEARTH_ELFLIB_H
#define HEARTH_LIBHEARTH_ELFLIB_H

#include <gelf.h>

#include "libcore/error.h"

/* The functions of libelf the driver calls. */
typedef struct {
    unsigned (*version) (unsigned);
    Elf *(*begin) (int, Elf_Cmd, Elf *);
    int (*end) (Elf *);
    const char *(*errmsg) (int);
    Elf_Scn *(*nextscn) (Elf *, Elf_Scn *);
    Elf_Data *(*getdata) (Elf_Scn *, Elf_Data *);
    char *(*strptr) (Elf *, size_t, size_t);
    GElf_Ehdr *(*getehdr) (Elf *, GElf_Ehdr *);
    GElf_Shdr *(*getshdr) (Elf_Scn *, GElf_Shdr *);
    GElf_Sym *(*getsym) (Elf_Data *, int, GElf_Sym *);
    GElf_Dyn *(*getdyn) (Elf_Data *, int, GElf_Dyn *);
} hearth_elf_t;

/* libelf's functions, its version set; loaded at the first call (any
   thread), then the same table.  NULL with err when it cannot be. */
const hearth_elf_t *hearth_elf (hearth_error_t *err);

#endif

/*  elflib.c - libelf, opened at its first use; see elflib.h. */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "libcore/dltable.h"
#include "libhearth/elflib.h"

#define S_SYM(field, name) HEARTH_DL_SYM (hearth_elf_t, field, name)
static const hearth_dl_sym_t s_syms[] = {
    S_SYM (version, "elf_version"),  S_SYM (begin, "elf_begin"),
    S_SYM (end, "elf_end"),          S_SYM (errmsg, "elf_errmsg"),
    S_SYM (nextscn, "elf_nextscn"),  S_SYM (getdata, "elf_getdata"),
    S_SYM (strptr, "elf_strptr"),    S_SYM (getehdr, "gelf_getehdr"),
    S_SYM (getshdr, "gelf_getshdr"), S_SYM (getsym, "gelf_getsym"),
    S_SYM (getdyn, "gelf_getdyn"),
};

static pthread_once_t s_once = PTHREAD_ONCE_INIT;
static hearth_elf_t s_elf;
static const hearth_elf_t *s_loaded;
static char s_error[256];

static void
s_load (void)
{
    hearth_error_t err;
    if (!hearth_dl_table (HEARTH_ELF_SONAME, s_syms,
                          sizeof s_syms / sizeof s_syms[0], &s_elf, &err)) {
        snprintf (s_error, sizeof s_error, "%s", err.text);
        return;
    }
    if (s_elf.version (EV_CURRENT) == EV_NONE) {
        snprintf (s_error, sizeof s_error, "%s does not know this ELF version",
                  HEARTH_ELF_SONAME);
        return; /* kept open: its functions stay valid, unused */
    }
    s_loaded = &s_elf;
}

const hearth_elf_t *
hearth_elf (hearth_error_t *err)
{
    pthread_once (&s_once, s_load);
    if (!s_loaded)
        hearth_errprintf (err, "%s", s_error);
    return s_loaded;
}

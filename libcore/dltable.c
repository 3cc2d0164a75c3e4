/*  dltable.c - a library opened at run time; see dltable.h. */
#include "config.h"

#include <dlfcn.h>

#include "libcore/dltable.h"

void *
hearth_dl_table (const char *soname, const hearth_dl_sym_t *syms, size_t nsyms,
                 void *table, hearth_error_t *err)
{
    void *lib = dlopen (soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        hearth_errprintf (err, "cannot load %s: %s", soname, dlerror ());
        return NULL;
    }
    for (size_t i = 0; i < nsyms; i++) {
        void *fn = dlsym (lib, syms[i].name);
        if (!fn) {
            hearth_errprintf (err, "%s has no %s", soname, syms[i].name);
            dlclose (lib);
            return NULL;
        }
        *(void **) ((char *) table + syms[i].offset) = fn;
    }
    return lib;
}

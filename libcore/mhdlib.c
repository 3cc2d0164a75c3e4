/*  mhdlib.c - libmicrohttpd, loaded when a web server first starts; see
    mhdlib.h. */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

#include "libcore/mhdlib.h"

/* Each entry of the table: its symbol, and where it goes. */
#define S_SYM(field, name)                                                     \
    {                                                                          \
        name, offsetof (hearth_mhd_t, field)                                   \
    }
static const struct {
    const char *name;
    size_t offset;
} s_syms[] = {
    S_SYM (start_daemon, "MHD_start_daemon"),
    S_SYM (stop_daemon, "MHD_stop_daemon"),
    S_SYM (run, "MHD_run"),
    S_SYM (get_timeout, "MHD_get_timeout"),
    S_SYM (get_daemon_info, "MHD_get_daemon_info"),
    S_SYM (get_connection_info, "MHD_get_connection_info"),
    S_SYM (lookup_connection_value, "MHD_lookup_connection_value"),
    S_SYM (create_response_from_buffer, "MHD_create_response_from_buffer"),
    S_SYM (create_response_from_buffer_with_free_callback_cls,
           "MHD_create_response_from_buffer_with_free_callback_cls"),
    S_SYM (add_response_header, "MHD_add_response_header"),
    S_SYM (queue_response, "MHD_queue_response"),
    S_SYM (destroy_response, "MHD_destroy_response"),
};

static hearth_mhd_t s_mhd;
static bool s_loaded;

const hearth_mhd_t *
hearth_mhd (hearth_error_t *err)
{
    if (s_loaded)
        return &s_mhd;
    /* HEARTH_MHD_SONAME: the library's soname, found by configure */
    void *lib = dlopen (HEARTH_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        hearth_errprintf (err, "cannot load %s for the web pages: %s",
                          HEARTH_MHD_SONAME, dlerror ());
        return NULL;
    }
    for (size_t i = 0; i < sizeof s_syms / sizeof s_syms[0]; i++) {
        void *fn = dlsym (lib, s_syms[i].name);
        if (!fn) {
            hearth_errprintf (err, "%s has no %s: %s", HEARTH_MHD_SONAME,
                              s_syms[i].name, dlerror ());
            dlclose (lib);
            return NULL;
        }
        *(void **) ((char *) &s_mhd + s_syms[i].offset) = fn;
    }
    s_loaded = true;
    return &s_mhd;
}

/*  mhdlib.c - libmicrohttpd, loaded when a web server first starts; see
    mhdlib.h. */
#include "config.h"

#include <stdbool.h>

#include "libcore/dltable.h"
#include "libcore/mhdlib.h"

#define S_SYM(field, name) HEARTH_DL_SYM (hearth_mhd_t, field, name)
static const hearth_dl_sym_t s_syms[] = {
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
    hearth_error_t why;
    if (!hearth_dl_table (HEARTH_MHD_SONAME, s_syms,
                          sizeof s_syms / sizeof s_syms[0], &s_mhd, &why)) {
        hearth_errprintf (err, "%s (for the web pages)", why.text);
        return NULL;
    }
    s_loaded = true;
    return &s_mhd;
}

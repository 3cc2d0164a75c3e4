/*  mhdlib.h - libmicrohttpd, loaded when a web server first starts.

    Debian's libmicrohttpd is built with HTTPS: linking it loads GnuTLS
    and ten more libraries, whose relocations and initialisation cost
    every hearth-master and hearth-worker about 3.4 ms of CPU at each
    start, with its pages on or off (docs/performance.md, "Start-up of a
    one-task job").  Hearth serves plain HTTP and a daemon may run with
    --web-port 0 (a local cluster's do): so the library is opened with
    dlopen by the first hearth_web_new, and the few functions web.c calls
    are reached through the table below.  The header still gives the
    types and constants.
*/
#ifndef HEARTH_MHDLIB_H
#define HEARTH_MHDLIB_H

#include <microhttpd.h>

#include "libcore/error.h"

/* The functions of libmicrohttpd that web.c calls. */
typedef struct {
    __typeof__ (MHD_start_daemon) *start_daemon;
    __typeof__ (MHD_stop_daemon) *stop_daemon;
    __typeof__ (MHD_run) *run;
    __typeof__ (MHD_get_timeout) *get_timeout;
    __typeof__ (MHD_get_daemon_info) *get_daemon_info;
    __typeof__ (MHD_get_connection_info) *get_connection_info;
    __typeof__ (MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__ (MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__ (MHD_create_response_from_buffer_with_free_callback_cls)
        *create_response_from_buffer_with_free_callback_cls;
    __typeof__ (MHD_add_response_header) *add_response_header;
    __typeof__ (MHD_queue_response) *queue_response;
    __typeof__ (MHD_destroy_response) *destroy_response;
} hearth_mhd_t;

/* The table, the library loaded on the first call (kept loaded for the
   process's life).  NULL with err when it cannot be loaded.  Call from
   one thread (a daemon's loop). */
const hearth_mhd_t *hearth_mhd (hearth_error_t *err);

#endif

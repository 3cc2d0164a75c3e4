/*  apictx.h - the context the C API test drivers start with: settings
    from hearth-submit's environment, as any driver program's. */
#ifndef HEARTH_TESTS_DRIVER_APICTX_H
#define HEARTH_TESTS_DRIVER_APICTX_H

#include <stdio.h>

#include <hearth.h>

/* A context, or NULL after saying why on stderr as program. */
static inline hearth_ctx_t *
apictx_new (const char *program)
{
    char err[512];
    hearth_opts_t *opts = hearth_opts_new (err, sizeof err);
    hearth_ctx_t *ctx = opts ? hearth_ctx_new (opts, err, sizeof err) : NULL;
    hearth_opts_destroy (&opts);
    if (!ctx)
        fprintf (stderr, "%s: %s\n", program, err);
    return ctx;
}

#endif

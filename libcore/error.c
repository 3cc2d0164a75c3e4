/*  error.c - filling hearth_error_t; see error.h. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "libcore/error.h"

static void
s_vfill (hearth_error_t *err, const char *code, const char *fmt, va_list ap)
{
    err->code = code;
    vsnprintf (err->text, sizeof err->text, fmt, ap);
}

int
hearth_errcode (hearth_error_t *err, const char *code, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start (ap, fmt);
        s_vfill (err, code, fmt, ap);
        va_end (ap);
    }
    errno = saved;
    return -1;
}

int
hearth_errprintf (hearth_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start (ap, fmt);
        s_vfill (err, "error", fmt, ap);
        va_end (ap);
    }
    errno = saved;
    return -1;
}

void
hearth_error_clear (hearth_error_t *err)
{
    if (err) {
        err->code = NULL;
        err->text[0] = '\0';
    }
}

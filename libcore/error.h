/*  error.h - a short, human-readable error carried back to the caller.

    Functions that can fail return -1 (or NULL) and, when the caller passed
    a hearth_error_t, fill it with a code for programs and a text for
    people.  hearth_errprintf() itself returns -1 so that a failure path
    reads `return hearth_errprintf (err, "bad port '%s'", text);`.
*/
#ifndef HEARTH_ERROR_H
#define HEARTH_ERROR_H

#include <stddef.h>

/* Upper bound of an error text, including the terminating NUL. */
#define HEARTH_ERROR_TEXT_MAX 256

typedef struct {
    const char *code; /* static machine-readable code, or NULL */
    char text[HEARTH_ERROR_TEXT_MAX]; /* what went wrong, for a person */
} hearth_error_t;

/* Fill err (if not NULL) with code and a printf-style text. Returns -1. */
int hearth_errcode (hearth_error_t *err, const char *code, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* As hearth_errcode() with the code "error". Returns -1. */
int hearth_errprintf (hearth_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Clear err (if not NULL) so that a stale text is never shown. */
void hearth_error_clear (hearth_error_t *err);

#endif

/*  ctlchars.h - control characters: refused in names, escaped in text.

    A control character is a C0 code (the bytes 0x00 to 0x1f), DEL (0x7f)
    or a C1 code written in UTF-8 (U+0080 to U+009F: the bytes c2 80 to
    c2 9f).  A terminal acts on them (ESC and CSI start sequences that
    recolour, move the cursor, retitle the window) and a log read line by
    line takes a newline for the start of another record, so text a peer
    sent must not reach either raw (docs/security.md, "Control
    characters").

    Names and ids hold none: the wire's `label` fields (schema.h), the
    names a user gives (--name, a job file's names) are refused when they
    do.  Free text (reasons, errors, messages) may hold any; whatever
    prints it to a log or a terminal escapes it:

        \n \r \t      newline, carriage return, tab
        \xHH          every other C0 code, and DEL (ESC is \x1b)
        \u00HH        a C1 code (CSI is \u009b)

    Every other byte is left as it is, backslashes and UTF-8 included, so
    that text stays readable: an escape may look like the same characters
    typed, but never starts a line or a terminal sequence.
*/
#ifndef HEARTH_CTLCHARS_H
#define HEARTH_CTLCHARS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"

/* The most bytes one character's escape takes ("\u009b" for 2). */
#define HEARTH_CTL_ESCAPE_MAX 6

/* The offset of the first control character of s (len bytes), or len
   when it has none. */
size_t hearth_ctl_find (const char *s, size_t len);

/* Whether the string s (NULL: no) holds a control character. */
bool hearth_ctl_has (const char *s);

/* Refuse a name that holds a control character: -1 with err "WHAT: a
   control character (\n) at byte N: a name may hold none" (what NULL:
   without "WHAT: "), else 0.  s NULL is 0. */
int hearth_ctl_check (const char *what, const char *s, hearth_error_t *err);

/* s (len bytes) escaped into buf of size bytes (at least 1): always
   NUL-terminated, cut before the first character or escape that does
   not fit.  Returns the length written. */
size_t hearth_ctl_escape (char *buf, size_t size, const char *s, size_t len);

/* The string s escaped, in new memory the caller frees; NULL when out of
   memory (errno ENOMEM) or s is NULL. */
char *hearth_ctl_strdup (const char *s);

/* Escape, in place, every string of tree: string values and member names,
   at every depth.  For a document about to be printed as text (never as
   JSON: cJSON already escapes what it prints).  Returns 0, or -1 with
   errno ENOMEM (the strings done so far stay escaped, the others are
   left as they were). */
int hearth_ctl_escape_json (cJSON *tree);

/* fprintf to out with every control character of the formatted text
   escaped, but a newline that ends it.  Returns what fprintf returns. */
int hearth_ctl_vfprintf (FILE *out, const char *fmt, va_list ap)
    __attribute__ ((format (printf, 2, 0)));
int hearth_ctl_fprintf (FILE *out, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* As hearth_ctl_fprintf, with every newline and tab left as it is: for
   text meant to be read as lines by the person whose own program wrote
   it (a task's stderr in the failure of the job they ran), which must
   still send no terminal sequence.  Never for a log. */
int hearth_ctl_fprintf_lines (FILE *out, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#endif

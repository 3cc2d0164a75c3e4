/*  evfmt.h - the event log's JSON pieces: a string with its escaping and
    a number, written at a pointer the caller has made room at.  Shared by
    the engine thread (eventlog.c's field adders, the rare events) and the
    writer thread (evrec.c, the task events' lines); no state, so either
    thread may call them.
*/
#ifndef HEARTH_LIBHEARTH_EVFMT_H
#define HEARTH_LIBHEARTH_EVFMT_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes evfmt_string writes for a string of len bytes. */
#define EVFMT_STRING_MAX(len) ((len) *6 + 2)
/* The most bytes evfmt_int writes. */
#define EVFMT_INT_MAX 24

/* The len bytes of s as a JSON string at o (room for EVFMT_STRING_MAX
   (len)); returns the end.  s may hold any byte but NUL. */
char *evfmt_string (char *o, const char *s, size_t len);
/* value as a JSON number at o (room for EVFMT_INT_MAX); returns the end. */
char *evfmt_int (char *o, int64_t value);
/* value, unsigned, likewise. */
char *evfmt_uint (char *o, uint64_t value);

#endif

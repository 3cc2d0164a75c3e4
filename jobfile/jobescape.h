/*  jobescape.h - a job file's text with the raw control characters of
    its strings escaped (a raw newline as \n), for the streaming
    reader's second read (jobstream.c): cJSON, which job files were read
    with before, took such files, and yajl refuses them.
*/
#ifndef HEARTH_JOBFILE_JOBESCAPE_H
#define HEARTH_JOBFILE_JOBESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* The text of f from where it is to its end (at most max_bytes), every
   control character inside a string escaped: a new buffer of *len bytes
   for the caller to free, sized from the file and the escapes (never
   from max_bytes); NULL when there is nothing, no memory, a read error,
   or more than max_bytes. */
char *jobescape_read (FILE *f, size_t max_bytes, size_t *len);

#endif

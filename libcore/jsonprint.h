/*  jsonprint.h - printing a cJSON tree, byte for byte as
    cJSON_PrintUnformatted() does, without its costs.

    cJSON prints every number that does not fit an int with "%1.15g", then
    parses it back with sscanf to see whether "%1.17g" is needed; for task
    ids (stage << 32 | index) and times that was most of the cost of
    encoding a message.  Here an integral number below 10^15 in magnitude
    is printed as its digits (what "%1.15g" gives), anything else exactly
    as cJSON does; strings are escaped as cJSON escapes them.  The text
    goes into a buffer the caller provides, growing into the heap only
    when it does not fit.
*/
#ifndef HEARTH_JSONPRINT_H
#define HEARTH_JSONPRINT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* A text being printed: starts in the caller's buffer. */
typedef struct {
    char *data;   /* the text (NUL-terminated when printing succeeded) */
    size_t len;   /* its length */
    size_t alloc; /* bytes at data */
    char *heap;   /* data when it moved to the heap (owned), else NULL */
} hearth_jsonbuf_t;

/* Print json into buf, starting in stack (size bytes, may be 0).  Returns
   the text (buf->data, buf->len bytes), or NULL on no memory.  Release
   with hearth_jsonbuf_release. */
const char *hearth_json_print (const cJSON *json, hearth_jsonbuf_t *buf,
                               char *stack, size_t size);

/* Free what the printing took from the heap. */
void hearth_jsonbuf_release (hearth_jsonbuf_t *buf);

#endif

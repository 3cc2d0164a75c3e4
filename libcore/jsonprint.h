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

#include <stdbool.h>
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

/* The same printing in pieces, for a text too large to build as a tree
   first (MASTER_STATE's answer at 50,000 workers): start an empty text in
   stack (size bytes, may be 0), append to it, then finish it.  Each
   append returns false on no memory (then buf holds what it held before,
   or part of the appended piece; release it). */
void hearth_jsonbuf_init (hearth_jsonbuf_t *buf, char *stack, size_t size);
/* len bytes of text, as they are. */
bool hearth_json_put (hearth_jsonbuf_t *buf, const char *text, size_t len);
/* s (borrowed; NULL: "") quoted and escaped as cJSON prints a string. */
bool hearth_json_put_string (hearth_jsonbuf_t *buf, const char *s);
/* d as cJSON prints a number. */
bool hearth_json_put_number (hearth_jsonbuf_t *buf, double d);
/* json (borrowed) as hearth_json_print prints it. */
bool hearth_json_put_value (hearth_jsonbuf_t *buf, const cJSON *json);
/* The text, NUL-terminated (buf->data), or NULL on no memory. */
const char *hearth_jsonbuf_finish (hearth_jsonbuf_t *buf);

/* Free what the printing took from the heap. */
void hearth_jsonbuf_release (hearth_jsonbuf_t *buf);

#endif

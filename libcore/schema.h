/*  schema.h - declarative checks of a message body.

    Each command's body is described by a NULL-terminated array of field
    descriptors (see commands.c).  hearth_schema_check() walks a parsed cJSON
    object against it and reports the first violation as
    "field 'tasks[3].cores': expected integer 1..65536, got -2".

    Fields the schema does not name are ignored (receivers MUST ignore
    unknown fields, so that a newer peer can add optional ones).
*/
#ifndef HEARTH_SCHEMA_H
#define HEARTH_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"

typedef enum {
    HEARTH_F_STR,    /* string; min..max is its length in bytes */
    HEARTH_F_LABEL,  /* string as HEARTH_F_STR, without control characters
                        (ctlchars.h): a name, an id, a host, a URL */
    HEARTH_F_INT,    /* integral number within min..max */
    HEARTH_F_NUM,    /* any finite number within min..max */
    HEARTH_F_BOOL,   /* true or false */
    HEARTH_F_ID,     /* string, a valid id of kind id_kind (ids.h) */
    HEARTH_F_NAME,   /* string, safe as one path component (ids.h) */
    HEARTH_F_ENUM,   /* string, one of values[] */
    HEARTH_F_FRAME,  /* integer index of one of the binary frames */
    HEARTH_F_ARRAY,  /* array of min..max elements, each checked by sub[0] */
    HEARTH_F_OBJECT, /* object; fields sub[] (NULL sub: any members) */
    HEARTH_F_MAP,    /* object of min..max members, each value by sub[0] */
    HEARTH_F_ANY,    /* any JSON value (depth is bounded by the decoder) */
} hearth_ftype_t;

typedef struct hearth_field hearth_field_t;
struct hearth_field {
    const char *name;          /* member name; NULL ends a field list */
    hearth_ftype_t type;       /* what the value must be */
    bool required;             /* absent is an error when true */
    double min, max;           /* range, length or count (see the types) */
    int id_kind;               /* for HEARTH_F_ID: a hearth_id_kind_t */
    const char *const *values; /* for HEARTH_F_ENUM: NULL-terminated */
    const hearth_field_t *sub; /* element, map value or member list */
};

/* Check object against fields.  nframes bounds HEARTH_F_FRAME indices.
   Returns 0, or -1 with err (code "bad_field") naming the field, what was
   expected and what was found. */
int hearth_schema_check (const cJSON *object, const hearth_field_t *fields,
                         size_t nframes, hearth_error_t *err);

#endif

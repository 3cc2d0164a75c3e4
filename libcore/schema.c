/*  schema.c - checking a cJSON body against field descriptors. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "libcore/ctlchars.h"
#include "libcore/ids.h"
#include "libcore/schema.h"

/* Path segments recorded per level (schemas nest far less deeply). */
#define S_PATH_DEPTH 32

/* The field being checked, as a stack of segments; rendered as text
   ("tasks[3].cmd[0]") only when a check fails, so that a valid body costs
   no formatting at all (the hot path: every message in and out). */
typedef struct {
    struct {
        const char *name; /* member name, or NULL for an array index */
        int index;        /* the index when name is NULL */
    } seg[S_PATH_DEPTH];
    int depth;      /* segments in use (may exceed S_PATH_DEPTH) */
    char text[192]; /* the rendering, filled by s_path_text */
} s_path_t;

static const char *
s_path_text (s_path_t *path)
{
    size_t len = 0;
    path->text[0] = '\0';
    int depth = path->depth < S_PATH_DEPTH ? path->depth : S_PATH_DEPTH;
    for (int i = 0; i < depth && len < sizeof path->text - 1; i++) {
        if (path->seg[i].name)
            snprintf (path->text + len, sizeof path->text - len, "%s%s",
                      len ? "." : "", path->seg[i].name);
        else
            snprintf (path->text + len, sizeof path->text - len, "[%d]",
                      path->seg[i].index);
        len = strlen (path->text);
    }
    return path->text;
}

static int s_check_value (const cJSON *v, const hearth_field_t *f,
                          size_t nframes, s_path_t *path, hearth_error_t *err);

static const char *
s_json_type (const cJSON *v)
{
    if (cJSON_IsString (v))
        return "a string";
    if (cJSON_IsNumber (v))
        return "a number";
    if (cJSON_IsBool (v))
        return "a boolean";
    if (cJSON_IsNull (v))
        return "null";
    if (cJSON_IsArray (v))
        return "an array";
    if (cJSON_IsObject (v))
        return "an object";
    return "an invalid value";
}

/* Describe what was found, quoting short strings (their control
   characters escaped: the text goes back to the peer and to the log)
   and numbers. */
static const char *
s_got (const cJSON *v, char *buf, size_t size)
{
    char quoted[48];
    if (cJSON_IsString (v) && strlen (v->valuestring) <= 40) {
        hearth_ctl_escape (quoted, sizeof quoted, v->valuestring,
                           strlen (v->valuestring));
        snprintf (buf, size, "\"%s\"", quoted);
    }
    else if (cJSON_IsString (v))
        snprintf (buf, size, "a string of %zu bytes", strlen (v->valuestring));
    else if (cJSON_IsNumber (v))
        snprintf (buf, size, "%.17g", v->valuedouble);
    else
        snprintf (buf, size, "%s", s_json_type (v));
    return buf;
}

static int
s_fail (hearth_error_t *err, s_path_t *path, const cJSON *v,
        const char *expected)
{
    char got[64];
    return hearth_errcode (err, "bad_field", "field '%s': expected %s, got %s",
                           s_path_text (path), expected,
                           v ? s_got (v, got, sizeof got) : "nothing");
}

static bool
s_integral_in (const cJSON *v, double min, double max)
{
    if (!cJSON_IsNumber (v))
        return false;
    double d = v->valuedouble;
    return isfinite (d) && d == floor (d) && d >= min && d <= max;
}

static int
s_check_string (const cJSON *v, const hearth_field_t *f, s_path_t *path,
                hearth_error_t *err)
{
    bool label = f->type == HEARTH_F_LABEL;
    if (cJSON_IsString (v)) {
        size_t len = strlen (v->valuestring);
        if ((double) len >= f->min && (double) len <= f->max
            && (!label || hearth_ctl_find (v->valuestring, len) == len))
            return 0;
    }
    char expected[96];
    snprintf (expected, sizeof expected, "a string of %.0f to %.0f bytes%s",
              f->min, f->max, label ? " without control characters" : "");
    return s_fail (err, path, v, expected);
}

static int
s_check_enum (const cJSON *v, const hearth_field_t *f, s_path_t *path,
              hearth_error_t *err)
{
    for (int i = 0; cJSON_IsString (v) && f->values[i]; i++)
        if (strcmp (v->valuestring, f->values[i]) == 0)
            return 0;
    char expected[160] = "one of";
    for (int i = 0; f->values[i]; i++) {
        size_t n = strlen (expected);
        snprintf (expected + n, sizeof expected - n, "%s %s", i ? "," : "",
                  f->values[i]);
    }
    return s_fail (err, path, v, expected);
}

/* A binary-frame index: an integer 0..nframes-1 (error code bad_frame). */
static int
s_check_frame (const cJSON *v, size_t nframes, s_path_t *path,
               hearth_error_t *err)
{
    char expected[96], got[64];
    if (nframes > 0 && s_integral_in (v, 0, (double) nframes - 1))
        return 0;
    if (nframes > 0)
        snprintf (expected, sizeof expected, "a binary frame index 0..%zu",
                  nframes - 1);
    else
        snprintf (expected, sizeof expected,
                  "a binary frame index (there are none)");
    return hearth_errcode (err, "bad_frame", "field '%s': expected %s, got %s",
                           s_path_text (path), expected,
                           v ? s_got (v, got, sizeof got) : "nothing");
}

/* Push ".name" or "[i]" on the path, run the check, and pop it. */
static int
s_check_child (const cJSON *v, const hearth_field_t *f, size_t nframes,
               s_path_t *path, const char *name, int index, hearth_error_t *err)
{
    if (path->depth < S_PATH_DEPTH) {
        path->seg[path->depth].name = name;
        path->seg[path->depth].index = index;
    }
    path->depth++;
    int rc = s_check_value (v, f, nframes, path, err);
    path->depth--;
    return rc;
}

static int
s_check_fields (const cJSON *object, const hearth_field_t *fields,
                size_t nframes, s_path_t *path, hearth_error_t *err)
{
    for (const hearth_field_t *f = fields; f && f->name; f++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive (object, f->name);
        if (!v) {
            if (!f->required)
                continue;
            const char *text = s_path_text (path);
            return hearth_errcode (err, "bad_field",
                                   "missing required field '%s%s%s'", text,
                                   *text ? "." : "", f->name);
        }
        if (s_check_child (v, f, nframes, path, f->name, 0, err) < 0)
            return -1;
    }
    return 0;
}

static int
s_check_container (const cJSON *v, const hearth_field_t *f, size_t nframes,
                   s_path_t *path, hearth_error_t *err)
{
    bool is_array = f->type == HEARTH_F_ARRAY;
    int count = 0;
    bool ok = is_array ? cJSON_IsArray (v) : cJSON_IsObject (v);
    for (const cJSON *e = ok ? v->child : NULL; e; e = e->next)
        count++;
    if (!ok || count < f->min || count > f->max) {
        char expected[96];
        snprintf (expected, sizeof expected, "%s of %.0f to %.0f %s",
                  is_array ? "an array" : "an object", f->min, f->max,
                  is_array ? "elements" : "members");
        return s_fail (err, path, v, expected);
    }
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        const char *name = is_array ? NULL : e->string;
        if (s_check_child (e, f->sub, nframes, path, name, i, err) < 0)
            return -1;
    }
    return 0;
}

static int
s_check_value (const cJSON *v, const hearth_field_t *f, size_t nframes,
               s_path_t *path, hearth_error_t *err)
{
    char expected[96];
    switch (f->type) {
    case HEARTH_F_STR:
    case HEARTH_F_LABEL:
        return s_check_string (v, f, path, err);
    case HEARTH_F_INT:
        if (s_integral_in (v, f->min, f->max))
            return 0;
        snprintf (expected, sizeof expected, "an integer %.0f..%.0f", f->min,
                  f->max);
        return s_fail (err, path, v, expected);
    case HEARTH_F_NUM:
        if (cJSON_IsNumber (v) && isfinite (v->valuedouble)
            && v->valuedouble >= f->min && v->valuedouble <= f->max)
            return 0;
        snprintf (expected, sizeof expected, "a number %g..%g", f->min, f->max);
        return s_fail (err, path, v, expected);
    case HEARTH_F_BOOL:
        return cJSON_IsBool (v) ? 0 : s_fail (err, path, v, "a boolean");
    case HEARTH_F_ID:
        if (cJSON_IsString (v) && hearth_id_valid (f->id_kind, v->valuestring))
            return 0;
        return s_fail (err, path, v, "a valid id");
    case HEARTH_F_NAME:
        if (cJSON_IsString (v) && hearth_name_safe (v->valuestring))
            return 0;
        return s_fail (err, path, v, "a safe file name");
    case HEARTH_F_ENUM:
        return s_check_enum (v, f, path, err);
    case HEARTH_F_FRAME:
        return s_check_frame (v, nframes, path, err);
    case HEARTH_F_ARRAY:
    case HEARTH_F_MAP:
        return s_check_container (v, f, nframes, path, err);
    case HEARTH_F_OBJECT:
        if (!cJSON_IsObject (v))
            return s_fail (err, path, v, "an object");
        return s_check_fields (v, f->sub, nframes, path, err);
    case HEARTH_F_ANY:
        return 0;
    }
    return s_fail (err, path, v, "a value this version understands");
}

int
hearth_schema_check (const cJSON *object, const hearth_field_t *fields,
                     size_t nframes, hearth_error_t *err)
{
    s_path_t path = {.depth = 0};
    if (!cJSON_IsObject (object))
        return hearth_errcode (err, "bad_json",
                               "the body is %s, not an "
                               "object",
                               s_json_type (object));
    return s_check_fields (object, fields, nframes, &path, err);
}

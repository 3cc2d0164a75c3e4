/*  labels.c - a worker's labels; see labels.h. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "libcore/labels.h"

static bool
s_key_ok (const char *k, size_t len)
{
    if (len < 1 || len > HEARTH_LABEL_KEY_MAX
        || !isalpha ((unsigned char) k[0]))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum ((unsigned char) k[i]) && !strchr ("_-.", k[i]))
            return false;
    return true;
}

static bool
s_value_ok (const char *v)
{
    size_t len = strlen (v);
    if (len < 1 || len > HEARTH_LABEL_VALUE_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char) v[i] <= ' ' || v[i] == 0x7f || v[i] == ',')
            return false;
    return true;
}

static int
s_bad (hearth_error_t *err, const char *what, size_t len)
{
    return hearth_errprintf (
        err,
        "label '%.*s': expected KEY=VALUE, KEY 1 to %d letters, digits, "
        "'_', '-' or '.' from a letter, VALUE 1 to %d bytes without spaces, "
        "commas or control characters",
        (int) (len > 200 ? 200 : len), what, HEARTH_LABEL_KEY_MAX,
        HEARTH_LABEL_VALUE_MAX);
}

int
hearth_labels_check_spec (const char *spec, hearth_error_t *err)
{
    const char *eq = spec ? strchr (spec, '=') : NULL;
    if (!eq || !s_key_ok (spec, (size_t) (eq - spec)) || !s_value_ok (eq + 1))
        return s_bad (err, spec ? spec : "", spec ? strlen (spec) : 0);
    return 0;
}

int
hearth_labels_add_spec (cJSON *labels, const char *spec, hearth_error_t *err)
{
    if (hearth_labels_check_spec (spec, err) < 0)
        return -1;
    const char *eq = strchr (spec, '=');
    char key[HEARTH_LABEL_KEY_MAX + 1];
    snprintf (key, sizeof key, "%.*s", (int) (eq - spec), spec);
    cJSON_DeleteItemFromObjectCaseSensitive (labels, key);
    if (cJSON_GetArraySize (labels) >= HEARTH_LABELS_MAX)
        return hearth_errprintf (err, "more than %d labels", HEARTH_LABELS_MAX);
    if (!cJSON_AddStringToObject (labels, key, eq + 1))
        return hearth_errprintf (err, "out of memory");
    return 0;
}

int
hearth_labels_check (const cJSON *labels, hearth_error_t *err)
{
    if (!labels)
        return 0;
    if (!cJSON_IsObject (labels))
        return hearth_errprintf (err, "labels: expected an object");
    if (cJSON_GetArraySize (labels) > HEARTH_LABELS_MAX)
        return hearth_errprintf (err, "more than %d labels", HEARTH_LABELS_MAX);
    const cJSON *l;
    cJSON_ArrayForEach (l, labels)
    {
        if (!s_key_ok (l->string, strlen (l->string)) || !cJSON_IsString (l)
            || !s_value_ok (l->valuestring))
            return s_bad (err, l->string, strlen (l->string));
    }
    return 0;
}

size_t
hearth_labels_specs (
    const cJSON *labels,
    char out[][HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2])
{
    size_t n = 0;
    if (!cJSON_IsObject (labels))
        return 0;
    const cJSON *l;
    cJSON_ArrayForEach (l, labels)
    {
        if (n == HEARTH_LABELS_MAX || !cJSON_IsString (l))
            break;
        snprintf (out[n++], HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2,
                  "%s=%s", l->string, l->valuestring);
    }
    return n;
}

bool
hearth_labels_carry (const cJSON *labels, const cJSON *wanted)
{
    const cJSON *w;
    cJSON_ArrayForEach (w, wanted)
    {
        const cJSON *have =
            cJSON_GetObjectItemCaseSensitive (labels, w->string);
        if (!cJSON_IsString (have) || !cJSON_IsString (w)
            || strcmp (have->valuestring, w->valuestring) != 0)
            return false;
    }
    return true;
}

void
hearth_labels_text (const cJSON *wanted, char *out, size_t size)
{
    size_t at = 0;
    const cJSON *w;
    if (size)
        out[0] = '\0';
    cJSON_ArrayForEach (w, wanted)
    {
        if (at >= size || !cJSON_IsString (w))
            break;
        int n = snprintf (out + at, size - at, "%s%s=%s", at ? "," : "",
                          w->string, w->valuestring);
        at += n > 0 ? (size_t) n : 0;
    }
}

/*  journaltest.h - helpers shared by the journal's unit tests
    (test_journal.c, test_journal_files.c): records from JSON text, encoded
    lines, and what a state holds.  Header-only; include it after
    <cmocka.h> and master/jstate.h. */
#ifndef HEARTH_TESTS_JOURNALTEST_H
#define HEARTH_TESTS_JOURNALTEST_H

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "master/jstate.h"

/* A record from JSON text (the test's own, always valid). */
static inline cJSON *
s_rec (const char *json)
{
    cJSON *r = cJSON_Parse (json);
    assert_non_null (r);
    return r;
}

/* Append the encoded record to buf (a growing string). */
static inline void
s_add (char **buf, const char *json)
{
    cJSON *r = s_rec (json);
    size_t len;
    char *line = jstate_encode (r, &len);
    assert_non_null (line);
    size_t old = *buf ? strlen (*buf) : 0;
    *buf = realloc (*buf, old + len + 1);
    memcpy (*buf + old, line, len + 1);
    free (line);
    cJSON_Delete (r);
}

static inline const char *
s_field (const cJSON *obj, const char *key, const char *field)
{
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive (obj, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (rec, field);
    return cJSON_IsString (v) ? v->valuestring : NULL;
}

/* The keys of obj, space-separated, into buf. */
static inline const char *
s_keys (const cJSON *obj, char *buf, size_t size)
{
    buf[0] = '\0';
    for (const cJSON *c = obj->child; c; c = c->next) {
        strncat (buf, c->string, size - strlen (buf) - 2);
        if (c->next)
            strcat (buf, " ");
    }
    return buf;
}

#endif

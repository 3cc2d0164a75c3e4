/*  resources.c - custom resources' names, addresses and amounts, parsed,
    checked and converted between their spellings (resources.h).
*/
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/resources.h"

bool
hearth_resource_name_valid (const char *name)
{
    size_t n = name ? strlen (name) : 0;
    if (n < 1 || n > HEARTH_RESOURCE_NAME_MAX
        || !isalpha ((unsigned char) *name))
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum ((unsigned char) *p) && !strchr ("_.-", *p))
            return false;
    return true;
}

bool
hearth_resource_addr_valid (const char *addr)
{
    size_t n = addr ? strlen (addr) : 0;
    if (n < 1 || n > HEARTH_RESOURCE_ADDR_MAX)
        return false;
    for (const char *p = addr; *p; p++)
        if (!isgraph ((unsigned char) *p) || strchr (",=;", *p))
            return false;
    return true;
}

/* ---- address sets -------------------------------------------------------- */

static int
s_bad_name (const char *name, hearth_error_t *err)
{
    return hearth_errprintf (err,
                             "resource name '%.64s': expected 1 to %d of "
                             "A-Z a-z 0-9 _ . - starting with a letter",
                             name, HEARTH_RESOURCE_NAME_MAX);
}

static void
s_resource_free (hearth_resource_t *res)
{
    for (size_t i = 0; i < res->naddrs; i++)
        free (res->addrs[i]);
    free (res->addrs);
    free (res->name);
}

const hearth_resource_t *
hearth_resources_find (const hearth_resources_t *r, const char *name)
{
    for (size_t i = 0; r && i < r->n; i++)
        if (strcmp (r->v[i].name, name) == 0)
            return &r->v[i];
    return NULL;
}

/* Whether name and addrs may join r: 0, or -1 with err. */
static int
s_check (const hearth_resources_t *r, const char *name,
         const char *const *addrs, size_t naddrs, hearth_error_t *err)
{
    if (!hearth_resource_name_valid (name))
        return s_bad_name (name, err);
    if (hearth_resources_find (r, name))
        return hearth_errprintf (err, "resource %s is given twice", name);
    if (r->n >= HEARTH_RESOURCES_MAX)
        return hearth_errprintf (err, "more than %d resource names",
                                 HEARTH_RESOURCES_MAX);
    if (naddrs == 0)
        return hearth_errprintf (err, "resource %s has no address", name);
    if (naddrs > HEARTH_RESOURCE_ADDRS_MAX)
        return hearth_errprintf (err, "resource %s has more than %d addresses",
                                 name, HEARTH_RESOURCE_ADDRS_MAX);
    for (size_t i = 0; i < naddrs; i++) {
        if (!hearth_resource_addr_valid (addrs[i]))
            return hearth_errprintf (err,
                                     "resource %s: address '%.80s': expected "
                                     "1 to %d printable characters without "
                                     "space , = or ;",
                                     name, addrs[i], HEARTH_RESOURCE_ADDR_MAX);
        for (size_t j = 0; j < i; j++)
            if (strcmp (addrs[i], addrs[j]) == 0)
                return hearth_errprintf (err,
                                         "resource %s: address %s is "
                                         "given twice",
                                         name, addrs[i]);
    }
    return 0;
}

int
hearth_resources_add (hearth_resources_t *r, const char *name,
                      const char *const *addrs, size_t naddrs,
                      hearth_error_t *err)
{
    if (s_check (r, name, addrs, naddrs, err) < 0)
        return -1;
    hearth_resource_t res = {.name = strdup (name),
                             .addrs = calloc (naddrs, sizeof (char *))};
    hearth_resource_t *v = realloc (r->v, (r->n + 1) * sizeof *v);
    if (v)
        r->v = v;
    bool ok = v && res.name && res.addrs;
    for (size_t i = 0; ok && i < naddrs; i++)
        ok = (res.addrs[res.naddrs++] = strdup (addrs[i])) != NULL;
    if (!ok) {
        s_resource_free (&res);
        return hearth_errprintf (err, "out of memory");
    }
    r->v[r->n++] = res;
    return 0;
}

int
hearth_resources_add_spec (hearth_resources_t *r, const char *spec,
                           hearth_error_t *err)
{
    const char *eq = strchr (spec, '=');
    if (!eq)
        return hearth_errprintf (
            err, "'%.80s': expected NAME=ADDRESS[,ADDRESS...]", spec);
    char name[HEARTH_RESOURCE_NAME_MAX + 2];
    size_t nlen = (size_t) (eq - spec);
    if (nlen >= sizeof name)
        nlen = sizeof name - 1; /* too long: refused by the name check */
    memcpy (name, spec, nlen);
    name[nlen] = '\0';
    char *list = strdup (eq + 1);
    size_t commas = 0;
    for (const char *p = eq + 1; *p; p++)
        commas += *p == ',';
    const char **addrs = calloc (commas + 1, sizeof *addrs);
    if (!list || !addrs) {
        free (list);
        free (addrs);
        return hearth_errprintf (err, "out of memory");
    }
    size_t n = 0; /* "a,,b" and "a," give an empty address, refused */
    for (char *p = list; *list; p++) {
        addrs[n++] = p;
        p = strchr (p, ',');
        if (!p)
            break;
        *p = '\0';
    }
    int rc = hearth_resources_add (r, name, addrs, n, err);
    free (addrs);
    free (list);
    return rc;
}

/* Addresses of a JSON array of strings into a (borrowed pointers); -1
   with err when one is not a string. */
static int
s_addr_array (const cJSON *array, const char *name, const char ***out,
              size_t *n, hearth_error_t *err)
{
    int len = cJSON_GetArraySize (array);
    *out = calloc ((size_t) len + 1, sizeof **out);
    if (!*out)
        return hearth_errprintf (err, "out of memory");
    *n = 0;
    const cJSON *it;
    cJSON_ArrayForEach (it, array)
    {
        if (!cJSON_IsString (it)) {
            free (*out);
            *out = NULL;
            return hearth_errprintf (err,
                                     "resource %s: an address is not a "
                                     "string",
                                     name);
        }
        (*out)[(*n)++] = it->valuestring;
    }
    return 0;
}

int
hearth_resources_add_discovered (hearth_resources_t *r, const char *name,
                                 const char *output, hearth_error_t *err)
{
    cJSON *doc = cJSON_Parse (output);
    const cJSON *jname = cJSON_GetObjectItemCaseSensitive (doc, "name");
    const cJSON *jaddrs = cJSON_GetObjectItemCaseSensitive (doc, "addresses");
    int rc = -1;
    if (!cJSON_IsObject (doc) || !cJSON_IsString (jname)
        || !cJSON_IsArray (jaddrs))
        hearth_errprintf (err,
                          "resource %s: the discovery script printed '%.120s', "
                          "not {\"name\": \"%s\", \"addresses\": [...]}",
                          name, output, name);
    else if (strcmp (jname->valuestring, name) != 0)
        hearth_errprintf (err,
                          "resource %s: the discovery script names resource "
                          "'%.64s'",
                          name, jname->valuestring);
    else {
        const char **addrs;
        size_t n;
        if (s_addr_array (jaddrs, name, &addrs, &n, err) == 0) {
            rc = hearth_resources_add (r, name, addrs, n, err);
            free (addrs);
        }
    }
    cJSON_Delete (doc);
    return rc;
}

cJSON *
hearth_resources_to_json (const hearth_resources_t *r)
{
    cJSON *o = cJSON_CreateObject ();
    for (size_t i = 0; o && r && i < r->n; i++) {
        cJSON *a = cJSON_CreateStringArray ((const char *const *) r->v[i].addrs,
                                            (int) r->v[i].naddrs);
        if (!a || !cJSON_AddItemToObject (o, r->v[i].name, a)) {
            cJSON_Delete (a);
            cJSON_Delete (o);
            return NULL;
        }
    }
    return o;
}

int
hearth_resources_from_json (hearth_resources_t *r, const cJSON *json,
                            hearth_error_t *err)
{
    if (!json)
        return 0;
    if (!cJSON_IsObject (json))
        return hearth_errprintf (err, "resources: not an object");
    hearth_resources_t built = {0};
    const cJSON *it;
    cJSON_ArrayForEach (it, json)
    {
        const char **addrs = NULL;
        size_t n = 0;
        int rc = cJSON_IsArray (it)
                     ? s_addr_array (it, it->string, &addrs, &n, err)
                     : hearth_errprintf (err, "resource %.64s: not a list",
                                         it->string);
        if (rc == 0)
            rc = hearth_resources_add (&built, it->string, addrs, n, err);
        free (addrs);
        if (rc < 0) {
            hearth_resources_clear (&built);
            return -1;
        }
    }
    hearth_resources_clear (r);
    *r = built;
    return 0;
}

char *
hearth_resource_join (const hearth_resource_t *res)
{
    size_t len = 1;
    for (size_t i = 0; i < res->naddrs; i++)
        len += strlen (res->addrs[i]) + 1;
    char *s = malloc (len);
    if (!s)
        return NULL;
    char *p = s;
    for (size_t i = 0; i < res->naddrs; i++) {
        size_t n = strlen (res->addrs[i]);
        if (i)
            *p++ = ',';
        memcpy (p, res->addrs[i], n);
        p += n;
    }
    *p = '\0';
    return s;
}

char *
hearth_resource_spec (const hearth_resource_t *res)
{
    char *list = hearth_resource_join (res);
    char *s = list ? malloc (strlen (res->name) + strlen (list) + 2) : NULL;
    if (s)
        sprintf (s, "%s=%s", res->name, list);
    free (list);
    return s;
}

void
hearth_resource_env_name (const char *name, char *buf, size_t len)
{
    int n = snprintf (buf, len, "HEARTH_RESOURCE_%s", name);
    for (char *p = buf + sizeof "HEARTH_RESOURCE_" - 1;
         n > 0 && *p && p < buf + len; p++)
        *p = (*p == '.' || *p == '-') ? '_'
                                      : (char) toupper ((unsigned char) *p);
}

void
hearth_resources_clear (hearth_resources_t *r)
{
    for (size_t i = 0; i < r->n; i++)
        s_resource_free (&r->v[i]);
    free (r->v);
    r->v = NULL;
    r->n = 0;
}

/* ---- amounts ------------------------------------------------------------- */

int
hearth_resource_amount (const hearth_resource_amounts_t *a, const char *name)
{
    for (size_t i = 0; a && i < a->n; i++)
        if (strcmp (a->v[i].name, name) == 0)
            return a->v[i].amount;
    return 0;
}

int
hearth_resource_amounts_add (hearth_resource_amounts_t *a, const char *name,
                             int amount, hearth_error_t *err)
{
    if (!hearth_resource_name_valid (name))
        return s_bad_name (name, err);
    if (amount < 1 || amount > HEARTH_RESOURCE_AMOUNT_MAX)
        return hearth_errprintf (err, "resource %s: amount %d is not in 1..%d",
                                 name, amount, HEARTH_RESOURCE_AMOUNT_MAX);
    if (hearth_resource_amount (a, name))
        return hearth_errprintf (err, "resource %s is given twice", name);
    if (a->n >= HEARTH_RESOURCES_MAX)
        return hearth_errprintf (err, "more than %d resource names",
                                 HEARTH_RESOURCES_MAX);
    hearth_resource_amount_t *v = realloc (a->v, (a->n + 1) * sizeof *v);
    char *copy = v ? strdup (name) : NULL;
    if (v)
        a->v = v;
    if (!copy)
        return hearth_errprintf (err, "out of memory");
    a->v[a->n++] = (hearth_resource_amount_t){copy, amount};
    return 0;
}

int
hearth_resource_amounts_add_spec (hearth_resource_amounts_t *a,
                                  const char *spec, hearth_error_t *err)
{
    const char *eq = strchr (spec, '=');
    char *end = NULL;
    errno = 0;
    long n = eq && eq[1] ? strtol (eq + 1, &end, 10) : 0;
    if (!eq || !end || *end || errno || n < 1 || n > HEARTH_RESOURCE_AMOUNT_MAX)
        return hearth_errprintf (err, "'%.80s': expected NAME=N, N in 1..%d",
                                 spec, HEARTH_RESOURCE_AMOUNT_MAX);
    char name[HEARTH_RESOURCE_NAME_MAX + 2];
    size_t nlen = (size_t) (eq - spec);
    if (nlen >= sizeof name)
        nlen = sizeof name - 1;
    memcpy (name, spec, nlen);
    name[nlen] = '\0';
    return hearth_resource_amounts_add (a, name, (int) n, err);
}

cJSON *
hearth_resource_amounts_to_json (const hearth_resource_amounts_t *a)
{
    cJSON *o = cJSON_CreateObject ();
    for (size_t i = 0; o && a && i < a->n; i++)
        if (!cJSON_AddNumberToObject (o, a->v[i].name, a->v[i].amount)) {
            cJSON_Delete (o);
            return NULL;
        }
    return o;
}

int
hearth_resource_amounts_from_json (hearth_resource_amounts_t *a,
                                   const cJSON *json, hearth_error_t *err)
{
    if (!json)
        return 0;
    if (!cJSON_IsObject (json))
        return hearth_errprintf (err, "resources: not an object");
    hearth_resource_amounts_t built = {0};
    const cJSON *it;
    cJSON_ArrayForEach (it, json)
    {
        double d = cJSON_IsNumber (it) ? it->valuedouble : 0;
        int rc =
            (d >= 1 && d <= HEARTH_RESOURCE_AMOUNT_MAX && d == (int) d)
                ? hearth_resource_amounts_add (&built, it->string, (int) d, err)
                : hearth_errprintf (err,
                                    "resource %.64s: expected a whole "
                                    "amount in 1..%d",
                                    it->string, HEARTH_RESOURCE_AMOUNT_MAX);
        if (rc < 0) {
            hearth_resource_amounts_clear (&built);
            return -1;
        }
    }
    hearth_resource_amounts_clear (a);
    *a = built;
    return 0;
}

int
hearth_resource_amounts_copy (hearth_resource_amounts_t *dst,
                              const hearth_resource_amounts_t *src)
{
    hearth_resource_amounts_t built = {0};
    for (size_t i = 0; src && i < src->n; i++)
        if (hearth_resource_amounts_add (&built, src->v[i].name,
                                         src->v[i].amount, NULL)
            < 0) {
            hearth_resource_amounts_clear (&built);
            return -1;
        }
    hearth_resource_amounts_clear (dst);
    *dst = built;
    return 0;
}

void
hearth_resource_amounts_clear (hearth_resource_amounts_t *a)
{
    for (size_t i = 0; i < a->n; i++)
        free (a->v[i].name);
    free (a->v);
    a->v = NULL;
    a->n = 0;
}

int
hearth_resources_copy (hearth_resources_t *dst, const hearth_resources_t *src)
{
    hearth_resources_t built = {0};
    for (size_t i = 0; src && i < src->n; i++)
        if (hearth_resources_add (&built, src->v[i].name,
                                  (const char *const *) src->v[i].addrs,
                                  src->v[i].naddrs, NULL)
            < 0) {
            hearth_resources_clear (&built);
            return -1;
        }
    *dst = built;
    return 0;
}

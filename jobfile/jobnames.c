/*  jobnames.c - the files a job file names, found; see jobnames.h. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfile/jobnames.h"

static const char *
s_basename (const char *path)
{
    const char *slash = strrchr (path, '/');
    return slash ? slash + 1 : path;
}

static bool
s_given (const char *name, const char *const *given, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp (s_basename (given[i]), s_basename (name)) == 0)
            return true;
    return false;
}

/* Where name is: beside the job file, else here.  A new string. */
static char *
s_find (const char *name, const char *job_path)
{
    char *path = NULL;
    const char *slash = strrchr (job_path, '/');
    if (name[0] == '/')
        return strdup (name);
    if (asprintf (&path, "%.*s%s%s", slash ? (int) (slash - job_path) : 1,
                  slash ? job_path : ".", "/", name)
        < 0)
        return NULL;
    if (access (path, R_OK) != 0 && access (name, R_OK) == 0) {
        free (path);
        return strdup (name);
    }
    return path;
}

int
jobnames_broadcast (const cJSON *root, const char *job_path, char ***entries,
                    size_t *n, hearth_error_t *err)
{
    const cJSON *vars = cJSON_GetObjectItemCaseSensitive (root, "broadcast");
    const cJSON *v;
    *n = 0;
    *entries =
        calloc ((size_t) cJSON_GetArraySize (vars) + 1, sizeof **entries);
    if (!*entries)
        return hearth_errprintf (err, "out of memory");
    cJSON_ArrayForEach (v, vars)
    {
        const char *name = cJSON_GetStringValue (v);
        char *path = name ? s_find (name, job_path) : NULL;
        if (!path || access (path, R_OK) != 0) {
            hearth_errprintf (err, "broadcast %s: cannot read %s: %s",
                              v->string,
                              path   ? path
                              : name ? name
                                     : "?",
                              path ? strerror (errno) : "out of memory");
            free (path);
            jobnames_destroy (entries);
            *n = 0;
            return -1;
        }
        if (asprintf (&(*entries)[*n], "%s=%s", v->string, path) < 0) {
            (*entries)[*n] = NULL;
            free (path);
            jobnames_destroy (entries);
            *n = 0;
            return hearth_errprintf (err, "out of memory");
        }
        (*n)++;
        free (path);
    }
    return 0;
}

void
jobnames_destroy (char ***paths_p)
{
    if (!paths_p || !*paths_p)
        return;
    for (char **p = *paths_p; *p; p++)
        free (*p);
    free (*paths_p);
    *paths_p = NULL;
}

int
jobnames_resolve (const cJSON *root, const char *key, const char *job_path,
                  const char *const *given, size_t ngiven, char ***paths,
                  size_t *n, hearth_error_t *err)
{
    const cJSON *names = cJSON_GetObjectItemCaseSensitive (root, key);
    int count = !names                   ? 0
                : cJSON_IsString (names) ? 1
                                         : cJSON_GetArraySize (names);
    *n = 0;
    *paths = calloc ((size_t) count + 1, sizeof **paths);
    if (!*paths)
        return hearth_errprintf (err, "out of memory");
    for (int i = 0; i < count; i++) {
        const char *name = cJSON_GetStringValue (
            cJSON_IsString (names) ? names : cJSON_GetArrayItem (names, i));
        if (!name || s_given (name, given, ngiven))
            continue;
        char *path = s_find (name, job_path);
        if (!path || access (path, R_OK) != 0) {
            hearth_errprintf (err, "%s: cannot read %s: %s", key,
                              path ? path : name,
                              path ? strerror (errno) : "out of memory");
            free (path);
            jobnames_destroy (paths);
            *n = 0;
            return -1;
        }
        (*paths)[(*n)++] = path;
    }
    return 0;
}

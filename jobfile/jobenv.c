/*  jobenv.c - a job file's environments (the job's, a stage's and a
    task's "env" merged) and the items of "foreach" tasks: the lines of
    {"lines": FILE}, the part files of {"parts": DIR}; see jobparams.h, which
   declares them with the placeholders (jobparams.c) they complete.
*/
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfile/jobparams.h"
#include "libcore/manifest.h"

/* Most lines of a lines file, and its largest size. */
static const size_t s_max_lines = 1000000;
static const long s_max_lines_bytes = 1024L * 1024 * 1024;

/* ---- environments ------------------------------------------------------- */

int
jobparams_check_env (const cJSON *env, const char *where, hearth_error_t *err)
{
    if (!env)
        return 0;
    if (!cJSON_IsObject (env))
        return hearth_errprintf (err, "%s: expected an object of strings",
                                 where);
    const cJSON *e;
    cJSON_ArrayForEach (e, env)
    {
        if (!cJSON_IsString (e) || !*e->string || strchr (e->string, '='))
            return hearth_errprintf (err,
                                     "%s.%s: expected a string value and a "
                                     "name without '='",
                                     where, e->string);
    }
    return 0;
}

void
jobparams_env_destroy (char ***envv_p)
{
    char **v = envv_p ? *envv_p : NULL;
    for (size_t i = 0; v && v[i]; i++)
        free (v[i]);
    free (v);
    if (envv_p)
        *envv_p = NULL;
}

/* The entry of v (n long) for name, or -1. */
static long
s_env_find (char **v, size_t n, const char *name)
{
    size_t len = strlen (name);
    for (size_t i = 0; i < n; i++)
        if (strncmp (v[i], name, len) == 0 && v[i][len] == '=')
            return (long) i;
    return -1;
}

int
jobparams_env (const cJSON *job, const cJSON *stage, const cJSON *task,
               const char *item, char ***envv)
{
    const cJSON *levels[] = {job, stage, task};
    size_t most = 0, n = 0;
    for (int l = 0; l < 3; l++)
        most += (size_t) cJSON_GetArraySize (levels[l]);
    *envv = NULL;
    if (most == 0)
        return 0;
    char **v = calloc (most + 1, sizeof *v);
    if (!v)
        return -1;
    for (int l = 0; l < 3; l++) {
        const cJSON *e;
        cJSON_ArrayForEach (e, levels[l])
        {
            /* Only a task's own env is a foreach template. */
            bool each = item && l == 2;
            char *value = each ? jobparams_finish (e->valuestring, item) : NULL;
            char *entry = NULL;
            if ((each && !value)
                || asprintf (&entry, "%s=%s", e->string,
                             value ? value : e->valuestring)
                       < 0)
                entry = NULL;
            free (value);
            if (!entry) {
                jobparams_env_destroy (&v);
                return -1;
            }
            long at = s_env_find (v, n, e->string);
            if (at >= 0) { /* the later level wins */
                free (v[at]);
                v[at] = entry;
            }
            else
                v[n++] = entry;
        }
    }
    *envv = v;
    return 0;
}

/* ---- lines files -------------------------------------------------------- */

void
jobitems_free (jobitems_t *items)
{
    free (items->text);
    free (items->lines);
    free (items->hosts);
    memset (items, 0, sizeof *items);
}

/* The n parts of dir (absolute; parts freed) into items: each DIR/NAME
   and its host. */
static int
s_parts_to_items (jobitems_t *items, const char *dir, hearth_part_file_t *parts,
                  size_t n, hearth_error_t *err)
{
    size_t bytes = 0, dlen = strlen (dir);
    if (n > s_max_lines) {
        hearth_manifest_free (parts, n);
        return hearth_errprintf (err, "%s: more than %zu parts", dir,
                                 s_max_lines);
    }
    for (size_t i = 0; i < n; i++)
        bytes += dlen + strlen (parts[i].name) + 2
                 + (parts[i].host ? strlen (parts[i].host) + 1 : 0);
    items->text = malloc (bytes + 1);
    items->lines = calloc (n + 1, sizeof *items->lines);
    items->hosts = calloc (n + 1, sizeof *items->hosts);
    if (!items->text || !items->lines || !items->hosts) {
        hearth_manifest_free (parts, n);
        jobitems_free (items);
        return hearth_errprintf (err, "out of memory");
    }
    char *p = items->text;
    for (size_t i = 0; i < n; i++) {
        items->lines[i] = p;
        p += sprintf (p, "%s/%s", dir, parts[i].name) + 1;
        if (parts[i].host) {
            items->hosts[i] = p;
            p += sprintf (p, "%s", parts[i].host) + 1;
        }
    }
    items->n = n;
    hearth_manifest_free (parts, n);
    return 0;
}

/* dir made absolute (malloc'ed), or NULL with err: {item} is a path
   the task opens from its executor's work dir, not the driver's. */
static char *
s_absolute_dir (const char *dir, hearth_error_t *err)
{
    char cwd[4096], *path = NULL;
    if (dir[0] == '/')
        path = strdup (dir);
    else if (!getcwd (cwd, sizeof cwd)) {
        hearth_errprintf (err, "%s: cannot make it absolute: %s", dir,
                          strerror (errno));
        return NULL;
    }
    else if (asprintf (&path, "%s/%s", cwd, dir) < 0)
        path = NULL;
    if (!path)
        hearth_errprintf (err, "out of memory");
    return path;
}

int
jobitems_parts (jobitems_t *items, const char *rel, hearth_error_t *err)
{
    memset (items, 0, sizeof *items);
    hearth_part_file_t *parts;
    char *dir = s_absolute_dir (rel, err);
    if (!dir)
        return -1;
    size_t n;
    int rc = hearth_manifest_read (dir, &parts, &n, err);
    if (rc == 0)
        rc = s_parts_to_items (items, dir, parts, n, err);
    free (dir);
    return rc;
}

/* Split items->text (size bytes) into its non-empty lines. */
static int
s_split_lines (jobitems_t *items, size_t size, const char *path,
               hearth_error_t *err)
{
    size_t n = 0, lineno = 0;
    char *text = items->text;
    for (size_t at = 0; at < size; lineno++) {
        char *nl = memchr (text + at, '\n', size - at);
        size_t end = nl ? (size_t) (nl - text) : size;
        if (memchr (text + at, '\0', end - at))
            return hearth_errprintf (err, "%s: line %zu holds a NUL byte", path,
                                     lineno + 1);
        if (end > at && ++n > s_max_lines)
            return hearth_errprintf (err,
                                     "%s: more than %zu lines: split the "
                                     "job, or give each task a range",
                                     path, s_max_lines);
        at = end + 1;
    }
    if (!(items->lines = calloc (n + 1, sizeof *items->lines)))
        return hearth_errprintf (err, "out of memory");
    for (size_t at = 0; at < size;) {
        char *nl = memchr (text + at, '\n', size - at);
        size_t end = nl ? (size_t) (nl - text) : size;
        text[end] = '\0';
        if (end > at)
            items->lines[items->n++] = text + at;
        at = end + 1;
    }
    return 0;
}

int
jobitems_read (jobitems_t *items, const char *path, hearth_error_t *err)
{
    memset (items, 0, sizeof *items);
    FILE *f = fopen (path, "rb");
    if (!f)
        return hearth_errprintf (err, "cannot read %s: %s", path,
                                 strerror (errno));
    long size = -1;
    if (fseek (f, 0, SEEK_END) == 0)
        size = ftell (f);
    int rc = 0;
    if (size < 0 || size > s_max_lines_bytes)
        rc = hearth_errprintf (err,
                               "%s: not a readable file of at most %ld "
                               "bytes",
                               path, s_max_lines_bytes);
    else if (!(items->text = malloc ((size_t) size + 1)))
        rc = hearth_errprintf (err, "out of memory");
    else {
        rewind (f);
        if (fread (items->text, 1, (size_t) size, f) != (size_t) size)
            rc = hearth_errprintf (err, "cannot read %s", path);
        else {
            items->text[size] = '\0';
            rc = s_split_lines (items, (size_t) size, path, err);
        }
    }
    fclose (f);
    if (rc < 0)
        jobitems_free (items);
    return rc;
}

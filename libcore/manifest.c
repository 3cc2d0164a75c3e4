/*  manifest.c - the part files of an output directory and their hosts;
    see manifest.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "libcore/ctlchars.h"
#include "libcore/fstree.h"
#include "libcore/manifest.h"
#include "libcore/safefile.h"

/* Largest _SUCCESS read: a million parts of long names and hosts. */
static const size_t s_max_bytes = 256u << 20;
/* Longest host name or address kept. */
enum { s_host_max = 255 };

static const char s_marker[] = "_SUCCESS";

/* ---- writing ---------------------------------------------------------- */

static cJSON *
s_to_json (const hearth_part_file_t *parts, size_t n)
{
    cJSON *root = cJSON_CreateObject ();
    cJSON *list = root ? cJSON_AddArrayToObject (root, "parts") : NULL;
    if (!list || !cJSON_AddNumberToObject (root, "hearth_manifest", 1)) {
        cJSON_Delete (root);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject ();
        cJSON_AddItemToArray (list, p);
        if (!p || !cJSON_AddStringToObject (p, "name", parts[i].name)
            || (parts[i].host
                && !cJSON_AddStringToObject (p, "host", parts[i].host))
            || !cJSON_AddNumberToObject (p, "bytes", (double) parts[i].bytes)) {
            cJSON_Delete (root);
            return NULL;
        }
    }
    return root;
}

int
hearth_manifest_write (const char *dir, const hearth_part_file_t *parts,
                       size_t n, hearth_error_t *err)
{
    char path[4200];
    if ((size_t) snprintf (path, sizeof path, "%s/%s", dir, s_marker)
        >= sizeof path)
        return hearth_errprintf (err, "%s: path too long", dir);
    cJSON *root = s_to_json (parts, n);
    char *text = root ? cJSON_PrintUnformatted (root) : NULL;
    cJSON_Delete (root);
    if (!text)
        return hearth_errprintf (err, "out of memory writing %s", path);
    int fd = hearth_file_create (path, O_WRONLY, 0644, true);
    int rc = fd >= 0 && hearth_write_all (fd, text, strlen (text)) == 0
                     && hearth_write_all (fd, "\n", 1) == 0
                 ? 0
                 : -1;
    int saved = errno;
    if (fd >= 0 && close (fd) != 0 && rc == 0) {
        saved = errno;
        rc = -1;
    }
    free (text);
    if (rc < 0)
        return hearth_errprintf (err, "cannot write %s: %s", path,
                                 hearth_file_why (saved));
    return 0;
}

/* ---- reading ---------------------------------------------------------- */

void
hearth_manifest_free (hearth_part_file_t *parts, size_t n)
{
    for (size_t i = 0; parts && i < n; i++) {
        free (parts[i].name);
        free (parts[i].host);
    }
    free (parts);
}

/* A plain file name: not empty, no '/', not "." or "..", no control
   character. */
static bool
s_plain_name (const char *name)
{
    return name && *name && !strchr (name, '/') && strcmp (name, ".") != 0
           && strcmp (name, "..") != 0 && !hearth_ctl_has (name);
}

/* The parts of a JSON manifest. */
static int
s_from_json (const cJSON *root, const char *path, hearth_part_file_t **parts,
             size_t *n, hearth_error_t *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive (root, "parts");
    int count = cJSON_IsArray (list) ? cJSON_GetArraySize (list) : -1;
    if (count < 0 || count > HEARTH_MANIFEST_MAX_PARTS)
        return hearth_errprintf (err,
                                 "%s: not a manifest of part files "
                                 "(no \"parts\" list)",
                                 path);
    *parts = calloc (count ? (size_t) count : 1, sizeof **parts);
    if (!*parts)
        return hearth_errprintf (err, "out of memory reading %s", path);
    const cJSON *p;
    cJSON_ArrayForEach (p, list)
    {
        const char *name =
            cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (p, "name"));
        const char *host =
            cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (p, "host"));
        const cJSON *bytes = cJSON_GetObjectItemCaseSensitive (p, "bytes");
        hearth_part_file_t *f = &(*parts)[*n];
        if (!s_plain_name (name)
            || (host
                && (!*host || strlen (host) > s_host_max
                    || hearth_ctl_has (host))))
            return hearth_errprintf (err,
                                     "%s: part %zu has no plain file name "
                                     "or a bad host",
                                     path, *n);
        (*n)++;
        f->bytes = cJSON_IsNumber (bytes) && bytes->valuedouble > 0
                       ? (uint64_t) bytes->valuedouble
                       : 0;
        if (!(f->name = strdup (name)) || (host && !(f->host = strdup (host))))
            return hearth_errprintf (err, "out of memory reading %s", path);
    }
    return 0;
}

static int
s_by_name (const void *a, const void *b)
{
    return strcmp (((const hearth_part_file_t *) a)->name,
                   ((const hearth_part_file_t *) b)->name);
}

static int
s_by_string (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* A name the n parts give twice, or NULL (none, or no memory: *nomem). */
static const char *
s_twice (const hearth_part_file_t *parts, size_t n, bool *nomem)
{
    const char **names = malloc ((n ? n : 1) * sizeof *names);
    const char *twice = NULL;
    *nomem = !names;
    for (size_t i = 0; names && i < n; i++)
        names[i] = parts[i].name;
    if (names)
        qsort (names, n, sizeof *names, s_by_string);
    for (size_t i = 1; names && i < n && !twice; i++)
        if (strcmp (names[i - 1], names[i]) == 0)
            twice = names[i];
    free (names);
    return twice;
}

/* Whether the JSON text escapes a NUL (\u0000): cJSON would end the
   string there, a name or host read shorter than written. */
static bool
s_escapes_nul (const char *text)
{
    for (const char *p = strchr (text, '\\'); p; p = strchr (p, '\\')) {
        if (p[1] == 'u' && strncmp (p + 2, "0000", 4) == 0)
            return true;
        p += p[1] ? 2 : 1; /* the escaped character is not an escape */
    }
    return false;
}

/* The parts of the manifest text (len bytes, NUL-terminated): refused
   when it holds a NUL (raw: what follows would go unread), when a
   second value follows the object, or when a name comes twice (a part
   read twice). */
static int
s_parse (const char *text, size_t len, const char *path,
         hearth_part_file_t **parts, size_t *n, hearth_error_t *err)
{
    if (memchr (text, '\0', len) || s_escapes_nul (text))
        return hearth_errprintf (err, "%s: holds a NUL byte", path);
    cJSON *root = cJSON_ParseWithOpts (text, NULL, true);
    int rc = root ? s_from_json (root, path, parts, n, err)
                  : hearth_errprintf (err, "%s: not JSON", path);
    cJSON_Delete (root);
    bool nomem = false;
    const char *twice = rc == 0 ? s_twice (*parts, *n, &nomem) : NULL;
    if (nomem)
        return hearth_errprintf (err, "out of memory reading %s", path);
    if (twice)
        return hearth_errprintf (err, "%s: names %s twice", path, twice);
    return rc;
}

/* The part-* files of dir, in name order, hosts unknown. */
static int
s_listed (const char *dir, hearth_part_file_t **parts, size_t *n,
          hearth_error_t *err)
{
    DIR *d = opendir (dir);
    if (!d)
        return hearth_errprintf (err, "cannot list %s: %s", dir,
                                 strerror (errno));
    size_t cap = 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir (d))) {
        if (strncmp (e->d_name, "part-", 5) != 0 || !s_plain_name (e->d_name))
            continue;
        if (*n == HEARTH_MANIFEST_MAX_PARTS) {
            rc = hearth_errprintf (err, "too many part files in %s", dir);
            break;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            hearth_part_file_t *more = realloc (*parts, cap * sizeof *more);
            if (!more) {
                rc = hearth_errprintf (err, "out of memory listing %s", dir);
                break;
            }
            *parts = more;
        }
        (*parts)[*n] = (hearth_part_file_t){.name = strdup (e->d_name)};
        if (!(*parts)[(*n)++].name)
            rc = hearth_errprintf (err, "out of memory listing %s", dir);
    }
    closedir (d);
    if (rc == 0 && *n)
        qsort (*parts, *n, sizeof **parts, s_by_name);
    return rc;
}

/* The bytes of path (a regular file, not a link), NUL-terminated. */
static char *
s_slurp (const char *path, size_t *len, hearth_error_t *err)
{
    int fd = hearth_file_reopen (path, O_RDONLY, 0);
    struct stat st;
    char *text = NULL;
    if (fd < 0 || fstat (fd, &st) < 0)
        hearth_errprintf (err, "%s: %s (not a finished output?)", path,
                          hearth_file_why (errno));
    else if ((size_t) st.st_size > s_max_bytes)
        hearth_errprintf (err, "%s: over %zu bytes", path, s_max_bytes);
    else if (!(text = malloc ((size_t) st.st_size + 1)))
        hearth_errprintf (err, "out of memory reading %s", path);
    else {
        ssize_t got = read (fd, text, (size_t) st.st_size);
        if (got != st.st_size) {
            hearth_errprintf (err, "cannot read %s", path);
            free (text);
            text = NULL;
        }
        else {
            text[got] = '\0';
            *len = (size_t) got;
        }
    }
    if (fd >= 0)
        close (fd);
    return text;
}

int
hearth_manifest_read (const char *dir, hearth_part_file_t **parts, size_t *n,
                      hearth_error_t *err)
{
    char path[4200];
    *parts = NULL;
    *n = 0;
    if ((size_t) snprintf (path, sizeof path, "%s/%s", dir, s_marker)
        >= sizeof path)
        return hearth_errprintf (err, "%s: path too long", dir);
    size_t len = 0;
    char *text = s_slurp (path, &len, err);
    if (!text)
        return -1;
    int rc;
    if (strspn (text, " \t\r\n") == len)
        rc = s_listed (dir, parts, n, err);
    else
        rc = s_parse (text, len, path, parts, n, err);
    free (text);
    if (rc < 0) {
        hearth_manifest_free (*parts, *n);
        *parts = NULL;
        *n = 0;
    }
    return rc;
}

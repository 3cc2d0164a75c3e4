/*  keymap.c - files of one line per CURVE key; see keymap.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/keymap.h"

/* The longest line. */
enum { s_max_line = 1024 };
/* The longest WHO (a key file's name). */
static const size_t s_max_who = 255;

static void
s_free (void **item)
{
    free (*item);
    *item = NULL;
}

/* One line (n of path) into map; -1 with err. */
static int
s_parse_line (const char *path, const char *form, char *line, size_t n,
              hearth_keymap_value_fn *value, zhashx_t *map, hearth_error_t *err)
{
    char *hash = strchr (line, '#'), *save = NULL;
    if (hash)
        *hash = '\0';
    char *who = strtok_r (line, " \t\r\n", &save);
    char *text = who ? strtok_r (NULL, " \t\r\n", &save) : NULL;
    if (!who)
        return 0;
    if (!text || strtok_r (NULL, " \t\r\n", &save))
        return hearth_errprintf (err, "%s:%zu: expected '%s'", path, n, form);
    if (strchr (who, '/') || strlen (who) > s_max_who)
        return hearth_errprintf (err,
                                 "%s:%zu: '%.40s' is neither a public key "
                                 "nor a key file's name",
                                 path, n, who);
    hearth_error_t why;
    void *v = value (text, &why);
    if (!v)
        return hearth_errprintf (err, "%s:%zu: %s", path, n, why.text);
    zhashx_update (map, who, v); /* the last line of a key wins */
    return 0;
}

zhashx_t *
hearth_keymap_read (const char *path, const char *what, const char *form,
                    hearth_keymap_value_fn *value, hearth_error_t *err)
{
    FILE *f = fopen (path, "re");
    if (!f) {
        hearth_errprintf (err, "cannot read %s %s: %s", what, path,
                          strerror (errno));
        return NULL;
    }
    zhashx_t *map = zhashx_new ();
    char line[s_max_line];
    size_t n = 0;
    int rc = map ? 0 : hearth_errprintf (err, "out of memory");
    if (map)
        zhashx_set_destructor (map, s_free);
    while (rc == 0 && fgets (line, sizeof line, f)) {
        n++;
        if (!strchr (line, '\n') && !feof (f))
            rc = hearth_errprintf (err, "%s:%zu: line too long", path, n);
        else
            rc = s_parse_line (path, form, line, n, value, map, err);
    }
    fclose (f);
    if (rc < 0)
        zhashx_destroy (&map);
    return map;
}

void *
hearth_keymap_lookup (zhashx_t *map, const char *key, const char *name)
{
    void *v = NULL;
    if (map && key && key[0])
        v = zhashx_lookup (map, key);
    if (!v && map && name) {
        v = zhashx_lookup (map, name);
        size_t len = strlen (name);
        if (!v && len > 4 && strcmp (name + len - 4, ".key") == 0) {
            char bare[256];
            snprintf (bare, sizeof bare, "%.*s", (int) (len - 4), name);
            v = zhashx_lookup (map, bare);
        }
    }
    return v;
}

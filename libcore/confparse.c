/*  confparse.c - where a configuration's values come from: the command
    line (flags, --conf FILE|KEY=VALUE), HEARTH_* variables, config files
    and the defaults file, each at its level; see conf.h.  It sets values
    through conf.c, which calls nothing here. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/conf.h"
#include "libcore/conf_int.h"
#include "libcore/log.h"

/* --conf ARG: a file, or KEY=VALUE at flag level. */
static int
s_conf_arg (hearth_conf_t *self, const char *arg, hearth_error_t *err)
{
    const char *eq = strchr (arg, '=');
    if (!eq)
        return hearth_conf__push (&self->files, arg) < 0
                   ? hearth_errprintf (err, "out of memory")
                   : 0;
    if (eq == arg)
        return hearth_errprintf (err, "--conf %s: expected KEY=VALUE or FILE",
                                 arg);
    if (hearth_conf__find (self, arg, eq - arg, NULL)) {
        char key[128];
        snprintf (key, sizeof key, "%.*s", (int) (eq - arg), arg);
        return hearth_conf_set (self, key, eq + 1, HEARTH_SRC_FLAG, err);
    }
    if (self->strict)
        return hearth_errprintf (err,
                                 "--conf %.*s: unknown setting '%.*s' (%s "
                                 "--help lists them)",
                                 (int) (eq - arg), arg, (int) (eq - arg), arg,
                                 self->program);
    return hearth_conf__push (&self->extras, arg) < 0
               ? hearth_errprintf (err, "out of memory")
               : 0;
}

/* One "--name[=value]" at argv[*i]; may consume argv[*i + 1]. */
static int
s_parse_flag (hearth_conf_t *self, int argc, char **argv, int *i,
              hearth_error_t *err)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr (arg, '=');
    size_t len = eq ? (size_t) (eq - arg) : strlen (arg);
    const char *value = eq ? eq + 1 : NULL;
    bool is_conf = len == 4 && strncmp (arg, "conf", 4) == 0;
    const hearth_opt_t *o = hearth_conf__find (self, arg, len, NULL);
    if (!o && !is_conf)
        return hearth_errprintf (err, "unknown option --%.*s (see %s --help)",
                                 (int) len, arg, self->program);
    bool takes_value =
        is_conf || (o->type != HEARTH_OPT_BOOL && o->type != HEARTH_OPT_ALIAS);
    if (!value && takes_value) {
        if (*i + 1 >= argc)
            return hearth_errprintf (err, "option --%.*s needs a value",
                                     (int) len, arg);
        value = argv[++*i];
    }
    if (value && !takes_value && o->type == HEARTH_OPT_ALIAS)
        return hearth_errprintf (err, "option --%s takes no value", o->name);
    if (is_conf)
        return s_conf_arg (self, value, err);
    return hearth_conf_set (self, o->name, value ? value : "true",
                            HEARTH_SRC_FLAG, err);
}

/* Put prefix and suffix around err's text (err may be NULL).  The old
   text is copied first: it cannot be an argument of the printf that
   overwrites it.  Returns -1. */
static int
s_rewrap (hearth_error_t *err, const char *prefix, const char *suffix)
{
    if (!err)
        return -1;
    char text[HEARTH_ERROR_TEXT_MAX];
    snprintf (text, sizeof text, "%s", err->text);
    return hearth_errprintf (err, "%s%s%s", prefix, text, suffix);
}

const char *
hearth_conf_env_name (const char *name, char *buf, size_t size)
{
    size_t n = snprintf (buf, size, "HEARTH_");
    for (; *name && n < size - 1; name++)
        buf[n++] = *name == '-' ? '_' : (char) toupper ((unsigned char) *name);
    buf[n] = '\0';
    return buf;
}

static int
s_load_env (hearth_conf_t *self, hearth_error_t *err)
{
    char env[160];
    for (size_t i = 0; i < self->nopts; i++) {
        if (self->opts[i].type == HEARTH_OPT_ALIAS || self->opts[i].flag_only)
            continue;
        hearth_conf_env_name (self->opts[i].name, env, sizeof env);
        const char *value = getenv (env);
        if (value
            && hearth_conf_set (self, self->opts[i].name, value, HEARTH_SRC_ENV,
                                err)
                   < 0) {
            char from[200];
            snprintf (from, sizeof from, " (from %s)", env);
            return s_rewrap (err, "", from);
        }
    }
    const char *file = getenv ("HEARTH_CONF");
    if (file && *file && self->files.count == 0)
        return hearth_conf__push (&self->files, file) < 0
                   ? hearth_errprintf (err, "out of memory")
                   : 0;
    return 0;
}

static char *
s_trim (char *s)
{
    while (isspace ((unsigned char) *s))
        s++;
    char *end = s + strlen (s);
    while (end > s && isspace ((unsigned char) end[-1]))
        *--end = '\0';
    return s;
}

/* How a file is read: at which level, and what an unknown key is. */
typedef struct {
    const char *path; /* for messages */
    hearth_src_t src; /* HEARTH_SRC_FILE or HEARTH_SRC_DEFAULTS_FILE */
    bool strict;      /* an unknown key is an error */
} s_file_t;

/* One line of a config file. */
static int
s_file_line (hearth_conf_t *self, char *line, const s_file_t *file, int lineno,
             hearth_error_t *err)
{
    const char *path = file->path;
    char *hash = strchr (line, '#');
    if (hash)
        *hash = '\0';
    char *text = s_trim (line);
    if (!*text)
        return 0;
    char *eq = strchr (text, '=');
    if (!eq)
        return hearth_errprintf (err, "%s:%d: expected 'key = value'", path,
                                 lineno);
    *eq = '\0';
    char *key = s_trim (text), *value = s_trim (eq + 1);
    const hearth_opt_t *o = hearth_conf__find (self, key, strlen (key), NULL);
    if ((!o || o->flag_only) && file->strict)
        return hearth_errprintf (err,
                                 "%s:%d: unknown setting '%s' (%s --help "
                                 "lists them)",
                                 path, lineno, key, self->program);
    if (!o || o->flag_only) {
        /* the defaults file holds every program's settings, said once:
           quiet; a --conf FILE given this program, aloud */
        if (file->src == HEARTH_SRC_DEFAULTS_FILE)
            log_debug ("%s:%d: '%s' is not a %s setting, ignored", path, lineno,
                       key, self->program);
        else
            log_warn ("%s:%d: '%s' is not a %s setting: ignored", path, lineno,
                      key, self->program);
        return 0;
    }
    if (hearth_conf_set (self, key, value, file->src, err) < 0) {
        char where[300];
        snprintf (where, sizeof where, "%s:%d: ", path, lineno);
        return s_rewrap (err, where, "");
    }
    return 0;
}

static int
s_load (hearth_conf_t *self, FILE *f, const s_file_t *file, hearth_error_t *err)
{
    char line[4096];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets (line, sizeof line, f))
        rc = s_file_line (self, line, file, ++lineno, err);
    fclose (f);
    return rc;
}

int
hearth_conf_load_file (hearth_conf_t *self, const char *path,
                       hearth_error_t *err)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return hearth_errprintf (err, "cannot read config file %s: %s", path,
                                 strerror (errno));
    s_file_t file = {path, HEARTH_SRC_FILE, self->strict};
    return s_load (self, f, &file, err);
}

const char *
hearth_conf_defaults_path (char *buf, size_t size)
{
    const char *dir = getenv ("HEARTH_CONF_DIR");
    if (dir && *dir)
        snprintf (buf, size, "%s/%s", dir, HEARTH_DEFAULTS_NAME);
    else
        snprintf (buf, size, "%s/hearth/%s", HEARTH_SYSCONFDIR,
                  HEARTH_DEFAULTS_NAME);
    return buf;
}

int
hearth_conf_use_defaults (hearth_conf_t *self, const char *path, bool strict)
{
    char buf[4096];
    char *copy =
        strdup (path ? path : hearth_conf_defaults_path (buf, sizeof buf));
    if (!copy)
        return -1;
    free (self->defaults);
    self->defaults = copy;
    self->defaults_strict = strict;
    return 0;
}

/* The defaults file, if the program reads one and it exists: no such
   file is no defaults, any other failure to read it is an error. */
static int
s_load_defaults (hearth_conf_t *self, hearth_error_t *err)
{
    if (!self->defaults)
        return 0;
    FILE *f = fopen (self->defaults, "r");
    if (!f && errno == ENOENT)
        return 0;
    if (!f)
        return hearth_errprintf (err, "cannot read defaults file %s: %s",
                                 self->defaults, strerror (errno));
    s_file_t file = {self->defaults, HEARTH_SRC_DEFAULTS_FILE,
                     self->defaults_strict};
    return s_load (self, f, &file, err);
}

/* The flags from argv[from] on; the index of the first argument that is
   not one, or -1. */
static int
s_parse_flags (hearth_conf_t *self, int argc, char **argv, int from,
               hearth_error_t *err)
{
    int i = from;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp (arg, "--") == 0) {
            i++;
            break;
        }
        if (strcmp (arg, "-h") == 0 || strcmp (arg, "--help") == 0) {
            self->help = true;
            return argc;
        }
        if (strcmp (arg, "--version") == 0) {
            self->version = true;
            return argc;
        }
        if (strncmp (arg, "--", 2) != 0 || arg[2] == '\0') {
            if (arg[0] == '-' && arg[1] != '\0')
                return hearth_errprintf (err,
                                         "unknown option %s (see %s "
                                         "--help)",
                                         arg, self->program);
            break;
        }
        if (s_parse_flag (self, argc, argv, &i, err) < 0)
            return -1;
    }
    return i;
}

void
hearth_conf_strict (hearth_conf_t *self)
{
    self->strict = true;
}

int
hearth_conf_parse (hearth_conf_t *self, int argc, char **argv,
                   hearth_error_t *err)
{
    int i = s_parse_flags (self, argc, argv, 1, err);
    if (i >= 0 && (self->help || self->version))
        return i; /* answered whatever the other sources hold */
    if (i < 0 || s_load_env (self, err) < 0)
        return -1;
    for (size_t f = 0; f < self->files.count; f++)
        if (hearth_conf_load_file (self, self->files.items[f], err) < 0)
            return -1;
    return s_load_defaults (self, err) < 0 ? -1 : i;
}

int
hearth_conf_parse_more (hearth_conf_t *self, int argc, char **argv, int from,
                        hearth_error_t *err)
{
    size_t known = self->files.count;
    int i = s_parse_flags (self, argc, argv, from, err);
    for (size_t f = known; i >= 0 && f < self->files.count; f++)
        if (hearth_conf_load_file (self, self->files.items[f], err) < 0)
            return -1;
    return i;
}

/*  conf.c - layered settings; see conf.h. */
#include "config.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/conf.h"
#include "libcore/log.h"
#include "libcore/units.h"

/* A growable array of owned strings. */
typedef struct {
    char **items; /* owned strings */
    size_t count; /* used */
    size_t alloc; /* allocated */
} s_strv_t;

/* The current value of one option. */
typedef struct {
    char *text;       /* as given, owned; NULL when unset */
    hearth_src_t src; /* where text came from */
    int64_t number;   /* parsed int, bytes, ms or bool */
    s_strv_t list;    /* items of a LIST option */
} s_value_t;

struct hearth_conf {
    char *program;            /* for messages and --help */
    const hearth_opt_t *opts; /* the table (borrowed) */
    size_t nopts;             /* rows in opts */
    s_value_t *values;        /* one per row */
    s_strv_t extras;          /* KEY=VALUE settings not in the table */
    s_strv_t files;           /* config files named by --conf FILE */
    bool help, version;       /* --help or --version was asked for */
};

static int
s_strv_push (s_strv_t *v, const char *text)
{
    if (v->count == v->alloc) {
        size_t n = v->alloc ? v->alloc * 2 : 4;
        char **items = realloc (v->items, n * sizeof *items);
        if (!items)
            return -1;
        v->items = items;
        v->alloc = n;
    }
    if (!(v->items[v->count] = strdup (text)))
        return -1;
    v->count++;
    return 0;
}

static void
s_strv_clear (s_strv_t *v)
{
    for (size_t i = 0; i < v->count; i++)
        free (v->items[i]);
    free (v->items);
    memset (v, 0, sizeof *v);
}

/* Add value to a list: as one item, or split at commas (environment and
   files, where an option cannot be repeated). */
static int
s_list_add (s_strv_t *v, const char *value, bool split)
{
    if (!split)
        return s_strv_push (v, value);
    char *copy = strdup (value), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *item = strtok_r (copy, ",", &save); item && rc == 0;
         item = strtok_r (NULL, ",", &save))
        rc = s_strv_push (v, item);
    free (copy);
    return rc;
}

static const hearth_opt_t *
s_find (const hearth_conf_t *self, const char *name, size_t len, size_t *index)
{
    for (size_t i = 0; i < self->nopts; i++) {
        const char *n = self->opts[i].name;
        if (strlen (n) == len && strncmp (n, name, len) == 0) {
            if (index)
                *index = i;
            return &self->opts[i];
        }
    }
    return NULL;
}

hearth_conf_t *
hearth_conf_new (const char *program, const hearth_opt_t *opts)
{
    hearth_conf_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    while (opts[self->nopts].name)
        self->nopts++;
    self->opts = opts;
    self->program = strdup (program);
    self->values = calloc (self->nopts + 1, sizeof *self->values);
    if (!self->program || !self->values) {
        hearth_conf_destroy (&self);
        return NULL;
    }
    for (size_t i = 0; i < self->nopts; i++) {
        const hearth_opt_t *o = &opts[i];
        if (o->dflt && o->type != HEARTH_OPT_ALIAS
            && hearth_conf_set (self, o->name, o->dflt, HEARTH_SRC_DEFAULT,
                                NULL)
                   < 0)
            assert (!"an option's default does not parse");
    }
    return self;
}

void
hearth_conf_destroy (hearth_conf_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_conf_t *self = *self_p;
    for (size_t i = 0; self->values && i < self->nopts; i++) {
        free (self->values[i].text);
        s_strv_clear (&self->values[i].list);
    }
    free (self->values);
    s_strv_clear (&self->extras);
    s_strv_clear (&self->files);
    free (self->program);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* Parse text for option o into *number.  Returns 0 or -1 with err. */
static int
s_parse_value (const hearth_opt_t *o, const char *text, int64_t *number,
               hearth_error_t *err)
{
    uint64_t bytes;
    int flag;
    switch (o->type) {
    case HEARTH_OPT_INT:
        return hearth_parse_int (text, o->min || o->max ? o->min : INT64_MIN,
                                 o->min || o->max ? o->max : INT64_MAX, number,
                                 err);
    case HEARTH_OPT_BOOL:
        if (hearth_parse_bool (text, &flag, err) < 0)
            return -1;
        *number = flag;
        return 0;
    case HEARTH_OPT_SIZE:
    case HEARTH_OPT_MEMORY:
        if (hearth_parse_size (text,
                               o->type == HEARTH_OPT_MEMORY ? HEARTH_MiB : 1,
                               &bytes, err)
            < 0)
            return -1;
        if (bytes > INT64_MAX)
            return hearth_errprintf (err, "'%s' is too large", text);
        *number = (int64_t) bytes;
        return 0;
    case HEARTH_OPT_DURATION:
        return hearth_parse_duration (text, number, err);
    default:
        *number = 0;
        return 0;
    }
}

static const char *
s_src_name (hearth_src_t src)
{
    static const char *const names[] = {"", "default", "config file",
                                        "environment", "command line"};
    return names[src];
}

int
hearth_conf_set (hearth_conf_t *self, const char *name, const char *value,
                 hearth_src_t src, hearth_error_t *err)
{
    size_t i;
    const hearth_opt_t *o = s_find (self, name, strlen (name), &i);
    if (!o)
        return hearth_errprintf (err, "unknown option '%s'", name);
    if (o->type == HEARTH_OPT_ALIAS)
        return hearth_conf_set (self, o->alias_of, o->alias_value, src, err);
    s_value_t *v = &self->values[i];
    if (src < v->src)
        return 0; /* a stronger source already set it */
    int64_t number;
    hearth_error_t perr;
    if (s_parse_value (o, value, &number, &perr) < 0)
        return hearth_errprintf (err, "%s: bad value for %s: %s",
                                 s_src_name (src), o->name, perr.text);
    if (o->type == HEARTH_OPT_LIST) {
        if (src > v->src)
            s_strv_clear (&v->list);
        if (s_list_add (&v->list, value, src != HEARTH_SRC_FLAG) < 0)
            return hearth_errprintf (err, "out of memory");
    }
    char *copy = strdup (value);
    if (!copy)
        return hearth_errprintf (err, "out of memory");
    free (v->text);
    v->text = copy;
    v->src = src;
    v->number = number;
    return 0;
}

/* --conf ARG: a file, or KEY=VALUE at flag level. */
static int
s_conf_arg (hearth_conf_t *self, const char *arg, hearth_error_t *err)
{
    const char *eq = strchr (arg, '=');
    if (!eq)
        return s_strv_push (&self->files, arg) < 0
                   ? hearth_errprintf (err, "out of memory")
                   : 0;
    if (eq == arg)
        return hearth_errprintf (err, "--conf %s: expected KEY=VALUE or FILE",
                                 arg);
    if (s_find (self, arg, eq - arg, NULL)) {
        char key[128];
        snprintf (key, sizeof key, "%.*s", (int) (eq - arg), arg);
        return hearth_conf_set (self, key, eq + 1, HEARTH_SRC_FLAG, err);
    }
    return s_strv_push (&self->extras, arg) < 0
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
    const hearth_opt_t *o = s_find (self, arg, len, NULL);
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

static void
s_env_name (const char *name, char *buf, size_t size)
{
    size_t n = snprintf (buf, size, "HEARTH_");
    for (; *name && n < size - 1; name++)
        buf[n++] = *name == '-' ? '_' : (char) toupper ((unsigned char) *name);
    buf[n] = '\0';
}

static int
s_load_env (hearth_conf_t *self, hearth_error_t *err)
{
    char env[160];
    for (size_t i = 0; i < self->nopts; i++) {
        if (self->opts[i].type == HEARTH_OPT_ALIAS)
            continue;
        s_env_name (self->opts[i].name, env, sizeof env);
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
        return s_strv_push (&self->files, file) < 0
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

/* One line of a config file. */
static int
s_file_line (hearth_conf_t *self, char *line, const char *path, int lineno,
             hearth_error_t *err)
{
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
    if (!s_find (self, key, strlen (key), NULL)) {
        log_debug ("%s:%d: '%s' is not a %s setting, ignored", path, lineno,
                   key, self->program);
        return 0;
    }
    if (hearth_conf_set (self, key, value, HEARTH_SRC_FILE, err) < 0) {
        char where[300];
        snprintf (where, sizeof where, "%s:%d: ", path, lineno);
        return s_rewrap (err, where, "");
    }
    return 0;
}

int
hearth_conf_load_file (hearth_conf_t *self, const char *path,
                       hearth_error_t *err)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return hearth_errprintf (err, "cannot read config file %s: %s", path,
                                 strerror (errno));
    char line[4096];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets (line, sizeof line, f))
        rc = s_file_line (self, line, path, ++lineno, err);
    fclose (f);
    return rc;
}

int
hearth_conf_parse (hearth_conf_t *self, int argc, char **argv,
                   hearth_error_t *err)
{
    int i = 1;
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
    if (s_load_env (self, err) < 0)
        return -1;
    for (size_t f = 0; f < self->files.count; f++)
        if (hearth_conf_load_file (self, self->files.items[f], err) < 0)
            return -1;
    return i;
}

bool
hearth_conf_wants_help (const hearth_conf_t *self)
{
    return self->help;
}

bool
hearth_conf_wants_version (const hearth_conf_t *self)
{
    return self->version;
}

static const char *
s_metavar (const hearth_opt_t *o)
{
    static const char *const names[] = {"TEXT", "N",    "",     "SIZE",
                                        "SIZE", "TIME", "TEXT", ""};
    return o->metavar ? o->metavar : names[o->type];
}

void
hearth_conf_usage (const hearth_conf_t *self, FILE *out, const char *synopsis,
                   const char *description)
{
    fprintf (out, "Usage: %s %s\n", self->program, synopsis);
    if (description)
        fprintf (out, "\n%s\n", description);
    fprintf (out, "\nOptions (flag, or HEARTH_NAME in the environment, or "
                  "name = value in a --conf file):\n");
    for (size_t i = 0; i < self->nopts; i++) {
        const hearth_opt_t *o = &self->opts[i];
        char flag[80];
        const char *mv = s_metavar (o);
        snprintf (flag, sizeof flag, "--%s%s%s", o->name, *mv ? " " : "", mv);
        fprintf (out, "  %-30s %s", flag, o->help ? o->help : "");
        if (o->dflt && o->type != HEARTH_OPT_ALIAS)
            fprintf (out, " (default: %s)", o->dflt);
        fprintf (out, "\n");
    }
    fprintf (out, "  %-30s %s\n", "--conf FILE|KEY=VALUE",
             "read settings from FILE, or set one");
    fprintf (out, "  %-30s %s\n", "-h, --help", "show this help and exit");
    fprintf (out, "  %-30s %s\n", "--version", "show the version and exit");
}

static const s_value_t *
s_value (const hearth_conf_t *self, const char *name)
{
    size_t i;
    const hearth_opt_t *o = s_find (self, name, strlen (name), &i);
    assert (o && "option not in the program's table");
    (void) o;
    return &self->values[i];
}

const char *
hearth_conf_str (const hearth_conf_t *self, const char *name)
{
    return s_value (self, name)->text;
}

int64_t
hearth_conf_int (const hearth_conf_t *self, const char *name)
{
    return s_value (self, name)->number;
}

bool
hearth_conf_bool (const hearth_conf_t *self, const char *name)
{
    return s_value (self, name)->number != 0;
}

uint64_t
hearth_conf_bytes (const hearth_conf_t *self, const char *name)
{
    return (uint64_t) s_value (self, name)->number;
}

int64_t
hearth_conf_ms (const hearth_conf_t *self, const char *name)
{
    return s_value (self, name)->number;
}

const char *
hearth_conf_program (const hearth_conf_t *self)
{
    return self->program;
}

bool
hearth_conf_has (const hearth_conf_t *self, const char *name)
{
    return s_find (self, name, strlen (name), NULL) != NULL;
}

bool
hearth_conf_isset (const hearth_conf_t *self, const char *name)
{
    return s_value (self, name)->text != NULL;
}

hearth_src_t
hearth_conf_source (const hearth_conf_t *self, const char *name)
{
    return s_value (self, name)->src;
}

size_t
hearth_conf_list (const hearth_conf_t *self, const char *name,
                  const char *const **items)
{
    const s_value_t *v = s_value (self, name);
    *items = (const char *const *) v->list.items;
    return v->list.count;
}

size_t
hearth_conf_extras (const hearth_conf_t *self, const char *const **items)
{
    *items = (const char *const *) self->extras.items;
    return self->extras.count;
}

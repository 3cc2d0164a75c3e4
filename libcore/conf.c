/*  conf.c - layered settings, the store: the option table, each option's
    value and where it came from, setting one, the typed readers and
    --help; see conf.h.  Where values come from (argv, the environment,
    files) is confparse.c's; their shared insides are conf_int.h's. */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/conf.h"
#include "libcore/conf_int.h"
#include "libcore/ctlchars.h"
#include "libcore/units.h"

int
hearth_conf__push (s_strv_t *v, const char *text)
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
        return hearth_conf__push (v, value);
    char *copy = strdup (value), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *item = strtok_r (copy, ",", &save); item && rc == 0;
         item = strtok_r (NULL, ",", &save))
        rc = hearth_conf__push (v, item);
    free (copy);
    return rc;
}

const hearth_opt_t *
hearth_conf__find (const hearth_conf_t *self, const char *name, size_t len,
                   size_t *index)
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
    free (self->defaults);
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
    case HEARTH_OPT_LABEL:
        *number = 0;
        return hearth_ctl_check (NULL, text, err);
    default:
        *number = 0;
        return 0;
    }
}

static const char *
s_src_name (hearth_src_t src)
{
    static const char *const names[] = {"",
                                        "default",
                                        "defaults file",
                                        "config file",
                                        "environment",
                                        "command line"};
    return names[src];
}

int
hearth_conf_set (hearth_conf_t *self, const char *name, const char *value,
                 hearth_src_t src, hearth_error_t *err)
{
    size_t i;
    const hearth_opt_t *o = hearth_conf__find (self, name, strlen (name), &i);
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
    static const char *const names[] = {"TEXT", "N",    "", "SIZE", "SIZE",
                                        "TIME", "TEXT", "", "NAME"};
    return o->metavar ? o->metavar : names[o->type];
}

/* The synopsis, one line a form: "Usage: PROGRAM FORM", then "  or:
   PROGRAM FORM" for each further line (given as "PROGRAM FORM" or
   "FORM", indented or not), as GNU tools print it and help2man reads
   it, one synopsis line each in the manual page. */
static void
s_synopsis (const hearth_conf_t *self, FILE *out, const char *synopsis)
{
    size_t plen = strlen (self->program);
    for (int n = 0; synopsis && *synopsis; n++) {
        const char *end = strchr (synopsis, '\n');
        size_t len = end ? (size_t) (end - synopsis) : strlen (synopsis);
        size_t skip = strspn (synopsis, " ");
        if (skip < len && strncmp (synopsis + skip, self->program, plen) == 0
            && (synopsis[skip + plen] == ' ' || skip + plen == len))
            skip += plen + (skip + plen < len);
        fprintf (out, "%s%s %.*s\n", n ? "  or:  " : "Usage: ", self->program,
                 (int) (len - skip), synopsis + skip);
        synopsis = end ? end + 1 : synopsis + len;
    }
}

void
hearth_conf_usage (const hearth_conf_t *self, FILE *out, const char *synopsis,
                   const char *description)
{
    s_synopsis (self, out, synopsis);
    if (description)
        fprintf (out, "\n%s\n", description);
    /* a short heading, which help2man makes a section of the page, and
       the sources as a sentence of their own */
    fprintf (out,
             "\nEach option is a flag, or HEARTH_NAME in the environment, or\n"
             "name = value in a --conf file%s.\n\nOptions:\n",
             self->defaults ? " or in the defaults file" : "");
    for (size_t i = 0; i < self->nopts; i++) {
        const hearth_opt_t *o = &self->opts[i];
        char flag[80];
        const char *mv = s_metavar (o);
        snprintf (flag, sizeof flag, "--%s%s%s", o->name, *mv ? " " : "", mv);
        /* a flag as wide as its column gets its text on the next line,
           as GNU programs do: one space after it ran the two together,
           and help2man made the text part of the flag's name */
        if (strlen (flag) >= 30)
            fprintf (out, "  %s\n%33s", flag, "");
        else
            fprintf (out, "  %-30s ", flag);
        fprintf (out, "%s%s", o->help ? o->help : "",
                 o->flag_only ? " (a flag only)" : "");
        if (o->dflt && o->type != HEARTH_OPT_ALIAS)
            fprintf (out, " (default: %s)", o->dflt);
        fprintf (out, "\n");
    }
    fprintf (out, "  %-30s %s\n", "--conf FILE|KEY=VALUE",
             "read settings from FILE, or set one");
    fprintf (out, "  %-30s %s\n", "-h, --help", "show this help and exit");
    fprintf (out, "  %-30s %s\n", "--version", "show the version and exit");
    if (self->defaults)
        fprintf (out,
                 "\nThe defaults file, weaker than every other source, is "
                 "$HEARTH_CONF_DIR/" HEARTH_DEFAULTS_NAME
                 "\nwhen HEARTH_CONF_DIR is set, else "
                 "%s/hearth/" HEARTH_DEFAULTS_NAME ".\n",
                 HEARTH_SYSCONFDIR);
}

static const s_value_t *
s_value (const hearth_conf_t *self, const char *name)
{
    size_t i;
    const hearth_opt_t *o = hearth_conf__find (self, name, strlen (name), &i);
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
    return hearth_conf__find (self, name, strlen (name), NULL) != NULL;
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

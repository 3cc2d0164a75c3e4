/*  conf.h - a program's settings from flags, environment, file, defaults.

    Each program declares its options once, as a table of hearth_opt_t.  The
    same name is the long flag (--heartbeat-interval 2s), the config-file key
    (heartbeat-interval = 2s) and, upper-cased with '-' as '_' and prefixed
    HEARTH_, the environment variable (HEARTH_HEARTBEAT_INTERVAL=2s).

    Precedence: flags beat the environment, which beats the config file,
    which beats the defaults file, which beats the built-in defaults.
    Config files are "key = value" lines, '#' starts a comment; they come
    from --conf FILE (or HEARTH_CONF).  The defaults file is the installed
    configuration directory's hearth-defaults.conf, read by the programs
    that ask for it (hearth_conf_use_defaults: hearth-submit, libhearth,
    hearth-admin), as Spark's spark-defaults.conf.  An
    argument --conf KEY=VALUE instead sets one key at flag level; a key this
    program does not know is kept as an "extra" setting to pass on (so that
    hearth-submit can hand --conf speculation=true to the driver).  Unknown
    keys in a file are logged and ignored: one file may serve many programs.

    Values are checked when they are set, so a bad value anywhere stops the
    program at start-up with a message naming the option and the source.
*/
#ifndef HEARTH_CONF_H
#define HEARTH_CONF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libcore/error.h"

typedef enum {
    HEARTH_OPT_STR,      /* any text */
    HEARTH_OPT_INT,      /* whole number within min..max */
    HEARTH_OPT_BOOL,     /* a flag: --x means true; --x=false is allowed */
    HEARTH_OPT_SIZE,     /* bytes; a plain number is bytes */
    HEARTH_OPT_MEMORY,   /* bytes; a plain number is MiB */
    HEARTH_OPT_DURATION, /* milliseconds; a plain number is ms */
    HEARTH_OPT_LIST,     /* repeatable flag, each use adds one item; in the
                            environment or a file, items are separated by
                            commas */
    HEARTH_OPT_ALIAS,    /* a flag that sets alias_of to alias_value */
    HEARTH_OPT_LABEL,    /* text without control characters: a name
                            (libcore/ctlchars.h) */
} hearth_opt_type_t;

typedef struct {
    const char *name;        /* flag, key and (as HEARTH_NAME) env name */
    hearth_opt_type_t type;  /* how the value is read and checked */
    const char *dflt;        /* default, as text; NULL: unset */
    const char *metavar;     /* what --help shows as the value: "SIZE" */
    const char *help;        /* one line for --help */
    int64_t min, max;        /* for HEARTH_OPT_INT (both 0: any) */
    const char *alias_of;    /* for HEARTH_OPT_ALIAS: the option it sets */
    const char *alias_value; /* for HEARTH_OPT_ALIAS: the value it sets */
    bool flag_only;          /* only a flag: no HEARTH_ variable, no file
                                (a subcommand's filter, not a setting) */
} hearth_opt_t;

/* Where a value came from, weakest first. */
typedef enum {
    HEARTH_SRC_UNSET = 0,
    HEARTH_SRC_DEFAULT,
    HEARTH_SRC_DEFAULTS_FILE,
    HEARTH_SRC_FILE,
    HEARTH_SRC_ENV,
    HEARTH_SRC_FLAG,
} hearth_src_t;

typedef struct hearth_conf hearth_conf_t;

/* A new configuration for program over the option table opts (borrowed,
   must outlive the conf; ends with a {NULL} row).  NULL on no memory. */
hearth_conf_t *hearth_conf_new (const char *program, const hearth_opt_t *opts);

/* Destroy; accepts NULL; nulls the pointer; keeps errno. */
void hearth_conf_destroy (hearth_conf_t **self_p);

/* Read flags from argv (stopping at the first argument that is not an
   option, or after "--"), then HEARTH_* variables, then config files.
   Returns the index in argv of the first positional argument (argc if
   none), or -1 with err.  --help/-h and --version only set flags (see
   below) and stop option parsing. */
int hearth_conf_parse (hearth_conf_t *self, int argc, char **argv,
                       hearth_error_t *err);

/* Parse more flags, from argv[from] up to the first argument that is not
   an option (a subcommand's flags, after hearth_conf_parse stopped at the
   subcommand); a --conf FILE among them is read at once.  Returns the
   index of that argument (argc if none), or -1 with err. */
int hearth_conf_parse_more (hearth_conf_t *self, int argc, char **argv,
                            int from, hearth_error_t *err);

/* The environment variable of option name into buf: HEARTH_NAME, upper
   case, '-' as '_'.  Returns buf. */
const char *hearth_conf_env_name (const char *name, char *buf, size_t size);

/* The defaults file's name, in the configuration directory. */
#define HEARTH_DEFAULTS_NAME "hearth-defaults.conf"

/* The defaults file's path into buf: $HEARTH_CONF_DIR/hearth-defaults.conf
   when HEARTH_CONF_DIR is set, else $sysconfdir/hearth/hearth-defaults.conf.
   Returns buf. */
const char *hearth_conf_defaults_path (char *buf, size_t size);

/* Have hearth_conf_parse read the defaults file at path (copied; NULL:
   hearth_conf_defaults_path's), at its level, when the file exists.
   strict: a key the program does not know is an error naming the file
   and the line (hearth-submit knows every key such a file holds); else it
   is ignored (libhearth leaves hearth-submit's own keys to it).  Returns
   0, or -1 when out of memory. */
int hearth_conf_use_defaults (hearth_conf_t *self, const char *path,
                              bool strict);

/* Refuse what --conf gives that this program does not know: a KEY=VALUE
   of an unknown KEY and an unknown key of a --conf FILE are errors
   ("unknown setting 'speculaton'"), for a program that knows every
   setting it may be given (hearth-submit, hearth-master).  Without it, an
   unknown KEY=VALUE is kept as an extra setting to pass on, and an
   unknown key of a file is ignored, with a warning (a file may be shared
   with other programs).  Call before hearth_conf_parse. */
void hearth_conf_strict (hearth_conf_t *self);

/* Set one option from text at a level, checking it.  Returns 0 or -1. */
int hearth_conf_set (hearth_conf_t *self, const char *name, const char *value,
                     hearth_src_t src, hearth_error_t *err);

/* Read a "key = value" file at file level.  Returns 0 or -1 with err. */
int hearth_conf_load_file (hearth_conf_t *self, const char *path,
                           hearth_error_t *err);

bool hearth_conf_wants_help (const hearth_conf_t *self);
bool hearth_conf_wants_version (const hearth_conf_t *self);

/* The program name given to hearth_conf_new. */
const char *hearth_conf_program (const hearth_conf_t *self);

/* Whether the option table has this option. */
bool hearth_conf_has (const hearth_conf_t *self, const char *name);

/* Print usage: a synopsis line, a description, then every option. */
void hearth_conf_usage (const hearth_conf_t *self, FILE *out,
                        const char *synopsis, const char *description);

/* Typed readers.  The name must be in the table (asserted).  Unset values
   read as NULL, 0 or false. */
const char *hearth_conf_str (const hearth_conf_t *self, const char *name);
int64_t hearth_conf_int (const hearth_conf_t *self, const char *name);
bool hearth_conf_bool (const hearth_conf_t *self, const char *name);
uint64_t hearth_conf_bytes (const hearth_conf_t *self, const char *name);
int64_t hearth_conf_ms (const hearth_conf_t *self, const char *name);
bool hearth_conf_isset (const hearth_conf_t *self, const char *name);
hearth_src_t hearth_conf_source (const hearth_conf_t *self, const char *name);

/* Items of a LIST option, in the order given (borrowed). */
size_t hearth_conf_list (const hearth_conf_t *self, const char *name,
                         const char *const **items);

/* KEY=VALUE settings this program does not know (borrowed). */
size_t hearth_conf_extras (const hearth_conf_t *self,
                           const char *const **items);

#endif

/*  conf_int.h - the insides of a configuration, shared by the two files
    that implement conf.h: conf.c (the store: options, values, levels,
    readers, --help) and confparse.c (where values come from: argv, the
    environment, config files and the defaults file).  confparse.c calls
    conf.c, never the other way.  Nothing else includes this header. */
#ifndef HEARTH_LIBCORE_CONF_INT_H
#define HEARTH_LIBCORE_CONF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/conf.h"

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
    char *defaults;           /* the defaults file to read, or NULL */
    bool defaults_strict;     /* its unknown keys are errors */
    bool strict;              /* --conf's unknown keys are errors, in a
                                 KEY=VALUE and in a FILE */
    bool help, version;       /* --help or --version was asked for */
};

/* Append a copy of text to v; -1 on no memory. */
int hearth_conf__push (s_strv_t *v, const char *text);

/* The option called name (len bytes of it), its row's index into *index
   (may be NULL); NULL when the table has none. */
const hearth_opt_t *hearth_conf__find (const hearth_conf_t *self,
                                       const char *name, size_t len,
                                       size_t *index);

#endif

/*  prom.c - the Prometheus text format; see prom.h. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/prom.h"

/* From 100 us to 10 s: an allocation pass or a journal write in a
   healthy master is well under a millisecond, a slow disk's fsync tens of
   milliseconds. */
const double hearth_prom_bounds[HEARTH_PROM_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
    0.01,   0.025,   0.05,   0.1,   1,      10};

struct hearth_prom {
    char *text;  /* the text (owned) */
    size_t len;  /* bytes in it */
    size_t size; /* bytes allocated */
    bool failed; /* an append ran out of memory */
};

void
hearth_prom_observe (hearth_prom_hist_t *h, double seconds)
{
    size_t i = 0;
    while (i < HEARTH_PROM_BUCKETS && seconds > hearth_prom_bounds[i])
        i++;
    h->counts[i]++;
    h->sum_s += seconds;
    h->count++;
}

hearth_prom_t *
hearth_prom_new (void)
{
    return calloc (1, sizeof (hearth_prom_t));
}

void
hearth_prom_destroy (hearth_prom_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free ((*self_p)->text);
    free (*self_p);
    *self_p = NULL;
}

static void s_append (hearth_prom_t *self, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void
s_append (hearth_prom_t *self, const char *fmt, ...)
{
    for (int round = 0; round < 2 && !self->failed; round++) {
        va_list ap;
        va_start (ap, fmt);
        size_t room = self->size - self->len;
        int n = vsnprintf (self->text ? self->text + self->len : NULL, room,
                           fmt, ap);
        va_end (ap);
        if (n < 0) {
            self->failed = true;
            return;
        }
        if ((size_t) n < room) {
            self->len += (size_t) n;
            return;
        }
        size_t size = (self->size ? self->size * 2 : 4096) + (size_t) n;
        char *text = realloc (self->text, size);
        if (!text)
            self->failed = true;
        else {
            self->text = text;
            self->size = size;
        }
    }
}

/* A number as Prometheus reads it (integers without a fraction). */
static void
s_number (hearth_prom_t *self, double v)
{
    if (isinf (v))
        s_append (self, v > 0 ? "+Inf" : "-Inf");
    else if (isnan (v))
        s_append (self, "NaN");
    else if (v == floor (v) && fabs (v) < 9007199254740992.0)
        s_append (self, "%.0f", v);
    else
        s_append (self, "%.17g", v);
}

void
hearth_prom_family (hearth_prom_t *self, const char *name, const char *type,
                    const char *help)
{
    s_append (self, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with \, " and newlines escaped. */
static void
s_label_value (hearth_prom_t *self, const char *value)
{
    for (const char *p = value; *p; p++) {
        if (*p == '\\' || *p == '"')
            s_append (self, "\\%c", *p);
        else if (*p == '\n')
            s_append (self, "\\n");
        else
            s_append (self, "%c", *p);
    }
}

void
hearth_prom_sample (hearth_prom_t *self, const char *name, const char *label,
                    const char *value, double v)
{
    s_append (self, "%s", name);
    if (label) {
        s_append (self, "{%s=\"", label);
        s_label_value (self, value);
        s_append (self, "\"}");
    }
    s_append (self, " ");
    s_number (self, v);
    s_append (self, "\n");
}

void
hearth_prom_histogram (hearth_prom_t *self, const char *name, const char *help,
                       const hearth_prom_hist_t *h)
{
    char line[160], le[32];
    uint64_t cumulative = 0;
    hearth_prom_family (self, name, "histogram", help);
    snprintf (line, sizeof line, "%s_bucket", name);
    for (size_t i = 0; i < HEARTH_PROM_BUCKETS; i++) {
        cumulative += h->counts[i];
        snprintf (le, sizeof le, "%g", hearth_prom_bounds[i]);
        hearth_prom_sample (self, line, "le", le, (double) cumulative);
    }
    hearth_prom_sample (self, line, "le", "+Inf", (double) h->count);
    snprintf (line, sizeof line, "%s_sum", name);
    hearth_prom_sample (self, line, NULL, NULL, h->sum_s);
    snprintf (line, sizeof line, "%s_count", name);
    hearth_prom_sample (self, line, NULL, NULL, (double) h->count);
}

char *
hearth_prom_take (hearth_prom_t **self_p, size_t *len)
{
    hearth_prom_t *self = *self_p;
    char *text = self->failed ? NULL : self->text;
    *len = text ? self->len : 0;
    if (text)
        self->text = NULL;
    else if (!self->failed && (text = calloc (1, 1)))
        *len = 0; /* nothing appended: an empty text */
    hearth_prom_destroy (self_p);
    return text;
}

/*  prom.h - the Prometheus text exposition format (version 0.0.4), and
    a fixed-bucket histogram of durations, for the daemons' /metrics.

    A hearth_prom_t is a growing text: one family at a time (its HELP and
    TYPE lines, then its samples), label values escaped.  Names are the
    caller's (hearth_..., base units, _total for counters); the caller
    keeps label sets small and fixed (never a task or executor id).  The
    text is the caller's to take (hearth_prom_take) or free. */
#ifndef HEARTH_PROM_H
#define HEARTH_PROM_H

#include <stddef.h>
#include <stdint.h>

typedef struct hearth_prom hearth_prom_t;

/* Buckets of a duration histogram (seconds, upper bounds; +Inf extra). */
#define HEARTH_PROM_BUCKETS 12

/* A histogram of durations: counts per bucket (not cumulative), their
   sum and count.  Zero-initialized is empty. */
typedef struct {
    uint64_t counts[HEARTH_PROM_BUCKETS + 1]; /* per bucket, +Inf last */
    double sum_s;                             /* sum of the durations, s */
    uint64_t count;                           /* observations */
} hearth_prom_hist_t;

/* The buckets' upper bounds, seconds (static). */
extern const double hearth_prom_bounds[HEARTH_PROM_BUCKETS];

/* Count one duration of seconds into h. */
void hearth_prom_observe (hearth_prom_hist_t *h, double seconds);

/* A new, empty text; NULL on no memory. */
hearth_prom_t *hearth_prom_new (void);

/* Free it.  Accepts NULL and a NULL *self_p; nulls *self_p. */
void hearth_prom_destroy (hearth_prom_t **self_p);

/* Start a family: "# HELP name help" and "# TYPE name type" (type:
   "gauge", "counter", "histogram"). */
void hearth_prom_family (hearth_prom_t *self, const char *name,
                         const char *type, const char *help);

/* One sample "name{label="value"} v"; label NULL: no labels. */
void hearth_prom_sample (hearth_prom_t *self, const char *name,
                         const char *label, const char *value, double v);

/* A whole histogram family: HELP, TYPE, the cumulative _bucket lines,
   _sum and _count. */
void hearth_prom_histogram (hearth_prom_t *self, const char *name,
                            const char *help, const hearth_prom_hist_t *h);

/* The text so far (NUL-terminated, malloc'ed: the caller's) and its
   length into *len; the builder is destroyed and *self_p nulled.  NULL
   when some append ran out of memory (the text would be cut). */
char *hearth_prom_take (hearth_prom_t **self_p, size_t *len);

#endif

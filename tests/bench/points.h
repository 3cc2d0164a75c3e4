/*  points.h - the work of benchmark 28 (persisted stages, bench-persist.sh),
    shared by its function tasks (bench_tasks.c) and its single-process
    reference (bench_persist.c), so that both do the same passes.

    Input: lines of POINTS_LINE bytes, "IIIIIIII,XXXXXX,YYYYYYY\n" (an id, two
    coordinates).  Parsing one gives the record "K\tV\n": K the id modulo
    POINTS_KEYS (its cluster), V = X + Y.  A pass over records sums V and
    counts records per K, as a k-means step sums its points per centre;
    its output is one line "K SUM COUNT" per key seen.
*/
#ifndef HEARTH_TESTS_BENCH_POINTS_H
#define HEARTH_TESTS_BENCH_POINTS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define POINTS_LINE 24
#define POINTS_KEYS 1024

/* The digits at *p up to stop, as a number; *p moves past stop. */
static inline uint64_t
points_number (const char **p, const char *end, char stop)
{
    uint64_t v = 0;
    const char *s = *p;
    while (s < end && *s != stop)
        v = v * 10 + (uint64_t) (*s++ - '0');
    *p = s < end ? s + 1 : end;
    return v;
}

/* Parse len bytes of whole input lines into records at out (room for
   len bytes: a record is never longer than its line).  Returns the
   records' bytes. */
static inline size_t
points_parse_lines (const char *in, size_t len, char *out)
{
    char *o = out;
    for (const char *p = in, *end = in + len; p < end;) {
        uint64_t id = points_number (&p, end, ',');
        uint64_t x = points_number (&p, end, ',');
        uint64_t y = points_number (&p, end, '\n');
        o += sprintf (o, "%u\t%u\n", (unsigned) (id % POINTS_KEYS),
                      (unsigned) (x + y));
    }
    return (size_t) (o - out);
}

/* One pass over len bytes of records: sums and counts per key added to
   sum[] and count[] (POINTS_KEYS each). */
static inline void
points_sum (const char *in, size_t len, uint64_t *sum, uint64_t *count)
{
    for (const char *p = in, *end = in + len; p < end;) {
        uint64_t k = points_number (&p, end, '\t');
        uint64_t v = points_number (&p, end, '\n');
        k %= POINTS_KEYS;
        sum[k] += v;
        count[k]++;
    }
}

#endif

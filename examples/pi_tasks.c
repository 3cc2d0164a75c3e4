/*  pi_tasks.c - function tasks of the Monte Carlo pi example (libpi.so).

    pi_sample: task i throws POINTS darts at the unit square (a generator
    seeded with i, so every run gives the same answer) and returns
    "INSIDE POINTS", the darts that fell inside the quarter circle.
    pi_sum: reads those lines and returns the estimate 4 * inside / total.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hearth.h>

/* Darts per sampling task (arg "i" or "i:points"). */
static const uint64_t s_default_points = 200000;

int pi_sample (const hearth_task_in_t *in, hearth_task_out_t *out);
int pi_sum (const hearth_task_in_t *in, hearth_task_out_t *out);

/* splitmix64: a small, good generator. */
static uint64_t
s_next (uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double
s_unit (uint64_t *state)
{
    return (double) (s_next (state) >> 11) / 9007199254740992.0;
}

static int
s_text (hearth_task_out_t *out, const char *fmt, uint64_t a, uint64_t b)
{
    char buf[64];
    int n = snprintf (buf, sizeof buf, fmt, a, b);
    if (!(out->data = malloc (n))) {
        snprintf (out->error, sizeof out->error, "out of memory");
        return -1;
    }
    memcpy (out->data, buf, n);
    out->len = n;
    return 0;
}

int
pi_sample (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    char *end;
    uint64_t seed = strtoull (in->arg, &end, 10), points = s_default_points;
    if (end == in->arg || (*end && *end != ':')) {
        snprintf (out->error, sizeof out->error,
                  "argument '%s' is not a task number", in->arg);
        return -1;
    }
    if (*end == ':')
        points = strtoull (end + 1, NULL, 10);
    uint64_t state = seed * 7919 + 1, inside = 0;
    for (uint64_t i = 0; i < points; i++) {
        double x = s_unit (&state), y = s_unit (&state);
        inside += x * x + y * y <= 1.0;
    }
    return s_text (out, "%" PRIu64 " %" PRIu64 "\n", inside, points);
}

int
pi_sum (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    uint64_t inside = 0, total = 0;
    const char *p = in->input, *end = p + in->input_len;
    while (p < end) {
        unsigned long long a, b;
        if (sscanf (p, "%llu %llu", &a, &b) == 2) {
            inside += a;
            total += b;
        }
        const char *nl = memchr (p, '\n', end - p);
        p = nl ? nl + 1 : end;
    }
    if (total == 0) {
        snprintf (out->error, sizeof out->error, "no samples in the input");
        return -1;
    }
    char buf[128];
    int n = snprintf (buf, sizeof buf,
                      "Pi is roughly %.6f (%" PRIu64 " darts, %" PRIu64
                      " inside)\n",
                      4.0 * (double) inside / (double) total, total, inside);
    if (!(out->data = malloc (n)))
        return -1;
    memcpy (out->data, buf, n);
    out->len = n;
    return 0;
}

/*  bench_tasks.c - function tasks for the benchmarks (libbenchtasks.so,
    shipped with --lib; built with a plain rule and never with the
    sanitizers, like examples/libpi.so).

    noop      returns nothing at once
    sleep_ms  sleeps arg milliseconds (default 10), returns nothing
    echo      returns its arg and a newline (bench-load.sh checks them)
    cat       returns its input
    points_parse  arg "FILE OFFSET LEN": those bytes of FILE (whole lines
              of points.h) parsed into records
    points_pass   one pass (points.h) over its input: "K SUM COUNT" lines
*/
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libhearth/hearth.h"
#include "tests/bench/points.h"

int noop (const hearth_task_in_t *in, hearth_task_out_t *out);
int sleep_ms (const hearth_task_in_t *in, hearth_task_out_t *out);
int echo (const hearth_task_in_t *in, hearth_task_out_t *out);
int cat (const hearth_task_in_t *in, hearth_task_out_t *out);
int points_parse (const hearth_task_in_t *in, hearth_task_out_t *out);
int points_pass (const hearth_task_in_t *in, hearth_task_out_t *out);

/* A copy of len bytes of data as the task's result; 1 on no memory. */
static int
s_result (hearth_task_out_t *out, const void *data, size_t len, char tail)
{
    if (!(out->data = malloc (len + 1)))
        return 1;
    memcpy (out->data, data, len);
    if (tail)
        ((char *) out->data)[len++] = tail;
    out->len = len;
    return 0;
}

int
noop (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    (void) in;
    (void) out;
    return 0;
}

int
sleep_ms (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    (void) out;
    long ms = in->arg && *in->arg ? strtol (in->arg, NULL, 10) : 10;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep (&ts, &ts) != 0)
        ;
    return 0;
}

int
echo (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    const char *arg = in->arg ? in->arg : "";
    return s_result (out, arg, strlen (arg), '\n');
}

int
cat (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    return s_result (out, in->input, in->input_len, 0);
}

int
points_parse (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    char path[4096];
    unsigned long long off, len;
    if (!in->arg || sscanf (in->arg, "%4095s %llu %llu", path, &off, &len) != 3)
        return snprintf (out->error, sizeof out->error, "%s",
                         "points_parse: arg is FILE OFFSET LEN"),
               1;
    char *raw = malloc (len ? len : 1), *rec = malloc (len ? len : 1);
    int fd = open (path, O_RDONLY);
    size_t got = 0;
    while (raw && fd >= 0 && got < len) {
        ssize_t n = pread (fd, raw + got, len - got, (off_t) (off + got));
        if (n <= 0)
            break;
        got += (size_t) n;
    }
    if (fd >= 0)
        close (fd);
    if (!raw || !rec || got < len) {
        free (raw);
        free (rec);
        return snprintf (out->error, sizeof out->error,
                         "points_parse: cannot read %.400s at %llu", path, off),
               1;
    }
    out->len = points_parse_lines (raw, len, rec);
    out->data = rec;
    free (raw);
    return 0;
}

int
points_pass (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    uint64_t sum[POINTS_KEYS] = {0}, count[POINTS_KEYS] = {0};
    points_sum (in->input, in->input_len, sum, count);
    char *text = malloc (POINTS_KEYS * 48 + 1);
    if (!text)
        return 1;
    size_t n = 0;
    for (unsigned k = 0; k < POINTS_KEYS; k++)
        if (count[k])
            n += (size_t) sprintf (text + n, "%u %" PRIu64 " %" PRIu64 "\n", k,
                                   sum[k], count[k]);
    out->data = text;
    out->len = n;
    return 0;
}

/*  bench_tasks.c - function tasks for the benchmarks (libbenchtasks.so,
    shipped with --lib; built with a plain rule and never with the
    sanitizers, like examples/libpi.so).

    noop      returns nothing at once
    sleep_ms  sleeps arg milliseconds (default 10), returns nothing
    echo      returns its arg and a newline (bench-load.sh checks them)
    cat       returns its input
*/
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libhearth/hearth.h"

int noop (const hearth_task_in_t *in, hearth_task_out_t *out);
int sleep_ms (const hearth_task_in_t *in, hearth_task_out_t *out);
int echo (const hearth_task_in_t *in, hearth_task_out_t *out);
int cat (const hearth_task_in_t *in, hearth_task_out_t *out);

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

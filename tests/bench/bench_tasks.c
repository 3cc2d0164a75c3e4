/*  bench_tasks.c - function tasks for the benchmarks (libbenchtasks.so,
    shipped with --lib; built with a plain rule and never with the
    sanitizers, like examples/libpi.so).

    noop      returns nothing at once
    sleep_ms  sleeps arg milliseconds (default 10), returns nothing
*/
#include <stdlib.h>
#include <time.h>

#include "driver/hearth.h"

int noop (const hearth_task_in_t *in, hearth_task_out_t *out);
int sleep_ms (const hearth_task_in_t *in, hearth_task_out_t *out);

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

/*  test_tasks.c - function tasks for the driver's integration tests
    (built as libtesttasks.so, shipped with --lib).

    echo     returns its argument followed by a newline
    cat      returns its input bytes
    sleep    sleeps arg milliseconds, returns "slept ARG"
    fail     always fails with the error "failing on purpose: ARG"
    noop     returns nothing at once
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/hearth.h"

int echo (const hearth_task_in_t *in, hearth_task_out_t *out);
int cat (const hearth_task_in_t *in, hearth_task_out_t *out);
int sleep_ms (const hearth_task_in_t *in, hearth_task_out_t *out);
int fail (const hearth_task_in_t *in, hearth_task_out_t *out);
int noop (const hearth_task_in_t *in, hearth_task_out_t *out);

static int
s_result (hearth_task_out_t *out, const void *data, size_t len)
{
    if (!(out->data = malloc (len ? len : 1)))
        return -1;
    memcpy (out->data, data, len);
    out->len = len;
    return 0;
}

int
echo (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    char buf[1024];
    int n = snprintf (buf, sizeof buf, "%s\n", in->arg);
    return s_result (out, buf, (size_t) n < sizeof buf ? (size_t) n : 0);
}

int
cat (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    return s_result (out, in->input, in->input_len);
}

int
sleep_ms (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    long ms = strtol (in->arg, NULL, 10);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep (&ts, NULL);
    char buf[64];
    int n = snprintf (buf, sizeof buf, "slept %ld\n", ms);
    return s_result (out, buf, n);
}

int
fail (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    snprintf (out->error, sizeof out->error, "failing on purpose: %s", in->arg);
    return 1;
}

int
noop (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    (void) in;
    (void) out;
    return 0;
}

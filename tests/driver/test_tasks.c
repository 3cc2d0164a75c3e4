/*  test_tasks.c - function tasks for the driver's integration tests
    (built as libtesttasks.so, shipped with --lib).

    echo     returns its argument followed by a newline (up to 1 KiB)
    echo_all returns its whole argument, of any size, and a newline
    cat      returns its input bytes
    sleep    sleeps arg milliseconds, returns "slept ARG"
    fail     always fails with the error "failing on purpose: ARG"
    noop     returns nothing at once
    ys       arg "N" or "N nl": N bytes of 'y', a newline after them only
             when asked (outputs at the bounds of what a driver keeps)
    bin      returns "\0\377\nI\001" (I: its index's last digit), no
             newline at its end
    flaky    arg "SEED PCT": fails on an attempt with a chance of PCT in
             100, drawn from SEED, its index and attempt (a retry draws
             again); else returns "line INDEX" and a newline
    slow_first  attempt 0 sleeps arg milliseconds; every attempt returns
             "task INDEX attempt ATTEMPT" and a newline
    res_log  appends "START ADDRS TASK NS" to the file arg names, sleeps
             50 ms, appends "END ADDRS TASK NS" (ADDRS: its gpu addresses
             from hearth_task_in_t's resources, comma-separated, or
             "none"; TASK: index.attempt; NS: CLOCK_REALTIME in ns, as
             date +%s%N), and returns "gpu=ADDRS" and a newline
*/
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libhearth/hearth.h"

int echo (const hearth_task_in_t *in, hearth_task_out_t *out);
int echo_all (const hearth_task_in_t *in, hearth_task_out_t *out);
int cat (const hearth_task_in_t *in, hearth_task_out_t *out);
int sleep_ms (const hearth_task_in_t *in, hearth_task_out_t *out);
int fail (const hearth_task_in_t *in, hearth_task_out_t *out);
int noop (const hearth_task_in_t *in, hearth_task_out_t *out);
int res_log (const hearth_task_in_t *in, hearth_task_out_t *out);
int ys (const hearth_task_in_t *in, hearth_task_out_t *out);
int bin (const hearth_task_in_t *in, hearth_task_out_t *out);
int flaky (const hearth_task_in_t *in, hearth_task_out_t *out);
int slow_first (const hearth_task_in_t *in, hearth_task_out_t *out);

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

/* The whole argument, whatever its size, and a newline. */
int
echo_all (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    size_t len = strlen (in->arg);
    if (s_result (out, in->arg, len + 1) < 0)
        return -1;
    ((char *) out->data)[len] = '\n';
    return 0;
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

/* One line appended to path in one write (O_APPEND: lines of tasks
   running at once do not mix). */
static int
s_log_line (const char *path, const char *what, const char *addrs,
            const hearth_task_in_t *in)
{
    struct timespec now;
    clock_gettime (CLOCK_REALTIME, &now);
    char line[1200];
    int n = snprintf (line, sizeof line, "%s %s %llu.%d %lld%09ld\n", what,
                      addrs, (unsigned long long) in->index, in->attempt,
                      (long long) now.tv_sec, now.tv_nsec);
    int fd = open (path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0)
        return -1;
    int rc = write (fd, line, (size_t) n) == n ? 0 : -1;
    close (fd);
    return rc;
}

int
res_log (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    char addrs[1024] = "none";
    size_t len = 0;
    for (size_t i = 0; in->resources && i < in->nresources; i++) {
        if (strcmp (in->resources[i].name, "gpu") != 0)
            continue;
        for (size_t k = 0; k < in->resources[i].count; k++)
            len +=
                (size_t) snprintf (addrs + len, sizeof addrs - len, "%s%s",
                                   k ? "," : "", in->resources[i].addresses[k]);
    }
    if (s_log_line (in->arg, "START", addrs, in) < 0) {
        snprintf (out->error, sizeof out->error, "cannot write %s", in->arg);
        return 1;
    }
    struct timespec ts = {0, 50 * 1000000};
    nanosleep (&ts, NULL);
    if (s_log_line (in->arg, "END", addrs, in) < 0) {
        snprintf (out->error, sizeof out->error, "cannot write %s", in->arg);
        return 1;
    }
    char buf[1100];
    int n = snprintf (buf, sizeof buf, "gpu=%s\n", addrs);
    return s_result (out, buf, (size_t) n);
}

int
ys (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    char *end;
    size_t n = strtoul (in->arg, &end, 10);
    bool nl = strstr (end, "nl") != NULL;
    if (!(out->data = malloc (n + 1)))
        return -1;
    memset (out->data, 'y', n);
    if (nl)
        ((char *) out->data)[n] = '\n';
    out->len = n + (nl ? 1 : 0);
    return 0;
}

int
bin (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    char b[] = {'\0', '\377', '\n', (char) ('0' + in->index % 10), '\001'};
    return s_result (out, b, sizeof b);
}

int
flaky (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    unsigned long seed = 0, pct = 0;
    sscanf (in->arg, "%lu %lu", &seed, &pct);
    uint64_t h = 1469598103934665603ull;
    uint64_t v[3] = {seed, in->index, (uint64_t) in->attempt};
    for (int i = 0; i < 3; i++) {
        h ^= v[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 1099511628211ull;
    }
    if (h % 100 < pct) {
        snprintf (out->error, sizeof out->error, "flaky on purpose");
        return 1;
    }
    char buf[64];
    int n = snprintf (buf, sizeof buf, "line %llu\n",
                      (unsigned long long) in->index);
    return s_result (out, buf, (size_t) n);
}

int
slow_first (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    if (in->attempt == 0) {
        long ms = strtol (in->arg, NULL, 10);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
        nanosleep (&ts, NULL);
    }
    char buf[64];
    int n = snprintf (buf, sizeof buf, "task %llu attempt %d\n",
                      (unsigned long long) in->index, in->attempt);
    return s_result (out, buf, (size_t) n);
}

/* The bytes of the broadcast file named by the argument
   (hearth_task_broadcast: the path its hearth_task_in_t gives, which
   must be the one in the environment too). */
int
broadcast_read (const hearth_task_in_t *in, hearth_task_out_t *out)
{
    const char *path = hearth_task_broadcast (in, in->arg);
    char var[256], buf[65536];
    snprintf (var, sizeof var, "HEARTH_BROADCAST_%s", in->arg);
    const char *env = getenv (var);
    if (!path || !env || strcmp (path, env) != 0) {
        snprintf (out->error, sizeof out->error,
                  "broadcast %s: hearth_task_broadcast says %s, $%s says %s",
                  in->arg, path ? path : "nothing", var, env ? env : "nothing");
        return -1;
    }
    int fd = open (path, O_RDONLY);
    ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf) : -1;
    if (fd >= 0)
        close (fd);
    if (n < 0) {
        snprintf (out->error, sizeof out->error, "cannot read %s", path);
        return -1;
    }
    return s_result (out, buf, (size_t) n);
}

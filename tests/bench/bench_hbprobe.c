/*  bench_hbprobe.c - the master's heartbeat-to-reply time, for
    bench-web.sh: a HEARTBEAT naming a worker the master does not know is
    answered at once with RECONNECT_WORKER, through the same read,
    dispatch and heartbeat handler as every worker's heartbeat, so its
    round trip is the master's heartbeat handling as a peer sees it
    (queueing behind the other workers' heartbeats and behind web
    requests included).

    Usage: bench-hbprobe --master URL [--ms N] [--every-ms N] [--key K]
                         [--samples FILE]
    Prints "KEY n=N p50=US p99=US max=US" (microseconds); with --samples,
    also appends every round trip (us, one a line) to FILE, so that a
    script can pool the probes of several windows. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/proto.h"
#include "tests/bench/benchcookie.h"
#include "tests/bench/benchutil.h"

/* Probes kept at most (one per --every-ms over --ms). */
#define S_MAX_PROBES 100000

static void
s_usage (void)
{
    fprintf (stderr, "usage: bench-hbprobe --master URL [--ms N] "
                     "[--every-ms N] [--key KEY] [--samples FILE]\n");
    exit (2);
}

int
main (int argc, char **argv)
{
    const char *url = NULL, *key = "hb_rtt", *samples = NULL;
    long ms = 10000, every_ms = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp (argv[i], "--master") == 0)
            url = argv[i + 1];
        else if (strcmp (argv[i], "--ms") == 0)
            ms = bench_arg_long (argv[i], argv[i + 1]);
        else if (strcmp (argv[i], "--every-ms") == 0)
            every_ms = bench_arg_long (argv[i], argv[i + 1]);
        else if (strcmp (argv[i], "--key") == 0)
            key = argv[i + 1];
        else if (strcmp (argv[i], "--samples") == 0)
            samples = argv[i + 1];
        else
            s_usage ();
    }
    if (!url || every_ms < 1)
        s_usage ();
    zsys_init ();
    zsys_set_linger (0);
    zsock_t *sock = bench_dealer (url);
    double *rtt = calloc (S_MAX_PROBES, sizeof *rtt);
    if (!sock || !rtt)
        return 1;
    size_t n = 0, lost = 0;
    double end = bench_now_us () + (double) ms * 1000;
    while (bench_now_us () < end && n < S_MAX_PROBES) {
        hearth_msg_t *hb = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
        cJSON_AddStringToObject (hb->body, "id", "bench-hbprobe");
        double t0 = bench_now_us ();
        if (hearth_msg_send (&hb, sock, NULL, NULL) < 0)
            return 1;
        zsock_set_rcvtimeo (sock, 1000);
        hearth_msg_t *reply = hearth_msg_recv (sock, NULL, NULL);
        if (reply && reply->cmd == HEARTH_CMD_RECONNECT_WORKER)
            rtt[n++] = bench_now_us () - t0;
        else
            lost++;
        hearth_msg_destroy (&reply);
        zclock_sleep ((int) every_ms);
    }
    FILE *out = samples ? fopen (samples, "a") : NULL;
    if (samples && !out) {
        perror (samples);
        return 1;
    }
    for (size_t i = 0; out && i < n; i++)
        fprintf (out, "%.0f\n", rtt[i]);
    if (out && fclose (out) != 0) {
        perror (samples);
        return 1;
    }
    bench_sort (rtt, n);
    printf ("%s n=%zu p50=%.0f p99=%.0f max=%.0f\n", key, n,
            n ? bench_quantile (rtt, n, 0.5) : 0,
            n ? bench_quantile (rtt, n, 0.99) : 0, n ? rtt[n - 1] : 0);
    if (lost)
        printf ("# %s: %zu probes unanswered within 1 s\n", key, lost);
    free (rtt);
    zsock_destroy (&sock);
    return 0;
}

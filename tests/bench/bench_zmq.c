/*  bench_zmq.c - benchmark 1, the reference: raw ZeroMQ ROUTER <-> DEALER
    over TCP loopback, between two processes (as a driver and an executor
    are), with libzmq's defaults.

        rtt64      round trip of a 64-byte message (DEALER -> ROUTER echo),
                   p50 and p99 over --rtt-count round trips
        oneway64   one-way rate of 64-byte messages, DEALER -> ROUTER
        json200    one-way rate of ~200-byte JSON objects, each built with
                   cJSON and printed by the sender and parsed (and read) by
                   the receiver: the cost floor of a JSON protocol

    Each figure is the median of --reps repetitions (min and max beside it).
    Usage: bench-zmq [--reps N] [--rtt-count N] [--count N] [--json-count N]
    Also, for benchmark 21 (bench-netns.sh): --serve ENDPOINT [--curve-secret
    Z85] runs the server alone, --connect ENDPOINT [--server-key Z85]
    measures against one on another host, --keygen prints a key pair.
*/
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zmq.h>

#include "tests/bench/benchutil.h"
#include "tests/bench/zmqref.h"

/* Wait for the server's count after MSG_END. */
static long
s_end (void *dealer)
{
    char end = MSG_END, reply[32] = "";
    zmq_send (dealer, &end, 1, 0);
    int n = zmq_recv (dealer, reply, sizeof reply - 1, 0);
    reply[n > 0 ? n : 0] = '\0';
    return strtol (reply, NULL, 10);
}

/* Messages per second of count 64-byte messages, one way. */
static double
s_oneway (void *dealer, long count)
{
    char buf[64];
    memset (buf, 'x', sizeof buf);
    buf[0] = MSG_COUNT;
    double t0 = bench_now_us ();
    for (long i = 0; i < count; i++)
        zmq_send (dealer, buf, ZMQREF_SMALL, 0);
    long got = s_end (dealer);
    double t1 = bench_now_us ();
    if (got != count)
        fprintf (stderr, "bench-zmq: server counted %ld of %ld\n", got, count);
    return (double) count / ((t1 - t0) / 1e6);
}

/* One ~200-byte JSON object, as a status update might be. */
static char *
s_json (long i)
{
    cJSON *o = cJSON_CreateObject ();
    cJSON_AddNumberToObject (o, "tid", (double) ((1LL << 32) | i));
    cJSON_AddNumberToObject (o, "attempt", 0);
    cJSON_AddStringToObject (o, "state", "FINISHED");
    cJSON_AddNumberToObject (o, "run_us", 12 + (double) (i % 1000));
    cJSON_AddStringToObject (o, "app_id", "app-20260101000000-0001");
    cJSON_AddNumberToObject (o, "exec_id", 1);
    cJSON_AddStringToObject (o, "fn", "noop");
    cJSON_AddStringToObject (o, "arg", "an argument of some length");
    cJSON_AddStringToObject (o, "host", "127.0.0.1");
    cJSON_AddNumberToObject (o, "timeout_ms", 60000);
    char *text = cJSON_PrintUnformatted (o);
    cJSON_Delete (o);
    return text;
}

static double
s_oneway_json (void *dealer, long count, size_t *bytes)
{
    double t0 = bench_now_us ();
    for (long i = 0; i < count; i++) {
        char *text = s_json (i);
        size_t len = strlen (text);
        *bytes = len;
        zmq_send (dealer, text, len, 0);
        free (text);
    }
    long got = s_end (dealer);
    double t1 = bench_now_us ();
    if (got != count)
        fprintf (stderr, "bench-zmq: server parsed %ld of %ld\n", got, count);
    return (double) count / ((t1 - t0) / 1e6);
}

/* The measured part: repetitions against a connected dealer; figures
   named KEY.rtt64.p50 and so on. */
static void
s_measure (void *dealer, const char *key, const char *where, long reps,
           long rtt_count, long count, long json_count)
{
    double p50[BENCH_MAX_REPS], p99[BENCH_MAX_REPS], r64[BENCH_MAX_REPS],
        rjson[BENCH_MAX_REPS];
    double *us = calloc (rtt_count, sizeof *us);
    size_t bytes = 0;
    for (long r = 0; r < reps; r++) {
        zmqref_rtt (dealer, us, (int) rtt_count);
        bench_sort (us, rtt_count);
        p50[r] = bench_quantile (us, rtt_count, 0.50);
        p99[r] = bench_quantile (us, rtt_count, 0.99);
        r64[r] = s_oneway (dealer, count);
        rjson[r] = s_oneway_json (dealer, json_count, &bytes);
    }
    printf ("# raw ZeroMQ ROUTER<->DEALER over %s, %ld reps; "
            "%ld round trips, %ld x 64 B, %ld x %zu B JSON per rep\n",
            where, reps, rtt_count, count, json_count, bytes);
    char name[128];
    static const char *const what[] = {"rtt64.p50", "rtt64.p99", "oneway64",
                                       "json200"};
    static const char *const units[] = {"us", "us", "msg/s", "msg/s"};
    double *figs[] = {p50, p99, r64, rjson};
    for (int f = 0; f < 4; f++) {
        snprintf (name, sizeof name, "%s.%s", key, what[f]);
        bench_figure (name, figs[f], reps, units[f]);
    }
    free (us);
}

static int
s_usage (void)
{
    fprintf (stderr, "usage: bench-zmq [--reps N] [--rtt-count N] [--count N] "
                     "[--json-count N] [--key PREFIX]\n"
                     "       bench-zmq --serve ENDPOINT [--curve-secret Z85]\n"
                     "       bench-zmq --connect ENDPOINT [--server-key Z85] "
                     "[--key PREFIX] [counts as above]\n"
                     "       bench-zmq --keygen\n");
    return 2;
}

int
main (int argc, char **argv)
{
    long reps = 3, rtt_count = 10000, count = 1000000, json_count = 200000;
    const char *serve = NULL, *connect = NULL, *secret = NULL,
               *server_key = NULL, *key = "zmq";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp (a, "--keygen") == 0) {
            char pub[41], sec[41];
            if (zmq_curve_keypair (pub, sec) < 0)
                return 1;
            printf ("%s %s\n", pub, sec);
            return 0;
        }
        if (!v)
            return s_usage ();
        if (strcmp (a, "--reps") == 0)
            reps = bench_arg_long (a, v);
        else if (strcmp (a, "--rtt-count") == 0)
            rtt_count = bench_arg_long (a, v);
        else if (strcmp (a, "--count") == 0)
            count = bench_arg_long (a, v);
        else if (strcmp (a, "--json-count") == 0)
            json_count = bench_arg_long (a, v);
        else if (strcmp (a, "--serve") == 0)
            serve = v;
        else if (strcmp (a, "--connect") == 0)
            connect = v;
        else if (strcmp (a, "--curve-secret") == 0)
            secret = v;
        else if (strcmp (a, "--server-key") == 0)
            server_key = v;
        else if (strcmp (a, "--key") == 0)
            key = v;
        else
            return s_usage ();
        i++;
    }
    if (reps > BENCH_MAX_REPS)
        reps = BENCH_MAX_REPS;
    if (serve) { /* in the foreground, its endpoint on stdout, until 'Q' */
        int rc = zmqref_serve (serve, secret, STDOUT_FILENO);
        return rc;
    }
    if (connect) { /* a server of another host (namespace): leave it up */
        void *ctx = zmq_ctx_new ();
        void *dealer = zmqref_connect (ctx, connect, server_key);
        if (!dealer)
            return 1;
        char where[300];
        snprintf (where, sizeof where, "TCP to %s%s", connect,
                  server_key ? ", CURVE" : "");
        s_measure (dealer, key, where, reps, rtt_count, count, json_count);
        int linger = 0;
        zmq_setsockopt (dealer, ZMQ_LINGER, &linger, sizeof linger);
        zmq_close (dealer);
        zmq_ctx_term (ctx);
        return 0;
    }
    zmqref_t ref;
    if (zmqref_start (&ref) < 0)
        return 1;
    s_measure (ref.dealer, key, "TCP loopback", reps, rtt_count, count,
               json_count);
    zmqref_stop (&ref);
    return 0;
}

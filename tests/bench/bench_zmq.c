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

/* First byte of each client message: what the server does with it. */
enum {
    MSG_ECHO = 'E',  /* send it back */
    MSG_COUNT = 'C', /* count it */
    MSG_JSON = '{',  /* parse it as JSON, read a field, count it */
    MSG_END = 'X',   /* reply with the count, reset it */
    MSG_QUIT = 'Q',  /* exit */
};

static const size_t s_small = 64;
static const int s_warmup = 1000;

/* The server: a ROUTER on an ephemeral port, written to port_fd. */
static int
s_server (int port_fd)
{
    void *ctx = zmq_ctx_new ();
    void *router = zmq_socket (ctx, ZMQ_ROUTER);
    if (zmq_bind (router, "tcp://127.0.0.1:0") < 0) {
        fprintf (stderr, "bench-zmq: bind: %s\n", zmq_strerror (errno));
        return 1;
    }
    char endpoint[256];
    size_t len = sizeof endpoint;
    zmq_getsockopt (router, ZMQ_LAST_ENDPOINT, endpoint, &len);
    if (write (port_fd, endpoint, strlen (endpoint) + 1) < 0)
        return 1;
    close (port_fd);
    long count = 0, bad = 0;
    zmq_msg_t rid, body;
    zmq_msg_init (&rid);
    zmq_msg_init (&body);
    for (;;) {
        if (zmq_msg_recv (&rid, router, 0) < 0
            || zmq_msg_recv (&body, router, 0) < 0)
            break;
        const char *data = zmq_msg_data (&body);
        size_t size = zmq_msg_size (&body);
        char kind = size ? data[0] : MSG_COUNT;
        if (kind == MSG_ECHO) {
            zmq_msg_send (&rid, router, ZMQ_SNDMORE);
            zmq_msg_send (&body, router, 0);
        }
        else if (kind == MSG_JSON) {
            cJSON *json = cJSON_ParseWithLength (data, size);
            const cJSON *tid = cJSON_GetObjectItemCaseSensitive (json, "tid");
            if (!cJSON_IsNumber (tid))
                bad++;
            cJSON_Delete (json);
            count++;
        }
        else if (kind == MSG_END) {
            char reply[32];
            int n = snprintf (reply, sizeof reply, "%ld", bad ? -bad : count);
            zmq_msg_send (&rid, router, ZMQ_SNDMORE);
            zmq_send (router, reply, n, 0);
            count = bad = 0;
        }
        else if (kind == MSG_QUIT)
            break;
        else
            count++;
    }
    zmq_msg_close (&rid);
    zmq_msg_close (&body);
    zmq_close (router);
    zmq_ctx_term (ctx);
    return 0;
}

/* Round trips: fills us[0..n). */
static void
s_rtt (void *dealer, double *us, int n)
{
    char buf[64];
    memset (buf, 'x', sizeof buf);
    buf[0] = MSG_ECHO;
    for (int i = -s_warmup; i < n; i++) {
        double t0 = bench_now_us ();
        zmq_send (dealer, buf, s_small, 0);
        zmq_recv (dealer, buf, sizeof buf, 0);
        if (i >= 0)
            us[i] = bench_now_us () - t0;
    }
}

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
        zmq_send (dealer, buf, s_small, 0);
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

int
main (int argc, char **argv)
{
    long reps = 3, rtt_count = 10000, count = 1000000, json_count = 200000;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp (argv[i], "--reps") == 0)
            reps = bench_arg_long (argv[i], argv[i + 1]), i++;
        else if (i + 1 < argc && strcmp (argv[i], "--rtt-count") == 0)
            rtt_count = bench_arg_long (argv[i], argv[i + 1]), i++;
        else if (i + 1 < argc && strcmp (argv[i], "--count") == 0)
            count = bench_arg_long (argv[i], argv[i + 1]), i++;
        else if (i + 1 < argc && strcmp (argv[i], "--json-count") == 0)
            json_count = bench_arg_long (argv[i], argv[i + 1]), i++;
        else {
            fprintf (stderr, "usage: bench-zmq [--reps N] [--rtt-count N] "
                             "[--count N] [--json-count N]\n");
            return 2;
        }
    }
    if (reps > BENCH_MAX_REPS)
        reps = BENCH_MAX_REPS;
    int fds[2];
    if (pipe (fds) < 0)
        return 1;
    pid_t pid = fork ();
    if (pid == 0) {
        close (fds[0]);
        _exit (s_server (fds[1]));
    }
    close (fds[1]);
    char endpoint[256] = "";
    ssize_t n = read (fds[0], endpoint, sizeof endpoint - 1);
    close (fds[0]);
    if (pid < 0 || n <= 0) {
        fprintf (stderr, "bench-zmq: the server did not start\n");
        return 1;
    }
    void *ctx = zmq_ctx_new ();
    void *dealer = zmq_socket (ctx, ZMQ_DEALER);
    zmq_connect (dealer, endpoint);

    double p50[BENCH_MAX_REPS], p99[BENCH_MAX_REPS], r64[BENCH_MAX_REPS],
        rjson[BENCH_MAX_REPS];
    double *us = calloc (rtt_count, sizeof *us);
    size_t bytes = 0;
    for (long r = 0; r < reps; r++) {
        s_rtt (dealer, us, (int) rtt_count);
        bench_sort (us, rtt_count);
        p50[r] = bench_quantile (us, rtt_count, 0.50);
        p99[r] = bench_quantile (us, rtt_count, 0.99);
        r64[r] = s_oneway (dealer, count);
        rjson[r] = s_oneway_json (dealer, json_count, &bytes);
    }
    printf ("# raw ZeroMQ ROUTER<->DEALER over TCP loopback, %ld reps; "
            "%ld round trips, %ld x 64 B, %ld x %zu B JSON per rep\n",
            reps, rtt_count, count, json_count, bytes);
    bench_figure ("zmq.rtt64.p50", p50, reps, "us");
    bench_figure ("zmq.rtt64.p99", p99, reps, "us");
    bench_figure ("zmq.oneway64", r64, reps, "msg/s");
    bench_figure ("zmq.json200", rjson, reps, "msg/s");

    char quit = MSG_QUIT;
    zmq_send (dealer, &quit, 1, 0);
    int linger = 1000;
    zmq_setsockopt (dealer, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close (dealer);
    zmq_ctx_term (ctx);
    free (us);
    int status;
    waitpid (pid, &status, 0);
    return 0;
}

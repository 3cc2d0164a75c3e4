/*  bench_haprobe.c - how long after a signal to the leader a master of
    the list accepts submissions, for bench-failover.sh: it sends the
    signal itself (so that the clock starts with it), then asks every
    master of the list, each on its own DEALER, REGISTER_APPLICATION
    again and again until one answers REGISTERED_APPLICATION (a standby
    answers ERROR standby at once, a dead master nothing).  The
    application it registers asks for executors no worker can hold, and
    is unregistered at once, so that it leaves nothing behind.

    Usage: bench-haprobe --masters URL[,URL...] [--kill PID] [--signal N]
                         [--every-ms N] [--wait-ms N] [--timeout-ms N]
    Prints "accept_ms=MS url=URL" and exits 0, or exits 1 when none
    accepted within --timeout-ms. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <czmq.h>

#include "libcore/proto.h"
#include "tests/bench/benchcookie.h"
#include "tests/bench/benchutil.h"

/* Masters in a list at most. */
#define S_MAX_URLS 8
/* More MiB per executor than any worker has (the schema's limit), so
   that the probe's application is never given an executor. */
static const double s_no_executor_mb = 1099511627776.0;
/* How long the unregistration may take before the probe gives up on it. */
static const int s_unregister_wait_ms = 1000;

typedef struct {
    const char *url; /* borrowed from the command line */
    zsock_t *sock;   /* DEALER with a request out, or NULL */
    double sent_us;  /* when that request went */
    double next_us;  /* when the next may go */
} s_master_t;

static void
s_usage (void)
{
    fprintf (stderr,
             "usage: bench-haprobe --masters URL[,URL...] [--kill PID] "
             "[--signal N] [--every-ms N] [--wait-ms N] [--timeout-ms N]\n");
    exit (2);
}

/* Split the list (in place) into ms; returns how many. */
static size_t
s_split (char *list, s_master_t *ms)
{
    size_t n = 0;
    for (char *save = NULL, *u = strtok_r (list, ",", &save);
         u && n < S_MAX_URLS; u = strtok_r (NULL, ",", &save))
        ms[n++] = (s_master_t){.url = u};
    return n;
}

/* A fresh DEALER to m with a REGISTER_APPLICATION on it (a fresh socket
   each time, so that a late answer is never taken for another's). */
static void
s_ask (s_master_t *m, double now)
{
    zsock_destroy (&m->sock);
    m->sock = bench_dealer (m->url);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_APPLICATION);
    if (!m->sock || !msg) {
        hearth_msg_destroy (&msg);
        zsock_destroy (&m->sock);
        return;
    }
    cJSON_AddStringToObject (msg->body, "name", "bench-haprobe");
    cJSON_AddStringToObject (msg->body, "driver_url", "tcp://127.0.0.1:1");
    cJSON_AddNumberToObject (msg->body, "max_cores", 1);
    cJSON_AddNumberToObject (msg->body, "memory_per_executor_mb",
                             s_no_executor_mb);
    if (hearth_msg_send (&msg, m->sock, NULL, NULL) < 0)
        zsock_destroy (&m->sock);
    m->sent_us = now;
}

/* Tell the master that accepted that the application is over, and wait
   for it to say so (APPLICATION_REMOVED). */
static void
s_unregister (zsock_t *sock, const char *app_id)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_UNREGISTER_APPLICATION);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "app_id", app_id);
    cJSON_AddStringToObject (msg->body, "state", "FINISHED");
    cJSON_AddStringToObject (msg->body, "message", "bench-haprobe's probe");
    if (hearth_msg_send (&msg, sock, NULL, NULL) < 0)
        return;
    zsock_set_rcvtimeo (sock, s_unregister_wait_ms);
    for (;;) {
        hearth_msg_t *reply = hearth_msg_recv (sock, NULL, NULL);
        bool done = !reply || reply->cmd == HEARTH_CMD_APPLICATION_REMOVED;
        hearth_msg_destroy (&reply);
        if (done)
            return;
    }
}

/* Wait up to ms for answers; the index of the master that accepted
   (its app id into app_id), or -1. */
static int
s_listen (s_master_t *ms, size_t n, long ms_wait, char *app_id, size_t size)
{
    zmq_pollitem_t items[S_MAX_URLS];
    size_t map[S_MAX_URLS], k = 0;
    for (size_t i = 0; i < n; i++)
        if (ms[i].sock) {
            items[k] =
                (zmq_pollitem_t){zsock_resolve (ms[i].sock), 0, ZMQ_POLLIN, 0};
            map[k++] = i;
        }
    if (zmq_poll (items, (int) k, ms_wait) <= 0)
        return -1;
    for (size_t j = 0; j < k; j++) {
        if (!(items[j].revents & ZMQ_POLLIN))
            continue;
        s_master_t *m = &ms[map[j]];
        hearth_msg_t *reply = hearth_msg_recv (m->sock, NULL, NULL);
        const char *id = reply ? hearth_json_str (reply->body, "app_id") : NULL;
        bool ok =
            reply && reply->cmd == HEARTH_CMD_REGISTERED_APPLICATION && id;
        if (ok)
            snprintf (app_id, size, "%s", id);
        hearth_msg_destroy (&reply);
        if (ok)
            return (int) map[j];
        zsock_destroy (&m->sock); /* an ERROR (a standby): ask again later */
    }
    return -1;
}

int
main (int argc, char **argv)
{
    char *list = NULL;
    long pid = 0, sig = SIGKILL, every_ms = 20, wait_ms = 500;
    long timeout_ms = 60000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp (argv[i], "--masters") == 0)
            list = argv[i + 1];
        else if (strcmp (argv[i], "--kill") == 0)
            pid = bench_arg_long (argv[i], argv[i + 1]);
        else if (strcmp (argv[i], "--signal") == 0)
            sig = bench_arg_long (argv[i], argv[i + 1]);
        else if (strcmp (argv[i], "--every-ms") == 0)
            every_ms = bench_arg_long (argv[i], argv[i + 1]);
        else if (strcmp (argv[i], "--wait-ms") == 0)
            wait_ms = bench_arg_long (argv[i], argv[i + 1]);
        else if (strcmp (argv[i], "--timeout-ms") == 0)
            timeout_ms = bench_arg_long (argv[i], argv[i + 1]);
        else
            s_usage ();
    }
    s_master_t ms[S_MAX_URLS];
    size_t n = list ? s_split (list, ms) : 0;
    if (n == 0)
        s_usage ();
    zsys_init ();
    zsys_set_linger (0);
    double t0 = bench_now_us ();
    if (pid && kill ((pid_t) pid, (int) sig) < 0) {
        perror ("bench-haprobe: kill");
        return 1;
    }
    int won = -1;
    char app_id[128] = "";
    double end = t0 + (double) timeout_ms * 1000;
    while (won < 0 && bench_now_us () < end) {
        double now = bench_now_us ();
        for (size_t i = 0; i < n; i++)
            /* a dead master's request is given up after wait_ms */
            if ((!ms[i].sock && now >= ms[i].next_us)
                || (ms[i].sock && now - ms[i].sent_us > wait_ms * 1000.0)) {
                s_ask (&ms[i], now);
                ms[i].next_us = now + every_ms * 1000.0;
            }
        won = s_listen (ms, n, every_ms / 4 + 1, app_id, sizeof app_id);
    }
    double took_ms = (bench_now_us () - t0) / 1000;
    if (won >= 0) {
        printf ("accept_ms=%.1f url=%s\n", took_ms, ms[won].url);
        fflush (stdout);
        s_unregister (ms[won].sock, app_id);
    }
    else
        fprintf (stderr, "bench-haprobe: no master accepted within %ld ms\n",
                 timeout_ms);
    for (size_t i = 0; i < n; i++)
        zsock_destroy (&ms[i].sock);
    return won >= 0 ? 0 : 1;
}

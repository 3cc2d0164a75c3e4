/*  zkelect-probe.c - one election candidate (libcore/zkelect.c) for the
    high-availability tests: it joins the election and prints each role
    it is given, one line each, flushed at once:

        ROLE <unix ms> LEADER|STANDBY|SUSPENDED epoch=N leader=DATA

    Usage: zkelect-probe HOSTS DIR SESSION_MS DATA
    SIGTERM and SIGINT end its session cleanly (its node goes at once),
    after which it prints "BYE <unix ms>" and exits 0.
*/
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include <czmq.h>

#include "libcore/log.h"
#include "libcore/zkelect.h"

static long long
s_now_ms (void)
{
    struct timeval tv;
    gettimeofday (&tv, NULL);
    return (long long) tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void
s_on_role (void *arg, const zkelect_view_t *v)
{
    (void) arg;
    printf ("ROLE %lld %s epoch=%llu leader=%s why=%s\n", s_now_ms (),
            zkelect_role_name (v->role), (unsigned long long) v->epoch,
            v->leader ? v->leader : "-", v->why);
    fflush (stdout);
}

static volatile sig_atomic_t s_stop;

static void
s_on_signal (int sig)
{
    (void) sig;
    s_stop = 1;
}

static int
s_on_zk (zloop_t *loop, zmq_pollitem_t *item, void *arg)
{
    (void) loop;
    (void) item;
    zkelect_dispatch (arg);
    return 0;
}

static int
s_on_tick (zloop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    zkelect_tick (arg);
    return s_stop ? -1 : 0;
}

int
main (int argc, char **argv)
{
    if (argc != 5) {
        fprintf (stderr, "usage: zkelect-probe HOSTS DIR SESSION_MS DATA\n");
        return 2;
    }
    /* our own handlers, before any thread exists (czmq's are not set up
       for a process without sockets) */
    struct sigaction sa = {.sa_handler = s_on_signal};
    sigemptyset (&sa.sa_mask);
    sigaction (SIGTERM, &sa, NULL);
    sigaction (SIGINT, &sa, NULL);
    hearth_error_t err;
    hearth_log_open ("zkelect-probe", "info", NULL, &err);
    zkelect_config_t config = {.hosts = argv[1],
                               .dir = argv[2],
                               .session_ms = atoi (argv[3]),
                               .data = argv[4]};
    zkelect_t *el = zkelect_new (&config, s_on_role, NULL, &err);
    if (!el) {
        fprintf (stderr, "zkelect-probe: %s\n", err.text);
        return 1;
    }
    zloop_t *loop = zloop_new ();
    zmq_pollitem_t item = {NULL, zkelect_fd (el), ZMQ_POLLIN, 0};
    zloop_poller (loop, &item, s_on_zk, el);
    zloop_timer (loop, 100, 0, s_on_tick, el);
    zloop_set_nonstop (loop, true); /* the tick ends it, on s_stop */
    zloop_start (loop);
    zloop_destroy (&loop);
    zkelect_destroy (&el);
    printf ("BYE %lld\n", s_now_ms ());
    return 0;
}

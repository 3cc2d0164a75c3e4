/*  fake-executor.c - a stand-in for hearth-executor in the integration
    tests: it accepts exactly the command line the worker builds, checks
    it, and plays the executor's part of the protocol with the driver.

        hearth-executor --driver-url URL --app-id APP_ID --exec-id N
                        --cores N --memory-mb N --host HOST [--token T]
                        [--driver-key KEY] [--conf KEY=VALUE]...

    It prints its arguments to stdout and a line to stderr (so tests can
    check that both land in the work dir), registers with the driver
    (REGISTER_EXECUTOR), and exits 0 on SIGTERM, on STOP_EXECUTOR or when
    the driver is silent for 5 of its heartbeat intervals.  --conf
    fake.exit=N makes it exit at once with status N; --conf fake.ignore-term=1
    makes it ignore SIGTERM (to test the SIGKILL after the grace period).
*/
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libcore/conf.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "libcore/spawn.h"

#define OPT(n, t, h)                                                           \
    {                                                                          \
        .name = n, .type = t, .help = h                                        \
    }

static const hearth_opt_t s_opts[] = {
    OPT ("driver-url", HEARTH_OPT_STR, "driver URL"),
    OPT ("app-id", HEARTH_OPT_STR, "application id"),
    OPT ("exec-id", HEARTH_OPT_INT, "executor id"),
    OPT ("cores", HEARTH_OPT_INT, "cores"),
    OPT ("memory-mb", HEARTH_OPT_INT, "memory"),
    OPT ("host", HEARTH_OPT_STR, "worker host"),
    OPT ("token", HEARTH_OPT_STR, "token"),
    OPT ("driver-key", HEARTH_OPT_STR, "driver key"),
    {.name = NULL},
};

static const char *
s_extra (hearth_conf_t *conf, const char *key)
{
    const char *const *items;
    size_t n = hearth_conf_extras (conf, &items), len = strlen (key);
    for (size_t i = 0; i < n; i++)
        if (strncmp (items[i], key, len) == 0 && items[i][len] == '=')
            return items[i] + len + 1;
    return NULL;
}

static int64_t
s_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
s_check_args (hearth_conf_t *conf)
{
    static const char *const required[] = {"driver-url", "app-id",    "exec-id",
                                           "cores",      "memory-mb", "host"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!hearth_conf_isset (conf, required[i])) {
            fprintf (stderr, "fake-executor: --%s is missing\n", required[i]);
            return -1;
        }
    return 0;
}

static void
s_register (hearth_conf_t *conf, zsock_t *sock)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_EXECUTOR);
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", hearth_conf_str (conf, "app-id"));
    cJSON_AddNumberToObject (b, "exec_id",
                             (double) hearth_conf_int (conf, "exec-id"));
    cJSON_AddStringToObject (b, "host", hearth_conf_str (conf, "host"));
    cJSON_AddNumberToObject (b, "cores",
                             (double) hearth_conf_int (conf, "cores"));
    cJSON_AddNumberToObject (b, "pid", (double) getpid ());
    if (hearth_conf_str (conf, "token"))
        cJSON_AddStringToObject (b, "token", hearth_conf_str (conf, "token"));
    hearth_msg_send (&msg, sock, NULL, NULL);
}

/* Serve the driver until told to stop.  Returns the exit status. */
static int
s_serve (hearth_conf_t *conf, int sigfd)
{
    hearth_error_t err;
    zsock_t *sock = hearth_sock_new (NULL, &err);
    if (!sock
        || hearth_sock_connect (sock, hearth_conf_str (conf, "driver-url"),
                                &err)
               < 0) {
        fprintf (stderr, "fake-executor: %s\n", err.text);
        hearth_sock_destroy (&sock);
        return 1;
    }
    s_register (conf, sock);
    int64_t interval = 1000, last = s_now ();
    int rc = 0;
    zpoller_t *poller = zpoller_new (sock, NULL);
    while (s_now () - last < 5 * interval) {
        if (hearth_signalfd_read (sigfd) > 0) {
            printf ("fake-executor: SIGTERM\n");
            break;
        }
        if (!zpoller_wait (poller, 50))
            continue;
        hearth_msg_t *msg = hearth_msg_recv (sock, NULL, NULL);
        if (!msg)
            continue;
        last = s_now ();
        if (msg->cmd == HEARTH_CMD_REGISTERED_EXECUTOR) {
            interval =
                hearth_json_int (msg->body, "heartbeat_interval_ms", interval);
            printf ("fake-executor: registered\n");
        }
        bool stop = msg->cmd == HEARTH_CMD_STOP_EXECUTOR;
        hearth_msg_destroy (&msg);
        if (stop) {
            printf ("fake-executor: STOP_EXECUTOR\n");
            break;
        }
    }
    fflush (stdout);
    zpoller_destroy (&poller);
    hearth_sock_destroy (&sock);
    return rc;
}

int
main (int argc, char **argv)
{
    static const int sigs[] = {SIGTERM, 0};
    hearth_error_t err;
    hearth_conf_t *conf = hearth_conf_new ("fake-executor", s_opts);
    int rc = 2;
    if (hearth_conf_parse (conf, argc, argv, &err) < 0) {
        fprintf (stderr, "fake-executor: %s\n", err.text);
        goto done;
    }
    if (s_check_args (conf) < 0)
        goto done;
    printf ("fake-executor");
    for (int i = 1; i < argc; i++)
        printf (" %s", argv[i]);
    printf ("\n");
    fflush (stdout);
    fprintf (stderr, "fake-executor: stderr works, pid %d\n", (int) getpid ());
    if (s_extra (conf, "fake.exit")) {
        rc = atoi (s_extra (conf, "fake.exit"));
        goto done;
    }
    if (s_extra (conf, "fake.ignore-term"))
        signal (SIGTERM, SIG_IGN);
    int sigfd =
        s_extra (conf, "fake.ignore-term") ? -1 : hearth_signalfd_open (sigs);
    hearth_zsys_init ();
    rc = s_serve (conf, sigfd);
    if (sigfd >= 0)
        close (sigfd);
done:
    hearth_conf_destroy (&conf);
    return rc;
}

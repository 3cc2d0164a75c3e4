/*  test-fakepeer.c - the peer a worker or an executor connects to, for the
    tests of what they do with garbage (test-peer-garbage.sh):

        test-fakepeer --role master|driver --count N [--interval 200ms]

    It binds a ROUTER on 127.0.0.1 (an ephemeral port), prints
    "URL tcp://127.0.0.1:PORT", and waits for the first registration: a
    worker's REGISTER_WORKER (role master) or an executor's
    REGISTER_EXECUTOR (role driver), which it accepts.  Then it sends N
    malformed messages, of every kind a receiver's decoder refuses (not
    Hearth, another version, too few frames, an unknown command, bad JSON,
    a body that breaks the schema, a frame index out of range), plus
    valid commands the peer does not take and ERRORs, with a HEARTBEAT
    every 500 so that the peer does not find it silent.  Last it sends a
    request the peer must answer (role master: DRIVER_LOG, answered by
    DRIVER_LOG_RESPONSE; role driver: LAUNCH_TASKS of one command task,
    answered by STATUS_UPDATE): the answer, behind all the garbage on the
    one connection, shows that the peer read it all and still works.

    Output lines (stdout, flushed): URL ..., REGISTERED CMD, SENT N,
    ANSWERED CMD (then exits 0); on a timeout, "TIMEOUT WHAT" and exit 1.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/conf.h"
#include "libcore/proto.h"
#include "libcore/sock.h"

/* How long to wait for the peer's registration and its last answer. */
static const int s_wait_ms = 20000;
/* A HEARTBEAT after this many garbage messages. */
static const int s_beat_every = 500;

static const hearth_opt_t s_opts[] = {
    {.name = "role",
     .type = HEARTH_OPT_STR,
     .dflt = "master",
     .help = "master (for a worker) or driver (for an executor)"},
    {.name = "count",
     .type = HEARTH_OPT_INT,
     .dflt = "20000",
     .help = "malformed messages to send",
     .min = 0,
     .max = 10000000},
    {.name = "interval",
     .type = HEARTH_OPT_DURATION,
     .dflt = "200ms",
     .help = "the heartbeat interval given to the peer"},
    {.name = NULL},
};

typedef struct {
    zsock_t *router;  /* where the peer connects */
    zframe_t *rid;    /* the peer's routing id, once registered */
    bool master;      /* role master (else driver) */
    int64_t interval; /* heartbeat interval, ms */
} peer_t;

/* Send frames as they are (any bytes), to the peer. */
static void
s_raw (peer_t *p, const char *const *frames, size_t n)
{
    zmsg_t *msg = zmsg_new ();
    zframe_t *rid = zframe_dup (p->rid);
    zmsg_append (msg, &rid);
    for (size_t i = 0; i < n; i++)
        zmsg_addmem (msg, frames[i], strlen (frames[i]));
    if (zmsg_send (&msg, p->router) < 0)
        zmsg_destroy (&msg);
}

#define RAW(...)                                                               \
    do {                                                                       \
        const char *f_[] = {__VA_ARGS__};                                      \
        s_raw (p, f_, sizeof f_ / sizeof f_[0]);                               \
    } while (0)

static void
s_send (peer_t *p, hearth_msg_t *msg)
{
    hearth_error_t err;
    if (hearth_msg_send (&msg, p->router, p->rid, &err) < 0)
        fprintf (stderr, "test-fakepeer: %s\n", err.text);
}

/* The next message from the peer within ms, or NULL. */
static hearth_msg_t *
s_recv (peer_t *p, int ms)
{
    zpoller_t *poller = zpoller_new (p->router, NULL);
    hearth_msg_t *msg = NULL;
    if (zpoller_wait (poller, ms)) {
        hearth_error_t err;
        zframe_t *rid = NULL;
        msg = hearth_msg_recv (p->router, &rid, &err);
        if (rid && !p->rid)
            p->rid = rid;
        else
            zframe_destroy (&rid);
    }
    zpoller_destroy (&poller);
    return msg;
}

/* Wait for cmd from the peer (others are dropped); false on a timeout. */
static bool
s_wait_for (peer_t *p, hearth_cmd_t cmd)
{
    int64_t end = hearth_mono_ms () + s_wait_ms;
    while (hearth_mono_ms () < end) {
        hearth_msg_t *msg = s_recv (p, (int) (end - hearth_mono_ms ()));
        bool hit = msg && msg->cmd == cmd;
        hearth_msg_destroy (&msg);
        if (hit)
            return true;
    }
    return false;
}

static void
s_accept (peer_t *p)
{
    hearth_msg_t *msg =
        hearth_msg_new (p->master ? HEARTH_CMD_REGISTERED_WORKER
                                  : HEARTH_CMD_REGISTERED_EXECUTOR);
    cJSON_AddNumberToObject (msg->body, "heartbeat_interval_ms",
                             (double) p->interval);
    cJSON_AddNumberToObject (msg->body, "heartbeat_liveness", 50);
    s_send (p, msg);
}

/* Malformed message number i, a different kind in turn. */
static void
s_garbage (peer_t *p, int i, unsigned *seed)
{
    char bytes[48];
    switch (i % 9) {
    case 0:
        for (size_t k = 0; k < sizeof bytes - 1; k++)
            bytes[k] = (char) (1 + rand_r (seed) % 255);
        bytes[sizeof bytes - 1] = '\0';
        RAW (bytes, bytes);
        break;
    case 1:
        RAW ("HEARTH/9", "HEARTBEAT", "{}");
        break;
    case 2:
        RAW ("HEARTH/1", "HEARTBEAT");
        break;
    case 3:
        RAW ("HEARTH/1", "NO_SUCH_COMMAND", "{}");
        break;
    case 4:
        RAW ("HEARTH/1", "HEARTBEAT", "{not json");
        break;
    case 5:
        RAW ("HEARTH/1", p->master ? "LAUNCH_EXECUTOR" : "LAUNCH_TASKS",
             "{\"app_id\":\"../../etc\",\"exec_id\":-1,\"tasks\":7}");
        break;
    case 6:
        RAW ("HEARTH/1", "STATUS_UPDATE",
             "{\"updates\":[{\"tid\":1,\"attempt\":0,\"state\":\"FINISHED\","
             "\"result\":5}]}");
        break;
    case 7: /* valid, but not the peer's to receive */
        RAW ("HEARTH/1", p->master ? "REGISTER_APPLICATION" : "MASTER_STATE",
             p->master ? "{\"name\":\"x\",\"driver_url\":\"tcp://x:1\"}"
                       : "{}");
        break;
    default:
        RAW ("HEARTH/1", "ERROR", "{\"code\":\"garbage\",\"message\":\"#\"}");
        break;
    }
}

/* The request the peer must answer, and its answer. */
static hearth_cmd_t
s_probe (peer_t *p)
{
    if (p->master) {
        RAW ("HEARTH/1", "DRIVER_LOG",
             "{\"driver_id\":\"driver-20260101000000-0001\","
             "\"request_id\":7}");
        return HEARTH_CMD_DRIVER_LOG_RESPONSE;
    }
    RAW ("HEARTH/1", "LAUNCH_TASKS",
         "{\"tasks\":[{\"tid\":1,\"attempt\":0,\"cmd\":[\"true\"]}]}");
    return HEARTH_CMD_STATUS_UPDATE;
}

static int
s_run (peer_t *p, int count)
{
    hearth_cmd_t reg =
        p->master ? HEARTH_CMD_REGISTER_WORKER : HEARTH_CMD_REGISTER_EXECUTOR;
    if (!s_wait_for (p, reg)) {
        printf ("TIMEOUT %s\n", hearth_cmd_name (reg));
        return 1;
    }
    printf ("REGISTERED %s\n", hearth_cmd_name (reg));
    fflush (stdout);
    s_accept (p);
    unsigned seed = 14;
    for (int i = 0; i < count; i++) {
        s_garbage (p, i, &seed);
        if (i % s_beat_every == 0)
            s_send (p, hearth_msg_new (HEARTH_CMD_HEARTBEAT));
    }
    printf ("SENT %d\n", count);
    fflush (stdout);
    hearth_cmd_t answer = s_probe (p);
    if (!s_wait_for (p, answer)) {
        printf ("TIMEOUT %s\n", hearth_cmd_name (answer));
        return 1;
    }
    printf ("ANSWERED %s\n", hearth_cmd_name (answer));
    return 0;
}

int
main (int argc, char **argv)
{
    hearth_conf_t *conf = hearth_conf_new ("test-fakepeer", s_opts);
    hearth_error_t err;
    if (!conf || hearth_conf_parse (conf, argc, argv, &err) < 0) {
        fprintf (stderr, "test-fakepeer: %s\n", conf ? err.text : "no memory");
        hearth_conf_destroy (&conf);
        return 2;
    }
    hearth_zsys_init ();
    /* No high-water mark: every garbage message is queued, none dropped. */
    hearth_sock_opts_t opts = {.type = ZMQ_ROUTER, .hwm = 0};
    peer_t p = {.master =
                    strcmp (hearth_conf_str (conf, "role"), "master") == 0,
                .interval = hearth_conf_ms (conf, "interval")};
    int rc = 2;
    int port = -1;
    if ((p.router = hearth_sock_new (&opts, &err)))
        port = hearth_sock_bind (p.router, "tcp://127.0.0.1:0", &err);
    if (port > 0) {
        zsock_set_sndhwm (p.router, 0);
        printf ("URL tcp://127.0.0.1:%d\n", port);
        fflush (stdout);
        rc = s_run (&p, (int) hearth_conf_int (conf, "count"));
    }
    else
        fprintf (stderr, "test-fakepeer: %s\n", err.text);
    fflush (stdout);
    zframe_destroy (&p.rid);
    hearth_sock_destroy (&p.router);
    hearth_conf_destroy (&conf);
    return rc;
}

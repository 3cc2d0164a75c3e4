/*  test_uplink.c - the one link to the master (libcore/uplink.h), driven
    by a fake clock, with ROUTER sockets on loopback in this process
    standing in for masters: it registers; a silent master gets a fresh
    socket at a doubling back-off up to its cap; a registration nobody
    answers goes to the next URL; a standby's leader is followed at once;
    an older epoch is dropped; RECONNECT registers again; the first
    registration's deadline is fatal; the executor's link (liveness
    only) registers once under its routing id, and a silent peer is
    fatal; a message that breaks its command's schema reaches the
    owner's refused callback.

    The clock the uplink sees is the test's: only the messages' travel
    over loopback takes real time, waited for (bounded) before each
    step. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/sock.h"
#include "libcore/uplink.h"
#include "tests/unit/testutil.h"

/* How long a message may take over loopback before a step fails. */
static const int s_wait_ms = 5000;

/* A master: a ROUTER on a free loopback port. */
typedef struct {
    zsock_t *router;
    char url[64];
} s_master_t;

/* The owner: what the uplink told it. */
typedef struct {
    zsock_t *served[4];       /* what it serves */
    int registrations;        /* registrations asked for */
    int heartbeats;           /* heartbeats asked for */
    int ups;                  /* the link came up */
    int downs;                /* it went down */
    int messages;             /* other messages */
    int refused;              /* messages refused (the refused callback) */
    hearth_cmd_t refused_cmd; /* the last one's command */
    char fatal[1024];         /* the fatal sentence, or "" */
} s_owner_t;

static void
s_master_start (s_master_t *m)
{
    m->router = zsock_new (ZMQ_ROUTER);
    assert_non_null (m->router);
    /* a random port: the first ones of the range may have stale clients
       of other programs reconnecting to them */
    int port = zsock_bind (m->router, "tcp://127.0.0.1:!");
    assert_true (port > 0);
    snprintf (m->url, sizeof m->url, "tcp://127.0.0.1:%d", port);
}

/* The next message to m (its sender's routing id into *rid_p, or
   dropped when rid_p is NULL), waited for. */
static hearth_msg_t *
s_master_recv (s_master_t *m, zframe_t **rid_p)
{
    zpoller_t *p = zpoller_new (m->router, NULL);
    assert_non_null (zpoller_wait (p, s_wait_ms));
    zpoller_destroy (&p);
    hearth_error_t err;
    zframe_t *rid = NULL;
    hearth_msg_t *msg = hearth_msg_recv (m->router, &rid, &err);
    if (rid_p)
        *rid_p = rid;
    else
        zframe_destroy (&rid);
    if (!msg)
        fail_msg ("the master cannot read it: %s", err.text);
    return msg;
}

/* Whether anything reaches m within ms. */
static bool
s_master_hears (s_master_t *m, int ms)
{
    zpoller_t *p = zpoller_new (m->router, NULL);
    bool heard = zpoller_wait (p, ms) != NULL;
    zpoller_destroy (&p);
    return heard;
}

/* Read and drop what reaches m until it is quiet for a while. */
static void
s_master_drain (s_master_t *m)
{
    while (s_master_hears (m, 100)) {
        hearth_msg_t *msg = s_master_recv (m, NULL);
        hearth_msg_destroy (&msg);
    }
}

/* Send cmd with body (taken; may carry "epoch") to rid (borrowed). */
static void
s_master_send (s_master_t *m, zframe_t *rid, hearth_cmd_t cmd, cJSON *body)
{
    hearth_msg_t *msg = hearth_msg_new (cmd);
    assert_non_null (msg);
    if (body) {
        cJSON_Delete (msg->body);
        msg->body = body;
    }
    hearth_error_t err;
    assert_int_equal (hearth_msg_send (&msg, m->router, rid, &err), 0);
}

static void
s_registered_reply (s_master_t *m, zframe_t *rid, int interval, int epoch)
{
    cJSON *b = cJSON_CreateObject ();
    cJSON_AddNumberToObject (b, "heartbeat_interval_ms", interval);
    cJSON_AddNumberToObject (b, "heartbeat_liveness", 3);
    if (epoch)
        cJSON_AddNumberToObject (b, "epoch", epoch);
    s_master_send (m, rid, HEARTH_CMD_REGISTERED_WORKER, b);
}

/* Expect a REGISTER_WORKER at m; its sender's routing id (caller
   frees). */
static zframe_t *
s_expect_register (s_master_t *m)
{
    zframe_t *rid = NULL;
    hearth_msg_t *msg = s_master_recv (m, &rid);
    assert_int_equal (msg->cmd, HEARTH_CMD_REGISTER_WORKER);
    hearth_msg_destroy (&msg);
    return rid;
}

/* ---- the owner's callbacks ------------------------------------------- */

static hearth_msg_t *
s_registration (void *arg, bool again)
{
    (void) again;
    s_owner_t *o = arg;
    o->registrations++;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_WORKER);
    cJSON_AddStringToObject (msg->body, "id", "w1");
    cJSON_AddStringToObject (msg->body, "host", "localhost");
    cJSON_AddNumberToObject (msg->body, "cores", 1);
    cJSON_AddNumberToObject (msg->body, "memory_mb", 64);
    cJSON_AddStringToObject (msg->body, "version", "test");
    return msg;
}

static hearth_msg_t *
s_heartbeat (void *arg)
{
    s_owner_t *o = arg;
    o->heartbeats++;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    cJSON_AddStringToObject (msg->body, "id", "w1");
    return msg;
}

static void
s_up (void *arg, const hearth_msg_t *msg, bool again)
{
    (void) msg;
    (void) again;
    ((s_owner_t *) arg)->ups++;
}

static void
s_down (void *arg, const char *why)
{
    (void) why;
    ((s_owner_t *) arg)->downs++;
}

static void
s_message (void *arg, hearth_msg_t *msg)
{
    (void) msg;
    ((s_owner_t *) arg)->messages++;
}

static void
s_fatal (void *arg, const char *why)
{
    s_owner_t *o = arg;
    snprintf (o->fatal, sizeof o->fatal, "%s", why);
}

static void
s_serve (void *arg, zsock_t *sock, bool on)
{
    s_owner_t *o = arg;
    for (size_t i = 0; i < 4; i++)
        if (on ? !o->served[i] : o->served[i] == sock) {
            o->served[i] = on ? sock : NULL;
            return;
        }
    fail_msg ("serve %s: not found", on ? "on" : "off");
}

static void
s_refused (void *arg, const hearth_msg_t *refused, const hearth_error_t *err)
{
    (void) err;
    s_owner_t *o = arg;
    o->refused++;
    o->refused_cmd = refused->cmd;
}

/* An uplink with opts, and o as its owner. */
static hearth_uplink_t *
s_uplink_opts (s_owner_t *o, const hearth_uplink_opts_t *opts)
{
    hearth_uplink_cbs_t cbs = {
        s_registration, s_heartbeat, s_up, s_down, s_message,
        s_fatal,        s_serve,     NULL, o,      s_refused};
    hearth_error_t err;
    hearth_uplink_t *u = hearth_uplink_new (opts, &cbs, &err);
    assert_non_null (u);
    return u;
}

static hearth_uplink_t *
s_uplink (s_owner_t *o, const char *url, bool failover, int64_t cap_ms,
          int64_t register_timeout_ms)
{
    hearth_uplink_opts_t opts = {.url = url,
                                 .who = "worker w1",
                                 .registered_cmd = HEARTH_CMD_REGISTERED_WORKER,
                                 .reconnect_cmd = HEARTH_CMD_RECONNECT_WORKER,
                                 .interval_ms = 100,
                                 .liveness = 3,
                                 .backoff_max_ms = cap_ms,
                                 .register_timeout_ms = register_timeout_ms,
                                 .failover = failover,
                                 .hold_first = register_timeout_ms > 0,
                                 .watch_fatal = true};
    return s_uplink_opts (o, &opts);
}

/* Serve the uplink's sockets until the owner's counter *count exceeds
   before (a message arrived and was handled), at now_ms. */
static void
s_pump_until (hearth_uplink_t *u, s_owner_t *o, const int *count, int64_t now)
{
    int before = *count;
    for (int waited = 0; *count == before && waited < s_wait_ms; waited += 10) {
        zsock_t *sock = hearth_uplink_sock (u);
        zpoller_t *p = zpoller_new (sock, NULL);
        zpoller_wait (p, 10);
        zpoller_destroy (&p);
        for (size_t i = 0; i < 4; i++)
            if (o->served[i])
                hearth_uplink_on_readable (u, o->served[i], now);
    }
    assert_true (*count > before);
}

/* Open u at 0 with m answering: the link is up, at interval 100. */
static zframe_t *
s_link (hearth_uplink_t *u, s_owner_t *o, s_master_t *m, int epoch)
{
    hearth_error_t err;
    assert_int_equal (hearth_uplink_open (u, 0, &err), 0);
    zframe_t *rid = s_expect_register (m);
    s_registered_reply (m, rid, 100, epoch);
    s_pump_until (u, o, &o->ups, 0);
    assert_true (hearth_uplink_up (u));
    return rid;
}

/* Masters a and b started, an uplink to the list "a,b" opened at 0. */
static hearth_uplink_t *
s_two_masters (s_master_t *a, s_master_t *b, s_owner_t *o)
{
    char list[200];
    s_master_start (a);
    s_master_start (b);
    snprintf (list, sizeof list, "%s,%s", a->url, b->url);
    hearth_uplink_t *u = s_uplink (o, list, true, 0, 0);
    hearth_error_t err;
    assert_int_equal (hearth_uplink_open (u, 0, &err), 0);
    return u;
}

/* Close and free u, rid (may be NULL) and the masters (b may be NULL). */
static void
s_end (hearth_uplink_t **u_p, zframe_t **rid_p, s_master_t *a, s_master_t *b)
{
    zframe_destroy (rid_p);
    hearth_uplink_close (*u_p, 0);
    hearth_uplink_destroy (u_p);
    zsock_destroy (&a->router);
    if (b)
        zsock_destroy (&b->router);
}

/* ---- the tests ------------------------------------------------------- */

static void
test_registered (void **state)
{
    (void) state;
    s_master_t m;
    s_master_start (&m);
    s_owner_t o = {0};
    hearth_uplink_t *u = s_uplink (&o, m.url, true, 0, 0);
    assert_false (hearth_uplink_up (u));
    zframe_t *rid = s_link (u, &o, &m, 0);
    assert_true (hearth_uplink_ever (u));
    assert_int_equal (hearth_uplink_interval (u), 100);
    assert_int_equal (o.registrations, 1);
    /* nothing sent for one interval: a heartbeat; not before */
    hearth_uplink_tick (u, 50);
    assert_int_equal (o.heartbeats, 0);
    hearth_uplink_tick (u, 100);
    assert_int_equal (o.heartbeats, 1);
    hearth_msg_t *hb = s_master_recv (&m, NULL);
    assert_int_equal (hb->cmd, HEARTH_CMD_HEARTBEAT);
    hearth_msg_destroy (&hb);
    /* anything else sent counts as much: no heartbeat one interval after
       it */
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    assert_int_equal (hearth_uplink_send (u, &msg, 150), 0);
    hearth_uplink_tick (u, 200);
    assert_int_equal (o.heartbeats, 1);
    assert_true (hearth_uplink_up (u));
    s_end (&u, &rid, &m, NULL);
}

static void
test_silent_backoff (void **state)
{
    (void) state;
    s_master_t m;
    s_master_start (&m);
    s_owner_t o = {0};
    hearth_uplink_t *u = s_uplink (&o, m.url, true, 400, 0);
    zframe_t *rid = s_link (u, &o, &m, 0);
    /* silent for 3 intervals: still up; past them: down, a fresh socket
       registers at once */
    hearth_uplink_tick (u, 299);
    assert_true (hearth_uplink_up (u));
    zframe_destroy (&rid);
    s_master_drain (&m); /* its heartbeat */
    int64_t next = hearth_uplink_tick (u, 301);
    assert_false (hearth_uplink_up (u));
    assert_int_equal (o.downs, 1);
    zframe_t *first = s_expect_register (&m);
    /* then at one interval, twice that, up to the cap, each on a fresh
       socket (a new routing id at the master) */
    const int64_t waits[] = {100, 200, 400, 400, 400};
    int64_t now = 301;
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++) {
        assert_int_equal (next - now, waits[i]);
        assert_int_equal (hearth_uplink_tick (u, next - 1), next);
        now = next;
        next = hearth_uplink_tick (u, now);
        zframe_t *again = s_expect_register (&m);
        assert_false (zframe_eq (again, first));
        zframe_destroy (&first);
        first = again;
    }
    /* registered again: the back-off is one interval again */
    s_registered_reply (&m, first, 100, 0);
    s_pump_until (u, &o, &o.ups, now);
    assert_int_equal (hearth_uplink_backoff (u), 100);
    s_end (&u, &first, &m, NULL);
}

static void
test_unanswered_next (void **state)
{
    (void) state;
    s_master_t a, b;
    s_owner_t o = {0};
    hearth_uplink_t *u = s_two_masters (&a, &b, &o);
    zframe_t *rid = s_expect_register (&a); /* a does not answer */
    zframe_destroy (&rid);
    assert_int_equal (hearth_uplink_tick (u, 99), 100);
    hearth_uplink_tick (u, 100);
    assert_string_equal (hearth_uplink_url (u), b.url);
    rid = s_expect_register (&b);
    s_registered_reply (&b, rid, 100, 0);
    s_pump_until (u, &o, &o.ups, 100);
    s_end (&u, &rid, &a, &b);
}

static void
test_standby_leader (void **state)
{
    (void) state;
    s_master_t a, b;
    s_owner_t o = {0};
    hearth_uplink_t *u = s_two_masters (&a, &b, &o);
    zframe_t *rid = s_expect_register (&a);
    cJSON *body = cJSON_CreateObject ();
    cJSON_AddStringToObject (body, "code", "standby");
    cJSON_AddStringToObject (body, "message", "a standby");
    cJSON_AddStringToObject (body, "leader", b.url);
    s_master_send (&a, rid, HEARTH_CMD_ERROR, body);
    zframe_destroy (&rid);
    /* the standby answered at 10: the next attempt is now, to b, long
       before the back-off's */
    for (int waited = 0; o.registrations == 1 && waited < s_wait_ms;
         waited += 10) {
        hearth_uplink_on_readable (u, hearth_uplink_sock (u), 10);
        hearth_uplink_tick (u, 10);
        if (o.registrations == 1)
            usleep (10000);
    }
    assert_int_equal (o.registrations, 2);
    assert_string_equal (hearth_uplink_url (u), b.url);
    rid = s_expect_register (&b);
    assert_int_equal (o.messages, 0); /* handled by the uplink */
    s_end (&u, &rid, &a, &b);
}

static void
test_epoch_fenced (void **state)
{
    (void) state;
    s_master_t m;
    s_master_start (&m);
    s_owner_t o = {0};
    hearth_uplink_t *u = s_uplink (&o, m.url, true, 0, 0);
    zframe_t *rid = s_link (u, &o, &m, 5);
    /* a RECONNECT of epoch 3 is an older leader's: dropped, the link
       stays up; one of epoch 5 is heard */
    cJSON *old = cJSON_CreateObject ();
    cJSON_AddNumberToObject (old, "epoch", 3);
    s_master_send (&m, rid, HEARTH_CMD_RECONNECT_WORKER, old);
    cJSON *cur = cJSON_CreateObject ();
    cJSON_AddNumberToObject (cur, "epoch", 5);
    cJSON_AddStringToObject (cur, "reason", "unknown worker");
    s_master_send (&m, rid, HEARTH_CMD_HEARTBEAT, NULL);
    s_pump_until (u, &o, &o.messages, 10); /* the heartbeat: after 3's */
    assert_true (hearth_uplink_up (u));
    assert_int_equal (o.downs, 0);
    s_master_send (&m, rid, HEARTH_CMD_RECONNECT_WORKER, cur);
    s_pump_until (u, &o, &o.downs, 20);
    assert_false (hearth_uplink_up (u));
    s_end (&u, &rid, &m, NULL);
}

static void
test_reconnect (void **state)
{
    (void) state;
    s_master_t m;
    s_master_start (&m);
    s_owner_t o = {0};
    hearth_uplink_t *u = s_uplink (&o, m.url, true, 0, 0);
    zframe_t *rid = s_link (u, &o, &m, 0);
    s_master_send (&m, rid, HEARTH_CMD_RECONNECT_WORKER, NULL);
    s_pump_until (u, &o, &o.downs, 10);
    assert_false (hearth_uplink_up (u));
    /* the next tick registers again, on a fresh socket */
    hearth_uplink_tick (u, 10);
    assert_int_equal (o.registrations, 2);
    zframe_t *again = s_expect_register (&m);
    assert_false (zframe_eq (again, rid));
    s_registered_reply (&m, again, 100, 0);
    s_pump_until (u, &o, &o.ups, 20);
    assert_true (hearth_uplink_up (u));
    zframe_destroy (&again);
    s_end (&u, &rid, &m, NULL);
}

static void
test_register_timeout (void **state)
{
    (void) state;
    s_master_t m;
    s_master_start (&m);
    s_owner_t o = {0};
    hearth_uplink_t *u = s_uplink (&o, m.url, false, 0, 500);
    hearth_error_t err;
    assert_int_equal (hearth_uplink_open (u, 0, &err), 0);
    zframe_t *rid = s_expect_register (&m); /* never answered */
    /* the one registration is held (a second would register twice) */
    hearth_uplink_tick (u, 300);
    assert_int_equal (o.registrations, 1);
    assert_string_equal (o.fatal, "");
    hearth_uplink_tick (u, 500);
    assert_string_equal (o.fatal, "");
    hearth_uplink_tick (u, 501);
    assert_contains (o.fatal, "did not register worker w1 within 500 ms");
    assert_contains (o.fatal, m.url);
    assert_int_equal (hearth_uplink_tick (u, 502), INT64_MAX);
    s_end (&u, &rid, &m, NULL);
}

/* The executor's link to its driver: one registration (under the
   routing id given), liveness only. */
static hearth_uplink_t *
s_executor_uplink (s_owner_t *o, const char *url)
{
    hearth_uplink_opts_t opts = {.url = url,
                                 .who = "executor 1",
                                 .peer = "the driver",
                                 .identity = "E1-42",
                                 .registered_cmd = HEARTH_CMD_REGISTERED_WORKER,
                                 .reconnect_cmd = HEARTH_CMD_COUNT,
                                 .interval_ms = 100,
                                 .liveness = 3,
                                 .register_timeout_ms = 300,
                                 .hold_first = true,
                                 .down_fatal = true,
                                 .read_batch = 2};
    return s_uplink_opts (o, &opts);
}

/* m started, an executor's uplink to it opened at 0; its registration's
   routing id at m into *rid_p (caller frees). */
static hearth_uplink_t *
s_executor_open (s_master_t *m, s_owner_t *o, zframe_t **rid_p)
{
    s_master_start (m);
    hearth_uplink_t *u = s_executor_uplink (o, m->url);
    hearth_error_t err;
    assert_int_equal (hearth_uplink_open (u, 0, &err), 0);
    *rid_p = s_expect_register (m);
    return u;
}

static void
test_silence_fatal (void **state)
{
    (void) state;
    s_master_t m;
    s_owner_t o = {0};
    zframe_t *rid;
    hearth_uplink_t *u = s_executor_open (&m, &o, &rid);
    assert_int_equal (zframe_size (rid), 5); /* the routing id given */
    assert_memory_equal (zframe_data (rid), "E1-42", 5);
    s_registered_reply (&m, rid, 100, 0);
    s_pump_until (u, &o, &o.ups, 0);
    assert_int_equal (hearth_uplink_heard (u), 0);
    /* a HEARTBEAT at 50 is a sign of life: silent past 3 intervals
       after it, the link is over, never registered again */
    s_master_send (&m, rid, HEARTH_CMD_HEARTBEAT, NULL);
    s_pump_until (u, &o, &o.messages, 50);
    assert_int_equal (hearth_uplink_heard (u), 50);
    hearth_uplink_tick (u, 350);
    assert_string_equal (o.fatal, "");
    s_master_drain (&m); /* its heartbeats */
    assert_int_equal (hearth_uplink_tick (u, 351), INT64_MAX);
    assert_string_equal (o.fatal, "the driver has been silent for 301 ms");
    assert_int_equal (o.downs, 0);
    assert_false (hearth_uplink_up (u));
    assert_int_equal (hearth_uplink_tick (u, 10000), INT64_MAX);
    assert_int_equal (o.registrations, 1);
    assert_false (s_master_hears (&m, 200));
    s_end (&u, &rid, &m, NULL);
}

static void
test_register_timeout_peer (void **state)
{
    (void) state;
    s_master_t m;
    s_owner_t o = {0};
    zframe_t *rid; /* its registration is never answered */
    hearth_uplink_t *u = s_executor_open (&m, &o, &rid);
    hearth_uplink_tick (u, 300);
    assert_string_equal (o.fatal, "");
    hearth_uplink_tick (u, 301);
    assert_contains (o.fatal, "the driver at ");
    assert_contains (o.fatal, "did not register executor 1 within 300 ms");
    assert_int_equal (o.registrations, 1);
    s_end (&u, &rid, &m, NULL);
}

/* Without failover, a list of URLs is refused: only one would be used. */
static void
test_one_url (void **state)
{
    (void) state;
    hearth_uplink_opts_t opts = {.url = "tcp://127.0.0.1:1,tcp://127.0.0.1:2",
                                 .registered_cmd = HEARTH_CMD_REGISTERED_WORKER,
                                 .reconnect_cmd = HEARTH_CMD_COUNT};
    hearth_uplink_cbs_t cbs = {.arg = NULL};
    hearth_error_t err;
    assert_null (hearth_uplink_new (&opts, &cbs, &err));
    assert_contains (err.text, "one URL expected");
}

static void
test_refused (void **state)
{
    (void) state;
    s_master_t m;
    s_master_start (&m);
    s_owner_t o = {0};
    hearth_uplink_t *u = s_executor_uplink (&o, m.url);
    zframe_t *rid = s_link (u, &o, &m, 0);
    /* a KILL_TASK without its fields breaks its schema: refused, and
       handed to the owner with its command; the link stays up, and what
       comes next is read */
    zmsg_t *raw = zmsg_new ();
    zmsg_append (raw, &(zframe_t *){zframe_dup (rid)});
    zmsg_addstr (raw, HEARTH_PROTO_TAG);
    zmsg_addstr (raw, "KILL_TASK");
    zmsg_addstr (raw, "{}");
    assert_int_equal (zmsg_send (&raw, m.router), 0);
    s_pump_until (u, &o, &o.refused, 10);
    assert_int_equal (o.refused_cmd, HEARTH_CMD_KILL_TASK);
    assert_int_equal (o.messages, 0);
    assert_true (hearth_uplink_up (u));
    s_master_send (&m, rid, HEARTH_CMD_HEARTBEAT, NULL);
    s_pump_until (u, &o, &o.messages, 20);
    assert_int_equal (o.refused, 1);
    s_end (&u, &rid, &m, NULL);
}

int
main (void)
{
    alarm (120);
    hearth_test_clear_env ();
    hearth_zsys_init ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_registered),
        cmocka_unit_test (test_silent_backoff),
        cmocka_unit_test (test_unanswered_next),
        cmocka_unit_test (test_standby_leader),
        cmocka_unit_test (test_epoch_fenced),
        cmocka_unit_test (test_reconnect),
        cmocka_unit_test (test_register_timeout),
        cmocka_unit_test (test_silence_fatal),
        cmocka_unit_test (test_register_timeout_peer),
        cmocka_unit_test (test_one_url),
        cmocka_unit_test (test_refused),
    };
    return cmocka_run_group_tests_name ("uplink", tests, NULL, NULL);
}

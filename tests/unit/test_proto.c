/*  test_proto.c - unit tests of the wire codec (libcore/proto.c and the
    command table in libcore/commands.c): the command table, the round
    trip of every command, and sending and receiving over a real
    ROUTER/DEALER pair on an ephemeral loopback port.

    The round trip walks every command of HEARTH_COMMANDS and needs a
    sample body for each in proto_samples.c: a command added to the table
    without a sample fails the test.  The rejections are in
    test_proto_reject.c.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/ids.h"
#include "libcore/packed.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "tests/unit/proto_samples.h"
#include "tests/unit/testutil.h"

/* ---------------------------------------------------------------------
   The command table and the round trip of every command */

static void
test_command_names (void **state)
{
    (void) state;
    for (int c = 0; c < HEARTH_CMD_COUNT; c++) {
        const char *name = hearth_cmd_name ((hearth_cmd_t) c);
        assert_non_null (name);
        assert_int_equal (hearth_cmd_lookup (name, strlen (name)), c);
        assert_non_null (hearth_cmd_schema ((hearth_cmd_t) c));
        for (const char *p = name; *p; p++)
            assert_true ((*p >= 'A' && *p <= 'Z') || *p == '_');
    }
    assert_string_equal (hearth_cmd_name (HEARTH_CMD_STATUS_UPDATE),
                         "STATUS_UPDATE");
    assert_null (hearth_cmd_name (HEARTH_CMD_COUNT));
    assert_null (hearth_cmd_name ((hearth_cmd_t) -1));
    assert_null (hearth_cmd_schema (HEARTH_CMD_COUNT));
    assert_int_equal (hearth_cmd_lookup ("heartbeat", 9), -1);
    assert_int_equal (hearth_cmd_lookup ("HEARTBEATS", 10), -1);
    assert_int_equal (hearth_cmd_lookup ("HEARTBEAT", 5), -1); /* "HEART" */
    assert_int_equal (hearth_cmd_lookup ("", 0), -1);
}

/* Check the encoded frames of a sample message against the sample. */
static void
s_check_wire (zmsg_t *zmsg, hearth_cmd_t cmd, const cJSON *body)
{
    const pt_sample_t *s = &pt_samples[cmd];
    assert_int_equal (zmsg_size (zmsg), 3 + s->nframes);
    assert_true (zframe_streq (zmsg_first (zmsg), HEARTH_PROTO_TAG));
    assert_true (zframe_streq (zmsg_next (zmsg), hearth_cmd_name (cmd)));
    zframe_t *text = zmsg_next (zmsg);
    cJSON *wire = cJSON_ParseWithLength ((const char *) zframe_data (text),
                                         zframe_size (text));
    assert_non_null (wire);
    assert_true (cJSON_Compare (wire, body, true));
    cJSON_Delete (wire);
}

static void
s_round_trip (hearth_cmd_t cmd)
{
    const pt_sample_t *s = &pt_samples[cmd];
    hearth_msg_t *msg = pt_sample_msg (cmd);
    cJSON *expected = cJSON_Duplicate (msg->body, true);
    hearth_error_t err = {NULL, ""};
    zmsg_t *zmsg = hearth_msg_encode (&msg, &err);
    if (!zmsg)
        fail_msg ("encoding %s failed: %s", hearth_cmd_name (cmd), err.text);
    assert_null (msg);
    s_check_wire (zmsg, cmd, expected);

    hearth_msg_t *back = pt_decode_ok (zmsg);
    assert_int_equal (back->cmd, cmd);
    if (!cJSON_Compare (back->body, expected, true))
        fail_msg ("%s: body changed in the round trip", hearth_cmd_name (cmd));
    assert_int_equal (back->nframes, s->nframes);
    for (size_t i = 0; i < s->nframes; i++) {
        zframe_t *want = pt_fill_frame (cmd, i, s->frame_size[i]);
        assert_true (zframe_eq (hearth_msg_frame (back, (int64_t) i), want));
        zframe_destroy (&want);
    }
    assert_null (hearth_msg_frame (back, (int64_t) s->nframes));
    cJSON_Delete (expected);
    hearth_msg_destroy (&back);
}

static void
test_round_trip_every_command (void **state)
{
    (void) state;
    for (int c = 0; c < HEARTH_CMD_COUNT; c++)
        s_round_trip ((hearth_cmd_t) c);
}

/* The samples must exercise the schema: optional fields where there are
   any, and binary frames wherever the schema refers to frames. */
static void
test_samples_cover_schemas (void **state)
{
    (void) state;
    for (int c = 0; c < HEARTH_CMD_COUNT; c++) {
        const hearth_field_t *schema = hearth_cmd_schema ((hearth_cmd_t) c);
        hearth_msg_t *msg = pt_sample_msg ((hearth_cmd_t) c);
        int optional = 0, present = 0;
        for (const hearth_field_t *f = schema; f->name; f++) {
            if (f->required)
                continue;
            optional++;
            present += cJSON_HasObjectItem (msg->body, f->name);
        }
        if (optional > 0 && present == 0)
            fail_msg ("sample of %s uses none of its optional fields",
                      hearth_cmd_name ((hearth_cmd_t) c));
        if (pt_has_frame_field (schema) && msg->nframes == 0)
            fail_msg ("sample of %s has no binary frames",
                      hearth_cmd_name ((hearth_cmd_t) c));
        hearth_msg_destroy (&msg);
    }
}

/* Every required top-level field of every command, removed in turn. */
static void
test_missing_each_required_field (void **state)
{
    (void) state;
    for (int c = 0; c < HEARTH_CMD_COUNT; c++) {
        const hearth_field_t *schema = hearth_cmd_schema ((hearth_cmd_t) c);
        for (const hearth_field_t *f = schema; f->name; f++) {
            if (!f->required)
                continue;
            hearth_msg_t *msg = pt_sample_msg ((hearth_cmd_t) c);
            cJSON_DeleteItemFromObjectCaseSensitive (msg->body, f->name);
            hearth_error_t err;
            assert_int_equal (hearth_msg_check (msg, &err), -1);
            assert_string_equal (err.code, "bad_field");
            char want[128];
            snprintf (want, sizeof want, "%s: missing required field '%s'",
                      hearth_cmd_name ((hearth_cmd_t) c), f->name);
            assert_string_equal (err.text, want);
            hearth_msg_destroy (&msg);
        }
    }
}

/* A value of the wrong JSON type for field type t, and how it reads. */
static cJSON *
s_wrong_value (hearth_ftype_t t, const char **got)
{
    switch (t) {
    case HEARTH_F_STR:
    case HEARTH_F_LABEL:
    case HEARTH_F_ID:
    case HEARTH_F_NAME:
    case HEARTH_F_ENUM:
    case HEARTH_F_BOOL:
        *got = "got 42";
        return cJSON_CreateNumber (42);
    case HEARTH_F_INT:
    case HEARTH_F_NUM:
    case HEARTH_F_FRAME:
        *got = "got \"x\"";
        return cJSON_CreateString ("x");
    case HEARTH_F_ARRAY:
        *got = "got an object";
        return cJSON_CreateObject ();
    case HEARTH_F_OBJECT:
    case HEARTH_F_MAP:
        *got = "got an array";
        return cJSON_CreateArray ();
    case HEARTH_F_ANY:
        break;
    }
    return NULL;
}

/* Every top-level field of every command, given a value of a wrong type. */
static void
test_wrong_type_each_field (void **state)
{
    (void) state;
    for (int c = 0; c < HEARTH_CMD_COUNT; c++) {
        const hearth_field_t *schema = hearth_cmd_schema ((hearth_cmd_t) c);
        for (const hearth_field_t *f = schema; f->name; f++) {
            const char *got;
            cJSON *bad = s_wrong_value (f->type, &got);
            if (!bad)
                continue; /* any value is right */
            hearth_msg_t *msg = pt_sample_msg ((hearth_cmd_t) c);
            cJSON_DeleteItemFromObjectCaseSensitive (msg->body, f->name);
            cJSON_AddItemToObject (msg->body, f->name, bad);
            hearth_error_t err;
            assert_int_equal (hearth_msg_check (msg, &err), -1);
            assert_string_equal (err.code, f->type == HEARTH_F_FRAME
                                               ? "bad_frame"
                                               : "bad_field");
            char want[96];
            snprintf (want, sizeof want, "%s: field '%s': expected ",
                      hearth_cmd_name ((hearth_cmd_t) c), f->name);
            assert_contains (err.text, want);
            assert_contains (err.text, got);
            hearth_msg_destroy (&msg);
        }
    }
}

/* Receivers ignore fields they do not know, and keep them. */
static void
test_unknown_fields_ignored (void **state)
{
    (void) state;
    hearth_msg_t *msg = pt_decode_ok (
        pt_wire ("KILL_TASK", "{'tid':3,'attempt':0,'future':{'x':[1,2]},"
                              "'priority':'high'}"));
    assert_int_equal (hearth_json_int (msg->body, "tid", -1), 3);
    assert_string_equal (hearth_json_str (msg->body, "priority"), "high");
    hearth_msg_destroy (&msg);
}

/* ---------------------------------------------------------------------
   Sending and receiving over a real ROUTER/DEALER pair */

typedef struct {
    zsock_t *router; /* bound on an ephemeral loopback port */
    zsock_t *dealer; /* connected to it, with a known routing id */
} s_pair_t;

static int
s_pair_setup (void **state)
{
    static s_pair_t pair;
    hearth_error_t err;
    hearth_sock_opts_t ropts = {.type = ZMQ_ROUTER};
    hearth_sock_opts_t dopts = {.type = ZMQ_DEALER, .identity = "peer-1"};
    pair.router = hearth_sock_new (&ropts, &err);
    pair.dealer = hearth_sock_new (&dopts, &err);
    if (!pair.router || !pair.dealer)
        return -1;
    int port = hearth_sock_bind (pair.router, "tcp://127.0.0.1:*", &err);
    if (port <= 0)
        return -1;
    char url[64];
    snprintf (url, sizeof url, "tcp://127.0.0.1:%d", port);
    if (hearth_sock_connect (pair.dealer, url, &err) < 0)
        return -1;
    zsock_set_rcvtimeo (pair.router, 5000);
    zsock_set_rcvtimeo (pair.dealer, 5000);
    *state = &pair;
    return 0;
}

static int
s_pair_teardown (void **state)
{
    s_pair_t *pair = *state;
    /* the DEALER first: it must not reconnect to a port that another
       program binds once the ROUTER is gone */
    hearth_sock_destroy (&pair->dealer);
    hearth_sock_destroy (&pair->router);
    return 0;
}

static void
test_send_recv (void **state)
{
    s_pair_t *pair = *state;
    hearth_error_t err;
    hearth_msg_t *msg = pt_sample_msg (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *expected = cJSON_Duplicate (msg->body, true);
    assert_int_equal (hearth_msg_send (&msg, pair->dealer, NULL, &err), 0);
    assert_null (msg);

    zframe_t *rid = NULL;
    msg = hearth_msg_recv (pair->router, &rid, &err);
    if (!msg)
        fail_msg ("receive failed: %s", err.text);
    assert_non_null (rid);
    assert_true (zframe_streq (rid, "peer-1"));
    assert_int_equal (msg->cmd, HEARTH_CMD_LAUNCH_TASKS);
    assert_true (cJSON_Compare (msg->body, expected, true));
    assert_int_equal (msg->nframes, 4);
    zframe_t *want = pt_fill_frame (HEARTH_CMD_LAUNCH_TASKS, 1, 300);
    assert_true (zframe_eq (hearth_msg_frame (msg, 1), want));
    zframe_destroy (&want);
    hearth_msg_destroy (&msg);
    cJSON_Delete (expected);

    /* the reply goes back to that routing id */
    msg = pt_sample_msg (HEARTH_CMD_FILE_CHUNK);
    assert_int_equal (hearth_msg_send (&msg, pair->router, rid, &err), 0);
    assert_true (zframe_streq (rid, "peer-1")); /* borrowed, not consumed */
    zframe_destroy (&rid);
    msg = hearth_msg_recv (pair->dealer, NULL, &err);
    assert_non_null (msg);
    assert_int_equal (msg->cmd, HEARTH_CMD_FILE_CHUNK);
    assert_int_equal (zframe_size (hearth_msg_frame (msg, 0)), 4096);
    hearth_msg_destroy (&msg);
}

/* A shared frame goes out by reference, twice, and stays its owner's; a
   message destroyed unsent or encoded leaves it alone too. */
static void
test_send_shared (void **state)
{
    s_pair_t *pair = *state;
    hearth_error_t err;
    zframe_t *input = zframe_new (NULL, 1 << 20);
    memset (zframe_data (input), 'x', 1 << 20);
    for (int i = 0; i < 2; i++) {
        hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
        cJSON_AddArrayToObject (msg->body, "tasks");
        assert_int_equal (hearth_msg_add_bytes (msg, "own", 3), 0);
        assert_int_equal (hearth_msg_add_shared (msg, input), 1);
        assert_int_equal (hearth_msg_send (&msg, pair->dealer, NULL, &err), 0);
        zframe_t *rid = NULL;
        msg = hearth_msg_recv (pair->router, &rid, &err);
        assert_non_null (msg);
        assert_true (zframe_eq (hearth_msg_frame (msg, 1), input));
        assert_true (zframe_streq (hearth_msg_frame (msg, 0), "own"));
        hearth_msg_destroy (&msg);
        zframe_destroy (&rid);
    }
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    assert_int_equal (hearth_msg_add_shared (msg, input), 0);
    hearth_msg_destroy (&msg); /* unsent: input is not freed */
    msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON_AddArrayToObject (msg->body, "tasks");
    assert_int_equal (hearth_msg_add_shared (msg, input), 0);
    zmsg_t *z = hearth_msg_encode (&msg, &err);
    assert_non_null (z);
    zmsg_destroy (&z); /* it held a copy */
    assert_int_equal (zframe_size (input), 1 << 20);
    assert_int_equal (((char *) zframe_data (input))[12345], 'x');
    msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    assert_int_equal (hearth_msg_add_shared (msg, NULL), -1);
    hearth_msg_destroy (&msg);
    zframe_destroy (&input);
}

/* The leader's epoch is a field of every command: set, read back through
   the wire, removed, and refused when it is not 1 .. 2^53 - 1. */
static void
test_epoch_common_field (void **state)
{
    (void) state;
    hearth_msg_t *msg = pt_sample_msg (HEARTH_CMD_HEARTBEAT);
    assert_int_equal (hearth_msg_epoch (msg), 0);
    assert_int_equal (hearth_msg_set_epoch (msg, 7), 0);
    assert_int_equal (hearth_msg_set_epoch (msg, 42), 0);
    hearth_error_t err;
    zmsg_t *z = hearth_msg_encode (&msg, &err);
    assert_non_null (z);
    hearth_msg_t *back = pt_decode_ok (z);
    assert_int_equal (hearth_msg_epoch (back), 42);
    assert_int_equal (hearth_msg_set_epoch (back, 0), 0);
    assert_int_equal (hearth_msg_epoch (back), 0);
    assert_null (cJSON_GetObjectItem (back->body, "epoch"));
    hearth_msg_destroy (&back);

    pt_decode_fails (pt_wire ("KILL_EXECUTOR",
                              "{'app_id':'" APP_ID "','exec_id':1,'epoch':0}"),
                     "bad_field", &err);
    assert_non_null (strstr (err.text, "epoch"));
    pt_decode_fails (pt_wire ("HEARTBEAT", "{'epoch':'3'}"), "bad_field", &err);
    pt_decode_fails (pt_wire ("HEARTBEAT", "{'epoch':1.5}"), "bad_field", &err);
    back = pt_decode_ok (pt_wire ("HEARTBEAT", "{'epoch':9007199254740991}"));
    assert_int_equal (hearth_msg_epoch (back), 9007199254740991ULL);
    hearth_msg_destroy (&back);
}

static void
test_send_invalid (void **state)
{
    s_pair_t *pair = *state;
    hearth_error_t err;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_TASK);
    assert_int_equal (hearth_msg_send (&msg, pair->dealer, NULL, &err), -1);
    assert_null (msg);
    assert_string_equal (err.code, "bad_field");
    /* nothing was sent */
    zsock_set_rcvtimeo (pair->router, 100);
    zframe_t *rid = NULL;
    assert_null (hearth_msg_recv (pair->router, &rid, &err));
    assert_string_equal (err.code, "recv_failed");
    assert_null (rid);
    zsock_set_rcvtimeo (pair->router, 5000);
}

static void
test_send_error (void **state)
{
    s_pair_t *pair = *state;
    hearth_error_t err;
    /* a first message tells the router the peer's routing id */
    hearth_msg_t *msg = pt_sample_msg (HEARTH_CMD_HEARTBEAT);
    assert_int_equal (hearth_msg_send (&msg, pair->dealer, NULL, &err), 0);
    zframe_t *rid = NULL;
    msg = hearth_msg_recv (pair->router, &rid, &err);
    assert_non_null (msg);
    hearth_msg_destroy (&msg);

    assert_int_equal (hearth_send_error (pair->router, rid, "bad_field",
                                         "missing 'cores'", "REGISTER_WORKER"),
                      0);
    msg = hearth_msg_recv (pair->dealer, NULL, &err);
    assert_non_null (msg);
    assert_int_equal (msg->cmd, HEARTH_CMD_ERROR);
    assert_string_equal (hearth_json_str (msg->body, "code"), "bad_field");
    assert_string_equal (hearth_json_str (msg->body, "message"),
                         "missing 'cores'");
    assert_string_equal (hearth_json_str (msg->body, "command"),
                         "REGISTER_WORKER");
    hearth_msg_destroy (&msg);

    /* no code, no message, an overlong command name: still a valid ERROR */
    char longname[100];
    memset (longname, 'X', 99);
    longname[99] = '\0';
    assert_int_equal (
        hearth_send_error (pair->router, rid, NULL, NULL, longname), 0);
    msg = hearth_msg_recv (pair->dealer, NULL, &err);
    assert_non_null (msg);
    assert_string_equal (hearth_json_str (msg->body, "code"), "error");
    assert_string_equal (hearth_json_str (msg->body, "message"), "");
    assert_null (hearth_json_str (msg->body, "command"));
    hearth_msg_destroy (&msg);
    zframe_destroy (&rid);
}

/* Garbage from a peer: an error, but the routing id still comes back so
   that the receiver can answer with ERROR. */
static void
test_recv_garbage (void **state)
{
    s_pair_t *pair = *state;
    hearth_error_t err;
    zmsg_t *junk = pt_zmsg (2, "GET / HTTP/1.1", "Host: example.com");
    assert_int_equal (zmsg_send (&junk, pair->dealer), 0);
    zframe_t *rid = NULL;
    assert_null (hearth_msg_recv (pair->router, &rid, &err));
    assert_string_equal (err.code, "bad_protocol");
    assert_non_null (rid);
    assert_true (zframe_streq (rid, "peer-1"));

    assert_int_equal (
        hearth_send_error (pair->router, rid, err.code, err.text, NULL), 0);
    zframe_destroy (&rid);
    hearth_msg_t *msg = hearth_msg_recv (pair->dealer, NULL, &err);
    assert_non_null (msg);
    assert_string_equal (hearth_json_str (msg->body, "code"), "bad_protocol");
    assert_contains (hearth_json_str (msg->body, "message"),
                     "not a Hearth message");
    hearth_msg_destroy (&msg);

    /* a wrong version is answered the same way */
    junk = pt_zmsg (3, "HEARTH/2", "HEARTBEAT", "{}");
    assert_int_equal (zmsg_send (&junk, pair->dealer), 0);
    assert_null (hearth_msg_recv (pair->router, &rid, &err));
    assert_string_equal (err.code, "bad_version");
    assert_true (zframe_streq (rid, "peer-1"));
    zframe_destroy (&rid);
}

/* A socket that cannot be read at all (its context shut down) is told
   apart from one with nothing waiting: a loop's reader that took it for
   a bad message and called again at once would spin. */
static void
test_try_recv_broken (void **state)
{
    (void) state;
    void *ctx = zmq_ctx_new ();
    void *pull = zmq_socket (ctx, ZMQ_PULL);
    assert_non_null (pull);
    assert_int_equal (zmq_bind (pull, "inproc://broken"), 0);
    hearth_error_t err = {.code = NULL};
    bool none = false;
    assert_null (
        hearth_msg_try_recv_from ((zsock_t *) pull, NULL, NULL, &none, &err));
    assert_true (none); /* nothing waits: not broken */

    assert_int_equal (zmq_ctx_shutdown (ctx), 0);
    hearth_sender_t sender = {"stale"};
    assert_null (hearth_msg_try_recv_from ((zsock_t *) pull, NULL, &sender,
                                           &none, &err));
    assert_false (none);
    assert_true (hearth_recv_broken (&err));
    assert_contains (err.text, "receive failed");
    assert_string_equal (sender.address, "");

    /* a bad message is not a broken socket */
    hearth_errcode (&err, "bad_protocol", "not a Hearth message");
    assert_false (hearth_recv_broken (&err));
    zmq_close (pull);
    zmq_ctx_term (ctx);
}

int
main (void)
{
    alarm (120);
    hearth_zsys_init ();
    const struct CMUnitTest codec[] = {
        cmocka_unit_test (test_command_names),
        cmocka_unit_test (test_round_trip_every_command),
        cmocka_unit_test (test_samples_cover_schemas),
        cmocka_unit_test (test_missing_each_required_field),
        cmocka_unit_test (test_wrong_type_each_field),
        cmocka_unit_test (test_unknown_fields_ignored),
        cmocka_unit_test (test_epoch_common_field),
        cmocka_unit_test (test_try_recv_broken),
    };
    const struct CMUnitTest sockets[] = {
        cmocka_unit_test (test_send_recv),
        cmocka_unit_test (test_send_shared),
        cmocka_unit_test (test_send_invalid),
        cmocka_unit_test (test_send_error),
        cmocka_unit_test (test_recv_garbage),
    };
    int failed = cmocka_run_group_tests_name ("proto codec", codec, NULL, NULL);
    failed += cmocka_run_group_tests_name ("proto sockets", sockets,
                                           s_pair_setup, s_pair_teardown);
    return failed ? 1 : 0;
}

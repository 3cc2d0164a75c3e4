/*  test_proto_refused.c - the limits of a task on the wire, and what a
    refused message still tells (libcore/proto.c, cmdrules.c): empty
    arguments after the program pass, an empty program does not; a
    function's argument in a frame of its own ("arg_frame") within its
    bounds; an encoder that refuses a body its peer's decoder would; and
    hearth_msg_try_recv_refused, which hands a reader what it could read
    of a message it refuses (its command, its body), so that an executor
    can name the LAUNCH_TASKS batch it refuses. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/proto.h"
#include "libcore/sock.h"
#include "tests/unit/proto_samples.h"
#include "tests/unit/testutil.h"

static void
test_empty_arguments (void **state)
{
    (void) state;
    hearth_msg_t *msg = pt_decode_ok (
        pt_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                 "'cmd':['printf','%s|','','x','']}]}"));
    hearth_msg_destroy (&msg);
    hearth_error_t err;
    pt_decode_fails (pt_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                              "'cmd':['','x']}]}"),
                     "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field 'tasks[0].cmd': "
                                   "expected a non-empty argv with a "
                                   "non-empty program");
}

/* A LAUNCH_TASKS of one task (JSON, ' for ") and a frame of len bytes. */
static zmsg_t *
s_with_frame (const char *task, size_t len)
{
    char body[256];
    snprintf (body, sizeof body, "{'tasks':[%s]}", task);
    zmsg_t *zmsg = pt_wire ("LAUNCH_TASKS", body);
    zframe_t *frame = zframe_new (NULL, len);
    memset (zframe_data (frame), 'a', len);
    zmsg_append (zmsg, &frame);
    return zmsg;
}

static void
test_arg_frame (void **state)
{
    (void) state;
    hearth_msg_t *msg = pt_decode_ok (
        s_with_frame ("{'tid':1,'attempt':0,'fn':'f','arg_frame':0}", 1 << 20));
    hearth_msg_destroy (&msg);
    msg = pt_decode_ok (
        s_with_frame ("{'tid':1,'attempt':0,'fn':'f','arg_frame':0}",
                      HEARTH_TASK_ARG_FRAME_MAX));
    hearth_msg_destroy (&msg);
    static const struct {
        const char *task;
        size_t len;
        const char *why;
    } bad[] = {
        {"{'tid':1,'attempt':0,'cmd':['ls'],'arg_frame':0}", 10,
         "a command has no argument (a frame of 10 bytes"},
        {"{'tid':1,'attempt':0,'fn':'f','arg':'x','arg_frame':0}", 10,
         "not with 'arg'"},
        {"{'tid':1,'attempt':0,'fn':'f','arg_frame':0}",
         HEARTH_TASK_ARG_FRAME_MAX + 1,
         "over the largest argument (a frame of 67108865 bytes, at most "
         "67108864)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hearth_error_t err;
        pt_decode_fails (s_with_frame (bad[i].task, bad[i].len), "bad_field",
                         &err);
        assert_contains (err.text, "field 'tasks[0].arg_frame'");
        assert_contains (err.text, bad[i].why);
    }
}

/* A body its peer would refuse (over 64 MiB) is refused at the sender. */
static void
test_encode_too_large (void **state)
{
    (void) state;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    cJSON *tasks = cJSON_AddArrayToObject (msg->body, "tasks");
    char *arg = malloc (HEARTH_TASK_ARG_MAX + 1);
    memset (arg, 'a', HEARTH_TASK_ARG_MAX);
    arg[HEARTH_TASK_ARG_MAX] = '\0';
    for (int i = 0; i < 1100; i++) { /* 1100 x 64 KiB: 72 MB */
        cJSON *t = cJSON_CreateObject ();
        cJSON_AddNumberToObject (t, "tid", i);
        cJSON_AddNumberToObject (t, "attempt", 0);
        cJSON_AddStringToObject (t, "fn", "f");
        cJSON_AddStringToObject (t, "arg", arg);
        cJSON_AddItemToArray (tasks, t);
    }
    free (arg);
    hearth_error_t err;
    assert_null (hearth_msg_encode (&msg, &err));
    assert_null (msg);
    assert_string_equal (err.code, "too_large");
    assert_contains (err.text, "LAUNCH_TASKS: body of ");
    assert_contains (err.text, " bytes exceeds 67108864");
}

/* Send zmsg on out, and receive it on in with
   hearth_msg_try_recv_refused. */
static hearth_msg_t *
s_through (zsock_t *out, zsock_t *in, zmsg_t *zmsg, hearth_error_t *err,
           hearth_msg_t **refused)
{
    assert_int_equal (zmsg_send (&zmsg, out), 0);
    zpoller_t *poller = zpoller_new (in, NULL);
    assert_non_null (zpoller_wait (poller, 5000));
    zpoller_destroy (&poller);
    bool none;
    hearth_msg_t *msg =
        hearth_msg_try_recv_refused (in, NULL, &none, err, refused);
    assert_false (none);
    return msg;
}

static void
test_recv_refused (void **state)
{
    (void) state;
    zsock_t *out = zsock_new_pair ("@inproc://refused");
    zsock_t *in = zsock_new_pair (">inproc://refused");
    hearth_error_t err;
    hearth_msg_t *refused;
    /* a field over its limits: the body is there, batch and all */
    zmsg_t *zmsg =
        pt_wire ("LAUNCH_TASKS", "{'batch':7,'tasks':[{'tid':1,'attempt':0,"
                                 "'cmd':['ls'],'timeout_ms':-1}]}");
    pt_add_frames (zmsg, 2);
    assert_null (s_through (out, in, zmsg, &err, &refused));
    assert_string_equal (err.code, "bad_field");
    assert_non_null (refused);
    assert_int_equal (refused->cmd, HEARTH_CMD_LAUNCH_TASKS);
    assert_int_equal (hearth_json_int (refused->body, "batch", 0), 7);
    assert_int_equal (refused->nframes, 0); /* not kept */
    hearth_msg_destroy (&refused);
    /* a body that is not JSON: the command, an empty body */
    zmsg = pt_zmsg (3, HEARTH_PROTO_TAG, "LAUNCH_TASKS", "{not json");
    assert_null (s_through (out, in, zmsg, &err, &refused));
    assert_string_equal (err.code, "bad_json");
    assert_non_null (refused);
    assert_int_equal (refused->cmd, HEARTH_CMD_LAUNCH_TASKS);
    assert_null (refused->body->child);
    hearth_msg_destroy (&refused);
    /* no command to tell: nothing */
    zmsg = pt_wire ("FROBNICATE", "{}");
    assert_null (s_through (out, in, zmsg, &err, &refused));
    assert_string_equal (err.code, "unknown_command");
    assert_null (refused);
    /* a good message is decoded as ever */
    zmsg = pt_wire ("KILL_TASK", "{'tid':1,'attempt':0}");
    hearth_msg_t *msg = s_through (out, in, zmsg, &err, &refused);
    assert_non_null (msg);
    assert_null (refused);
    hearth_msg_destroy (&msg);
    zsock_destroy (&in);
    zsock_destroy (&out);
}

int
main (void)
{
    hearth_zsys_init ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_empty_arguments),
        cmocka_unit_test (test_arg_frame),
        cmocka_unit_test (test_encode_too_large),
        cmocka_unit_test (test_recv_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}

/*  test_proto_reject.c - the codec refuses what it must (libcore/proto.c
    and the command table in libcore/commands.c): frames that are not
    Hearth's or not this version's, bodies that are not JSON objects or
    too large or too deep, and every kind of bad field.  Each check names
    the error's code and that its text names the field, what was expected
    and what was found.  The samples and helpers are proto_samples.h's. */
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
   Rejections at the frame level */

static void
test_wrong_version (void **state)
{
    (void) state;
    hearth_error_t err;
    pt_decode_fails (pt_zmsg (3, "HEARTH/2", "HEARTBEAT", "{}"), "bad_version",
                     &err);
    assert_contains (err.text, "HEARTH/2");
    assert_contains (err.text, "not supported");
    assert_contains (err.text, HEARTH_PROTO_TAG);
    /* the version is checked before anything else, even when truncated */
    pt_decode_fails (pt_zmsg (1, "HEARTH/10"), "bad_version", &err);
    assert_contains (err.text, "HEARTH/10");
    pt_decode_fails (pt_zmsg (3, "HEARTH/", "HEARTBEAT", "{}"), "bad_version",
                     &err);
}

static void
test_not_hearth (void **state)
{
    (void) state;
    hearth_error_t err;
    pt_decode_fails (pt_zmsg (3, "GET / HTTP/1.1", "Host: x", "{}"),
                     "bad_protocol", &err);
    assert_contains (err.text, "not a Hearth message");
    assert_contains (err.text, HEARTH_PROTO_TAG);
    pt_decode_fails (pt_zmsg (3, "", "HEARTBEAT", "{}"), "bad_protocol", &err);
    pt_decode_fails (pt_zmsg (3, "hearth/1", "HEARTBEAT", "{}"), "bad_protocol",
                     &err);
    pt_decode_fails (pt_zmsg (2, "HEART", "x"), "bad_protocol", &err);
}

static void
test_unknown_command (void **state)
{
    (void) state;
    hearth_error_t err;
    pt_decode_fails (pt_wire ("FROBNICATE", "{}"), "unknown_command", &err);
    assert_string_equal (err.text, "unknown command 'FROBNICATE'");
    pt_decode_fails (pt_wire ("heartbeat", "{}"), "unknown_command", &err);
    assert_contains (err.text, "'heartbeat'");
    pt_decode_fails (pt_wire ("", "{}"), "unknown_command", &err);
    /* unprintable bytes are shown as '?' */
    zmsg_t *zmsg = pt_zmsg (1, HEARTH_PROTO_TAG);
    zmsg_addmem (zmsg, "HEARTBEAT\0\n", 11);
    zmsg_addstr (zmsg, "{}");
    pt_decode_fails (zmsg, "unknown_command", &err);
    assert_contains (err.text, "'HEARTBEAT?"
                               "?'");
}

static void
test_truncated (void **state)
{
    (void) state;
    hearth_error_t err;
    pt_decode_fails (zmsg_new (), "truncated", &err);
    assert_contains (err.text, "at least 3 frames");
    assert_contains (err.text, "got 0");
    pt_decode_fails (pt_zmsg (1, HEARTH_PROTO_TAG), "truncated", &err);
    assert_contains (err.text, "got 1");
    pt_decode_fails (pt_zmsg (2, HEARTH_PROTO_TAG, "HEARTBEAT"), "truncated",
                     &err);
    assert_contains (err.text, "got 2");
    zmsg_t *none = NULL;
    assert_null (hearth_msg_decode (&none, &err));
    assert_string_equal (err.code, "truncated");
}

static void
test_body_not_json (void **state)
{
    (void) state;
    hearth_error_t err;
    pt_decode_fails (pt_wire ("HEARTBEAT", "{'id': "), "bad_json", &err);
    assert_string_equal (err.text, "body is not valid JSON");
    pt_decode_fails (pt_wire ("HEARTBEAT", ""), "bad_json", &err);
    pt_decode_fails (pt_wire ("HEARTBEAT", "{id: 1}"), "bad_json", &err);
    pt_decode_fails (pt_wire ("HEARTBEAT", "{'a':1,}"), "bad_json", &err);
    /* trailing garbage, a second value, a NUL after the object */
    pt_decode_fails (pt_wire ("HEARTBEAT", "{} x"), "bad_json", &err);
    pt_decode_fails (pt_wire ("HEARTBEAT", "{}{}"), "bad_json", &err);
    zmsg_t *zmsg = pt_zmsg (2, HEARTH_PROTO_TAG, "HEARTBEAT");
    zmsg_addmem (zmsg, "{}\0", 3);
    pt_decode_fails (zmsg, "bad_json", &err);
    /* trailing white space is fine */
    hearth_msg_t *msg = pt_decode_ok (pt_wire ("HEARTBEAT", " {} \r\n\t"));
    hearth_msg_destroy (&msg);
}

static void
test_body_not_object (void **state)
{
    (void) state;
    static const char *const bodies[] = {"[]",   "[{}]", "42",   "'text'",
                                         "null", "true", "false"};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        hearth_error_t err;
        pt_decode_fails (pt_wire ("MASTER_STATE", bodies[i]), "bad_json", &err);
        assert_string_equal (err.text, "body is not a JSON object");
    }
}

static void
test_body_too_large (void **state)
{
    (void) state;
    size_t size = HEARTH_MAX_BODY_BYTES + 1;
    zframe_t *body = zframe_new (NULL, size);
    assert_non_null (body);
    memset (zframe_data (body), ' ', size);
    zframe_data (body)[0] = '{';
    zframe_data (body)[size - 1] = '}';
    zmsg_t *zmsg = pt_zmsg (2, HEARTH_PROTO_TAG, "HEARTBEAT");
    zmsg_append (zmsg, &body);
    hearth_error_t err;
    pt_decode_fails (zmsg, "too_large", &err);
    assert_contains (err.text, "67108865 bytes");
}

/* A body nested depth levels deep (the body object itself is level 1). */
static char *
s_nested (int depth)
{
    char *text = calloc (1, 8 * (size_t) depth + 16);
    assert_non_null (text);
    strcat (text, "{\"x\":");
    for (int i = 1; i < depth; i++)
        strcat (text, i % 2 ? "[" : "{\"y\":");
    strcat (text, "1");
    for (int i = depth - 1; i >= 1; i--)
        strcat (text, i % 2 ? "]" : "}");
    strcat (text, "}");
    return text;
}

static void
test_deep_nesting (void **state)
{
    (void) state;
    char *ok = s_nested (HEARTH_MAX_DEPTH);
    hearth_msg_t *msg =
        pt_decode_ok (pt_zmsg (3, HEARTH_PROTO_TAG, "HEARTBEAT", ok));
    hearth_msg_destroy (&msg);
    free (ok);

    char *deep = s_nested (HEARTH_MAX_DEPTH + 1);
    hearth_error_t err;
    pt_decode_fails (pt_zmsg (3, HEARTH_PROTO_TAG, "HEARTBEAT", deep),
                     "too_deep", &err);
    assert_string_equal (err.text, "body nests deeper than 32 levels");
    free (deep);
}

/* Brackets inside strings, escaped quotes included, are not nesting. */
static void
test_nesting_in_strings (void **state)
{
    (void) state;
    char body[512];
    char brackets[201];
    memset (brackets, '[', 100);
    memset (brackets + 100, '{', 100);
    brackets[200] = '\0';
    snprintf (body, sizeof body,
              "{\"code\":\"x\",\"message\":\"\\\"%s\\\\\",\"command\":\"]\"}",
              brackets);
    hearth_msg_t *msg =
        pt_decode_ok (pt_zmsg (3, HEARTH_PROTO_TAG, "ERROR", body));
    assert_int_equal (strlen (hearth_json_str (msg->body, "message")), 202);
    hearth_msg_destroy (&msg);

    assert_true (hearth_json_depth_ok ("\"[[[[\"", 6, 1));
    assert_true (hearth_json_depth_ok ("[\"\\\"[[\"]", 8, 1));
    assert_false (hearth_json_depth_ok ("[\"\\\\\"[]", 7, 1));
    assert_false (hearth_json_depth_ok ("[[", 2, 1));
    assert_true (hearth_json_depth_ok ("[][][]", 6, 1));
}

/* ---------------------------------------------------------------------
   Rejections of fields, through the decoder */

static void
test_missing_nested_field (void **state)
{
    (void) state;
    hearth_error_t err;
    pt_decode_fails (
        pt_wire ("LAUNCH_TASKS", "{'tasks':[{'attempt':0,'fn':'f'}]}"),
        "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: missing required field "
                                   "'tasks[0].tid'");
    pt_decode_fails (pt_wire ("HEARTBEAT",
                              "{'executors':[{'app_id':'" APP_ID
                              "','exec_id':1},{'app_id':'" APP_ID "'}]}"),
                     "bad_field", &err);
    assert_contains (err.text, "missing required field 'executors[1].exec_id'");
}

static void
test_wrong_type (void **state)
{
    (void) state;
    hearth_error_t err;
    pt_decode_fails (pt_wire ("KILL_TASK", "{'tid':'7','attempt':0}"),
                     "bad_field", &err);
    assert_string_equal (err.text, "KILL_TASK: field 'tid': expected an "
                                   "integer 0..9007199254740991, got \"7\"");
    pt_decode_fails (
        pt_wire ("EXECUTOR_UPDATED",
                 "{'exec_id':1,'state':'LOST','worker_lost':'yes'}"),
        "bad_field", &err);
    assert_contains (err.text,
                     "field 'worker_lost': expected a boolean, got \"yes\"");
    pt_decode_fails (pt_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                              "'cmd':['sh',7]}]}"),
                     "bad_field", &err);
    assert_contains (err.text, "field 'tasks[0].cmd[1]': expected a string of "
                               "0 to 65536 bytes, got 7");
    pt_decode_fails (pt_wire ("KILL_TASK", "{'tid':null,'attempt':0}"),
                     "bad_field", &err);
    assert_contains (err.text, "got null");
}

static void
test_out_of_range (void **state)
{
    (void) state;
    static const struct {
        const char *body; /* REGISTER_APPLICATION body */
        const char *text; /* expected error text after the command name */
    } cases[] = {
        {"{'name':'pi','driver_url':'tcp://h:1','max_cores':0}",
         "field 'max_cores': expected an integer 1..65536, got 0"},
        {"{'name':'pi','driver_url':'tcp://h:1','max_cores':65537}",
         "field 'max_cores': expected an integer 1..65536, got 65537"},
        {"{'name':'pi','driver_url':'tcp://h:1','max_cores':2.5}",
         "field 'max_cores': expected an integer 1..65536, got 2.5"},
        {"{'name':'pi','driver_url':'tcp://h:1','max_cores':-3}",
         "field 'max_cores': expected an integer 1..65536, got -3"},
        {"{'name':'pi','driver_url':'tcp://h:1','max_cores':1e400}",
         "field 'max_cores': expected an integer 1..65536, got inf"},
        {"{'name':'','driver_url':'tcp://h:1'}",
         "field 'name': expected a string of 1 to 255 bytes without control "
         "characters, got \"\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hearth_error_t err;
        pt_decode_fails (pt_wire ("REGISTER_APPLICATION", cases[i].body),
                         "bad_field", &err);
        assert_contains (err.text, cases[i].text);
    }
    hearth_error_t err;
    pt_decode_fails (
        pt_wire ("EXECUTOR_UPDATED", "{'exec_id':1,'state':'GONE'}"),
        "bad_field", &err);
    assert_contains (err.text, "field 'state': expected one of LAUNCHING, "
                               "RUNNING, EXITED, KILLED, FAILED, LOST, got "
                               "\"GONE\"");
}

/* A shipped file's mode is permission bits: a setuid, setgid or sticky
   bit is refused (a worker that does not change users would write the
   file root's, set-user-ID). */
static void
test_file_mode (void **state)
{
    (void) state;
    static const char *const bits[] = {"2541", "1517", "1023", "512"};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        char body[256];
        hearth_error_t err;
        snprintf (body, sizeof body,
                  "{'name':'x','app':'a.sh','kind':'binary','args':[],"
                  "'files':[{'name':'a.sh','frame':0,'mode':%s}]}",
                  bits[i]);
        zmsg_t *zmsg = pt_wire ("SUBMIT_DRIVER", body);
        pt_add_frames (zmsg, 1);
        pt_decode_fails (zmsg, "bad_field", &err);
        assert_contains (err.text,
                         "field 'files[0].mode': expected an integer 0..511");
    }
}

static void
test_oversize_string (void **state)
{
    (void) state;
    char host[257], body[512];
    memset (host, 'h', 256);
    host[256] = '\0';
    snprintf (body, sizeof body,
              "{'id':'" WORKER_ID "','host':'%s','cores':1,'memory_mb':1,"
              "'version':'0.1.0'}",
              host);
    hearth_error_t err;
    pt_decode_fails (pt_wire ("REGISTER_WORKER", body), "bad_field", &err);
    assert_string_equal (err.text, "REGISTER_WORKER: field 'host': expected a "
                                   "string of 1 to 255 bytes without control "
                                   "characters, got a string of 256 bytes");
    host[255] = '\0'; /* 255 bytes is fine */
    snprintf (body, sizeof body,
              "{'id':'" WORKER_ID "','host':'%s','cores':1,'memory_mb':1,"
              "'version':'0.1.0'}",
              host);
    hearth_msg_t *msg = pt_decode_ok (pt_wire ("REGISTER_WORKER", body));
    hearth_msg_destroy (&msg);
}

/* Names, ids, hosts and URLs are labels: a control character in one is
   refused, the message quoting it escaped; free text keeps them. */
static void
test_control_characters (void **state)
{
    (void) state;
    static const struct {
        const char *cmd;  /* the command */
        const char *body; /* its body, with a control character */
        const char *text; /* the expected error text */
    } cases[] = {
        {"REGISTER_APPLICATION",
         "{'name':'evil\\n2026 INFO forged\\u001b[31m','driver_url':'tcp://"
         "h:1'}",
         "REGISTER_APPLICATION: field 'name': expected a string of 1 to 255 "
         "bytes without control characters, got \"evil\\n2026 INFO "
         "forged\\x1b[31m\""},
        {"REGISTER_APPLICATION",
         "{'name':'pi','driver_url':'tcp://h:1','user':'bob\\r'}",
         "REGISTER_APPLICATION: field 'user': expected a string of 0 to 255 "
         "bytes without control characters, got \"bob\\r\""},
        {"REGISTER_APPLICATION", "{'name':'pi','driver_url':'tcp://h:1\\n'}",
         "REGISTER_APPLICATION: field 'driver_url': expected a string of 1 "
         "to 512 bytes without control characters, got \"tcp://h:1\\n\""},
        {"SUBMIT_DRIVER",
         "{'name':'a\\u009bb','app':'x','kind':'job','files':[]}",
         "SUBMIT_DRIVER: field 'name': expected a string of 0 to 255 bytes "
         "without control characters, got \"a\\u009bb\""},
        {"REGISTER_WORKER",
         "{'id':'" WORKER_ID "','host':'h\\u007f','cores':1,'memory_mb':1,"
         "'version':'0.1.0'}",
         "REGISTER_WORKER: field 'host': expected a string of 1 to 255 bytes "
         "without control characters, got \"h\\x7f\""},
        {"APPLICATION_PROGRESS",
         "{'app_id':'app-20261129201435-0001','jobs_active':1,"
         "'tasks_total':1,'tasks_finished':0,'tasks_failed':0,"
         "'tasks_running':1,'stages':[{'job':0,'stage':0,'name':'s\\t1',"
         "'tasks':1,'finished':0,'running':1,'failed':0}]}",
         "APPLICATION_PROGRESS: field 'stages[0].name': expected a string of "
         "0 to 255 bytes without control characters, got \"s\\t1\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hearth_error_t err;
        pt_decode_fails (pt_wire (cases[i].cmd, cases[i].body), "bad_field",
                         &err);
        assert_string_equal (err.text, cases[i].text);
    }
    /* free text: a reason may hold anything (its printers escape it) */
    hearth_msg_t *msg = pt_decode_ok (
        pt_wire ("UNREGISTER_APPLICATION",
                 "{'app_id':'app-20261129201435-0001','state':'FAILED',"
                 "'message':'line 1\\nline 2\\u001b[31m'}"));
    assert_string_equal (hearth_json_str (msg->body, "message"),
                         "line 1\nline 2\x1b[31m");
    hearth_msg_destroy (&msg);
}

static void
test_bad_ids (void **state)
{
    (void) state;
    char too_long[HEARTH_ID_MAX + 64];
    snprintf (too_long, sizeof too_long, "app-20261129201435-0001%0120d", 0);
    const char *bad[] = {
        "../../etc",
        "app-20261129201435-0001/../../etc",
        "/etc/passwd",
        "app-20261129201435/0001",
        ".app-20261129201435-0001",
        "..",
        "",
        "driver-20261129201435-0001",
        "app-2026112920143-0001",
        "app-20261129201435-01",
        too_long,
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[256];
        snprintf (body, sizeof body, "{'app_id':'%s'}", bad[i]);
        hearth_error_t err;
        pt_decode_fails (pt_wire ("KILL_APPLICATION", body), "bad_field", &err);
        assert_contains (err.text, "field 'app_id': expected a valid id, got ");
    }
    hearth_error_t err;
    pt_decode_fails (pt_wire ("KILL_APPLICATION", "{'app_id':'../x'}"),
                     "bad_field", &err);
    assert_contains (err.text, "got \"../x\"");
    /* a file name that would escape the work directory */
    pt_decode_fails (pt_wire ("SUBMIT_DRIVER",
                              "{'app':'../../bin/sh','kind':'binary',"
                              "'files':[]}"),
                     "bad_field", &err);
    assert_contains (err.text, "field 'app': expected a safe file name, got "
                               "\"../../bin/sh\"");
}

static void
test_frame_index (void **state)
{
    (void) state;
    hearth_error_t err;
    zmsg_t *zmsg = pt_wire (
        "LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,'fn':'f','input':1}]}");
    pt_add_frames (zmsg, 1);
    pt_decode_fails (zmsg, "bad_frame", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field 'tasks[0].input': "
                                   "expected a binary frame index 0..0, got 1");

    zmsg = pt_wire ("LAUNCH_TASKS",
                    "{'tasks':[{'tid':1,'attempt':0,'fn':'f','input':-1}]}");
    pt_add_frames (zmsg, 2);
    pt_decode_fails (zmsg, "bad_frame", &err);
    assert_contains (err.text, "expected a binary frame index 0..1, got -1");

    pt_decode_fails (pt_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                              "'fn':'f','input':0}]}"),
                     "bad_frame", &err);
    assert_contains (err.text, "field 'tasks[0].input': expected a binary "
                               "frame index (there are none), got 0");

    zmsg = pt_wire ("STATUS_UPDATE", "{'updates':[{'tid':1,'attempt':0,"
                                     "'state':'FINISHED','result':0.5}]}");
    pt_add_frames (zmsg, 1);
    pt_decode_fails (zmsg, "bad_frame", &err);
    assert_contains (err.text, "got 0.5");

    zmsg = pt_wire ("DRIVER_LOG_RESPONSE", "{'ok':true,'data':1}");
    pt_add_frames (zmsg, 2);
    hearth_msg_t *msg = pt_decode_ok (zmsg);
    assert_int_equal (zframe_size (hearth_msg_frame (msg, 1)), 7);
    assert_null (hearth_msg_frame (msg, -1));
    assert_null (hearth_msg_frame (msg, 2));
    hearth_msg_destroy (&msg);
}

static void
test_task_cmd_or_fn (void **state)
{
    (void) state;
    hearth_error_t err;
    pt_decode_fails (pt_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                              "'fn':'f'},{'tid':2,'attempt':0,"
                                              "'cmd':['ls'],'fn':'g'}]}"),
                     "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field 'tasks[1]': expected "
                                   "exactly one of 'cmd' and 'fn', got both");
    pt_decode_fails (
        pt_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0}]}"),
        "bad_field", &err);
    assert_contains (err.text, "field 'tasks[0]': expected exactly one of "
                               "'cmd' and 'fn', got neither");
    pt_decode_fails (
        pt_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,'cmd':[]}]}"),
        "bad_field", &err);
    assert_contains (err.text, "field 'tasks[0].cmd': expected a non-empty "
                               "argv with a non-empty program");
    /* names are case-sensitive: "CMD" is an unknown field, not "cmd" */
    pt_decode_fails (pt_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                              "'CMD':['ls']}]}"),
                     "bad_field", &err);
    assert_contains (err.text, "got neither");
    hearth_msg_t *msg = pt_decode_ok (
        pt_wire ("LAUNCH_TASKS",
                 "{'tasks':[{'tid':1,'attempt':0,'FN':'x','cmd':['ls']}]}"));
    hearth_msg_destroy (&msg);
}

/* A LAUNCH_TASKS of one command task with roles (JSON, ' for "), and one
   binary frame of len bytes of data. */
static zmsg_t *
s_roles (const char *roles, const void *data, size_t len)
{
    char body[1024];
    snprintf (body, sizeof body,
              "{'tasks':[{'tid':1,'attempt':0,'cmd':['cat'],%s}]}", roles);
    zmsg_t *zmsg = pt_wire ("LAUNCH_TASKS", body);
    assert_int_equal (zmsg_addmem (zmsg, data, len), 0);
    return zmsg;
}

/* The shuffle's rules across fields: "map" and "output" exclude each
   other; a map output read whole has one partition; a reduce role's blocks are
   whole 16-byte records naming one of its servers (or none) and an attempt the
   protocol allows. */
static void
test_shuffle_roles (void **state)
{
    (void) state;
    hearth_error_t err;
    zframe_t *blocks = pt_blocks_frame (48); /* servers 0, none, 0 */
    const byte *b = zframe_data (blocks);
    const char *reduce = "'reduce':{'shuffle':3,'partition':2,"
                         "'servers':[{'url':'tcp://a:1'}],'blocks':0}";
    hearth_msg_t *msg = pt_decode_ok (s_roles (reduce, b, 48));
    hearth_msg_destroy (&msg);
    msg = pt_decode_ok (
        s_roles ("'map':{'shuffle':1,'partitions':100000}", "", 0));
    hearth_msg_destroy (&msg);

    pt_decode_fails (s_roles ("'map':{'shuffle':1,'partitions':4},"
                              "'output':'/tmp/x'",
                              "", 0),
                     "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field 'tasks[0]': 'map' "
                                   "and 'output' exclude each other");
    msg = pt_decode_ok (
        s_roles ("'map':{'shuffle':1,'partitions':1,'whole':true}", "", 0));
    hearth_msg_destroy (&msg);
    pt_decode_fails (
        s_roles ("'map':{'shuffle':1,'partitions':2,'whole':true}", "", 0),
        "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field 'tasks[0].map': a "
                                   "map output read whole has 1 partition");
    pt_decode_fails (s_roles (reduce, b, 47), "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field "
                                   "'tasks[0].reduce.blocks': expected a "
                                   "multiple of 16 bytes, got 47");
    byte bad[48];
    memcpy (bad, b, sizeof bad);
    bad[32] = 1; /* map 2 names server 1 of 1 */
    pt_decode_fails (s_roles (reduce, bad, 48), "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field "
                                   "'tasks[0].reduce.blocks': map 2 names "
                                   "server 1 of 1");
    memcpy (bad, b, sizeof bad);
    bad[20] = 0xe9, bad[21] = 0x03; /* map 1: attempt 1001 */
    pt_decode_fails (s_roles (reduce, bad, 48), "bad_field", &err);
    assert_contains (err.text, "map 1 has attempt 1001 (at most 1000)");
    zframe_destroy (&blocks);

    pt_decode_fails (s_roles ("'map':{'shuffle':1,'partitions':0}", "", 0),
                     "bad_field", &err);
    assert_contains (err.text, "'tasks[0].map.partitions'");
    pt_decode_fails (s_roles ("'map':{'partitions':2}", "", 0), "bad_field",
                     &err);
    assert_contains (err.text, "missing required field "
                               "'tasks[0].map.shuffle'");
    pt_decode_fails (s_roles ("'reduce':{'shuffle':1,'partition':0,"
                              "'servers':[],'blocks':1}",
                              "", 0),
                     "bad_frame", &err);

    zmsg_t *zmsg =
        pt_wire ("STATUS_UPDATE", "{'updates':[{'tid':1,'attempt':0,"
                                  "'state':'FINISHED','map_sizes':0}]}");
    assert_int_equal (zmsg_addmem (zmsg, "1234567", 7), 0);
    pt_decode_fails (zmsg, "bad_field", &err);
    assert_string_equal (err.text, "STATUS_UPDATE: field "
                                   "'updates[0].map_sizes': expected "
                                   "1..100000 u64 sizes, got a frame of 7 "
                                   "bytes");
    zmsg = pt_wire ("STATUS_UPDATE",
                    "{'updates':[{'tid':1,'attempt':0,'state':'FAILED',"
                    "'fetch_failed':{'shuffle':1,'map':2}}]}");
    pt_decode_fails (zmsg, "bad_field", &err);
    assert_contains (err.text, "'updates[0].fetch_failed.attempt'");
}

/* Two kept blocks' records (server 0xfffffffe) of 5 and 3 bytes. */
static void
s_kept_records (byte r[32])
{
    memset (r, 0, 32);
    memset (r, 0xff, 4);
    r[0] = 0xfe;
    r[8] = 5;
    memcpy (r + 16, r, 16);
    r[24] = 3;
}

/* Blocks the driver keeps (libhearth/inlineout.h): the reduce role's
   "inline" frame holds exactly the bytes its kept records name; an
   update's "map_block" is the one partition its map_sizes gives. */
static void
test_kept_blocks (void **state)
{
    (void) state;
    hearth_error_t err;
    byte r[32];
    s_kept_records (r);
    const char *reduce = "'reduce':{'shuffle':3,'partition':0,'servers':[],"
                         "'blocks':0,'inline':1}";
    zmsg_t *zmsg = s_roles (reduce, r, 32);
    zmsg_addmem (zmsg, "abcdefgh", 8);
    hearth_msg_t *msg = pt_decode_ok (zmsg);
    hearth_msg_destroy (&msg);
    zmsg = s_roles (reduce, r, 32);
    zmsg_addmem (zmsg, "abcdefg", 7);
    pt_decode_fails (zmsg, "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field "
                                   "'tasks[0].reduce.inline': 7 bytes, and "
                                   "its blocks name more or fewer");
    pt_decode_fails (s_roles ("'reduce':{'shuffle':3,'partition':0,"
                              "'servers':[],'blocks':0}",
                              r, 32),
                     "bad_field", &err);
    assert_contains (err.text, "'tasks[0].reduce.inline': 0 bytes");
    memset (r, 0xff, 32); /* no kept record (on this node), an inline
                             frame */
    memset (r + 4, 0, 12);
    memset (r + 20, 0, 12);
    zmsg = s_roles (reduce, r, 32);
    zmsg_addmem (zmsg, "abcdefgh", 8);
    pt_decode_fails (zmsg, "bad_field", &err);
    assert_contains (err.text, "8 bytes, and its blocks name more or fewer");
    pt_decode_fails (s_roles ("'map':{'shuffle':1,'partitions':1,'whole':"
                              "true,'inline_max':1048577}",
                              "", 0),
                     "bad_field", &err);
    assert_contains (err.text, "'tasks[0].map.inline_max'");
    /* packed tasks' map role read whole: a stage and an inline_max */
    msg = pt_decode_ok (
        pt_wire ("LAUNCH_TASKS",
                 "{'tasks':[],'whole_maps':[{'stage':3,'inline_max':64}]}"));
    hearth_msg_destroy (&msg);
    pt_decode_fails (pt_wire ("LAUNCH_TASKS", "{'tasks':[],'whole_maps':[{"
                                              "'stage':3,'inline_max':0}]}"),
                     "bad_field", &err);
    assert_contains (err.text, "'whole_maps[0].inline_max'");

    const char *update = "{'updates':[{'tid':1,'attempt':0,'state':"
                         "'FINISHED','map_sizes':0,'map_block':1}]}";
    byte size[8] = {5};
    zmsg = pt_wire ("STATUS_UPDATE", update);
    zmsg_addmem (zmsg, size, 8);
    zmsg_addmem (zmsg, "abcde", 5);
    msg = pt_decode_ok (zmsg);
    hearth_msg_destroy (&msg);
    zmsg = pt_wire ("STATUS_UPDATE", update);
    zmsg_addmem (zmsg, size, 8);
    zmsg_addmem (zmsg, "abcdef", 6);
    pt_decode_fails (zmsg, "bad_field", &err);
    assert_string_equal (err.text, "STATUS_UPDATE: field "
                                   "'updates[0].map_block': expected the one "
                                   "partition map_sizes gives, at most "
                                   "1048576 bytes, got 6 bytes");
    zmsg = pt_wire ("STATUS_UPDATE", "{'updates':[{'tid':1,'attempt':0,"
                                     "'state':'FINISHED','map_block':0}]}");
    zmsg_addmem (zmsg, "abcde", 5);
    pt_decode_fails (zmsg, "bad_field", &err);
    assert_contains (err.text, "'updates[0].map_block'");
}

/* An invalid body fails at the sender, and everything is freed (the
   sanitizers' leak check verifies the frames and the body). */
static void
test_encode_invalid (void **state)
{
    (void) state;
    hearth_msg_t *msg = pt_msg (HEARTH_CMD_REGISTER_WORKER,
                                "{'id':'" WORKER_ID "','cores':1,'memory_mb':1,"
                                "'version':'0.1.0'}");
    assert_int_equal (hearth_msg_add_bytes (msg, "abc", 3), 0);
    assert_int_equal (hearth_msg_add_bytes (msg, "", 0), 1);
    hearth_error_t err;
    assert_null (hearth_msg_encode (&msg, &err));
    assert_null (msg);
    assert_string_equal (err.code, "bad_field");
    assert_string_equal (err.text,
                         "REGISTER_WORKER: missing required field 'host'");

    msg = hearth_msg_new ((hearth_cmd_t) HEARTH_CMD_COUNT);
    assert_null (hearth_msg_encode (&msg, &err));
    assert_null (msg);
    assert_string_equal (err.code, "unknown_command");
}

static void
test_frames_grow (void **state)
{
    (void) state;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_DRIVER_LOG_RESPONSE);
    for (int i = 0; i < 100; i++)
        assert_int_equal (hearth_msg_add_bytes (msg, &i, sizeof i), i);
    cJSON_AddTrueToObject (msg->body, "ok");
    cJSON_AddNumberToObject (msg->body, "data", 99);
    hearth_error_t err;
    zmsg_t *zmsg = hearth_msg_encode (&msg, &err);
    assert_non_null (zmsg);
    assert_int_equal (zmsg_size (zmsg), 103);
    hearth_msg_t *back = pt_decode_ok (zmsg);
    int last;
    memcpy (&last, zframe_data (hearth_msg_frame (back, 99)), sizeof last);
    assert_int_equal (last, 99);
    hearth_msg_destroy (&back);
    hearth_msg_destroy (&back); /* idempotent */
    hearth_msg_destroy (NULL);
}

static void
test_json_readers (void **state)
{
    (void) state;
    cJSON *obj = pt_json ("{'s':'text','i':42,'b':true,'n':null}");
    assert_string_equal (hearth_json_str (obj, "s"), "text");
    assert_null (hearth_json_str (obj, "i"));
    assert_null (hearth_json_str (obj, "S"));
    assert_int_equal (hearth_json_int (obj, "i", -1), 42);
    assert_int_equal (hearth_json_int (obj, "s", -1), -1);
    assert_int_equal (hearth_json_int (obj, "missing", 7), 7);
    assert_true (hearth_json_bool (obj, "b", false));
    assert_false (hearth_json_bool (obj, "n", false));
    assert_true (hearth_json_bool (obj, "missing", true));
    cJSON_Delete (obj);
}

int
main (void)
{
    alarm (120);
    hearth_zsys_init ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_wrong_version),
        cmocka_unit_test (test_not_hearth),
        cmocka_unit_test (test_unknown_command),
        cmocka_unit_test (test_truncated),
        cmocka_unit_test (test_body_not_json),
        cmocka_unit_test (test_body_not_object),
        cmocka_unit_test (test_body_too_large),
        cmocka_unit_test (test_deep_nesting),
        cmocka_unit_test (test_nesting_in_strings),
        cmocka_unit_test (test_missing_nested_field),
        cmocka_unit_test (test_wrong_type),
        cmocka_unit_test (test_out_of_range),
        cmocka_unit_test (test_file_mode),
        cmocka_unit_test (test_oversize_string),
        cmocka_unit_test (test_control_characters),
        cmocka_unit_test (test_bad_ids),
        cmocka_unit_test (test_frame_index),
        cmocka_unit_test (test_task_cmd_or_fn),
        cmocka_unit_test (test_shuffle_roles),
        cmocka_unit_test (test_kept_blocks),
        cmocka_unit_test (test_encode_invalid),
        cmocka_unit_test (test_frames_grow),
        cmocka_unit_test (test_json_readers),
    };
    return cmocka_run_group_tests_name ("proto rejections", tests, NULL, NULL);
}

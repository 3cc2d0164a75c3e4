/*  test_proto.c - unit tests of the wire codec (libcore/proto.c and the
    command table in libcore/commands.c).

    The round trip walks every command of HEARTH_COMMANDS and needs a sample
    body for each in s_samples[]: a command added to the table without a
    sample here fails the test.  Sample bodies are written with single
    quotes for readability; s_json() turns them into double quotes.

    The rejection tests check the error's code and that its text names the
    field, what was expected and what was found.  The last tests send and
    receive over a real ROUTER/DEALER pair on an ephemeral loopback port.
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
#include "tests/unit/testutil.h"

#define APP_ID "app-20261129201435-0001"
#define DRIVER_ID "driver-20261129201500-0002"
#define WORKER_ID "worker-20261129200000-node1.example.com-4242"

/* One realistic body per command, and the sizes of its binary frames. */
typedef struct {
    const char *json;     /* the body, with ' standing for " */
    size_t nframes;       /* binary frames that go with it */
    size_t frame_size[3]; /* their sizes (contents: s_fill_frame) */
    size_t packed;        /* 1 + index of a frame of packed records, or 0 */
} s_sample_t;

/* clang-format off */
static const s_sample_t s_samples[HEARTH_CMD_COUNT] = {
    [HEARTH_CMD_ERROR] = {
        "{'code':'bad_version','message':'protocol version HEARTH/2 is not "
        "supported','command':'REGISTER_WORKER'}"},
    [HEARTH_CMD_HEARTBEAT] = {
        "{'id':'" WORKER_ID "','cores_used':6,'memory_used_mb':12288,"
        "'tasks_running':3,'executors':[{'app_id':'" APP_ID "','exec_id':0,"
        "'cores':4,'memory_mb':8192,'state':'RUNNING','pid':31337}],"
        "'drivers':[{'driver_id':'" DRIVER_ID "','cores':1,'memory_mb':1024,"
        "'pid':31000}]}"},
    [HEARTH_CMD_REGISTER_WORKER] = {
        "{'id':'" WORKER_ID "','host':'node1.example.com','cores':8,"
        "'memory_mb':16384,'version':'0.1.0','work_dir':'/var/lib/hearth',"
        "'executors':[{'app_id':'" APP_ID "','exec_id':2,'cores':2,"
        "'state':'RUNNING'}],'drivers':[]}"},
    [HEARTH_CMD_REGISTERED_WORKER] = {
        "{'heartbeat_interval_ms':1000,'heartbeat_liveness':5,"
        "'master_url':'tcp://master.example.com:7077'}"},
    [HEARTH_CMD_REGISTER_WORKER_FAILED] = {
        "{'reason':'duplicate worker id " WORKER_ID "'}"},
    [HEARTH_CMD_RECONNECT_WORKER] = {
        "{'reason':'master restarted and does not know this worker'}"},
    [HEARTH_CMD_LAUNCH_EXECUTOR] = {
        "{'app_id':'" APP_ID "','exec_id':3,'cores':4,'memory_mb':2048,"
        "'driver_url':'tcp://10.0.0.5:41234','app_name':'pi',"
        "'conf':{'speculation':'true','max-failures':'4'}}"},
    [HEARTH_CMD_KILL_EXECUTOR] = {
        "{'app_id':'" APP_ID "','exec_id':3,'reason':'application finished'}"},
    [HEARTH_CMD_EXECUTOR_STATE_CHANGED] = {
        "{'app_id':'" APP_ID "','exec_id':3,'state':'FAILED',"
        "'message':'exited with status 1','exit_status':1,'pid':4243}"},
    [HEARTH_CMD_LAUNCH_DRIVER] = {
        "{'driver_id':'" DRIVER_ID "','cores':1,'memory_mb':1024,"
        "'app':'pi.json','kind':'job','args':['--slices','100'],"
        "'files':[{'name':'pi.json','frame':0,'mode':420},"
        "{'name':'libpi.so','frame':1,'mode':493}],"
        "'master_url':'tcp://master.example.com:7077','env':{'LANG':'C'},"
        "'name':'pi'}", 2, {211, 4099}},
    [HEARTH_CMD_KILL_DRIVER] = {"{'driver_id':'" DRIVER_ID "'}"},
    [HEARTH_CMD_DRIVER_STATE_CHANGED] = {
        "{'driver_id':'" DRIVER_ID "','state':'FINISHED','exit_status':0,"
        "'pid':5000}"},
    [HEARTH_CMD_REGISTER_APPLICATION] = {
        "{'name':'pi','max_cores':16,'cores_per_executor':2,"
        "'memory_per_executor_mb':1024,'driver_url':'tcp://10.0.0.5:41234',"
        "'user':'alice'}"},
    [HEARTH_CMD_REGISTERED_APPLICATION] = {
        "{'app_id':'" APP_ID "','heartbeat_interval_ms':1000,"
        "'heartbeat_liveness':5}"},
    [HEARTH_CMD_RECONNECT_APPLICATION] = {
        "{'reason':'master restarted'}"},
    [HEARTH_CMD_EXECUTOR_ADDED] = {
        "{'app_id':'" APP_ID "','exec_id':3,'worker_id':'" WORKER_ID "',"
        "'host':'node1.example.com','cores':4,'memory_mb':2048}"},
    [HEARTH_CMD_EXECUTOR_UPDATED] = {
        "{'app_id':'" APP_ID "','exec_id':3,'state':'LOST',"
        "'message':'worker lost','worker_lost':true}"},
    [HEARTH_CMD_APPLICATION_REMOVED] = {
        "{'app_id':'" APP_ID "','reason':'killed by user','state':'KILLED'}"},
    [HEARTH_CMD_UNREGISTER_APPLICATION] = {
        "{'app_id':'" APP_ID "','state':'FINISHED','message':'job done'}"},
    [HEARTH_CMD_SUBMIT_DRIVER] = {
        "{'name':'pi','app':'pi.json','kind':'job','args':[],"
        "'files':[{'name':'pi.json','frame':0},"
        "{'name':'libpi.so','frame':1,'mode':493}],'cores':1,"
        "'memory_mb':512,'supervise':true,'conf':{'speculation':'true'}}",
        2, {97, 0}},
    [HEARTH_CMD_SUBMIT_DRIVER_RESPONSE] = {
        "{'ok':true,'driver_id':'" DRIVER_ID "','message':'submitted'}"},
    [HEARTH_CMD_DRIVER_STATUS] = {"{'driver_id':'" DRIVER_ID "'}"},
    [HEARTH_CMD_DRIVER_STATUS_RESPONSE] = {
        "{'found':true,'driver_id':'" DRIVER_ID "','state':'RUNNING',"
        "'worker_id':'" WORKER_ID "','worker_host':'node1.example.com',"
        "'app_id':'" APP_ID "','launches':1,'supervise':false}"},
    [HEARTH_CMD_KILL_DRIVER_RESPONSE] = {
        "{'ok':false,'driver_id':'" DRIVER_ID "','message':'no such driver'}"},
    [HEARTH_CMD_DRIVER_LOG] = {
        "{'driver_id':'" DRIVER_ID "','stream':'stderr','offset':4096,"
        "'max_bytes':65536,'request_id':7}"},
    [HEARTH_CMD_DRIVER_LOG_RESPONSE] = {
        "{'ok':true,'driver_id':'" DRIVER_ID "','stream':'stderr',"
        "'offset':4096,'size':1500,'data':0,'eof':false,'request_id':7}",
        1, {1500}},
    [HEARTH_CMD_KILL_APPLICATION] = {"{'app_id':'" APP_ID "'}"},
    [HEARTH_CMD_KILL_APPLICATION_RESPONSE] = {
        "{'ok':true,'app_id':'" APP_ID "','message':'killed'}"},
    [HEARTH_CMD_MASTER_STATE] = {"{}"},
    [HEARTH_CMD_MASTER_STATE_RESPONSE] = {
        "{'status':'ALIVE','url':'tcp://master.example.com:7077',"
        "'workers':[{'id':'" WORKER_ID "','state':'ALIVE','cores':8,"
        "'executors':[{'app_id':'" APP_ID "','exec_id':0,'cores':4}]}],"
        "'apps':[{'id':'" APP_ID "','state':'RUNNING','cores':4}],"
        "'drivers':[],'policy':{'name':'spread-out'}}"},
    [HEARTH_CMD_REGISTER_EXECUTOR] = {
        "{'app_id':'" APP_ID "','exec_id':3,'host':'node1.example.com',"
        "'cores':4,'pid':4243,'token':'s3cr3t'}"},
    [HEARTH_CMD_REGISTERED_EXECUTOR] = {
        "{'libs':[{'name':'libpi.so','hash':'sha256:9f86d081884c7d65',"
        "'frame':0}],'heartbeat_interval_ms':1000,'heartbeat_liveness':5,"
        "'max_result_bytes':1048576}", 1, {16384}},
    [HEARTH_CMD_LAUNCH_TASKS] = {
        "{'tasks':[{'tid':0,'attempt':0,'fn':'pi_sample','lib':'libpi.so',"
        "'arg':'0','input':0,'timeout_ms':60000},"
        "{'tid':1,'attempt':1,'cmd':['sh','-c','wc -c'],"
        "'env':{'LC_ALL':'C'},'input':1}],'packed':2}", 3, {8, 300, 0}, 3},
    [HEARTH_CMD_KILL_TASK] = {"{'tid':1,'attempt':1}"},
    [HEARTH_CMD_STOP_EXECUTOR] = {"{'reason':'application finished'}"},
    [HEARTH_CMD_STATUS_UPDATE] = {
        "{'updates':[{'tid':0,'attempt':0,'state':'FINISHED','exit_status':0,"
        "'run_us':1234,'result':0},{'tid':1,'attempt':1,'state':'FAILED',"
        "'exit_status':1,'error':'exited with status 1','result':1,"
        "'truncated':true},{'tid':2,'attempt':0,'state':'RUNNING'}],"
        "'packed':2}", 3, {24, 0, 0}, 3},
    [HEARTH_CMD_WORKER_STOPPING] = {
        "{'id':'node-a','reason':'stopped: SIGTERM'}"},
    [HEARTH_CMD_DRAIN_WORKER] = {
        "{'worker_id':'" WORKER_ID "','reason':'disk replacement'}"},
    [HEARTH_CMD_DRAIN_WORKER_RESPONSE] = {
        "{'ok':true,'worker_id':'" WORKER_ID "','draining':true,"
        "'message':'draining: nothing new is placed on it'}"},
    [HEARTH_CMD_RESUME_WORKER] = {"{'worker_id':'" WORKER_ID "'}"},
    [HEARTH_CMD_RESUME_WORKER_RESPONSE] = {
        "{'ok':true,'worker_id':'" WORKER_ID "','draining':false,"
        "'message':'taking work'}"},
};
/* clang-format on */

/* ---------------------------------------------------------------------
   Helpers */

/* Parse a body written with single quotes. */
static cJSON *
s_json (const char *squoted)
{
    char *text = strdup (squoted);
    assert_non_null (text);
    for (char *p = text; *p; p++)
        if (*p == '\'')
            *p = '"';
    cJSON *json = cJSON_Parse (text);
    if (!json)
        fail_msg ("test bug: bad sample JSON: %s", text);
    free (text);
    return json;
}

/* Deterministic contents for frame i of command cmd, NULs included. */
/* The packed frame of the LAUNCH_TASKS and STATUS_UPDATE samples. */
static zframe_t *
s_packed_frame (hearth_cmd_t cmd)
{
    hearth_packer_t p = {0};
    if (cmd == HEARTH_CMD_LAUNCH_TASKS) {
        hearth_packed_task_t t = {3, 0, 0, 60000, "pi_sample", "libpi.so", "3"};
        assert_int_equal (hearth_packer_add_task (&p, &t), 0);
        t = (hearth_packed_task_t){4, 2, -1, 0, "pi_sum", NULL, ""};
        assert_int_equal (hearth_packer_add_task (&p, &t), 0);
    }
    else {
        hearth_packed_update_t u = {.tid = 3,
                                    .attempt = 0,
                                    .state = 3,
                                    .flags = HEARTH_PACKED_RUN_US,
                                    .run_us = 1234,
                                    .result_frame = -1,
                                    .result = "3.14\n",
                                    .result_len = 5};
        assert_int_equal (hearth_packer_add_update (&p, &u), 0);
        u = (hearth_packed_update_t){.tid = 4,
                                     .attempt = 2,
                                     .state = 4,
                                     .flags = HEARTH_PACKED_EXIT,
                                     .exit_status = 3,
                                     .error = "exited with status 3",
                                     .result_frame = 0};
        assert_int_equal (hearth_packer_add_update (&p, &u), 0);
    }
    zframe_t *frame = hearth_packer_frame (&p);
    hearth_packer_release (&p);
    assert_non_null (frame);
    return frame;
}

static zframe_t *
s_fill_frame (hearth_cmd_t cmd, size_t i, size_t size)
{
    if (s_samples[cmd].packed == i + 1)
        return s_packed_frame (cmd);
    zframe_t *frame = zframe_new (NULL, size);
    assert_non_null (frame);
    byte *data = zframe_data (frame);
    for (size_t k = 0; k < size; k++)
        data[k] = (byte) ((k * 7 + i * 31 + (size_t) cmd) & 0xff);
    return frame;
}

/* A message for cmd with the given body text and no frames. */
static hearth_msg_t *
s_msg (hearth_cmd_t cmd, const char *squoted)
{
    hearth_msg_t *msg = hearth_msg_new (cmd);
    assert_non_null (msg);
    cJSON_Delete (msg->body);
    msg->body = s_json (squoted);
    return msg;
}

/* The sample message of cmd, with its frames. */
static hearth_msg_t *
s_sample_msg (hearth_cmd_t cmd)
{
    const s_sample_t *s = &s_samples[cmd];
    if (!s->json)
        fail_msg ("no sample body for command %s: add one to s_samples[]",
                  hearth_cmd_name (cmd));
    hearth_msg_t *msg = s_msg (cmd, s->json);
    for (size_t i = 0; i < s->nframes; i++) {
        zframe_t *frame = s_fill_frame (cmd, i, s->frame_size[i]);
        assert_int_equal (hearth_msg_add_frame (msg, &frame), (int) i);
        assert_null (frame);
    }
    return msg;
}

/* A multipart message of count text frames. */
static zmsg_t *
s_zmsg (int count, ...)
{
    zmsg_t *zmsg = zmsg_new ();
    assert_non_null (zmsg);
    va_list ap;
    va_start (ap, count);
    for (int i = 0; i < count; i++)
        assert_int_equal (zmsg_addstr (zmsg, va_arg (ap, const char *)), 0);
    va_end (ap);
    return zmsg;
}

/* A wire message HEARTH/1, name, body (single quotes), no binary frames. */
static zmsg_t *
s_wire (const char *name, const char *squoted)
{
    char *text = strdup (squoted);
    assert_non_null (text);
    for (char *p = text; *p; p++)
        if (*p == '\'')
            *p = '"';
    zmsg_t *zmsg = s_zmsg (3, HEARTH_PROTO_TAG, name, text);
    free (text);
    return zmsg;
}

/* Append n binary frames of a few bytes to zmsg. */
static void
s_add_frames (zmsg_t *zmsg, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal (zmsg_addstr (zmsg, "payload"), 0);
}

/* Decode zmsg (consumed), expecting failure with code; returns the text
   through err for further checks. */
static void
s_decode_fails (zmsg_t *zmsg, const char *code, hearth_error_t *err)
{
    hearth_error_clear (err);
    hearth_msg_t *msg = hearth_msg_decode (&zmsg, err);
    if (msg) {
        hearth_msg_destroy (&msg);
        fail_msg ("decoding succeeded, expected error %s", code);
    }
    assert_null (zmsg);
    assert_non_null (err->code);
    if (strcmp (err->code, code) != 0)
        fail_msg ("error code %s (%s), expected %s", err->code, err->text,
                  code);
}

/* Decode zmsg (consumed), expecting success. */
static hearth_msg_t *
s_decode_ok (zmsg_t *zmsg)
{
    hearth_error_t err = {NULL, ""};
    hearth_msg_t *msg = hearth_msg_decode (&zmsg, &err);
    if (!msg)
        fail_msg ("decoding failed: %s: %s", err.code, err.text);
    assert_null (zmsg);
    return msg;
}

/* Does a field list (recursively) contain a binary-frame field? */
static bool
s_has_frame_field (const hearth_field_t *fields)
{
    for (const hearth_field_t *f = fields; f && f->name; f++) {
        if (f->type == HEARTH_F_FRAME)
            return true;
        bool container = f->type == HEARTH_F_ARRAY || f->type == HEARTH_F_MAP;
        if (container && f->sub && f->sub[0].type == HEARTH_F_FRAME)
            return true;
        const hearth_field_t *sub = container && f->sub          ? f->sub[0].sub
                                    : f->type == HEARTH_F_OBJECT ? f->sub
                                                                 : NULL;
        if (sub && s_has_frame_field (sub))
            return true;
    }
    return false;
}

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
    const s_sample_t *s = &s_samples[cmd];
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
    const s_sample_t *s = &s_samples[cmd];
    hearth_msg_t *msg = s_sample_msg (cmd);
    cJSON *expected = cJSON_Duplicate (msg->body, true);
    hearth_error_t err = {NULL, ""};
    zmsg_t *zmsg = hearth_msg_encode (&msg, &err);
    if (!zmsg)
        fail_msg ("encoding %s failed: %s", hearth_cmd_name (cmd), err.text);
    assert_null (msg);
    s_check_wire (zmsg, cmd, expected);

    hearth_msg_t *back = s_decode_ok (zmsg);
    assert_int_equal (back->cmd, cmd);
    if (!cJSON_Compare (back->body, expected, true))
        fail_msg ("%s: body changed in the round trip", hearth_cmd_name (cmd));
    assert_int_equal (back->nframes, s->nframes);
    for (size_t i = 0; i < s->nframes; i++) {
        zframe_t *want = s_fill_frame (cmd, i, s->frame_size[i]);
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
        hearth_msg_t *msg = s_sample_msg ((hearth_cmd_t) c);
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
        if (s_has_frame_field (schema) && msg->nframes == 0)
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
            hearth_msg_t *msg = s_sample_msg ((hearth_cmd_t) c);
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
            hearth_msg_t *msg = s_sample_msg ((hearth_cmd_t) c);
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
    hearth_msg_t *msg = s_decode_ok (
        s_wire ("KILL_TASK", "{'tid':3,'attempt':0,'future':{'x':[1,2]},"
                             "'priority':'high'}"));
    assert_int_equal (hearth_json_int (msg->body, "tid", -1), 3);
    assert_string_equal (hearth_json_str (msg->body, "priority"), "high");
    hearth_msg_destroy (&msg);
}

/* ---------------------------------------------------------------------
   Rejections at the frame level */

static void
test_wrong_version (void **state)
{
    (void) state;
    hearth_error_t err;
    s_decode_fails (s_zmsg (3, "HEARTH/2", "HEARTBEAT", "{}"), "bad_version",
                    &err);
    assert_contains (err.text, "HEARTH/2");
    assert_contains (err.text, "not supported");
    assert_contains (err.text, HEARTH_PROTO_TAG);
    /* the version is checked before anything else, even when truncated */
    s_decode_fails (s_zmsg (1, "HEARTH/10"), "bad_version", &err);
    assert_contains (err.text, "HEARTH/10");
    s_decode_fails (s_zmsg (3, "HEARTH/", "HEARTBEAT", "{}"), "bad_version",
                    &err);
}

static void
test_not_hearth (void **state)
{
    (void) state;
    hearth_error_t err;
    s_decode_fails (s_zmsg (3, "GET / HTTP/1.1", "Host: x", "{}"),
                    "bad_protocol", &err);
    assert_contains (err.text, "not a Hearth message");
    assert_contains (err.text, HEARTH_PROTO_TAG);
    s_decode_fails (s_zmsg (3, "", "HEARTBEAT", "{}"), "bad_protocol", &err);
    s_decode_fails (s_zmsg (3, "hearth/1", "HEARTBEAT", "{}"), "bad_protocol",
                    &err);
    s_decode_fails (s_zmsg (2, "HEART", "x"), "bad_protocol", &err);
}

static void
test_unknown_command (void **state)
{
    (void) state;
    hearth_error_t err;
    s_decode_fails (s_wire ("FROBNICATE", "{}"), "unknown_command", &err);
    assert_string_equal (err.text, "unknown command 'FROBNICATE'");
    s_decode_fails (s_wire ("heartbeat", "{}"), "unknown_command", &err);
    assert_contains (err.text, "'heartbeat'");
    s_decode_fails (s_wire ("", "{}"), "unknown_command", &err);
    /* unprintable bytes are shown as '?' */
    zmsg_t *zmsg = s_zmsg (1, HEARTH_PROTO_TAG);
    zmsg_addmem (zmsg, "HEARTBEAT\0\n", 11);
    zmsg_addstr (zmsg, "{}");
    s_decode_fails (zmsg, "unknown_command", &err);
    assert_contains (err.text, "'HEARTBEAT?"
                               "?'");
}

static void
test_truncated (void **state)
{
    (void) state;
    hearth_error_t err;
    s_decode_fails (zmsg_new (), "truncated", &err);
    assert_contains (err.text, "at least 3 frames");
    assert_contains (err.text, "got 0");
    s_decode_fails (s_zmsg (1, HEARTH_PROTO_TAG), "truncated", &err);
    assert_contains (err.text, "got 1");
    s_decode_fails (s_zmsg (2, HEARTH_PROTO_TAG, "HEARTBEAT"), "truncated",
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
    s_decode_fails (s_wire ("HEARTBEAT", "{'id': "), "bad_json", &err);
    assert_string_equal (err.text, "body is not valid JSON");
    s_decode_fails (s_wire ("HEARTBEAT", ""), "bad_json", &err);
    s_decode_fails (s_wire ("HEARTBEAT", "{id: 1}"), "bad_json", &err);
    s_decode_fails (s_wire ("HEARTBEAT", "{'a':1,}"), "bad_json", &err);
    /* trailing garbage, a second value, a NUL after the object */
    s_decode_fails (s_wire ("HEARTBEAT", "{} x"), "bad_json", &err);
    s_decode_fails (s_wire ("HEARTBEAT", "{}{}"), "bad_json", &err);
    zmsg_t *zmsg = s_zmsg (2, HEARTH_PROTO_TAG, "HEARTBEAT");
    zmsg_addmem (zmsg, "{}\0", 3);
    s_decode_fails (zmsg, "bad_json", &err);
    /* trailing white space is fine */
    hearth_msg_t *msg = s_decode_ok (s_wire ("HEARTBEAT", " {} \r\n\t"));
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
        s_decode_fails (s_wire ("MASTER_STATE", bodies[i]), "bad_json", &err);
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
    zmsg_t *zmsg = s_zmsg (2, HEARTH_PROTO_TAG, "HEARTBEAT");
    zmsg_append (zmsg, &body);
    hearth_error_t err;
    s_decode_fails (zmsg, "too_large", &err);
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
        s_decode_ok (s_zmsg (3, HEARTH_PROTO_TAG, "HEARTBEAT", ok));
    hearth_msg_destroy (&msg);
    free (ok);

    char *deep = s_nested (HEARTH_MAX_DEPTH + 1);
    hearth_error_t err;
    s_decode_fails (s_zmsg (3, HEARTH_PROTO_TAG, "HEARTBEAT", deep), "too_deep",
                    &err);
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
        s_decode_ok (s_zmsg (3, HEARTH_PROTO_TAG, "ERROR", body));
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
    s_decode_fails (
        s_wire ("LAUNCH_TASKS", "{'tasks':[{'attempt':0,'fn':'f'}]}"),
        "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: missing required field "
                                   "'tasks[0].tid'");
    s_decode_fails (s_wire ("HEARTBEAT",
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
    s_decode_fails (s_wire ("KILL_TASK", "{'tid':'7','attempt':0}"),
                    "bad_field", &err);
    assert_string_equal (err.text, "KILL_TASK: field 'tid': expected an "
                                   "integer 0..9007199254740991, got \"7\"");
    s_decode_fails (s_wire ("EXECUTOR_UPDATED",
                            "{'exec_id':1,'state':'LOST','worker_lost':'yes'}"),
                    "bad_field", &err);
    assert_contains (err.text,
                     "field 'worker_lost': expected a boolean, got \"yes\"");
    s_decode_fails (s_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                            "'cmd':['sh',7]}]}"),
                    "bad_field", &err);
    assert_contains (err.text, "field 'tasks[0].cmd[1]': expected a string of "
                               "1 to 65536 bytes, got 7");
    s_decode_fails (s_wire ("KILL_TASK", "{'tid':null,'attempt':0}"),
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
         "field 'name': expected a string of 1 to 255 bytes, got \"\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hearth_error_t err;
        s_decode_fails (s_wire ("REGISTER_APPLICATION", cases[i].body),
                        "bad_field", &err);
        assert_contains (err.text, cases[i].text);
    }
    hearth_error_t err;
    s_decode_fails (s_wire ("EXECUTOR_UPDATED", "{'exec_id':1,'state':'GONE'}"),
                    "bad_field", &err);
    assert_contains (err.text, "field 'state': expected one of LAUNCHING, "
                               "RUNNING, EXITED, KILLED, FAILED, LOST, got "
                               "\"GONE\"");
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
    s_decode_fails (s_wire ("REGISTER_WORKER", body), "bad_field", &err);
    assert_string_equal (err.text, "REGISTER_WORKER: field 'host': expected a "
                                   "string of 1 to 255 bytes, got a string of "
                                   "256 bytes");
    host[255] = '\0'; /* 255 bytes is fine */
    snprintf (body, sizeof body,
              "{'id':'" WORKER_ID "','host':'%s','cores':1,'memory_mb':1,"
              "'version':'0.1.0'}",
              host);
    hearth_msg_t *msg = s_decode_ok (s_wire ("REGISTER_WORKER", body));
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
        s_decode_fails (s_wire ("KILL_APPLICATION", body), "bad_field", &err);
        assert_contains (err.text, "field 'app_id': expected a valid id, got ");
    }
    hearth_error_t err;
    s_decode_fails (s_wire ("KILL_APPLICATION", "{'app_id':'../x'}"),
                    "bad_field", &err);
    assert_contains (err.text, "got \"../x\"");
    /* a file name that would escape the work directory */
    s_decode_fails (s_wire ("SUBMIT_DRIVER",
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
    zmsg_t *zmsg = s_wire (
        "LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,'fn':'f','input':1}]}");
    s_add_frames (zmsg, 1);
    s_decode_fails (zmsg, "bad_frame", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field 'tasks[0].input': "
                                   "expected a binary frame index 0..0, got 1");

    zmsg = s_wire ("LAUNCH_TASKS",
                   "{'tasks':[{'tid':1,'attempt':0,'fn':'f','input':-1}]}");
    s_add_frames (zmsg, 2);
    s_decode_fails (zmsg, "bad_frame", &err);
    assert_contains (err.text, "expected a binary frame index 0..1, got -1");

    s_decode_fails (s_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                            "'fn':'f','input':0}]}"),
                    "bad_frame", &err);
    assert_contains (err.text, "field 'tasks[0].input': expected a binary "
                               "frame index (there are none), got 0");

    zmsg = s_wire ("STATUS_UPDATE", "{'updates':[{'tid':1,'attempt':0,"
                                    "'state':'FINISHED','result':0.5}]}");
    s_add_frames (zmsg, 1);
    s_decode_fails (zmsg, "bad_frame", &err);
    assert_contains (err.text, "got 0.5");

    zmsg = s_wire ("DRIVER_LOG_RESPONSE", "{'ok':true,'data':1}");
    s_add_frames (zmsg, 2);
    hearth_msg_t *msg = s_decode_ok (zmsg);
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
    s_decode_fails (s_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                            "'fn':'f'},{'tid':2,'attempt':0,"
                                            "'cmd':['ls'],'fn':'g'}]}"),
                    "bad_field", &err);
    assert_string_equal (err.text, "LAUNCH_TASKS: field 'tasks[1]': expected "
                                   "exactly one of 'cmd' and 'fn', got both");
    s_decode_fails (
        s_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0}]}"),
        "bad_field", &err);
    assert_contains (err.text, "field 'tasks[0]': expected exactly one of "
                               "'cmd' and 'fn', got neither");
    s_decode_fails (
        s_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,'cmd':[]}]}"),
        "bad_field", &err);
    assert_contains (err.text, "field 'tasks[0].cmd': expected a non-empty "
                               "argv, got an empty array");
    /* names are case-sensitive: "CMD" is an unknown field, not "cmd" */
    s_decode_fails (s_wire ("LAUNCH_TASKS", "{'tasks':[{'tid':1,'attempt':0,"
                                            "'CMD':['ls']}]}"),
                    "bad_field", &err);
    assert_contains (err.text, "got neither");
    hearth_msg_t *msg = s_decode_ok (
        s_wire ("LAUNCH_TASKS",
                "{'tasks':[{'tid':1,'attempt':0,'FN':'x','cmd':['ls']}]}"));
    hearth_msg_destroy (&msg);
}

/* An invalid body fails at the sender, and everything is freed (the
   sanitizers' leak check verifies the frames and the body). */
static void
test_encode_invalid (void **state)
{
    (void) state;
    hearth_msg_t *msg = s_msg (HEARTH_CMD_REGISTER_WORKER,
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
    hearth_msg_t *back = s_decode_ok (zmsg);
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
    cJSON *obj = s_json ("{'s':'text','i':42,'b':true,'n':null}");
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
    hearth_msg_t *msg = s_sample_msg (HEARTH_CMD_LAUNCH_TASKS);
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
    assert_int_equal (msg->nframes, 3);
    zframe_t *want = s_fill_frame (HEARTH_CMD_LAUNCH_TASKS, 1, 300);
    assert_true (zframe_eq (hearth_msg_frame (msg, 1), want));
    zframe_destroy (&want);
    hearth_msg_destroy (&msg);
    cJSON_Delete (expected);

    /* the reply goes back to that routing id */
    msg = s_sample_msg (HEARTH_CMD_REGISTERED_EXECUTOR);
    assert_int_equal (hearth_msg_send (&msg, pair->router, rid, &err), 0);
    assert_true (zframe_streq (rid, "peer-1")); /* borrowed, not consumed */
    zframe_destroy (&rid);
    msg = hearth_msg_recv (pair->dealer, NULL, &err);
    assert_non_null (msg);
    assert_int_equal (msg->cmd, HEARTH_CMD_REGISTERED_EXECUTOR);
    assert_int_equal (zframe_size (hearth_msg_frame (msg, 0)), 16384);
    hearth_msg_destroy (&msg);
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
    hearth_msg_t *msg = s_sample_msg (HEARTH_CMD_HEARTBEAT);
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
    zmsg_t *junk = s_zmsg (2, "GET / HTTP/1.1", "Host: example.com");
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
    junk = s_zmsg (3, "HEARTH/2", "HEARTBEAT", "{}");
    assert_int_equal (zmsg_send (&junk, pair->dealer), 0);
    assert_null (hearth_msg_recv (pair->router, &rid, &err));
    assert_string_equal (err.code, "bad_version");
    assert_true (zframe_streq (rid, "peer-1"));
    zframe_destroy (&rid);
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
        cmocka_unit_test (test_oversize_string),
        cmocka_unit_test (test_bad_ids),
        cmocka_unit_test (test_frame_index),
        cmocka_unit_test (test_task_cmd_or_fn),
        cmocka_unit_test (test_encode_invalid),
        cmocka_unit_test (test_frames_grow),
        cmocka_unit_test (test_json_readers),
    };
    const struct CMUnitTest sockets[] = {
        cmocka_unit_test (test_send_recv),
        cmocka_unit_test (test_send_invalid),
        cmocka_unit_test (test_send_error),
        cmocka_unit_test (test_recv_garbage),
    };
    int failed = cmocka_run_group_tests_name ("proto codec", codec, NULL, NULL);
    failed += cmocka_run_group_tests_name ("proto sockets", sockets,
                                           s_pair_setup, s_pair_teardown);
    return failed ? 1 : 0;
}

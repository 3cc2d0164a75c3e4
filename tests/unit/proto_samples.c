/*  proto_samples.c - the codec tests' samples and helpers; see
    proto_samples.h. */
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

/* clang-format off */
const pt_sample_t pt_samples[HEARTH_CMD_COUNT] = {
    [HEARTH_CMD_ERROR] = {
        "{'code':'bad_version','message':'protocol version HEARTH/2 is not "
        "supported','command':'REGISTER_WORKER',"
        "'leader':'tcp://10.0.0.2:7077'}"},
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
        "'state':'RUNNING'}],'drivers':[],'resources':{'gpu':['0','1']}}"},
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
        "'name':'pi','curve_secret':'JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6'}",
        2, {211, 4099}},
    [HEARTH_CMD_KILL_DRIVER] = {"{'driver_id':'" DRIVER_ID "'}"},
    [HEARTH_CMD_DRIVER_STATE_CHANGED] = {
        "{'driver_id':'" DRIVER_ID "','state':'FINISHED','exit_status':0,"
        "'pid':5000}"},
    [HEARTH_CMD_DRIVER_APPLICATION] = {
        "{'driver_id':'" DRIVER_ID "','app_id':'" APP_ID "'}"},
    [HEARTH_CMD_REGISTER_APPLICATION] = {
        "{'name':'pi','max_cores':16,'cores_per_executor':2,"
        "'memory_per_executor_mb':1024,'driver_url':'tcp://10.0.0.5:41234',"
        "'user':'alice'}"},
    [HEARTH_CMD_REGISTERED_APPLICATION] = {
        "{'app_id':'" APP_ID "','heartbeat_interval_ms':1000,"
        "'heartbeat_liveness':5,'driver_epoch':2,'resumed':true,'token':'s3cret'}"},
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
        "'app_id':'" APP_ID "','launches':1,'supervise':false,"
        "'progress':{'time_ms':1796000000000,'jobs_active':1,"
        "'tasks_total':120,'tasks_finished':57,'tasks_failed':2,"
        "'tasks_running':4,'stages':[]}}"},
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
        "'cores':4,'pid':4243,'token':'s3cr3t',"
        "'shuffle_url':'tcp://node1.example.com:41000',"
        "'shuffle_key':'rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7'}"},
    [HEARTH_CMD_REGISTERED_EXECUTOR] = {
        "{'libs':[{'name':'libpi.so','hash':'sha256:9f86d081884c7d65',"
        "'size':16384}],'heartbeat_interval_ms':1000,"
        "'heartbeat_liveness':5,'max_result_bytes':1048576,"
        "'files':[{'name':'data.txt',"
        "'hash':'D046CD9B7FFB7661E449683313D41F6FC33E3130','size':100,"
        "'mode':384}],'ship_start':500000,"
        "'broadcast':[{'name':'REF',"
        "'hash':'D046CD9B7FFB7661E449683313D41F6FC33E3130','size':100}]}"},
    [HEARTH_CMD_LAUNCH_TASKS] = {
        "{'tasks':[{'tid':0,'attempt':0,'fn':'pi_sample','lib':'libpi.so',"
        "'arg':'0','input':0,'timeout_ms':60000},"
        "{'tid':1,'attempt':1,'cmd':['sh','-c','wc -c'],"
        "'env':{'LC_ALL':'C'},'input':1},"
        "{'tid':8589934592,'attempt':0,'cmd':['sort'],"
        "'reduce':{'shuffle':1,'partition':0,'sort':true,"
        "'servers':[{'url':'tcp://node2.example.com:41000'}],'blocks':3},"
        "'map':{'shuffle':2,'partitions':8,'sort':false}},"
        "{'tid':12884901888,'attempt':0,'fn':'wc_sum','output':"
        "'/data/out/_temporary/part-00000.0','commit_to':"
        "'/data/out/part-00000'}],'packed':2}",
        4, {8, 300, 0, 32}, 3},
    [HEARTH_CMD_KILL_TASK] = {"{'tid':1,'attempt':1}"},
    [HEARTH_CMD_ASK_COMMIT] = {"{'tid':12884901888,'attempt':0}"},
    [HEARTH_CMD_COMMIT_ANSWER] = {
        "{'tid':12884901888,'attempt':0,'allowed':true}"},
    [HEARTH_CMD_STOP_EXECUTOR] = {"{'reason':'application finished'}"},
    [HEARTH_CMD_STATUS_UPDATE] = {
        "{'updates':[{'tid':0,'attempt':0,'state':'FINISHED','exit_status':0,"
        "'run_us':1234,'result':0},{'tid':1,'attempt':1,'state':'FAILED',"
        "'exit_status':1,'error':'exited with status 1','result':1,"
        "'truncated':true},{'tid':2,'attempt':0,'state':'RUNNING'},"
        "{'tid':8589934592,'attempt':0,'state':'FINISHED','run_us':99,"
        "'map_sizes':0,'map_bytes':1000},{'tid':8589934593,'attempt':0,"
        "'state':'FAILED','error':'map output 1.0 of tcp://n:1: no such map "
        "output','fetch_failed':{'shuffle':1,'map':1,'attempt':0,"
        "'url':'tcp://n:1'}},{'tid':12884901888,'attempt':0,"
        "'state':'FINISHED','output_bytes':12}],"
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
    [HEARTH_CMD_FETCH_BLOCK] = {
        "{'app_id':'" APP_ID "','token':'Zk8s2Jd','shuffle':3,'map':41,"
        "'attempt':1,'partition':7,'offset':0,'max_bytes':4194304,"
        "'request':12}"},
    [HEARTH_CMD_BLOCK_DATA] = {
        "{'request':12,'offset':0,'length':70000,'eof':false,'data':0}",
        1, {4096}},
    [HEARTH_CMD_APPLICATION_PROGRESS] = {
        "{'app_id':'" APP_ID "','jobs_active':1,'tasks_total':120,"
        "'tasks_finished':57,'tasks_failed':2,'tasks_running':4,"
        "'stages':[{'job':1,'stage':2,'name':'reduce','tasks':20,"
        "'finished':7,'running':4,'failed':1}],"
        "'waiting':[{'job':1,'stage':3,'name':'top','tasks':1,"
        "'finished':0,'running':0,'failed':0}],"
        "'completed':[{'job':1,'stage':1,'name':'map','tasks':100,"
        "'finished':100,'running':0,'failed':1}],"
        "'timeline':{'now_ms':5400,'cut':3,"
        "'attempts':[[0,1,99,0,5100,5350,0],[1,2,4,1,5200,5390,1]],"
        "'executors':[{'id':1,'cores':4,'host':'node-2','added_ms':120},"
        "{'id':0,'cores':4,'host':'node-1','added_ms':100,"
        "'removed_ms':5300,'reason':'worker w1 lost'}],"
        "'stages':[{'id':2,'name':'reduce','start_ms':5000},"
        "{'id':1,'name':'map','end_ms':5010,'state':'SUCCEEDED'}]}}"},
    [HEARTH_CMD_APPLICATION_WAITING] = {
        "{'app_id':'" APP_ID "','reason':'each executor asks for 2 gpu; "
        "the most any worker has is 1'}"},
    [HEARTH_CMD_REQUEST_EXECUTORS] = {
        "{'app_id':'" APP_ID "','total':4,"
        "'places':{'node7':12,'zone=b':3}}"},
    [HEARTH_CMD_KILL_EXECUTORS] = {
        "{'app_id':'" APP_ID "','exec_ids':[2,5]}"},
    [HEARTH_CMD_WORKER_DECOMMISSIONING] = {
        "{'id':'node-a','reason':'SIGTERM','timeout_ms':30000}"},
    [HEARTH_CMD_EXECUTOR_DECOMMISSIONING] = {
        "{'app_id':'" APP_ID "','exec_id':3,'reason':'SIGTERM',"
        "'worker_id':'" WORKER_ID "','timeout_ms':30000}"},
    [HEARTH_CMD_DECOMMISSION_WORKER] = {
        "{'worker_id':'" WORKER_ID "','reason':'kernel update',"
        "'timeout_ms':60000}"},
    [HEARTH_CMD_DECOMMISSION_WORKER_RESPONSE] = {
        "{'ok':true,'worker_id':'" WORKER_ID "','state':'DECOMMISSIONING',"
        "'message':'decommissioning'}"},
    [HEARTH_CMD_DECOMMISSION] = {
        "{'reason':'kernel update','timeout_ms':60000}"},
    [HEARTH_CMD_FOLLOW_JOURNAL] = {
        "{'stream':'5f1c2e9a0b3d4c6e','url':'tcp://10.0.0.3:7077'}"},
    [HEARTH_CMD_JOURNAL_DATA] = {
        "{'stream':'5f1c2e9a0b3d4c6e','seq':0,'snapshot':true,'last':true,"
        "'records':[{'t':'worker','id':'" WORKER_ID "'}],"
        "'files':[{'driver_id':'" DRIVER_ID "','first':0,"
        "'count':2}]}",
        2, {120, 0}},
    [HEARTH_CMD_FETCH_FILE] = {
        "{'hash':'D046CD9B7FFB7661E449683313D41F6FC33E3130',"
        "'offset':4194304,'length':4194304,'request':7,'force':true,"
        "'app_id':'" APP_ID "','token':'tok','name':'data.txt'}"},
    [HEARTH_CMD_FILE_CHUNK] = {
        "{'hash':'D046CD9B7FFB7661E449683313D41F6FC33E3130','request':7,"
        "'offset':4194304,'crc32c':3808858755,'data':0}",
        1, {4096}},
    [HEARTH_CMD_FILE_HOLDERS] = {
        "{'hash':'D046CD9B7FFB7661E449683313D41F6FC33E3130','request':7,"
        "'offset':4194304,'holders':[{'url':'tcp://10.0.0.2:7078',"
        "'key':'rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7'}]}"},
    [HEARTH_CMD_FILE_HELD] = {
        "{'hash':'D046CD9B7FFB7661E449683313D41F6FC33E3130'}"},
    [HEARTH_CMD_BROADCAST] = {
        "{'broadcast':[{'name':'REF',"
        "'hash':'D046CD9B7FFB7661E449683313D41F6FC33E3130','size':100}]}"},
    [HEARTH_CMD_OUTPUTS_RECORDED] = {
        "{'app_id':'" APP_ID "','driver_epoch':2,'outputs':["
        "{'stage':'9f86d081884c7d65','kind':'map','index':3,'attempt':0,"
        "'shuffle_id':4,'worker_id':'" WORKER_ID "',"
        "'server':'tcp://10.0.0.7:7079','sizes':[10,0,7]},"
        "{'stage':'60303ae22b998861','kind':'part','index':0,"
        "'name':'part-00000','host':'node7','bytes':1234},"
        "{'stage':'9f86d081884c7d65','kind':'map','index':1,'lost':true}]}"},
    [HEARTH_CMD_APPLICATION_OUTPUTS] = {
        "{'app_id':'" APP_ID "','outputs':[{'stage':'9f86d081884c7d65',"
        "'kind':'map','index':3,'shuffle_id':4,'worker_id':'" WORKER_ID "',"
        "'sizes':[10,0,7]}],'last':true,'max_shuffle_id':4}"},
};
/* clang-format on */

/* ---------------------------------------------------------------------
   Helpers */

/* Parse a body written with single quotes. */
cJSON *
pt_json (const char *squoted)
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
zframe_t *
pt_packed_frame (hearth_cmd_t cmd)
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

/* A reduce role's blocks frame of size / 16 map tasks: server 0 or none,
   attempts and lengths that vary. */
zframe_t *
pt_blocks_frame (size_t size)
{
    zframe_t *frame = zframe_new (NULL, size);
    assert_non_null (frame);
    byte *data = zframe_data (frame);
    memset (data, 0, size);
    for (size_t m = 0; m < size / HEARTH_BLOCK_RECORD; m++) {
        byte *r = data + m * HEARTH_BLOCK_RECORD;
        if (m % 2)
            memset (r, 0xff, 4); /* on the reducer's node */
        r[4] = (byte) m;         /* attempt */
        r[8] = (byte) (100 + m); /* length */
    }
    return frame;
}

zframe_t *
pt_fill_frame (hearth_cmd_t cmd, size_t i, size_t size)
{
    if (pt_samples[cmd].packed == i + 1)
        return pt_packed_frame (cmd);
    if (cmd == HEARTH_CMD_LAUNCH_TASKS && i == 3)
        return pt_blocks_frame (size);
    zframe_t *frame = zframe_new (NULL, size);
    assert_non_null (frame);
    byte *data = zframe_data (frame);
    for (size_t k = 0; k < size; k++)
        data[k] = (byte) ((k * 7 + i * 31 + (size_t) cmd) & 0xff);
    return frame;
}

/* A message for cmd with the given body text and no frames. */
hearth_msg_t *
pt_msg (hearth_cmd_t cmd, const char *squoted)
{
    hearth_msg_t *msg = hearth_msg_new (cmd);
    assert_non_null (msg);
    cJSON_Delete (msg->body);
    msg->body = pt_json (squoted);
    return msg;
}

/* The sample message of cmd, with its frames. */
hearth_msg_t *
pt_sample_msg (hearth_cmd_t cmd)
{
    const pt_sample_t *s = &pt_samples[cmd];
    if (!s->json)
        fail_msg ("no sample body for command %s: add one to pt_samples[]",
                  hearth_cmd_name (cmd));
    hearth_msg_t *msg = pt_msg (cmd, s->json);
    for (size_t i = 0; i < s->nframes; i++) {
        zframe_t *frame = pt_fill_frame (cmd, i, s->frame_size[i]);
        assert_int_equal (hearth_msg_add_frame (msg, &frame), (int) i);
        assert_null (frame);
    }
    return msg;
}

/* A multipart message of count text frames. */
zmsg_t *
pt_zmsg (int count, ...)
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
zmsg_t *
pt_wire (const char *name, const char *squoted)
{
    char *text = strdup (squoted);
    assert_non_null (text);
    for (char *p = text; *p; p++)
        if (*p == '\'')
            *p = '"';
    zmsg_t *zmsg = pt_zmsg (3, HEARTH_PROTO_TAG, name, text);
    free (text);
    return zmsg;
}

/* Append n binary frames of a few bytes to zmsg. */
void
pt_add_frames (zmsg_t *zmsg, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal (zmsg_addstr (zmsg, "payload"), 0);
}

/* Decode zmsg (consumed), expecting failure with code; returns the text
   through err for further checks. */
void
pt_decode_fails (zmsg_t *zmsg, const char *code, hearth_error_t *err)
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
hearth_msg_t *
pt_decode_ok (zmsg_t *zmsg)
{
    hearth_error_t err = {NULL, ""};
    hearth_msg_t *msg = hearth_msg_decode (&zmsg, &err);
    if (!msg)
        fail_msg ("decoding failed: %s: %s", err.code, err.text);
    assert_null (zmsg);
    return msg;
}

/* Does one field or element (recursively) hold a binary frame? */
static bool
s_has_frame (const hearth_field_t *f)
{
    if (f->type == HEARTH_F_FRAME)
        return true;
    if ((f->type == HEARTH_F_ARRAY || f->type == HEARTH_F_MAP) && f->sub)
        return s_has_frame (&f->sub[0]); /* one element descriptor */
    return f->type == HEARTH_F_OBJECT && pt_has_frame_field (f->sub);
}

/* Does a field list (recursively) contain a binary-frame field? */
bool
pt_has_frame_field (const hearth_field_t *fields)
{
    for (const hearth_field_t *f = fields; f && f->name; f++)
        if (s_has_frame (f))
            return true;
    return false;
}

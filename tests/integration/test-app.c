/*  test-app.c - a small driver for the integration tests, until libhearth
    exists: registers an application with the master, prints what the
    master tells it, one line each, and plays the driver's part for
    executors (answers REGISTER_EXECUTOR, heartbeats them).

        test-app --master URL [--name N] [--max-cores N]
                 [--cores-per-executor N] [--memory-mb N] [--token T]
                 [--conf KEY=VALUE]... [--stop-executors]
                 [--driver-url URL]   (register URL: executors go there)
                 [--driver-id ID]     (say it is cluster-mode driver ID's)
                 [--app-id ID]        (register under that id: claim it)

        test-app --master URL --kill APP_ID    KILL_APPLICATION, prints
                                               "KILL ok=0|1 MESSAGE"
        test-app --master URL --unregister APP_ID
                                               UNREGISTER_APPLICATION of
                                               another's application: prints
                                               "UNREGISTER ERROR CODE MESSAGE"
                                               or "UNREGISTER no answer"
        test-app --master URL --progress APP_ID
                                               APPLICATION_PROGRESS of
                                               another's application: prints
                                               "PROGRESS ERROR CODE MESSAGE"
                                               or "PROGRESS no answer"
        (--curve-secret FILE --master-key FILE: talk to the master over
        CURVE with that key.)
        --unchecked                            send the registration raw,
                                               without the sender's schema
                                               check (a hostile driver's:
                                               --name with control
                                               characters)
        --final-message TEXT                   UNREGISTER_APPLICATION's
                                               message on SIGTERM
        test-app --master URL --garbage        sends malformed and hostile
                                               messages, prints each ERROR's
                                               "ERROR_MESSAGE TEXT", "ERRORS N"
                                               and "STATE_OK" when the master
                                               still answers MASTER_STATE
        test-app --master URL --fake-master TAG
                                               a master of another protocol
                                               version: prints "FAKE_MASTER
                                               URL", answers every message
                                               there with ERROR bad_version
                                               in frames tagged TAG, for 10 s
                                               (--fake-error TEXT: ERROR
                                               refused TEXT instead)

    Output lines (stdout, flushed):
        REGISTERED APP_ID
        ERROR CODE MESSAGE                    the master refused a message
        EXECUTOR_ADDED EXEC_ID WORKER_ID HOST CORES MEMORY_MB
        EXECUTOR_UPDATED EXEC_ID STATE worker_lost=0|1 MESSAGE
        EXECUTOR_REGISTERED EXEC_ID PID HOST CORES
        APPLICATION_REMOVED STATE REASON      (then exits 0)

    SIGTERM or SIGINT: UNREGISTER_APPLICATION (FINISHED) and exit 0.  With
    --stop-executors, each executor gets STOP_EXECUTOR right after its
    registration is answered.
*/
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libcore/conf.h"
#include "libcore/curve.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "libcore/spawn.h"

#define OPT(n, t, d, h)                                                        \
    {                                                                          \
        .name = n, .type = t, .dflt = d, .help = h                             \
    }

static const hearth_opt_t s_opts[] = {
    OPT ("master", HEARTH_OPT_STR, NULL, "master URL"),
    OPT ("name", HEARTH_OPT_STR, "test-app", "application name"),
    OPT ("max-cores", HEARTH_OPT_INT, NULL, "max_cores"),
    OPT ("cores-per-executor", HEARTH_OPT_INT, NULL, "cores_per_executor"),
    OPT ("memory-mb", HEARTH_OPT_INT, NULL, "memory_per_executor_mb"),
    OPT ("token", HEARTH_OPT_STR, NULL, "token for executors"),
    OPT ("driver-url", HEARTH_OPT_STR, NULL,
         "the driver_url to register (executors go there, not to us)"),
    OPT ("driver-id", HEARTH_OPT_STR, NULL,
         "the driver_id to register: claim to be that cluster-mode driver"),
    OPT ("app-id", HEARTH_OPT_STR, NULL,
         "the app_id to register under: claim that application's id"),
    OPT ("interval", HEARTH_OPT_DURATION, "200ms", "heartbeat interval"),
    OPT ("stop-executors", HEARTH_OPT_BOOL, NULL,
         "send STOP_EXECUTOR to each executor once registered"),
    OPT ("kill", HEARTH_OPT_STR, NULL, "send KILL_APPLICATION for this id"),
    OPT ("unregister", HEARTH_OPT_STR, NULL,
         "send UNREGISTER_APPLICATION for this id"),
    OPT ("progress", HEARTH_OPT_STR, NULL,
         "send APPLICATION_PROGRESS for this id"),
    HEARTH_CURVE_CLIENT_OPTIONS,
    OPT ("garbage", HEARTH_OPT_BOOL, NULL, "send malformed messages"),
    OPT ("fake-master", HEARTH_OPT_STR, NULL,
         "be a master speaking this protocol tag"),
    OPT ("fake-error", HEARTH_OPT_STR, NULL,
         "with --fake-master: answer ERROR refused with this message"),
    OPT ("unchecked", HEARTH_OPT_BOOL, NULL,
         "send the registration as it is, without the sender's schema "
         "check (a hostile driver's)"),
    OPT ("final-message", HEARTH_OPT_STR, NULL,
         "the message of UNREGISTER_APPLICATION on SIGTERM"),
    {.name = NULL},
};

typedef struct {
    hearth_conf_t *conf;  /* settings */
    zsock_t *master;      /* DEALER to the master */
    zsock_t *executors;   /* ROUTER for executors */
    char driver_url[300]; /* where executors connect */
    char app_id[160];     /* once registered */
    zlistx_t *exec_ids;   /* routing ids of executors (zframe_t *) */
    int64_t next_beat_ms; /* next heartbeat */
    int sigfd;            /* SIGTERM, SIGINT */
    bool removed;         /* APPLICATION_REMOVED arrived: exit */
    hearth_curve_t curve; /* keys toward the master, if given */
} app_t;

static int64_t
s_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
s_send (zsock_t *sock, zframe_t *rid, hearth_msg_t *msg)
{
    hearth_error_t err;
    if (hearth_msg_send (&msg, sock, rid, &err) < 0)
        fprintf (stderr, "test-app: %s\n", err.text);
}

/* Send msg (consumed) as it is: its body printed by cJSON, no schema
   check at this end. */
static void
s_send_unchecked (zsock_t *sock, hearth_msg_t *msg)
{
    char *body = cJSON_PrintUnformatted (msg->body);
    zmsg_t *z = zmsg_new ();
    zmsg_addstr (z, HEARTH_PROTO_TAG);
    zmsg_addstr (z, hearth_cmd_name (msg->cmd));
    zmsg_addstr (z, body ? body : "{}");
    zmsg_send (&z, sock);
    free (body);
    hearth_msg_destroy (&msg);
}

static void
s_register (app_t *a)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_APPLICATION);
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "name", hearth_conf_str (a->conf, "name"));
    const char *url = hearth_conf_str (a->conf, "driver-url");
    cJSON_AddStringToObject (b, "driver_url", url ? url : a->driver_url);
    const char *ints[][2] = {{"max-cores", "max_cores"},
                             {"cores-per-executor", "cores_per_executor"},
                             {"memory-mb", "memory_per_executor_mb"}};
    for (size_t i = 0; i < 3; i++)
        if (hearth_conf_isset (a->conf, ints[i][0]))
            cJSON_AddNumberToObject (
                b, ints[i][1], (double) hearth_conf_int (a->conf, ints[i][0]));
    if (hearth_conf_str (a->conf, "token"))
        cJSON_AddStringToObject (b, "token",
                                 hearth_conf_str (a->conf, "token"));
    if (hearth_conf_str (a->conf, "driver-id"))
        cJSON_AddStringToObject (b, "driver_id",
                                 hearth_conf_str (a->conf, "driver-id"));
    if (a->app_id[0]) /* again after RECONNECT_APPLICATION: keep the id */
        cJSON_AddStringToObject (b, "app_id", a->app_id);
    else if (hearth_conf_str (a->conf, "app-id"))
        cJSON_AddStringToObject (b, "app_id",
                                 hearth_conf_str (a->conf, "app-id"));
    const char *const *extras;
    size_t n = hearth_conf_extras (a->conf, &extras);
    cJSON *conf = n ? cJSON_AddObjectToObject (b, "conf") : NULL;
    for (size_t i = 0; i < n; i++) {
        char key[256];
        const char *eq = strchr (extras[i], '=');
        snprintf (key, sizeof key, "%.*s", (int) (eq - extras[i]), extras[i]);
        cJSON_AddStringToObject (conf, key, eq + 1);
    }
    if (hearth_conf_bool (a->conf, "unchecked"))
        s_send_unchecked (a->master, msg);
    else
        s_send (a->master, NULL, msg);
}

static void
s_on_master (app_t *a, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    switch (msg->cmd) {
    case HEARTH_CMD_REGISTERED_APPLICATION:
        snprintf (a->app_id, sizeof a->app_id, "%s",
                  hearth_json_str (b, "app_id"));
        printf ("REGISTERED %s\n", a->app_id);
        break;
    case HEARTH_CMD_EXECUTOR_ADDED:
        printf ("EXECUTOR_ADDED %d %s %s %d %d\n",
                (int) hearth_json_int (b, "exec_id", -1),
                hearth_json_str (b, "worker_id"), hearth_json_str (b, "host"),
                (int) hearth_json_int (b, "cores", 0),
                (int) hearth_json_int (b, "memory_mb", 0));
        break;
    case HEARTH_CMD_EXECUTOR_UPDATED:
        printf ("EXECUTOR_UPDATED %d %s worker_lost=%d %s\n",
                (int) hearth_json_int (b, "exec_id", -1),
                hearth_json_str (b, "state"),
                hearth_json_bool (b, "worker_lost", false),
                hearth_json_str (b, "message") ? hearth_json_str (b, "message")
                                               : "");
        break;
    case HEARTH_CMD_APPLICATION_REMOVED:
        printf ("APPLICATION_REMOVED %s %s\n", hearth_json_str (b, "state"),
                hearth_json_str (b, "reason"));
        a->removed = true;
        break;
    case HEARTH_CMD_RECONNECT_APPLICATION:
        printf ("RECONNECT\n");
        s_register (a);
        break;
    case HEARTH_CMD_ERROR:
        printf ("ERROR %s %s\n", hearth_json_str (b, "code"),
                hearth_json_str (b, "message"));
        break;
    default:
        break;
    }
    fflush (stdout);
}

static void
s_on_executor (app_t *a, zframe_t *rid, hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    if (msg->cmd != HEARTH_CMD_REGISTER_EXECUTOR)
        return;
    printf ("EXECUTOR_REGISTERED %d %d %s %d\n",
            (int) hearth_json_int (b, "exec_id", -1),
            (int) hearth_json_int (b, "pid", 0), hearth_json_str (b, "host"),
            (int) hearth_json_int (b, "cores", 0));
    fflush (stdout);
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_REGISTERED_EXECUTOR);
    cJSON_AddNumberToObject (reply->body, "heartbeat_interval_ms",
                             (double) hearth_conf_ms (a->conf, "interval"));
    s_send (a->executors, rid, reply);
    if (hearth_conf_bool (a->conf, "stop-executors"))
        s_send (a->executors, rid, hearth_msg_new (HEARTH_CMD_STOP_EXECUTOR));
    else
        zlistx_add_end (a->exec_ids, zframe_dup (rid));
}

static void
s_heartbeat (app_t *a)
{
    if (s_now () < a->next_beat_ms)
        return;
    a->next_beat_ms = s_now () + hearth_conf_ms (a->conf, "interval");
    if (a->app_id[0]) {
        hearth_msg_t *hb = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
        cJSON_AddStringToObject (hb->body, "id", a->app_id);
        s_send (a->master, NULL, hb);
    }
    for (zframe_t *rid = zlistx_first (a->exec_ids); rid;
         rid = zlistx_next (a->exec_ids))
        s_send (a->executors, rid, hearth_msg_new (HEARTH_CMD_HEARTBEAT));
}

static void
s_unregister (app_t *a)
{
    if (!a->app_id[0])
        return;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_UNREGISTER_APPLICATION);
    cJSON_AddStringToObject (msg->body, "app_id", a->app_id);
    const char *message = hearth_conf_str (a->conf, "final-message");
    if (message)
        cJSON_AddStringToObject (msg->body, "message", message);
    s_send (a->master, NULL, msg);
}

static void
s_frame_destructor (void **item)
{
    zframe_destroy ((zframe_t **) item);
}

static int
s_setup (app_t *a, int argc, char **argv)
{
    static const int sigs[] = {SIGTERM, SIGINT, 0};
    hearth_error_t err;
    a->conf = hearth_conf_new ("test-app", s_opts);
    if (hearth_conf_parse (a->conf, argc, argv, &err) < 0
        || !hearth_conf_str (a->conf, "master")) {
        fprintf (stderr, "test-app: %s\n",
                 hearth_conf_str (a->conf, "master") ? err.text
                                                     : "--master is required");
        return -1;
    }
    a->sigfd = hearth_signalfd_open (sigs);
    hearth_zsys_init ();
    hearth_sock_opts_t router = {.type = ZMQ_ROUTER};
    hearth_sock_opts_t dealer = {.type = ZMQ_DEALER};
    if (hearth_curve_client_setup (&a->curve, a->conf,
                                   hearth_conf_str (a->conf, "master"), &err)
        < 0) {
        fprintf (stderr, "test-app: %s\n", err.text);
        return -1;
    }
    hearth_curve_client_opts (&a->curve, &dealer);
    a->master = hearth_sock_new (&dealer, &err);
    a->executors = hearth_sock_new (&router, &err);
    a->exec_ids = zlistx_new ();
    zlistx_set_destructor (a->exec_ids, s_frame_destructor);
    /* Port 0: the kernel picks (czmq's "*" scans up from 49152 and
       collides with the masters of tests running beside this one). */
    int port = -1;
    if (hearth_sock_bind (a->executors, "tcp://127.0.0.1:0", &err) >= 0) {
        char *last = zsock_last_endpoint (a->executors);
        port =
            last && strrchr (last, ':') ? atoi (strrchr (last, ':') + 1) : -1;
        free (last);
    }
    if (port <= 0
        || hearth_sock_connect (a->master, hearth_conf_str (a->conf, "master"),
                                &err)
               < 0) {
        fprintf (stderr, "test-app: %s\n", err.text);
        return -1;
    }
    snprintf (a->driver_url, sizeof a->driver_url, "tcp://127.0.0.1:%d", port);
    return 0;
}

static void
s_run (app_t *a)
{
    zpoller_t *poller = zpoller_new (a->master, a->executors, NULL);
    s_register (a);
    for (;;) {
        zsock_t *which = zpoller_wait (poller, 50);
        if (hearth_signalfd_read (a->sigfd) > 0 || a->removed)
            break;
        if (zpoller_terminated (poller))
            break;
        zframe_t *rid = NULL;
        hearth_msg_t *msg = NULL;
        if (which == a->master && (msg = hearth_msg_recv (which, NULL, NULL)))
            s_on_master (a, msg);
        else if (which == a->executors
                 && (msg = hearth_msg_recv (which, &rid, NULL)))
            s_on_executor (a, rid, msg);
        hearth_msg_destroy (&msg);
        zframe_destroy (&rid);
        s_heartbeat (a);
    }
    zpoller_destroy (&poller);
    if (!a->removed)
        s_unregister (a);
}

/* Wait up to timeout_ms for one message on sock.  NULL on timeout. */
static hearth_msg_t *
s_recv_wait (zsock_t *sock, int timeout_ms)
{
    zpoller_t *poller = zpoller_new (sock, NULL);
    void *ready = zpoller_wait (poller, timeout_ms);
    zpoller_destroy (&poller);
    return ready ? hearth_msg_recv (sock, NULL, NULL) : NULL;
}

static int
s_kill (app_t *a)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_APPLICATION);
    cJSON_AddStringToObject (msg->body, "app_id",
                             hearth_conf_str (a->conf, "kill"));
    s_send (a->master, NULL, msg);
    hearth_msg_t *reply = s_recv_wait (a->master, 5000);
    if (!reply || reply->cmd != HEARTH_CMD_KILL_APPLICATION_RESPONSE) {
        printf ("KILL no answer\n");
        hearth_msg_destroy (&reply);
        return 1;
    }
    printf ("KILL ok=%d %s\n", hearth_json_bool (reply->body, "ok", false),
            hearth_json_str (reply->body, "message"));
    hearth_msg_destroy (&reply);
    return 0;
}

/* --unregister APP_ID: end another's application, as its driver would;
   the master answers a refusal with ERROR (and nothing otherwise). */
static int
s_unregister_other (app_t *a)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_UNREGISTER_APPLICATION);
    cJSON_AddStringToObject (msg->body, "app_id",
                             hearth_conf_str (a->conf, "unregister"));
    cJSON_AddStringToObject (msg->body, "state", "FINISHED");
    s_send (a->master, NULL, msg);
    hearth_msg_t *reply = s_recv_wait (a->master, 2000);
    if (reply && reply->cmd == HEARTH_CMD_ERROR)
        printf ("UNREGISTER ERROR %s %s\n",
                hearth_json_str (reply->body, "code"),
                hearth_json_str (reply->body, "message"));
    else
        printf ("UNREGISTER no answer\n");
    hearth_msg_destroy (&reply);
    return 0;
}

/* --progress APP_ID: report progress for another's application; the
   master refuses it with ERROR. */
static int
s_progress_other (app_t *a)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_APPLICATION_PROGRESS);
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id",
                             hearth_conf_str (a->conf, "progress"));
    cJSON_AddNumberToObject (b, "jobs_active", 9);
    cJSON_AddNumberToObject (b, "tasks_total", 999);
    cJSON_AddNumberToObject (b, "tasks_finished", 999);
    cJSON_AddNumberToObject (b, "tasks_failed", 0);
    cJSON_AddNumberToObject (b, "tasks_running", 0);
    cJSON_AddArrayToObject (b, "stages");
    s_send (a->master, NULL, msg);
    hearth_msg_t *reply = s_recv_wait (a->master, 2000);
    if (reply && reply->cmd == HEARTH_CMD_ERROR)
        printf ("PROGRESS ERROR %s %s\n", hearth_json_str (reply->body, "code"),
                hearth_json_str (reply->body, "message"));
    else
        printf ("PROGRESS no answer\n");
    hearth_msg_destroy (&reply);
    return 0;
}

/* One multipart message of text frames, sent raw. */
static void
s_raw (zsock_t *sock, const char *const *frames, size_t n)
{
    zmsg_t *msg = zmsg_new ();
    for (size_t i = 0; i < n; i++)
        zmsg_addstr (msg, frames[i]);
    zmsg_send (&msg, sock);
}

#define RAW(...)                                                               \
    do {                                                                       \
        const char *f_[] = {__VA_ARGS__};                                      \
        s_raw (a->master, f_, sizeof f_ / sizeof f_[0]);                       \
    } while (0)

static const char s_worker_body[] =
    "{\"id\":\"worker-20260101000000-dup-1\",\"host\":\"%s\","
    "\"cores\":2,\"memory_mb\":1024,\"version\":\"0\"}";

/* APPLICATION_PROGRESS with a live timeline a hostile driver made: an
   attempt that ends before it starts, one with an outcome no version
   has, and one attempt more than the 5,000 a report may carry. */
static void
s_send_bad_timelines (app_t *a)
{
    static const char head[] =
        "{\"app_id\":\"app-20260101000000-0001\",\"jobs_active\":1,"
        "\"tasks_total\":1,\"tasks_finished\":0,\"tasks_failed\":0,"
        "\"tasks_running\":1,\"stages\":[],\"timeline\":{\"now_ms\":9,"
        "\"attempts\":[";
    static const char attempt[] = "[0,1,2,0,5,9,0]";
    char small[512];
    snprintf (small, sizeof small, "%s[0,1,2,0,9,5,0]]}}", head);
    RAW ("HEARTH/1", "APPLICATION_PROGRESS", small);
    snprintf (small, sizeof small, "%s[0,1,2,0,5,9,77]]}}", head);
    RAW ("HEARTH/1", "APPLICATION_PROGRESS", small);
    size_t n = 5001, size = sizeof head + n * sizeof attempt + 8;
    char *big = malloc (size);
    if (!big)
        return;
    size_t len = (size_t) snprintf (big, size, "%s", head);
    for (size_t i = 0; i < n; i++)
        len += (size_t) snprintf (big + len, size - len, "%s%s", i ? "," : "",
                                  attempt);
    snprintf (big + len, size - len, "]}}");
    RAW ("HEARTH/1", "APPLICATION_PROGRESS", big);
    free (big);
}

static void
s_send_garbage (app_t *a)
{
    char deep[512] = "", dup[256];
    for (int i = 0; i < 100; i++)
        strcat (deep, "[");
    RAW ("hello");
    RAW ("HEARTH/9", "MASTER_STATE", "{}");
    RAW ("HEARTH/1", "NO_SUCH_COMMAND", "{}");
    RAW ("HEARTH/1", "MASTER_STATE");
    RAW ("HEARTH/1", "REGISTER_WORKER", "{not json");
    RAW ("HEARTH/1", "REGISTER_WORKER", "[1,2]");
    RAW ("HEARTH/1", "REGISTER_WORKER",
         "{\"id\":\"../../etc\",\"host\":\"h\",\"cores\":-1,"
         "\"memory_mb\":1,\"version\":\"1\"}");
    RAW ("HEARTH/1", "REGISTER_APPLICATION", deep);
    RAW ("HEARTH/1", "HEARTBEAT", "{\"id\":\"nobody\"}");
    RAW ("HEARTH/1", "LAUNCH_EXECUTOR",
         "{\"app_id\":\"app-20260101000000-0001\",\"exec_id\":0,"
         "\"cores\":1,\"memory_mb\":1,\"driver_url\":\"tcp://x:1\"}");
    RAW ("HEARTH/1", "EXECUTOR_STATE_CHANGED",
         "{\"app_id\":\"app-20260101000000-0001\",\"exec_id\":0,"
         "\"state\":\"RUNNING\"}");
    RAW ("HEARTH/1", "UNREGISTER_APPLICATION",
         "{\"app_id\":\"app-20260101000000-0001\"}");
    s_send_bad_timelines (a);
    unsigned seed = 1;
    for (int i = 0; i < 20; i++) {
        char bytes[64];
        for (size_t k = 0; k < sizeof bytes; k++)
            bytes[k] = (char) rand_r (&seed);
        zmsg_t *msg = zmsg_new ();
        for (int f = 0; f <= i % 4; f++)
            zmsg_addmem (msg, bytes, sizeof bytes - (size_t) f);
        zmsg_send (&msg, a->master);
    }
    snprintf (dup, sizeof dup, s_worker_body, "host-a");
    RAW ("HEARTH/1", "REGISTER_WORKER", dup);
}

/* A second worker with the same id from another host: refused. */
static int
s_duplicate_worker (app_t *a)
{
    char dup[256];
    hearth_error_t err;
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    hearth_curve_client_opts (&a->curve, &opts);
    zsock_t *other = hearth_sock_new (&opts, &err);
    hearth_sock_connect (other, hearth_conf_str (a->conf, "master"), &err);
    snprintf (dup, sizeof dup, s_worker_body, "host-b");
    const char *f[] = {"HEARTH/1", "REGISTER_WORKER", dup};
    s_raw (other, f, 3);
    hearth_msg_t *reply = s_recv_wait (other, 5000);
    int refused = reply && reply->cmd == HEARTH_CMD_REGISTER_WORKER_FAILED;
    if (refused)
        printf ("DUPLICATE_REFUSED %s\n",
                hearth_json_str (reply->body, "reason"));
    hearth_msg_destroy (&reply);
    hearth_sock_destroy (&other);
    return refused;
}

static int
s_garbage (app_t *a)
{
    int errors = 0, registered = 0, state_ok = 0;
    s_send_garbage (a);
    hearth_msg_t *msg;
    /* Until the last garbage message (a valid registration) is answered. */
    while (!registered && (msg = s_recv_wait (a->master, 3000))) {
        errors += msg->cmd == HEARTH_CMD_ERROR;
        if (msg->cmd == HEARTH_CMD_ERROR)
            printf ("ERROR_MESSAGE %s\n",
                    hearth_json_str (msg->body, "message"));
        registered += msg->cmd == HEARTH_CMD_REGISTERED_WORKER;
        hearth_msg_destroy (&msg);
    }
    printf ("ERRORS %d\nREGISTERED_WORKER %d\n", errors, registered);
    s_duplicate_worker (a);
    s_send (a->master, NULL, hearth_msg_new (HEARTH_CMD_MASTER_STATE));
    while ((msg = s_recv_wait (a->master, 5000))) {
        state_ok = msg->cmd == HEARTH_CMD_MASTER_STATE_RESPONSE;
        hearth_msg_destroy (&msg);
        if (state_ok)
            break;
    }
    if (state_ok)
        printf ("STATE_OK\n");
    return state_ok ? 0 : 1;
}

/* --fake-master TAG: a master that speaks another protocol version, on
   the ROUTER bound for executors. */
static int
s_fake_master (app_t *a)
{
    const char *tag = hearth_conf_str (a->conf, "fake-master");
    const char *text = hearth_conf_str (a->conf, "fake-error");
    cJSON *error = cJSON_CreateObject ();
    char what[256];
    snprintf (what, sizeof what, "this master speaks %s only", tag);
    cJSON_AddStringToObject (error, "code", text ? "refused" : "bad_version");
    cJSON_AddStringToObject (error, "message", text ? text : what);
    char *body = cJSON_PrintUnformatted (error);
    cJSON_Delete (error);
    printf ("FAKE_MASTER %s\n", a->driver_url);
    fflush (stdout);
    zpoller_t *poller = zpoller_new (a->executors, NULL);
    int answered = 0;
    /* Up to 10 s, or until SIGTERM: the test stops it once it has seen
       the worker give up (it used to wait out the 10 s, the signal
       blocked for the signalfd). */
    for (int64_t end = s_now () + 10000; s_now () < end;) {
        bool ready = zpoller_wait (poller, 100) != NULL;
        if (hearth_signalfd_read (a->sigfd) > 0)
            break;
        if (!ready) {
            if (zpoller_terminated (poller))
                break;
            continue;
        }
        zmsg_t *in = zmsg_recv (a->executors);
        zframe_t *rid = in ? zmsg_pop (in) : NULL;
        zmsg_destroy (&in);
        if (!rid)
            continue;
        zmsg_t *out = zmsg_new ();
        zmsg_append (out, &rid);
        zmsg_addstr (out, tag);
        zmsg_addstr (out, "ERROR");
        zmsg_addstr (out, body);
        zmsg_send (&out, a->executors);
        printf ("ANSWERED %d\n", ++answered);
        fflush (stdout);
    }
    zpoller_destroy (&poller);
    free (body);
    return 0;
}

int
main (int argc, char **argv)
{
    app_t a = {0};
    int rc = 1;
    if (s_setup (&a, argc, argv) == 0) {
        if (hearth_conf_str (a.conf, "kill"))
            rc = s_kill (&a);
        else if (hearth_conf_str (a.conf, "unregister"))
            rc = s_unregister_other (&a);
        else if (hearth_conf_str (a.conf, "progress"))
            rc = s_progress_other (&a);
        else if (hearth_conf_bool (a.conf, "garbage"))
            rc = s_garbage (&a);
        else if (hearth_conf_str (a.conf, "fake-master"))
            rc = s_fake_master (&a);
        else {
            s_run (&a);
            rc = 0;
        }
    }
    fflush (stdout);
    zlistx_destroy (&a.exec_ids);
    hearth_sock_destroy (&a.master);
    hearth_sock_destroy (&a.executors);
    hearth_curve_cleanup (&a.curve);
    hearth_conf_destroy (&a.conf);
    return rc;
}

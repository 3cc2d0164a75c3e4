/*  fake-executor.c - an executor that cannot take a LAUNCH_TASKS, for the
    tests of what the driver does when one refuses its tasks
    (test-big-args.sh): put in HEARTH_BIN_DIR as hearth-executor, local[N]
    starts it as it starts the real one.

        hearth-executor --driver-url URL --app-id ID --exec-id N ...
        (HEARTH_TOKEN in the environment, as local[N] gives it)

    It registers with the driver and heartbeats as an executor does, and
    answers the first FAKE_REFUSE LAUNCH_TASKS (all of them when unset)
    as an executor answers one it cannot decode (an executor of another
    build, whose limits differ): ERROR {code bad_field, command
    LAUNCH_TASKS, batch N}, without the batch when FAKE_NO_BATCH is set.
    The LAUNCH_TASKS after those it "runs": each function task FINISHED
    with its argument and a newline as result (what libtesttasks.so's
    echo_all returns), each command task FAILED.  Every STATUS_UPDATE and
    HEARTBEAT says the last batch handled ("launched").  Each refusal is
    written to standard error as "fake-executor: refused batch N".  Test
    scaffolding that plays a peer: the driver is real.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/packed.h"
#include "libcore/proto.h"
#include "libcore/sock.h"

/* Heartbeat interval; how long a driver may stay silent. */
static const int s_beat_ms = 200;
static const int64_t s_silent_ms = 10000;

typedef struct {
    zsock_t *driver;  /* DEALER to the driver */
    long refuse;      /* LAUNCH_TASKS still to refuse (-1: all) */
    bool no_batch;    /* refuse without naming the batch */
    int64_t launched; /* the last batch handled */
} fake_t;

static void
s_send (fake_t *f, hearth_msg_t *msg)
{
    hearth_error_t err;
    if (msg && f->launched > 0 && msg->cmd != HEARTH_CMD_ERROR)
        cJSON_AddNumberToObject (msg->body, "launched", (double) f->launched);
    if (msg && hearth_msg_send (&msg, f->driver, NULL, &err) < 0)
        fprintf (stderr, "fake-executor: %s\n", err.text);
}

/* One update of the STATUS_UPDATE msg: a function's argument echoed, a
   command failed. */
static void
s_update (hearth_msg_t *msg, uint64_t tid, int attempt, const char *fn,
          const char *arg)
{
    cJSON *u = cJSON_CreateObject ();
    cJSON_AddNumberToObject (u, "tid", (double) tid);
    cJSON_AddNumberToObject (u, "attempt", attempt);
    cJSON_AddStringToObject (u, "state", fn ? "FINISHED" : "FAILED");
    if (fn) {
        size_t len = strlen (arg ? arg : "");
        char *result = malloc (len + 1);
        memcpy (result, arg ? arg : "", len);
        result[len] = '\n';
        cJSON_AddNumberToObject (u, "result",
                                 hearth_msg_add_bytes (msg, result, len + 1));
        free (result);
    }
    else
        cJSON_AddStringToObject (u, "error",
                                 "the fake executor runs no "
                                 "commands");
    cJSON_AddItemToArray (cJSON_GetObjectItem (msg->body, "updates"), u);
}

/* "Run" every task of a LAUNCH_TASKS: one STATUS_UPDATE for them all. */
static void
s_run (fake_t *f, const hearth_msg_t *launch)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    cJSON_AddArrayToObject (msg->body, "updates");
    const cJSON *t;
    cJSON_ArrayForEach (t, cJSON_GetObjectItem (launch->body, "tasks"))
    {
        zframe_t *frame =
            hearth_msg_frame (launch, hearth_json_int (t, "arg_frame", -1));
        char *big = frame ? strndup ((const char *) zframe_data (frame),
                                     zframe_size (frame))
                          : NULL;
        s_update (msg, (uint64_t) hearth_json_int (t, "tid", 0),
                  (int) hearth_json_int (t, "attempt", 0),
                  hearth_json_str (t, "fn"),
                  big ? big : hearth_json_str (t, "arg"));
        free (big);
    }
    hearth_unpacker_t u;
    hearth_packed_task_t p;
    zframe_t *packed =
        hearth_msg_frame (launch, hearth_json_int (launch->body, "packed", -1));
    if (packed
        && hearth_unpacker_init (&u, packed, HEARTH_PACKED_TASKS, NULL) == 0)
        while (hearth_unpack_task (&u, launch->nframes, &p, NULL) > 0)
            s_update (msg, p.tid, p.attempt, p.fn, p.arg);
    s_send (f, msg);
}

static void
s_on_launch (fake_t *f, const hearth_msg_t *msg)
{
    int64_t batch = hearth_json_int (msg->body, "batch", 0);
    if (batch > f->launched)
        f->launched = batch;
    if (f->refuse == 0) {
        s_run (f, msg);
        return;
    }
    if (f->refuse > 0)
        f->refuse--;
    fprintf (stderr, "fake-executor: refused batch %lld\n", (long long) batch);
    hearth_msg_t *error =
        hearth_error_new ("bad_field",
                          "LAUNCH_TASKS: this executor cannot decode it "
                          "(a test double)",
                          "LAUNCH_TASKS");
    if (!f->no_batch)
        cJSON_AddNumberToObject (error->body, "batch", (double) batch);
    s_send (f, error);
}

static const char *
s_arg (int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp (argv[i], name) == 0)
            return argv[i + 1];
    return NULL;
}

static void
s_register (fake_t *f, int argc, char **argv)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTER_EXECUTOR);
    cJSON *b = msg->body;
    const char *cores = s_arg (argc, argv, "--cores");
    cJSON_AddStringToObject (b, "app_id", s_arg (argc, argv, "--app-id"));
    cJSON_AddNumberToObject (b, "exec_id",
                             atoi (s_arg (argc, argv, "--exec-id")));
    cJSON_AddStringToObject (b, "host", "127.0.0.1");
    cJSON_AddNumberToObject (b, "cores", cores ? atoi (cores) : 1);
    cJSON_AddNumberToObject (b, "pid", getpid ());
    if (getenv ("HEARTH_TOKEN"))
        cJSON_AddStringToObject (b, "token", getenv ("HEARTH_TOKEN"));
    s_send (f, msg);
}

int
main (int argc, char **argv)
{
    const char *url = s_arg (argc, argv, "--driver-url");
    if (!url || !s_arg (argc, argv, "--app-id")
        || !s_arg (argc, argv, "--exec-id")) {
        fprintf (stderr, "fake-executor: --driver-url, --app-id and "
                         "--exec-id are needed\n");
        return 2;
    }
    hearth_zsys_init ();
    fake_t f = {.refuse =
                    getenv ("FAKE_REFUSE") ? atol (getenv ("FAKE_REFUSE")) : -1,
                .no_batch = getenv ("FAKE_NO_BATCH") != NULL};
    hearth_error_t err;
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    if (!(f.driver = hearth_sock_new (&opts, &err))
        || hearth_sock_connect (f.driver, url, &err) < 0) {
        fprintf (stderr, "fake-executor: %s\n", err.text);
        return 1;
    }
    s_register (&f, argc, argv);
    int64_t last_recv = hearth_mono_ms (), next_beat = 0;
    zpoller_t *poller = zpoller_new (f.driver, NULL);
    bool stop = false;
    while (!stop && hearth_mono_ms () - last_recv < s_silent_ms) {
        if (zpoller_wait (poller, s_beat_ms)) {
            hearth_msg_t *msg = hearth_msg_recv (f.driver, NULL, &err);
            last_recv = hearth_mono_ms ();
            if (msg && msg->cmd == HEARTH_CMD_LAUNCH_TASKS)
                s_on_launch (&f, msg);
            stop = msg && msg->cmd == HEARTH_CMD_STOP_EXECUTOR;
            hearth_msg_destroy (&msg);
        }
        if (hearth_mono_ms () >= next_beat) {
            s_send (&f, hearth_msg_new (HEARTH_CMD_HEARTBEAT));
            next_beat = hearth_mono_ms () + s_beat_ms;
        }
    }
    zpoller_destroy (&poller);
    hearth_sock_destroy (&f.driver);
    return 0;
}

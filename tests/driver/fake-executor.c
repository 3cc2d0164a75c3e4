/*  fake-executor.c - an executor that cannot take a LAUNCH_TASKS, for the
    tests of what the driver does when one refuses its tasks
    (test-big-args.sh): put in HEARTH_BIN_DIR as hearth-executor, local[N]
    starts it as it starts the real one.

        hearth-executor --driver-url URL --app-id ID --exec-id N ...
        (HEARTH_TOKEN in the environment, as local[N] gives it)

    It registers with the driver and heartbeats as an executor does, and
    answers the first FAKE_REFUSE LAUNCH_TASKS (all of them when unset),
    or only batch FAKE_REFUSE_BATCH when that is set, as an executor
    answers one it cannot decode (an executor of another build, whose
    limits differ): ERROR {code bad_field, command LAUNCH_TASKS, batch N,
    launched L}, L the last batch handled before; without the batch when
    FAKE_NO_BATCH is set (as if it could not read it: L does not count
    it), without launched when FAKE_NO_LAUNCHED is.  The other
    LAUNCH_TASKS it "runs": each function task FINISHED with its argument
    and a newline as result (what libtesttasks.so's echo_all returns),
    each command task FAILED; each task run is written to standard error
    as "fake-executor: ran tid T attempt A".  With FAKE_HOLD set, what it
    ran before its first refusal is told only after that ERROR (as an
    executor busy with a batch it took: the driver hears the refusal
    first).  With FAKE_EXEC=N, only executor N does any of this: the
    others (those started after it) run every batch.  Its STATUS_UPDATE
    and HEARTBEAT say the last batch handled ("launched"), but while it
    holds.  Each refusal is written to standard error as
    "fake-executor: refused batch N".  With FAKE_VANISH=FILE (and
    FAKE_REFUSE=0), it holds what it runs ("fake-executor: holding")
    until FILE exists, then sends it, closes its socket and stays, silent
    ("fake-executor: vanished"), as an executor that exited while its
    driver was stopped but is not yet reaped: the driver reads its last
    updates, then cannot reach it (test-executor-gone.sh).  With
    FAKE_FETCH=HASH[,HASH...], once registered it asks the driver for the
    first 64 KiB of each (FETCH_FILE, requests 1, 2...) and writes each
    answer to standard error: "fake-executor: chunk request R offset O
    bytes N crc ok|bad" or "fake-executor: refused request R CODE:
    MESSAGE"; with FAKE_FETCH_EARLY set too, it asks before it registers
    (test-shipfiles.sh).  Test scaffolding that plays a peer: the driver
    is real.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/crc32c.h"
#include "libcore/packed.h"
#include "libcore/proto.h"
#include "libcore/sock.h"

/* Heartbeat interval; how long a driver may stay silent. */
static const int s_beat_ms = 200;
static const int64_t s_silent_ms = 10000;

/* Messages held at most (FAKE_HOLD). */
enum { s_max_held = 64 };

typedef struct {
    zsock_t *driver;                /* DEALER to the driver */
    long refuse;                    /* LAUNCH_TASKS still to refuse (-1: all) */
    int64_t refuse_one;             /* or only this batch (0: not so) */
    bool no_batch;                  /* refuse without naming the batch */
    bool no_launched;               /* refuse without saying launched */
    bool holding;                   /* updates held until the first refusal */
    hearth_msg_t *held[s_max_held]; /* those updates */
    size_t nheld;                   /* entries of held */
    int64_t launched;               /* the last batch handled */
    const char *vanish;             /* FAKE_VANISH's file, or NULL */
} fake_t;

static void
s_send (fake_t *f, hearth_msg_t *msg)
{
    hearth_error_t err;
    if (msg && f->launched > 0 && msg->cmd != HEARTH_CMD_ERROR && !f->holding)
        cJSON_AddNumberToObject (msg->body, "launched", (double) f->launched);
    if (msg && hearth_msg_send (&msg, f->driver, NULL, &err) < 0)
        fprintf (stderr, "fake-executor: %s\n", err.text);
}

/* A STATUS_UPDATE: sent, or held (FAKE_HOLD). */
static void
s_send_update (fake_t *f, hearth_msg_t *msg)
{
    if (f->holding && f->nheld < s_max_held) {
        if (f->vanish && f->nheld == 0)
            fprintf (stderr, "fake-executor: holding\n");
        f->held[f->nheld++] = msg;
    }
    else
        s_send (f, msg);
}

/* The first refusal has gone: what was held goes now. */
static void
s_release (fake_t *f)
{
    f->holding = false;
    for (size_t i = 0; i < f->nheld; i++)
        s_send (f, f->held[i]);
    f->nheld = 0;
}

/* One update of the STATUS_UPDATE msg: a function's argument echoed, a
   command failed. */
static void
s_update (hearth_msg_t *msg, uint64_t tid, int attempt, const char *fn,
          const char *arg)
{
    fprintf (stderr, "fake-executor: ran tid %llu attempt %d\n",
             (unsigned long long) tid, attempt);
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

/* A frame's bytes as a string (they hold no NUL; not strndup: there is
   none after them either). */
static char *
s_text (zframe_t *frame)
{
    char *text = malloc (zframe_size (frame) + 1);
    memcpy (text, zframe_data (frame), zframe_size (frame));
    text[zframe_size (frame)] = '\0';
    return text;
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
        char *big = frame ? s_text (frame) : NULL;
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
    s_send_update (f, msg);
}

/* Whether to refuse batch. */
static bool
s_refuses (fake_t *f, int64_t batch)
{
    if (f->refuse_one)
        return batch == f->refuse_one;
    if (f->refuse == 0)
        return false;
    if (f->refuse > 0)
        f->refuse--;
    return true;
}

static void
s_on_launch (fake_t *f, const hearth_msg_t *msg)
{
    int64_t batch = hearth_json_int (msg->body, "batch", 0);
    int64_t before = f->launched;
    if (!s_refuses (f, batch)) {
        f->launched = batch > f->launched ? batch : f->launched;
        s_run (f, msg);
        return;
    }
    if (!f->no_batch && batch > f->launched)
        f->launched = batch;
    fprintf (stderr, "fake-executor: refused batch %lld\n", (long long) batch);
    hearth_msg_t *error =
        hearth_error_new ("bad_field",
                          "LAUNCH_TASKS: this executor cannot decode it "
                          "(a test double)",
                          "LAUNCH_TASKS");
    if (!f->no_batch)
        cJSON_AddNumberToObject (error->body, "batch", (double) batch);
    if (!f->no_launched)
        cJSON_AddNumberToObject (error->body, "launched", (double) before);
    s_send (f, error);
    s_release (f);
}

/* FAKE_VANISH: whether its file exists; then what was held goes. */
static bool
s_vanishes (fake_t *f)
{
    if (!f->vanish || access (f->vanish, F_OK) != 0)
        return false;
    s_release (f);
    return true;
}

/* After the socket closed once its updates had gone: stay, silent and
   unreaped, as a dead executor its driver has not yet seen go, until the
   parent ends or a minute has passed. */
static void
s_stay (void)
{
    fprintf (stderr, "fake-executor: vanished\n");
    pid_t parent = getppid ();
    for (int i = 0; i < 600 && getppid () == parent; i++)
        usleep (100 * 1000);
}

static const char *
s_arg (int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp (argv[i], name) == 0)
            return argv[i + 1];
    return NULL;
}

/* FAKE_FETCH=HASH[,HASH...]: a FETCH_FILE of the first 64 KiB of each,
   requests 1, 2... */
static void
s_fetch (fake_t *f)
{
    const char *list = getenv ("FAKE_FETCH");
    int64_t request = 1;
    for (const char *p = list; p && *p; request++) {
        size_t len = strcspn (p, ",");
        char hash[129];
        snprintf (hash, sizeof hash, "%.*s", (int) len, p);
        hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FETCH_FILE);
        cJSON_AddStringToObject (msg->body, "hash", hash);
        cJSON_AddNumberToObject (msg->body, "offset", 0);
        cJSON_AddNumberToObject (msg->body, "length", 65536);
        cJSON_AddNumberToObject (msg->body, "request", (double) request);
        s_send (f, msg);
        p += len + (p[len] == ',');
    }
}

/* The driver's answers to s_fetch, on standard error. */
static void
s_on_fetch_answer (const hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    if (msg->cmd == HEARTH_CMD_FILE_CHUNK) {
        zframe_t *data =
            hearth_msg_frame (msg, hearth_json_int (b, "data", -1));
        uint32_t crc =
            data ? hearth_crc32c (zframe_data (data), zframe_size (data)) : 0;
        fprintf (stderr,
                 "fake-executor: chunk request %lld offset %lld bytes %zu "
                 "crc %s\n",
                 (long long) hearth_json_int (b, "request", -1),
                 (long long) hearth_json_int (b, "offset", -1),
                 data ? zframe_size (data) : 0,
                 data && crc == (uint32_t) hearth_json_int (b, "crc32c", -1)
                     ? "ok"
                     : "bad");
    }
    else if (msg->cmd == HEARTH_CMD_ERROR)
        fprintf (stderr, "fake-executor: refused request %lld %s: %s\n",
                 (long long) hearth_json_int (b, "request", -1),
                 hearth_json_str (b, "code"), hearth_json_str (b, "message"));
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
    const char *one = getenv ("FAKE_REFUSE_BATCH");
    const char *only = getenv ("FAKE_EXEC");
    bool odd = !only || strcmp (only, s_arg (argc, argv, "--exec-id")) == 0;
    fake_t f = {
        .refuse = !odd                     ? 0
                  : getenv ("FAKE_REFUSE") ? atol (getenv ("FAKE_REFUSE"))
                                           : -1,
        .refuse_one = odd && one ? atoll (one) : 0,
        .no_batch = getenv ("FAKE_NO_BATCH") != NULL,
        .no_launched = getenv ("FAKE_NO_LAUNCHED") != NULL,
        .holding = odd && (getenv ("FAKE_HOLD") || getenv ("FAKE_VANISH")),
        .vanish = odd ? getenv ("FAKE_VANISH") : NULL};
    hearth_error_t err;
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    if (!(f.driver = hearth_sock_new (&opts, &err))
        || hearth_sock_connect (f.driver, url, &err) < 0) {
        fprintf (stderr, "fake-executor: %s\n", err.text);
        return 1;
    }
    if (getenv ("FAKE_FETCH_EARLY"))
        s_fetch (&f); /* unregistered: refused */
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
            if (msg && msg->cmd == HEARTH_CMD_REGISTERED_EXECUTOR
                && !getenv ("FAKE_FETCH_EARLY"))
                s_fetch (&f);
            if (msg)
                s_on_fetch_answer (msg);
            stop = msg && msg->cmd == HEARTH_CMD_STOP_EXECUTOR;
            hearth_msg_destroy (&msg);
        }
        if (s_vanishes (&f))
            break;
        if (hearth_mono_ms () >= next_beat) {
            s_send (&f, hearth_msg_new (HEARTH_CMD_HEARTBEAT));
            next_beat = hearth_mono_ms () + s_beat_ms;
        }
    }
    zpoller_destroy (&poller);
    for (size_t i = 0; i < f.nheld; i++)
        hearth_msg_destroy (&f.held[i]);
    if (f.vanish && !f.holding)
        zsock_set_linger (f.driver, 5000);
    hearth_sock_destroy (&f.driver);
    if (f.vanish && !f.holding) {
        zsys_shutdown (); /* returns once the updates have gone */
        s_stay ();
    }
    return 0;
}

/*  exec-tool.c - plays the driver to one real hearth-executor, for the
    tests of the executor's side of the shuffle (test-executor-shuffle.sh).

        exec-tool [--lib PATH] [--results DIR] [--interval MS]
                  [--corrupt N]

    Binds a ROUTER on 127.0.0.1 (a free port) and prints

        LISTENING tcp://127.0.0.1:PORT

    An executor that connects there (started by the script, or by a
    worker for an application whose driver_url is this one) is admitted
    without question: REGISTERED_EXECUTOR, with the library PATH shipped
    for function tasks (named there, its bytes sent when the executor
    asks: FETCH_FILE, each ask printed as "FETCH OFFSET LENGTH"; with
    --corrupt N, the first N answers carry a wrong CRC-32C, as a chunk
    damaged on the way), and heartbeats every MS (default 200).  It prints

        REGISTERED EXEC_ID PID SHUFFLE_URL|- SHUFFLE_KEY|-
        RESOURCES JSON           (its `resources`, when it gave some)

    Each line of standard input is one task of LAUNCH_TASKS's tasks[], as
    JSON, sent in a LAUNCH_TASKS of its own once the executor is here,
    numbered (its "batch": 1, 2...), with two conveniences: "input_file":
    PATH becomes the "input" frame (the file's bytes), and a "reduce"
    role's "blocks" may be a JSON array of [SERVER, ATTEMPT, LENGTH]
    triples (SERVER -1: none, 0xffffffff), packed into the 16-byte records
    of its frame.  A line "UNCHECKED TASK" sends TASK as it is, without
    the codec's checks (as a driver of another build would), so that the
    executor's refusal shows.  An ERROR is printed as

        ERROR CODE batch=N|- launched=L|- command=COMMAND|- MESSAGE

    the highest "launched" an executor's message tells as

        LAUNCHED N

    (LAUNCHED AGAIN N when a message tells the same one again)

    and every final update (FINISHED, FAILED, KILLED) as

        UPDATE TID ATTEMPT STATE [map_sizes=A,B,...] [map_bytes=N]
               [output_bytes=N] [fetch_failed=S/M.A[@URL]] [result=LEN]
               [exit=N] [error=TEXT]

    (one line; TEXT last), and with --results its result bytes go to
    DIR/TID.ATTEMPT.  At the end of standard input: STOP_EXECUTOR, and
    exit.  Test scaffolding that plays a peer: the executor is real.
*/
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/crc32c.h"
#include "libcore/packed.h"
#include "libcore/proto.h"
#include "libcore/sock.h"

typedef struct {
    zsock_t *router;     /* the executor's peer */
    zframe_t *rid;       /* its routing id, once registered */
    const char *lib;     /* the library to ship, or NULL */
    const char *results; /* where results go, or NULL */
    int64_t interval_ms; /* heartbeat interval */
    char line[1 << 20];  /* standard input not yet split into lines */
    size_t line_len;     /* bytes in line */
    zlistx_t *pending;   /* task lines waiting for the executor (char *) */
    bool eof;            /* standard input ended */
    int64_t batch;       /* the last LAUNCH_TASKS's number */
    int64_t launched;    /* the highest "launched" told */
    long corrupt;        /* FILE_CHUNK answers still to damage */
} tool_t;

static void
s_send (tool_t *t, hearth_msg_t *msg)
{
    hearth_error_t err;
    if (hearth_msg_send (&msg, t->router, t->rid, &err) < 0)
        fprintf (stderr, "exec-tool: %s\n", err.text);
}

/* A file's bytes as a frame, or NULL. */
static zframe_t *
s_file_frame (const char *path)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return NULL;
    fseek (f, 0, SEEK_END);
    long size = ftell (f);
    fseek (f, 0, SEEK_SET);
    zframe_t *frame = zframe_new (NULL, (size_t) size);
    if (frame && size > 0
        && fread (zframe_data (frame), 1, (size_t) size, f) != (size_t) size)
        zframe_destroy (&frame);
    fclose (f);
    return frame;
}

static void
s_on_register (tool_t *t, zframe_t *rid, const cJSON *b)
{
    printf ("REGISTERED %d %d %s %s\n",
            (int) hearth_json_int (b, "exec_id", -1),
            (int) hearth_json_int (b, "pid", 0),
            hearth_json_str (b, "shuffle_url") ?: "-",
            hearth_json_str (b, "shuffle_key") ?: "-");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive (b, "resources");
    char *text = res ? cJSON_PrintUnformatted (res) : NULL;
    if (text)
        printf ("RESOURCES %s\n", text);
    free (text);
    fflush (stdout);
    zframe_destroy (&t->rid);
    t->rid = zframe_dup (rid);
    hearth_msg_t *reply = hearth_msg_new (HEARTH_CMD_REGISTERED_EXECUTOR);
    cJSON_AddNumberToObject (reply->body, "heartbeat_interval_ms",
                             (double) t->interval_ms);
    zframe_t *frame = t->lib ? s_file_frame (t->lib) : NULL;
    if (frame) { /* named; the executor fetches it (s_on_fetch) */
        zdigest_t *d = zdigest_new ();
        zdigest_update (d, zframe_data (frame), zframe_size (frame));
        cJSON *lib = cJSON_CreateObject ();
        cJSON_AddStringToObject (lib, "name", "libtesttasks.so");
        cJSON_AddStringToObject (lib, "hash", zdigest_string (d));
        cJSON_AddNumberToObject (lib, "size", (double) zframe_size (frame));
        zdigest_destroy (&d);
        zframe_destroy (&frame);
        cJSON_AddItemToArray (cJSON_AddArrayToObject (reply->body, "libs"),
                              lib);
    }
    s_send (t, reply);
}

/* FETCH_FILE: the library's bytes asked for (the only file shipped),
   in one FILE_CHUNK. */
static void
s_on_fetch (tool_t *t, const cJSON *b)
{
    zframe_t *whole = t->lib ? s_file_frame (t->lib) : NULL;
    size_t offset = (size_t) hearth_json_int (b, "offset", 0);
    size_t length = (size_t) hearth_json_int (b, "length", 0);
    if (!whole || offset >= zframe_size (whole)) {
        zframe_destroy (&whole);
        return; /* the executor times out */
    }
    if (length > zframe_size (whole) - offset)
        length = zframe_size (whole) - offset;
    printf ("FETCH %zu %zu\n", offset, length);
    fflush (stdout);
    uint32_t damage = t->corrupt > 0 ? 1 : 0;
    if (t->corrupt > 0)
        t->corrupt--;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FILE_CHUNK);
    cJSON_AddStringToObject (msg->body, "hash", hearth_json_str (b, "hash"));
    cJSON_AddNumberToObject (msg->body, "request",
                             (double) hearth_json_int (b, "request", 0));
    cJSON_AddNumberToObject (msg->body, "offset", (double) offset);
    cJSON_AddNumberToObject (
        msg->body, "crc32c",
        hearth_crc32c (zframe_data (whole) + offset, length) ^ damage);
    cJSON_AddNumberToObject (
        msg->body, "data",
        hearth_msg_add_bytes (msg, zframe_data (whole) + offset, length));
    zframe_destroy (&whole);
    s_send (t, msg);
}

/* "map_sizes=A,B,..." of a frame of little-endian u64. */
static void
s_print_sizes (zframe_t *frame)
{
    const byte *p = zframe_data (frame);
    printf (" map_sizes=");
    for (size_t i = 0; i + 8 <= zframe_size (frame); i += 8) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--)
            v = v << 8 | p[i + b];
        printf ("%s%llu", i ? "," : "", (unsigned long long) v);
    }
}

/* Print one final update; keep its result (data, len) if asked. */
static void
s_print (tool_t *t, uint64_t tid, int attempt, const char *state,
         const cJSON *u, const hearth_msg_t *msg, const void *data, size_t len,
         const char *error, int exit_status)
{
    if (strcmp (state, "FINISHED") != 0 && strcmp (state, "FAILED") != 0
        && strcmp (state, "KILLED") != 0)
        return;
    printf ("UPDATE %llu %d %s", (unsigned long long) tid, attempt, state);
    zframe_t *sizes =
        u ? hearth_msg_frame (msg, hearth_json_int (u, "map_sizes", -1)) : NULL;
    if (sizes)
        s_print_sizes (sizes);
    const char *ints[] = {"map_bytes", "output_bytes"};
    for (size_t i = 0; u && i < 2; i++)
        if (cJSON_HasObjectItem (u, ints[i]))
            printf (" %s=%lld", ints[i],
                    (long long) hearth_json_int (u, ints[i], 0));
    const cJSON *ff =
        u ? cJSON_GetObjectItemCaseSensitive (u, "fetch_failed") : NULL;
    if (ff) {
        printf (" fetch_failed=%lld/%lld.%lld",
                (long long) hearth_json_int (ff, "shuffle", -1),
                (long long) hearth_json_int (ff, "map", -1),
                (long long) hearth_json_int (ff, "attempt", -1));
        if (hearth_json_str (ff, "url"))
            printf ("@%s", hearth_json_str (ff, "url"));
    }
    if (data)
        printf (" result=%zu", len);
    if (exit_status >= 0)
        printf (" exit=%d", exit_status);
    if (error) {
        printf (" error=");
        for (const char *c = error; *c; c++)
            putchar (*c == '\n' ? ' ' : *c);
    }
    printf ("\n");
    fflush (stdout);
    if (t->results && data) {
        char path[4096];
        snprintf (path, sizeof path, "%s/%llu.%d", t->results,
                  (unsigned long long) tid, attempt);
        FILE *f = fopen (path, "wb");
        if (f) {
            fwrite (data, 1, len, f);
            fclose (f);
        }
    }
}

static void
s_on_status (tool_t *t, const hearth_msg_t *msg)
{
    const cJSON *u;
    cJSON_ArrayForEach (u,
                        cJSON_GetObjectItemCaseSensitive (msg->body, "updates"))
    {
        zframe_t *r = hearth_msg_frame (msg, hearth_json_int (u, "result", -1));
        s_print (t, (uint64_t) hearth_json_int (u, "tid", 0),
                 (int) hearth_json_int (u, "attempt", 0),
                 hearth_json_str (u, "state"), u, msg,
                 r ? zframe_data (r) : NULL, r ? zframe_size (r) : 0,
                 hearth_json_str (u, "error"),
                 (int) hearth_json_int (u, "exit_status", -1));
    }
    hearth_unpacker_t up;
    hearth_packed_update_t p;
    hearth_error_t err;
    zframe_t *packed =
        hearth_msg_frame (msg, hearth_json_int (msg->body, "packed", -1));
    if (!packed
        || hearth_unpacker_init (&up, packed, HEARTH_PACKED_UPDATES, &err) < 0)
        return;
    while (hearth_unpack_update (&up, msg->nframes, &p, &err) > 0) {
        zframe_t *r = hearth_msg_frame (msg, p.result_frame);
        s_print (t, p.tid, p.attempt, hearth_task_states[p.state], NULL, msg,
                 r ? zframe_data (r) : p.result,
                 r ? zframe_size (r) : p.result_len, p.error,
                 p.flags & HEARTH_PACKED_EXIT ? p.exit_status : -1);
    }
}

/* "blocks": [[SERVER, ATTEMPT, LENGTH], ...] as a frame of msg. */
static int
s_pack_blocks (cJSON *reduce, hearth_msg_t *msg)
{
    cJSON *blocks = cJSON_GetObjectItemCaseSensitive (reduce, "blocks");
    if (!cJSON_IsArray (blocks))
        return 0;
    size_t n = (size_t) cJSON_GetArraySize (blocks);
    byte *data = calloc (n ? n : 1, HEARTH_BLOCK_RECORD);
    size_t m = 0;
    const cJSON *b;
    cJSON_ArrayForEach (b, blocks)
    {
        byte *r = data + m++ * HEARTH_BLOCK_RECORD;
        double server = cJSON_GetArrayItem (b, 0)->valuedouble;
        uint64_t v[3] = {server < 0 ? HEARTH_BLOCK_LOCAL : (uint64_t) server,
                         (uint64_t) cJSON_GetArrayItem (b, 1)->valuedouble,
                         (uint64_t) cJSON_GetArrayItem (b, 2)->valuedouble};
        for (int k = 0; k < 4; k++) {
            r[k] = (byte) (v[0] >> (8 * k));
            r[4 + k] = (byte) (v[1] >> (8 * k));
        }
        for (int k = 0; k < 8; k++)
            r[8 + k] = (byte) (v[2] >> (8 * k));
    }
    int index = hearth_msg_add_bytes (msg, data, n * HEARTH_BLOCK_RECORD);
    free (data);
    cJSON_ReplaceItemInObject (reduce, "blocks", cJSON_CreateNumber (index));
    return 0;
}

/* A LAUNCH_TASKS of one task, sent as it is: no schema checks. */
static void
s_launch_unchecked (tool_t *t, const char *task)
{
    char *body = NULL;
    if (asprintf (&body, "{\"tasks\":[%s],\"batch\":%lld}", task,
                  (long long) ++t->batch)
        < 0)
        return;
    zmsg_t *msg = zmsg_new ();
    zframe_t *rid = zframe_dup (t->rid);
    zmsg_append (msg, &rid);
    zmsg_addstr (msg, HEARTH_PROTO_TAG);
    zmsg_addstr (msg, "LAUNCH_TASKS");
    zmsg_addstr (msg, body);
    if (zmsg_send (&msg, t->router) < 0)
        zmsg_destroy (&msg);
    free (body);
}

/* What the executor says besides updates: an ERROR, a "launched". */
static void
s_print_news (tool_t *t, const hearth_msg_t *msg)
{
    const cJSON *b = msg->body;
    if (msg->cmd == HEARTH_CMD_ERROR) {
        printf ("ERROR %s", hearth_json_str (b, "code"));
        if (cJSON_HasObjectItem (b, "batch"))
            printf (" batch=%lld", (long long) hearth_json_int (b, "batch", 0));
        else
            printf (" batch=-");
        if (cJSON_HasObjectItem (b, "launched"))
            printf (" launched=%lld",
                    (long long) hearth_json_int (b, "launched", 0));
        else
            printf (" launched=-");
        printf (" command=%s %s\n", hearth_json_str (b, "command") ?: "-",
                hearth_json_str (b, "message"));
        return; /* its launched is the one before the refused batch */
    }
    int64_t launched = hearth_json_int (b, "launched", 0);
    if (launched > t->launched) {
        t->launched = launched;
        printf ("LAUNCHED %lld\n", (long long) launched);
    }
    else if (launched > 0 && launched == t->launched)
        printf ("LAUNCHED AGAIN %lld\n", (long long) launched);
    fflush (stdout);
}

static void
s_launch (tool_t *t, const char *line)
{
    if (strncmp (line, "UNCHECKED ", 10) == 0) {
        s_launch_unchecked (t, line + 10);
        return;
    }
    cJSON *task = cJSON_Parse (line);
    if (!task) {
        fprintf (stderr, "exec-tool: not JSON: %s\n", line);
        return;
    }
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_LAUNCH_TASKS);
    const char *input = hearth_json_str (task, "input_file");
    if (input) {
        zframe_t *frame = s_file_frame (input);
        if (!frame)
            fprintf (stderr, "exec-tool: cannot read %s\n", input);
        else
            cJSON_AddNumberToObject (task, "input",
                                     hearth_msg_add_frame (msg, &frame));
        cJSON_DeleteItemFromObject (task, "input_file");
    }
    cJSON *reduce = cJSON_GetObjectItemCaseSensitive (task, "reduce");
    if (reduce)
        s_pack_blocks (reduce, msg);
    cJSON_AddItemToArray (cJSON_AddArrayToObject (msg->body, "tasks"), task);
    cJSON_AddNumberToObject (msg->body, "batch", (double) ++t->batch);
    s_send (t, msg);
}

/* Standard input's complete lines: sent, or kept until the executor is
   here. */
static void
s_read_stdin (tool_t *t)
{
    ssize_t n =
        read (0, t->line + t->line_len, sizeof t->line - t->line_len - 1);
    if (n <= 0) {
        t->eof = true;
        return;
    }
    t->line_len += (size_t) n;
    char *start = t->line, *nl;
    while ((nl = memchr (start, '\n', t->line_len - (start - t->line)))) {
        *nl = '\0';
        if (nl > start)
            zlistx_add_end (t->pending, strdup (start));
        start = nl + 1;
    }
    t->line_len -= (size_t) (start - t->line);
    memmove (t->line, start, t->line_len);
}

static void
s_str_destructor (void **item)
{
    free (*item);
    *item = NULL;
}

int
main (int argc, char **argv)
{
    tool_t t = {.interval_ms = 200};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp (argv[i], "--lib") == 0)
            t.lib = argv[i + 1];
        else if (strcmp (argv[i], "--results") == 0)
            t.results = argv[i + 1];
        else if (strcmp (argv[i], "--interval") == 0)
            t.interval_ms = atoll (argv[i + 1]);
        else if (strcmp (argv[i], "--corrupt") == 0)
            t.corrupt = atol (argv[i + 1]);
        else {
            fprintf (stderr, "usage: see exec-tool.c\n");
            return 2;
        }
    }
    hearth_zsys_init ();
    hearth_error_t err;
    hearth_sock_opts_t opts = {.type = ZMQ_ROUTER};
    t.router = hearth_sock_new (&opts, &err);
    if (!t.router
        || hearth_sock_bind (t.router, "tcp://127.0.0.1:0", &err) < 0) {
        fprintf (stderr, "exec-tool: %s\n", err.text);
        return 1;
    }
    char *endpoint = zsock_last_endpoint (t.router);
    printf ("LISTENING %s\n", endpoint);
    fflush (stdout);
    free (endpoint);
    t.pending = zlistx_new ();
    zlistx_set_destructor (t.pending, s_str_destructor);
    int64_t next_beat = 0, stop_at = 0;
    for (;;) {
        zmq_pollitem_t items[2] = {{zsock_resolve (t.router), 0, ZMQ_POLLIN, 0},
                                   {NULL, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll (items, t.eof ? 1 : 2, 50) < 0 && errno != EINTR)
            break;
        if (!t.eof && items[1].revents)
            s_read_stdin (&t);
        zframe_t *rid = NULL;
        hearth_msg_t *msg = NULL;
        if (items[0].revents
            && (msg = hearth_msg_recv (t.router, &rid, &err))) {
            if (msg->cmd == HEARTH_CMD_REGISTER_EXECUTOR)
                s_on_register (&t, rid, msg->body);
            else if (msg->cmd == HEARTH_CMD_STATUS_UPDATE)
                s_on_status (&t, msg);
            else if (msg->cmd == HEARTH_CMD_FETCH_FILE)
                s_on_fetch (&t, msg->body);
            s_print_news (&t, msg);
        }
        hearth_msg_destroy (&msg);
        zframe_destroy (&rid);
        char *line;
        while (t.rid && (line = zlistx_first (t.pending))) {
            s_launch (&t, line);
            zlistx_delete (t.pending, NULL);
        }
        int64_t now = hearth_mono_ms ();
        if (t.rid && now >= next_beat) {
            s_send (&t, hearth_msg_new (HEARTH_CMD_HEARTBEAT));
            next_beat = now + t.interval_ms;
        }
        if (t.eof && !stop_at) {
            if (t.rid) {
                hearth_msg_t *stop = hearth_msg_new (HEARTH_CMD_STOP_EXECUTOR);
                cJSON_AddStringToObject (stop->body, "reason",
                                         "exec-tool done");
                s_send (&t, stop);
            }
            stop_at = now + 500;
        }
        if (stop_at && now >= stop_at)
            break;
    }
    zlistx_destroy (&t.pending);
    zframe_destroy (&t.rid);
    hearth_sock_destroy (&t.router);
    return 0;
}

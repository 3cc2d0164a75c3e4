/*  bench_master.c - benchmark 7: a real hearth-master under simulated
    workers and applications.

    The load generator runs in this one process.  Simulated workers are
    multiplexed over a few DEALER connections (--conns; the master keys a
    heartbeat by the worker id it names, so one connection may carry many
    workers), each registering with 1 to 16 cores and 64 GiB and then
    heartbeating once per second, spread evenly over the second, as
    hearth-worker does.  Applications come and go: one registers every
    second (8 executors of 1 core) and unregisters after --app-life-ms,
    heartbeating meanwhile; the generator answers LAUNCH_EXECUTOR with
    RUNNING and KILL_EXECUTOR with KILLED, as a worker would.

    For each worker count of --workers (cumulative: 1000, then 4000 more):
        cpu          the master's CPU time / wall time over --window-ms
                     (utime + stime from /proc), --reps windows
        rss          the master's VmRSS, and (rss - rss with no worker) /
                     workers per worker
        state        MASTER_STATE round trip, answer received and parsed
    and at the largest count:
        alloc        one pass of the master's allocator
                     (hearth_alloc_schedule) with 100 waiting applications
                     over the workers as the live MASTER_STATE shows them

    Usage: bench-master [--workers N,N,...] [--conns N] [--window-ms N]
                        [--reps N] [--app-life-ms N] [--master-bin PATH]
*/
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zmq.h>

#include "libcore/alloc.h"
#include "tests/bench/benchcookie.h"
#include "tests/bench/benchutil.h"

extern char **environ;

/* Simulated resources, as in tests/unit/test_alloc.c's scale case. */
static const int64_t s_worker_memory_mb = 64 * 1024;
static const int s_app_cores = 8;
static const int s_waiting_apps = 100;
static const int64_t s_interval_ms = 1000;
static const int s_max_apps = 64;

typedef struct {
    void *sock;           /* DEALER */
    char id[64];          /* app id once registered, else "" */
    double registered_ms; /* when it registered */
    double next_hb_ms;    /* its next heartbeat */
} s_app_t;

typedef struct {
    void *ctx;     /* ZeroMQ */
    char url[256]; /* the master's ROUTER */
    pid_t pid;     /* the master */
    void **conns;  /* worker connections */
    int nconns;
    int nworkers;         /* registered so far */
    long registered;      /* REGISTERED_WORKER received */
    double cycle_ms;      /* start of the current heartbeat second */
    int hb_sent;          /* workers heartbeaten this second */
    s_app_t apps[64];     /* applications coming and going */
    double next_app_ms;   /* next registration */
    double app_life_ms;   /* lifetime of an application */
    void *state;          /* DEALER for MASTER_STATE */
    cJSON *last_state;    /* the last MASTER_STATE_RESPONSE body */
    bool state_pending;   /* a MASTER_STATE is in flight */
    long launches, kills; /* executors the master asked for */
    bool churn;           /* applications come and go */
    int silent[16];       /* workers that stopped heartbeating (death) */
    int nsilent;          /* entries */
    char events_url[256]; /* the master's PUB */
} s_gen_t;

static double
s_ms (void)
{
    return bench_now_us () / 1000.0;
}

/* A measurement that found nothing to measure: exit 1. */
static bool s_failed;

/* When the last message body arrived, before it was parsed. */
static double s_body_ms;

/* ---- messages -------------------------------------------------------- */

static void
s_send (void *sock, const char *cmd, const char *body)
{
    zmq_send (sock, "HEARTH/1", 8, ZMQ_SNDMORE);
    zmq_send (sock, cmd, strlen (cmd), ZMQ_SNDMORE);
    zmq_send (sock, body, strlen (body), 0);
}

/* Receive one whole message without waiting: its command (buf) and body
   (a new cJSON tree when want_body, else NULL).  Returns false if none. */
static bool
s_recv (void *sock, char *cmd, size_t size, bool (*want_body) (const char *),
        cJSON **body)
{
    zmq_msg_t part;
    zmq_msg_init (&part);
    int index = 0, more = 1;
    *body = NULL;
    cmd[0] = '\0';
    while (more) {
        if (zmq_msg_recv (&part, sock, index == 0 ? ZMQ_DONTWAIT : 0) < 0) {
            zmq_msg_close (&part);
            return false;
        }
        if (index == 1) {
            size_t n = zmq_msg_size (&part) < size - 1 ? zmq_msg_size (&part)
                                                       : size - 1;
            memcpy (cmd, zmq_msg_data (&part), n);
            cmd[n] = '\0';
        }
        else if (index == 2 && want_body (cmd) && (s_body_ms = s_ms ()))
            *body = cJSON_ParseWithLength (zmq_msg_data (&part),
                                           zmq_msg_size (&part));
        more = zmq_msg_more (&part);
        index++;
    }
    zmq_msg_close (&part);
    return true;
}

static const char *
s_str (const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsString (v) ? v->valuestring : "";
}

static double
s_num (const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (o, name);
    return cJSON_IsNumber (v) ? v->valuedouble : 0;
}

/* ---- the simulated workers ------------------------------------------- */

static void
s_worker_id (char *buf, size_t size, int i)
{
    snprintf (buf, size, "worker-20260101000000-sim-%d", i + 1);
}

static bool
s_worker_wants (const char *cmd)
{
    return strcmp (cmd, "LAUNCH_EXECUTOR") == 0
           || strcmp (cmd, "KILL_EXECUTOR") == 0;
}

/* A worker answers: RUNNING at launch, KILLED at kill. */
static void
s_on_worker_msg (s_gen_t *g, void *sock, const char *cmd, cJSON *body)
{
    if (strcmp (cmd, "REGISTERED_WORKER") == 0)
        g->registered++;
    if (!body)
        return;
    bool launch = strcmp (cmd, "LAUNCH_EXECUTOR") == 0;
    char text[256];
    snprintf (text, sizeof text,
              "{\"app_id\":\"%s\",\"exec_id\":%.0f,\"state\":\"%s\"%s}",
              s_str (body, "app_id"), s_num (body, "exec_id"),
              launch ? "RUNNING" : "KILLED", launch ? ",\"pid\":1" : "");
    s_send (sock, "EXECUTOR_STATE_CHANGED", text);
    if (launch)
        g->launches++;
    else
        g->kills++;
}

static void
s_register_workers (s_gen_t *g, int upto)
{
    for (int i = g->nworkers; i < upto; i++) {
        char id[64], body[256];
        s_worker_id (id, sizeof id, i);
        snprintf (body, sizeof body,
                  "{\"id\":\"%s\",\"host\":\"127.0.0.1\",\"cores\":%d,"
                  "\"memory_mb\":%lld,\"version\":\"%s\",\"executors\":[]}",
                  id, 1 + i % 16, (long long) s_worker_memory_mb,
                  PACKAGE_VERSION);
        s_send (g->conns[i % g->nconns], "REGISTER_WORKER", body);
    }
    g->nworkers = upto;
}

static void
s_heartbeat_workers (s_gen_t *g, double now)
{
    if (now - g->cycle_ms >= s_interval_ms) {
        g->cycle_ms +=
            s_interval_ms * (int) ((now - g->cycle_ms) / s_interval_ms);
        g->hb_sent = 0;
    }
    int due = (int) ((now - g->cycle_ms) * g->nworkers / s_interval_ms) + 1;
    if (due > g->nworkers)
        due = g->nworkers;
    for (; g->hb_sent < due; g->hb_sent++) {
        bool dead = false;
        for (int i = 0; i < g->nsilent; i++)
            dead = dead || g->silent[i] == g->hb_sent;
        if (dead)
            continue;
        char id[64], body[160];
        s_worker_id (id, sizeof id, g->hb_sent);
        snprintf (body, sizeof body,
                  "{\"id\":\"%s\",\"cores_used\":0,\"memory_used_mb\":0,"
                  "\"executors\":[]}",
                  id);
        s_send (g->conns[g->hb_sent % g->nconns], "HEARTBEAT", body);
    }
}

/* ---- applications ----------------------------------------------------- */

static bool
s_app_wants (const char *cmd)
{
    return strcmp (cmd, "REGISTERED_APPLICATION") == 0;
}

static void
s_app_register (s_gen_t *g, s_app_t *a, int max_cores, int per_exec)
{
    a->sock = zmq_socket (g->ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt (a->sock, ZMQ_LINGER, &linger, sizeof linger);
    bench_cookie (a->sock);
    zmq_connect (a->sock, g->url);
    char body[256], per[64] = "";
    if (per_exec)
        snprintf (per, sizeof per, ",\"cores_per_executor\":%d", per_exec);
    snprintf (body, sizeof body,
              "{\"name\":\"bench\",\"driver_url\":\"tcp://127.0.0.1:9\","
              "\"max_cores\":%d%s,\"memory_per_executor_mb\":1024}",
              max_cores, per);
    s_send (a->sock, "REGISTER_APPLICATION", body);
    a->id[0] = '\0';
    a->registered_ms = s_ms ();
    a->next_hb_ms = a->registered_ms + s_interval_ms;
}

static void
s_app_end (s_app_t *a)
{
    if (a->id[0]) {
        char body[256];
        snprintf (body, sizeof body, "{\"app_id\":\"%s\"}", a->id);
        s_send (a->sock, "UNREGISTER_APPLICATION", body);
    }
    zmq_close (a->sock);
    a->sock = NULL;
    a->id[0] = '\0';
}

static void
s_apps_tick (s_gen_t *g, double now)
{
    for (int i = 0; i < s_max_apps; i++) {
        s_app_t *a = &g->apps[i];
        if (!a->sock)
            continue;
        if (g->churn && now - a->registered_ms > g->app_life_ms)
            s_app_end (a);
        else if (a->id[0] && now >= a->next_hb_ms) {
            char body[256];
            snprintf (body, sizeof body, "{\"id\":\"%s\"}", a->id);
            s_send (a->sock, "HEARTBEAT", body);
            a->next_hb_ms += s_interval_ms;
        }
    }
    if (!g->churn || now < g->next_app_ms)
        return;
    g->next_app_ms = now + s_interval_ms;
    for (int i = 0; i < s_max_apps; i++)
        if (!g->apps[i].sock) {
            s_app_register (g, &g->apps[i], s_app_cores, 1);
            break;
        }
}

/* ---- the loop ---------------------------------------------------------- */

static bool
s_state_wants (const char *cmd)
{
    return strcmp (cmd, "MASTER_STATE_RESPONSE") == 0;
}

static void
s_drain (s_gen_t *g)
{
    char cmd[64];
    cJSON *body;
    for (int c = 0; c < g->nconns; c++)
        while (s_recv (g->conns[c], cmd, sizeof cmd, s_worker_wants, &body)) {
            s_on_worker_msg (g, g->conns[c], cmd, body);
            cJSON_Delete (body);
        }
    for (int i = 0; i < s_max_apps; i++) {
        s_app_t *a = &g->apps[i];
        while (a->sock
               && s_recv (a->sock, cmd, sizeof cmd, s_app_wants, &body)) {
            if (body)
                snprintf (a->id, sizeof a->id, "%s", s_str (body, "app_id"));
            cJSON_Delete (body);
        }
    }
    while (s_recv (g->state, cmd, sizeof cmd, s_state_wants, &body)) {
        if (body) {
            cJSON_Delete (g->last_state);
            g->last_state = body;
            g->state_pending = false;
        }
    }
}

/* Run the load for ms milliseconds, or until *until becomes false. */
static void
s_run (s_gen_t *g, double ms, const bool *until)
{
    double end = s_ms () + ms;
    zmq_pollitem_t items[64 + 1 + s_max_apps];
    for (;;) {
        double now = s_ms ();
        if (now >= end || (until && !*until))
            return;
        s_heartbeat_workers (g, now);
        s_apps_tick (g, now);
        size_t n = 0;
        for (int c = 0; c < g->nconns && n < 64; c++)
            items[n++] = (zmq_pollitem_t){g->conns[c], 0, ZMQ_POLLIN, 0};
        items[n++] = (zmq_pollitem_t){g->state, 0, ZMQ_POLLIN, 0};
        for (int i = 0; i < s_max_apps; i++)
            if (g->apps[i].sock)
                items[n++] =
                    (zmq_pollitem_t){g->apps[i].sock, 0, ZMQ_POLLIN, 0};
        zmq_poll (items, (int) n, 2);
        s_drain (g);
    }
}

/* Wait (serving the load) for count REGISTERED_WORKER in all. */
static void
s_wait_registered (s_gen_t *g, long count)
{
    double deadline = s_ms () + 60000;
    while (g->registered < count && s_ms () < deadline) {
        bool going = true;
        s_run (g, 10, &going);
    }
}

/* MASTER_STATE round trip, in ms, until the whole answer has arrived
   (before the generator parses it), serving the load meanwhile. */
static double
s_state_query (s_gen_t *g)
{
    g->state_pending = true;
    double t0 = s_ms ();
    s_send (g->state, "MASTER_STATE", "{}");
    while (g->state_pending && s_ms () - t0 < 30000)
        s_run (g, 30000, &g->state_pending);
    return g->state_pending ? s_ms () - t0 : s_body_ms - t0;
}

/* ---- the master process ------------------------------------------------- */

static pid_t
s_start_master (const char *bin, const char *ready)
{
    const char *argv[] = {bin,   "--host",        "127.0.0.1", "--port",
                          "0",   "--events-port", "0",         "--ready-file",
                          ready, "--log-level",   "error",     NULL};
    pid_t pid;
    if (posix_spawn (&pid, bin, NULL, NULL, (char *const *) argv, environ)
        != 0) {
        fprintf (stderr, "bench-master: cannot run %s\n", bin);
        exit (1);
    }
    return pid;
}

static void
s_read_url (const char *ready, char *url, char *events, size_t size)
{
    double deadline = s_ms () + 10000;
    while (s_ms () < deadline) {
        FILE *f = fopen (ready, "r");
        if (f) {
            bool ok = fgets (url, (int) size, f) != NULL
                      && fgets (events, (int) size, f) != NULL;
            fclose (f);
            url[strcspn (url, "\r\n")] = '\0';
            events[strcspn (events, "\r\n")] = '\0';
            if (ok && *url && *events)
                return;
        }
        usleep (5000); /* the bench's own start-up, not measured */
    }
    fprintf (stderr, "bench-master: the master did not start\n");
    exit (1);
}

/* CPU seconds (user + system) of pid so far. */
static double
s_cpu_s (pid_t pid)
{
    char path[64], buf[1024];
    snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
    FILE *f = fopen (path, "r");
    if (!f)
        return 0;
    size_t n = fread (buf, 1, sizeof buf - 1, f);
    fclose (f);
    buf[n] = '\0';
    char *p = strrchr (buf, ')');
    unsigned long utime = 0, stime = 0;
    /* after the command: state, then fields 4..13, then utime and stime */
    if (p)
        sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                &utime, &stime);
    return (double) (utime + stime) / (double) sysconf (_SC_CLK_TCK);
}

/* ---- the allocator pass ------------------------------------------------- */

static void
s_alloc_pass (const cJSON *state, long reps)
{
    const cJSON *workers = cJSON_GetObjectItemCaseSensitive (state, "workers");
    int nw = cJSON_GetArraySize (workers);
    hearth_alloc_worker_t *w = calloc (nw ? nw : 1, sizeof *w);
    hearth_alloc_app_t apps[100];
    size_t n = 0;
    const cJSON *o;
    cJSON_ArrayForEach (o, workers)
    {
        w[n++] = (hearth_alloc_worker_t){
            strcmp (s_str (o, "state"), "ALIVE") == 0,
            (int) (s_num (o, "cores") - s_num (o, "cores_used")),
            (int64_t) (s_num (o, "memory_mb") - s_num (o, "memory_used_mb"))};
    }
    for (int i = 0; i < s_waiting_apps; i++)
        apps[i] = (hearth_alloc_app_t){64 + i, i % 3, 1024};
    double us[BENCH_MAX_REPS];
    size_t executors = 0;
    for (long r = 0; r < reps; r++) {
        hearth_alloc_input_t in = {.workers = w,
                                   .nworkers = n,
                                   .apps = apps,
                                   .napps = s_waiting_apps,
                                   .spread_out = true};
        hearth_alloc_result_t res = {0};
        double t0 = bench_now_us ();
        hearth_alloc_schedule (&in, &res);
        us[r] = bench_now_us () - t0;
        executors = res.nexecutors;
        hearth_alloc_result_clear (&res);
    }
    printf ("# allocation pass: %d waiting applications over %zu workers "
            "(from MASTER_STATE): %zu executors placed\n",
            s_waiting_apps, n, executors);
    bench_figure ("master.alloc_pass", us, reps, "us");
    free (w);
}

/* ---- main --------------------------------------------------------------- */

/* A worker's death: one worker stops heartbeating (the others go on)
   and the time until the master's `worker` event says it is DEAD, beside
   the liveness window (5 intervals of 1 s, the master's defaults): the
   same at every count, or the master's loop falls behind its workers. */
static void
s_death (s_gen_t *g)
{
    if (g->nsilent == (int) (sizeof g->silent / sizeof g->silent[0]))
        return;
    void *sub = zmq_socket (g->ctx, ZMQ_SUB);
    int linger = 0;
    zmq_setsockopt (sub, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (sub, ZMQ_SUBSCRIBE, "worker", 6);
    bench_cookie (sub);
    zmq_connect (sub, g->events_url);
    s_run (g, 1000, NULL); /* the subscription reaches the master */
    /* One of the first: any message from a connection is a sign of life
       of the worker that registered last on it (the master knows a
       connection as one peer), which the simulated ones share. */
    int victim = g->nsilent;
    char id[64];
    s_worker_id (id, sizeof id, victim);
    g->silent[g->nsilent++] = victim;
    double t0 = s_ms (), ms = -1;
    while (ms < 0 && s_ms () - t0 < 30000) {
        s_run (g, 5, NULL);
        char topic[64], body[65536];
        while (zmq_recv (sub, topic, sizeof topic, ZMQ_DONTWAIT) >= 0) {
            int n = zmq_recv (sub, body, sizeof body - 1, 0);
            if (n < 0)
                break;
            body[n < (int) sizeof body - 1 ? n : (int) sizeof body - 1] = '\0';
            if (ms < 0 && strstr (body, id) && strstr (body, "\"DEAD\""))
                ms = s_ms () - t0;
        }
    }
    zmq_close (sub);
    printf ("# worker %s silent: DEAD after %.0f ms (liveness window 5000 "
            "ms: 5 intervals of 1 s)\n",
            id, ms);
    char key[128];
    snprintf (key, sizeof key, "master.%d.death_ms", g->nworkers);
    bench_figure (key, &ms, 1, "ms");
    if (ms < 0)
        s_failed = true; /* never seen: the exit status says so */
}

static void
s_usage (void)
{
    fprintf (stderr, "usage: bench-master [--workers N,N,...] [--conns N] "
                     "[--window-ms N] [--reps N] [--app-life-ms N] "
                     "[--master-bin PATH]\n");
    exit (2);
}

static void
s_measure (s_gen_t *g, long window_ms, long reps, long idle_kb)
{
    double cpu[BENCH_MAX_REPS], rss[BENCH_MAX_REPS], per[BENCH_MAX_REPS],
        state_ms[BENCH_MAX_REPS];
    for (long r = 0; r < reps; r++) {
        double c0 = s_cpu_s (g->pid), t0 = s_ms ();
        s_run (g, (double) window_ms, NULL);
        cpu[r] = (s_cpu_s (g->pid) - c0) / ((s_ms () - t0) / 1000.0);
        long kb = bench_proc_status_kb (g->pid, "VmRSS");
        rss[r] = (double) kb / 1024.0;
        per[r] = (double) (kb - idle_kb) * 1024.0 / g->nworkers;
        state_ms[r] = s_state_query (g);
    }
    char key[128];
    printf ("# %d simulated workers over %d connections heartbeating at 1 Hz, "
            "applications coming and going (%ld launches, %ld kills so far)\n",
            g->nworkers, g->nconns, g->launches, g->kills);
    snprintf (key, sizeof key, "master.%d.cpu", g->nworkers);
    bench_figure (key, cpu, reps, "core");
    snprintf (key, sizeof key, "master.%d.rss", g->nworkers);
    bench_figure (key, rss, reps, "MiB");
    snprintf (key, sizeof key, "master.%d.rss_per_worker", g->nworkers);
    bench_figure (key, per, reps, "B");
    snprintf (key, sizeof key, "master.%d.state", g->nworkers);
    bench_figure (key, state_ms, reps, "ms");
}

int
main (int argc, char **argv)
{
    long reps = 3, window_ms = 5000, conns = 10, life_ms = 5000;
    const char *levels = "1000,5000,10000";
    char bin[4096];
    const char *dir = getenv ("HEARTH_BIN_DIR");
    snprintf (bin, sizeof bin, "%s/hearth-master", dir ? dir : ".");
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value)
            s_usage ();
        if (strcmp (name, "--workers") == 0)
            levels = value;
        else if (strcmp (name, "--conns") == 0)
            conns = bench_arg_long (name, value);
        else if (strcmp (name, "--window-ms") == 0)
            window_ms = bench_arg_long (name, value);
        else if (strcmp (name, "--reps") == 0)
            reps = bench_arg_long (name, value);
        else if (strcmp (name, "--app-life-ms") == 0)
            life_ms = bench_arg_long (name, value);
        else if (strcmp (name, "--master-bin") == 0)
            snprintf (bin, sizeof bin, "%s", value);
        else
            s_usage ();
        i++;
    }
    if (reps > BENCH_MAX_REPS)
        reps = BENCH_MAX_REPS;
    if (conns > 64)
        conns = 64;
    signal (SIGPIPE, SIG_IGN);

    char ready[] = "/tmp/bench-master-XXXXXX";
    if (!mkdtemp (ready)) {
        perror ("bench-master: mkdtemp");
        return 1;
    }
    char ready_file[64];
    snprintf (ready_file, sizeof ready_file, "%s/ready", ready);
    s_gen_t g = {
        .nconns = (int) conns, .app_life_ms = (double) life_ms, .churn = true};
    g.pid = s_start_master (bin, ready_file);
    s_read_url (ready_file, g.url, g.events_url, sizeof g.url);
    unlink (ready_file);
    rmdir (ready);

    g.ctx = zmq_ctx_new ();
    g.conns = calloc (conns, sizeof *g.conns);
    int hwm = 1000000, linger = 0;
    for (int c = 0; c < conns; c++) {
        g.conns[c] = zmq_socket (g.ctx, ZMQ_DEALER);
        zmq_setsockopt (g.conns[c], ZMQ_SNDHWM, &hwm, sizeof hwm);
        zmq_setsockopt (g.conns[c], ZMQ_RCVHWM, &hwm, sizeof hwm);
        zmq_setsockopt (g.conns[c], ZMQ_LINGER, &linger, sizeof linger);
        bench_cookie (g.conns[c]);
        zmq_connect (g.conns[c], g.url);
    }
    g.state = zmq_socket (g.ctx, ZMQ_DEALER);
    zmq_setsockopt (g.state, ZMQ_LINGER, &linger, sizeof linger);
    bench_cookie (g.state);
    zmq_connect (g.state, g.url);
    g.cycle_ms = g.next_app_ms = s_ms ();

    s_run (&g, 500, NULL);
    long idle_kb = bench_proc_status_kb (g.pid, "VmRSS");
    printf ("# master idle: %.1f MiB RSS\n", idle_kb / 1024.0);

    for (const char *p = levels; *p;) {
        int upto = atoi (p);
        if (upto > g.nworkers) {
            s_register_workers (&g, upto);
            s_wait_registered (&g, upto);
            s_run (&g, 2000, NULL); /* settle: a full heartbeat cycle */
            s_measure (&g, window_ms, reps, idle_kb);
            s_death (&g);
        }
        p = strchr (p, ',') ? strchr (p, ',') + 1 : p + strlen (p);
    }
    s_state_query (&g);
    if (g.last_state)
        s_alloc_pass (g.last_state, reps > 5 ? reps : 5);

    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    printf ("# the load generator itself used %.1f s of CPU\n",
            ru.ru_utime.tv_sec + ru.ru_stime.tv_sec
                + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    kill (g.pid, SIGTERM);
    int status;
    waitpid (g.pid, &status, 0);
    for (int i = 0; i < s_max_apps; i++)
        if (g.apps[i].sock)
            zmq_close (g.apps[i].sock);
    for (int c = 0; c < conns; c++)
        zmq_close (g.conns[c]);
    zmq_close (g.state);
    cJSON_Delete (g.last_state);
    zmq_ctx_term (g.ctx);
    free (g.conns);
    return s_failed ? 1 : 0;
}

/*  main.c - hearth-master: options, start-up (with the journal's recovery,
    recover.c), the event loop and its periodic tick (credit the master's
    own pauses to its peers, read what they sent, expire silent workers
    and drivers, heartbeat everyone, forget long-dead workers, sync the
    journal, schedule), and a clean stop on SIGTERM or SIGINT.  SIGHUP
    reopens the log file and re-reads the allow directory; with CURVE,
    every message's sender is checked against it (removed keys are cut
    off: admit.c). */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/conf.h"
#include "libcore/liveness.h"
#include "libcore/log.h"
#include "libcore/loop.h"
#include "libcore/notify.h"
#include "libcore/readyfile.h"
#include "libcore/sock.h"
#include "libcore/spawn.h"
#include "libcore/start.h"
#include "libcore/units.h"
#include "libcore/web.h"
#include "master/admit.h"
#include "master/authz.h"
#include "master/claims.h"
#include "master/cluster.h"
#include "master/drivers.h"
#include "master/drvkeys.h"
#include "master/drvlog.h"
#include "master/follow.h"
#include "master/ha.h"
#include "master/handlers.h"
#include "master/limits.h"
#include "master/master.h"
#include "master/recover.h"
#include "master/replicate.h"
#include "master/resume.h"
#include "master/send.h"
#include "master/web.h"

/* Messages handled per wake-up before the loop looks at other sockets. */
static const int s_max_batch = 256;
/* Messages read before the tick judges liveness after a pause (its
   peers' heartbeats of the whole pause may be waiting). */
static const int s_max_drain = 4096;
/* Workers or drivers expired, and dead workers forgotten, per tick. */
static const size_t s_max_expire_per_tick = 1000;
/* Failed launches are logged once per worker per this period (then
   counted), for at most this many workers at once. */
static const int64_t s_launch_log_period_ms = 60000;
static const size_t s_launch_log_keys_max = 10000;
/* Free heap pages are given back this often.  ZeroMQ's I/O thread
   receives into its own malloc arena, and glibc returns pages from the
   middle of such an arena only through malloc_trim: after a burst (50,000
   workers registering) the arena kept 240 MiB of which 2 MiB were in use,
   3 of the 5 KiB a worker cost (bench-master).  A trim there takes about
   5 ms, half a percent of a core each second; every 5 s left the RSS
   swinging by 300 B a worker between trims. */
static const int64_t s_trim_period_ms = 1000;
/* Most open files the master asks for (when the hard limit is higher). */
static const rlim_t s_max_open_files = 1 << 20;

/* Option rows: name, type, default, metavar, help (and range, alias). */
#define OPT(n, t, d, mv, h)                                                    \
    {                                                                          \
        .name = n, .type = t, .dflt = d, .metavar = mv, .help = h              \
    }
#define INT_OPT(n, d, mv, h, lo, hi)                                           \
    {                                                                          \
        .name = n, .type = HEARTH_OPT_INT, .dflt = d, .metavar = mv,           \
        .help = h, .min = lo, .max = hi                                        \
    }
#define ALIAS_OPT(n, h, of, v)                                                 \
    {                                                                          \
        .name = n, .type = HEARTH_OPT_ALIAS, .help = h, .alias_of = of,        \
        .alias_value = v                                                       \
    }

static const hearth_opt_t s_opts[] = {
    OPT ("host", HEARTH_OPT_STR, "127.0.0.1", "ADDR",
         "address to bind and advertise (0.0.0.0: all, advertised by "
         "hostname)"),
    OPT ("advertise-host", HEARTH_OPT_STR, NULL, "HOST",
         "the host in the URLs the master gives out (its election node, "
         "LAUNCH_DRIVER, the ready file; default: --host, or the hostname "
         "for 0.0.0.0)"),
    INT_OPT ("port", "7077", "N", "ROUTER port (0: any free port)", 0, 65535),
    INT_OPT ("events-port", NULL, "N",
             "PUB port for events (default: port + 1; any free port when "
             "--port is 0)",
             0, 65535),
    OPT ("policy", HEARTH_OPT_STR, "spread-out", "POLICY",
         "spread-out or consolidate"),
    ALIAS_OPT ("spread-out",
               "spread applications over as many workers as possible", "policy",
               "spread-out"),
    ALIAS_OPT ("consolidate",
               "pack applications onto as few workers as possible", "policy",
               "consolidate"),
    OPT ("heartbeat-interval", HEARTH_OPT_DURATION, "1s", NULL,
         "heartbeat interval of every link"),
    INT_OPT ("heartbeat-liveness", "5", NULL,
             "missed intervals after which a worker or driver is dead", 1,
             1000),
    INT_OPT ("max-executor-retries", "10", NULL,
             "executor failures in a row (none running) that fail an "
             "application (-1: never)",
             -1, 1000000),
    INT_OPT ("retained-apps", "200", NULL,
             "completed applications kept in the state", 0, 1000000),
    OPT ("dead-worker-retention", HEARTH_OPT_DURATION, "10m", NULL,
         "how long a DEAD worker stays in the state"),
    OPT ("max-submit-size", HEARTH_OPT_SIZE, "64M", "SIZE",
         "largest application (files and libraries) a SUBMIT_DRIVER may "
         "carry"),
    OPT ("driver-relaunch-delay", HEARTH_OPT_DURATION, "1s", NULL,
         "wait before relaunching a supervised driver that failed; doubles "
         "with each failure in a row"),
    OPT ("driver-relaunch-max", HEARTH_OPT_DURATION, "1m", NULL,
         "cap of that wait; a run this long resets the doubling"),
    OPT ("ready-file", HEARTH_OPT_STR, NULL, "FILE",
         "once bound, write the ROUTER and events URLs there (one per line)"),
    OPT ("journal", HEARTH_OPT_STR, NULL, "DIR",
         "keep a journal of the cluster's state in DIR and recover from it "
         "at start-up"),
    OPT ("recovery-timeout", HEARTH_OPT_DURATION, NULL, NULL,
         "after a restart, how long to wait for the journal's workers and "
         "drivers, and for the workers to say whose the application ids "
         "claimed meanwhile are (default: twice liveness x interval, at "
         "least 5s)"),
    MASTER_HA_OPTIONS,
    OPT ("pid-file", HEARTH_OPT_STR, NULL, "FILE",
         "write the pid there (locked while running, removed at exit)"),
    HEARTH_CURVE_SERVER_OPTIONS,
    HEARTH_WEB_OPTIONS ("8080"),
    INT_OPT ("max-cores-per-key", "0", "N",
             "cores the applications and drivers of one CURVE key may hold "
             "together (0: no limit)",
             0, 1000000),
    OPT ("key-limits", HEARTH_OPT_STR, NULL, "FILE",
         "per-key overrides of --max-cores-per-key, lines 'KEY CORES' "
         "(reloaded on SIGHUP)"),
    OPT ("resume-window", HEARTH_OPT_DURATION, "10m", NULL,
         "how long an application whose driver is lost stays RELAUNCHING, "
         "its executors stopped and its files kept on its workers, for a "
         "driver to resume it (0: FAILED at once)"),
    OPT ("unschedulable-timeout", HEARTH_OPT_DURATION, "2m", NULL,
         "an application or driver that no live worker could ever hold "
         "fails after waiting this long (0: never)"),
    OPT ("log-level", HEARTH_OPT_STR, "info", "LEVEL",
         "error, warn, info or debug"),
    OPT ("log-file", HEARTH_OPT_STR, NULL, "FILE",
         "log there instead of stderr (reopened on SIGHUP)"),
    OPT ("authz-table", HEARTH_OPT_BOOL, NULL, NULL,
         "print who may send each command (the authorization table) and "
         "exit"),
    {.name = NULL},
};

/* --- the loop ---------------------------------------------------------- */

/* An allocation pass, timed for /metrics. */
static void
s_schedule (master_t *m)
{
    int64_t t0 = hearth_mono_us ();
    master_schedule (m);
    hearth_prom_observe (&m->metrics.schedule,
                         (double) (hearth_mono_us () - t0) / 1e6);
}

/* The registry's observer: executor ends counted for /metrics, then
   cluster.c's (events, and who must hear of the change). */
static void
s_on_change (void *arg, registry_change_t *c)
{
    master_t *m = arg;
    if (c->exec && strcmp (c->topic, "executor") == 0
        && registry_exec_final (c->exec->state)
        && (size_t) c->exec->state
               < sizeof m->metrics.exec_exits / sizeof m->metrics.exec_exits[0])
        m->metrics.exec_exits[c->exec->state]++;
    master_on_change (arg, c);
}

/* Read at most max messages already queued on the ROUTER, without
   waiting: the loop's reader (loop.h), and the tick's.  Each is taken
   without asking ZMQ_EVENTS first: that question made libzmq look at its
   mailbox, a getpid() and a poll() a message, a fifth of the master's
   CPU at 50,000 workers (docs/performance.md, "The master's reads"); the
   receive that finds nothing looks once, and quiets the socket's
   descriptor until the next message.  Returns 1 when it stopped at max
   with messages perhaps left (the loop calls its reader again before it
   waits), else 0. */
static int
s_read (master_t *m, zsock_t *sock, int max)
{
    /* With CURVE, each message's sender must still be admitted (its key
       may have left the allow directory since it connected). */
    hearth_zap_t *zap = m->curve.zap;
    hearth_sender_t peer;
    int n = 0;
    for (; n < max; n++) {
        zframe_t *rid = NULL;
        hearth_error_t err;
        bool none;
        hearth_msg_t *msg = hearth_msg_try_recv_from (
            sock, &rid, zap ? &peer : NULL, &none, &err);
        if (none)
            break;
        if (!msg && hearth_recv_broken (&err)) {
            log_error ("the master's socket: %s", err.text);
            break;
        }
        /* A refused peer's messages are dropped, and its record ends. */
        bool refused =
            zap && rid && !hearth_zap_admits (zap, peer.user_id, peer.address);
        m->metrics.heartbeats += msg && msg->cmd == HEARTH_CMD_HEARTBEAT;
        m->metrics.refused_unadmitted += refused;
        m->metrics.refused_malformed += !msg && rid && !refused;
        hearth_from_t from = {.rid = rid, .key = zap ? peer.user_id : ""};
        if (msg && !refused)
            master_dispatch (m, &from, msg);
        else if (rid && !refused)
            master_reject (m, rid, err.code ? err.code : "error", err.text,
                           NULL);
        if (zap && rid)
            master_admit_seen (m, rid, peer.user_id, refused);
        hearth_msg_destroy (&msg);
        zframe_destroy (&rid);
    }
    master_drivers_settle (m);
    if (m->dirty)
        s_schedule (m);
    master_replicate_flush (m); /* this turn's records, to the standbys */
    return n == max ? 1 : 0;
}

static int
s_on_router (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    return s_read (arg, sock, s_max_batch);
}

/* Subscriptions to the events, or their ends (XPUB: 1 or 0, then the
   prefix; each prefix once, however many subscribe to it), read without
   waiting until none is left (loop.h). */
static int
s_on_subscription (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    void *xpub = zsock_resolve (sock);
    for (int n = 0; n < s_max_batch; n++) {
        zmq_msg_t f;
        zmq_msg_init (&f);
        if (zmq_msg_recv (&f, xpub, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close (&f);
            return 0;
        }
        master_events_subscription (arg, zmq_msg_data (&f), zmq_msg_size (&f));
        zmq_msg_close (&f);
    }
    return 1;
}

static void
s_expire (master_t *m, int64_t now)
{
    int64_t timeout = m->interval_ms * m->liveness;
    char reason[128];
    size_t n = 0;
    reg_worker_t *w;
    reg_app_t *app;
    while (n++ < s_max_expire_per_tick
           && (w = registry_silent_worker (m->reg, now))) {
        snprintf (reason, sizeof reason, "no heartbeat for %lld ms",
                  (long long) timeout);
        log_warn ("worker %s (%s) is DEAD: %s", w->id, w->host, reason);
        registry_worker_dead (m->reg, w, reason, now);
    }
    while (n++ < 2 * s_max_expire_per_tick
           && (app = registry_silent_app (m->reg, now))) {
        snprintf (reason, sizeof reason,
                  "driver lost: no heartbeat for %lld ms", (long long) timeout);
        master_app_driver_lost (m, app, reason);
    }
}

/* A tick that comes more than a tick late found the master not running
   (stopped, a stalled machine, a handler that blocked): its peers cannot
   be blamed for that time, so every deadline moves by the gap (and the
   recovery's), and what they sent meanwhile is read before anyone is
   judged.  Returns the gap credited (0: none). */
static int64_t
s_credit_pause (master_t *m, int64_t now)
{
    int64_t gap = hearth_liveness_gap (m->last_tick_ms, now, m->tick_ms);
    m->last_tick_ms = now;
    if (gap <= 0)
        return 0;
    if (gap >= m->interval_ms)
        log_warn ("the master was not running for %lld ms: every worker's "
                  "and driver's deadline moves by that much",
                  (long long) gap);
    registry_liveness_pause (m->reg, gap);
    if (m->recovering)
        m->rec_deadline_ms += gap;
    return gap;
}

static int
s_on_tick (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) timer_id;
    master_t *m = arg;
    int64_t now = hearth_mono_ms ();
    /* The loop reads the sockets that woke it before it runs the timers
       due, but a reader that stopped at its batch is read again only on
       the next turn, after them: read what is queued first (after a
       pause, the whole pause's heartbeats may be waiting: more of it), so
       that a heartbeat waiting there counts.  Stopped with more left, the
       reader is called before the loop waits (loop.h). */
    int64_t gap = s_credit_pause (m, now);
    if (s_read (m, m->router, gap > 0 ? s_max_drain : s_max_batch) > 0)
        hearth_loop_sent (loop, m->router);
    now = hearth_mono_ms ();
    if (now >= m->next_trim_ms) {
        malloc_trim (0);
        m->next_trim_ms = now + s_trim_period_ms;
    }
    if (m->role == MASTER_STANDBY) {
        master_follow_tick (m, now); /* no peers of its own to judge */
        return m->reexec ? -1 : 0;
    }
    master_replicate_tick (m, now);
    s_expire (m, now);
    master_resume_tick (m);
    if (now >= m->next_heartbeat_ms) {
        master_broadcast_heartbeat (m);
        m->next_heartbeat_ms = now + m->interval_ms;
    }
    int64_t retention = hearth_conf_ms (m->conf, "dead-worker-retention");
    registry_reap (m->reg, now - retention, s_max_expire_per_tick);
    master_journal_tick (m, now);
    master_driver_logs_tick (m, now);
    hearth_loglimit_flush (m->launch_log, HEARTH_LOG_WARN, now);
    master_dispatch_held (m, now);
    master_drivers_settle (m);
    if (m->dirty || m->held)
        s_schedule (m);
    master_replicate_flush (m);
    return m->reexec ? -1 : 0;
}

static void
s_on_sighup (master_t *m)
{
    log_info ("SIGHUP: reopening the log");
    hearth_log_reopen ();
    if (m->curve.zap)
        master_admit_reload (m);
    hearth_error_t err;
    if (limits_reload (m->limits, &err) < 0)
        log_error ("%s: the key limits stay as they were", err.text);
    m->dirty = true; /* limits may have changed */
}

static int
s_on_signal (hearth_loop_t *loop, int fd, void *arg)
{
    (void) loop;
    int sig;
    while ((sig = hearth_signalfd_read (fd)) > 0) {
        if (sig == SIGHUP) {
            s_on_sighup (arg);
            continue;
        }
        log_info ("%s: stopping", strsignal (sig));
        return -1;
    }
    return 0;
}

/* --- start-up ---------------------------------------------------------- */

/* The host part of our URLs: --advertise-host, else the bind address, or
   the hostname for a wildcard bind. */
static void
s_advertised_host (const char *host, const char *advertise, char *buf,
                   size_t size)
{
    if (advertise) {
        snprintf (buf, size, "%s", advertise);
        return;
    }
    if (strcmp (host, "0.0.0.0") == 0 || strcmp (host, "*") == 0) {
        if (gethostname (buf, size) == 0) {
            buf[size - 1] = '\0';
            return;
        }
        host = "127.0.0.1";
    }
    snprintf (buf, size, "%s", host);
}

/* The TCP port a socket is bound to, from ZMQ_LAST_ENDPOINT, or -1. */
static int
s_bound_port (zsock_t *sock)
{
    char *last = zsock_last_endpoint (sock);
    char *colon = last ? strrchr (last, ':') : NULL;
    int port = colon ? atoi (colon + 1) : -1;
    free (last);
    return port > 0 ? port : -1;
}

/* Bind to HOST:PORT; port 0 lets the kernel choose (czmq's "*" would scan
   up from 49152, so that concurrent masters, and a restarted one, keep
   colliding on the same few ports). */
static int
s_bind (zsock_t *sock, const char *host, const char *advertise, int64_t port,
        char *url, size_t url_size, hearth_error_t *err)
{
    char endpoint[300], advertised[256];
    snprintf (endpoint, sizeof endpoint, "tcp://%s:%lld", host,
              (long long) port);
    if (hearth_sock_bind (sock, endpoint, err) < 0)
        return -1;
    int bound = s_bound_port (sock);
    if (bound < 0)
        return hearth_errprintf (err, "cannot tell the port bound for %s",
                                 endpoint);
    s_advertised_host (host, advertise, advertised, sizeof advertised);
    snprintf (url, url_size, "tcp://%s:%d", advertised, bound);
    return 0;
}

/* Write the URLs to path atomically (readyfile.h). */
static int
s_write_ready_file (master_t *m, const char *path, hearth_error_t *err)
{
    char text[700];
    snprintf (text, sizeof text, "%s\n%s\n", m->url, m->events_url);
    return hearth_ready_file_write (path, text, err);
}

static int
s_open_sockets (master_t *m, hearth_error_t *err)
{
    const char *host = hearth_conf_str (m->conf, "host");
    int64_t port = hearth_conf_int (m->conf, "port");
    int64_t eport = hearth_conf_isset (m->conf, "events-port")
                        ? hearth_conf_int (m->conf, "events-port")
                    : port ? port + 1
                           : 0;
    hearth_sock_opts_t router = {.type = ZMQ_ROUTER};
    hearth_sock_opts_t pub = {.type = ZMQ_XPUB};
    if (hearth_curve_server_setup (&m->curve, m->conf, host, err) < 0
        || master_admit_masters (m, err) < 0)
        return -1;
    /* a single master restored its journal before it had keys: the keys
       of the drivers placed are admitted now (an elected candidate's, as
       it opens its journal: recover.c) */
    master_driver_keys_restored (m);
    hearth_curve_server_opts (&m->curve, &router);
    hearth_curve_server_opts (&m->curve, &pub);
    if (!(m->router = hearth_sock_new (&router, err))
        || !(m->pub = hearth_sock_new (&pub, err)))
        return -1;
    const char *adv = hearth_conf_str (m->conf, "advertise-host");
    if (s_bind (m->router, host, adv, port, m->url, sizeof m->url, err) < 0
        || s_bind (m->pub, host, adv, eport, m->events_url,
                   sizeof m->events_url, err)
               < 0)
        return -1;
    return 0;
}

static int
s_configure (master_t *m, hearth_error_t *err)
{
    const char *policy = hearth_conf_str (m->conf, "policy");
    if (strcmp (policy, "spread-out") != 0
        && strcmp (policy, "consolidate") != 0)
        return hearth_errprintf (err,
                                 "bad value for policy: '%s' (expected "
                                 "spread-out or consolidate)",
                                 policy);
    m->spread_out = strcmp (policy, "spread-out") == 0;
    m->interval_ms = hearth_conf_ms (m->conf, "heartbeat-interval");
    if (m->interval_ms < 1)
        return hearth_errprintf (err, "heartbeat-interval must be at least "
                                      "1ms");
    m->liveness = hearth_conf_int (m->conf, "heartbeat-liveness");
    m->max_executor_retries =
        (int) hearth_conf_int (m->conf, "max-executor-retries");
    m->max_submit_bytes =
        (int64_t) hearth_conf_bytes (m->conf, "max-submit-size");
    m->relaunch_delay_ms = hearth_conf_ms (m->conf, "driver-relaunch-delay");
    m->relaunch_max_ms = hearth_conf_ms (m->conf, "driver-relaunch-max");
    m->resume_window_ms = hearth_conf_ms (m->conf, "resume-window");
    if (m->relaunch_delay_ms < 1 || m->relaunch_max_ms < m->relaunch_delay_ms)
        return hearth_errprintf (err, "driver-relaunch-delay must be at least "
                                      "1ms and at most driver-relaunch-max");
    m->rand_state = (uint64_t) time (NULL) ^ ((uint64_t) getpid () << 32);
    m->rand_state |= 1;
    m->started_ms = registry_wall_ms ();
    return master_ha_configure (m, err);
}

static void
s_stamp_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

/* Every peer is a connection: raise the soft limit of open files to the
   hard one, so that a login shell's 1024 does not cap the cluster, nor
   let a flood of idle connections take the last one (past the limit
   libzmq accepts nothing: the next worker goes unanswered). */
static void
s_raise_open_files (void)
{
    struct rlimit rl;
    if (getrlimit (RLIMIT_NOFILE, &rl) < 0)
        return;
    rlim_t want =
        rl.rlim_max < s_max_open_files ? rl.rlim_max : s_max_open_files;
    if (rl.rlim_cur >= want)
        return;
    rlim_t old = rl.rlim_cur;
    rl.rlim_cur = want;
    if (setrlimit (RLIMIT_NOFILE, &rl) == 0)
        log_info ("open files: %llu (raised from %llu)",
                  (unsigned long long) want, (unsigned long long) old);
}

static int
s_setup (master_t *m, hearth_error_t *err)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, 0};
    const char *pidfile = hearth_conf_str (m->conf, "pid-file");
    if (s_configure (m, err) < 0)
        return -1;
    if (pidfile && !(m->pidfile = hearth_pidfile_open (pidfile, err)))
        return -1;
    if ((m->sigfd = hearth_signalfd_open (sigs)) < 0)
        return hearth_errprintf (err, "signalfd: %s", strerror (errno));
    s_raise_open_files ();
    hearth_zsys_init ();
    size_t retained = (size_t) hearth_conf_int (m->conf, "retained-apps");
    m->reg = registry_new (retained, m->interval_ms * m->liveness);
    m->log_limit = zhashx_new ();
    m->launch_log =
        hearth_loglimit_new (s_launch_log_period_ms, s_launch_log_keys_max);
    m->loop = hearth_loop_new ();
    m->logs = drvlog_new ();
    m->orphan_apps = master_orphan_list_new ();
    m->denials = hearth_refusals_new ();
    m->claims = claims_new (hearth_mono_ms () + master_recovery_timeout (m));
    if (!m->reg || !m->log_limit || !m->launch_log || !m->loop || !m->logs
        || !m->orphan_apps || !m->denials || !m->claims)
        return hearth_errprintf (err, "out of memory");
    if (!(m->limits =
              limits_new (hearth_conf_int (m->conf, "max-cores-per-key"),
                          hearth_conf_str (m->conf, "key-limits"), err)))
        return -1;
    zhashx_set_destructor (m->log_limit, s_stamp_destroy);
    registry_set_observer (m->reg, s_on_change, m);
    /* a candidate opens its journal when it is elected (ha.c) */
    if ((m->role == MASTER_SINGLE && master_journal_open (m, err) < 0)
        || s_open_sockets (m, err) < 0)
        return -1;
    int64_t tick = hearth_liveness_tick_ms (m->interval_ms);
    m->tick_ms = tick;
    if (hearth_loop_reader (m->loop, m->router, s_on_router, m) < 0
        || hearth_loop_reader (m->loop, m->pub, s_on_subscription, m) < 0
        || hearth_loop_fd (m->loop, m->sigfd, s_on_signal, m) < 0
        || hearth_loop_timer (m->loop, (size_t) tick, 0, s_on_tick, m) < 0)
        return hearth_errprintf (err, "cannot set up the event loop");
    if ((m->curve.zap && master_admit_watch (m, err) < 0)
        || (m->curve.cookie_zap && master_admit_local (m, err) < 0))
        return -1;
    if (master_web_open (m, err) < 0 || master_ha_open (m, err) < 0)
        return -1;
    if (!m->curve.zap && limits_any (m->limits))
        log_warn ("per-key limits need CURVE keys (--curve-secret): without "
                  "them no application has a key, and none is limited");
    const char *ready = hearth_conf_str (m->conf, "ready-file");
    return ready ? s_write_ready_file (m, ready, err) : 0;
}

static void
s_teardown (master_t *m)
{
    master_ha_close (m);  /* first: the next leader takes over at once */
    master_web_close (m); /* its descriptor and timer are the loop's */
    hearth_loop_destroy (&m->loop);
    master_journal_close (m);
    registry_destroy (&m->reg);
    zhashx_destroy (&m->log_limit);
    hearth_loglimit_destroy (&m->launch_log);
    drvlog_destroy (&m->logs);
    zlistx_destroy (&m->orphan_apps);
    claims_destroy (&m->claims);
    hearth_refusals_destroy (&m->denials);
    limits_destroy (&m->limits);
    hearth_sock_destroy (&m->router);
    hearth_sock_destroy (&m->pub);
    hearth_curve_cleanup (&m->curve);
    if (m->sigfd >= 0)
        close (m->sigfd);
    hearth_pidfile_remove (&m->pidfile);
    hearth_conf_destroy (&m->conf);
}

/* The leadership is lost for good: every socket, the journal's lock and
   the session go, then the same command line runs again in this process
   (same pid: the pid file, systemd and the tests still know it), a fresh
   candidate without the old leader's state (ha.h).  Returns only when
   the exec fails: 1. */
static int
s_reexec (master_t *m)
{
    char **argv = master_ha_argv (m);
    log_warn ("re-executing %s as a candidate", argv ? argv[0] : "(no memory)");
    s_teardown (m);
    hearth_log_close ();
    zsys_shutdown ();
    if (argv)
        execv ("/proc/self/exe", argv);
    fprintf (stderr, "hearth-master: cannot re-execute itself: %s\n",
             strerror (errno));
    master_ha_argv_free (&argv);
    return 1;
}

/* Parse options; returns 1 to go on, 0 to exit with success (--help,
   --version), -1 to exit with failure. */
static int
s_parse (master_t *m, int argc, char **argv)
{
    if (!(m->conf = hearth_conf_new ("hearth-master", s_opts)))
        return -1;
    hearth_conf_strict (m->conf); /* its settings are all its own */
    return hearth_start (m->conf, argc, argv, "[OPTIONS]",
                         "The Hearth master: registers workers and "
                         "applications, tracks heartbeats,\nallocates "
                         "cores and publishes cluster events "
                         "(docs/cluster.md).");
}

int
main (int argc, char **argv)
{
    master_t m = {
        .sigfd = -1, .last_tick_ms = INT64_MIN, .argc = argc, .argv = argv};
    hearth_error_t err;
    hearth_notify_init ();
    int rc = s_parse (&m, argc, argv);
    if (rc > 0 && hearth_conf_bool (m.conf, "authz-table")) {
        master_authz_print (stdout);
        rc = 0;
    }
    if (rc <= 0) {
        hearth_conf_destroy (&m.conf);
        return rc == 0 ? 0 : 2;
    }
    if (s_setup (&m, &err) < 0) {
        log_error ("%s", err.text);
        s_teardown (&m);
        hearth_log_close ();
        return 1;
    }
    log_info ("master %s up (events %s, %s, heartbeat %lld ms x %lld)", m.url,
              m.events_url, m.spread_out ? "spread-out" : "consolidate",
              (long long) m.interval_ms, (long long) m.liveness);
    master_publish_master (&m, "started", NULL);
    if (m.recovering)
        master_publish_master (&m, "recovering",
                               "restarted on a journal with live workers or "
                               "applications");
    /* Ready: its sockets are bound and its journal replayed. */
    hearth_notifyf ("READY=1\nSTATUS=master %s up (events %s)%s", m.url,
                    m.events_url, m.recovering ? ", RECOVERING" : "");
    hearth_loop_start (m.loop);
    if (m.reexec)
        return s_reexec (&m);
    hearth_notify ("STOPPING=1\nSTATUS=stopping");
    master_publish_master (&m, "stopping", NULL);
    log_info ("master stopped");
    s_teardown (&m);
    hearth_log_close ();
    return 0;
}

/*  main.c - hearth-worker: options, start-up (the work dir's lock, and
    what an earlier worker left there), the event loop (the master's
    DEALER, a signalfd, a tick) and shutdown.  The loop watches and reaps
    executors and drivers (children.h); SIGCHLD reaps the strays (the
    orphans that come to the worker, their subreaper); SIGTERM decommissions the
   worker (decom.h: it leaves once its work is done, up to
   --decommission-timeout); SIGINT, or a signal while leaving, stops them all
   (SIGTERM to each process group, SIGKILL after the grace period) before the
   worker exits, and one more kills them at once; SIGHUP reopens the log and
    reads the --user-map again. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/conf.h"
#include "libcore/labels.h"
#include "libcore/liveness.h"
#include "libcore/log.h"
#include "libcore/masters.h"
#include "libcore/notify.h"
#include "libcore/readyfile.h"
#include "libcore/sock.h"
#include "libcore/spawn.h"
#include "libcore/start.h"
#include "libcore/units.h"
#include "libcore/web.h"
#include "worker/decom.h"
#include "worker/devices.h"
#include "worker/orphans.h"
#include "worker/web.h"
#include "worker/webstate.h"
#include "worker/worker.h"

/* What the master sends wrong is logged once per kind per this period
   (then counted): a peer that sends garbage does not fill the log. */
static const int64_t s_log_period_ms = 60000;
/* Kinds of such lines (a few fixed keys). */
static const size_t s_log_keys_max = 16;
/* Memory kept back for the system when --memory is not given, and the
   least a worker offers (Spark's rule: total - 1 GiB, at least 1 GiB). */
static const int64_t s_reserved_memory_mb = 1024, s_min_memory_mb = 1024;

#define OPT(n, t, d, mv, h)                                                    \
    {                                                                          \
        .name = n, .type = t, .dflt = d, .metavar = mv, .help = h              \
    }
#define INT_OPT(n, d, mv, h, lo, hi)                                           \
    {                                                                          \
        .name = n, .type = HEARTH_OPT_INT, .dflt = d, .metavar = mv,           \
        .help = h, .min = lo, .max = hi                                        \
    }

static const hearth_opt_t s_opts[] = {
    OPT ("master", HEARTH_OPT_STR, NULL, "URL",
         "the master's URL, tcp://HOST:PORT, or the masters' "
         "comma-separated list of them (this or --master-file)"),
    OPT ("master-file", HEARTH_OPT_STR, NULL, "FILE",
         "read the master's URL from the first line of FILE, waiting for "
         "it (a master's --ready-file: a worker started beside its master)"),
    OPT ("master-file-wait", HEARTH_OPT_DURATION, "60s", "TIME",
         "how long --master-file is waited for"),
    INT_OPT ("cores", NULL, "N",
             "cores to offer (default: this machine's; more is allowed)", 1,
             65536),
    OPT ("memory", HEARTH_OPT_MEMORY, NULL, "SIZE",
         "memory to offer (default: this machine's less 1G)"),
    DEVICES_OPTIONS,
    OPT ("label", HEARTH_OPT_LIST, NULL, "KEY=VALUE",
         "a label of this worker (repeatable; HEARTH_LABEL: comma-separated): "
         "rack=r1 names its rack, disk=ssd anything tasks may prefer"),
    OPT ("work-dir", HEARTH_OPT_STR, "work", "DIR",
         "where executors run, one WORK_DIR/APP/EXEC directory each"),
    OPT ("host", HEARTH_OPT_STR, NULL, "ADDR",
         "the address this worker advertises (default: its address "
         "facing the master)"),
    OPT ("id", HEARTH_OPT_STR, NULL, "ID",
         "worker id, a name such as node-a: " HEARTH_WORKER_ID_RULE
         " (default: worker-TIME-HOST-PID)"),
    OPT ("heartbeat-interval", HEARTH_OPT_DURATION, "1s", NULL,
         "heartbeat interval until registered (then the master's)"),
    INT_OPT ("heartbeat-liveness", "5", NULL,
             "missed intervals after which the master is gone (until "
             "registered; then the master's)",
             1, 1000),
    OPT ("reconnect-max", HEARTH_OPT_DURATION, "32s", NULL,
         "longest wait between registration attempts"),
    OPT ("kill-grace", HEARTH_OPT_DURATION, "5s", NULL,
         "from SIGTERM to SIGKILL when stopping an executor"),
    OPT ("decommission-timeout", HEARTH_OPT_DURATION,
         WORKER_DECOM_TIMEOUT_DEFAULT, NULL,
         "on SIGTERM, how long running tasks and the map outputs served "
         "here may keep the worker before it stops (0: stop at once)"),
    OPT ("cache-disk", HEARTH_OPT_SIZE, "0", NULL,
         "the most bytes of persisted stages' map outputs kept here; the "
         "oldest beyond it are removed, made again when read (0: no "
         "limit)"),
    OPT ("app-retention", HEARTH_OPT_DURATION, "1h", NULL,
         "how long a removed application's directory is kept"),
    OPT ("driver-retention", HEARTH_OPT_DURATION, "1d", NULL,
         "how long the directory (and output) of a driver that ended is "
         "kept (0: for ever)"),
    INT_OPT ("shuffle-port", "0", "N",
             "port of the block server that serves this node's map outputs "
             "to reducers (0: any free one)",
             0, 65535),
    OPT ("isolation", HEARTH_OPT_STR, "auto", "MODE",
         "auto, cgroup or none: each executor and driver in a cgroup of its "
         "own, held to its memory and cores (auto: when this worker can "
         "create such groups)"),
    INT_OPT ("memory-overhead", "10", "PERCENT",
             "a cgroup's memory limit: the executor's memory plus this "
             "percentage of it (at least --memory-overhead-min)",
             0, 1000),
    OPT ("memory-overhead-min", HEARTH_OPT_MEMORY, "64M", "SIZE",
         "the least memory added to an executor's for its cgroup's limit"),
    INT_OPT ("pids-limit", "4096", "N",
             "processes per executor or driver cgroup at most (0: no limit)", 0,
             4194304),
    OPT ("user-map", HEARTH_OPT_STR, NULL, "FILE",
         "a worker running as root: lines 'KEY USER' that map a key (its "
         "public key or its key file's name) to the user its tasks run as, "
         "over the user the key names ('-': the key runs nothing here); "
         "read again on SIGHUP"),
    OPT ("allow-root-tasks", HEARTH_OPT_BOOL, "false", "",
         "a worker running as root: run as root the tasks of a key that "
         "names no user, or names root, and (with keys) of a launch that "
         "names no key (a single-user cluster; refused otherwise)"),
    OPT ("ready-file", HEARTH_OPT_STR, NULL, "FILE",
         "once registered, write the worker id there"),
    OPT ("pid-file", HEARTH_OPT_STR, NULL, "FILE",
         "write the pid there (locked while running, removed at exit)"),
    HEARTH_CURVE_CLIENT_OPTIONS,
    HEARTH_WEB_OPTIONS ("8081"),
    OPT ("insecure", HEARTH_OPT_BOOL, "false", "",
         "allow web pages beyond loopback without --web-token-file"),
    OPT ("log-level", HEARTH_OPT_STR, "info", "LEVEL",
         "error, warn, info or debug"),
    OPT ("log-file", HEARTH_OPT_STR, NULL, "FILE",
         "log there instead of stderr (reopened on SIGHUP)"),
    {.name = NULL},
};

/* --- the loop ---------------------------------------------------------- */

static int
s_on_tick (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    worker_t *w = arg;
    int64_t now = hearth_mono_ms ();
    if (!w->children)
        return -1;
    execs_tick (w->execs, now);
    children_tick (w->children, now);
    shuffle_tick (w->shuffle, now);
    hearth_loglimit_flush (w->log_limit, HEARTH_LOG_WARN, now);
    worker_decom_tick (w, now);
    if (w->stopping)
        return children_count (w->children, NULL) == 0 ? -1 : 0;
    worker_link_tick (w, now);
    return 0;
}

/* SIGKILL the children and reap them, then what executors left behind
   (execs_destroy). */
static void
s_end_children (worker_t *w)
{
    children_destroy (&w->children);
    execs_destroy (&w->execs);
    drivers_destroy (&w->drivers);
    runas_destroy (&w->runas);
}

/* SIGTERM decommissions (decom.h); SIGINT, or a signal while leaving,
   stops now; a signal while stopping kills the children at once. */
static void
s_stop (worker_t *w, int sig)
{
    if (w->stopping) {
        log_warn ("%s again: killing executors and drivers now",
                  strsignal (sig));
        s_end_children (w);
        return;
    }
    char why[300];
    int64_t timeout = hearth_conf_ms (w->conf, "decommission-timeout");
    if (sig == SIGTERM && !w->decommissioning && timeout > 0) {
        worker_decom_start (w, "SIGTERM", timeout);
        return;
    }
    snprintf (why, sizeof why, "stopped: %s%s",
              sig == SIGTERM ? "SIGTERM" : "SIGINT",
              w->decommissioning ? " while decommissioning" : "");
    worker_stop (w, why);
}

/* SIGHUP: reopen the log, read the user map again. */
static void
s_reload (worker_t *w)
{
    hearth_error_t err;
    hearth_log_reopen ();
    if (w->runas && runas_reload (w->runas, &err) < 0)
        log_error ("%s: the user map stays as it was", err.text);
}

/* After each executor's or driver's exit (children.h): leaving, and its
   last child reaped, the worker goes now, not at the next tick (a local
   cluster's shutdown waits for this: 200 ms a job). */
static int
s_on_reaped (void *arg)
{
    worker_t *w = arg;
    if (w->decommissioning)
        worker_decom_tick (w, hearth_mono_ms ());
    return w->stopping && children_count (w->children, NULL) == 0 ? -1 : 0;
}

static int
s_on_signal (hearth_loop_t *loop, int fd, void *arg)
{
    worker_t *w = arg;
    int sig;
    while ((sig = hearth_signalfd_read (fd)) > 0) {
        /* The loop reaps executors and drivers (each one watched:
           children.h); SIGCHLD stays in the signalfd for the strays, the
           orphans that come to the worker as their subreaper and that no
           watch holds: one is reaped as soon as it exits, not at the next
           tick (which reaps them too, should the sweep have stopped at a
           watched child: hearth_loop_reap_unwatched).  Blocked, with the
           signalfd, in every thread of the worker (which starts its
           threads after this), it is never SIG_IGN, which would reap
           every child, watched ones too, behind the loop's back. */
        if (sig == SIGCHLD && w->children)
            hearth_loop_reap_unwatched (loop);
        else if (sig == SIGHUP)
            s_reload (w);
        else if (sig == SIGTERM || sig == SIGINT)
            s_stop (w, sig);
    }
    /* Leaving with no work left: done now, not at the next tick (after
       a child's exit, s_on_reaped does this). */
    if (w->decommissioning && w->children)
        worker_decom_tick (w, hearth_mono_ms ());
    /* Stopping with no executor or driver left: leave now, not at the
       next tick (a local cluster's shutdown waits for this). */
    if (w->stopping && w->children && children_count (w->children, NULL) == 0)
        return -1;
    return w->children ? 0 : -1;
}

/* The execs' and drivers' report callbacks: the pages' history first,
   then the link (which tells the master). */
static void
s_exec_report (void *arg, const execs_report_t *r)
{
    worker_t *w = arg;
    if (w->webstate)
        webstate_exec (w->webstate, r);
    worker_report (w, r);
}

static void
s_driver_report (void *arg, const drivers_report_t *r)
{
    worker_t *w = arg;
    if (w->webstate)
        webstate_driver (w->webstate, r);
    worker_report_driver (w, r);
}

/* --- start-up ---------------------------------------------------------- */

/* This machine's memory, MiB (0 when unknown). */
static int64_t
s_physical_memory_mb (void)
{
    long pages = sysconf (_SC_PHYS_PAGES), size = sysconf (_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (int64_t) pages * size / (int64_t) HEARTH_MiB
                                 : 0;
}

static int64_t
s_machine_memory_mb (void)
{
    int64_t mb = s_physical_memory_mb ();
    return mb - s_reserved_memory_mb > s_min_memory_mb
               ? mb - s_reserved_memory_mb
               : s_min_memory_mb;
}

/* More than the machine has is allowed (overbooking on purpose), but said
   once, with both figures: a typo in --cores or --memory otherwise shows
   only as executors starved of what they were promised. */
static void
s_warn_overbooked (const worker_t *w, int ncpu, int64_t machine_mb)
{
    bool cores = w->cores > ncpu;
    bool memory = machine_mb > 0 && w->memory_mb > machine_mb;
    if (cores && memory)
        log_warn ("offering %d cores and %lld MiB, more than this machine has "
                  "(%d cores and %lld MiB): executors may get less than they "
                  "are granted",
                  w->cores, (long long) w->memory_mb, ncpu,
                  (long long) machine_mb);
    else if (cores)
        log_warn ("offering %d cores, more than this machine has %d cores "
                  "online: executors may get less than they are granted",
                  w->cores, ncpu);
    else if (memory)
        log_warn ("offering %lld MiB, more than this machine has %lld MiB: "
                  "executors may get less than they are granted",
                  (long long) w->memory_mb, (long long) machine_mb);
}

static int
s_resources (worker_t *w, hearth_error_t *err)
{
    long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
    if (ncpu < 1)
        ncpu = 1;
    w->cores = hearth_conf_isset (w->conf, "cores")
                   ? (int) hearth_conf_int (w->conf, "cores")
                   : (int) ncpu;
    w->memory_mb =
        hearth_conf_isset (w->conf, "memory")
            ? (int64_t) (hearth_conf_bytes (w->conf, "memory") / HEARTH_MiB)
            : s_machine_memory_mb ();
    if (w->memory_mb < 1)
        return hearth_errprintf (err, "--memory must be at least 1M");
    s_warn_overbooked (w, (int) ncpu, s_physical_memory_mb ());
    return devices_gather (
        w->loop, w->conf,
        hearth_conf_ms (w->conf, "resource-discovery-timeout"), &w->resources,
        err);
}

/* --label KEY=VALUE, each checked (libcore/labels.h). */
static int
s_labels (worker_t *w, hearth_error_t *err)
{
    if (!(w->labels = cJSON_CreateObject ()))
        return hearth_errprintf (err, "out of memory");
    const char *const *specs;
    size_t n = hearth_conf_list (w->conf, "label", &specs);
    for (size_t i = 0; i < n; i++) {
        hearth_error_t lerr;
        if (hearth_labels_add_spec (w->labels, specs[i], &lerr) < 0)
            return hearth_errcode (err, "usage", "--label: %s", lerr.text);
    }
    return 0;
}

/* The first master of the list (borrowed). */
static const char *
s_first_master (const worker_t *w)
{
    return hearth_masters_url (hearth_uplink_masters (w->uplink), 0);
}

static int
s_identity (worker_t *w, hearth_error_t *err)
{
    w->master_url = hearth_conf_str (w->conf, "master");
    w->host = hearth_conf_str (w->conf, "host");
    const char *file = hearth_conf_str (w->conf, "master-file");
    char host[256];
    int port;
    /* the one given the more directly wins (a flag over HEARTH_MASTER,
       which a submit that starts a local cluster exports); both from one
       place cannot both be meant */
    hearth_src_t from_url = hearth_conf_source (w->conf, "master");
    hearth_src_t from_file = hearth_conf_source (w->conf, "master-file");
    if (w->master_url && file && from_url == from_file)
        return hearth_errprintf (err, "--master and --master-file: give one");
    if (file && from_file > from_url) {
        /* the loading and the set-up so far overlapped the master's */
        if (hearth_ready_file_wait (
                file, w->master_file_url, sizeof w->master_file_url,
                hearth_conf_ms (w->conf, "master-file-wait"), err)
            < 0)
            return -1;
        w->master_url = w->master_file_url;
    }
    /* the usage's mistakes: exit 2 (main) */
    if (!w->master_url)
        return hearth_errcode (err, "usage",
                               "--master URL is required (or HEARTH_MASTER)");
    hearth_error_t uerr;
    hearth_masters_t *masters = hearth_masters_parse (w->master_url, &uerr);
    if (!masters)
        return hearth_errcode (err, "usage", "bad --master: %s", uerr.text);
    /* the address facing the first master: the others are on the same
       network, in any cluster this worker can serve */
    hearth_url_split (hearth_masters_url (masters, 0), host, sizeof host, &port,
                      NULL);
    hearth_masters_destroy (&masters);
    if (!w->host) {
        /* what the master and the drivers see of this machine, not a
           loopback address that would name every worker alike */
        if (hearth_address_towards (host, port, w->host_buf, sizeof w->host_buf)
            < 0) {
            log_warn ("cannot find this machine's IPv4 address towards %s: "
                      "advertising 127.0.0.1 (set --host to an address "
                      "the master and the drivers reach it on)",
                      host);
            snprintf (w->host_buf, sizeof w->host_buf, "127.0.0.1");
        }
        w->host = w->host_buf;
    }
    const char *id = hearth_conf_str (w->conf, "id");
    if (id && !hearth_id_valid (HEARTH_ID_WORKER, id))
        return hearth_errprintf (
            err, "bad --id '%s': a worker id is " HEARTH_WORKER_ID_RULE, id);
    if (id)
        snprintf (w->id, sizeof w->id, "%s", id);
    else
        hearth_worker_id_format (w->id, sizeof w->id, time (NULL), w->host,
                                 (int) getpid ());
    return 0;
}

/* A short hash of the work dir (FNV-1a), in the worker's cgroup name: a
   worker restarted on the same work dir finds its groups, two live
   workers of one id (with their own work dirs) never share them. */
static uint32_t
s_dir_hash (const char *dir)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *) dir; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

/* --isolation: the worker's cgroups, or none (auto: with one WARN line
   saying why). */
static int
s_isolation (worker_t *w, hearth_error_t *err)
{
    const char *mode = hearth_conf_str (w->conf, "isolation");
    if (strcmp (mode, "none") == 0)
        return 0;
    if (strcmp (mode, "auto") != 0 && strcmp (mode, "cgroup") != 0)
        return hearth_errprintf (
            err, "bad --isolation '%s': auto, cgroup or none", mode);
    char name[HEARTH_ID_MAX + 16];
    snprintf (name, sizeof name, "%s.%08x", w->id, s_dir_hash (w->work_dir));
    cgroups_config_t c = {.worker_id = name};
    hearth_error_t why;
    if (!(w->cgroups = cgroups_new (&c, &why))) {
        if (strcmp (mode, "cgroup") == 0)
            return hearth_errprintf (err, "--isolation cgroup: %s", why.text);
        log_warn ("isolation off (--isolation auto): %s", why.text);
        return 0;
    }
    log_info ("isolation: cgroup v%d under %s", cgroups_version (w->cgroups),
              cgroups_path (w->cgroups));
    return 0;
}

static int
s_work_dir (worker_t *w, hearth_error_t *err)
{
    const char *dir = hearth_conf_str (w->conf, "work-dir");
    char cwd[PATH_MAX];
    int n;
    if (dir[0] == '/')
        n = snprintf (w->work_dir, sizeof w->work_dir, "%s", dir);
    else if (getcwd (cwd, sizeof cwd))
        n = snprintf (w->work_dir, sizeof w->work_dir, "%s/%s", cwd, dir);
    else
        return hearth_errprintf (err, "getcwd: %s", strerror (errno));
    if (n < 0 || (size_t) n >= sizeof w->work_dir)
        return hearth_errprintf (err, "--work-dir is too long");
    char program[PATH_MAX];
    if (s_isolation (w, err) < 0)
        return -1;
    children_config_t cc = {
        .loop = w->loop,
        .reaped = s_on_reaped,
        .reaped_arg = w,
        .root = w->work_dir,
        .kill_grace_ms = hearth_conf_ms (w->conf, "kill-grace"),
        .cgroups = w->cgroups,
        .overhead_percent = (int) hearth_conf_int (w->conf, "memory-overhead"),
        .overhead_min_mb =
            (int64_t) (hearth_conf_bytes (w->conf, "memory-overhead-min")
                       / HEARTH_MiB),
        .pids_max = hearth_conf_int (w->conf, "pids-limit")};
    if (!(w->children = children_new (&cc)))
        return hearth_errprintf (err, "out of memory");
    runas_config_t rc = {.map_path = hearth_conf_str (w->conf, "user-map"),
                         .allow_root =
                             hearth_conf_bool (w->conf, "allow-root-tasks"),
                         .keys = w->curve.cert != NULL};
    if (!(w->runas = runas_new (&rc, err)))
        return -1;
    hearth_program_path ("hearth-executor", program, sizeof program);
    execs_config_t ec = {.children = w->children,
                         .work_dir = w->work_dir,
                         .program = program,
                         .host = w->host,
                         .retention_ms =
                             hearth_conf_ms (w->conf, "app-retention"),
                         .runas = w->runas,
                         .apps = w->apps,
                         .report = s_exec_report,
                         .report_arg = w};
    if (!(w->execs = execs_new (&ec, err)))
        return -1;
    if (!(w->webstate = webstate_new (w->children, w->work_dir)))
        return hearth_errprintf (err, "out of memory");
    /* Orphaned grandchildren come to us, to be reaped (orphans.h). */
    if (orphans_subreaper () < 0)
        log_warn ("cannot become a child subreaper: %s", strerror (errno));
    execs_clean_start (w->execs, hearth_mono_ms ());
    /* the work dir is ours (locked): so are the groups named after it */
    size_t stale = w->cgroups ? cgroups_clean_stale (w->cgroups) : 0;
    if (stale)
        log_warn ("removed %zu cgroups left in %s by an earlier worker", stale,
                  cgroups_path (w->cgroups));
    hearth_program_path ("hearth-driver", program, sizeof program);
    drivers_config_t dc = {
        .children = w->children,
        .program = program,
        .master_url = w->master_url,
        .master_key = hearth_conf_str (w->conf, "master-key"),
        .runas = w->runas,
        .retention_ms = hearth_conf_ms (w->conf, "driver-retention"),
        .report = s_driver_report,
        .report_arg = w};
    w->drivers = drivers_new (&dc, err);
    return w->drivers ? 0 : -1;
}

static void
s_json_destructor (void **item)
{
    cJSON_Delete (*item);
    *item = NULL;
}

/* The block server, in WORK_DIR/shuffle, on the advertised address, or
   on every address when that one cannot be bound (a name rather than an
   address, or an address of a router in front of this node). */
static int
s_shuffle (worker_t *w, hearth_error_t *err)
{
    char root[4200];
    if (snprintf (root, sizeof root, "%s/shuffle", w->work_dir)
        >= (int) sizeof root)
        return hearth_errprintf (err, "work dir too long");
    shuffle_config_t sc = {
        .root = root,
        .work_dir = w->work_dir,
        .host = w->host,
        .port = (int) hearth_conf_int (w->conf, "shuffle-port"),
        .cert = w->curve.cert,
        .loop = w->loop,
        .apps = w->apps,
        .shared = runas_switches (w->runas),
        .cache_disk = hearth_conf_bytes (w->conf, "cache-disk"),
    };
    hearth_error_t first;
    if (!(w->shuffle = shuffle_new (&sc, &first))) {
        log_info ("block server: cannot bind %s (%s): binding every address",
                  w->host, first.text);
        sc.bind = "*";
        if (!(w->shuffle = shuffle_new (&sc, err)))
            return -1;
    }
    log_info ("serving this node's map outputs at %s%s",
              shuffle_url (w->shuffle),
              shuffle_key (w->shuffle) ? " (CURVE)" : "");
    return 0;
}

static int
s_setup (worker_t *w, hearth_error_t *err)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGCHLD, 0};
    int64_t interval_ms = hearth_conf_ms (w->conf, "heartbeat-interval");
    if (interval_ms < 1)
        return hearth_errprintf (err, "heartbeat-interval must be at least "
                                      "1ms");
    /* before the resources: a discovery script is the loop's child */
    if (!(w->loop = hearth_loop_new ()))
        return hearth_errprintf (err, "out of memory");
    if (s_identity (w, err) < 0 || s_resources (w, err) < 0
        || s_labels (w, err) < 0 || worker_link_new (w, err) < 0
        || hearth_curve_client_setup (&w->curve, w->conf, s_first_master (w),
                                      err)
               < 0)
        return -1;
    const char *pidfile = hearth_conf_str (w->conf, "pid-file");
    if (pidfile && !(w->pidfile = hearth_pidfile_open (pidfile, err)))
        return -1;
    if (!(w->ended_drivers = zlistx_new ()) || !(w->apps = apps_new ())
        || !(w->log_limit =
                 hearth_loglimit_new (s_log_period_ms, s_log_keys_max)))
        return hearth_errprintf (err, "out of memory");
    zlistx_set_destructor (w->ended_drivers, s_json_destructor);
    if ((w->sigfd = hearth_signalfd_open (sigs)) < 0)
        return hearth_errprintf (err, "signalfd: %s", strerror (errno));
    if (s_work_dir (w, err) < 0)
        return -1;
    hearth_zsys_init ();
    int64_t tick = hearth_liveness_tick_ms (interval_ms);
    if (hearth_loop_fd (w->loop, w->sigfd, s_on_signal, w) < 0
        || hearth_loop_timer (w->loop, (size_t) tick, 0, s_on_tick, w) < 0)
        return hearth_errprintf (err, "cannot set up the event loop");
    if (s_shuffle (w, err) < 0 || worker_web_open (w, err) < 0)
        return -1;
    return 0;
}

static void
s_teardown (worker_t *w)
{
    worker_web_close (w); /* its descriptor and timer are the loop's */
    s_end_children (w);
    webstate_destroy (&w->webstate);
    cgroups_destroy (&w->cgroups);
    shuffle_destroy (&w->shuffle);
    apps_destroy (&w->apps); /* after the server that reads it */
    zlistx_destroy (&w->ended_drivers);
    hearth_loglimit_destroy (&w->log_limit);
    hearth_loop_destroy (&w->loop);
    hearth_uplink_destroy (&w->uplink);
    hearth_curve_cleanup (&w->curve);
    if (w->sigfd >= 0)
        close (w->sigfd);
    hearth_pidfile_remove (&w->pidfile);
    hearth_resources_clear (&w->resources);
    cJSON_Delete (w->labels);
    hearth_conf_destroy (&w->conf);
}

static int
s_parse (worker_t *w, int argc, char **argv)
{
    if (!(w->conf = hearth_conf_new ("hearth-worker", s_opts)))
        return -1;
    hearth_conf_strict (w->conf); /* its settings are all its own: a
                                     misspelt --conf KEY is refused */
    return hearth_start (
        w->conf, argc, argv,
        "--master tcp://HOST:PORT[,tcp://HOST:PORT...] [OPTIONS]",
        "The Hearth worker: offers this machine's cores "
        "and memory to a master and runs\nthe executors "
        "it launches (docs/cluster.md).");
}

int
main (int argc, char **argv)
{
    worker_t w = {.sigfd = -1, .started_ms = (int64_t) time (NULL) * 1000};
    hearth_error_t err;
    hearth_notify_init (); /* before any child: none inherits the socket */
    int rc = s_parse (&w, argc, argv);
    if (rc <= 0) {
        hearth_conf_destroy (&w.conf);
        return rc == 0 ? 0 : 2;
    }
    if (s_setup (&w, &err) < 0) {
        log_error ("%s", err.text);
        s_teardown (&w);
        hearth_log_close ();
        return err.code && strcmp (err.code, "usage") == 0 ? 2 : 1;
    }
    log_info ("worker %s: %d cores, %lld MiB, work dir %s, master %s", w.id,
              w.cores, (long long) w.memory_mb, w.work_dir, w.master_url);
    for (size_t i = 0; i < w.resources.n; i++) {
        char *spec = hearth_resource_spec (&w.resources.v[i]);
        log_info ("resource %s", spec ? spec : w.resources.v[i].name);
        free (spec);
    }
    runas_announce (w.runas, w.curve.cert != NULL, w.curve.cookie[0] != '\0',
                    w.work_dir);
    if (worker_link_open (&w, &err) < 0) /* register now, not a tick later */
        log_error ("%s", err.text);      /* the ticks try again */
    /* Ready once its link is started: it does not wait for the master,
       which may be down while the machine boots (docs/operations.md). */
    hearth_notifyf ("READY=1\nSTATUS=worker %s registering with %s", w.id,
                    w.master_url);
    hearth_loop_start (w.loop);
    log_info ("worker stopped");
    rc = w.exit_code;
    s_teardown (&w);
    hearth_log_close ();
    return rc;
}

/*  worker.h - hearth-worker's context, shared by its source files:

        main.c      options, start-up, the event loop, signals, shutdown
        link.c      the link to the master (libcore/uplink.c: register,
                    heartbeat, re-register with back-off and a fresh
                    socket, the list of masters), what registers and
                    heartbeats, and the handlers of the master's commands
        decom.c     the graceful decommission (SIGTERM, DECOMMISSION):
                    no new work, wait for what runs and for the outputs
                    served, then stop (decom.h); and the stop itself
        cgroup.c    control groups (cgroup.h; v1 and v2 backends in
                    cgroup_v1.c, cgroup_v2.c, their file helpers in
                    cgroupfs.c): the children's limits and counters
        childgroups.c the children's groups: made at their start, ended
                    and removed after their reap (childgroups.h; the
                    children table's)
        children.c  the table of child processes, executors and drivers
                    alike: spawn in a directory with output files, stop
                    (TERM, KILL after a grace), reap, usage, JSON view, and
                    directories removed when due (children.h)
        cleanups.c  the directories waiting for removal, in due order
                    (cleanups.h; the children table's)
        devices.c   the custom resources offered: --resource values and
                    discovery scripts, at start (devices.h)
        execs.c     the executors: command line, environment, reports,
                    the work dir's lock (execs.h)
        runas.c     whom executors and drivers run as: the key's user,
                    --user-map, the passwd database (runas.h)
        userfs.c    files made and read in trees a child's user may
                    write to, never through a link (userfs.h)
        orphans.c   what executors left behind (orphans.h)
        apps.c      the applications launched here: the token and owner
                    each came with first, which no later launch changes
                    (apps.h; link.c's, read by the block server)
        drivers.c   the cluster-mode drivers: shipped files, command line,
                    environment, reports, output read back (drivers.h)
        relaunch.c  newer launches of drivers whose older launch is still
                    stopping, kept until it has ended (relaunch.h; the
                    drivers')
        web.c       the web server's routes and the worker's state
                    document (web.h); weblog.c, the log bytes it serves;
                    webstate.c, the history of executors and drivers it
                    shows (fed by main.c's report callbacks, and by
                    link.c with the application a driver registered)

    main calls web, webstate, decom and link; link calls decom and
    webstate (DRIVER_APPLICATION); decom
    calls children, drivers and shuffle (and sends on the link's socket
    itself); web calls webstate, weblog and children; main and link call
    children, execs and drivers; execs and drivers call children, which
    calls them back only through the callbacks of their kind
    (children_kind_t) and tells them nothing else; drivers calls
    relaunch, which calls nothing of the worker.  docs/architecture.md
    draws the processes and sockets around it.
*/
#ifndef HEARTH_WORKER_WORKER_H
#define HEARTH_WORKER_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/curve.h"
#include "libcore/ids.h"
#include "libcore/loglimit.h"
#include "libcore/loop.h"
#include "libcore/pidfile.h"
#include "libcore/proto.h"
#include "libcore/resources.h"
#include "libcore/uplink.h"
#include "worker/apps.h"
#include "worker/cgroup.h"
#include "worker/children.h"
#include "worker/drivers.h"
#include "worker/execs.h"
#include "worker/runas.h"
#include "worker/shuffle.h"

typedef struct worker {
    hearth_conf_t *conf;          /* settings (owned) */
    hearth_loop_t *loop;          /* the reactor (libcore/loop.h) */
    hearth_uplink_t *uplink;      /* the link to the master (owned) */
    int sigfd;                    /* SIGTERM, SIGINT, SIGHUP, SIGCHLD */
    children_t *children;         /* executor and driver processes (owned) */
    cgroups_t *cgroups;           /* their cgroups, or NULL: no isolation
                                     (owned; outlives children) */
    execs_t *execs;               /* the executors (owned) */
    drivers_t *drivers;           /* the cluster-mode drivers (owned) */
    runas_t *runas;               /* whom they run as (owned; outlives
                                     execs and drivers) */
    shuffle_t *shuffle;           /* the block server of map outputs */
    apps_t *apps;                 /* the applications launched here: their
                                     tokens and owners (owned; outlives
                                     shuffle) */
    zlistx_t *ended_drivers;      /* cJSON * driver refs with a final state
                                     that ended while not registered: listed
                                     in the next REGISTER_WORKER (owned) */
    hearth_pidfile_t *pidfile;    /* --pid-file, or NULL */
    char id[HEARTH_ID_MAX + 1];   /* worker-... */
    const char *host;             /* advertised address */
    char host_buf[64];            /* its default: the one facing the master */
    const char *master_url;       /* the master URLs as given, one or a
                                     list (conf, or master_file_url): for
                                     the drivers */
    char master_file_url[2048];   /* read from --master-file */
    char work_dir[4096];          /* absolute work dir */
    int cores;                    /* cores offered */
    int64_t memory_mb;            /* memory offered, MiB */
    hearth_resources_t resources; /* custom resources offered (devices.h;
                                     owned) */
    cJSON *labels;                /* --label KEY=VALUE: {KEY: VALUE}
                                     (libcore/labels.h; owned) */
    bool ever_registered;         /* at least once since start */
    bool stopping;                /* SIGTERM: stopping executors */
    bool decommissioning;         /* leaving: no new executor or driver,
                                     waiting for its work (decom.c) */
    int64_t decom_deadline_ms;    /* monotonic: it stops by then */
    int64_t decom_timeout_ms;     /* the timeout in effect */
    int64_t decom_checked_ms;     /* monotonic: outputs last looked at */
    char decom_reason[256];       /* why it leaves ("SIGTERM", ...) */
    int exit_code;                /* the process's exit status */
    hearth_curve_t curve;         /* keys for the master link, if secure */
    hearth_loglimit_t *log_limit; /* lines about the master's bad messages:
                                     one per kind per minute (owned) */
    struct hearth_web *web;       /* the web server (web.h; owned), or NULL */
    struct webstate *webstate;    /* the pages' history of executors and
                                     drivers (webstate.h; owned) */
    char master_web_url[256];     /* the master's pages (its
                                     REGISTERED_WORKER), or "" */
    int64_t started_ms;           /* wall clock at start */
    uint64_t log_bytes_served;    /* log bytes /log served (web.c) */
} worker_t;

/* Make the link to the master (w->master_url; w->curve, set up later;
   the heartbeat settings and --reconnect-max of w->conf).  0, or -1
   with err (a bad list of masters, no memory). */
int worker_link_new (worker_t *w, hearth_error_t *err);

/* Send the first registration (w->loop serves the link).  0, or -1 with
   err (the ticks try again). */
int worker_link_open (worker_t *w, hearth_error_t *err);

/* Periodic link work: (re)register when due, heartbeat, notice a silent
   master. */
void worker_link_tick (worker_t *w, int64_t now);

/* Whether the worker is registered with its master on a working link. */
bool worker_linked (const worker_t *w);

/* The master the link talks to now (borrowed). */
const char *worker_master_url (const worker_t *w);

/* Send msg (taken) to the master; dropped when there is no socket. */
void worker_send (worker_t *w, hearth_msg_t *msg);

/* The execs report callback: tell the master. */
void worker_report (void *arg, const execs_report_t *r);

/* The drivers report callback: tell the master, or keep a final state
   for the next registration while not registered. */
void worker_report_driver (void *arg, const drivers_report_t *r);

#endif

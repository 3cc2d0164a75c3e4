/*  master.h - hearth-master's context, the one struct every source file
    of the master is handed.  The files, each with its header:

        main.c       options, start-up, the event loop, signals, the tick
        admit.c      CURVE: the ZAP handler, each message's key, reloads
        authz.c      who may do what: the sender's roles, owners
        limits.c     per-key core limits (--max-cores-per-key), for the
                     allocator's passes
        waiting.c    why applications and drivers wait, after each pass,
                     and the end of those no worker can ever hold
                     (--unschedulable-timeout)
        handlers.c   the ROUTER's table of {command, handler} rows, and
                     the handlers of what applications' drivers send
        workers.c    the handlers of what workers send: registration,
                     heartbeats, executor states
        claims.c     application ids the master does not know: the
                     owners the workers list, and the claims held until
                     they have had the time to (its own context,
                     claims_t)
        cluster.c    scheduling and launching executors, heartbeats to
                     every peer, the registry's observer (events, and
                     what drivers and workers must hear of a change)
        drivers.c    cluster-mode drivers: launches, what workers report,
                     supervision, kills, the end of their applications
        drvsubmit.c  hearth-submit's SUBMIT_DRIVER, DRIVER_STATUS and
                     KILL_DRIVER
        drvlog.c     the relay of DRIVER_LOG to the worker holding a
                     driver's output (its own context, drvlog_t)
        admin.c      an operator's DRAIN_WORKER and RESUME_WORKER
        recover.c    the journal (--journal DIR) and RECOVERING after a
                     restart
        resume.c     resumable applications: RELAUNCHING for the resume
                     window, a driver resuming one, epochs fenced,
                     OUTPUTS_RECORDED and APPLICATION_OUTPUTS
        ha.c         standby masters: the election (--zookeeper), the
                     roles it gives, and the re-execution of a leader
                     that lost its role for good
        replicate.c  the leader's journal stream to its standbys
        follow.c     a standby's side of it: its own journal
        state.c      the master's status and MASTER_STATE's answer
        send.c       what the master puts on its sockets: a message to a
                     peer, an ERROR, an event, KILL_EXECUTOR
        web.c        the web server's routes (pages, /json, /metrics);
                     webjson.c, Spark's /json document; webmetrics.c,
                     the /metrics text

    The registry (registry.h: registry.c, regworkers.c, regapps.c,
    regdrivers.c, reglive.c, regviews.c, records.c, restore.c) holds every
    record of the cluster, and only it writes them (regrecords.h: the
    other files see read-only views); the journal (journal.h, jfiles.h,
    jio.h and jstate.h's records) keeps it across restarts.

    A file calls only the ones below it: main; ha, web and handlers;
    workers, drvsubmit, drvlog, admin, cluster, admit, follow and recover;
    replicate, drivers, waiting and state; resume; send, authz and limits;
    the registry and the journal.  Inside the
    registry, registry.c (the store) and regdrivers.c call each other, the
    one such pair; the other files of the registry call the store, which
    calls none of them.

    This struct holds the sockets, the settings, and the pointers to the
    parts that have their own context.  docs/architecture.md draws the
    processes and sockets around it.
*/
#ifndef HEARTH_MASTER_MASTER_H
#define HEARTH_MASTER_MASTER_H

#include <stdbool.h>
#include <stdint.h>

#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/curve.h"
#include "libcore/loglimit.h"
#include "libcore/loop.h"
#include "libcore/masters.h"
#include "libcore/pidfile.h"
#include "libcore/prom.h"
#include "master/journal.h"
#include "master/registry.h"

/* What a recovery found, for its log line and its `master` event. */
typedef struct {
    size_t workers;       /* workers restored UNKNOWN */
    size_t workers_back;  /* of those, registered again */
    size_t apps;          /* active applications restored */
    size_t apps_back;     /* of those, whose driver registered again */
    size_t execs;         /* executors restored */
    size_t execs_adopted; /* of those, reported running by their worker */
    size_t execs_lost;    /* of those, not reported: LOST */
} master_recovery_t;

/* Where the master stands in the election (--zookeeper; ha.c). */
typedef enum {
    MASTER_SINGLE,    /* no --zookeeper: the only master, always leading */
    MASTER_STANDBY,   /* a candidate that has not led on this run: answers
                         `standby`, holds no state of its own */
    MASTER_LEADER,    /* elected: schedules, stamps its epoch */
    MASTER_SUSPENDED, /* elected, but ZooKeeper is out of reach: keeps its
                         state and its peers, places nothing */
} master_role_t;

/* What /metrics counts as it happens (webmetrics.c prints it with what
   it reads from the registry). */
/* The counts of the drivers' progress summaries that /metrics sums:
   tasks finished, attempts failed, attempts launched at each locality
   level (webmetrics.c). */
enum {
    MASTER_COUNT_FINISHED,
    MASTER_COUNT_FAILED,
    MASTER_COUNT_NODE_LOCAL,
    MASTER_COUNT_RACK_LOCAL,
    MASTER_COUNT_ANY,
    MASTER_COUNTS
};

typedef struct {
    uint64_t heartbeats;            /* HEARTBEATs received */
    uint64_t refused_unadmitted;    /* messages of keys no longer admitted */
    uint64_t refused_malformed;     /* messages the codec rejected */
    uint64_t exec_exits[8];         /* executors ended, by executor state */
    hearth_prom_hist_t schedule;    /* allocation passes (master_schedule) */
    hearth_prom_hist_t journal;     /* journal appends and syncs */
    zhashx_t *tasks_seen;           /* app id -> int64_t[MASTER_COUNTS], its
                                       progress's counts at the last scrape
                                       (webmetrics.c; owned) */
    uint64_t counts[MASTER_COUNTS]; /* the drivers' progress counts, summed
                                       over scrapes (webmetrics.c) */
} master_metrics_t;

typedef struct master {
    hearth_conf_t *conf;       /* settings (owned) */
    zsock_t *router;           /* every peer talks to us here */
    zsock_t *pub;              /* events (XPUB: it hears subscriptions) */
    int heartbeat_subs;        /* subscribed prefixes of "heartbeat" */
    hearth_loop_t *loop;       /* the reactor (libcore/loop.h) */
    int sigfd;                 /* SIGTERM, SIGINT, SIGHUP */
    registry_t *reg;           /* workers, apps, executors (owned) */
    char url[300];             /* tcp://HOST:PORT of the ROUTER */
    char events_url[300];      /* tcp://HOST:PORT of the PUB */
    bool spread_out;           /* allocation policy */
    int64_t interval_ms;       /* heartbeat interval */
    int64_t liveness;          /* missed intervals before death */
    int max_executor_retries;  /* failures in a row before FAILED */
    int64_t next_heartbeat_ms; /* monotonic time of the next broadcast */
    int64_t tick_ms;           /* period of the tick */
    int64_t last_tick_ms;      /* monotonic time of the last tick, or
                                  INT64_MIN before the first */
    int64_t next_trim_ms;      /* monotonic time of the next malloc_trim */
    bool dirty;                /* resources changed: schedule soon */
    bool held;                 /* an app waits for its hold to pass */
    int64_t waiting_due_ms;    /* monotonic: the next end of a record no
                                  worker can hold (waiting.c), or 0 */
    bool waiting_only;         /* held only for that end: a pass before it
                                  would change nothing */
    zhashx_t *log_limit;       /* peer key -> last error log time (send.c) */
    hearth_loglimit_t *launch_log; /* failed launches' lines, one per worker
                                      per minute (workers.c; owned) */
    uint64_t rand_state;           /* shuffle source for the allocator */
    int64_t started_ms;            /* wall clock at start */
    journal_t *journal;            /* --journal DIR, or NULL */
    bool recovering;            /* RECOVERING: not every restored peer back */
    int64_t rec_start_ms;       /* monotonic time recovery began */
    int64_t rec_deadline_ms;    /* monotonic: give up on the rest then */
    master_recovery_t rec;      /* what recovery found */
    int64_t max_submit_bytes;   /* largest files of one SUBMIT_DRIVER */
    int64_t relaunch_delay_ms;  /* first back-off of a supervised driver */
    int64_t relaunch_max_ms;    /* its cap */
    int64_t resume_window_ms;   /* --resume-window: how long an application
                                   whose driver is lost waits RELAUNCHING
                                   for a driver to resume it (0: FAILED at
                                   once; resume.h) */
    struct drvlog *logs;        /* DRIVER_LOG requests relayed to workers
                                   (drvlog.h; owned) */
    zlistx_t *orphan_apps;      /* applications whose driver ended, to end
                                   on the next turn (drivers.c; owned) */
    struct claims *claims;      /* application ids the master does not
                                   know: whose the workers say they are,
                                   and the claims held meanwhile
                                   (claims.h; owned) */
    hearth_pidfile_t *pidfile;  /* --pid-file, or NULL */
    hearth_curve_t curve;       /* keys and admitted clients, if secure */
    hearth_refusals_t *denials; /* refused actions, logged once a minute
                                   per key (authz.c; owned) */
    struct limits *limits;      /* per-key core limits (limits.h; owned) */
    struct hearth_web *web;     /* the web server (web.h; owned), or NULL */
    master_metrics_t metrics;   /* counters and histograms for /metrics */
    hearth_masters_t *masters;  /* --masters, the only leaders a standby
                                   follows (ha.c; owned), or NULL: any */
    struct zkelect *zk;         /* the election (ha.c; owned), or NULL
                                   without --zookeeper */
    master_role_t role;         /* where it stands in the election */
    uint64_t epoch;             /* the epoch it leads with (stamped on all
                                   it sends), 0 unless it has led */
    char leader_url[300];       /* the leader's URL as the election says
                                   ("" when unknown) */
    uint64_t leader_epoch;      /* the leader's epoch, as the election
                                   says (0 when unknown) */
    struct replicate *repl;     /* the leader's followers (replicate.h;
                                   owned), or NULL unless leading */
    struct follow *follow;      /* a standby's link to the leader and its
                                   journal (follow.h; owned), or NULL */
    bool reexec;                /* lost the leadership for good: stop the
                                   loop and re-execute itself (ha.c) */
    int argc;                   /* the command line, for that */
    char **argv;                /* (borrowed from main) */
} master_t;

#endif

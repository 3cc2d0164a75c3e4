/*  executor.h - hearth-executor's context, and the task record that its
    modules share.

    One executor runs tasks for one application.  Its single-threaded event
    loop (libcore/loop.h) owns everything here; the only other threads are
    the task pool's, which touch nothing but the tasks handed to them (and
    read the settings): they call functions and run commands.

        main.c     options, start-up, signals, the tick, shutdown
        link.c     the DEALER to the driver (link.h): registration,
                   heartbeats, the handler table of REGISTERED_EXECUTOR,
                   LAUNCH_TASKS, KILL_TASK, STOP_EXECUTOR, ERROR and
                   HEARTBEAT, and batched STATUS_UPDATE out
        tasks.c    the task table (tasks.h): queue, running list, starting,
                   finishing and killing tasks
        resalloc.c the executor's resource addresses and which running
                   attempt holds each (resalloc.h)
        fnpool.c   the pool of `cores` threads that run tasks (fnpool.h)
        cmdrun.c   command tasks as child processes, on pool threads
                   (cmdrun.h)
        shuffletask.c  a task's shuffle roles around its command or
                   function (shuffletask.h): the map output or output
                   file it writes, the fields of its final update
        reducein.c a reduce task's input: its blocks fetched (fetch.c),
                   merged and read back as a stream (reducein.h), or
                   taken from memory
        partcache.c  the inputs of persisted stages' readers kept in
                   memory for the next reader here (partcache.h; its own
                   lock: the task threads share it)
        fetch.c    a reduce task's blocks from the block servers
                   (fetch.h)
        shipfetch.c  shipped libraries and files got by hash, from the
                   node's cache or the driver in checked chunks
                   (shipfetch.h), kept in that cache (shipcache.c)
        libs.c     shipped libraries dlopen'ed (libs.h)
        files.c    the --files linked into the work dir (files.h)
        tlist.h    intrusive task lists

    The calls go one way, a tree: main -> link -> tasks -> fnpool ->
    cmdrun (and tasks -> cmdrun to kill a command; tasks -> libs; link ->
    shipfetch -> libs, files, shipcache); tasks -> resalloc; link, tasks, fnpool
   and cmdrun -> shuffletask -> reducein -> fetch, partcache; link ->
   partcache (its bytes, told to the driver).  Upward, a child reports only
   through the callbacks it was given at its creation: the pool hands the tasks
   that ran to the task table (fnpool_done_fn), the task table hands their
   updates to the link (tasks_events_t).  docs/architecture.md draws the
   processes and sockets around it.
*/
#ifndef HEARTH_EXECUTOR_H
#define HEARTH_EXECUTOR_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <czmq.h>

#include "executor/tlist.h"
#include "libcore/conf.h"
#include "libcore/loop.h"
#include "libcore/resources.h"
#include "libhearth/hearth.h"

/* Bytes of a command's stderr kept: the end of a failed one's error
   text, or what the log keeps of a successful one's. */
#define EXECUTOR_ERR_TAIL 4096
/* Longest error text of a task: the protocol's (MAX_TEXT in
   libcore/commands.c, s_max_error in libcore/packed.c), less its NUL. */
#define EXECUTOR_ERR_TEXT 4096

typedef struct executor executor_t;
typedef struct link link_t;
typedef struct tasks tasks_t;
typedef struct libs libs_t;
typedef struct shuffletask shuffletask_t;

/* Frames of one LAUNCH_TASKS message, shared by the tasks that use them. */
typedef struct {
    zframe_t **frames; /* owned */
    size_t nframes;    /* count */
    int refs;          /* tasks still holding this */
} shared_frames_t;

typedef enum {
    TASK_QUEUED,     /* waiting for a slot */
    TASK_RUNNING,    /* holds a slot */
    TASK_COMMITTING, /* ended well, its slot given back: waits for the
                        driver's leave to commit its output (tasks.c) */
} task_phase_t;

/* One task attempt on this executor. */
typedef struct task {
    tasks_t *tasks;     /* the task table that holds it */
    uint64_t tid;       /* driver's task id: stage << 32 | index */
    int attempt;        /* attempt number */
    task_phase_t phase; /* queued or running */
    tlink_t link;       /* on the executor's queue or running list */
    tlink_t pool_link;  /* on the pool's to-do or done list */
    /* what to run (fn, lib and arg live in the task's own block, after
       the struct: one allocation per function task) */
    char **argv;                    /* command: NULL-terminated, owned */
    char **env;                     /* command: extra "K=V", NULL-terminated */
    const char *fn;                 /* function: symbol name */
    const char *lib;                /* function: library name, or NULL: any */
    const char *arg;                /* function: argument ("" if none) */
    shared_frames_t *frames;        /* input frames (a reference), or NULL */
    zframe_t *input;                /* the input frame within frames, or NULL */
    shuffletask_t *roles;           /* map, reduce, output (shuffletask.h), or
                                       NULL: none */
    uint32_t whole_max;             /* a packed function task of a stage read
                                       whole, with no roles until it needs
                                       them: its result is its output, kept
                                       by the driver when shorter than this
                                       (shuffletask.h); or 0 */
    uint32_t whole_shuffle;         /* that stage's shuffle id */
    bool fn_kept;                   /* fn_out is that output, kept */
    int64_t timeout_ms;             /* 0: none */
    hearth_resource_amounts_t need; /* resources it needs (owned), or
                                       none */
    /* while it runs */
    hearth_resources_t held;              /* the addresses it holds (owned:
                                             given back when it ends) */
    hearth_task_resource_t *fn_resources; /* a function's view of held
                                             (owned), or NULL */
    int64_t start_us;      /* monotonic start (atomic: pool threads
                              set it for function tasks) */
    int timer_id;          /* timeout timer, or -1 */
    bool killed;           /* KILL_TASK or stop: report KILLED */
    bool timed_out;        /* past its time limit (a command: set by
                              its thread) */
    bool reported_running; /* a RUNNING update was sent */
    bool final_sent;       /* its final state was sent already */
    /* command task process: owned by its thread in the loop's watch of
       children, whose key is the task (cmdrun.c) */
    pid_t pid;       /* child, or 0 (its thread's) */
    bool exited;     /* reaped, wait_status set (its thread's) */
    int kill_sig;    /* a signal asked for before the spawn, or 0 (under
                        cmd_lock) */
    int wait_status; /* its wait status */
    char *run_error; /* why it could not start, or NULL */
    bool permanent;  /* its failure cannot change on a retry (no such
                        function or command: reported as such) */
    char *out;       /* captured stdout */
    size_t out_len, out_alloc;
    /* the last EXECUTOR_ERR_TAIL bytes of stderr, for the error text:
       allocated at the first byte, so that a task_t stays small */
    char *err_tail;
    size_t err_len;     /* bytes in err_tail */
    uint64_t err_total; /* bytes of stderr in all, kept or not */
    bool too_big;       /* stdout passed max_result_bytes */
    /* function task outcome (written by a pool thread) */
    hearth_task_fn func;      /* resolved symbol */
    int fn_rc;                /* its return code */
    hearth_task_out_t fn_out; /* its result */
    int64_t end_us;           /* when it ended */
} task_t;

/* The process's context: settings, the loop, and its parts. */
struct executor {
    hearth_conf_t *conf;          /* flags, env and file settings */
    char *app_id;                 /* the application */
    int64_t exec_id;              /* our id within it */
    int cores;                    /* task slots */
    hearth_resources_t resources; /* --resource: the addresses this
                                     executor holds (resalloc.h) */
    char *host;                   /* as reported to the driver */
    char *driver_url;             /* where the driver listens */
    char *token;                  /* per-application secret, or NULL */
    hearth_loop_t *loop;          /* the event loop */
    int sigfd;                    /* SIGCHLD, SIGTERM, SIGINT, SIGHUP */
    pid_t parent;                 /* the worker (or local driver) that ran us */
    int64_t hb_interval_ms;       /* heartbeat interval given (the link's
                                     uplink uses the driver's once
                                     registered) */
    int64_t hb_liveness;          /* missed intervals before the driver is dead
                                     (given: the same) */
    int64_t max_result_bytes;     /* largest result a task may return */
    int64_t running_report_ms;    /* report RUNNING for tasks older than this */
    bool pinned;                  /* task threads pinned one per CPU */
    cpu_set_t cpus;               /* the CPUs we may use (commands' children
                                     get them all back once started) */
    pthread_mutex_t outdirs_lock; /* outdirs (task threads add to it) */
    char **outdirs;               /* the output directories' _temporary
                                     this executor's tasks wrote in: each
                                     removed, when empty, as it ends
                                     (shuffletask.h) */
    size_t noutdirs;              /* entries */
    pthread_mutex_t cmd_lock;     /* a kill asked for before its command's
                                     spawn, and the spawning thread */
    link_t *link;                 /* the driver link, and through it the
                                     tasks (owned) */
    libs_t *libs;                 /* shipped libraries (owned) */
    char *work_dir;               /* where files go (cwd by default) */
    char *ship_dir;               /* the node's cache of shipped files
                                     (shipcache.h), or NULL: WORK_DIR/.files */
    bool ship_waiting;            /* shipped files and libraries are being
                                     got: no task starts (shipfetch.h) */
    char *ship_error;             /* a shipped file could not be had: every
                                     task fails with this, or NULL */
    char **broadcast;             /* the broadcast files in place, "NAME=PATH"
                                     each, NULL-terminated (owned), or NULL;
                                     changed only while no task runs */
    char *shuffle_dir;            /* SHUFFLE_ROOT: map outputs go under
                                     SHUFFLE_ROOT/APP_ID, or NULL: none */
    char *shuffle_url;            /* this node's block server, or NULL */
    char *shuffle_key;            /* its CURVE public key, or NULL */
    size_t shuffle_memory;        /* a map task's records held before a spill */
    size_t fetch_in_flight;       /* a reduce task's bytes asked, not got */
    size_t max_input_bytes;       /* largest reduce input of a function */
    size_t cache_memory;          /* its budget: cache-memory, at most
                                     half the memory granted */
    size_t memory_granted;        /* --memory-mb, in bytes */
    struct partcache *partcache;  /* reduce inputs kept in memory
                                     (partcache.h; owned) */
    bool stopping;                /* leaving the loop */
    int exit_code;                /* process exit status */
};

/* The bytes of reduce inputs ex may keep in memory (partcache.h) for a
   cache-memory of asked: at most half the memory granted to it, the
   rest being its tasks'. */
static inline size_t
executor_cache_budget (const executor_t *ex, size_t asked)
{
    size_t half = ex->memory_granted / 2;
    return ex->memory_granted && asked > half ? half : asked;
}

#endif

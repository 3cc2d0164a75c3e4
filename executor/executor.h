/*  executor.h - hearth-executor's context and the modules that share it.

    One executor runs tasks for one application.  Its single-threaded event
    loop (zloop) owns everything here; the only other threads are the task
    pool's, which touch nothing but the tasks handed to them (and read the
    settings): they call functions and run commands.

        link.c     the DEALER to the driver: registration, heartbeats,
                   LAUNCH_TASKS / KILL_TASK / STOP_EXECUTOR in, batched
                   STATUS_UPDATE out
        tasks.c    the task queue, starting and finishing tasks
        cmdrun.c   command tasks as child processes (on pool threads)
        fnpool.c   the pool of `cores` threads that run tasks
        libs.c     shipped libraries: cached by content hash, dlopen'ed
*/
#ifndef HEARTH_EXECUTOR_H
#define HEARTH_EXECUTOR_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <czmq.h>

#include "driver/hearth.h"
#include "executor/tlist.h"
#include "libcore/conf.h"
#include "libcore/packed.h"
#include "libcore/proto.h"

/* Bytes of a command's stderr kept for its error text. */
#define EXECUTOR_ERR_TAIL 1024

typedef struct executor executor_t;
typedef struct fnpool fnpool_t;
typedef struct libs libs_t;

/* Frames of one LAUNCH_TASKS message, shared by the tasks that use them. */
typedef struct {
    zframe_t **frames; /* owned */
    size_t nframes;    /* count */
    int refs;          /* tasks still holding this */
} shared_frames_t;

typedef enum {
    TASK_QUEUED,  /* waiting for a slot */
    TASK_RUNNING, /* holds a slot */
} task_phase_t;

/* One task attempt on this executor. */
typedef struct task {
    executor_t *ex;     /* the executor it runs on */
    uint64_t tid;       /* driver's task id: stage << 32 | index */
    int attempt;        /* attempt number */
    task_phase_t phase; /* queued or running */
    tlink_t link;       /* on the executor's queue or running list */
    tlink_t pool_link;  /* on the pool's to-do or done list */
    /* what to run (fn, lib and arg live in the task's own block, after
       the struct: one allocation per function task) */
    char **argv;             /* command: NULL-terminated, owned */
    char **env;              /* command: extra "K=V", NULL-terminated */
    const char *fn;          /* function: symbol name */
    const char *lib;         /* function: library name, or NULL: any */
    const char *arg;         /* function: argument ("" if none) */
    shared_frames_t *frames; /* input frames (a reference), or NULL */
    zframe_t *input;         /* the input frame within frames, or NULL */
    int64_t timeout_ms;      /* 0: none */
    /* while it runs */
    int64_t start_us;      /* monotonic start (atomic: pool threads
                              set it for function tasks) */
    int timer_id;          /* timeout timer, or -1 */
    bool killed;           /* KILL_TASK or stop: report KILLED */
    bool timed_out;        /* past its time limit (a command: set by
                              its thread) */
    bool reported_running; /* a RUNNING update was sent */
    bool final_sent;       /* its final state was sent already */
    /* command task process (pid, exited and kill_sig under cmd_lock) */
    pid_t pid;       /* child, or 0 */
    bool exited;     /* gone: no more signals; then reaped */
    int kill_sig;    /* a signal the loop asked for, or 0 */
    int wait_status; /* from waitpid */
    char *run_error; /* why it could not start, or NULL */
    char *out;       /* captured stdout */
    size_t out_len, out_alloc;
    /* the last EXECUTOR_ERR_TAIL bytes of stderr, for the error text:
       allocated at the first byte, so that a task_t stays small */
    char *err_tail;
    size_t err_len; /* bytes in err_tail */
    bool too_big;   /* stdout passed max_result_bytes */
    /* function task outcome (written by a pool thread) */
    hearth_task_fn func;      /* resolved symbol */
    int fn_rc;                /* its return code */
    hearth_task_out_t fn_out; /* its result */
    int64_t end_us;           /* when it ended */
} task_t;

struct executor {
    hearth_conf_t *conf;       /* flags, env and file settings */
    char *app_id;              /* the application */
    int64_t exec_id;           /* our id within it */
    int cores;                 /* task slots */
    char *host;                /* as reported to the driver */
    char *driver_url;          /* where the driver listens */
    char *token;               /* per-application secret, or NULL */
    zloop_t *loop;             /* the event loop */
    zsock_t *driver;           /* DEALER to the driver */
    zcert_t *cert;             /* our CURVE keys, when the driver has a key */
    int sigfd;                 /* SIGCHLD, SIGTERM, SIGINT, SIGHUP */
    pid_t parent;              /* the worker (or local driver) that ran us */
    int64_t hb_interval_ms;    /* heartbeat interval */
    int64_t hb_liveness;       /* missed intervals before the driver is dead */
    int64_t last_recv_ms;      /* last message from the driver (mono) */
    int64_t last_send_ms;      /* last message to the driver (mono) */
    int64_t started_ms;        /* when we started (mono) */
    bool registered;           /* REGISTERED_EXECUTOR received */
    int64_t max_result_bytes;  /* largest result a task may return */
    int64_t running_report_ms; /* report RUNNING for tasks older than this */
    tlist_t queue;             /* task_t waiting for a slot, FIFO */
    tlist_t running;           /* task_t started: commands running, functions
                                  handed to the pool */
    int cmd_running;           /* commands handed to the pool, not done */
    size_t fn_in_pool;         /* functions handed to the pool, not done */
    bool pinned;               /* task threads pinned one per CPU */
    cpu_set_t cpus;            /* the CPUs we may use (commands' children
                                  get them all back once started) */
    pthread_mutex_t cmd_lock;  /* between the loop's kills and the
                                  threads that run commands */
    hearth_msg_t *batch;       /* STATUS_UPDATE's large result frames
                                  while updates are packed, or NULL */
    hearth_packer_t updates;   /* the updates (and small results) packed */
    size_t batch_bytes;        /* result bytes in the batch */
    int batch_count;           /* updates in the batch */
    int flush_timer;           /* zloop timer of link_flush_soon, or -1 */
    fnpool_t *pool;            /* function-task threads */
    libs_t *libs;              /* shipped libraries */
    char *work_dir;            /* where files go (cwd by default) */
    bool stopping;             /* leaving the loop */
    int exit_code;             /* process exit status */
};

/* link.c */
int link_open (executor_t *ex, hearth_error_t *err);
void link_close (executor_t *ex);
int link_send_register (executor_t *ex);
int link_on_tick (executor_t *ex);
/* Queue one update for the next STATUS_UPDATE; result may be NULL. */
void link_add_update (executor_t *ex, const task_t *t, const char *state,
                      const char *error, const void *result, size_t len);
/* Send the pending STATUS_UPDATE, if any. */
void link_flush (executor_t *ex);
/* Send it now if the driver may be short of news (the executor holds
   few tasks), else within a couple of milliseconds, with what else ends
   meanwhile: one message for several short commands. */
void link_flush_soon (executor_t *ex);

/* tasks.c */
task_t *task_from_json (const cJSON *json, shared_frames_t *sf);
task_t *task_from_packed (const hearth_packed_task_t *p, shared_frames_t *sf);
void task_destroy (task_t **task_p);
void tasks_enqueue (executor_t *ex, task_t *t);
/* Start queued tasks: functions go to the pool (whose cores threads bound
   them), commands while fewer than cores tasks run. */
void tasks_dispatch (executor_t *ex);
/* A running task has ended: report it, free its slot. */
void tasks_finish (executor_t *ex, task_t *t);
int tasks_kill (executor_t *ex, uint64_t tid, int attempt);
void tasks_kill_all (executor_t *ex);
/* Report every task still held as KILLED; free them if free_them. */
void tasks_discard_all (executor_t *ex, bool free_them);
void tasks_report_running (executor_t *ex, int64_t now_us);
size_t tasks_running (executor_t *ex);
void shared_frames_release (shared_frames_t **sf_p);

/* cmdrun.c */
/* On a pool thread: run command task t to its end (fills exited,
   wait_status, out, err_tail, too_big, or run_error); once the child has
   started, fnpool_wake (ex->pool, wake). */
void cmdrun_run (executor_t *ex, task_t *t, bool *wake);
/* On the loop: signal a command's process group, now if it runs, else as
   soon as it has started; never after it has exited. */
void cmdrun_kill (executor_t *ex, task_t *t, int sig);

/* fnpool.c */
/* pin: "auto" (NULL), "yes" or "no": see fnpool.c. */
fnpool_t *fnpool_new (executor_t *ex, int threads, const char *pin,
                      hearth_error_t *err);
/* Stop the threads.  Returns 0, or -1 if a thread was still busy after a
   grace period (its task must then not be freed). */
int fnpool_destroy (fnpool_t **self_p);
/* On a pool thread: if *pending, wake the loop for the finished tasks
   (and clear *pending). */
void fnpool_wake (fnpool_t *self, bool *pending);
/* Hand n tasks to the threads at once (one lock, one wake-up). */
void fnpool_submit (fnpool_t *self, task_t **tasks, size_t n);
/* Take t back if no thread has started it.  Returns true if taken. */
bool fnpool_cancel (fnpool_t *self, task_t *t);

/* libs.c */
libs_t *libs_new (const char *dir);
void libs_destroy (libs_t **self_p);
/* Store and load one shipped library.  Returns 0 or -1 with err. */
int libs_add (libs_t *self, const char *name, const char *hash, zframe_t *frame,
              hearth_error_t *err);
/* The function fn in library lib (or in any library when lib is NULL). */
hearth_task_fn libs_lookup (libs_t *self, const char *lib, const char *fn,
                            hearth_error_t *err);

#endif

/*  executor.h - hearth-executor's context and the modules that share it.

    One executor runs tasks for one application.  Its single-threaded event
    loop (zloop) owns everything here; the only other threads are the
    function-task pool's, which touch nothing but the tasks handed to them.

        link.c     the DEALER to the driver: registration, heartbeats,
                   LAUNCH_TASKS / KILL_TASK / STOP_EXECUTOR in, batched
                   STATUS_UPDATE out
        tasks.c    the task queue and the `cores` run slots
        cmdrun.c   command tasks as child processes
        fnpool.c   function tasks on a pool of threads
        libs.c     shipped libraries: cached by content hash, dlopen'ed
*/
#ifndef HEARTH_EXECUTOR_H
#define HEARTH_EXECUTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <czmq.h>

#include "driver/hearth.h"
#include "libcore/conf.h"
#include "libcore/proto.h"

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
    executor_t *ex;           /* the executor it runs on */
    uint64_t tid;             /* driver's task id: stage << 32 | index */
    int attempt;              /* attempt number */
    task_phase_t phase;       /* queued or running */
    void *handle;             /* its node in the queue or running list */
    /* what to run */
    char **argv;              /* command: NULL-terminated, owned */
    char **env;               /* command: extra "K=V", NULL-terminated */
    char *fn;                 /* function: symbol name, owned */
    char *lib;                /* function: library name, or NULL: any */
    char *arg;                /* function: argument, owned ("" if none) */
    shared_frames_t *frames;  /* input frames (a reference), or NULL */
    zframe_t *input;          /* the input frame within frames, or NULL */
    int64_t timeout_ms;       /* 0: none */
    /* while it runs */
    int64_t start_us;         /* monotonic start (atomic: pool threads
                                 set it for function tasks) */
    void *pool_handle;        /* its node in the pool's queue, or NULL */
    int timer_id;             /* timeout timer, or -1 */
    bool killed;              /* KILL_TASK or stop: report KILLED */
    bool timed_out;           /* the timeout fired */
    bool reported_running;    /* a RUNNING update was sent */
    bool final_sent;          /* its final state was sent already */
    /* command task process */
    pid_t pid;                /* child, or 0 */
    int out_fd, err_fd;       /* pipes from the child, or -1 */
    bool exited;              /* waitpid has reaped it */
    int wait_status;          /* from waitpid */
    char *out;                /* captured stdout */
    size_t out_len, out_alloc;
    char err_tail[1024];      /* last bytes of stderr, for the error text */
    size_t err_len;
    bool too_big;             /* stdout passed max_result_bytes */
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
    zlistx_t *queue;           /* task_t waiting for a slot, FIFO */
    zlistx_t *running;         /* task_t started: commands running, functions
                                  handed to the pool */
    int cmd_running;           /* commands running */
    size_t fn_in_pool;         /* functions handed to the pool, not done */
    hearth_msg_t *batch;       /* STATUS_UPDATE being filled, or NULL */
    cJSON *updates;            /* its updates array (borrowed from batch) */
    size_t batch_bytes;        /* result bytes in batch */
    int batch_count;           /* updates in batch */
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

/* tasks.c */
task_t *task_from_json (const cJSON *json, shared_frames_t *frames);
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
int cmdrun_start (executor_t *ex, task_t *t, hearth_error_t *err);
void cmdrun_kill (executor_t *ex, task_t *t, int sig);
/* Reap exited children (after SIGCHLD). */
void cmdrun_reap (executor_t *ex);
/* Reap until no command task is left running or timeout_ms passed. */
void cmdrun_reap_wait (executor_t *ex, int timeout_ms);
/* Close the task's pipes and pollers. */
void cmdrun_cleanup (executor_t *ex, task_t *t);

/* fnpool.c */
fnpool_t *fnpool_new (executor_t *ex, int threads, hearth_error_t *err);
/* Stop the threads.  Returns 0, or -1 if a thread was still busy after a
   grace period (its task must then not be freed). */
int fnpool_destroy (fnpool_t **self_p);
/* Hand n tasks to the threads at once (one lock, one wake-up). */
void fnpool_submit (fnpool_t *self, task_t **tasks, size_t n);
/* Take t back if no thread has started it.  Returns true if taken. */
bool fnpool_cancel (fnpool_t *self, task_t *t);

/* libs.c */
libs_t *libs_new (const char *dir);
void libs_destroy (libs_t **self_p);
/* Store and load one shipped library.  Returns 0 or -1 with err. */
int libs_add (libs_t *self, const char *name, const char *hash,
              zframe_t *frame, hearth_error_t *err);
/* The function fn in library lib (or in any library when lib is NULL). */
hearth_task_fn libs_lookup (libs_t *self, const char *lib, const char *fn,
                            hearth_error_t *err);

int64_t executor_now_us (void);

#endif

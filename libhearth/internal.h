/*  internal.h - libhearth's insides, shared by its modules.

    The user's thread builds jobs (jobs.c) and calls the API (ctx.c); one
    engine thread per context does all the I/O.  The engine is the root
    of its parts: it calls them, they tell it what happened through
    callbacks given at creation, and none calls another's parent:

        ctx.c        the context: the engine thread, submit, cancel, run
          libfns.c   what its libraries define, read at its start
        jobs.c       jobs and stages: building, waiting, results
          persist.c  persisted stages copied into the jobs that read
                     them, at submit (the user's thread), and their
                     tables given back
        engine.c     the engine: start-up, the loop, the pipe to the API,
                     and what its parts tell it
          work.c     the work in progress: task set, stages, running jobs
          execs.c    the executor set: its ROUTER, registration,
                     heartbeats, losses
            launch.c tasks to executors (LAUNCH_TASKS) and back
                     (STATUS_UPDATE)
            ship.c   the libraries and files shipped to every executor
            shuffle.c  data between stages (launch.c's and work.c's):
                     where map outputs are, reduce tasks' block lists,
                     lost outputs, output files
            reduceplace.c  where readers would rather run: the workers
                     holding their bytes, the executor keeping their
                     input in memory
          master.c   the link to the master (cluster modes), on
                     libcore/uplink.c
            master_msgs.c  what it sends: (un)registering
          local.c    local[N] executors and local-cluster daemons; the mode
          signals.c  SIGINT and SIGTERM of programs that leave them alone
          starved.c  the warning that jobs wait with no executor
        render.c     a task's wire form from its group's templates
        opts.c       settings (hearth_opts_t)

    Sharing: after hearth_job_submit() a job's stages belong to the engine
    until the job ends; the engine publishes progress and the end under the
    job's lock, and the user reads results only after the end.
    docs/architecture.md draws the processes and sockets around it.
*/
#ifndef HEARTH_LIBHEARTH_INTERNAL_H
#define HEARTH_LIBHEARTH_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/conf.h"
#include "libcore/manifest.h"
#include "libcore/packed.h"
#include "libcore/proto.h"
#include "libcore/resources.h"
#include "libcore/sock.h"
#include "libhearth/hearth.h"
#include "libhearth/libfns.h"

/* Stage uids stay below 2^21: a task id is uid << 32 | index. */
#define DRIVER_MAX_STAGES ((1u << 21) - 1)
#define DRIVER_TID(uid, index) (((uint64_t) (uid) << 32) | (uint64_t) (index))
#define DRIVER_TID_STAGE(tid) ((uint32_t) ((tid) >> 32))
#define DRIVER_TID_INDEX(tid) ((uint64_t) ((tid) &0xffffffffu))

/* count tasks added by one call, from one template. */
typedef struct {
    uint64_t first;     /* index of its first task in the stage */
    uint64_t count;     /* tasks in the group */
    char **argv;        /* command template, NULL-terminated; or NULL */
    char **env;         /* "K=V" templates, NULL-terminated; or NULL */
    char *fn;           /* function name; or NULL */
    char *arg;          /* function argument template */
    int64_t timeout_ms; /* per-task limit, 0: none */
    char **prefer;      /* where its tasks would rather run: templates
                           ("{i}"), NULL-terminated (hearth_stage_prefer);
                           or NULL */
} task_group_t;

/* Where one map task's output is (a partitioned stage's task). */
typedef struct {
    uint64_t *sizes;   /* stored bytes of each partition's block (R), or
                          NULL: no output registered (not run yet, or lost) */
    uint32_t server;   /* the block server holding it (shuffle.h), or
                          SHUFFLE_NO_SERVER: on the driver's node, or
                          SHUFFLE_KEPT: kept by the driver (fresh,
                          kept_at, kept_len) */
    uint32_t attempt;  /* the attempt that wrote it */
    bool fresh;        /* SHUFFLE_KEPT: its bytes are in the
                          stage's kept_new (inlineout.h), else in its
                          inline_cache */
    uint64_t kept_at;  /* SHUFFLE_KEPT: their offset there */
    uint32_t kept_len; /* SHUFFLE_KEPT: its bytes (the task's output, the
                          newline it needed added); sizes[0] is their
                          stored length, framed as a block */
} mapout_t;

/* One task's result. */
typedef struct {
    void *data;   /* malloc'ed bytes, or NULL */
    uint32_t len; /* bytes */
} result_t;

struct hearth_stage {
    hearth_job_t *job;    /* owner */
    char *name;           /* unique in the job */
    uint32_t uid;         /* engine-wide id, set at submit */
    task_group_t *groups; /* in index order */
    size_t ngroups, groups_alloc;
    uint64_t ntasks;          /* sum of the groups' counts */
    hearth_stage_t **parents; /* stages to finish first */
    size_t nparents;
    hearth_stage_t *input;       /* parent whose results are the input */
    char *pool;                  /* FAIR pool, or NULL */
    int weight;                  /* FAIR weight */
    int64_t timeout_ms;          /* for groups added from now on */
    uint32_t partitions;         /* 0: results go to the driver; else R, the
                                    partitions of a shuffle (a "map" stage) */
    bool sort;                   /* partitions sorted by key */
    bool read_whole;             /* unpartitioned and read by another
                                    stage (hearth_stage_input): its tasks
                                    write a one-partition map output that
                                    its readers fetch from the workers;
                                    the driver keeps no result of it (set
                                    at submit, shuffle.h) */
    hearth_persist_t persist;    /* kept for later jobs (hearth_stage_persist):
                                    its outputs outlive its job */
    hearth_stage_t *origin;      /* a copy of a persisted stage of an
                                    earlier job (persist.h): that stage,
                                    while it lives; else NULL */
    bool held;                   /* such a copy: its tasks ran before, its
                                    outputs are where they were left */
    bool orphaned;               /* it named a stage of another job
                                    destroyed since: never submitted
                                    (persist.h) */
    char *orphaned_of;           /* "STAGE of job JOB", that one, or NULL
                                    (no memory) */
    bool lineage;                /* the input of a persisted stage of its
                                    job, or that input's input...: what
                                    its lost outputs are made again from
                                    (set at submit, persist.h) */
    uint32_t shuffle_id;         /* the shuffle id its map outputs lie
                                    under: its uid, or its origin's */
    bool remake;                 /* a copy whose lost outputs are made
                                    again at once (engine, at submit): a
                                    stage of the job reads it, or a copy
                                    that remakes some reads it */
    bool keep_in_memory;         /* a memory level: its readers' inputs stay
                                    in their executors' memory (copied to
                                    its copies) */
    int32_t *cached_on;          /* keep_in_memory: by partition, the
                                    executor keeping it, or -1; NULL: none
                                    yet (reduceplace.h) */
    uint64_t cached;             /* a copy: its tasks finished at submit
                                    (their outputs there, or none needed) */
    char fp[41];                 /* its fingerprint (fingerprint.h), set at
                                    submit */
    bool resumed;                /* held (above) because an earlier driver
                                    of the application left its outputs
                                    (resume.h), not a persisted stage's
                                    copy */
    bool *had;                   /* resumed: by task, its output was there
                                    at submit (a map output, or a committed
                                    part file); NULL otherwise */
    char *output_dir;            /* results written to files here, or NULL */
    hearth_part_file_t *parts;   /* output_dir: ntasks part files, where
                                    each was committed (engine side, for
                                    the manifest: libcore/manifest.h) */
    hearth_result_fn *on_result; /* each accepted result, or NULL */
    void *on_result_user;        /* given to it */
    bool discard_results;        /* keep none (HEARTH_RESULT_DISCARD) */
    hearth_resource_amounts_t resources; /* custom resources per task
                                            (hearth_stage_set_resource) */
    char **require;                      /* places its executors must be on, all
                                            ("KEY=VALUE": hearth_stage_require),
                                            NULL-terminated; or NULL */
    int64_t unmet_ms; /* since when no executor meets it (engine),
                         or 0 */
    bool unmet_said;  /* that was logged */
    /* engine side, from submit on */
    mapout_t *maps;           /* partitioned or read whole: ntasks map
                                 outputs */
    uint32_t inline_max;      /* read whole: its tasks' outputs of at most
                                 this many stored bytes are kept by the
                                 driver (inlineout.h), or 0 */
    uint64_t inline_reserved; /* of the driver's budget for them */
    zframe_t *inline_cache;   /* the kept outputs in task order, once
                                 built for a reader (its "input"), or
                                 NULL */
    zframe_t *inline_framed;  /* the same framed as blocks, for readers
                                 that also fetch (the reduce role's
                                 "inline"), once built, or NULL */
    bool inline_stale;        /* a block was kept or dropped since the
                                 cache was built */
    unsigned char *kept_new;  /* the outputs kept since the cache was
                                 built, one after the other, or NULL */
    size_t kept_new_len;      /* bytes used in it (dropped ones too) */
    size_t kept_new_cap;      /* its room */
    uint64_t nkept;           /* map outputs kept now (inlineout.c): all
                                 of them when ntasks */
    uint64_t *kept_sizes;     /* ntasks entries once an output is kept: a
                                 kept map output's sizes (one partition:
                                 its stored length as a block) */
    result_t *results;        /* ntasks entries */
    uint64_t results_held;    /* of them with bytes: none, and the table,
                                 never written, is not read through */
    uint64_t failed_attempts; /* failed attempts counted by the engine */
    uint64_t placed[3];       /* attempts launched NODE_LOCAL, RACK_LOCAL,
                                 ANY (their tasks prefer places; atomic:
                                 hearth_stage_locality reads them) */
    bool done;                /* all tasks finished (under job lock) */
    uint64_t finished;        /* progress (under job lock) */
    uint64_t running;         /* progress (under job lock) */
    uint64_t failed;          /* progress: failed_attempts (under job lock) */
    int64_t done_ms;          /* when done became true, monotonic (job lock) */
    bool ev_started;          /* its stage_start event is written */
    bool ev_ended;            /* its stage_end event is written */
    int ev_attempt;           /* 0, then 1, 2...: run again for lost outputs */
    uint64_t ev_rerun;        /* tasks run again in that attempt */
};

/* Whether st's map-output table outlives its job, for later jobs: a
   persisted stage, a copy of one, or their lineage; never kept by the
   driver (inlineout.h). */
static inline bool
stage_outlives_job (const hearth_stage_t *st)
{
    return st->persist != HEARTH_PERSIST_NONE || st->held || st->lineage;
}

struct hearth_job {
    hearth_ctx_t *ctx;       /* owner */
    char *name;              /* for messages */
    uint64_t id;             /* engine-wide id, set at submit */
    hearth_stage_t **stages; /* in the order they were added */
    size_t nstages, stages_alloc;
    pthread_mutex_t lock;           /* guards state, error and progress */
    pthread_cond_t ended;           /* broadcast when state leaves RUNNING */
    hearth_job_state_t state;       /* see hearth.h */
    int64_t submitted_ms;           /* when it was submitted, monotonic */
    char *error;                    /* why it failed */
    void *handle;                   /* node in the context's job list */
    struct hearth_job *submit_next; /* next submitted on the queue (apiq.h) */
    struct hearth_job *cancel_next; /* next cancelled on the queue */
    /* A job file's strings, which its function groups point into instead
       of copies (job_lend_strings): never freed group by group; freed
       with the job once owned. */
    char *strings;
    size_t strings_len;
    bool strings_owned;
};

struct hearth_ctx {
    hearth_conf_t *conf;   /* settings (copied from opts) */
    struct engine *engine; /* the I/O side (engine.h) */
    libfns_t *libfns;      /* what the libraries define (libfns.h) */
    zsock_t *pipe;         /* the engine thread's answers (PAIR) */
    struct apiq *apiq;     /* commands to the engine thread (apiq.h) */
    pthread_t thread;      /* runs the engine */
    bool running;          /* thread started, not yet joined */
    zlistx_t *jobs;        /* hearth_job_t not yet destroyed */
    char app_id[160];      /* from the master, or local-made */
    bool submitted;        /* a job was submitted (atomic): no broadcast
                              file is added after (hearth_broadcast_file) */
    hearth_resource_amounts_t executor_resources; /* parsed from conf's
                                                     executor-resource */
    char error[512];                              /* last context-level error */
};

/* opts.c */
const hearth_opt_t *driver_options (void);
/* A copy of opts' settings (or defaults and environment for NULL). */
hearth_conf_t *driver_conf_copy (const hearth_opts_t *opts, char *errbuf,
                                 size_t errlen);
/* hearth-driver: parse its own argv into a new options object. */
hearth_opts_t *driver_opts_from_argv (int argc, char **argv, int *first,
                                      char *errbuf, size_t errlen);
hearth_conf_t *driver_opts_conf (hearth_opts_t *opts);
/* A tcp:// master URL of conf that is not tcp://HOST:PORT: -1 with err
   saying what is wrong ("missing port") and where it came from; else 0
   (local modes are checked when the engine starts). */
int driver_check_master (hearth_conf_t *conf, hearth_error_t *err);
/* Each executor's custom resources, conf's --executor-resource values
   ("gpu=1", repeatable; HEARTH_EXECUTOR_RESOURCE="gpu=1,fpga=2"), parsed
   into an empty out (the caller clears it).  0, or -1 with err naming
   the bad value. */
int driver_executor_resources (const hearth_conf_t *conf,
                               hearth_resource_amounts_t *out,
                               hearth_error_t *err);
/* A list setting's items joined by commas (items that hold none), as an
   environment variable or a --conf value carries it; caller frees; NULL
   on no memory. */
char *driver_list_join (const hearth_conf_t *conf, const char *name);
/* local-cluster: conf's worker-resource or worker-resource-discovery
   values (name), each whole again ("gpu=0,1" split at its comma by the
   environment is joined back) and checked: a new NULL-terminated array
   (*n long) for driver_params_destroy(), or NULL with err naming the bad
   value. */
char **driver_worker_resources (const hearth_conf_t *conf, const char *name,
                                size_t *n, hearth_error_t *err);
/* conf's executor-label values as a labels object {KEY: VALUE} into
   *out (may be NULL: only checked), NULL when none.  0, or -1 with err
   naming the bad one (opts.c). */
int driver_executor_labels (const hearth_conf_t *conf, cJSON **out,
                            hearth_error_t *err);
/* Whether conf's executor-resource values parse: 0, or -1 with err. */
int driver_check_executor_resources (const hearth_conf_t *conf,
                                     hearth_error_t *err);
/* The parsed executor-resource amounts of ctx's settings (borrowed: they
   live as long as ctx; empty when none was asked for).  What the driver
   checks stages against, and what REGISTER_APPLICATION carries as
   executor_resources. */
const hearth_resource_amounts_t *
opts_executor_resources (const hearth_ctx_t *ctx);
/* The largest result (max-result-bytes) and the largest input from an
   unpartitioned stage: each travels as one frame of a message, and a
   frame larger than the sockets' ZMQ_MAXMSGSIZE (HEARTH_SOCK_MAX_MSG_BYTES,
   256 MiB; libzmq checks it per frame) is dropped by ZeroMQ without a
   word, so it is refused before. */
#define DRIVER_MAX_FRAME_DATA ((uint64_t) HEARTH_SOCK_MAX_MSG_BYTES)
/* max-result-bytes within DRIVER_MAX_FRAME_DATA: 0, or -1 with err. */
int driver_check_limits (hearth_conf_t *conf, hearth_error_t *err);
/* hearth-submit: whether a setting was given on its command line (a
   flag, --conf KEY=VALUE, or a --conf FILE), and so travels to the driver
   it runs; the environment and the defaults file are read where the
   driver runs. */
bool driver_setting_given (const hearth_conf_t *conf, const char *name);
/* The name of the user running the driver (its real uid's), or the uid
   as a number when it has none (or one with a control character), into
   buf: the application's `user` for the master and the event log. */
void driver_user_name (char *buf, size_t size);
/* The application's name: conf's name, else the program's (a libhearth
   program run without --name, as Spark names one after its main class),
   else "hearth" when that is no name (empty, too long, or with a control
   character). */
const char *driver_app_name (const hearth_conf_t *conf);

/* The absolute directory command tasks get as HEARTH_SUBMIT_DIR: conf's
   submit-dir, else the current one, into buf.  0, or -1 with err. */
int driver_submit_dir (const hearth_conf_t *conf, char *buf, size_t size,
                       hearth_error_t *err);
/* conf's --param values as one HEARTH_PARAM value (',' and '%' in an
   item encoded), for hearth-submit to pass on; caller frees. */
char *driver_params_encode (const hearth_conf_t *conf);
/* conf's --param values, decoded when they came from HEARTH_PARAM or a
   file: a new NULL-terminated array (*n long) for
   driver_params_destroy(), NULL on no memory. */
char **driver_params (const hearth_conf_t *conf, size_t *n);
void driver_params_destroy (char ***params_p);

/* jobs.c */
/* Set the job's final state and wake its waiters. */
void job_end (hearth_job_t *job, hearth_job_state_t state, const char *error);
/* Publish a stage's counts, with the failed attempts the engine counted
   in stage->failed_attempts (engine thread). */
void job_set_progress (hearth_job_t *job, hearth_stage_t *stage,
                       uint64_t finished, uint64_t running, bool done);
/* The group holding task index (binary search). */
const task_group_t *stage_group (const hearth_stage_t *stage, uint64_t index);
/* Whether every task of the stage is within the limits of a task
   (tasklimits.h): 0, or -1 with why (size bytes) naming the first that
   is not, the limit and its size ("stage \"count\", task 3: cmd[4] is
   120000 bytes, over the 65536 a command's argument may be"). */
int stage_check_limits (const hearth_stage_t *stage, char *why, size_t size);
/* Whether every function task's function is defined by one of libs
   (libfns.h): 0, or -1 with why naming the first that is not and the
   libraries ("stage \"sample\", task 0: no function pi_sampel in the
   shipped libraries (libpi.so)").  A library whose symbols could not be
   read passes any name: its executor's dlsym says. */
int stage_check_functions (const hearth_stage_t *stage, const libfns_t *libs,
                           char *why, size_t size);
/* A copy of the NULL-terminated v (NULL: an empty one); NULL on no
   memory. */
char **job_strv_dup (const char *const *v);
/* Free a job and its stages (the engine no longer refers to it); the
   caller has taken it out of its context's list.  Accepts NULL; keeps
   errno. */
void job_destroy (hearth_job_t **self_p);
/* Lend a new job len bytes of strings (a job file's store, jobfile.c):
   stage_add_functions_lent() points groups into them.  The lender keeps
   them alive until job_own_strings(), after which the job frees them. */
void job_lend_strings (hearth_job_t *job, char *strings, size_t len);
/* The job now owns the strings it was lent. */
void job_own_strings (hearth_job_t *job);
/* hearth_stage_add_functions() without copying: fn and arg (NUL-
   terminated) lie in the strings lent to the stage's job. */
int stage_add_functions_lent (hearth_stage_t *stage, const char *fn,
                              const char *arg, uint64_t count);

/* render.c */
/* Append task index of stage to the tasks array of msg, a LAUNCH_TASKS
   (a function's argument over HEARTH_TASK_ARG_MAX bytes as a binary
   frame of msg).  The bytes of the strings it put in the body are added
   to *bytes.  Returns 0 or -1 (no memory). */
int render_task (hearth_msg_t *msg, cJSON *tasks, const hearth_stage_t *stage,
                 uint64_t index, int attempt, size_t *bytes);
/* Pack task index of stage.  Returns 0, or -1 (a field out of the
   protocol's limits, or no memory: send it as JSON instead). */
int render_packed (hearth_packer_t *packer, const hearth_stage_t *stage,
                   uint64_t index, int attempt);
/* Replace "{i}" in text with i. Caller frees. */
char *render_template (const char *text, uint64_t i);

#endif

/*  hearth.h - libhearth, the driver API of Hearth.

    A driver program describes jobs (DAGs of stages, each stage a set of
    tasks) and runs them on a Hearth cluster, like a SparkContext:

        hearth_ctx_t *ctx = hearth_ctx_new (NULL, err, sizeof err);
        hearth_job_t *job = hearth_job_new (ctx, "pi");
        hearth_stage_t *sample = hearth_job_stage (job, "sample");
        hearth_stage_add_functions (sample, "pi_sample", "{i}", 100);
        hearth_stage_t *sum = hearth_job_stage (job, "sum");
        hearth_stage_input (sum, sample);
        hearth_stage_add_function (sum, "pi_sum", NULL);
        if (hearth_job_run (job) == 0) {
            size_t len;
            const char *pi = hearth_stage_result (sum, 0, &len);
            printf ("%.*s", (int) len, pi);
        }

    Settings (master URL, application name, resources, retries...) come from
    hearth_opts_t: by default from HEARTH_* environment variables, which is
    how hearth-submit passes its flags to a driver program, over the
    machine's defaults file (hearth-defaults.conf, docs/driver.md).

    Tasks are commands (an argv run by the executor, stdout is the result)
    or functions (a symbol in a shared library shipped to the executors with
    the "lib" option, of type hearth_task_fn).  "{i}" in a task's strings
    becomes the task's index within its group (0...count-1).

    Ownership: a job belongs to its context, a stage to its job.  Strings
    and buffers passed in are copied; pointers returned are borrowed and
    live as long as their owner.  Functions return 0 or a pointer on
    success, -1 or NULL on failure with a message available from
    hearth_ctx_error() / hearth_job_error().  All functions may be called
    from any one thread at a time per context.
*/
#ifndef HEARTH_H
#define HEARTH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HEARTH_VERSION "0.1.0"

/* ---- function tasks: what a shipped library exports ------------------- */

/* One custom resource a function task was given (its stage's
   "resources"): count addresses of name, held by no other running
   attempt.  Borrowed for the call. */
typedef struct {
    const char *name;             /* "gpu" */
    const char *const *addresses; /* count addresses: "0", "3" */
    size_t count;                 /* the stage's amount of name */
} hearth_task_resource_t;

/* What a function task receives. */
typedef struct {
    const char *arg;   /* the task's argument ("" when none) */
    const void *input; /* input bytes (a parent stage's results) */
    size_t input_len;  /* bytes at input */
    uint64_t index;    /* the task's index within its stage */
    int attempt;       /* 0 for the first attempt, then 1, 2... */
    /* (added at the end: libraries built before still work) */
    const hearth_task_resource_t *resources; /* the resources it was given,
                                                NULL when none */
    size_t nresources;                       /* entries at resources */
    /* (added at the end: libraries built before still work) */
    const char *const *broadcast; /* the application's broadcast files,
                                     "NAME=PATH" each, NULL-terminated;
                                     NULL when none (see
                                     hearth_task_broadcast) */
} hearth_task_in_t;

/* The local path of the application's broadcast file NAME
   (hearth_broadcast_file, a job file's "broadcast"), read-only, the
   same as $HEARTH_BROADCAST_NAME; NULL when there is none of that
   name.  Inline, so that a library needs no link to libhearth; it reads
   the field above, which executors older than broadcast files do not
   fill: a library calling it needs an executor of 0.1.0 or later with
   broadcast files. */
static inline const char *
hearth_task_broadcast (const hearth_task_in_t *in, const char *name)
{
    for (const char *const *b = in && name ? in->broadcast : 0; b && *b; b++) {
        const char *e = *b, *n = name;
        while (*n && *e == *n)
            e++, n++;
        if (!*n && *e == '=')
            return e + 1;
    }
    return 0;
}

/* What a function task hands back. */
typedef struct {
    void *data; /* result bytes, allocated with malloc(); freed by Hearth */
    size_t len; /* bytes at data */
    char error[512]; /* on failure: what went wrong, for the user */
} hearth_task_out_t;

/* A function task: return 0 with the result in out, or non-zero with
   out->error set.  Called on an executor's task thread; it must be
   thread-safe with itself. */
typedef int (*hearth_task_fn) (const hearth_task_in_t *in,
                               hearth_task_out_t *out);

/* ---- settings ----------------------------------------------------------- */

typedef struct hearth_opts hearth_opts_t;

/* Settings with their defaults, then the defaults file
   ($HEARTH_CONF_DIR/hearth-defaults.conf, else the installed one), then
   HEARTH_* environment variables (e.g. HEARTH_MASTER, HEARTH_NAME,
   HEARTH_TOTAL_EXECUTOR_CORES), each stronger than the one before.  NULL
   on no memory or when the environment or the file holds a bad value
   (errbuf says). */
hearth_opts_t *hearth_opts_new (char *errbuf, size_t errlen);
void hearth_opts_destroy (hearth_opts_t **self_p);

/* Set one setting by name, as hearth-submit's flags and --conf do:
   "master" (local[N], local[*], local-cluster[W,C,M], tcp://HOST:PORT),
   "name", "total-executor-cores", "executor-cores", "executor-memory",
   "lib" (adds one shared library), "files" (adds files, comma-separated,
   put in every executor's work dir under their base names, where command
   tasks read them: hearth_ctx_new refuses, naming it, one that is not a
   regular file, two of one base name, and a total over the message size
   limit), "max-failures", "scheduler-mode" (FIFO or FAIR), "speculation",
   ... (see docs/driver.md).  Returns 0, or -1 with errbuf filled for an
   unknown name or a bad value. */
int hearth_opts_set (hearth_opts_t *self, const char *name, const char *value,
                     char *errbuf, size_t errlen);

/* ---- the context: one application ------------------------------------- */

typedef struct hearth_ctx hearth_ctx_t;

/* Start an application: register with the master (or start the local
   executors) and wait until it is registered.  opts may be NULL (defaults
   defaults file and environment); it is copied.  NULL with errbuf filled
   on failure, a tcp:// master without a port included. */
hearth_ctx_t *hearth_ctx_new (const hearth_opts_t *opts, char *errbuf,
                              size_t errlen);

/* Stop the application: stop its executors, unregister (telling the
   master how it ended; with a tcp:// master, waiting up to the
   register-timeout setting for the master to confirm, should it be down
   or restarting), free every job.  Accepts NULL; nulls the pointer. */
void hearth_ctx_destroy (hearth_ctx_t **self_p);

/* The application id given by the master ("local-..." in local mode). */
const char *hearth_ctx_app_id (const hearth_ctx_t *self);

/* The last error of a context-level call. */
const char *hearth_ctx_error (const hearth_ctx_t *self);

/* How an application ends, as the master records it. */
typedef enum {
    HEARTH_APP_FINISHED, /* it did what it set out to do */
    HEARTH_APP_FAILED,   /* it could not */
    HEARTH_APP_KILLED,   /* it was stopped: a signal, its user */
} hearth_app_end_t;

/* Say how the application ends, and why (reason copied; NULL: none):
   what the master records when the context is destroyed.  The last call
   wins.  Without one, the rule is (docs/driver.md):
   - KILLED when SIGINT or SIGTERM stopped the program, if it left those
     signals at their default action: libhearth then catches the first
     one, ends the application KILLED, stops its executors, and the
     process dies of the signal as it would have (a second one kills it
     at once);
   - FAILED when the application could not go on (the master removed it,
     the local executor kept failing), or when the last job to end
     failed (its error is the reason; a job that succeeds after it makes
     the end FINISHED again; jobs cancelled by hearth_job_destroy and
     jobs still running at the end do not count);
   - FINISHED otherwise, no job at all included.
   Returns 0, or -1 with errno EINVAL (no context, a bad state, the
   application stopped already). */
int hearth_ctx_set_final_state (hearth_ctx_t *self, hearth_app_end_t state,
                                const char *reason);

/* Ship the file at path to every executor as broadcast variable name
   (upper-case letters, digits and _, not starting with a digit, at most
   64): fetched once per node (from the driver or from the nodes that
   hold it already), kept read-only in the node's cache, never copied
   into a work dir; each task finds its path in the environment variable
   HEARTH_BROADCAST_<name>, and a function task also by
   hearth_task_broadcast (in, name).  Before any job is submitted: the
   file is hashed now, executors that registered already are told with
   the first job, and none of its tasks starts before the file is there.
   Returns 0, or -1 with errno: EINVAL (a bad name, one given twice, a
   path that is not a regular file that can be read: hearth_ctx_error
   says which) or EBUSY (a job was submitted already: broadcast files
   are the application's from its start; start another application for
   new ones). */
int hearth_broadcast_file (hearth_ctx_t *ctx, const char *name,
                           const char *path);

/* ---- jobs and stages ---------------------------------------------------- */

typedef struct hearth_job hearth_job_t;
typedef struct hearth_stage hearth_stage_t;

typedef enum {
    HEARTH_JOB_NEW,       /* being built */
    HEARTH_JOB_RUNNING,   /* submitted, not finished */
    HEARTH_JOB_SUCCEEDED, /* every task of every stage finished */
    HEARTH_JOB_FAILED,    /* a task ran out of attempts, or the app ended */
} hearth_job_state_t;

/* A new, empty job.  NULL on no memory, or with errno EINVAL when name
   holds a control character (a newline, a tab, ESC...: names are printed
   in logs and on terminals). */
hearth_job_t *hearth_job_new (hearth_ctx_t *ctx, const char *name);

/* Free a job that is not running (NEW, SUCCEEDED or FAILED).  Accepts
   NULL; nulls the pointer. */
void hearth_job_destroy (hearth_job_t **self_p);

/* A new stage of job.  Stage names are unique within a job and hold no
   control character; NULL with errno EINVAL for one that breaks either
   rule. */
hearth_stage_t *hearth_job_stage (hearth_job_t *job, const char *name);

/* The stage named name, or NULL. */
hearth_stage_t *hearth_job_find_stage (hearth_job_t *job, const char *name);

/* stage runs after parent has finished. */
int hearth_stage_after (hearth_stage_t *stage, hearth_stage_t *parent);

/* stage runs after parent, and every task of stage gets parent's results
   as input: each result in task order with one trailing newline removed,
   followed by a newline (an unpartitioned parent), or one partition of
   them (a partitioned one).  The input never passes through the driver:
   parent's tasks keep their results on their nodes and stage's tasks
   fetch them, so it may be of any size (a function task gets at most the
   max-input-bytes setting of it), and hearth_stage_result gives none of
   parent's results. */
int hearth_stage_input (hearth_stage_t *stage, hearth_stage_t *parent);

/* ---- outputs kept for later jobs (docs/driver.md "Persisted stages") ---- */

typedef enum {
    HEARTH_PERSIST_NONE,            /* not kept past its job (the default) */
    HEARTH_PERSIST_MEMORY,          /* wanted in its executors' memory */
    HEARTH_PERSIST_DISK,            /* on its workers' disks */
    HEARTH_PERSIST_MEMORY_AND_DISK, /* both */
} hearth_persist_t;

/* Keep the stage's outputs after its job has succeeded, for later jobs
   of the context: a stage of a later job may then name it with
   hearth_stage_input or hearth_stage_after (across jobs only a persisted
   stage may be named), and reads its outputs where they lie instead of
   running it again; outputs lost since (a worker gone) are made again by
   running exactly their tasks, and their parents' when those are lost
   too.  An unpartitioned persisted stage keeps its results on its
   workers as an input would (hearth_stage_result gives none of them).
   They are kept until hearth_stage_unpersist, the destruction of the
   stage's job or the end of the context (a job built to read it and
   submitted after those is refused).  Before the job is submitted.
   Returns 0, or -1 with errno EINVAL (a bad level, a submitted job, a
   stage whose results go to files or to a result callback). */
int hearth_stage_persist (hearth_stage_t *stage, hearth_persist_t level);
/* The stage's persistence level. */
hearth_persist_t hearth_stage_persisted (const hearth_stage_t *stage);
/* Stop keeping the stage's outputs for later jobs: jobs submitted from
   now on cannot read it (those running go on); the table of where they
   are goes with the stage's job (hearth_job_destroy), their files with
   the application.  Not while the stage's job runs.  Returns 0, or -1
   with errno EINVAL (NULL, or a stage not persisted) or EBUSY (its job
   is running). */
int hearth_stage_unpersist (hearth_stage_t *stage);

/* ---- data between stages (docs/jobs.md "Partitioned stages") ----
   A task's output is a sequence of records: lines, a record's key its
   bytes before the first TAB (the whole line without one). */

/* The most partitions of one stage. */
#define HEARTH_MAX_STAGE_PARTITIONS 100000

/* The stage's partitions (hearth_stage_set_partitions), 0 when its
   results go to the driver. */
uint32_t hearth_stage_partitions (const hearth_stage_t *stage);

/* hearth_stage_set_partitions flags. */
#define HEARTH_PARTITION_SORT                                                  \
    1u /* each partition sorted by key (bytewise;                              \
          equal keys keep their map-task order) */

/* Partition the stage's output: each record of each of its tasks goes to
   partition FNV-1a-64(key) mod partitions, written by its executor on its
   node and served from there; nothing of it reaches the driver.  A stage
   reading it (hearth_stage_input) must have exactly `partitions` tasks:
   task i receives partition i of every task's output (on standard input
   for a command, as input bytes for a function), sorted with
   HEARTH_PARTITION_SORT.  Returns 0, or -1 with errno EINVAL
   (partitions not in 1..HEARTH_MAX_STAGE_PARTITIONS, unknown flags, a
   job already submitted). */
int hearth_stage_set_partitions (hearth_stage_t *stage, uint32_t partitions,
                                 unsigned flags);

/* Write each task's result to DIR/part-NNNNN (NNNNN its index, five
   digits at least) from its executor, instead of sending it to the
   driver: of a task's attempts that end well, the one the driver allows
   (the first to ask) renames its file into place from DIR/_temporary on
   its own node, so that retries and speculative copies never leave two
   files or a partial one; DIR/_SUCCESS, the manifest of the parts and
   their hosts, appears when the stage is done.  On a cluster DIR is a
   shared filesystem or the same path on each node's own disk.  DIR must
   not be the output of another stage of the job or of a job still
   running: the job then fails, hearth_job_error naming both stages.  Not
   with partitions.  Returns 0 or -1 (EINVAL). */
int hearth_stage_set_output (hearth_stage_t *stage, const char *dir);

/* The stage's output directory (absolute once submitted; borrowed), or
   NULL. */
const char *hearth_stage_output (const hearth_stage_t *stage);

/* hearth_stage_on_result flags. */
#define HEARTH_RESULT_DISCARD                                                  \
    1u /* do not keep results for                                              \
          hearth_stage_result: fn is the only                                  \
          reader */

/* Called once for each task of the stage that finishes (exactly once per
   task, the accepted attempt's result), on the context's engine thread,
   as results arrive: it must return quickly and must not wait on a job.
   data is borrowed for the call. */
typedef void (hearth_result_fn) (hearth_stage_t *stage, uint64_t index,
                                 const void *data, size_t len, void *user);

/* Hand each result of the stage to fn as it arrives; with
   HEARTH_RESULT_DISCARD the driver keeps none, so a stage of millions of
   results needs no memory for them.  A stage whose results do not come
   to the driver (partitioned, or another stage's input) cannot have one:
   hearth_job_submit refuses it.  Returns 0 or -1 (EINVAL). */
int hearth_stage_on_result (hearth_stage_t *stage, hearth_result_fn *fn,
                            void *user, unsigned flags);

/* Put the stage in a FAIR scheduling pool (scheduler-mode FAIR).  A pool
   name holds no control character.  Returns 0 or -1 (EINVAL). */
int hearth_stage_set_pool (hearth_stage_t *stage, const char *pool, int weight);

/* Add count command tasks running argv (NULL-terminated); "{i}" in each
   element becomes 0...count-1.  env (NULL-terminated "K=V" strings, may
   be NULL) is added to the executor's environment.  Returns 0 or -1. */
int hearth_stage_add_commands (hearth_stage_t *stage, const char *const *argv,
                               const char *const *env, uint64_t count);

/* Add count function tasks calling fn with arg ("{i}" becomes the
   index). */
int hearth_stage_add_functions (hearth_stage_t *stage, const char *fn,
                                const char *arg, uint64_t count);

/* One command task; one function task. */
int hearth_stage_add_command (hearth_stage_t *stage, const char *const *argv);
int hearth_stage_add_function (hearth_stage_t *stage, const char *fn,
                               const char *arg);

/* Each task of the stage needs amount (1..1024) of the custom resource
   name ("gpu"; a name as --resource takes: docs/resources.md): it runs
   only where that many addresses are free, holding them while it runs,
   and learns them from HEARTH_RESOURCE_<NAME> (CUDA_VISIBLE_DEVICES too
   for gpu) or hearth_task_in_t's resources.  Setting a name again
   replaces its amount.  Refused at submit when the executors get less
   of it (--executor-resource).  Returns 0 or -1 (EINVAL). */
int hearth_stage_set_resource (hearth_stage_t *stage, const char *name,
                               int amount);

/* Per-task time limit for the tasks added after this call; 0: none. */
int hearth_stage_set_timeout (hearth_stage_t *stage, int64_t timeout_ms);

/* Number of tasks in the stage. */
uint64_t hearth_stage_size (const hearth_stage_t *stage);

/* The tasks added last (by the last hearth_stage_add_* call) would
   rather run at where: a host name or address as workers advertise
   them ("node7", "10.0.0.7"), "worker:ID", or a worker label
   "KEY=VALUE"; "{i}" in it is made as in the tasks' own templates (0 to
   count - 1 of that call).  Callable
   several times: a task prefers each place named.  A preference is
   soft: an executor elsewhere gets the task after the locality-wait
   setting, at once when no executor is on any place it prefers
   (docs/driver.md, "Locality").  Returns 0 or -1 (EINVAL: no task added
   yet, an empty place, one over 300 bytes or with a control character,
   the job submitted; ENOMEM). */
int hearth_stage_prefer (hearth_stage_t *stage, const char *where);

/* Every task of the stage runs only on an executor whose worker carries
   label ("KEY=VALUE", hearth-worker --label): a hard constraint, where a
   preference is soft; callable several times (all are required).  While
   no executor of the application meets it the stage's tasks wait, and
   after 10 s the driver says so.  Returns 0 or -1 (EINVAL: not KEY=VALUE
   by the labels' rules, the job submitted; ENOMEM). */
int hearth_stage_require (hearth_stage_t *stage, const char *label);
const char *hearth_stage_name (const hearth_stage_t *stage);

/* Submit the job: it starts running in the background.  Returns 0 or -1
   (a cycle in the stages, an empty stage, a task over the limits of a
   task (docs/jobs.md "Limits of a task": argv strings of at most 64 KiB,
   4,096 of them, 2 MiB with the environment; a function's argument of at
   most 64 MiB), a job already submitted, the application stopped
   already: hearth_job_error says which, naming the stage, the task, the
   field, its size and the limit). */
int hearth_job_submit (hearth_job_t *job);

/* Wait up to timeout_ms (-1: forever) for the job to end.  Returns 0 when
   it has ended (see hearth_job_state), -1 with errno ETIMEDOUT if not. */
int hearth_job_wait (hearth_job_t *job, int timeout_ms);

/* Submit and wait.  Returns 0 when the job succeeded, else -1. */
int hearth_job_run (hearth_job_t *job);

hearth_job_state_t hearth_job_state (const hearth_job_t *job);

/* Why the job failed: stage, task and its last error. */
const char *hearth_job_error (const hearth_job_t *job);

/* Progress of a running job: the first unfinished stage's name and its
   finished, running and total task counts.  Returns 0, or -1 when no
   stage is unfinished. */
int hearth_job_progress (hearth_job_t *job, const char **stage,
                         uint64_t *finished, uint64_t *running,
                         uint64_t *total);

/* Attempts of the stage launched where their tasks would rather run
   (*node), on the rack of such a host (*rack) and elsewhere (*any),
   counting only tasks that prefer places (hearth_stage_prefer); each
   pointer may be NULL.  Returns 0, or -1 (EINVAL: no stage). */
int hearth_stage_locality (const hearth_stage_t *stage, uint64_t *node,
                           uint64_t *rack, uint64_t *any);

/* One active stage's progress (hearth_job_active_stages). */
typedef struct {
    const char *name;   /* the stage's name (borrowed: lives with the job) */
    uint64_t finished;  /* tasks finished */
    uint64_t running;   /* tasks running on executors' cores (not those
                           queued on an executor behind them) */
    uint64_t total;     /* tasks in the stage */
    uint64_t failed;    /* failed attempts so far (each one retried, or
                           the one that failed the job) */
    int64_t elapsed_ms; /* since the stage could start: since the job was
                           submitted, or its last parent stage finished */
} hearth_stage_progress_t;

/* The active stages of a running job: those not finished whose parent
   stages have all finished, in the order they were added (a stage added
   before its parent comes after it).  Fills out with the first max of them
   (out may be NULL when max is 0) and returns how many are active, which
   may be more than max; 0 when the job is not running.  What
   hearth-driver's progress display shows. */
size_t hearth_job_active_stages (hearth_job_t *job,
                                 hearth_stage_progress_t *out, size_t max);

/* Result of task index of a finished stage (borrowed; NULL with *len 0 if
   the stage has not finished or index is out of range, and for a stage
   whose results went elsewhere: partitioned, read by another stage
   (hearth_stage_input), written to files, or discarded after its result
   callback). */
const void *hearth_stage_result (const hearth_stage_t *stage, uint64_t index,
                                 size_t *len);

#ifdef __cplusplus
}
#endif

#endif

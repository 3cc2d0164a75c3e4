/*  children.h - the worker's supervised child processes: one table, and
    the one place where hearth-worker starts a child (an executor, a
    cluster-mode driver), signals it, stops it and reaps it.

    Every child runs in a directory of its own under the table's root
    (ROOT/DIR, made on demand, private to the user it runs as: the
    worker's, or the one its spawn names, runas.h), with its stdout and
    stderr appended to ROOT/DIR/stdout and ROOT/DIR/stderr (that user's,
    mode 0600; made without following a link, userfs.h) and /dev/null
    as its stdin, and leads a process group of its own, so that
    a signal reaches everything it started.  Stopping a child sends
    SIGTERM to its group and, if it is still there after the table's
    grace period, SIGKILL (hearth_loop_child_kill: the TERM-then-KILL of
    every child of Hearth).  Each child is watched by the worker's loop
    (hearth_loop_spawn, libcore/loop.h), the one place that reaps it: its
    exit handler takes it off the table, SIGKILLs what is left of its
    group and tells its kind's exit callback how it ended.  What a child
    leaves behind comes to the worker, its subreaper, and is killed at a
    tick (children_tick); those strays are reaped by the loop's sweep of
    unwatched children (hearth_loop_reap_unwatched), which never takes a
    watched child from behind its watch.

    As libuv's uv_process_t is one abstraction for every caller, with an
    exit callback per process, each child here has a kind (what it is
    called in the log, how it ends, its fields in the JSON view) and an
    argument for its kind's callbacks, both given at its spawn, and a
    small block of its caller's data (copied in, handed back to the
    callbacks).  What differs between callers (the command line, the
    files, the report) stays with them.

    The table also keeps the directories waiting for removal: one goes
    once its time has come and no child runs in it or below it.  Nothing
    here reads a clock: times come in as arguments (monotonic ms).
*/
#ifndef HEARTH_WORKER_CHILDREN_H
#define HEARTH_WORKER_CHILDREN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "libcore/loop.h"
#include "libcore/spawn.h"
#include "worker/cgroup.h"

typedef struct children children_t;

/* How a child ended, told to the exit callback (all borrowed for the
   duration of the call; the child is off the table already). */
typedef struct {
    const char *name; /* its name in the table */
    const char *path; /* its directory, ROOT/DIR */
    const void *data; /* the caller's block given at the spawn */
    pid_t pid;        /* its pid (reaped: no longer its own) */
    bool stopped;     /* it was stopped (children_stop...) */
    int exit_status;  /* exit code, or -1 */
    int signal;       /* signal that ended it, or 0 */
    const char *text; /* "exited with status 3", "killed by signal 9 ..." */
    int64_t now_ms;   /* the time of its reap (hearth_mono_ms) */
    int64_t peak_rss_bytes;     /* with a cgroup, the group's peak memory; else
                                   the largest resident set of it or of any of
                                   its children it reaped (wait4's ru_maxrss);
                                   or -1 when unknown */
    bool oom_killed;            /* its cgroup hit its memory limit and the
                                   whole group was killed */
    int64_t memory_limit_bytes; /* its cgroup's memory limit, or -1 (none) */
} children_exit_t;

typedef void (children_exit_fn) (void *arg, const children_exit_t *exit);

/* Adds the caller's fields of one child (its name and data block) to o
   (children_json). */
typedef void (children_json_fn) (void *arg, const char *name, const void *data,
                                 cJSON *o);

/* One kind of child (a static constant of its caller's). */
typedef struct {
    const char *what;       /* "executor", "driver": for the log */
    children_exit_fn *exit; /* told of each one reaped, or NULL */
    children_json_fn *json; /* adds its fields to the JSON view, or NULL */
} children_kind_t;

/* Told after each child's exit (its kind's callback called): the
   table's owner's chance to leave.  Returns 0, or -1 to end the loop. */
typedef int (children_reaped_fn) (void *arg);

/* A table's settings (borrowed by children_new, which copies them). */
typedef struct {
    hearth_loop_t *loop;        /* watches and reaps the children (borrowed:
                                   must outlive the table) */
    children_reaped_fn *reaped; /* told after each exit, or NULL */
    void *reaped_arg;           /* given to it */
    const char *root;           /* children run in root/DIR */
    int64_t kill_grace_ms;      /* SIGTERM to SIGKILL */
    cgroups_t *cgroups;         /* each child in a group of its own there
                                   (borrowed: must outlive the table), or
                                   NULL: no isolation */
    int overhead_percent;       /* a group's memory limit: the child's memory
                                   plus this percentage of it... */
    int64_t overhead_min_mb;    /* ...or plus this, whichever is more */
    int64_t pids_max;           /* processes per group at most (0: any) */
} children_config_t;

/* One child to start (all borrowed by children_spawn). */
typedef struct {
    const children_kind_t *kind;   /* what it is (kept: a static constant) */
    void *arg;                     /* for the kind's callbacks (kept) */
    const char *name;              /* unique among the live children */
    const char *dir;               /* relative to the root: "APP/EXEC" */
    const char *const *argv;       /* argv[0] is run */
    const char *const *envp;       /* the environment, or NULL to inherit */
    int cores;                     /* cores it may use */
    int64_t memory_mb;             /* memory it may use */
    const void *data;              /* the caller's block, copied, or NULL */
    size_t data_size;              /* bytes of data */
    const char *group;             /* its cgroup's name ("app-...-exec-3"), or
                                      NULL: dir with '-' for '/' */
    const hearth_spawn_ids_t *ids; /* the user it runs as (its directories
                                      and files that user's), or NULL:
                                      the worker's */
} children_spawn_t;

/* A new, empty table.  NULL with errno on no memory. */
children_t *children_new (const children_config_t *config);

/* SIGKILL every child still running and reap it (no exit callback),
   then what they left behind (strays, as children_tick), until none is
   left; free the table.  Removes no directory.  Accepts NULL and a NULL
   *self_p; sets *self_p to NULL; keeps errno. */
void children_destroy (children_t **self_p);

/* The path of ROOT/dir into path.  Returns 0, or -1 with err when it
   does not fit. */
int children_path (const children_t *self, const char *dir, char *path,
                   size_t size, hearth_error_t *err);

/* ROOT/dir, and every directory between, created if missing (mode
   0700), owned by the user of ids (NULL: the worker's) and opened
   without following a link (userfs.h); its path into path.  Returns the
   fd of ROOT/dir (the caller closes it), or -1 with err. */
int children_mkdir (children_t *self, const char *dir,
                    const hearth_spawn_ids_t *ids, char *path, size_t size,
                    hearth_error_t *err);

/* What an OOM kill says (x->oom_killed): "killed: out of memory, limit
   1088 MiB, peak 1088 MiB" into buf.  Returns buf. */
char *children_oom_text (const children_exit_t *x, char *buf, size_t size);

/* Memory limit of a child's group for memory_mb of its own (bytes):
   the overhead of the table's settings added. */
int64_t children_memory_limit (const children_t *self, int64_t memory_mb);

/* Start a child in ROOT/spawn->dir (created if missing), in a cgroup of
   its own when the table has cgroups (it joins the group before it
   execs; the group's limits: children_memory_limit of its memory, its
   cores, the pids limit), and put it on the table.  Returns its pid, or -1 with
   err (a name already running, a directory or log file that cannot be made, a
   program that cannot run).  Its kind's exit callback hears of it once it has
   been reaped. */
pid_t children_spawn (children_t *self, const children_spawn_t *spawn,
                      hearth_error_t *err);

/* Stop the child of that kind and name: SIGTERM to its group now,
   SIGKILL after the grace period (the loop's, hearth_loop_child_kill).
   Returns -1 when there is none. */
int children_stop (children_t *self, const children_kind_t *kind,
                   const char *name);

/* Stop every child that runs in ROOT/dir or below it (dir NULL: every
   child), without a log line each. */
void children_stop_under (children_t *self, const char *dir);

/* Periodic work: kill the whole cgroup of a child that hit its memory
   limit (cgroup_oom); remove the cgroups of reaped children once empty;
   remove the first due directory in which no child runs; at the tick
   after a reap and at least every second, kill the strays: the worker's
   children (it is their subreaper, orphans.h) that are not children of
   the table nor in the cgroup of one (a task's process whose parent
   ended, whatever it did to hide: env -i, setsid); and reap the strays
   that have exited (hearth_loop_reap_unwatched). */
void children_tick (children_t *self, int64_t now_ms);

/* Remove ROOT/dir with everything in it once the retention has passed
   and no child runs in it (a directory already waiting keeps its
   time). */
void children_remove_later (children_t *self, const char *dir, int64_t now_ms);

/* Keep ROOT/dir after all: it no longer waits for removal. */
void children_keep (children_t *self, const char *dir);

/* Whether a child of that name runs. */
bool children_has (const children_t *self, const char *name);

/* The caller's data block of the live child of that kind and name
   (borrowed: valid until the child is reaped), or NULL. */
const void *children_data (const children_t *self, const children_kind_t *kind,
                           const char *name);

/* Children of that kind alive (started, not yet reaped); kind NULL:
   of every kind. */
size_t children_count (const children_t *self, const children_kind_t *kind);

/* Cores and memory held by the live children of every kind, into *cores
   and *memory_mb. */
void children_usage (const children_t *self, int *cores, int64_t *memory_mb);

/* The live children of that kind as an array of objects: the fields its
   json callback adds (given the spawn's arg, the child's name and its
   data block), then cores, memory_mb and pid.  A new tree (caller
   deletes), or NULL on no memory. */
cJSON *children_json (const children_t *self, const children_kind_t *kind);

#endif

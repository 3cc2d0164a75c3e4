/*  cgroup.h - control groups for a worker's children: each executor and
    each cluster-mode driver in a group of its own, held to its memory
    (no swap), its cores (a CFS quota) and a number of processes, and its
    counters read when it ends (peak memory, an out-of-memory kill).

    A worker's tree (cgroups_t) sits under the worker's own group in each
    hierarchy (/proc/self/cgroup), so that a service manager's delegation
    (systemd's Delegate=yes) or a container's group bounds everything the
    worker starts:

        MOUNT/OWN/hearth/WORKER_ID/NAME

    with NAME one group per child ("app-...-exec-3", "driver-...").  Two
    backends: cgroup v2 (one unified hierarchy: memory.max,
    memory.swap.max, cpu.max, pids.max, memory.oom.group, cgroup.kill)
    and cgroup v1 (one hierarchy per controller: memory, cpu, and pids
    and cpuacct where mounted).  On v1 the kernel has no group-wide OOM
    kill, so the group's OOM killer is disabled (memory.oom_control) and
    the worker kills the whole group itself once it sees it under OOM
    (cgroup_oom): as memory.oom.group does on v2, an OOM ends the whole
    executor, never one of its processes behind its back.

    A child never runs unconfined.  On v2 it is created in its group
    (clone3 into cgroup_dir_fd); else, or where clone3 is refused, it
    joins its group between fork and exec: cgroup_join_fds gives the open
    files (v1: each group's tasks; v2: cgroup.procs), in which the child
    writes "0" (libcore/spawn.h's join_fds).  On v2 that write waits for
    an RCU grace period of the kernel, 10 to 15 ms on the machines
    measured, which the creation in the group does not (docs/
    performance.md, "A child created in its group"); on v1 the child,
    still its process's only thread, moves itself through tasks, which
    the kernel does without that wait ("The v1 join without the grace
    period").

    Ownership: the tree owns nothing of its groups; each cgroup_t is its
    creator's, freed by cgroup_destroy once its directories are gone.
    Nothing here reads a clock.
*/
#ifndef HEARTH_WORKER_CGROUP_H
#define HEARTH_WORKER_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libcore/error.h"

/* Hierarchies of a group at most (v1: memory, cpu, cpuacct, pids). */
#define CGROUP_MAX_DIRS 4

typedef struct cgroups cgroups_t;
typedef struct cgroup cgroup_t;

/* How to find the hierarchies (borrowed by cgroups_new). */
typedef struct {
    int version;           /* 1 or 2; 0: v2 where the worker's group
                              offers memory and cpu, else v1 */
    const char *fs_root;   /* NULL: the machine's cgroup mounts; else a
                              directory standing for them, the worker's
                              group being its root (v1: FS_ROOT/memory,
                              FS_ROOT/cpu...; v2: FS_ROOT) */
    bool plain_files;      /* fs_root is an ordinary directory, not a
                              cgroupfs: files written are created (the
                              unit tests' fake tree) */
    const char *worker_id; /* names the worker's directory */
} cgroups_config_t;

/* One group's limits. */
typedef struct {
    int64_t memory_bytes; /* memory.max / memory.limit_in_bytes; swap 0 */
    int cores;            /* CPU quota: cores x the period */
    int64_t pids_max;     /* processes at most; 0: no limit */
} cgroup_limits_t;

/* One group's counters. */
typedef struct {
    int64_t memory_limit_bytes; /* as set */
    int64_t peak_bytes;         /* highest memory use, or -1 unknown */
    bool oom;                   /* an out-of-memory kill happened (or is
                                   due, v1) */
    int64_t cpu_usage_ns;       /* CPU time used, or -1 unknown */
} cgroup_stats_t;

/* The worker's tree: the hierarchies found, MOUNT/OWN/hearth/WORKER_ID
   created in each, controllers enabled (v2).  NULL with err saying why
   it cannot (no such hierarchy, not writable, a controller missing). */
cgroups_t *cgroups_new (const cgroups_config_t *config, hearth_error_t *err);

/* Remove the worker's directories (empty ones; what is busy stays) and
   free the tree.  Accepts NULL and a NULL *self_p; nulls it; keeps
   errno. */
void cgroups_destroy (cgroups_t **self_p);

/* 1 or 2. */
int cgroups_version (const cgroups_t *self);

/* The worker's directory in the first hierarchy (borrowed), for logs. */
const char *cgroups_path (const cgroups_t *self);

/* Groups an earlier worker of this id left: kill what runs in them,
   remove them.  Returns how many were found. */
size_t cgroups_clean_stale (cgroups_t *self);

/* Groups of the tree now (directories under the worker's). */
size_t cgroups_count (const cgroups_t *self);

/* A new group NAME (a directory name: no '/') with those limits.  NULL
   with err (exists already, cannot be made, a limit refused). */
cgroup_t *cgroup_new (cgroups_t *tree, const char *name,
                      const cgroup_limits_t *limits, hearth_error_t *err);

/* Open the file of each hierarchy that a new child writes "0" to
   (v1: tasks, v2: cgroup.procs) for writing (close-on-exec) into fds
   (max entries); the caller closes them.  Only a single-threaded child
   may write them (fork's child is).  Returns how many, or -1 with err. */
int cgroup_join_fds (cgroup_t *self, int *fds, size_t max, hearth_error_t *err);

/* On cgroup v2, its directory opened (close-on-exec), for a child
   created in it (libcore/spawn.h's cgroup_fd); the caller closes it.
   -1 on v1 (a group per hierarchy: only a join will do), in a fake tree,
   or when it cannot be opened (then the join fds serve). */
int cgroup_dir_fd (const cgroup_t *self);

/* Its counters into *stats. */
void cgroup_stats (cgroup_t *self, cgroup_stats_t *stats);

/* Whether it hit its memory limit so that it must end: v1, under OOM
   with the kernel's killer disabled; v2, the kernel killed in it. */
bool cgroup_oom (cgroup_t *self);

/* SIGKILL every process in it (v2: cgroup.kill).  Returns how many were
   signalled (v2: 0 or 1 for the write). */
int cgroup_kill (cgroup_t *self);

/* Whether no process is left in it. */
bool cgroup_empty (cgroup_t *self);

/* Whether pid is in it (its first hierarchy's cgroup.procs lists it). */
bool cgroup_has_pid (const cgroup_t *self, pid_t pid);

/* Remove its directories and free it, nulling *self_p.  Returns 0, or
   -1 with errno EBUSY when a process is still in it (nothing freed:
   call again later).  Accepts NULL. */
int cgroup_destroy (cgroup_t **self_p);

/* Free it, leaving its directories (a group that would not empty, at
   the worker's end).  Accepts NULL and a NULL *self_p; nulls it. */
void cgroup_forget (cgroup_t **self_p);

/* Its name (borrowed). */
const char *cgroup_name (const cgroup_t *self);

#endif

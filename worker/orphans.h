/*  orphans.h - finding and killing what a worker's children left behind.

    The worker is a child subreaper (PR_SET_CHILD_SUBREAPER): a process
    whose parent ends, anywhere below an executor or a driver, is
    re-parented to the worker, not to init, and the worker reaps it when
    it exits (hearth_loop_reap_unwatched, at SIGCHLD: never a child its
    loop watches), so no zombie is ever left.  The same makes strays easy to
   find whatever they did to hide (env -i, setsid, a double fork): a child of
    the worker that is not one of its executors or drivers is a stray
    (orphans_children; the children table kills them, children.h).  With
    cgroups, a stray still in the group of a live executor belongs to it
    and goes with its group.

    An earlier worker's leftovers (a worker killed with SIGKILL, whose
    executors hung) are re-parented elsewhere: with cgroups they are
    found in its groups (cgroups_clean_stale); without, by the markers
    the worker puts in every executor's environment, which its tasks
    inherit unless they clear it:

        HEARTH_WORKER_WORK_DIR=/abs/work/dir      the worker's work dir
        HEARTH_WORKER_EXECUTOR=APP_ID/EXEC_ID      the executor

    orphans_kill() finds such processes through /proc/PID/environ (the
    environment a process was started with) and kills them with SIGKILL,
    their process groups too.
*/
#ifndef HEARTH_WORKER_ORPHANS_H
#define HEARTH_WORKER_ORPHANS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <czmq.h>

#define ORPHANS_ENV_DIR "HEARTH_WORKER_WORK_DIR"
#define ORPHANS_ENV_EXEC "HEARTH_WORKER_EXECUTOR"

/* Kill every process but the caller whose environment names work_dir
   and, when execs is not NULL, one of the executors in it (a set of
   "APP_ID/EXEC_ID" keys; NULL: any).  Returns how many were killed. */
size_t orphans_kill (const char *work_dir, zhashx_t *execs);

/* Become a child subreaper.  0 or -1 with errno. */
int orphans_subreaper (void);

/* The live children of this process (re-parented ones too; not the
   zombies, which the worker reaps), at most max, into pids.
   Returns how many. */
size_t orphans_children (pid_t *pids, size_t max);

/* SIGKILL pid, and its process group when it leads one.  Returns true
   when it was signalled. */
bool orphans_kill_one (pid_t pid);

#endif

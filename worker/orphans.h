/*  orphans.h - finding and killing what a worker's executors left behind.

    The worker starts every executor with two variables in its
    environment, which the executor's own children inherit:

        HEARTH_WORKER_WORK_DIR=/abs/work/dir      the worker's work dir
        HEARTH_WORKER_EXECUTOR=APP_ID/EXEC_ID      the executor

    A process carrying them outlives its purpose when its executor has
    exited (a command task of an executor killed with SIGKILL), or when it
    belongs to an earlier worker on the same work dir (a worker killed with
    SIGKILL, whose executors hung).  orphans_kill() finds such processes
    through /proc/PID/environ (which holds the environment a process was
    started with) and kills them with SIGKILL, their process groups too.

    The worker also makes itself a child subreaper (PR_SET_CHILD_SUBREAPER)
    so that the children of a dead executor are re-parented to it, not to
    init: its SIGCHLD loop reaps them, so no zombie is ever left.
*/
#ifndef HEARTH_WORKER_ORPHANS_H
#define HEARTH_WORKER_ORPHANS_H

#include <stdbool.h>
#include <stddef.h>

#include <czmq.h>

#define ORPHANS_ENV_DIR "HEARTH_WORKER_WORK_DIR"
#define ORPHANS_ENV_EXEC "HEARTH_WORKER_EXECUTOR"

/* Kill every process but the caller whose environment names work_dir
   and, when execs is not NULL, one of the executors in it (a set of
   "APP_ID/EXEC_ID" keys; NULL: any).  Returns how many were killed. */
size_t orphans_kill (const char *work_dir, zhashx_t *execs);

/* Become a child subreaper.  0 or -1 with errno. */
int orphans_subreaper (void);

#endif

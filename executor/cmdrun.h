/*  cmdrun.h - command tasks as child processes, run by the pool's
    threads (see cmdrun.c for how a kill and the thread agree). */
#ifndef HEARTH_EXECUTOR_CMDRUN_H
#define HEARTH_EXECUTOR_CMDRUN_H

#include <sys/types.h>

#include "executor/executor.h"

/* A started command, between cmdrun_start and cmdrun_wait. */
typedef struct {
    pid_t pid; /* the child, leading its own process group */
    int out;   /* read end of its stdout pipe */
    int err;   /* read end of its stderr pipe */
    int in;    /* write end of its stdin pipe, while a reduce stream is fed
                  to it (shuffletask.h), or -1 */
} cmdrun_proc_t;

/* On a pool thread: start command task t (ex and t borrowed).  Returns
   0, or -1 with t->run_error set (the task is then done). */
int cmdrun_start (executor_t *ex, task_t *t, cmdrun_proc_t *proc);

/* On a pool thread: run the command that cmdrun_start started to its
   end: fills t's exited, wait_status, out, err_tail and too_big; reaps
   it and closes proc's pipes. */
void cmdrun_wait (executor_t *ex, task_t *t, cmdrun_proc_t *proc);

/* On the loop: signal a command's process group, now if it runs, else as
   soon as it has started; never after it has exited. */
void cmdrun_kill (executor_t *ex, task_t *t, int sig);

#endif

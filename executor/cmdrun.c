/*  cmdrun.c - command tasks as child processes, run by the pool's threads.

    A pool thread takes a command task like a function task, and runs it
    to its end: it spawns the command in its own process group (so that a
    kill reaches everything it started), with stdout captured as its
    result up to max-result-bytes and the tail of stderr kept for the error
    message, then waits for the pipes and for the process, which it owns
    in the loop's watch of children (hearth_loop_child_own): the watch
    reaps it and kills whatever it left running in its group.  The loop
    only hears that the task ended.  (A loop that reaps the children
    itself, each exit handed back to its thread, cost a fifth of the
    command rate: docs/design-changes.md, "One way to watch a child".)

    (The loop used to spawn, watch the pipes and reap on SIGCHLD itself:
    with `cores` commands in flight it was the one thread every spawn,
    exit and result went through, and posix_spawn blocks its caller until
    the child has exec'ed.  See docs/performance.md, benchmark 4.)

    The thread starts the command (cmdrun_start); only then does it wake
    the loop for the tasks it finished before (fnpool.c), so that the
    woken loop does not take the CPU before the child has started; then
    it runs the command to its end (cmdrun_wait).

    The thread kills a command that runs past its time limit; the loop may
    kill one at any time (KILL_TASK, the executor stopping).  Kills go
    through the watch, by task (the owner), which never signals a child
    being reaped (whose number may be reused); a kill that comes before
    the spawn is kept in t->kill_sig under ex->cmd_lock and delivered
    right after it.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "executor/cmdrun.h"
#include "executor/shuffletask.h"
#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/spawn.h"

/* Inputs up to this size go through a pipe filled before the spawn (it
   fits in the pipe's buffer); larger ones through an unlinked file. */
static const size_t s_pipe_input_max = 60 * 1024;
/* Bytes read from a pipe per read() call. */
enum { s_read_chunk = 65536 };
/* While a command's pipes are open, whether it has exited is looked at
   this often (ms). */
static const int s_exit_check_ms = 20;

/* An fd from which the child reads its input, or HEARTH_SPAWN_DEVNULL.
   A reduce stream goes through a pipe whose write end (*feed) the
   thread fills while the command runs. */
static int
s_input_fd (executor_t *ex, task_t *t, int *feed, hearth_error_t *err)
{
    if (shuffletask_feeds_stdin (t)) {
        int p[2];
        if (pipe2 (p, O_CLOEXEC) < 0)
            return hearth_errprintf (err, "pipe: %s", strerror (errno));
        fcntl (p[1], F_SETFL, fcntl (p[1], F_GETFL) | O_NONBLOCK);
        *feed = p[1];
        return p[0];
    }
    size_t len = t->input ? zframe_size (t->input) : 0;
    const void *data = len ? zframe_data (t->input) : NULL;
    if (len == 0)
        return HEARTH_SPAWN_DEVNULL;
    if (len <= s_pipe_input_max) {
        int p[2];
        if (pipe2 (p, O_CLOEXEC) < 0)
            return hearth_errprintf (err, "pipe: %s", strerror (errno));
        ssize_t n = write (p[1], data, len);
        close (p[1]);
        if (n != (ssize_t) len) {
            close (p[0]);
            return hearth_errprintf (err, "writing task input: %s",
                                     strerror (errno));
        }
        return p[0];
    }
    char path[4096];
    snprintf (path, sizeof path, "%s/.input-XXXXXX", ex->work_dir);
    int fd = mkostemp (path, O_CLOEXEC);
    if (fd < 0)
        return hearth_errprintf (err, "temporary input file in %s: %s",
                                 ex->work_dir, strerror (errno));
    unlink (path);
    if (write (fd, data, len) != (ssize_t) len || lseek (fd, 0, SEEK_SET) < 0) {
        close (fd);
        return hearth_errprintf (err, "writing task input: %s",
                                 strerror (errno));
    }
    return fd;
}

void
cmdrun_kill (executor_t *ex, task_t *t, int sig)
{
    pthread_mutex_lock (&ex->cmd_lock);
    if (!t->kill_sig || sig == SIGKILL)
        t->kill_sig = sig; /* for a spawn still to come */
    pthread_mutex_unlock (&ex->cmd_lock);
    /* ESRCH: not started yet (its thread sends kill_sig), or reaped */
    hearth_loop_child_signal_owned (ex->loop, t, sig);
}

/* Append captured stdout, up to the limit; or hand it to the task's map
   output or output file, which have none. */
static void
s_keep_output (executor_t *ex, task_t *t, const char *data, size_t n)
{
    if (shuffletask_takes_stdout (t)) {
        if (shuffletask_stdout (t, data, n) < 0)
            cmdrun_kill (ex, t, SIGKILL); /* its error says why */
        return;
    }
    if (t->too_big)
        return;
    if ((int64_t) (t->out_len + n) > ex->max_result_bytes) {
        t->too_big = true;
        cmdrun_kill (ex, t, SIGKILL);
        return;
    }
    if (t->out_len + n > t->out_alloc) {
        size_t size = t->out_alloc ? t->out_alloc * 2 : 4096;
        while (size < t->out_len + n)
            size *= 2;
        char *grown = realloc (t->out, size);
        if (!grown) {
            t->too_big = true;
            cmdrun_kill (ex, t, SIGKILL);
            return;
        }
        t->out = grown;
        t->out_alloc = size;
    }
    memcpy (t->out + t->out_len, data, n);
    t->out_len += n;
}

/* Keep the last bytes of stderr. */
static void
s_keep_stderr (task_t *t, const char *data, size_t n)
{
    size_t cap = EXECUTOR_ERR_TAIL;
    t->err_total += n;
    if (!t->err_tail && !(t->err_tail = malloc (cap)))
        return; /* the error text goes without it */
    if (n >= cap) {
        memcpy (t->err_tail, data + n - cap, cap);
        t->err_len = cap;
        return;
    }
    if (t->err_len + n > cap) {
        size_t drop = t->err_len + n - cap;
        memmove (t->err_tail, t->err_tail + drop, t->err_len - drop);
        t->err_len -= drop;
    }
    memcpy (t->err_tail + t->err_len, data, n);
    t->err_len += n;
}

/* Read what is available from a non-blocking pipe.  Returns true at end
   of file (or on an error: the pipe is done either way). */
static bool
s_drain (executor_t *ex, task_t *t, int fd, bool is_stdout)
{
    char buf[s_read_chunk];
    for (;;) {
        ssize_t n = read (fd, buf, sizeof buf);
        if (n > 0) {
            if (is_stdout)
                s_keep_output (ex, t, buf, n);
            else
                s_keep_stderr (t, buf, n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n == 0 || errno != EAGAIN;
    }
}

static void
s_close (int *fd)
{
    if (*fd >= 0)
        close (*fd);
    *fd = -1;
}

/* If the command has exited, reap it (with its status); whether it
   had. */
static bool
s_reaped (executor_t *ex, task_t *t, bool block)
{
    hearth_loop_exit_t exit;
    if (hearth_loop_child_wait (ex->loop, t, block, &exit) != 1)
        return false;
    t->wait_status = exit.status;
    t->exited = true;
    return true;
}

/* The piece of a reduce stream being written to a command's stdin. */
typedef struct {
    const char *data; /* what is left of it (borrowed: shuffletask.h) */
    size_t len;       /* its bytes */
} s_feed_t;

/* Write what the command's stdin pipe takes of the reduce stream, the
   next pieces as they are needed; at the stream's end, close the pipe
   (the command sees its end of file).  A command that closes its stdin
   early (head) is not fed more: that is its business.  A stream that
   fails (a damaged block) kills the command: the error says why. */
static void
s_feed (executor_t *ex, task_t *t, cmdrun_proc_t *proc, s_feed_t *feed)
{
    for (;;) {
        if (feed->len == 0) {
            const void *data;
            int rc = shuffletask_stdin (t, &data, &feed->len);
            if (rc <= 0) {
                if (rc < 0)
                    cmdrun_kill (ex, t, SIGKILL);
                s_close (&proc->in);
                return;
            }
            feed->data = data;
        }
        ssize_t n = write (proc->in, feed->data, feed->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (errno != EAGAIN)
                s_close (&proc->in); /* EPIPE: it reads no more */
            return;
        }
        feed->data += n;
        feed->len -= (size_t) n;
    }
}

/* Read both pipes until they are at their end, or until the process has
   exited (then reaped): a descendant that still holds a pipe open does
   not delay the task (what is in the pipes is read, and that is all).
   The exit is looked at at most every s_exit_check_ms while the pipes
   are open.  (No pidfd: valgrind does not know pidfd_open.)  At the
   task's time limit, its group is killed and the task marked timed
   out. */
static void
s_collect (executor_t *ex, task_t *t, cmdrun_proc_t *proc)
{
    int *out = &proc->out, *err = &proc->err;
    s_feed_t feed = {NULL, 0};
    int64_t now = hearth_mono_us ();
    int64_t next_check = now + s_exit_check_ms * 1000;
    int64_t deadline =
        t->timeout_ms > 0 ? t->start_us + t->timeout_ms * 1000 : INT64_MAX;
    while (*out >= 0 || *err >= 0 || proc->in >= 0) {
        struct pollfd p[3] = {
            {*out, POLLIN, 0}, {*err, POLLIN, 0}, {proc->in, POLLOUT, 0}};
        int64_t wait_us =
            next_check < deadline ? next_check - now : deadline - now;
        int wait_ms = wait_us > 0 ? (int) ((wait_us + 999) / 1000) : 0;
        if (poll (p, 3, wait_ms) < 0 && errno != EINTR)
            break;
        if (proc->in >= 0 && p[2].revents)
            s_feed (ex, t, proc, &feed);
        bool exited = false;
        now = hearth_mono_us ();
        if (now >= deadline && !t->timed_out) {
            t->timed_out = true;
            cmdrun_kill (ex, t, SIGKILL);
        }
        if (now >= next_check) {
            exited = s_reaped (ex, t, false);
            next_check = now + s_exit_check_ms * 1000;
        }
        if (*out >= 0 && (exited || p[0].revents)
            && s_drain (ex, t, *out, true))
            s_close (out);
        if (*err >= 0 && (exited || p[1].revents)
            && s_drain (ex, t, *err, false))
            s_close (err);
        if (exited)
            break;
    }
    s_close (&proc->in);
}

/* Start the child; its pid, or -1 with err (and *spawn_errno the
   reason posix_spawn gave, when it was the one to fail). */
static pid_t
s_spawn (executor_t *ex, task_t *t, cmdrun_proc_t *proc, int *spawn_errno,
         hearth_error_t *err)
{
    int outp[2] = {-1, -1}, errp[2] = {-1, -1};
    const char **envp = NULL;
    pid_t pid = -1;
    proc->in = -1;
    int in = s_input_fd (ex, t, &proc->in, err);
    if (in == -1)
        return -1;
    if (pipe2 (outp, O_CLOEXEC) < 0 || pipe2 (errp, O_CLOEXEC) < 0)
        hearth_errprintf (err, "pipe: %s", strerror (errno));
    else if (t->env
             && !(envp = hearth_env_merge (NULL, (const char *const *) t->env)))
        hearth_errprintf (err, "out of memory");
    else {
        hearth_spawn_opts_t opts = {
            .argv = (const char *const *) t->argv,
            .envp = envp,
            .stdin_fd = in,
            .stdout_fd = outp[1],
            .stderr_fd = errp[1],
            .new_pgroup = true,
        };
        pid = hearth_loop_spawn_owned (ex->loop, &opts, t, err);
        if (pid < 0)
            *spawn_errno = errno;
    }
    free (envp);
    if (in >= 0)
        close (in);
    s_close (&outp[1]);
    s_close (&errp[1]);
    if (pid < 0) {
        s_close (&outp[0]);
        s_close (&errp[0]);
        s_close (&proc->in);
        return -1;
    }
    fcntl (outp[0], F_SETFL, fcntl (outp[0], F_GETFL) | O_NONBLOCK);
    fcntl (errp[0], F_SETFL, fcntl (errp[0], F_GETFL) | O_NONBLOCK);
    proc->out = outp[0];
    proc->err = errp[0];
    return pid;
}

/* Whether a spawn that failed with errno e fails on every retry: the
   program is not there, or cannot be executed.  (Running out of fds or
   processes is not.) */
static bool
s_spawn_failure_permanent (int e)
{
    return e == ENOENT || e == EACCES || e == ENOEXEC || e == ENOTDIR
           || e == ELOOP || e == ENAMETOOLONG;
}

int
cmdrun_start (executor_t *ex, task_t *t, cmdrun_proc_t *proc)
{
    hearth_error_t err;
    int spawn_errno = 0;
    proc->pid = s_spawn (ex, t, proc, &spawn_errno, &err);
    if (proc->pid < 0) {
        t->run_error = strdup (err.text);
        t->permanent = s_spawn_failure_permanent (spawn_errno);
        return -1;
    }
    return 0;
}

void
cmdrun_wait (executor_t *ex, task_t *t, cmdrun_proc_t *proc)
{
    pid_t pid = proc->pid;
    if (ex->pinned) /* it started on our CPU: now it may go anywhere */
        sched_setaffinity (pid, sizeof ex->cpus, &ex->cpus);
    t->pid = pid;
    pthread_mutex_lock (&ex->cmd_lock);
    int sig = t->kill_sig; /* asked for before it started */
    pthread_mutex_unlock (&ex->cmd_lock);
    if (sig)
        hearth_loop_child_signal_owned (ex->loop, t, sig);
    s_collect (ex, t, proc);
    /* The pipes may reach their end while the process is still exiting:
       wait for it (the watch then kills what it left in its group, whose
       id is still its own, and reaps it). */
    if (!t->exited)
        s_reaped (ex, t, true);
    s_close (&proc->out);
    s_close (&proc->err);
}

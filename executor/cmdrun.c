/*  cmdrun.c - command tasks as child processes.

    Each command runs in its own process group (so that a kill reaches
    everything it started), with stdout captured as its result up to
    max-result-bytes and the tail of stderr kept for the error message.
    A task ends when its process has been reaped (SIGCHLD) and both pipes
    are drained; whatever it left running in its group is then killed.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor/executor.h"
#include "libcore/log.h"
#include "libcore/spawn.h"

/* Inputs up to this size go through a pipe filled before the spawn (it
   fits in the pipe's buffer); larger ones through an unlinked file. */
static const size_t s_pipe_input_max = 60 * 1024;
/* Bytes read from a pipe per read() call. */
enum { s_read_chunk = 65536 };

static int s_on_stdout (zloop_t *loop, zmq_pollitem_t *item, void *arg);
static int s_on_stderr (zloop_t *loop, zmq_pollitem_t *item, void *arg);

/* An fd from which the child reads its input, or HEARTH_SPAWN_DEVNULL. */
static int
s_input_fd (executor_t *ex, task_t *t, hearth_error_t *err)
{
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

static int
s_watch (executor_t *ex, int fd, zloop_fn *handler, task_t *t)
{
    fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) | O_NONBLOCK);
    zmq_pollitem_t item = {NULL, fd, ZMQ_POLLIN, 0};
    return zloop_poller (ex->loop, &item, handler, t);
}

static void
s_close_fd (executor_t *ex, int *fd)
{
    if (*fd < 0)
        return;
    zmq_pollitem_t item = {NULL, *fd, ZMQ_POLLIN, 0};
    zloop_poller_end (ex->loop, &item);
    close (*fd);
    *fd = -1;
}

int
cmdrun_start (executor_t *ex, task_t *t, hearth_error_t *err)
{
    int out[2] = {-1, -1}, errp[2] = {-1, -1};
    int in = s_input_fd (ex, t, err);
    const char **envp = NULL;
    if (in == -1)
        return -1;
    if (pipe2 (out, O_CLOEXEC) < 0 || pipe2 (errp, O_CLOEXEC) < 0) {
        hearth_errprintf (err, "pipe: %s", strerror (errno));
        goto error;
    }
    if (t->env
        && !(envp = hearth_env_merge (NULL, (const char *const *) t->env))) {
        hearth_errprintf (err, "out of memory");
        goto error;
    }
    hearth_spawn_opts_t opts = {
        .argv = (const char *const *) t->argv,
        .envp = envp,
        .stdin_fd = in,
        .stdout_fd = out[1],
        .stderr_fd = errp[1],
        .new_pgroup = true,
    };
    t->pid = hearth_spawn (&opts, err);
    if (t->pid < 0) {
        t->pid = 0;
        goto error;
    }
    free (envp);
    if (in >= 0)
        close (in);
    close (out[1]);
    close (errp[1]);
    t->out_fd = out[0];
    t->err_fd = errp[0];
    s_watch (ex, t->out_fd, s_on_stdout, t);
    s_watch (ex, t->err_fd, s_on_stderr, t);
    return 0;
error:
    free (envp);
    int fds[] = {in, out[0], out[1], errp[0], errp[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close (fds[i]);
    return -1;
}

void
cmdrun_kill (executor_t *ex, task_t *t, int sig)
{
    (void) ex;
    if (t->pid > 0 && !t->exited)
        kill (-t->pid, sig);
}

/* Append captured stdout, up to the limit. */
static void
s_keep_output (executor_t *ex, task_t *t, const char *data, size_t n)
{
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
    size_t cap = sizeof t->err_tail;
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

/* Read what is available.  Returns true at end of file. */
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

/* Finish the task once it is reaped and its pipes are closed; the update
   goes out at once (handlers flush what they produce). */
static void
s_maybe_done (executor_t *ex, task_t *t)
{
    if (t->exited && t->out_fd < 0 && t->err_fd < 0) {
        tasks_finish (ex, t);
        link_flush (ex);
    }
}

static int
s_on_stdout (zloop_t *loop, zmq_pollitem_t *item, void *arg)
{
    (void) loop;
    (void) item;
    task_t *t = arg;
    executor_t *ex = t->ex;
    if (s_drain (ex, t, t->out_fd, true)) {
        s_close_fd (ex, &t->out_fd);
        s_maybe_done (ex, t);
    }
    return 0;
}

static int
s_on_stderr (zloop_t *loop, zmq_pollitem_t *item, void *arg)
{
    (void) loop;
    (void) item;
    task_t *t = arg;
    executor_t *ex = t->ex;
    if (s_drain (ex, t, t->err_fd, false)) {
        s_close_fd (ex, &t->err_fd);
        s_maybe_done (ex, t);
    }
    return 0;
}

static task_t *
s_find_pid (executor_t *ex, pid_t pid)
{
    for (task_t *t = zlistx_first (ex->running); t;
         t = zlistx_next (ex->running))
        if (t->pid == pid)
            return t;
    return NULL;
}

void
cmdrun_reap (executor_t *ex)
{
    int status;
    pid_t pid;
    while ((pid = waitpid (-1, &status, WNOHANG)) > 0) {
        task_t *t = s_find_pid (ex, pid);
        if (!t)
            continue;
        t->exited = true;
        t->wait_status = status;
        t->end_us = executor_now_us ();
        /* Its output is in the pipes already; a descendant that still
           holds them open does not delay the task. */
        if (t->out_fd >= 0)
            s_drain (ex, t, t->out_fd, true);
        if (t->err_fd >= 0)
            s_drain (ex, t, t->err_fd, false);
        s_close_fd (ex, &t->out_fd);
        s_close_fd (ex, &t->err_fd);
        s_maybe_done (ex, t);
    }
    link_flush (ex);
}

void
cmdrun_cleanup (executor_t *ex, task_t *t)
{
    s_close_fd (ex, &t->out_fd);
    s_close_fd (ex, &t->err_fd);
    if (t->pid > 0)
        kill (-t->pid, SIGKILL); /* what it left behind in its group */
}

static bool
s_any_child (executor_t *ex)
{
    for (task_t *t = zlistx_first (ex->running); t;
         t = zlistx_next (ex->running))
        if (t->pid > 0 && !t->exited)
            return true;
    return false;
}

void
cmdrun_reap_wait (executor_t *ex, int timeout_ms)
{
    int64_t deadline = zclock_mono () + timeout_ms;
    while (s_any_child (ex) && zclock_mono () < deadline) {
        cmdrun_reap (ex);
        if (s_any_child (ex))
            usleep (2000);
    }
}

/*  fnpool.c - tasks on a fixed pool of threads; see fnpool.h.

    The event loop hands a task to the pool (fnpool_submit); a thread calls
    the task's function, or runs its command (cmdrun.c), and puts the task
    on the done list, then wakes the loop through an eventfd.  The loop
    hands the whole done list to the pool's done callback (the task table
    reports the lot in one STATUS_UPDATE).  Threads touch only the task
    they run; everything else stays with the loop's thread.
*/
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "executor/cmdrun.h"
#include "executor/fnpool.h"
#include "executor/shuffletask.h"
#include "libcore/clock.h"
#include "libcore/log.h"

/* How long destroy waits for a busy thread before leaving it to exit()
   (a command killed at the stop must be reaped within it). */
static const int s_join_timeout_ms = 2000;

struct fnpool {
    executor_t *ex;          /* the loop, the pinning, commands' settings */
    fnpool_done_fn *on_done; /* hears of the tasks that ran, on the loop */
    void *on_done_arg;       /* passed to on_done */
    pthread_t *threads;      /* the pool */
    int nthreads;            /* started threads */
    pthread_mutex_t lock;    /* guards todo, done and quit */
    pthread_cond_t wake;     /* signalled when todo grows or quit is set */
    tlist_t todo;            /* task_t to run (pool_link) */
    tlist_t done;            /* task_t that ran (pool_link) */
    int efd;                 /* eventfd: done is not empty */
    bool quit;               /* threads should leave */
    bool stopped;            /* fnpool_stop has run */
};

/* On a pool thread: if *pending, wake the loop for the finished tasks
   (and clear *pending). */
static void
s_wake (fnpool_t *self, bool *pending)
{
    if (!*pending)
        return;
    *pending = false;
    uint64_t one = 1;
    ssize_t n = write (self->efd, &one, sizeof one);
    (void) n; /* an eventfd write only fails on overflow */
}

/* Run t.  *wake: the loop has finished tasks to hear of; a command's
   thread tells it once the next child has started (cmdrun.c). */
/* Whether the loop has given up on t (killed, or a function past its time
   limit): its output must not be kept. */
static bool
s_abandoned (task_t *t)
{
    return __atomic_load_n (&t->killed, __ATOMIC_RELAXED)
           || __atomic_load_n (&t->timed_out, __ATOMIC_RELAXED);
}

/* Run a command task (its shuffle roles begun already). */
static void
s_run_command (fnpool_t *self, task_t *t, bool *wake)
{
    cmdrun_proc_t proc;
    bool started = cmdrun_start (self->ex, t, &proc) == 0;
    if (started) {
        s_wake (self, wake); /* the child runs: the loop may have us */
        cmdrun_wait (self->ex, t, &proc);
    }
    s_wake (self, wake);
    if (t->roles)
        shuffletask_end (self->ex, t,
                         started && !s_abandoned (t)
                             && WIFEXITED (t->wait_status)
                             && WEXITSTATUS (t->wait_status) == 0);
}

/* Call a function task (its shuffle roles begun already). */
static void
s_run_function (fnpool_t *self, task_t *t, bool *wake)
{
    s_wake (self, wake);
    hearth_task_in_t in = {
        .arg = t->arg,
        .input = t->input ? zframe_data (t->input) : NULL,
        .input_len = t->input ? zframe_size (t->input) : 0,
        .index = t->tid & 0xffffffffu,
        .attempt = t->attempt,
        .resources = t->fn_resources,
        .nresources = t->fn_resources ? t->held.n : 0,
        .broadcast = (const char *const *) self->ex->broadcast,
    };
    const void *data;
    size_t len;
    if (shuffletask_fn_input (t, &data, &len)) {
        in.input = data;
        in.input_len = len;
    }
    else if (in.input_len > self->ex->max_input_bytes) {
        /* an input frame (a stage read whole whose outputs the driver
           kept) is bound as a reduce input is (reducein.c) */
        t->fn_rc = -1;
        snprintf (t->fn_out.error, sizeof t->fn_out.error,
                  "the input is %zu bytes, over max-input-bytes (%zu) of a "
                  "function task",
                  in.input_len, self->ex->max_input_bytes);
        return;
    }
    t->fn_rc = t->func (&in, &t->fn_out);
    if (t->roles)
        shuffletask_end (self->ex, t, t->fn_rc == 0 && !s_abandoned (t));
    else if (t->whole_max)
        shuffletask_whole_result (self->ex, t,
                                  t->fn_rc == 0 && !s_abandoned (t));
}

static void
s_run (fnpool_t *self, task_t *t, bool *wake)
{
    __atomic_store_n (&t->start_us, hearth_mono_us (), __ATOMIC_RELAXED);
    if (t->roles) {
        s_wake (self, wake); /* a reduce's fetch may take a while */
        if (shuffletask_begin (self->ex, t) < 0) {
            shuffletask_end (self->ex, t, false);
            t->end_us = hearth_mono_us ();
            return;
        }
    }
    if (t->argv)
        s_run_command (self, t, wake);
    else
        s_run_function (self, t, wake);
    t->end_us = hearth_mono_us ();
}

/* The loop is woken (an eventfd) when a task joins an empty done list,
   always with the lock released, so that it does not wake only to wait
   for the lock; and when the thread has a next task, only once that task
   has started: on a busy machine the woken loop may take this CPU, and a
   child that has not started yet would wait for it (benchmark 4). */
static void *
s_thread (void *arg)
{
    fnpool_t *self = arg;
    bool wake = false;
    pthread_mutex_lock (&self->lock);
    for (;;) {
        while (!self->quit && self->todo.size == 0) {
            if (wake) {
                pthread_mutex_unlock (&self->lock);
                s_wake (self, &wake);
                pthread_mutex_lock (&self->lock);
                continue;
            }
            pthread_cond_wait (&self->wake, &self->lock);
        }
        if (self->quit)
            break;
        task_t *t = tlist_pop (&self->todo);
        pthread_mutex_unlock (&self->lock);
        s_run (self, t, &wake);
        pthread_mutex_lock (&self->lock);
        if (self->done.size == 0)
            wake = true;
        tlist_push (&self->done, t);
    }
    pthread_mutex_unlock (&self->lock);
    s_wake (self, &wake);
    return NULL;
}

/* The loop's side: finish every task the threads have run. */
static int
s_on_done (hearth_loop_t *loop, int fd, void *arg)
{
    (void) loop;
    (void) fd;
    fnpool_t *self = arg;
    uint64_t count;
    ssize_t n = read (self->efd, &count, sizeof count);
    (void) n;
    pthread_mutex_lock (&self->lock);
    tlist_t done = self->done; /* take the whole list */
    tlist_init (&self->done, offsetof (task_t, pool_link));
    pthread_mutex_unlock (&self->lock);
    self->on_done (self->on_done_arg, &done);
    return 0;
}

/* Whether to pin thread i to the i-th CPU this process may use: "yes",
   "no", or "auto": when there are exactly as many threads as CPUs (the
   executor has the machine, as local[*] does; with fewer threads, other
   executors share the CPUs, with more, pinned threads could not even
   out).  Pinned, a command's thread and its child start on the thread's
   CPU, so the two commands in flight on a two-CPU machine do not queue
   on one CPU while the other idles, as the scheduler lets short-lived
   processes do (docs/performance.md, benchmark 4); the child is given
   back every CPU as soon as it has started (cmdrun.c). */
static bool
s_pin (const char *mode, int threads, cpu_set_t *cpus)
{
    if (sched_getaffinity (0, sizeof *cpus, cpus) < 0
        || (mode && strcmp (mode, "no") == 0))
        return false;
    int n = CPU_COUNT (cpus);
    return n > 0 && ((mode && strcmp (mode, "yes") == 0) || n == threads);
}

/* The index-th CPU of cpus (cycling). */
static int
s_nth_cpu (const cpu_set_t *cpus, int index)
{
    int n = CPU_COUNT (cpus), k = index % n;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET (cpu, cpus) && k-- == 0)
            return cpu;
    return 0;
}

fnpool_t *
fnpool_new (executor_t *ex, int threads, const char *pin, fnpool_done_fn *done,
            void *arg, hearth_error_t *err)
{
    fnpool_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->ex = ex;
    self->on_done = done;
    self->on_done_arg = arg;
    pthread_mutex_init (&self->lock, NULL);
    pthread_cond_init (&self->wake, NULL);
    tlist_init (&self->todo, offsetof (task_t, pool_link));
    tlist_init (&self->done, offsetof (task_t, pool_link));
    self->efd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
    self->threads = calloc (threads, sizeof *self->threads);
    if (self->efd < 0 || !self->threads) {
        hearth_errprintf (err, "cannot create the task pool: %s",
                          strerror (errno));
        fnpool_destroy (&self);
        return NULL;
    }
    ex->pinned = s_pin (pin, threads, &ex->cpus);
    for (; self->nthreads < threads; self->nthreads++) {
        pthread_attr_t attr;
        pthread_attr_init (&attr);
        if (ex->pinned) {
            cpu_set_t one;
            CPU_ZERO (&one);
            CPU_SET (s_nth_cpu (&ex->cpus, self->nthreads), &one);
            pthread_attr_setaffinity_np (&attr, sizeof one, &one);
        }
        int rc = pthread_create (&self->threads[self->nthreads], &attr,
                                 s_thread, self);
        pthread_attr_destroy (&attr);
        if (rc != 0) {
            hearth_errprintf (err, "cannot start task threads");
            fnpool_destroy (&self);
            return NULL;
        }
    }
    if (ex->pinned)
        log_info ("%d task threads, one per CPU", threads);
    if (hearth_loop_fd (ex->loop, self->efd, s_on_done, self) < 0) {
        hearth_errprintf (err, "out of memory");
        fnpool_destroy (&self);
        return NULL;
    }
    return self;
}

void
fnpool_submit (fnpool_t *self, task_t **tasks, size_t n)
{
    if (n == 0)
        return;
    pthread_mutex_lock (&self->lock);
    for (size_t i = 0; i < n; i++)
        tlist_push (&self->todo, tasks[i]);
    pthread_mutex_unlock (&self->lock);
    /* Signalled after the unlock: a woken thread takes the lock at once
       instead of blocking on it (tasks cannot be missed: a thread checks
       todo under the lock before it waits). */
    if (n == 1)
        pthread_cond_signal (&self->wake);
    else
        pthread_cond_broadcast (&self->wake);
}

bool
fnpool_cancel (fnpool_t *self, task_t *t)
{
    pthread_mutex_lock (&self->lock);
    /* on the to-do list: no thread has taken it (the done list is the
       loop's to read, and a task there has run) */
    bool taken =
        t->pool_link.on && !__atomic_load_n (&t->start_us, __ATOMIC_RELAXED);
    if (taken)
        tlist_remove (&self->todo, t);
    pthread_mutex_unlock (&self->lock);
    return taken;
}

static int
s_join_all (fnpool_t *self)
{
    int rc = 0;
    struct timespec deadline;
    clock_gettime (CLOCK_REALTIME, &deadline);
    deadline.tv_sec += s_join_timeout_ms / 1000;
    for (int i = 0; i < self->nthreads; i++)
        if (pthread_timedjoin_np (self->threads[i], NULL, &deadline) != 0) {
            log_warn ("a function task is still running at exit");
            pthread_detach (self->threads[i]);
            rc = -1;
        }
    return rc;
}

int
fnpool_stop (fnpool_t *self)
{
    if (self->stopped)
        return 0;
    self->stopped = true;
    pthread_mutex_lock (&self->lock);
    self->quit = true;
    pthread_cond_broadcast (&self->wake);
    pthread_mutex_unlock (&self->lock);
    return s_join_all (self);
}

void
fnpool_destroy (fnpool_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    fnpool_t *self = *self_p;
    fnpool_stop (self);
    if (self->efd >= 0) {
        if (self->ex->loop)
            hearth_loop_fd_end (self->ex->loop, self->efd);
        close (self->efd);
    }
    free (self->threads); /* tasks on todo and done are the loop's to free */
    free (self);
    *self_p = NULL;
    errno = saved;
}

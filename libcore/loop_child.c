/*  loop_child.c - the loop's children: an exit handler per child, and
    TERM-then-KILL after a grace in this one place; see loop.h.

    Each watched child has a thread that waits for its exit without
    reaping it (waitid with WNOWAIT), marks it exited and wakes the loop
    through the watch's eventfd.  The loop's handler of that eventfd
    reaps every child so marked (wait4: its status and resource use),
    joins its thread and calls its exit handler.  Only the loop reaps a
    watched child, so its pid (and its process group's id) cannot be
    given to another process before its handler has been called: every
    signal sent here reaches the child it names, or its zombie.

    Handlers may watch, signal, kill and end children: a reaped child is
    unlinked before its handler is called, and the list is looked
    through from its start again after each handler.

    An owned child (hearth_loop_child_own) is one a thread of the
    program waits for itself, in this file's code: no waiting thread and
    no wake-up of the loop (the executor's command tasks, where the two
    cost a fifth of the command rate: docs/design-changes.md, "One way to
    watch a child").  The owner marks it reaping under the watch's lock
    before it reaps, and unlinks it after: so a signal sent here, from
    any thread, still never reaches a reused pid.  The lock guards the
    list and what other threads read of a child; the loop-only parts
    (handlers, grace timers) stay the loop's.
*/
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcore/loop.h"
#include "libcore/loop_int.h"

/* A waiting thread's stack: it only waits and writes 8 bytes (the rest
   is room for a sanitizer's larger frames). */
static const size_t s_waiter_stack_bytes = 256 * 1024;

typedef struct s_child s_child_t;
struct s_child {
    pid_t pid;                /* the child */
    bool group;               /* signals go to its process group */
    hearth_loop_child_fn *fn; /* its exit handler */
    void *arg;                /* given to it */
    pthread_t waiter;         /* waits for its exit */
    bool joined;              /* the waiter was joined */
    atomic_bool exited;       /* the waiter saw it exit (the waiter sets) */
    int wake_fd;              /* the watch's eventfd (the waiter writes) */
    bool term_sent;           /* SIGTERM was sent */
    bool killed;              /* SIGKILL was sent after its grace */
    int grace_timer;          /* the TERM-then-KILL timer, or 0 */
    const void *owner;        /* an owned child's owner, or NULL */
    bool reaping;             /* owned: its owner reaps it: no signal */
    s_child_t *next;          /* the next watched child */
};

struct hearth_loop_kids {
    int wake_fd;          /* eventfd: a child exited (the loop watches it) */
    pthread_mutex_t lock; /* children, count, and the owned children's
                             reaping (other threads own, signal, unlink) */
    s_child_t *children;  /* watched, not reaped yet */
    size_t count;         /* entries of children */
};

/* ---- the waiting thread ------------------------------------------------- */

static void *
s_wait (void *arg)
{
    s_child_t *c = arg;
    siginfo_t info;
    /* ECHILD (someone else reaped it) ends the wait too: wait4 says so */
    while (waitid (P_PID, (id_t) c->pid, &info, WEXITED | WNOWAIT) < 0
           && errno == EINTR)
        ;
    atomic_store (&c->exited, true);
    uint64_t one = 1;
    ssize_t n = write (c->wake_fd, &one, sizeof one);
    (void) n; /* only fails when the counter is full: awake already */
    return NULL;
}

/* Start c's waiter with every signal blocked (they are the process's
   other threads' to take).  0, or an errno value. */
static int
s_start_waiter (s_child_t *c)
{
    pthread_attr_t attr;
    sigset_t all, old;
    int rc = pthread_attr_init (&attr);
    if (rc)
        return rc;
    pthread_attr_setstacksize (&attr, s_waiter_stack_bytes);
    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    rc = pthread_create (&c->waiter, &attr, s_wait, c);
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    pthread_attr_destroy (&attr);
    return rc;
}

/* ---- the watch ---------------------------------------------------------- */

/* The watch's lock, when there is a watch. */
static void
s_lock (const hearth_loop_t *loop)
{
    hearth_loop_kids_t *kids = hearth_loop_kids (loop);
    if (kids)
        pthread_mutex_lock (&kids->lock);
}

static void
s_unlock (const hearth_loop_t *loop)
{
    hearth_loop_kids_t *kids = hearth_loop_kids (loop);
    if (kids)
        pthread_mutex_unlock (&kids->lock);
}

/* The child pid (locked). */
static s_child_t *
s_find (const hearth_loop_t *loop, pid_t pid)
{
    hearth_loop_kids_t *kids = hearth_loop_kids (loop);
    for (s_child_t *c = kids ? kids->children : NULL; c; c = c->next)
        if (c->pid == pid)
            return c;
    return NULL;
}

static void
s_unlink (hearth_loop_kids_t *kids, s_child_t *c)
{
    for (s_child_t **p = &kids->children; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            kids->count--;
            return;
        }
}

/* Reap c, which has exited or will (this waits), into *exit. */
static void
s_wait4 (const s_child_t *c, hearth_loop_exit_t *exit)
{
    *exit = (hearth_loop_exit_t){.pid = c->pid, .killed = c->killed};
    int rc;
    while ((rc = wait4 (c->pid, &exit->status, 0, &exit->ru)) < 0
           && errno == EINTR)
        ;
    if (rc != c->pid) {
        exit->status = -1;
        memset (&exit->ru, 0, sizeof exit->ru);
    }
}

/* Reap c (a loop's child, unlinked), fill *exit and free c. */
static void
s_reap (hearth_loop_t *loop, s_child_t *c, hearth_loop_exit_t *exit)
{
    if (!c->joined)
        pthread_join (c->waiter, NULL);
    if (c->grace_timer)
        hearth_loop_timer_end (loop, c->grace_timer);
    s_wait4 (c, exit);
    free (c);
}

/* The first of the loop's children marked exited, unlinked; or NULL. */
static s_child_t *
s_take_exited (hearth_loop_kids_t *kids)
{
    s_child_t *found = NULL;
    pthread_mutex_lock (&kids->lock);
    for (s_child_t *c = kids->children; c && !found; c = c->next)
        if (!c->owner && atomic_load (&c->exited))
            found = c;
    if (found)
        s_unlink (kids, found);
    pthread_mutex_unlock (&kids->lock);
    return found;
}

/* The eventfd: reap what exited, and call the handlers. */
static int
s_on_wake (hearth_loop_t *loop, int fd, void *arg)
{
    hearth_loop_kids_t *kids = arg;
    uint64_t n;
    while (read (fd, &n, sizeof n) < 0 && errno == EINTR)
        ;
    s_child_t *c;
    while ((c = s_take_exited (kids))) {
        hearth_loop_child_fn *fn = c->fn;
        void *fn_arg = c->arg;
        hearth_loop_exit_t exit;
        s_reap (loop, c, &exit);
        if (fn (loop, &exit, fn_arg) < 0) {
            uint64_t one = 1; /* those left are seen next time */
            ssize_t w = write (fd, &one, sizeof one);
            (void) w;
            return -1;
        }
    }
    return 0;
}

/* The loop's destroy: each child's thread stopped, the children left
   as they are. */
static void
s_kids_free (hearth_loop_kids_t *kids)
{
    while (kids->children) {
        s_child_t *c = kids->children;
        kids->children = c->next;
        if (!c->owner) {
            pthread_cancel (c->waiter); /* waitid is a cancellation point */
            pthread_join (c->waiter, NULL);
        }
        free (c);
    }
    pthread_mutex_destroy (&kids->lock);
    close (kids->wake_fd);
    free (kids);
}

/* The loop's watch, made at its first child.  NULL with errno. */
static hearth_loop_kids_t *
s_kids (hearth_loop_t *loop)
{
    hearth_loop_kids_t *kids = hearth_loop_kids (loop);
    if (kids)
        return kids;
    if (!(kids = calloc (1, sizeof *kids)))
        return NULL;
    pthread_mutex_init (&kids->lock, NULL);
    kids->wake_fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (kids->wake_fd < 0
        || hearth_loop_fd (loop, kids->wake_fd, s_on_wake, kids) < 0) {
        int saved = kids->wake_fd < 0 ? errno : ENOMEM;
        if (kids->wake_fd >= 0)
            close (kids->wake_fd);
        pthread_mutex_destroy (&kids->lock);
        free (kids);
        errno = saved;
        return NULL;
    }
    hearth_loop_kids_set (loop, kids, s_kids_free);
    return kids;
}

/* Whether pid is a child of ours not reaped yet (else errno ECHILD). */
static bool
s_is_our_child (pid_t pid)
{
    siginfo_t info = {.si_pid = 0};
    if (pid > 0
        && waitid (P_PID, (id_t) pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0)
        return true;
    errno = ECHILD;
    return false;
}

/* Link c, unless its pid is watched already (then -1, EEXIST). */
static int
s_link (hearth_loop_t *loop, s_child_t *c)
{
    hearth_loop_kids_t *kids = hearth_loop_kids (loop);
    pthread_mutex_lock (&kids->lock);
    bool known = s_find (loop, c->pid) != NULL;
    if (!known) {
        c->next = kids->children;
        kids->children = c;
        kids->count++;
    }
    pthread_mutex_unlock (&kids->lock);
    if (known)
        errno = EEXIST;
    return known ? -1 : 0;
}

int
hearth_loop_child (hearth_loop_t *self, pid_t pid, bool group,
                   hearth_loop_child_fn *fn, void *arg)
{
    if (!s_is_our_child (pid))
        return -1;
    hearth_loop_kids_t *kids = s_kids (self);
    s_child_t *c = kids ? calloc (1, sizeof *c) : NULL;
    if (!c)
        return -1;
    *c = (s_child_t){.pid = pid,
                     .group = group,
                     .fn = fn,
                     .arg = arg,
                     .wake_fd = kids->wake_fd};
    atomic_init (&c->exited, false);
    int rc = s_start_waiter (c);
    if (!rc && s_link (self, c) < 0) {
        rc = errno;
        pthread_cancel (c->waiter);
        pthread_join (c->waiter, NULL);
    }
    if (rc) {
        free (c);
        errno = rc;
        return -1;
    }
    return 0;
}

/* pid started but could not be watched: it cannot be left behind, so
   it is killed and reaped; -1 with err. */
static pid_t
s_unwatched (pid_t pid, hearth_error_t *err)
{
    int saved = errno;
    kill (pid, SIGKILL);
    while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return hearth_errprintf (err, "cannot watch process %d: %s", (int) pid,
                             strerror (saved));
}

pid_t
hearth_loop_spawn (hearth_loop_t *self, const hearth_spawn_opts_t *opts,
                   bool group, hearth_loop_child_fn *fn, void *arg,
                   hearth_error_t *err)
{
    pid_t pid = hearth_spawn (opts, err);
    if (pid < 0 || hearth_loop_child (self, pid, group, fn, arg) == 0)
        return pid;
    return s_unwatched (pid, err);
}

/* ---- signals ------------------------------------------------------------ */

static void
s_send (s_child_t *c, int sig)
{
    if (sig == SIGTERM)
        c->term_sent = true;
    kill (c->group ? -c->pid : c->pid, sig);
}

/* Send sig to c unless its owner reaps it (locked).  0, or -1 ESRCH. */
static int
s_send_unless_reaping (s_child_t *c, int sig)
{
    if (!c || c->reaping) {
        errno = ESRCH;
        return -1;
    }
    s_send (c, sig);
    return 0;
}

int
hearth_loop_child_signal (hearth_loop_t *self, pid_t pid, int sig)
{
    s_lock (self);
    int rc = s_send_unless_reaping (s_find (self, pid), sig);
    s_unlock (self);
    return rc;
}

/* SIGKILL now if it is still there; its grace, if one runs, ends. */
static void
s_kill_now (hearth_loop_t *loop, s_child_t *c)
{
    if (c->grace_timer) {
        hearth_loop_timer_end (loop, c->grace_timer);
        c->grace_timer = 0;
    }
    if (!atomic_load (&c->exited)) {
        c->killed = true;
        s_lock (loop);
        s_send (c, SIGKILL);
        s_unlock (loop);
    }
}

/* The loop's own child pid (not an owned one), or NULL with errno:
   ESRCH (not watched), EINVAL (owned: its owner ends it). */
static s_child_t *
s_find_loops (hearth_loop_t *loop, pid_t pid)
{
    s_lock (loop);
    s_child_t *c = s_find (loop, pid);
    s_unlock (loop); /* only the loop's thread unlinks the loop's own */
    if (!c || c->owner)
        errno = c ? EINVAL : ESRCH;
    return c && !c->owner ? c : NULL;
}

/* The grace is over. */
static int
s_on_grace (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) timer_id;
    s_kill_now (loop, arg); /* a timer of one call: ending it is nothing */
    return 0;
}

int
hearth_loop_child_kill (hearth_loop_t *self, pid_t pid, size_t grace_ms)
{
    s_child_t *c = s_find_loops (self, pid);
    if (!c)
        return -1;
    if (grace_ms == 0) {
        s_kill_now (self, c);
        return 0;
    }
    if (!c->term_sent)
        hearth_loop_child_signal (self, pid, SIGTERM);
    if (c->grace_timer)
        return 0; /* its grace runs already */
    int id = hearth_loop_timer (self, grace_ms, 1, s_on_grace, c);
    if (id < 0)
        s_kill_now (self, c); /* no timer: no grace */
    else
        c->grace_timer = id;
    return 0;
}

bool
hearth_loop_child_exited (hearth_loop_t *self, pid_t pid)
{
    s_lock (self);
    s_child_t *c = s_find (self, pid);
    bool exited = c && atomic_load (&c->exited);
    s_unlock (self);
    return exited;
}

/* Join c's waiter if it ends within grace_ms.  Whether it did. */
static bool
s_join_within (s_child_t *c, int64_t grace_ms)
{
    struct timespec until;
    clock_gettime (CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t) (grace_ms / 1000);
    until.tv_nsec += (long) (grace_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    c->joined =
        pthread_clockjoin_np (c->waiter, NULL, CLOCK_MONOTONIC, &until) == 0;
    return c->joined;
}

int
hearth_loop_child_end (hearth_loop_t *self, pid_t pid, int64_t grace_ms,
                       hearth_loop_exit_t *exit)
{
    s_child_t *c = s_find_loops (self, pid);
    if (!c)
        return -1;
    if (grace_ms >= 0 && !s_join_within (c, grace_ms)) {
        c->killed = true;
        hearth_loop_child_signal (self, pid, SIGKILL);
    }
    s_lock (self);
    s_unlink (hearth_loop_kids (self), c);
    s_unlock (self);
    hearth_loop_exit_t ended;
    s_reap (self, c, exit ? exit : &ended);
    return 0;
}

size_t
hearth_loop_reap_unwatched (hearth_loop_t *self)
{
    size_t n = 0;
    for (;;) {
        siginfo_t info = {.si_pid = 0};
        if (waitid (P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
            if (errno == EINTR)
                continue;
            return n; /* ECHILD: no child at all */
        }
        pid_t pid = info.si_pid;
        s_lock (self);
        bool watched = s_find (self, pid) != NULL;
        s_unlock (self); /* an owner unlinks its child after its reap */
        if (pid <= 0 || watched)
            return n; /* none exited; or a watched one: the loop's */
        int rc;
        while ((rc = waitpid (pid, NULL, WNOHANG)) < 0 && errno == EINTR)
            ;
        if (rc != pid)
            return n;
        n++;
    }
}

size_t
hearth_loop_children (const hearth_loop_t *self)
{
    s_lock (self);
    hearth_loop_kids_t *kids = hearth_loop_kids (self);
    size_t n = kids ? kids->count : 0;
    s_unlock (self);
    return n;
}

/* ---- owned children ----------------------------------------------------- */

int
hearth_loop_child_shared (hearth_loop_t *self)
{
    return s_kids (self) ? 0 : -1;
}

int
hearth_loop_child_own (hearth_loop_t *self, pid_t pid, bool group,
                       const void *owner)
{
    if (!hearth_loop_kids (self) || !owner) {
        errno = EINVAL;
        return -1;
    }
    if (!s_is_our_child (pid))
        return -1;
    s_child_t *c = calloc (1, sizeof *c);
    if (!c)
        return -1;
    *c = (s_child_t){.pid = pid, .group = group, .owner = owner};
    atomic_init (&c->exited, false);
    if (s_link (self, c) == 0)
        return 0;
    free (c);
    return -1;
}

pid_t
hearth_loop_spawn_owned (hearth_loop_t *self, const hearth_spawn_opts_t *opts,
                         const void *owner, hearth_error_t *err)
{
    pid_t pid = hearth_spawn (opts, err);
    if (pid < 0
        || hearth_loop_child_own (self, pid, opts->new_pgroup, owner) == 0)
        return pid;
    return s_unwatched (pid, err);
}

/* The child owner owns (locked). */
static s_child_t *
s_find_owned (const hearth_loop_t *loop, const void *owner)
{
    hearth_loop_kids_t *kids = hearth_loop_kids (loop);
    for (s_child_t *c = kids ? kids->children : NULL; c; c = c->next)
        if (c->owner == owner)
            return c;
    return NULL;
}

int
hearth_loop_child_signal_owned (hearth_loop_t *self, const void *owner, int sig)
{
    s_lock (self);
    int rc = s_send_unless_reaping (s_find_owned (self, owner), sig);
    s_unlock (self);
    return rc;
}

/* How an owned child stands: still running, exited (a zombie: its pid
   and group id still its own), or gone (someone else reaped it: its
   numbers may be another's already). */
typedef enum { S_RUNNING, S_ZOMBIE, S_GONE } s_owned_state_t;

/* c's state, waiting for its exit when block. */
static s_owned_state_t
s_owned_state (const s_child_t *c, bool block)
{
    siginfo_t info = {.si_pid = 0};
    int flags = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
    int rc;
    while ((rc = waitid (P_PID, (id_t) c->pid, &info, flags)) < 0
           && errno == EINTR)
        ;
    if (rc < 0)
        return S_GONE; /* ECHILD: wait4 says so too */
    return info.si_pid == c->pid ? S_ZOMBIE : S_RUNNING;
}

int
hearth_loop_child_wait (hearth_loop_t *self, const void *owner, bool block,
                        hearth_loop_exit_t *exit)
{
    s_lock (self);
    s_child_t *c = s_find_owned (self, owner);
    s_unlock (self); /* only its owner, the caller, unlinks it */
    if (!c) {
        errno = ESRCH;
        return -1;
    }
    s_owned_state_t state = s_owned_state (c, block);
    if (state == S_RUNNING)
        return 0;
    s_lock (self);
    c->reaping = true; /* from here, no signal: the pid is about to go */
    s_unlock (self);
    if (c->group && state == S_ZOMBIE) /* what it left in its group, whose
                                          id is still its own */
        kill (-c->pid, SIGKILL);
    hearth_loop_exit_t ended;
    s_wait4 (c, exit ? exit : &ended);
    s_lock (self);
    s_unlink (hearth_loop_kids (self), c);
    s_unlock (self);
    free (c);
    return 1;
}

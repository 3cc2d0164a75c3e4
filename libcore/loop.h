/*  loop.h - the reactor of the task path: the driver's engine and the
    executor wait here on their ZeroMQ sockets, descriptors and timers.

    Why not zloop: zloop waits in zmq_poll, which asks every socket for
    ZMQ_EVENTS before it waits and again after (each ask a getpid and a
    poll of the socket's mailbox): with two sockets, ten system calls a
    wake-up where one would do.  Here a single poll(2) waits on every
    descriptor, each socket's ZMQ_FD among them, and only the socket
    whose descriptor fired is read (docs/performance.md, "The one-task
    latency, third pass").

    The rule this rests on: a socket's ZMQ_FD tells of commands in its
    mailbox, not of messages, and only of those that came while nothing
    was ready.  So a reader's handler receives without waiting
    (ZMQ_DONTWAIT) until nothing is left (that last receive takes the
    mailbox's commands in, which quiets the descriptor until the next
    message).  And any other use of the socket, a send, may take those
    commands in too, after which a message is ready and the descriptor
    says nothing: whoever sends on a watched socket calls
    hearth_loop_sent, and the loop calls that reader's handler before it
    waits again.  A reader is called so too when it is new, and when its
    handler stopped before the socket was empty.

    Handlers may add and end readers, descriptors and timers, their own
    included; an ended one is never called again, and its entry is freed
    after the turn.  Single-threaded: one thread owns a loop.

    Children (loop_child.c): the loop watches child processes, calls an
    exit handler per child with its wait status and resource use, and
    ends them TERM-then-KILL after a grace; only the loop reaps a
    watched child (or, for an owned child, its owning thread through the
    watch), so a signal sent here never reaches a reused pid.
*/
#ifndef HEARTH_LIBCORE_LOOP_H
#define HEARTH_LIBCORE_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <czmq.h>

#include "libcore/error.h"
#include "libcore/spawn.h"

typedef struct hearth_loop hearth_loop_t;

/* A socket's handler: receive without waiting (ZMQ_DONTWAIT) until
   nothing is left (then return 0), or stop earlier, after enough for
   one turn (then return 1: it is called again before the loop waits).
   -1 ends the loop. */
typedef int (hearth_loop_reader_fn) (hearth_loop_t *loop, zsock_t *sock,
                                     void *arg);
/* A descriptor's handler: it is readable (or in error).  Returns 0, or
   -1 to end the loop. */
typedef int (hearth_loop_fd_fn) (hearth_loop_t *loop, int fd, void *arg);
/* A timer's handler.  Returns 0, or -1 to end the loop. */
typedef int (hearth_loop_timer_fn) (hearth_loop_t *loop, int timer_id,
                                    void *arg);

/* A new loop, or NULL (out of memory). */
hearth_loop_t *hearth_loop_new (void);

/* Free it (NULL accepted; nulls *self_p; keeps errno).  The sockets and
   descriptors stay their owners'; children still watched are left as
   they are (not signalled, not reaped). */
void hearth_loop_destroy (hearth_loop_t **self_p);

/* Call fn when sock may have messages (sock borrowed, until
   hearth_loop_reader_end).  Returns 0, or -1 (out of memory). */
int hearth_loop_reader (hearth_loop_t *self, zsock_t *sock,
                        hearth_loop_reader_fn *fn, void *arg);

/* Stop watching sock (nothing if it was not watched). */
void hearth_loop_reader_end (hearth_loop_t *self, zsock_t *sock);

/* Something was sent on sock (a reader of this loop, or nothing is
   done): its handler is called before the loop waits.  Every send on a
   watched socket must be followed by this, its handler's own sends
   included, or a message can wait unseen. */
void hearth_loop_sent (hearth_loop_t *self, zsock_t *sock);

/* Call fn when fd is readable.  Returns 0, or -1 (out of memory). */
int hearth_loop_fd (hearth_loop_t *self, int fd, hearth_loop_fd_fn *fn,
                    void *arg);

/* Stop watching fd (nothing if it was not watched). */
void hearth_loop_fd_end (hearth_loop_t *self, int fd);

/* Call fn every delay_ms, times times (0: until ended).  Returns the
   timer's id (> 0, never that of a timer still running), or -1 (out of
   memory). */
int hearth_loop_timer (hearth_loop_t *self, size_t delay_ms, size_t times,
                       hearth_loop_timer_fn *fn, void *arg);

/* End a timer (nothing if it has ended: a timer of N times ends after
   its last call). */
void hearth_loop_timer_end (hearth_loop_t *self, int timer_id);

/* ---- children (loop_child.c) ---------------------------------------------

   How the exit is seen: a thread per child waits in waitid(WNOWAIT), which
   leaves the child a zombie, and wakes the loop through an eventfd; the
   loop reaps it (wait4, with its resource use) and calls its handler.
   Not a pidfd (Linux 5.3): valgrind 3.19, which tests run the driver and
   executor under, does not know pidfd_open and reports the call.  Not a
   SIGCHLD signalfd: it only works if every thread of the process blocks
   SIGCHLD, which libhearth, inside a program of its user's, cannot
   promise, and two loops of one process would steal each other's
   signal.  (docs/design-changes.md, "One way to watch a child".) */

/* How a watched child ended. */
typedef struct {
    pid_t pid;        /* the child */
    int status;       /* its wait status (WIFEXITED...), or -1: unknown
                         (reaped by someone else) */
    struct rusage ru; /* its resource use (zeroes when unknown) */
    bool killed;      /* it had to be sent SIGKILL after its grace */
} hearth_loop_exit_t;

/* A child's exit handler: it has exited and has been reaped (exit
   borrowed).  Returns 0, or -1 to end the loop. */
typedef int (hearth_loop_child_fn) (hearth_loop_t *loop,
                                    const hearth_loop_exit_t *exit, void *arg);

/* Watch child pid (ours, not reaped; it may have exited already): fn is
   called once it has exited, and the loop reaps it.  With group, signals
   go to its process group (it leads one).  Returns 0, or -1 with errno:
   ECHILD (not a child of ours), EEXIST (watched already), ENOMEM,
   EAGAIN (no thread for it). */
int hearth_loop_child (hearth_loop_t *self, pid_t pid, bool group,
                       hearth_loop_child_fn *fn, void *arg);

/* Start a child (hearth_spawn) and watch it as hearth_loop_child does.
   Returns its pid, or -1 with err (a child started but not watched is
   killed and reaped first). */
pid_t hearth_loop_spawn (hearth_loop_t *self, const hearth_spawn_opts_t *opts,
                         bool group, hearth_loop_child_fn *fn, void *arg,
                         hearth_error_t *err);

/* Send sig to a watched child (or its group) that has not been reaped.
   Returns 0, or -1 with errno (ESRCH: not watched). */
int hearth_loop_child_signal (hearth_loop_t *self, pid_t pid, int sig);

/* End a watched child: SIGTERM now (unless sent already by
   hearth_loop_child_signal or an earlier call), SIGKILL if it is still
   there grace_ms later (0: SIGKILL at once); its handler is called as
   usual.  Returns 0, or -1 with errno (ESRCH: not watched). */
int hearth_loop_child_kill (hearth_loop_t *self, pid_t pid, size_t grace_ms);

/* Whether a watched child has exited (its handler still to come).
   False for a pid not watched. */
bool hearth_loop_child_exited (hearth_loop_t *self, pid_t pid);

/* Wait here, without the loop, for a watched child to exit: up to
   grace_ms (< 0: for ever), then SIGKILL and wait again; reap it and end
   its watch, its handler not called.  How it ended goes to *exit (may be
   NULL).  For a stop that cannot wait for the loop (the loop ended, or a
   child to be gone before the next one starts).  Returns 0, or -1 with
   errno (ESRCH: not watched). */
int hearth_loop_child_end (hearth_loop_t *self, pid_t pid, int64_t grace_ms,
                           hearth_loop_exit_t *exit);

/* Reap the children of this process that exited and that no watch of
   self holds (the orphans a child subreaper is given, prctl(2)), without
   their status; never a watched one, whose handler is still to come.
   The kernel shows exited children one at a time (waitid(P_ALL) with
   WNOWAIT peeks at one): the sweep stops at the first watched one,
   which the loop reaps at its next turn, so call this again from that
   child's handler (and at each SIGCHLD, or a tick).  Only for a process
   whose every child is either watched by self or no one's: no other
   loop, thread or library of it may wait for a child of its own.
   Returns how many were reaped. */
size_t hearth_loop_reap_unwatched (hearth_loop_t *self);

/* Children watched (their handlers not called yet), owned ones too. */
size_t hearth_loop_children (const hearth_loop_t *self);

/* Owned children: a child that a thread of the program (its owner)
   waits for itself, blocking in hearth_loop_child_wait, while any thread
   may signal it through the watch.  No thread per child and no wake-up of
   the loop: for children started and ended at a high rate by threads
   that have nothing else to do meanwhile (the executor's command tasks).
   The loop neither reaps them nor calls a handler for them;
   hearth_loop_child_kill and hearth_loop_child_end refuse them
   (EINVAL): their owner ends them.

   Make the watch on the loop's thread, before any other thread uses it
   (it adds a descriptor to the loop).  Returns 0, or -1 with errno. */
int hearth_loop_child_shared (hearth_loop_t *self);

/* Watch child pid (ours, not reaped) for owner, the caller's handle of
   it (a task), by which it is signalled and waited for: a pid can be
   given again once reaped, an owner cannot be confused with a later
   child.  With group, signals go to its process group (it leads one),
   and what it leaves in its group is killed when it is reaped.  Any
   thread.  Returns 0, or -1 with errno: EINVAL (no shared watch, or no
   owner), ECHILD (not a child of ours), EEXIST, ENOMEM. */
int hearth_loop_child_own (hearth_loop_t *self, pid_t pid, bool group,
                           const void *owner);

/* Start a child (hearth_spawn) and own it as hearth_loop_child_own
   does (its group: opts->new_pgroup).  Returns its pid, or -1 with err
   (a child started but not watched is killed and reaped first). */
pid_t hearth_loop_spawn_owned (hearth_loop_t *self,
                               const hearth_spawn_opts_t *opts,
                               const void *owner, hearth_error_t *err);

/* Send sig to owner's child (or its group), unless it is being reaped.
   Any thread.  Returns 0, or -1 with errno (ESRCH: none, or reaped). */
int hearth_loop_child_signal_owned (hearth_loop_t *self, const void *owner,
                                    int sig);

/* The owner's wait for its child: when block, until it exits; else
   only whether it has.  An exited child is reaped (its group swept
   first, when it leads one), *exit filled (may be NULL) and its watch
   ended.  Returns 1 (reaped), 0 (still running: only without block), or
   -1 with errno (ESRCH: owner has no child watched). */
int hearth_loop_child_wait (hearth_loop_t *self, const void *owner, bool block,
                            hearth_loop_exit_t *exit);

/* Run until a handler returns -1 (then -1), or poll(2) fails (-1 with
   errno; a signal's EINTR is not a failure). */
int hearth_loop_start (hearth_loop_t *self);

#endif

/*  apiq.h - what the API's threads tell the engine: jobs submitted, jobs
    cancelled, the application's final state, the stop; a locked queue
    and an eventfd the engine's loop polls.

    It replaced the inproc PAIR pipe's messages on the latency path: a
    submit was a zmsg of two frames sent, received and taken apart, and
    the pipe a second ZeroMQ socket in every poll of the engine's loop,
    each costing system calls of ZeroMQ's own whether or not it had
    anything (docs/performance.md "The one-task latency, second pass").
    Now a job costs a lock and, when the queue was empty, one eventfd
    write.  The pipe stays for the engine's answers (start-up over, a
    cancel done), which the API waits for with zsock_wait.

    The engine takes everything at once and acts in this order: the
    submits (oldest first), the cancels (each of a job submitted before
    it), the final state, the stop.  Once the engine stops it closes the
    queue: a submit or cancel after that is refused instead of waiting
    for an engine that is gone. */
#ifndef HEARTH_LIBHEARTH_APIQ_H
#define HEARTH_LIBHEARTH_APIQ_H

#include "libhearth/internal.h"

typedef struct apiq apiq_t;

/* What the engine takes from the queue (apiq_take). */
typedef struct {
    hearth_job_t *submits;   /* oldest first, linked by submit_next */
    hearth_job_t *cancels;   /* oldest first, linked by cancel_next */
    bool final_set;          /* the program said how the application ends */
    int final_state;         /* hearth_app_end_t, when final_set */
    char final_reason[1024]; /* when final_set */
    bool stop;               /* the context is being destroyed */
} apiq_batch_t;

/* A new empty queue, or NULL (errno) when its eventfd cannot be made. */
apiq_t *apiq_new (void);
/* Free it (jobs still on it stay their owner's). */
void apiq_destroy (apiq_t **self_p);
/* Readable while something may be waiting (the engine polls it). */
int apiq_fd (const apiq_t *self);

/* The API's side, from any thread.  Each returns 0, or -1 once the
   engine has closed the queue. */
int apiq_submit (apiq_t *self, hearth_job_t *job);
/* The engine signals the pipe when it has cancelled job. */
int apiq_cancel (apiq_t *self, hearth_job_t *job);
/* The last one before the stop wins. */
int apiq_final (apiq_t *self, int state, const char *reason);
void apiq_stop (apiq_t *self);

/* The engine's side: take everything queued so far into out. */
void apiq_take (apiq_t *self, apiq_batch_t *out);
/* The engine stops: refuse what comes later (take what came before). */
void apiq_close (apiq_t *self);

#endif

/*  apiq.c - the API's commands to the engine; see apiq.h. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "libhearth/apiq.h"

/* A list of jobs, linked by their submit_next or cancel_next (a job can
   be on both lists at once: cancelled before the engine took it). */
typedef struct {
    hearth_job_t *head, *tail;
    bool cancels; /* linked by cancel_next */
} s_list_t;

struct apiq {
    pthread_mutex_t lock; /* guards everything below */
    s_list_t submits;     /* jobs submitted, not yet taken */
    s_list_t cancels;     /* jobs to cancel, not yet taken (cancels set) */
    bool final_set;       /* a final state waits */
    int final_state;
    char final_reason[1024];
    bool stop;   /* a stop waits */
    bool closed; /* the engine stopped: refuse the rest */
    bool queued; /* something waits: efd was written since the last take */
    int efd;     /* eventfd: something waits */
};

apiq_t *
apiq_new (void)
{
    apiq_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->efd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (self->efd < 0) {
        int saved = errno;
        free (self);
        errno = saved;
        return NULL;
    }
    pthread_mutex_init (&self->lock, NULL);
    self->cancels.cancels = true;
    return self;
}

void
apiq_destroy (apiq_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    apiq_t *self = *self_p;
    close (self->efd);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

int
apiq_fd (const apiq_t *self)
{
    return self->efd;
}

static hearth_job_t **
s_link (const s_list_t *list, hearth_job_t *job)
{
    return list->cancels ? &job->cancel_next : &job->submit_next;
}

static void
s_append (s_list_t *list, hearth_job_t *job)
{
    *s_link (list, job) = NULL;
    if (list->tail)
        *s_link (list, list->tail) = job;
    else
        list->head = job;
    list->tail = job;
}

/* Called with the lock held, which it releases: wake the engine unless
   it has been woken since its last take (it takes everything at once).
   Written after the unlock, so that the woken engine does not wait for
   the lock. */
static void
s_unlock_and_wake (apiq_t *self)
{
    bool wake = !self->queued;
    self->queued = true;
    pthread_mutex_unlock (&self->lock);
    if (wake) {
        uint64_t one = 1;
        ssize_t n = write (self->efd, &one, sizeof one);
        (void) n; /* an eventfd write fails only on overflow */
    }
}

/* Queue job on list; -1 once closed. */
static int
s_push (apiq_t *self, s_list_t *list, hearth_job_t *job)
{
    pthread_mutex_lock (&self->lock);
    if (self->closed) {
        pthread_mutex_unlock (&self->lock);
        return -1;
    }
    s_append (list, job);
    s_unlock_and_wake (self);
    return 0;
}

int
apiq_submit (apiq_t *self, hearth_job_t *job)
{
    return s_push (self, &self->submits, job);
}

int
apiq_cancel (apiq_t *self, hearth_job_t *job)
{
    return s_push (self, &self->cancels, job);
}

int
apiq_final (apiq_t *self, int state, const char *reason)
{
    pthread_mutex_lock (&self->lock);
    if (self->closed) {
        pthread_mutex_unlock (&self->lock);
        return -1;
    }
    self->final_set = true;
    self->final_state = state;
    snprintf (self->final_reason, sizeof self->final_reason, "%s",
              reason ? reason : "");
    s_unlock_and_wake (self);
    return 0;
}

void
apiq_stop (apiq_t *self)
{
    pthread_mutex_lock (&self->lock);
    self->stop = true;
    s_unlock_and_wake (self);
}

void
apiq_take (apiq_t *self, apiq_batch_t *out)
{
    uint64_t count;
    ssize_t n = read (self->efd, &count, sizeof count);
    (void) n; /* EAGAIN: nothing written since the last read */
    pthread_mutex_lock (&self->lock);
    out->submits = self->submits.head;
    out->cancels = self->cancels.head;
    self->submits.head = self->submits.tail = NULL;
    self->cancels.head = self->cancels.tail = NULL;
    out->final_set = self->final_set;
    if (self->final_set) { /* rare: not copied with every submit */
        out->final_state = self->final_state;
        memcpy (out->final_reason, self->final_reason,
                sizeof out->final_reason);
        self->final_set = false;
    }
    out->stop = self->stop;
    self->queued = false;
    pthread_mutex_unlock (&self->lock);
}

void
apiq_close (apiq_t *self)
{
    pthread_mutex_lock (&self->lock);
    self->closed = true;
    pthread_mutex_unlock (&self->lock);
}

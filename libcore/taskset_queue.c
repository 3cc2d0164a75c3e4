/*  taskset_queue.c - the task set's queues: a stage's tasks to run again
    (failed, lost, or stragglers to copy), and the events for the engine,
    kills among them (an attempt asked to be killed, its task perhaps
    queued to run again).

    Both are arrays used as FIFOs: taken from the head, appended at the
    tail, slid down to the start before they grow.  Taking from a task
    queue happens per offered task and is inline in taskset_int.h; the
    pushes here happen per retry or event, not per task.
*/
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libcore/taskset_int.h"

/* Entries a task queue starts with; events likewise. */
static const size_t s_queue_first_alloc = 16;
static const size_t s_events_first_alloc = 64;

int
ts_queue_push (ts_queue_t *q, uint64_t index, ts_avoid_t avoid)
{
    if (q->tail == q->alloc) {
        if (q->head > 0) { /* slide down before growing */
            size_t n = q->tail - q->head;
            memmove (q->index, q->index + q->head, n * sizeof *q->index);
            memmove (q->avoid, q->avoid + q->head, n * sizeof *q->avoid);
            q->head = 0;
            q->tail = n;
        }
        if (q->tail == q->alloc) {
            size_t n = q->alloc ? q->alloc * 2 : s_queue_first_alloc;
            uint64_t *indices = realloc (q->index, n * sizeof *indices);
            if (indices)
                q->index = indices;
            ts_avoid_t *avoids = realloc (q->avoid, n * sizeof *avoids);
            if (avoids)
                q->avoid = avoids;
            if (!indices || !avoids)
                return -1;
            q->alloc = n;
        }
    }
    q->index[q->tail] = index;
    q->avoid[q->tail] = avoid;
    q->tail++;
    return 0;
}

void
ts_queue_release (ts_queue_t *q)
{
    free (q->index);
    free (q->avoid);
    memset (q, 0, sizeof *q);
}

void
ts_event_push (hearth_taskset_t *self, const hearth_ts_event_t *ev)
{
    if (self->ev_tail == self->ev_alloc) {
        size_t live = self->ev_tail - self->ev_head;
        if (self->ev_head > 0) {
            memmove (self->events, self->events + self->ev_head,
                     live * sizeof *self->events);
            self->ev_head = 0;
            self->ev_tail = live;
        }
        if (self->ev_tail == self->ev_alloc) {
            size_t n =
                self->ev_alloc ? self->ev_alloc * 2 : s_events_first_alloc;
            hearth_ts_event_t *events =
                realloc (self->events, n * sizeof *events);
            if (!events)
                return; /* out of memory: the event is lost, not the board */
            self->events = events;
            self->ev_alloc = n;
        }
    }
    self->events[self->ev_tail++] = *ev;
}

bool
hearth_taskset_next_event (hearth_taskset_t *self, hearth_ts_event_t *ev)
{
    if (self->ev_head == self->ev_tail)
        return false;
    *ev = self->events[self->ev_head++];
    if (self->ev_head == self->ev_tail)
        self->ev_head = self->ev_tail = 0;
    return true;
}

void
ts_kill (hearth_taskset_t *self, ts_stage_t *st, ts_attempt_t *a)
{
    a->killing = true;
    st->tasks[a->key.index].running--;
    hearth_ts_event_t ev = {.type = HEARTH_TS_EV_KILL,
                            .job = st->job,
                            .stage = a->key.stage,
                            .index = a->key.index,
                            .attempt = a->key.attempt,
                            .exec_id = a->exec_id};
    ts_event_push (self, &ev);
}

void
ts_kill_requeue (hearth_taskset_t *self, ts_stage_t *st, ts_attempt_t *a,
                 ts_avoid_t avoid)
{
    ts_kill (self, st, a);
    ts_task_t *t = &st->tasks[a->key.index];
    if (t->state == TASK_DONE || st->failed || t->running > 0)
        return;
    t->state = TASK_PENDING;
    ts_queue_push (&st->retry, a->key.index, avoid);
}

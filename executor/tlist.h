/*  tlist.h - intrusive FIFO lists of tasks.

    A task_t carries its own links (one pair per kind of list it can be on
    at the same time), so that queueing, starting and finishing a task
    allocate nothing: with zlistx each of the four lists a function task
    passes through (queue, running, the pool's to-do and done lists) cost
    a node allocated and freed, per task.

    A list is set up with the offset of the link it uses; a task is on at
    most one list per link.  Not thread-safe: the pool's lists are used
    under its lock.  Header-only (static inline).
*/
#ifndef HEARTH_EXECUTOR_TLIST_H
#define HEARTH_EXECUTOR_TLIST_H

#include <stdbool.h>
#include <stddef.h>

struct task;

typedef struct {
    struct task *prev; /* previous on the list, or NULL */
    struct task *next; /* next on the list, or NULL */
    bool on;           /* on a list through this link */
} tlink_t;

typedef struct {
    struct task *head; /* first, or NULL */
    struct task *tail; /* last, or NULL */
    size_t size;       /* tasks on the list */
    size_t link;       /* offset of the tlink_t in struct task */
} tlist_t;

static inline tlink_t *
tlist_link (const tlist_t *list, struct task *t)
{
    return (tlink_t *) ((char *) t + list->link);
}

/* An empty list using the link at offset link in struct task. */
static inline void
tlist_init (tlist_t *list, size_t link)
{
    list->head = list->tail = NULL;
    list->size = 0;
    list->link = link;
}

static inline void
tlist_push (tlist_t *list, struct task *t)
{
    tlink_t *l = tlist_link (list, t);
    l->prev = list->tail;
    l->next = NULL;
    l->on = true;
    if (list->tail)
        tlist_link (list, list->tail)->next = t;
    else
        list->head = t;
    list->tail = t;
    list->size++;
}

/* Take t off the list (it must be on it). */
static inline void
tlist_remove (tlist_t *list, struct task *t)
{
    tlink_t *l = tlist_link (list, t);
    if (l->prev)
        tlist_link (list, l->prev)->next = l->next;
    else
        list->head = l->next;
    if (l->next)
        tlist_link (list, l->next)->prev = l->prev;
    else
        list->tail = l->prev;
    l->prev = l->next = NULL;
    l->on = false;
    list->size--;
}

/* Take the first task off, or NULL. */
static inline struct task *
tlist_pop (tlist_t *list)
{
    struct task *t = list->head;
    if (t)
        tlist_remove (list, t);
    return t;
}

/* The task after t on the list, or NULL. */
static inline struct task *
tlist_next (const tlist_t *list, struct task *t)
{
    return tlist_link (list, t)->next;
}

#endif

/*  allocwhy.h - why an application or a cluster-mode driver waits: the
    codes of its `waiting` object ({code, reason}: MASTER_STATE,
    APPLICATION_WAITING, /json, hearth-tail, hearth-admin), and the pure
    part of finding one: whether any live worker could ever hold one
    executor (or the driver), judged from the workers' whole capacity, not
    from what is free on them now.

    The master (master/waiting.c) gives every application that wants
    cores and has no executor, and every driver it could not place, the
    first of these that holds:

        no_worker          no live worker at all
        too_many_cores     more cores than any live worker has
        too_much_memory    more memory than any live worker has
        resource_missing   a custom resource no live worker has enough of
                           (or each somewhere, never all on one worker)
        no_worker_fits     each part met somewhere, never all on one worker
        key_limit          its key's core limit (--max-cores-per-key)
        cluster_full       some worker could hold it, but what it needs is
                           held (by the applications the reason names)
        labels_missing     no live worker carries the labels its
                           executors ask for (--executor-label), looked
                           at first

    The first five and labels_missing are "never" codes
    (hearth_wait_never): no live worker can ever meet the request, and
    --unschedulable-timeout ends it.  The
    others wait for cores that others hold.  Codes that later features
    add (queues, fair share, labels, barrier gangs) go at the end of the
    enum, each with its name; docs/cluster.md "Why an application waits"
    has the table.

    Everything here is pure: the input is borrowed, nothing is kept. */
#ifndef HEARTH_ALLOCWHY_H
#define HEARTH_ALLOCWHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/alloc.h"

typedef enum {
    HEARTH_WAIT_NONE = 0,         /* not waiting (no code) */
    HEARTH_WAIT_NO_WORKER,        /* no live worker */
    HEARTH_WAIT_TOO_MANY_CORES,   /* cores above every live worker's */
    HEARTH_WAIT_TOO_MUCH_MEMORY,  /* memory above every live worker's */
    HEARTH_WAIT_RESOURCE_MISSING, /* a custom resource nobody offers
                                     enough of, or not all on one worker */
    HEARTH_WAIT_NO_WORKER_FITS,   /* cores, memory (and resources) each
                                     offered, never all on one worker */
    HEARTH_WAIT_KEY_LIMIT,        /* its key's core limit holds it back */
    HEARTH_WAIT_CLUSTER_FULL,     /* what it needs is held by others */
    HEARTH_WAIT_LABELS_MISSING,   /* no live worker carries its executors'
                                     labels (issue 37) */
    HEARTH_WAIT_NCODES            /* number of codes, NONE included */
} hearth_wait_code_t;

/* The code's name as the wire and the state show it ("too_much_memory";
   static); NULL for HEARTH_WAIT_NONE and out-of-range values. */
const char *hearth_wait_code_name (hearth_wait_code_t code);

/* Whether code says that no live worker can ever meet the request (the
   --unschedulable-timeout runs): NO_WORKER ... NO_WORKER_FITS, and
   LABELS_MISSING. */
bool hearth_wait_never (hearth_wait_code_t code);

/* One executor's request (or a cluster-mode driver's). */
typedef struct {
    int cores;                                /* cores it needs */
    int64_t memory_mb;                        /* memory it needs, MiB */
    const hearth_alloc_resource_t *resources; /* amounts by name
                                                 (borrowed), or NULL */
    size_t nresources;                        /* entries in resources */
} hearth_alloc_need_t;

/* How a request stands against the live workers' capacity. */
typedef struct {
    hearth_wait_code_t code; /* NONE: some worker could hold it; else one
                                of the never codes */
    int most_cores;          /* the most cores one live worker has */
    int64_t most_memory_mb;  /* the most memory one live worker has */
    size_t resource;         /* RESOURCE_MISSING: the index in the
                                request's resources of the first name no
                                worker has enough of, or nresources when
                                each is met somewhere, never all on one */
    int most_resource;       /* the most of that name one worker has */
} hearth_alloc_fit_t;

/* Judge need against workers[], the live workers' capacities: each
   one's cores_free is all its cores, memory_free_mb all its memory, and
   resources all its addresses by name (alive is not looked at: the
   caller passes the live ones).  The first of NO_WORKER, TOO_MANY_CORES,
   TOO_MUCH_MEMORY, RESOURCE_MISSING (a name), NO_WORKER_FITS (cores and
   memory never on one worker), RESOURCE_MISSING (all the names never on
   one worker), NO_WORKER_FITS (the rest) that holds, else NONE. */
void hearth_alloc_fit (const hearth_alloc_need_t *need,
                       const hearth_alloc_worker_t *workers, size_t n,
                       hearth_alloc_fit_t *fit);

/* A never code's sentence into buf (cut to size): per says whose the
   request is ("per executor", "for the driver"):
   "no worker is alive", "asks 8 cores per executor; the most any worker
   has is 2", "asks 64 GiB per executor; the largest worker offers 2
   GiB", "each executor asks for 2 gpu; the most any live worker has is
   1", "asks 8 cores and 64 GiB per executor; no worker has both".  ""
   for the other codes. */
void hearth_alloc_fit_text (const hearth_alloc_need_t *need,
                            const hearth_alloc_fit_t *fit, const char *per,
                            char *buf, size_t size);

/* A memory size for people: "2 GiB", "1.5 GiB", "512 MiB". */
void hearth_alloc_memory_text (int64_t mb, char *buf, size_t size);

#endif

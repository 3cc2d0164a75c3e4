/*  partbucket.h - an unsorted map output's held records, routed straight
    into their partition's frames as they arrive (partwriter.c's way for
    an unsorted stage).

    Each partition keeps its records as the frames partfmt.h's framer
    would write (HEARTH_FRAME_MAX payload bytes each, the last one
    partial), header room included, so that writing them out is a write
    per frame and no copy: a record is copied once, from the task's output
    into its frame, while it is still in the cache.  The files are those
    of the framer byte for byte.  The buckets own their frames; the
    writer owns the buckets.
*/
#ifndef HEARTH_PARTBUCKET_H
#define HEARTH_PARTBUCKET_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"
#include "libcore/partfmt.h"

typedef struct hearth_partbuckets hearth_partbuckets_t;

/* Empty buckets for R partitions.  NULL on no memory. */
hearth_partbuckets_t *hearth_partbuckets_new (uint32_t partitions);
/* Append a record (len bytes, '\n' included) to partition part.  0, or
   -1 with err (no memory). */
int hearth_partbuckets_add (hearth_partbuckets_t *self, uint32_t part,
                            const char *rec, size_t len, hearth_error_t *err);
/* Memory the held frames take (their allocations and tables). */
size_t hearth_partbuckets_held (const hearth_partbuckets_t *self);
/* Records held. */
size_t hearth_partbuckets_records (const hearth_partbuckets_t *self);
/* Write every partition's frames to fd, in partition order, from its
   start, and their table into parts (R entries); the buckets are empty
   after.  0, or -1 with err (code "io"). */
int hearth_partbuckets_write (hearth_partbuckets_t *self, int fd,
                              hearth_part_t *parts, hearth_error_t *err);
/* Accepts NULL and a NULL *self_p; sets *self_p to NULL. */
void hearth_partbuckets_destroy (hearth_partbuckets_t **self_p);

#endif

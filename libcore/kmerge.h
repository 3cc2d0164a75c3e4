/*  kmerge.h - the merge of sorted record streams into one, by key.

    Each source hands out its records (lines, '\n' included) in key order;
    the merge hands out all of them in key order, records of equal keys in
    the order of their sources (then each source's own order): the rule of
    a sorted shuffle, where source i is map task i's block.  A binary heap
    of the sources' current records: O(log k) per record, memory for k
    current records (the sources' buffers are theirs).
*/
#ifndef HEARTH_KMERGE_H
#define HEARTH_KMERGE_H

#include <stddef.h>

#include "libcore/error.h"

/* A source's next record into *rec and *len (borrowed until the next
   call on that source).  Returns 1, 0 at its end, or -1 with err. */
typedef int (hearth_kmerge_next_fn) (void *source, const char **rec,
                                     size_t *len, hearth_error_t *err);

typedef struct hearth_kmerge hearth_kmerge_t;

/* A merge of n sources (the array and the sources are borrowed: they
   outlive the merge).  NULL with err on no memory. */
hearth_kmerge_t *hearth_kmerge_new (void *const *sources, size_t n,
                                    hearth_kmerge_next_fn *next,
                                    hearth_error_t *err);
/* The next record of the merge (borrowed until the next call), and the
   index of its source in *source when that is not NULL.  Returns 1, 0
   when every source has ended, or -1 with a source's err. */
int hearth_kmerge_next (hearth_kmerge_t *self, const char **rec, size_t *len,
                        size_t *source, hearth_error_t *err);
/* Accepts NULL and a NULL *self_p; sets *self_p to NULL; keeps errno. */
void hearth_kmerge_destroy (hearth_kmerge_t **self_p);

#endif

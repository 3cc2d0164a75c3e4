/*  jfiles.h - the bytes the journal's records refer to but do not hold:
    the files of a cluster-mode driver that may be launched again, kept
    under its id as DIR/files/KEY/0, 1, ... beside the journal (journal.h)
    and written whole (to KEY.tmp, fsync'd, renamed) before the record
    that needs them. */
#ifndef HEARTH_MASTER_JFILES_H
#define HEARTH_MASTER_JFILES_H

#include <stdbool.h>
#include <stddef.h>

#include <czmq.h>

#include "libcore/error.h"
#include "master/journal.h"

/* Keep n frames (borrowed) under key (an id: no '/'), fsync'd, replacing
   what key held.  0 or -1 with err. */
int journal_files_put (journal_t *self, const char *key,
                       zframe_t *const *frames, size_t n, hearth_error_t *err);

/* True when key's frames are kept. */
bool journal_files_have (journal_t *self, const char *key);

/* Read key's n frames into a new array of new frames (caller destroys
   both).  NULL with err when they are not all there. */
zframe_t **journal_files_get (journal_t *self, const char *key, size_t n,
                              hearth_error_t *err);

/* Forget key's frames. */
void journal_files_drop (journal_t *self, const char *key);

/* Forget the frames of every key for which keep() is false. */
void journal_files_gc (journal_t *self,
                       bool (*keep) (void *arg, const char *key), void *arg);

#endif

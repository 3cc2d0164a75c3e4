/*  fstree.h - whole directory trees: remove one, make one, count its
    bytes; and whole buffers written to a file.  The worker's removals
    (executor and driver directories, the shuffle's outputs), the master's
    journal, the shuffle's files and the executor's outputs use the same
    code. */
#ifndef HEARTH_FSTREE_H
#define HEARTH_FSTREE_H

#include <stdint.h>

#include "libcore/error.h"

/* Remove path and everything below it; a path that does not exist is no
   error.  No symbolic link is followed, even one that replaces a
   directory while the removal runs (every directory is opened from its
   parent's fd with O_NOFOLLOW): a root worker removes trees that tasks'
   users may write to.  What cannot be removed is logged (WARN) and
   skipped, and so is what lies more than 256 directories deep. */
void hearth_rm_tree (const char *path);

/* Make path and every missing directory above it, mode mode (an existing
   directory is fine).  Returns 0, or -1 with err. */
int hearth_mkdir_p (const char *path, unsigned mode, hearth_error_t *err);

/* Write all len bytes of data to fd (again after a short write or
   EINTR).  Returns 0, or -1 with errno. */
int hearth_write_all (int fd, const void *data, size_t len);
/* Bytes the regular files below path take on disk (allocated blocks), 0
   when it does not exist. */
uint64_t hearth_tree_bytes (const char *path);

#endif

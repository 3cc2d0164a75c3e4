/*  jio.h - the few POSIX file helpers of the master's journal (journal.c,
    jfiles.c): read a whole file, remove a tree (a whole buffer is written
    by libcore/fstree.h's hearth_write_all).  No state; errors are
    errno's. */
#ifndef HEARTH_MASTER_JIO_H
#define HEARTH_MASTER_JIO_H

#include <stddef.h>

/* Modes of the journal's directories and files: private to the master's
   user (records carry application tokens). */
#define JIO_DIR_MODE 0700
#define JIO_FILE_MODE 0600

/* The whole file at path, in a new NUL-terminated buffer (caller frees)
   of *len bytes; NULL with errno (ENOENT when it does not exist). */
char *jio_read_file (const char *path, size_t *len);

/* Remove path and everything below it, if it exists; what cannot be
   removed is logged. */
void jio_rm_tree (const char *path);

#endif

/*  pidfile.h - a daemon's pid file (--pid-file).

    The file holds the daemon's pid and one line feed.  It is locked
    (flock, exclusive) for the whole life of the process, so a second
    daemon started with the same pid file refuses to start while the first
    runs, and a stale file left by a crash (no lock) is simply taken over.
    Scripts read it to stop exactly the process that wrote it.

    The descriptor is close-on-exec: children never hold the lock.
*/
#ifndef HEARTH_PIDFILE_H
#define HEARTH_PIDFILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "libcore/error.h"

typedef struct hearth_pidfile hearth_pidfile_t;

/* Create or take over path, lock it and write this process's pid.  NULL
   with err when it cannot be written, or when another live process holds
   it ("... is held by process 1234: already running?"). */
hearth_pidfile_t *hearth_pidfile_open (const char *path, hearth_error_t *err);

/* Remove the file and release the lock (a clean exit).  Accepts NULL;
   nulls the pointer; keeps errno. */
void hearth_pidfile_remove (hearth_pidfile_t **self_p);

/* Close the file without removing it (a child between fork and exec has
   no use for it).  Accepts NULL; nulls the pointer; keeps errno. */
void hearth_pidfile_close (hearth_pidfile_t **self_p);

/* The pid written in path, or -1 (no file, or no pid in it). */
pid_t hearth_pidfile_read (const char *path);

/* What a pid file, a journal's and a work dir's lock have in common: open
   path (created with mode), take its exclusive lock without waiting and
   write this process's pid in it.  Returns the descriptor (close-on-exec;
   closing it releases the lock), or -1 with err ("cannot open WHAT PATH:
   ...", what being "" or e.g. "the pid file "), and *held true when
   another process holds the lock (its pid: hearth_pidfile_read).  A
   symbolic link at path, or a file with other hard links, is refused
   (libcore/safefile.h: a pid file's directory may be shared). */
int hearth_pid_lock (const char *path, const char *what, int mode, bool *held,
                     hearth_error_t *err);

#endif

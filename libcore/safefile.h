/*  safefile.h - files written into directories that others may write: an
    event-log directory, a job's output directory, /tmp for pid and ready
    files, a user's work directory that a root worker writes in.

    Whoever can write such a directory can leave a symbolic link (or a
    hard link) at the name a Hearth process is about to write, pointing
    at a file that process may write and they may not; application ids
    and pids are easy to guess.  So (docs/security.md, "Files written in
    shared directories"):

    - a file is created new: O_CREAT | O_EXCL | O_NOFOLLOW, so that
      nothing at its name is followed, neither a symbolic link nor a
      hard link to someone's file (hearth_file_create_at);
    - a file that is replaced (an output written again, a temporary file
      left by a crash) has its name unlinked first, the link itself and
      never what it names, and is then created new, the same way;
    - a file that is opened again (a pid file, a log appended to) is
      opened O_NOFOLLOW and must be a regular file with a single link
      (hearth_file_reopen);
    - every file opened that may already be there is opened O_NONBLOCK
      and kept only when fstat says it is a regular file, then made
      blocking again (hearth_file_open_regular_at): a FIFO left at the
      name would otherwise block the open (O_WRONLY until a reader
      comes, O_RDONLY until a writer does), a process's start or its
      SIGHUP with it;
    - a file read from a directory another user may write (a root
      worker reading a task's log or map output) must also have a
      single link and belong to that user (hearth_file_open_owned_at):
      a hard link to a file the reader may read and the writer may not
      is not handed out, even once its other names are gone;
    - a directory of Hearth's own inside such a directory
      (.hearth-history, _temporary) is opened O_DIRECTORY | O_NOFOLLOW
      and its files reached through that descriptor (openat, renameat:
      hearth_dir_open_at), so that a link at its name is refused rather
      than written through.

    A directory the user named (--event-log DIR, --output DIR) may itself
    be a symbolic link: the user chose it.  What is refused is a link at
    a name Hearth picks inside it.

    Every function returns a descriptor (close-on-exec) or -1 with errno:
    ELOOP when the name is a symbolic link, EEXIST when a new file's name
    is taken (a link included), EMLINK when a file has other hard links,
    EINVAL when it is not a regular file (a FIFO, a device, a socket, a
    directory), EPERM when it belongs to someone else; hearth_file_why
    gives the words for those.  Nothing here allocates.
*/
#ifndef HEARTH_SAFEFILE_H
#define HEARTH_SAFEFILE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Create name in the directory dirfd (AT_FDCWD: the current one) as a
   new regular file, opened with flags (O_WRONLY or O_RDWR, maybe
   O_APPEND) | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode mode.
   With replace, an entry of that name (a file, or a link: never its
   target) is unlinked first; without, a taken name fails with
   EEXIST. */
int hearth_file_create_at (int dirfd, const char *name, int flags, mode_t mode,
                           bool replace);

/* hearth_file_create_at for a path: its directory part as given (it may
   be a link the user made), its last component as above. */
int hearth_file_create (const char *path, int flags, mode_t mode, bool replace);

/* The same for a file in a directory of Hearth's own (the last directory
   of path, e.g. OUT/_temporary) inside one the user named (OUT, followed
   as given): that directory is entered as hearth_dir_open_at does, so a
   link left at its name is refused too (ELOOP). */
int hearth_file_create_below (const char *path, int flags, mode_t mode,
                              bool replace);
/* Remove what hearth_file_create_below made at path, its directory
   entered the same way (a link at its name: ELOOP, nothing removed).
   Returns 0, or -1 with errno (ENOENT: nothing there). */
int hearth_file_unlink_below (const char *path);

/* Open name in dirfd (AT_FDCWD: a path) with flags (maybe O_CREAT, then
   mode; O_NOFOLLOW to refuse a symbolic link, ELOOP) | O_NONBLOCK |
   O_NOCTTY | O_CLOEXEC, and keep it only when it is a regular file (else
   EINVAL; a FIFO that has no reader, which an O_WRONLY open finds with
   ENXIO, is EINVAL too): nothing at the name blocks the caller.  The
   descriptor is blocking (unless flags asked for O_NONBLOCK); *st (when
   not NULL) is what fstat said of it. */
int hearth_file_open_regular_at (int dirfd, const char *name, int flags,
                                 mode_t mode, struct stat *st);

/* Open path with flags (maybe O_CREAT, then mode) | O_NOFOLLOW, as
   hearth_file_open_regular_at: a symbolic link fails with ELOOP; what is
   opened must be a regular file (else EINVAL) with one link (else
   EMLINK). */
int hearth_file_reopen (const char *path, int flags, mode_t mode);

/* Open name in dirfd for reading, in a directory another user may write
   (the caller has found its way there without following a link): as
   hearth_file_open_regular_at with O_RDONLY | O_NOFOLLOW, and kept only
   with one link (else EMLINK) and owned by owner (else EPERM).  *st as
   there. */
int hearth_file_open_owned_at (int dirfd, const char *name, uid_t owner,
                               struct stat *st);

/* Open the directory name in dirfd (AT_FDCWD: a path) with O_DIRECTORY |
   O_NOFOLLOW: a symbolic link at name fails with ELOOP.
   With make_mode non-zero, a missing directory is made first (that
   mode). */
int hearth_dir_open_at (int dirfd, const char *name, mode_t make_mode);

/* The words for an errno of the functions above ("it is a symbolic
   link, never followed here"), or strerror's. */
const char *hearth_file_why (int err);

#endif

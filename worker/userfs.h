/*  userfs.h - the worker's own file work in trees that a child's user
    may write to: the directories and files it makes for that user, and
    the files it reads back from there (logs, map outputs).

    A worker running as root makes WORK_DIR/APP_ID/EXEC_ID, its stdout
    and stderr, WORK_DIR/DRIVER_ID and the driver's files, and the
    shuffle's ROOT/APP_ID, owned by the user the child runs as
    (runas.h), and later reads logs and map outputs from them.  What
    that user may write there, the user may also replace: with a
    symbolic link to /etc/shadow, a hard link to it, or a FIFO that
    blocks whoever opens it.  So here:

      - a path below a trusted root (the work dir, the shuffle root) is
        opened one component at a time, each directory with
        O_DIRECTORY | O_NOFOLLOW from the fd of the one above: no link is
        ever followed, wherever it is on the way;
      - a file is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO does not
        block), and kept only when it is a regular file of one link
        (libcore/safefile.h, hearth_file_open_regular_at);
      - a file read back must also belong to the owner of the directory
        it is in: the child's user in a directory of that user's, the
        worker in one of its own (children run as the worker).  The
        worker gives what it makes there to that user, so nothing else
        has a reason to be there: a hard link to a file of root's, or of
        another user's, is refused even where fs.protected_hardlinks is
        0 and even once the file's other names are gone
        (hearth_file_open_owned_at);
      - a file the worker replaces is unlinked and made anew (O_EXCL);
      - ownership is given with fchown on the open fd, never by path.

    An owner of NULL makes things as the worker's user (a worker that
    runs children as itself), with the same care.
*/
#ifndef HEARTH_WORKER_USERFS_H
#define HEARTH_WORKER_USERFS_H

#include <stdbool.h>
#include <sys/types.h>

#include "libcore/error.h"

/* Whom what is made belongs to. */
typedef struct {
    uid_t uid; /* its user */
    gid_t gid; /* its group */
} userfs_owner_t;

/* Open root (trusted: the worker's own) and below it each component of
   rel ('/'-separated, each a plain name), making the missing ones mode
   mode and owned by owner (or the worker); an existing one owned by
   neither the worker nor owner is refused, one owned by the worker is
   given to owner.  Returns the fd (close-on-exec) of the last, or -1
   with err. */
int userfs_mkdirs (const char *root, const char *rel, mode_t mode,
                   const userfs_owner_t *owner, hearth_error_t *err);

/* Open name in the directory dir_fd (dir: its path, for errors) for
   writing: appended to when it exists (append), else replaced by a new
   file; created mode mode, owned by owner (or the worker).  Returns the
   fd (close-on-exec, blocking), or -1 with err (a link, not a regular
   file, a file of several links). */
int userfs_create (int dir_fd, const char *dir, const char *name, bool append,
                   mode_t mode, const userfs_owner_t *owner,
                   hearth_error_t *err);

/* Open root/rel for reading (rel '/'-separated, each a plain name) with
   no link followed: a regular file of one link, owned by the owner of
   the directory it is in.  Every reader of what a child's user may
   write goes through here (the /log pages, DRIVER_LOG, a driver's last
   error line, the block server's map outputs).  Returns the fd
   (close-on-exec, blocking), or -1 with err and errno (ELOOP or ENOTDIR
   for a link or not a directory on the way, EINVAL for anything but a
   regular file, EMLINK for a file of several links, EPERM for a file of
   another owner). */
int userfs_open_read (const char *root, const char *rel, hearth_error_t *err);
/* userfs_open_read, for a file that may have several links: a node's
   cache entry of a shipped file, which its executors link into their
   work dirs (shipserve.h).  What such a file holds is its owner's own
   (the owner must still be the directory's, so a planted link names a
   file of that user only), and whoever fetches it checks its hash. */
int userfs_open_shared (const char *root, const char *rel, hearth_error_t *err);

#endif

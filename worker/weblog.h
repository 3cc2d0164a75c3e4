/*  weblog.h - the bytes of an executor's or a driver's stdout or stderr
    for the worker's /log and /logpage, never a byte outside the work dir.

    The arguments are the request's, unchecked: app and exec (an
    executor), or driver, stream (stdout or stderr), offset (negative:
    from the end; default the last 64 KiB) and length (default 64 KiB,
    at most 1 MiB; more is cut to that).  Ids must be valid ids
    (libcore/ids.h: no '/', no '..'); the file is opened as every file
    a child's user may write is read back (userfs_open_read): one
    component at a time from the work dir with O_NOFOLLOW, so a symbolic
    link anywhere on the way is refused, and it must be a regular file
    of one link, owned by its directory's owner (a hard link to a file
    of root's, a FIFO: 403). */
#ifndef HEARTH_WORKER_WEBLOG_H
#define HEARTH_WORKER_WEBLOG_H

#include <stddef.h>
#include <stdint.h>

/* Longest read, and the default length and offset. */
#define WEBLOG_MAX_BYTES (1024 * 1024)
#define WEBLOG_DEFAULT_BYTES (64 * 1024)

/* The request's arguments (borrowed; NULL: absent). */
typedef struct {
    const char *app, *exec, *driver, *stream, *offset, *length;
} weblog_args_t;

/* What a read found. */
typedef struct {
    int status;      /* 200, 400 (bad arguments), 403 (a link, not a
                        regular file of one link of its directory's
                        owner), 404 (no such file), 500 (another
                        error) */
    char *data;      /* the bytes (malloc'ed, the caller's), or NULL */
    size_t len;      /* how many */
    int64_t offset;  /* where they start in the file */
    int64_t total;   /* the file's size */
    char what[200];  /* its owner: "APP executor N", "DRIVER" */
    char error[256]; /* why, when status is not 200 */
} weblog_t;

/* Read per args under work_dir into out.  Returns out->status. */
int weblog_read (const char *work_dir, const weblog_args_t *args,
                 weblog_t *out);

#endif

/*  shipserve.c - chunks of the node's shipped files, for other nodes'
    executors; see shipserve.h.

    The progress file an executor keeps while it fetches (written by
    executor/shipcache.c, read here only) is SHIPSERVE_HEADER bytes
    holding the decimal pid that names its part file
    (.HASH-NAME.PID.part), NUL-padded, then one byte per chunk: 1 once
    that chunk is in the part file and its CRC-32C checked.
*/
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/filechunk.h"
#include "libcore/ids.h"
#include "worker/shipserve.h"
#include "worker/userfs.h"

/* The progress file's header: the pid of its part file, in decimal. */
enum { s_header_bytes = 16 };

/* The request's fields. */
typedef struct {
    const char *app_id; /* its application */
    const char *hash;   /* the file's SHA-1 */
    const char *name;   /* its name */
    uint64_t offset;    /* the chunk's first byte */
    uint64_t length;    /* its bytes */
    int64_t request;    /* echoed */
} s_req_t;

/* The chunk from fd, or the refusal saying why not. */
static hearth_msg_t *
s_serve (const s_req_t *r, int fd)
{
    hearth_msg_t *msg = hearth_file_chunk_read (fd, r->hash, r->offset,
                                                (size_t) r->length, r->request);
    int saved = errno;
    close (fd);
    if (msg || saved == ENOMEM)
        return msg;
    if (saved == ENODATA)
        return hearth_file_chunk_refusal (
            "bad_offset", r->request, "%s holds no %llu bytes at %llu", r->name,
            (unsigned long long) r->length, (unsigned long long) r->offset);
    return hearth_file_chunk_refusal ("io", r->request, "cannot read %s: %s",
                                      r->name, strerror (saved));
}

/* The part file of the fetch that progress file fd (taken) describes,
   opened when it holds r's chunk; -1 (errno ENOENT when it does not). */
static int
s_open_part (const char *work_dir, const s_req_t *r, int fd)
{
    char header[s_header_bytes + 1] = "", rel[1200];
    unsigned char mark = 0;
    uint64_t chunk = r->offset / HEARTH_FILE_CHUNK_BYTES;
    bool got = pread (fd, header, s_header_bytes, 0) == s_header_bytes
               && pread (fd, &mark, 1, (off_t) (s_header_bytes + chunk)) == 1
               && mark == 1;
    close (fd);
    long pid = got ? strtol (header, NULL, 10) : 0;
    if (pid <= 0) {
        errno = ENOENT;
        return -1;
    }
    snprintf (rel, sizeof rel, "%s/.ship/.%s-%s.%ld.part", r->app_id, r->hash,
              r->name, pid);
    return userfs_open_read (work_dir, rel, NULL);
}

hearth_msg_t *
shipserve_answer (const char *work_dir, const cJSON *body)
{
    s_req_t r = {.app_id = hearth_json_str (body, "app_id"),
                 .hash = hearth_json_str (body, "hash"),
                 .name = hearth_json_str (body, "name"),
                 .offset = (uint64_t) hearth_json_int (body, "offset", 0),
                 .length = (uint64_t) hearth_json_int (body, "length", 1),
                 .request = hearth_json_int (body, "request", 0)};
    if (!r.app_id || !r.name)
        return hearth_file_chunk_refusal (
            "bad_request", r.request,
            "a block server serves a file named by app_id and "
            "name only");
    if (!hearth_name_safe (r.hash) || !hearth_name_safe (r.name))
        return hearth_file_chunk_refusal ("no_file", r.request,
                                          "no shipped file is called that");
    if (r.offset % HEARTH_FILE_CHUNK_BYTES != 0
        || r.length > HEARTH_FILE_CHUNK_BYTES)
        return hearth_file_chunk_refusal (
            "bad_offset", r.request,
            "a node serves whole chunks of %d bytes only",
            HEARTH_FILE_CHUNK_BYTES);
    /* every part of the path is an id or a safe name: none leaves
       WORK_DIR/APP_ID/.ship */
    char rel[1200];
    snprintf (rel, sizeof rel, "%s/.ship/%s-%s", r.app_id, r.hash, r.name);
    int fd = userfs_open_shared (work_dir, rel, NULL); /* linked by executors */
    if (fd >= 0)
        return s_serve (&r, fd);
    snprintf (rel, sizeof rel, "%s/.ship/.%s-%s.have", r.app_id, r.hash,
              r.name);
    if ((fd = userfs_open_read (work_dir, rel, NULL)) < 0)
        return hearth_file_chunk_refusal ("no_file", r.request,
                                          "this node holds no %s (%.64s)",
                                          r.name, r.hash);
    if ((fd = s_open_part (work_dir, &r, fd)) < 0)
        return hearth_file_chunk_refusal (
            "not_yet", r.request,
            "this node is fetching %s: not that chunk yet", r.name);
    return s_serve (&r, fd);
}

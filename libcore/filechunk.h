/*  filechunk.h - one chunk of a shipped file read into a FILE_CHUNK
    (docs/protocol.md), the same way by whoever serves it: the driver
    (libhearth/ship.c) from the file it hashed, a worker's block server
    (worker/shipserve.c) from its node's cache of shipped files.  The
    CRC-32C is computed over the bytes as read, so that the fetching
    executor catches whatever the wire or a buffer damaged.
*/
#ifndef HEARTH_LIBCORE_FILECHUNK_H
#define HEARTH_LIBCORE_FILECHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/proto.h"

/* A new FILE_CHUNK of exactly len bytes of fd (borrowed) from offset,
   naming hash and request.  NULL with errno: ENOMEM, a read error's, or
   ENODATA when the file holds fewer bytes there. */
hearth_msg_t *hearth_file_chunk_read (int fd, const char *hash, uint64_t offset,
                                      size_t len, int64_t request);

/* The ERROR answering a FETCH_FILE instead, code and the text of fmt,
   echoing request.  NULL on no memory. */
hearth_msg_t *hearth_file_chunk_refusal (const char *code, int64_t request,
                                         const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

#endif

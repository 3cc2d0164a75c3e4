/*  filechunk.c - a chunk of a shipped file into a FILE_CHUNK; see
    filechunk.h.
*/
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/crc32c.h"
#include "libcore/filechunk.h"

/* Read len bytes at offset into buf, through interruptions and short
   reads.  0, or -1 with errno (ENODATA: the file ends before). */
static int
s_read_all (int fd, unsigned char *buf, size_t len, uint64_t offset)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread (fd, buf + got, len - got, (off_t) (offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ENODATA;
            return -1;
        }
        got += (size_t) n;
    }
    return 0;
}

hearth_msg_t *
hearth_file_chunk_read (int fd, const char *hash, uint64_t offset, size_t len,
                        int64_t request)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FILE_CHUNK);
    zframe_t *frame = msg ? zframe_new (NULL, len) : NULL;
    if (!frame) {
        hearth_msg_destroy (&msg);
        errno = ENOMEM;
        return NULL;
    }
    if (s_read_all (fd, zframe_data (frame), len, offset) < 0) {
        int saved = errno;
        zframe_destroy (&frame);
        hearth_msg_destroy (&msg);
        errno = saved;
        return NULL;
    }
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "hash", hash);
    cJSON_AddNumberToObject (b, "request", (double) request);
    cJSON_AddNumberToObject (b, "offset", (double) offset);
    cJSON_AddNumberToObject (b, "crc32c",
                             hearth_crc32c (zframe_data (frame), len));
    cJSON_AddNumberToObject (b, "data", hearth_msg_add_frame (msg, &frame));
    zframe_destroy (&frame);
    return msg;
}

hearth_msg_t *
hearth_file_chunk_refusal (const char *code, int64_t request, const char *fmt,
                           ...)
{
    char text[512];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (text, sizeof text, fmt, ap);
    va_end (ap);
    hearth_msg_t *msg = hearth_error_new (code, text, "FETCH_FILE");
    if (msg)
        cJSON_AddNumberToObject (msg->body, "request", (double) request);
    return msg;
}

/*  partfmt.h - the on-disk form of a map task's partitioned output.

    A map output is two files: DATA holds the R partitions one after the
    other, each a sequence of frames; DATA.index says where each starts.

    A frame is an 8-byte header, then its payload:

        u32 payload length (1..HEARTH_FRAME_MAX)    little-endian
        u32 CRC-32C of the payload                  little-endian

    The payloads of a partition, concatenated, are its records: lines
    each ending in '\n', in the partition's order; a record may span
    frames.  A reader checks every frame's checksum before it uses a byte
    of it, so a damaged block is caught wherever it travelled (disk,
    network) and nothing of it reaches a task.

    The index:

        "HRTHIDX1"                                  8 bytes
        u32 partitions, u32 flags (bit 0: sorted)   little-endian
        per partition: u64 offset, u64 length (stored: frames with their
                       headers), u64 bytes (payload), u64 records
        u32 CRC-32C of everything before it

    Writers create both under temporary names and rename the data file
    first, then the index: an index present names a whole data file.
*/
#ifndef HEARTH_PARTFMT_H
#define HEARTH_PARTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/error.h"

/* Largest payload of one frame. */
#define HEARTH_FRAME_MAX (32u * 1024u)
/* Bytes of a frame's header. */
#define HEARTH_FRAME_HEADER 8u
/* Most partitions of a partitioned stage. */
#define HEARTH_MAX_PARTITIONS 100000u

/* A file in a shuffle's directory (ROOT/APP_ID/SHUFFLE) saying that its
   map outputs are a persisted stage's (libhearth/persist.h): its worker
   counts them against --cache-disk and removes the oldest beyond it
   (worker/persisted.h). */
#define HEARTH_PERSISTED_MARK ".persisted"

/* Where one partition lies in a data file, and what it holds. */
typedef struct {
    uint64_t offset;  /* of its first frame */
    uint64_t length;  /* stored bytes: its frames with their headers */
    uint64_t bytes;   /* payload bytes: its records */
    uint64_t records; /* records */
} hearth_part_t;

/* --- writing frames --------------------------------------------------- */

/* Frames written to a file descriptor through a buffer of one frame.  An
   embedded struct: init, then write and flush, then release. */
typedef struct {
    int fd;             /* written to (borrowed) */
    unsigned char *buf; /* header room, then up to HEARTH_FRAME_MAX payload */
    size_t used;        /* payload bytes in buf */
    uint64_t written;   /* stored bytes written to fd so far */
} hearth_framer_t;

/* Start framing onto fd.  Returns 0, or -1 with err (no memory). */
int hearth_framer_init (hearth_framer_t *self, int fd, hearth_error_t *err);
/* Append payload bytes (any length: split into frames as they fill).
   Returns 0, or -1 with err (the file cannot be written). */
int hearth_framer_write (hearth_framer_t *self, const void *data, size_t len,
                         hearth_error_t *err);
/* Write the frame in progress, if any (the end of a partition).
   Returns 0, or -1 with err. */
int hearth_framer_flush (hearth_framer_t *self, hearth_error_t *err);
/* Free the buffer (accepts a released or zeroed struct). */
void hearth_framer_release (hearth_framer_t *self);

/* The stored bytes of len payload bytes: its frames with their headers
   (0 for none). */
uint64_t hearth_frames_size (uint64_t len);

/* The payload bytes of len stored bytes at data (their frames' lengths
   added up; a header cut short ends the count). */
uint64_t hearth_frames_payload (const void *data, size_t len);

/* Frame len payload bytes into out (room for hearth_frames_size (len)),
   as a framer would write them: for blocks made in memory (the outputs
   a driver keeps, given to readers that also fetch). */
void hearth_frames_encode (const void *payload, size_t len, unsigned char *out);

/* --- reading frames --------------------------------------------------- */

/* A stream of stored bytes (from a file or the network, in any pieces)
   turned back into checked payloads. */
typedef struct {
    unsigned char header[HEARTH_FRAME_HEADER]; /* the header being read */
    size_t header_used;                        /* its bytes so far */
    uint32_t want;                             /* payload bytes of the frame */
    uint32_t crc;                              /* its checksum, as stored */
    uint32_t crc_so_far;                       /* over the payload so far */
    uint32_t got;                              /* payload bytes so far */
    uint64_t frames;                           /* frames checked */
} hearth_unframer_t;

/* Told each piece of checked payload, in order (data borrowed for the
   call).  Returns 0, or -1 with err to stop. */
typedef int (hearth_payload_fn) (void *arg, const void *data, size_t len,
                                 hearth_error_t *err);

void hearth_unframer_init (hearth_unframer_t *self);
/* Feed len stored bytes.  Payload is handed to fn only once its frame's
   checksum is right, so a frame is held back (up to HEARTH_FRAME_MAX
   bytes, in scratch, which must hold that many) until it is whole.
   Returns 0, or -1 with err: code "checksum" for a frame whose payload
   does not match, "bad_frame" for a header that cannot be one, or fn's. */
int hearth_unframer_feed (hearth_unframer_t *self, const void *data, size_t len,
                          unsigned char *scratch, hearth_payload_fn *fn,
                          void *arg, hearth_error_t *err);
/* The stream ended: 0 when it ended between frames, else -1 with err
   (code "truncated"). */
int hearth_unframer_end (const hearth_unframer_t *self, hearth_error_t *err);

/* --- the index -------------------------------------------------------- */

/* Write the index of a data file atomically (path.tmp, then rename).
   Returns 0, or -1 with err. */
int hearth_partindex_write (const char *path, uint32_t partitions, bool sorted,
                            const hearth_part_t *parts, hearth_error_t *err);
/* Read and check an index.  *parts (caller frees) has *partitions
   entries.  Returns 0, or -1 with err (code "checksum" when the index
   itself is damaged). */
int hearth_partindex_read (const char *path, uint32_t *partitions, bool *sorted,
                           hearth_part_t **parts, hearth_error_t *err);

/* --- reading records back --------------------------------------------- */

typedef struct hearth_partreader hearth_partreader_t;

/* A reader of one partition's records: the stored bytes [offset, offset +
   length) of the data file at path (a partition's hearth_part_t, or a
   fetched block's whole file with offset 0).  NULL with err. */
hearth_partreader_t *hearth_partreader_new (const char *path, uint64_t offset,
                                            uint64_t length,
                                            hearth_error_t *err);
/* The next record, '\n' included (borrowed until the next call), in
   *rec and *len.  Returns 1, 0 at the end, or -1 with err (a checksum,
   a frame cut short, a read error). */
int hearth_partreader_next (hearth_partreader_t *self, const char **rec,
                            size_t *len, hearth_error_t *err);
/* The next records, as many whole ones as are read and checked and fit
   in max bytes (at least one: a record longer than max comes alone), in
   *data and *len (borrowed until the next call): an unsorted reader's
   way, without looking at each record.  Returns 1, 0 at the end, or -1
   with err, as hearth_partreader_next. */
int hearth_partreader_next_run (hearth_partreader_t *self, size_t max,
                                const char **data, size_t *len,
                                hearth_error_t *err);
/* Accepts NULL and a NULL *self_p; sets *self_p to NULL; keeps errno. */
void hearth_partreader_destroy (hearth_partreader_t **self_p);

#endif

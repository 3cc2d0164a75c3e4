/*  fetch.h - a reduce task's fetch of its partition's blocks from the
    workers that hold the map outputs.

    One call fetches every remote block of one reduce task into one file
    of its own (DIR/blocks, one block after the other), asking each
    worker's block server
    (worker/shuffle.h) for pieces of at most piece_bytes with FETCH_BLOCK,
    with at most max_in_flight bytes asked and not yet received over all
    of them, and checks each piece's frames as it arrives (partfmt.h), so
    that a damaged block is caught before any of it is used.  A block on
    this node is not fetched: it is read where its map task left it.  The
    result is the list of blocks to read (blockmerge.h), in map order.

    A block that cannot be had (its worker silent, the output missing
    there, its checksum wrong) is tried again a few times, a few seconds
    in all (a silent server: timeout_ms a try); then the call fails with
    a fetch failure naming the map output and its worker, which the
    driver answers by running that map task again (and which does not
    count as a failure of the reduce task).  A server whose connection is
    refused (its worker's process is gone, its host up) fails the call
    at once, without the tries: nothing will listen there again.  It runs on one
   of the executor's task threads, with sockets of its own.
*/
#ifndef HEARTH_EXECUTOR_FETCH_H
#define HEARTH_EXECUTOR_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcore/blockmerge.h"
#include "libcore/error.h"

/* One map output's block of the partition (all borrowed). */
typedef struct {
    const char *url;           /* the block server holding it */
    const char *server_key;    /* its CURVE public key (Z85), or NULL */
    uint32_t map;              /* the map task's index */
    uint32_t attempt;          /* the attempt whose output it is */
    uint64_t length;           /* its stored bytes (0: empty, nothing to do) */
    const unsigned char *data; /* its stored bytes when the driver sent
                                  them (the reduce role's "inline"), or
                                  NULL: fetched or read in place */
} fetch_block_t;

/* How to fetch (all borrowed). */
typedef struct {
    const char *app_id;    /* the application */
    const char *token;     /* its secret, which the worker checks */
    uint32_t shuffle;      /* the partitioned stage's shuffle id */
    uint32_t partition;    /* this reduce task's partition */
    const char *dir;       /* where fetched blocks go (exists) */
    const char *local_url; /* this node's block server: its blocks are read
                              in place, or NULL */
    const char *local_dir; /* this node's outputs of the application
                              (ROOT/APP_ID), for those, or NULL */
    size_t max_in_flight;  /* bytes asked, not yet received (0: 48 MiB) */
    size_t piece_bytes;    /* asked at a time (0: 4 MiB) */
    int64_t timeout_ms;    /* a silent server after this: a try failed
                              (0: 10 s) */
    int tries;             /* tries of one block (0: 4) */
    int64_t retry_wait_ms; /* between them, doubling (0: 250 ms) */
    bool sorted;           /* the blocks are merged by key: each stays a
                              block of its own (unsorted, consecutive
                              inline blocks may be read as one) */
    const bool *cancel;    /* set (by another thread) when the attempt is
                              killed: the fetch stops within its poll
                              (100 ms), a local failure; or NULL */
} fetch_opts_t;

/* Which map output could not be fetched, and why. */
typedef struct {
    uint32_t map;     /* its map task */
    uint32_t attempt; /* its attempt */
    char url[512];    /* the block server it was asked of */
    char reason[512]; /* what went wrong, last */
} fetch_failure_t;

/* Fetch blocks[0..n) (in map order).  On success *refs (caller frees:
   fetch_refs_free) holds n block references for blockmerge: local ones
   where they lie, fetched ones in DIR, and empty ones (length 0, path
   NULL) for empty blocks and for inline blocks read as part of the
   reference before them.  Returns 0; 1 with *failure
   filled when a map output could not be had (a fetch failure); -1 with
   err for a failure of this node (a full disk, no memory). */
int fetch_blocks (const fetch_opts_t *opts, const fetch_block_t *blocks,
                  size_t n, hearth_block_ref_t **refs, fetch_failure_t *failure,
                  hearth_error_t *err);

/* Free what fetch_blocks returned in *refs (n entries); accepts NULL. */
void fetch_refs_free (hearth_block_ref_t *refs, size_t n);

#endif

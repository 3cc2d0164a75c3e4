/*  shipserve.h - the chunks of shipped files this node holds, served by
    the worker's block server (shuffle.h) to the executors of other
    nodes (FETCH_FILE, answered FILE_CHUNK): the peer-to-peer half of
    "files once per node" (docs/design-changes.md).

    What is served is the node's cache of the application's shipped
    files, WORK_DIR/APP_ID/.ship (executor/shipcache.h), read only
    through userfs (no symbolic link followed, a regular file owned by
    the directory's owner): a complete entry HASH-NAME, any chunk of it
    (an entry has several links: the node's executors link it into
    their work dirs); or, while an executor of this node is still fetching the
   file, the chunks it has received and checked so far, which its progress file
   .HASH-NAME.have marks (one byte a chunk after a header naming its part file).
   A chunk not received yet is refused "not_yet": the asker waits or asks
   another holder.  The worker keeps no state of its own for this: the cache is
   the state.
*/
#ifndef HEARTH_WORKER_SHIPSERVE_H
#define HEARTH_WORKER_SHIPSERVE_H

#include <czmq.h>

#include "libcore/proto.h"

/* The answer to FETCH_FILE body (borrowed, checked by the codec, its
   application's token checked by the caller) from the caches under
   work_dir: a new FILE_CHUNK, or a new ERROR with command FETCH_FILE
   and the request's number (codes bad_request: no app_id or name;
   no_file; not_yet; bad_offset: not a chunk's start, or past the end;
   io).  NULL on no memory. */
hearth_msg_t *shipserve_answer (const char *work_dir, const cJSON *body);

#endif

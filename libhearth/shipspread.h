/*  shipspread.h - the driver's view of which nodes hold which chunks of
    the shipped files, so that it sends each file about once, whatever
    the count of nodes (issue 38; docs/design-changes.md, "files peer to
    peer").

    A node is its worker's block server (worker/shipserve.h serves the
    node's cache of shipped files), known by the id the application's
    block server table gave it (libhearth/shuffle.h), noted here with its
    URL and key as its executors register.  The driver notes the node of
    every chunk it sends (the node holds it from then on, or is about to:
    its worker answers "not_yet" meanwhile), and every node whose
    executor says the whole file is in its cache (FILE_HELD).  To a
    FETCH_FILE without "force" for a chunk some other node holds, the
    driver answers FILE_HOLDERS naming up to HEARTH_FILE_HOLDERS_MAX of
    them (the node it sent that chunk to first, then the complete
    holders, a different rotation for each chunk) instead of the bytes;
    the asker takes the chunk from them, and asks the driver again with
    "force" only when none of them could give it.  The driver is so the
    holder of last resort, named by no list.  A node whose worker is
    lost is forgotten.
*/
#ifndef HEARTH_LIBHEARTH_SHIPSPREAD_H
#define HEARTH_LIBHEARTH_SHIPSPREAD_H

#include <stdint.h>

#include "libcore/proto.h"
#include "libhearth/ship.h"

typedef struct shipspread shipspread_t;

/* Nothing held anywhere yet.  NULL on no memory. */
shipspread_t *shipspread_new (void);
/* Accepts NULL; nulls the pointer; keeps errno. */
void shipspread_destroy (shipspread_t **self_p);

/* Node server (a block server id; HEARTH_BLOCK_LOCAL: none, ignored)
   is at url with CURVE key (may be NULL), both copied. */
void shipspread_node (shipspread_t *self, uint32_t server, const char *url,
                      const char *key);

/* Where node server starts fetching each file, in millionths of it (0
   to 999999): the nodes' starts spread over the file in the order they
   came (0, 1/2, 1/4, 3/4, 1/8...), so that each takes a different part
   from the driver and the rest from the others. */
int64_t shipspread_start (uint32_t server);

/* The answer to FETCH_FILE body (borrowed, checked by the codec) from an
   executor of node server: a new FILE_HOLDERS when other nodes hold the
   chunk and the request does not "force", else ship's answer
   (ship_serve), the chunk noted as sent to server.  NULL on no
   memory. */
hearth_msg_t *shipspread_answer (shipspread_t *self, ship_t *ship,
                                 const cJSON *body, uint32_t server);

/* Node server holds the file of hash (FILE_HELD), complete. */
void shipspread_held (shipspread_t *self, const char *hash, uint32_t server);

/* Node server is gone (its worker lost): named no more. */
void shipspread_lost (shipspread_t *self, uint32_t server);

#endif

/*  shippeers.h - the other nodes' block servers that an executor fetches
    chunks of shipped files from (worker/shipserve.h): one DEALER each,
    made on first use (CURVE to the server's key when it has one, with
    throw-away keys of ours: the application's token in each request is
    what admits us), read on the executor's loop.  shipfetch.c names the
    peers as the driver's FILE_HOLDERS answers name them, sends its
    FETCH_FILE through here and gets the answers back by callback.  A
    peer found silent is dropped: its socket closed, never used again
    by this fetch (a node that dies mid-transfer is replaced by another
    holder or the driver).
*/
#ifndef HEARTH_EXECUTOR_SHIPPEERS_H
#define HEARTH_EXECUTOR_SHIPPEERS_H

#include <stdbool.h>
#include <stdint.h>

#include "libcore/loop.h"
#include "libcore/proto.h"

typedef struct shippeers shippeers_t;

/* An answer from peer (msg borrowed, checked by the codec). */
typedef void (shippeers_answer_fn) (void *arg, int peer,
                                    const hearth_msg_t *msg);

/* No peer yet; answers go to fn (arg), read on loop (borrowed).  NULL
   on no memory. */
shippeers_t *shippeers_new (hearth_loop_t *loop, shippeers_answer_fn *fn,
                            void *arg);
/* Every socket closed.  Accepts NULL; nulls the pointer; keeps errno. */
void shippeers_destroy (shippeers_t **self_p);

/* The peer at url with CURVE key (NULL or "": none): its index, the
   same for the same url; -1 on no memory. */
int shippeers_intern (shippeers_t *self, const char *url, const char *key);
/* Its url (borrowed). */
const char *shippeers_url (const shippeers_t *self, int peer);
/* Whether peer may be asked (not dropped). */
bool shippeers_usable (const shippeers_t *self, int peer);
/* Send *msg_p (taken) to peer, connecting first.  0, or -1 (dropped,
   or the socket would not take it: logged). */
int shippeers_send (shippeers_t *self, int peer, hearth_msg_t **msg_p);
/* When peer last answered (or was connected to: it has not answered
   yet), monotonic ms. */
int64_t shippeers_heard (const shippeers_t *self, int peer);
/* peer is silent or broken: its socket goes, it is not asked again. */
void shippeers_drop (shippeers_t *self, int peer, const char *why);

#endif

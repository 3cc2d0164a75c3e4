/*  taillink.h - hearth-tail's links to the master: MASTER_STATE on a
    DEALER, the events on a SUB, and whether the master is there.

    The SUB socket is watched with a socket monitor: a closed connection
    means the master went away (its process stopped, or the network cut
    it off), a completed handshake that it is back.  While it is away the
    link asks MASTER_STATE again (one request at a time, on a fresh
    socket after each silent --timeout) so that a master that comes back
    with another events URL is followed there, unless --events fixed it.

    Ownership: the link borrows the conf and the keys (both must outlive
    it) and owns its sockets; what tail_link_next hands out is the
    caller's to free.
*/
#ifndef HEARTH_TAIL_TAILLINK_H
#define HEARTH_TAIL_TAILLINK_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "libcore/conf.h"
#include "libcore/curve.h"
#include "libcore/error.h"

typedef struct tail_link tail_link_t;

/* A link to the master of conf's "master" (one URL or a checked list:
   libcore/masters.h; and "events", "timeout"), with the keys of curve;
   no socket yet.  NULL on no memory or a bad list. */
tail_link_t *tail_link_new (hearth_conf_t *conf, const hearth_curve_t *curve);

/* Close the sockets.  Accepts NULL and a NULL *self_p; nulls *self_p;
   keeps errno. */
void tail_link_destroy (tail_link_t **self_p);

/* Ask MASTER_STATE and wait up to --timeout for the answer: its body (the
   caller deletes it), or NULL with err.  With a list, the URLs in order
   (a standby's leader at once); err then names every URL tried. */
cJSON *tail_link_state (tail_link_t *self, hearth_error_t *err);

/* How many URLs --master lists (1: a single master). */
size_t tail_link_masters (const tail_link_t *self);

/* URL i of the list (borrowed), or NULL. */
const char *tail_link_master_url (const tail_link_t *self, size_t i);

/* Ask URL i of the list alone, on a socket of its own, what it is: its
   status (ALIVE, RECOVERING), "STANDBY (leader URL)", "STANDBY (no
   leader known)" or "unreachable (...)", into role. */
void tail_link_role (tail_link_t *self, size_t i, char *role, size_t size);

/* Subscribe to these topics (n of them) on the events URL: --events, else
   the one state (borrowed, a MASTER_STATE body) names.  0 or -1 with
   err. */
int tail_link_subscribe (tail_link_t *self, const cJSON *state,
                         const char *const *topics, size_t n,
                         hearth_error_t *err);

/* What tail_link_next found. */
typedef enum {
    TAIL_LINK_EVENT, /* an event: *topic and *text (caller frees) */
    TAIL_LINK_GONE,  /* the master went away: *text says how (caller frees) */
    TAIL_LINK_BACK,  /* it is back: *text says where (caller frees) */
    TAIL_LINK_END,   /* interrupted (a signal), or the link failed */
} tail_link_news_t;

/* Wait for the next thing worth saying. */
tail_link_news_t tail_link_next (tail_link_t *self, char **topic, char **text);

#endif

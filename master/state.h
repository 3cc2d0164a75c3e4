/*  state.h - the master's state as its peers see it: its status (ALIVE
    or RECOVERING, in every HEARTBEAT it sends) and MASTER_STATE's answer,
    the whole cluster as JSON (hearth-tail --state, hearth-submit
    --status). */
#ifndef HEARTH_MASTER_STATE_H
#define HEARTH_MASTER_STATE_H

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/dispatch.h"
#include "libcore/proto.h"
#include "master/master.h"

/* "ALIVE", "RECOVERING" or, for a candidate that does not lead,
   "STANDBY" (static). */
const char *master_status (const master_t *m);

/* The body of MASTER_STATE_RESPONSE: the master's settings, its workers,
   applications and drivers (a new tree; the caller deletes it), or NULL
   on no memory. */
cJSON *master_state_json (master_t *m);

/* The same document as text, printed without the tree, with the leader's
   epoch as master_send stamps it: the body MASTER_STATE's answer sends
   (malloc'd, the caller frees it; *len: its length), or NULL on no
   memory. */
char *master_state_text (master_t *m, size_t *len);

/* MASTER_STATE's handler: answers rid (borrowed) with the state; msg
   (borrowed) carries nothing it reads. */
void master_state_request (void *arg, const hearth_from_t *from,
                           hearth_msg_t *msg);

#endif

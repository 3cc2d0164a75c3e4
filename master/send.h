/*  send.h - everything hearth-master puts on its sockets that is not a
    handler's own answer: a message to one peer on the ROUTER, an ERROR
    for a malformed message, an event on the PUB, KILL_EXECUTOR for an
    executor, and the RECONNECT_WORKER that a message from a worker the
    master does not know gets.  A leaf of the master: it calls nothing of
    the master's other files, so that every one of them may call it. */
#ifndef HEARTH_MASTER_SEND_H
#define HEARTH_MASTER_SEND_H

#include <cjson/cJSON.h>
#include <czmq.h>

#include "libcore/proto.h"
#include "master/master.h"
#include "master/registry.h"

/* Send msg (consumed) to the peer of routing id rid (borrowed), stamped
   with the leader's epoch when the master was elected (m->epoch);
   failures are logged.  Every message of the ROUTER goes through here
   but cluster.c's broadcast heartbeat, which stamps its own. */
void master_send (master_t *m, zframe_t *rid, hearth_msg_t *msg);

/* Send cmd with body, a JSON object's text of len bytes that already
   carries the epoch master_send would stamp (consumed: malloc'd, handed
   to ZeroMQ, which frees it once sent), to rid (borrowed); failures are
   logged.  For an answer printed without a tree (MASTER_STATE's). */
void master_send_text (master_t *m, zframe_t *rid, hearth_cmd_t cmd, char *body,
                       size_t len);

/* Send a command whose body is {reason} (borrowed) to rid (borrowed):
   RECONNECT_WORKER, REGISTER_WORKER_FAILED, RECONNECT_APPLICATION. */
void master_send_reason (master_t *m, zframe_t *rid, hearth_cmd_t cmd,
                         const char *reason);

/* Answer a malformed or refused message of rid (borrowed): ERROR {code,
   message, command} (all borrowed; command may be NULL), logged once per
   peer per minute. */
void master_reject (master_t *m, zframe_t *rid, const char *code,
                    const char *text, const char *command);

/* Answer rid (borrowed) as a standby does (wire6.md): ERROR {code
   "standby", message, command (borrowed, may be NULL), leader: the
   leader's URL when known}.  Not logged: a standby gets many. */
void master_send_standby (master_t *m, zframe_t *rid, const char *command);

/* Publish event (consumed; NULL: nothing) on topic (borrowed), with the
   leader's epoch as its member "epoch" when the master was elected. */
void master_publish (master_t *m, const char *topic, cJSON *event);
/* Whether an event of topic would reach anyone: false only for
   heartbeats that no subscriber's prefix covers (one a worker a second:
   at 50,000 workers, building them for nobody was a fifth of the
   master's CPU). */
bool master_publishing (const master_t *m, const char *topic);
/* The events socket's subscription message (XPUB: 1 or 0, then the
   prefix), counted for master_publishing. */
void master_events_subscription (master_t *m, const void *data, size_t size);
/* Publish an event already printed (text, len bytes, borrowed; with the
   epoch in it when the master was elected) on topic (borrowed). */
void master_publish_text (master_t *m, const char *topic, const char *text,
                          size_t len);

/* Send KILL_EXECUTOR {app_id, exec_id, reason} (borrowed) to worker w
   (borrowed), and log it: for an executor of an ended application that a
   worker reports, or one its driver gave up on. */
void master_send_kill (master_t *m, reg_worker_t *w, const char *app_id,
                       int exec_id, const char *reason);

/* Send KILL_EXECUTOR for exec (borrowed) to its worker, if that is alive:
   registry_app_end's kill_fn, with the master as arg. */
void master_kill_executor (void *arg, reg_exec_t *exec);

/* The ALIVE worker that rid (borrowed) belongs to (borrowed), or NULL
   after answering RECONNECT_WORKER: a worker's report from a socket the
   master does not know. */
reg_worker_t *master_sender_worker (master_t *m, zframe_t *rid);

#endif

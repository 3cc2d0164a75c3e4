/*  send.c - the messages hearth-master puts on its ROUTER and the events
    it puts on its PUB socket; see send.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/jsonprint.h"
#include "libcore/log.h"
#include "master/send.h"

/* Errors from one peer are logged at most once per this period. */
static const int64_t s_error_log_period_ms = 60000;
/* Peers remembered for that; past it the memory is cleared. */
static const size_t s_error_log_peers_max = 10000;

/* A send on a socket the loop reads may take its mailbox in: the loop
   must look at it before it waits (loop.h).  Before the loop is made and
   after it is gone, nobody reads. */
static void
s_sent (master_t *m, zsock_t *sock)
{
    if (m->loop)
        hearth_loop_sent (m->loop, sock);
}

void
master_send (master_t *m, zframe_t *rid, hearth_msg_t *msg)
{
    hearth_error_t err;
    const char *name = hearth_cmd_name (msg->cmd);
    /* the leader's fencing token (0: not elected, nothing stamped) */
    if (m->epoch && hearth_msg_set_epoch (msg, m->epoch) < 0) {
        log_warn ("cannot send %s: out of memory", name);
        hearth_msg_destroy (&msg);
        return;
    }
    if (hearth_msg_send (&msg, m->router, rid, &err) < 0)
        log_warn ("cannot send %s: %s", name, err.text);
    s_sent (m, m->router);
}

static void
s_free_body (void *data, void *hint)
{
    (void) hint;
    free (data);
}

void
master_send_text (master_t *m, zframe_t *rid, hearth_cmd_t cmd, char *body,
                  size_t len)
{
    const char *name = hearth_cmd_name (cmd);
    void *router = zsock_resolve (m->router);
    int more = ZMQ_SNDMORE | ZMQ_DONTWAIT;
    zmq_msg_t part;
    /* as hearth_msg_send frames it; ZeroMQ queues a multipart message
       whole or not at all, so only the first send can fail with EAGAIN */
    if (zmq_msg_init_data (&part, body, len, s_free_body, NULL) < 0) {
        log_warn ("cannot send %s: %s", name, zmq_strerror (errno));
        free (body);
        return;
    }
    if (zmq_send (router, zframe_data (rid), zframe_size (rid), more) < 0
        || zmq_send (router, HEARTH_PROTO_TAG, strlen (HEARTH_PROTO_TAG), more)
               < 0
        || zmq_send (router, name, strlen (name), more) < 0
        || zmq_msg_send (&part, router, ZMQ_DONTWAIT) < 0) {
        log_warn ("cannot send %s: %s", name, zmq_strerror (errno));
        zmq_msg_close (&part);
    }
    s_sent (m, m->router);
}

void
master_send_reason (master_t *m, zframe_t *rid, hearth_cmd_t cmd,
                    const char *reason)
{
    hearth_msg_t *reply = hearth_msg_new (cmd);
    if (!reply)
        return;
    cJSON_AddStringToObject (reply->body, "reason", reason);
    master_send (m, rid, reply);
}

/* ERROR {code, message, command, leader} (borrowed; command and leader
   may be NULL), through master_send so that it carries the epoch. */
static void
s_error (master_t *m, zframe_t *rid, const char *code, const char *text,
         const char *command, const char *leader)
{
    hearth_msg_t *msg = hearth_error_new (code, text, command);
    if (!msg)
        return;
    if (leader)
        cJSON_AddStringToObject (msg->body, "leader", leader);
    master_send (m, rid, msg);
}

void
master_reject (master_t *m, zframe_t *rid, const char *code, const char *text,
               const char *command)
{
    char peer[64];
    char *hex = zframe_strhex (rid);
    snprintf (peer, sizeof peer, "%s", hex ? hex : "?");
    free (hex);
    int64_t now = hearth_mono_ms ();
    int64_t *last = zhashx_lookup (m->log_limit, peer);
    if (!last || now - *last >= s_error_log_period_ms) {
        log_warn ("peer %s: %s%s%s (dropped; further errors from this peer "
                  "are not logged for a minute)",
                  peer, command ? command : "", command ? ": " : "", text);
        if (zhashx_size (m->log_limit) >= s_error_log_peers_max)
            zhashx_purge (m->log_limit);
        int64_t *stamp = malloc (sizeof *stamp);
        if (stamp) {
            *stamp = now;
            zhashx_update (m->log_limit, peer, stamp);
        }
    }
    s_error (m, rid, code, text, command, NULL);
}

void
master_send_standby (master_t *m, zframe_t *rid, const char *command)
{
    char text[512];
    if (*m->leader_url)
        snprintf (text, sizeof text,
                  "this master is a standby; the leader is %s", m->leader_url);
    else
        snprintf (text, sizeof text,
                  "this master is a standby; no leader is known");
    s_error (m, rid, "standby", text, command,
             *m->leader_url ? m->leader_url : NULL);
}

bool
master_publishing (const master_t *m, const char *topic)
{
    return strcmp (topic, "heartbeat") != 0 || m->heartbeat_subs > 0;
}

void
master_events_subscription (master_t *m, const void *data, size_t size)
{
    static const char hb[] = "heartbeat";
    const unsigned char *d = data;
    if (size < 1 || size - 1 > sizeof hb - 1
        || memcmp (d + 1, hb, size - 1) != 0)
        return; /* not a prefix of "heartbeat": it does not change it */
    if (d[0] == 1)
        m->heartbeat_subs++;
    else if (d[0] == 0 && m->heartbeat_subs > 0)
        m->heartbeat_subs--;
}

void
master_publish (master_t *m, const char *topic, cJSON *event)
{
    if (!event)
        return;
    /* One event per worker heartbeat: printed with libcore's printer
       (cJSON's own spent half the master's instructions at 10,000
       workers: every number through sprintf and sscanf), sent straight
       from the stack. */
    if (m->epoch)
        cJSON_AddNumberToObject (event, "epoch", (double) m->epoch);
    char stack[4096];
    hearth_jsonbuf_t buf;
    const char *text = hearth_json_print (event, &buf, stack, sizeof stack);
    cJSON_Delete (event);
    if (!text)
        return;
    master_publish_text (m, topic, text, buf.len);
    hearth_jsonbuf_release (&buf);
}

void
master_publish_text (master_t *m, const char *topic, const char *text,
                     size_t len)
{
    void *pub = zsock_resolve (m->pub);
    if (zmq_send (pub, topic, strlen (topic), ZMQ_SNDMORE | ZMQ_DONTWAIT) >= 0)
        zmq_send (pub, text, len, ZMQ_DONTWAIT);
    s_sent (m, m->pub);
}

/* KILL_EXECUTOR {app_id, exec_id, reason} to w. */
static void
s_kill (master_t *m, reg_worker_t *w, const char *app_id, int exec_id,
        const char *reason)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_KILL_EXECUTOR);
    if (!msg)
        return;
    cJSON_AddStringToObject (msg->body, "app_id", app_id);
    cJSON_AddNumberToObject (msg->body, "exec_id", exec_id);
    cJSON_AddStringToObject (msg->body, "reason", reason);
    master_send (m, w->routing_id, msg);
}

void
master_send_kill (master_t *m, reg_worker_t *w, const char *app_id, int exec_id,
                  const char *reason)
{
    log_info ("killing executor %s/%d on %s: %s", app_id, exec_id, w->id,
              reason);
    s_kill (m, w, app_id, exec_id, reason);
}

void
master_kill_executor (void *arg, reg_exec_t *exec)
{
    if (exec->worker->state != WORKER_ALIVE)
        return;
    s_kill (arg, exec->worker, exec->app->id, exec->exec_id,
            "application ended");
}

reg_worker_t *
master_sender_worker (master_t *m, zframe_t *rid)
{
    void *record;
    if (registry_peer (m->reg, rid, &record) == PEER_WORKER
        && ((reg_worker_t *) record)->state == WORKER_ALIVE)
        return record;
    master_send_reason (m, rid, HEARTH_CMD_RECONNECT_WORKER,
                        "the master does not know this worker");
    return NULL;
}

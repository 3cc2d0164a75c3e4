/*  standby-peer.c - a master's stand-in for the clients' high-availability
    tests (tests/ha/test-ha-clients.sh): a ROUTER, built on libcore's
    codec, that plays one of two parts a real master's standby or deposed
    leader would (issue 17, wire6 contract), so that the real worker and
    driver can be tested against them before standby masters exist.

        standby-peer standby [LEADER]
            answers every message but ERROR with ERROR {code: "standby",
            leader: LEADER} (no leader when LEADER is not given)
        standby-peer stale
            a leader of epoch 5: registers workers and applications
            (REGISTERED_WORKER, REGISTERED_APPLICATION), answers
            heartbeats, all stamped with epoch 5; after a peer's third
            heartbeat it sends that peer RECONNECT_WORKER (or
            RECONNECT_APPLICATION) stamped with the older epoch 3, once

    It binds tcp://127.0.0.1 on a free port and prints, flushed:
        READY tcp://127.0.0.1:PORT
        GOT COMMAND           (each message it receives)
        SENT_STALE COMMAND    (the stale mode's older message)
    SIGTERM or SIGINT ends it.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/cookie.h"
#include "libcore/proto.h"
#include "libcore/zap.h"

/* What a registered peer is (stale mode). */
typedef struct {
    bool worker; /* a worker (else a driver) */
    int beats;   /* heartbeats it sent */
    bool stale;  /* the older message went to it */
} s_peer_t;

static const uint64_t s_epoch = 5;     /* the stale mode's own epoch */
static const uint64_t s_old_epoch = 3; /* an older leader's */
static const int s_interval_ms = 200;  /* the heartbeat it sets */
static const int s_liveness = 50;      /* generous: only what is tested
                                          ends a link */

static void
s_send (zsock_t *router, zframe_t *to, hearth_msg_t *msg, uint64_t epoch)
{
    hearth_error_t err;
    if (epoch)
        hearth_msg_set_epoch (msg, epoch);
    if (hearth_msg_send (&msg, router, to, &err) < 0)
        fprintf (stderr, "standby-peer: cannot send: %s\n", err.text);
}

static void
s_standby (zsock_t *router, zframe_t *from, const hearth_msg_t *in,
           const char *leader)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_ERROR);
    if (!msg)
        return;
    char text[400];
    snprintf (text, sizeof text, "this master is a standby; %s%s",
              leader ? "the leader is " : "no leader is known",
              leader ? leader : "");
    cJSON_AddStringToObject (msg->body, "code", "standby");
    cJSON_AddStringToObject (msg->body, "message", text);
    cJSON_AddStringToObject (msg->body, "command", hearth_cmd_name (in->cmd));
    if (leader)
        cJSON_AddStringToObject (msg->body, "leader", leader);
    s_send (router, from, msg, 0);
}

static void
s_stale (zsock_t *router, zframe_t *from, const hearth_msg_t *in,
         zhashx_t *peers)
{
    char *key = zframe_strhex (from);
    s_peer_t *p = zhashx_lookup (peers, key);
    hearth_msg_t *msg = NULL;
    if (in->cmd == HEARTH_CMD_REGISTER_WORKER
        || in->cmd == HEARTH_CMD_REGISTER_APPLICATION) {
        bool worker = in->cmd == HEARTH_CMD_REGISTER_WORKER;
        if (!p && (p = calloc (1, sizeof *p)))
            zhashx_insert (peers, key, p);
        if (p)
            p->worker = worker;
        msg = hearth_msg_new (worker ? HEARTH_CMD_REGISTERED_WORKER
                                     : HEARTH_CMD_REGISTERED_APPLICATION);
        if (msg && !worker)
            cJSON_AddStringToObject (msg->body, "app_id",
                                     "app-20260101000000-0001");
        if (msg) {
            cJSON_AddNumberToObject (msg->body, "heartbeat_interval_ms",
                                     s_interval_ms);
            cJSON_AddNumberToObject (msg->body, "heartbeat_liveness",
                                     s_liveness);
        }
    }
    else if (in->cmd == HEARTH_CMD_HEARTBEAT && p) {
        msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
        if (++p->beats == 3 && !p->stale) {
            hearth_msg_t *old =
                hearth_msg_new (p->worker ? HEARTH_CMD_RECONNECT_WORKER
                                          : HEARTH_CMD_RECONNECT_APPLICATION);
            if (old) {
                cJSON_AddStringToObject (old->body, "reason",
                                         "sent by a deposed leader");
                printf ("SENT_STALE %s\n", hearth_cmd_name (old->cmd));
                s_send (router, from, old, s_old_epoch);
            }
            p->stale = true;
        }
    }
    if (msg)
        s_send (router, from, msg, s_epoch);
    free (key);
}

static void
s_peer_free (void **item)
{
    free (*item);
    *item = NULL;
}

int
main (int argc, char **argv)
{
    if (argc < 2
        || (strcmp (argv[1], "standby") != 0
            && strcmp (argv[1], "stale") != 0)) {
        fprintf (stderr, "usage: standby-peer standby [LEADER] | stale\n");
        return 2;
    }
    bool standby = strcmp (argv[1], "standby") == 0;
    const char *leader = standby && argc > 2 ? argv[2] : NULL;
    zsys_init ();
    /* a master on loopback: it asks for the user's local cookie, as the
       real ones do (libcore/cookie.h), its clients being theirs */
    char cookie[HEARTH_COOKIE_LEN + 1];
    hearth_error_t cerr;
    zcert_t *server = NULL, *client = NULL;
    hearth_cookie_zap_t *zap =
        hearth_cookie_ensure (cookie, sizeof cookie, &cerr) == 0
                && hearth_cookie_certs (cookie, &server, &client, &cerr) == 0
            ? hearth_cookie_zap_new (cookie, &cerr)
            : NULL;
    zsock_t *router = zap ? zsock_new (ZMQ_ROUTER) : NULL;
    if (router) {
        zcert_apply (server, router);
        zsock_set_curve_server (router, 1);
        zsock_set_zap_domain (router, HEARTH_ZAP_DOMAIN);
    }
    zcert_destroy (&server);
    zcert_destroy (&client);
    int port = router ? zsock_bind (router, "tcp://127.0.0.1:*") : -1;
    zhashx_t *peers = zhashx_new ();
    if (port < 0 || !peers) {
        fprintf (stderr, "standby-peer: cannot bind\n");
        return 1;
    }
    zhashx_set_destructor (peers, s_peer_free);
    printf ("READY tcp://127.0.0.1:%d\n", port);
    fflush (stdout);
    zpoller_t *poller =
        zpoller_new (router, hearth_cookie_zap_sock (zap), NULL);
    while (poller && !zsys_interrupted) {
        zframe_t *from = NULL;
        hearth_error_t err;
        void *ready = zpoller_wait (poller, 500);
        if (ready == hearth_cookie_zap_sock (zap))
            hearth_cookie_zap_handle (zap);
        if (ready != router)
            continue;
        hearth_msg_t *in = hearth_msg_recv (router, &from, &err);
        if (in) {
            printf ("GOT %s\n", hearth_cmd_name (in->cmd));
            if (standby && in->cmd != HEARTH_CMD_ERROR)
                s_standby (router, from, in, leader);
            else if (!standby)
                s_stale (router, from, in, peers);
            fflush (stdout);
        }
        hearth_msg_destroy (&in);
        zframe_destroy (&from);
    }
    zpoller_destroy (&poller);
    zhashx_destroy (&peers);
    zsock_destroy (&router);
    hearth_cookie_zap_destroy (&zap);
    return 0;
}

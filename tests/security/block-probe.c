/*  block-probe.c - ask a worker's block server for a map output's
    partition, as any reducer would (test-app-takeover.sh):

        block-probe URL SERVER_KEY APP_ID TOKEN SHUFFLE MAP ATTEMPT PART

    SERVER_KEY is the block server's CURVE public key, or "-" for a server
    without keys; the probe's own key pair is a fresh one (the block server
    admits any: the application's token is what it checks).  Prints the
    block's bytes and exits 0, or prints "refused CODE: ERROR" and exits 1;
    exits 2 on a usage error and 3 when nothing answered in 5 s. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/proto.h"
#include "libcore/sock.h"

/* How long the block server may take to answer. */
static const int s_answer_ms = 5000;
/* The most bytes asked for. */
static const int s_max_bytes = 1 << 20;

/* The FETCH_BLOCK of argv's fields, or NULL. */
static hearth_msg_t *
s_request (char **argv)
{
    static const char *const ints[] = {"shuffle", "map", "attempt",
                                       "partition"};
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FETCH_BLOCK);
    if (!msg)
        return NULL;
    cJSON_AddStringToObject (msg->body, "app_id", argv[3]);
    cJSON_AddStringToObject (msg->body, "token", argv[4]);
    for (int i = 0; i < 4; i++)
        cJSON_AddNumberToObject (msg->body, ints[i], atof (argv[5 + i]));
    cJSON_AddNumberToObject (msg->body, "offset", 0);
    cJSON_AddNumberToObject (msg->body, "max_bytes", s_max_bytes);
    cJSON_AddNumberToObject (msg->body, "request", 1);
    return msg;
}

/* Print the answer: the bytes, or the refusal.  The exit status. */
static int
s_print (hearth_msg_t *reply)
{
    const char *code = hearth_json_str (reply->body, "code");
    if (code) {
        printf ("refused %s: %s\n", code,
                hearth_json_str (reply->body, "error"));
        return 1;
    }
    zframe_t *data =
        hearth_msg_frame (reply, hearth_json_int (reply->body, "data", -1));
    if (data)
        fwrite (zframe_data (data), 1, zframe_size (data), stdout);
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc != 9) {
        fprintf (stderr, "usage: block-probe URL SERVER_KEY APP_ID TOKEN "
                         "SHUFFLE MAP ATTEMPT PART\n");
        return 2;
    }
    hearth_zsys_init ();
    bool keyed = strcmp (argv[2], "-") != 0;
    zcert_t *cert = keyed ? zcert_new () : NULL;
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER,
                               .curve_cert = cert,
                               .curve_server_key = keyed ? argv[2] : NULL};
    hearth_error_t err;
    int rc = 3;
    zsock_t *sock = hearth_sock_new (&opts, &err);
    hearth_msg_t *msg = s_request (argv);
    if (!sock || !msg || hearth_sock_connect (sock, argv[1], &err) < 0
        || hearth_msg_send (&msg, sock, NULL, &err) < 0) {
        fprintf (stderr, "block-probe: %s\n", sock ? err.text : "no socket");
        rc = 2;
        goto done;
    }
    zpoller_t *poller = zpoller_new (sock, NULL);
    if (zpoller_wait (poller, s_answer_ms)) {
        hearth_msg_t *reply = hearth_msg_recv (sock, NULL, &err);
        if (reply)
            rc = s_print (reply);
        hearth_msg_destroy (&reply);
    }
    zpoller_destroy (&poller);
done:
    hearth_msg_destroy (&msg);
    hearth_sock_destroy (&sock);
    zcert_destroy (&cert);
    return rc;
}

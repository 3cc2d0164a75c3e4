/*  follow-probe.c - asks a master for its journal as a standby would, for
    tests/ha/test-ha-drivers.sh: what the leader's snapshot carries (the
    cluster-mode drivers' files), and who may have it (with CURVE, only
    the key pair the masters share).

        follow-probe URL [SECRET_KEY_FILE MASTER_KEY_FILE]

    It connects a DEALER (a CURVE client with the two key files), sends
    FOLLOW_JOURNAL without a stream, and prints, on stdout:
        SNAPSHOT RECORDS N DRIVERS D BYTES B   (the whole snapshot came:
                                                D drivers' files, B bytes)
        FILE DRIVER_ID COUNT BYTES             (one line per driver, before)
        ERROR CODE MESSAGE                     (the master refused)
        TIMEOUT                                (nothing within 3 s)
    Exit status 0 after SNAPSHOT, 1 otherwise.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <czmq.h>

#include "libcore/clock.h"
#include "libcore/curve.h"
#include "libcore/keys.h"
#include "libcore/proto.h"
#include "libcore/sock.h"

/* How long to wait for the whole snapshot. */
static const int64_t s_wait_ms = 3000;

/* Print the files that came with msg; adds their drivers and bytes. */
static void
s_files (const hearth_msg_t *msg, size_t *drivers, size_t *bytes)
{
    const cJSON *e;
    cJSON_ArrayForEach (e, cJSON_GetObjectItem (msg->body, "files"))
    {
        size_t first = (size_t) hearth_json_int (e, "first", 0);
        size_t count = (size_t) hearth_json_int (e, "count", 0), n = 0;
        for (size_t i = first; i < first + count && i < msg->nframes; i++)
            n += zframe_size (msg->frames[i]);
        printf ("FILE %s %zu %zu\n", hearth_json_str (e, "driver_id"), count,
                n);
        (*drivers)++;
        *bytes += n;
    }
}

/* Receive until the snapshot's last message, an ERROR or the deadline. */
static int
s_follow (zsock_t *dealer)
{
    size_t records = 0, drivers = 0, bytes = 0;
    int64_t end = hearth_mono_ms () + s_wait_ms;
    zpoller_t *poller = zpoller_new (dealer, NULL);
    int rc = 1;
    while (poller && hearth_mono_ms () < end) {
        if (!zpoller_wait (poller, (int) (end - hearth_mono_ms ())))
            continue;
        hearth_error_t err;
        hearth_msg_t *msg = hearth_msg_recv (dealer, NULL, &err);
        if (!msg) {
            printf ("BAD %s\n", err.text);
            continue;
        }
        bool done = msg->cmd == HEARTH_CMD_ERROR;
        if (done)
            printf ("ERROR %s %s\n", hearth_json_str (msg->body, "code"),
                    hearth_json_str (msg->body, "message"));
        else if (msg->cmd == HEARTH_CMD_JOURNAL_DATA) {
            records += (size_t) cJSON_GetArraySize (
                cJSON_GetObjectItem (msg->body, "records"));
            s_files (msg, &drivers, &bytes);
            if ((done = cJSON_IsTrue (cJSON_GetObjectItem (msg->body, "last"))))
                printf ("SNAPSHOT RECORDS %zu DRIVERS %zu BYTES %zu\n", records,
                        drivers, bytes);
            rc = done ? 0 : 1;
        }
        hearth_msg_destroy (&msg);
        if (done)
            break;
    }
    if (hearth_mono_ms () >= end)
        printf ("TIMEOUT\n");
    zpoller_destroy (&poller);
    return rc;
}

int
main (int argc, char **argv)
{
    if (argc != 2 && argc != 4) {
        fprintf (stderr, "usage: follow-probe URL [SECRET_KEY_FILE "
                         "MASTER_KEY_FILE]\n");
        return 2;
    }
    zsys_init ();
    zsys_handler_set (NULL);
    hearth_error_t err;
    char server[HEARTH_KEY_TXT_LEN + 1];
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    zcert_t *cert = NULL;
    if (argc == 4
        && (!(cert = hearth_keys_load_secret (argv[2], &err))
            || hearth_keys_load_public (argv[3], server, sizeof server, &err)
                   < 0)) {
        fprintf (stderr, "follow-probe: %s\n", err.text);
        zcert_destroy (&cert);
        return 2;
    }
    opts.curve_cert = cert;
    opts.curve_server_key = cert ? server : NULL;
    hearth_curve_t local = {0}; /* without keys: this user's cookie */
    if (!cert && hearth_curve_client_local (&local, argv[1], &err) < 0) {
        fprintf (stderr, "follow-probe: %s\n", err.text);
        return 2;
    }
    if (!cert)
        hearth_curve_client_opts (&local, &opts);
    zsock_t *dealer = hearth_sock_new (&opts, &err);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_FOLLOW_JOURNAL);
    int rc = 2;
    if (dealer && msg && hearth_sock_connect (dealer, argv[1], &err) == 0) {
        cJSON_AddStringToObject (msg->body, "url", "follow-probe");
        if (hearth_msg_send (&msg, dealer, NULL, &err) == 0)
            rc = s_follow (dealer);
    }
    if (rc == 2)
        fprintf (stderr, "follow-probe: %s\n", err.text);
    fflush (stdout);
    hearth_msg_destroy (&msg);
    hearth_sock_destroy (&dealer);
    zcert_destroy (&cert);
    hearth_curve_cleanup (&local); /* the cookie's keys */
    return rc;
}

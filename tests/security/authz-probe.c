/*  authz-probe.c - send the master commands as one key, and tell for each
    whether the master refused it as not allowed (test-authz-table.sh):

        authz-probe --master URL [--curve-secret FILE --master-key FILE]
                    < LINES

    Each input line is "COMMAND BODY" (BODY: one JSON object).  The probe
    sends the command, then MASTER_STATE on the same link, and reads until
    the MASTER_STATE_RESPONSE: the master handles a link's messages in
    order, so whatever it answered the command came before.  Then it
    prints one line:

        COMMAND refused REPLY MESSAGE    ERROR not_allowed, or a *_FAILED
                                         registration refusal
        COMMAND passed REPLY...          anything else (the commands it
                                         answered, or "-" for none)
        COMMAND silent                   no MASTER_STATE_RESPONSE in 5 s

    A bad line is "COMMAND bad REASON".  Exits 0 once stdin ends.

    With --bodies (test-resume-master.sh, issue 39: a driver's side of
    resuming spoken by hand), it prints instead every message that came
    back, one a line, "REPLY BODY-AS-JSON" (HEARTBEATs aside), then "DONE
    COMMAND" (or "COMMAND silent"); and "@APP" in a body stands for the
    app_id of the last REGISTERED_APPLICATION it heard. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/conf.h"
#include "libcore/curve.h"
#include "libcore/ids.h"
#include "libcore/proto.h"
#include "libcore/sock.h"

/* How long the fence's answer may take. */
static const int s_fence_ms = 5000;
/* The longest input line. */
#define S_LINE_MAX 8192

static const hearth_opt_t s_opts[] = {
    {.name = "master", .type = HEARTH_OPT_STR, .help = "master URL"},
    {.name = "bodies",
     .type = HEARTH_OPT_BOOL,
     .help = "print each reply whole, and expand @APP in the bodies"},
    HEARTH_CURVE_CLIENT_OPTIONS,
    {.name = NULL},
};

/* What the master answered one command, up to the fence. */
typedef struct {
    bool bodies;       /* print each reply whole (--bodies) */
    char *app;         /* the last REGISTERED_APPLICATION's app_id (with
                          bodies; HEARTH_ID_MAX + 1 bytes) */
    bool refused;      /* ERROR not_allowed, or REGISTER_WORKER_FAILED */
    int fences;        /* MASTER_STATE_RESPONSEs still to come */
    char replies[512]; /* the commands it answered, space-separated */
    char message[600]; /* a refusal's message */
} s_outcome_t;

/* Print a reply whole; note an application's id in app. */
static void
s_print (const hearth_msg_t *msg, char *app)
{
    char *text = cJSON_PrintUnformatted (msg->body);
    printf ("%s %s\n", hearth_cmd_name (msg->cmd), text ? text : "{}");
    free (text);
    const char *id = hearth_json_str (msg->body, "app_id");
    if (msg->cmd == HEARTH_CMD_REGISTERED_APPLICATION && id)
        snprintf (app, HEARTH_ID_MAX + 1, "%s", id);
}

/* body with "@APP" replaced by app: a new string, or NULL. */
static char *
s_expand (const char *body, const char *app)
{
    size_t n = strlen (body) + 1;
    for (const char *p = body; (p = strstr (p, "@APP")); p += 4)
        n += strlen (app);
    char *out = malloc (n), *o = out;
    for (const char *p = body; out && *p;) {
        if (strncmp (p, "@APP", 4) == 0) {
            o = stpcpy (o, app);
            p += 4;
        }
        else
            *o++ = *p++;
    }
    if (out)
        *o = '\0';
    return out;
}

/* Note one message that came back while waiting for the fence. */
static void
s_note (s_outcome_t *o, const hearth_msg_t *msg, hearth_cmd_t probed)
{
    const char *name = hearth_cmd_name (msg->cmd);
    size_t used = strlen (o->replies);
    if (msg->cmd == HEARTH_CMD_MASTER_STATE_RESPONSE) {
        o->fences--;
        return;
    }
    /* The master heartbeats what this link registered (an application,
       a worker) on its own schedule: not an answer to the command */
    if (msg->cmd == HEARTH_CMD_HEARTBEAT && probed != HEARTH_CMD_HEARTBEAT)
        return;
    snprintf (o->replies + used, sizeof o->replies - used, "%s%s",
              used ? " " : "", name);
    if (o->bodies)
        s_print (msg, o->app);
    const char *code = hearth_json_str (msg->body, "code");
    bool not_allowed = msg->cmd == HEARTH_CMD_ERROR && code
                       && strcmp (code, "not_allowed") == 0;
    if (not_allowed || msg->cmd == HEARTH_CMD_REGISTER_WORKER_FAILED) {
        o->refused = true;
        if (probed == HEARTH_CMD_MASTER_STATE)
            o->fences--; /* refused: only the fence is answered */
        const char *text =
            hearth_json_str (msg->body, not_allowed ? "message" : "reason");
        snprintf (o->message, sizeof o->message, "%s", text ? text : "");
    }
}

/* Send one "COMMAND BODY" line, then the fence; print the outcome.
   bodies: --bodies, with app its last application's id. */
static void
s_probe (zsock_t *sock, char *line, bool bodies, char *app)
{
    char *body = strchr (line, ' ');
    if (body)
        *body++ = '\0';
    int cmd = hearth_cmd_lookup (line, strlen (line));
    char *expanded = body && bodies ? s_expand (body, app) : NULL;
    cJSON *json = expanded ? cJSON_Parse (expanded)
                  : body   ? cJSON_Parse (body)
                           : NULL;
    free (expanded);
    if (cmd < 0 || !cJSON_IsObject (json)) {
        printf ("%s bad %s\n", line, cmd < 0 ? "unknown command" : "body");
        cJSON_Delete (json);
        return;
    }
    hearth_msg_t *msg = hearth_msg_new ((hearth_cmd_t) cmd);
    hearth_msg_t *fence = hearth_msg_new (HEARTH_CMD_MASTER_STATE);
    cJSON_Delete (msg->body);
    msg->body = json;
    hearth_error_t err;
    if (hearth_msg_send (&msg, sock, NULL, &err) < 0
        || hearth_msg_send (&fence, sock, NULL, &err) < 0) {
        printf ("%s bad %s\n", line, err.text);
        hearth_msg_destroy (&msg);
        hearth_msg_destroy (&fence);
        return;
    }
    /* MASTER_STATE probed is answered as the fence is, unless refused */
    s_outcome_t o = {.fences = cmd == HEARTH_CMD_MASTER_STATE ? 2 : 1,
                     .bodies = bodies,
                     .app = app};
    zpoller_t *poller = zpoller_new (sock, NULL);
    while (o.fences > 0 && zpoller_wait (poller, s_fence_ms)) {
        hearth_msg_t *reply = hearth_msg_recv (sock, NULL, NULL);
        if (reply)
            s_note (&o, reply, (hearth_cmd_t) cmd);
        hearth_msg_destroy (&reply);
    }
    zpoller_destroy (&poller);
    if (o.fences > 0)
        printf ("%s silent\n", line);
    else if (bodies)
        printf ("DONE %s\n", line);
    else if (o.refused)
        printf ("%s refused %s %s\n", line, o.replies, o.message);
    else
        printf ("%s passed %s\n", line, o.replies[0] ? o.replies : "-");
    fflush (stdout);
}

int
main (int argc, char **argv)
{
    hearth_error_t err;
    hearth_conf_t *conf = hearth_conf_new ("authz-probe", s_opts);
    hearth_curve_t curve = {0};
    hearth_sock_opts_t opts = {.type = ZMQ_DEALER};
    zsock_t *sock = NULL;
    int rc = 1;
    if (!conf || hearth_conf_parse (conf, argc, argv, &err) < 0
        || !hearth_conf_str (conf, "master")) {
        fprintf (stderr, "authz-probe: %s\n",
                 conf && hearth_conf_str (conf, "master") ? err.text
                                                          : "--master needed");
        goto done;
    }
    hearth_zsys_init ();
    const char *url = hearth_conf_str (conf, "master");
    if (hearth_curve_client_setup (&curve, conf, url, &err) < 0) {
        fprintf (stderr, "authz-probe: %s\n", err.text);
        goto done;
    }
    hearth_curve_client_opts (&curve, &opts);
    if (!(sock = hearth_sock_new (&opts, &err))
        || hearth_sock_connect (sock, url, &err) < 0) {
        fprintf (stderr, "authz-probe: %s\n", err.text);
        goto done;
    }
    char app[HEARTH_ID_MAX + 1] = "";
    bool bodies = hearth_conf_bool (conf, "bodies");
    char *line = malloc (S_LINE_MAX);
    while (line && fgets (line, S_LINE_MAX, stdin)) {
        line[strcspn (line, "\n")] = '\0';
        if (line[0])
            s_probe (sock, line, bodies, app);
    }
    free (line);
    rc = 0;
done:
    hearth_sock_destroy (&sock);
    hearth_curve_cleanup (&curve);
    hearth_conf_destroy (&conf);
    return rc;
}

/*  submit_request.h - hearth-submit's requests to the master: the link,
    one request and its answer, DRIVER_STATUS, and how a failure is told.

    Used by the cluster-mode submission (submit_driver.c) and the admin
    commands (submit_admin.c); it calls neither.
*/
#ifndef HEARTH_SUBMIT_SUBMIT_REQUEST_H
#define HEARTH_SUBMIT_SUBMIT_REQUEST_H

#include <stdbool.h>

#include "libcore/conf.h"
#include "libcore/error.h"
#include "libcore/proto.h"

/* The link to the master of --master (tcp://HOST:PORT, or the masters'
   list: libcore/masters.h), with the cluster's keys, that makes its
   socket at the first request. */
typedef struct submit_link submit_link_t;

/* A link from conf ("master", "timeout", the client's keys; borrowed for
   the link's life), for the caller to destroy.  NULL after printing why,
   with *rc the exit status: 2 for a --master that is not tcp:// or for
   bad keys, 1 when out of memory. */
submit_link_t *submit_link_new (hearth_conf_t *conf, int *rc);

/* Close the socket and free the keys.  Accepts NULL and a NULL *self_p;
   nulls *self_p; keeps errno. */
void submit_link_destroy (submit_link_t **self_p);

/* The master's URL: the one asked first (borrowed, valid until the next
   request). */
const char *submit_link_url (const submit_link_t *self);

/* Send *req (consumed, nulled) and wait up to --timeout for an answer of
   command expect (others are dropped: a late answer, a heartbeat).
   Returns it (the caller destroys it), or NULL with err: no answer in
   time (the socket is dropped, so that a late answer is never taken for
   the next one's), or the master's ERROR.  With a list, each silent
   master or standby passes the request on (a standby's leader first);
   err then names every URL tried. */
hearth_msg_t *submit_link_request (submit_link_t *self, hearth_msg_t **req,
                                   hearth_cmd_t expect, hearth_error_t *err);

/* DRIVER_STATUS of driver_id (borrowed): the response (the caller
   destroys it), or NULL with err. */
hearth_msg_t *submit_link_status (submit_link_t *self, const char *driver_id,
                                  hearth_error_t *err);

/* Whether a driver in state (a name, or NULL) has ended: FINISHED,
   FAILED, KILLED or ERROR. */
bool submit_driver_ended (const char *state);

/* Print the name of the program the user ran ("hearth-submit: ",
   "hearth-admin: ") and the message on stderr, its control characters
   escaped (it often quotes the master's text: libcore/ctlchars.h);
   returns code, so that a failure reads `return submit_fail (1, "...",
   ...);`. */
int submit_fail (int code, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#endif

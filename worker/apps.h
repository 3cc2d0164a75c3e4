/*  apps.h - the applications a worker has launched executors of: the
    token and the owner each one came with first, kept until the master
    says the application ended (docs/security.md, "An application's id
    and its data").

    An application's token is its driver's secret: its executors present
    it to the driver, and the block server (shuffle.h) serves the
    application's map outputs only to requests that carry it.  Once a
    worker knows an application's token, a LAUNCH_EXECUTOR of that
    application with another one is not that application's: a master
    that forgot the application (restarted without a journal) may have
    given its id to another key's driver, which must get neither an
    executor under the id nor its data.  So the first token stays, and a
    launch with another one is refused; the token never changes while the
    application lives here.

    The owner (the key that submitted the application, as LAUNCH_EXECUTOR
    says it) is what the worker tells a master it registers with
    (REGISTER_WORKER `apps`), so that a master that forgot the
    application knows whose id it is.
*/
#ifndef HEARTH_WORKER_APPS_H
#define HEARTH_WORKER_APPS_H

#include <cjson/cJSON.h>

#include "libcore/error.h"

typedef struct apps apps_t;

/* An empty table, or NULL on no memory. */
apps_t *apps_new (void);
/* Free the table.  Accepts NULL and a NULL *self_p; nulls the pointer;
   keeps errno. */
void apps_destroy (apps_t **self_p);

/* err->code of a launch refused for its token. */
#define APPS_REFUSED "other_token"

/* A launch of an executor of app_id with token and owner (borrowed; NULL
   or "" for none).  The first one of the application is kept; a later one
   must carry the same token (compared in constant time).  Returns 0, or
   -1 with err: code APPS_REFUSED for another token (the launch must be
   refused), or no memory. */
int apps_launch (apps_t *self, const char *app_id, const char *token,
                 const char *owner, hearth_error_t *err);

/* The token app_id's executors were launched with (borrowed, valid until
   the next change), or NULL: unknown here, or launched without one. */
const char *apps_token (const apps_t *self, const char *app_id);

/* The application ended: forget it. */
void apps_removed (apps_t *self, const char *app_id);

/* The ids of the applications known here, in no order: the first, then
   the next ones (NULL at the end).  Borrowed; the table must not change
   during the walk. */
const char *apps_first (apps_t *self);
const char *apps_next (apps_t *self);

/* REGISTER_WORKER's `apps`: [{app_id, owner}] for those launched with an
   owner (a master with keys).  A new array (the caller owns it), or NULL
   on no memory. */
cJSON *apps_json (apps_t *self);

#endif

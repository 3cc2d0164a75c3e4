/*  apps.c - the applications a worker has launched executors of, with
    the token and owner of their first launch; see apps.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/keys.h"
#include "worker/apps.h"

/* LAUNCH_EXECUTOR's limits (libcore/commands.c): a token of at most 128
   characters, an owner key of at most 64. */
#define APP_TOKEN_MAX 128
#define APP_OWNER_MAX 64

/* What the table keeps of one application. */
typedef struct {
    char token[APP_TOKEN_MAX + 1]; /* its first launch's token, or "" */
    char owner[APP_OWNER_MAX + 1]; /* its first launch's owner, or "" */
} s_app_t;

struct apps {
    zhashx_t *apps; /* app id -> s_app_t * (owned) */
};

static void
s_app_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

apps_t *
apps_new (void)
{
    apps_t *self = calloc (1, sizeof *self);
    if (!self || !(self->apps = zhashx_new ())) {
        free (self);
        return NULL;
    }
    zhashx_set_destructor (self->apps, s_app_destroy);
    return self;
}

void
apps_destroy (apps_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    zhashx_destroy (&(*self_p)->apps);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

/* The first launch of app_id: its token and owner, kept. */
static int
s_add (apps_t *self, const char *app_id, const char *token, const char *owner,
       hearth_error_t *err)
{
    s_app_t *a = calloc (1, sizeof *a);
    if (!a)
        return hearth_errprintf (err, "out of memory");
    if (strlen (token) > APP_TOKEN_MAX || strlen (owner) > APP_OWNER_MAX) {
        free (a);
        return hearth_errprintf (err, "token or owner too long");
    }
    strcpy (a->token, token);
    strcpy (a->owner, owner);
    if (zhashx_insert (self->apps, app_id, a) < 0) {
        free (a);
        return hearth_errprintf (err, "out of memory");
    }
    return 0;
}

int
apps_launch (apps_t *self, const char *app_id, const char *token,
             const char *owner, hearth_error_t *err)
{
    const s_app_t *a = zhashx_lookup (self->apps, app_id);
    if (!a)
        return s_add (self, app_id, token ? token : "", owner ? owner : "",
                      err);
    if (!hearth_keys_token_eq (a->token, token ? token : ""))
        return hearth_errcode (
            err, APPS_REFUSED,
            "application %s runs here with another token: this launch is not "
            "for its driver (a master that forgot the application gave its "
            "id to another)",
            app_id);
    return 0;
}

const char *
apps_token (const apps_t *self, const char *app_id)
{
    const s_app_t *a = zhashx_lookup (self->apps, app_id);
    return a && a->token[0] ? a->token : NULL;
}

void
apps_removed (apps_t *self, const char *app_id)
{
    zhashx_delete (self->apps, app_id);
}

const char *
apps_first (apps_t *self)
{
    return zhashx_first (self->apps) ? zhashx_cursor (self->apps) : NULL;
}

const char *
apps_next (apps_t *self)
{
    return zhashx_next (self->apps) ? zhashx_cursor (self->apps) : NULL;
}

cJSON *
apps_json (apps_t *self)
{
    cJSON *list = cJSON_CreateArray ();
    for (const s_app_t *a = zhashx_first (self->apps); list && a;
         a = zhashx_next (self->apps)) {
        cJSON *o = a->owner[0] ? cJSON_CreateObject () : NULL;
        if (!o)
            continue;
        cJSON_AddStringToObject (o, "app_id", zhashx_cursor (self->apps));
        cJSON_AddStringToObject (o, "owner", a->owner);
        cJSON_AddItemToArray (list, o);
    }
    return list;
}

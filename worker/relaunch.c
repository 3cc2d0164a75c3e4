/*  relaunch.c - driver launches waiting for an older launch of the same
    driver to end: deep copies of drivers_launch_t; see relaunch.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "worker/relaunch.h"

/* A launch and the copies its pointers point into. */
typedef struct {
    drivers_launch_t l; /* the launch, pointing into the fields below */
    char *driver_id;    /* its driver */
    char *app;          /* the file to run */
    cJSON *args;        /* or NULL */
    cJSON *files;       /* or NULL */
    cJSON *env;         /* or NULL */
    cJSON *conf;        /* or NULL */
    zframe_t **frames;  /* nframes copies */
    char *owner[3];     /* its submitter: key, key file, user (or NULL) */
    char *curve_secret; /* the launch's secret key, or NULL (wiped when
                           freed) */
} s_copy_t;

struct relaunches {
    zhashx_t *waiting; /* driver id -> s_copy_t * (owned) */
};

static void
s_copy_destroy (s_copy_t **copy_p)
{
    s_copy_t *c = *copy_p;
    if (!c)
        return;
    free (c->driver_id);
    free (c->app);
    cJSON_Delete (c->args);
    cJSON_Delete (c->files);
    cJSON_Delete (c->env);
    cJSON_Delete (c->conf);
    for (size_t i = 0; c->frames && i < c->l.nframes; i++)
        zframe_destroy (&c->frames[i]);
    free (c->frames);
    for (size_t i = 0; i < 3; i++)
        free (c->owner[i]);
    if (c->curve_secret)
        explicit_bzero (c->curve_secret, strlen (c->curve_secret));
    free (c->curve_secret);
    free (c);
    *copy_p = NULL;
}

static void
s_copy_destructor (void **item)
{
    s_copy_destroy ((s_copy_t **) item);
}

/* A copy of s (NULL: none) into *to; false on no memory. */
static bool
s_dup_str (const char *s, char **to)
{
    *to = s ? strdup (s) : NULL;
    return !s || *to;
}

/* A JSON copy of v (NULL: none) into *to; false on no memory. */
static bool
s_dup_json (const cJSON *v, cJSON **to)
{
    *to = v ? cJSON_Duplicate (v, true) : NULL;
    return !v || *to;
}

static s_copy_t *
s_copy_new (const drivers_launch_t *l)
{
    s_copy_t *c = calloc (1, sizeof *c);
    if (!c)
        return NULL;
    c->l = *l;
    c->driver_id = strdup (l->driver_id);
    c->app = strdup (l->app);
    c->frames = calloc (l->nframes ? l->nframes : 1, sizeof *c->frames);
    bool ok = c->driver_id && c->app && c->frames
              && s_dup_json (l->args, &c->args)
              && s_dup_json (l->files, &c->files)
              && s_dup_json (l->env, &c->env) && s_dup_json (l->conf, &c->conf)
              && s_dup_str (l->owner.owner, &c->owner[0])
              && s_dup_str (l->owner.owner_name, &c->owner[1])
              && s_dup_str (l->owner.user, &c->owner[2])
              && s_dup_str (l->curve_secret, &c->curve_secret);
    for (size_t i = 0; ok && i < l->nframes; i++)
        ok = (c->frames[i] = zframe_dup (l->frames[i])) != NULL;
    if (!ok) {
        s_copy_destroy (&c);
        return NULL;
    }
    c->l.driver_id = c->driver_id;
    c->l.app = c->app;
    c->l.args = c->args;
    c->l.files = c->files;
    c->l.env = c->env;
    c->l.conf = c->conf;
    c->l.frames = c->frames;
    c->l.owner = (runas_owner_t){c->owner[0], c->owner[1], c->owner[2]};
    c->l.curve_secret = c->curve_secret;
    return c;
}

relaunches_t *
relaunches_new (void)
{
    relaunches_t *self = calloc (1, sizeof *self);
    if (!self || !(self->waiting = zhashx_new ())) {
        free (self);
        errno = ENOMEM;
        return NULL;
    }
    zhashx_set_destructor (self->waiting, s_copy_destructor);
    return self;
}

void
relaunches_destroy (relaunches_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    zhashx_destroy (&(*self_p)->waiting);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

int
relaunches_put (relaunches_t *self, const drivers_launch_t *l)
{
    s_copy_t *c = s_copy_new (l);
    if (!c)
        return -1;
    zhashx_update (self->waiting, c->driver_id, c);
    return 0;
}

const drivers_launch_t *
relaunches_get (relaunches_t *self, const char *driver_id)
{
    s_copy_t *c = zhashx_lookup (self->waiting, driver_id);
    return c ? &c->l : NULL;
}

void
relaunches_drop (relaunches_t *self, const char *driver_id)
{
    zhashx_delete (self->waiting, driver_id);
}

const drivers_launch_t *
relaunches_first (relaunches_t *self)
{
    s_copy_t *c = zhashx_first (self->waiting);
    return c ? &c->l : NULL;
}
